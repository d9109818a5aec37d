"""Which pages run and which are reused: one pool of page interpreters over the results store.

The build and the tests ask for a page's run here (:meth:`Runs.submit`) and get a future. A
page whose key is already being run in this process shares that run (a page and its
translation have the same key); otherwise, unless ``fresh``, a stored run is reused; otherwise
the page runs in :func:`fieldnotes.execute.run_page`, under the store's lock for its key, so a
second process (the other language's build) waits and reuses it instead of running it again.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Callable

from fieldnotes.blocks import Block
from fieldnotes.execute import run_page
from fieldnotes.results import PageRun
from fieldnotes.store import Store, page_key

BUILD_RUNS = "FIELDNOTES_BUILD_RUNS"
"""A folder that lives for one build (``docs/site.py build``) or one test session: every run
made in it (failed ones too, and all runs under ``--fresh``) is shared there between the
processes of that build or session (the languages' builds, the site builds the tests make),
so none runs a page that another has run or is running."""


class Runs:
    def __init__(self, root: Path, store: Store | None, fresh: bool = False,
                 workers: int | None = None, report: Callable[[str], None] | None = None):
        """``report``: called with a line when a page starts running and when it is done (which
        page, how many are done of how many to run, the time so far): a cold build's progress."""
        self.root, self.store, self.fresh, self.report = root, store, fresh, report
        self.started = time.monotonic()
        self.to_run: set[str] = set()  # keys that had no stored run when they were asked for
        self.done: set[str] = set()
        self.pool = ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 2,
                                       thread_name_prefix="fieldnotes-page")
        self.shared = Store(Path(os.environ[BUILD_RUNS])) if os.environ.get(BUILD_RUNS) else None
        self._futures: dict[tuple[str, int | None], Future[PageRun]] = {}
        self._lock = threading.Lock()
        self.names: dict[str, str] = {}  # key -> the first page that asked for it
        self.ran: list[str] = []  # keys run here
        self.reused: list[str] = []  # keys taken from the store

    def submit_all(self, pages: list[list[Block]]) -> list[Future[PageRun]]:
        """The runs of whole pages, all asked for at once, so that progress says "k of N" with
        the final N from the first line."""
        keys = [page_key(blocks, self.root) for blocks in pages]
        with self._lock:
            for key in keys:
                if self.fresh or not (self.store and self.store.has(key)):
                    self.to_run.add(key)
        return [self.submit(blocks, key=key) for blocks, key in zip(pages, keys)]

    def submit(self, blocks: list[Block], upto: int | None = None, key: str | None = None) -> Future[PageRun]:
        """The run of ``blocks[:upto]``; runs of fewer than all blocks are never stored.
        ``key``: the page's store key, when the caller has it already."""
        key = key or page_key(blocks, self.root)
        self.names.setdefault(key, blocks[0].page if blocks else "?")
        upto = None if upto is None or upto >= len(blocks) else upto
        with self._lock:
            if (key, upto) not in self._futures:
                if upto is not None or self.fresh or not (self.store and self.store.has(key)):
                    self.to_run.add(key)
                self._futures[(key, upto)] = self.pool.submit(self._get, key, blocks, upto)
            return self._futures[(key, upto)]

    def _lookup(self, key: str) -> PageRun | None:
        if self.shared and (run := self.shared.get(key)):
            return run
        if not self.fresh and self.store:
            return self.store.get(key)
        return None

    def _get(self, key: str, blocks: list[Block], upto: int | None) -> PageRun:
        if upto is not None:  # a partial run (a test selected one block): always fresh, never kept
            return self._run(key, blocks, upto)
        if run := self._lookup(key):
            self.reused.append(key)
            self._progress("reused", key, 0.0, "run by the other build")
            return run
        if self.store is None:
            return self._run(key, blocks, None)
        with self.store.lock(key):
            if run := self._lookup(key):  # run by another process while this one waited
                self.reused.append(key)
                self._progress("reused", key, 0.0, "run by the other build")
                return run
            return self._run(key, blocks, None)

    def _progress(self, what: str, key: str, seconds: float | None, how: str = "") -> None:
        if self.report is None or key not in self.to_run:
            return
        if what != "running":
            self.done.add(key)
        took = f" in {seconds:.1f} s" if seconds else ""
        self.report(f"{what} {self.names[key]}{took}{f' ({how})' if how else ''} "
                    f"[{len(self.done)}/{len(self.to_run)} done, {time.monotonic() - self.started:.0f} s]")

    def _run(self, key: str, blocks: list[Block], upto: int | None) -> PageRun:
        self._progress("running", key, None)
        start = time.monotonic()
        run = run_page(blocks, self.root, upto)
        self._progress("ran" if run.ok else "failed", key, time.monotonic() - start)
        self.ran.append(key)
        if upto is None:
            if self.shared:
                self.shared.put(key, run)
            if self.store and run.complete(blocks):
                self.store.put(key, run)
        return run

    def summary(self) -> str:
        ran = sorted({self.names[k] for k in self.ran})
        shown = f" ({', '.join(ran[:5])}{', ...' if len(ran) > 5 else ''})" if ran else ""
        return (f"{len(ran)} pages ran{shown}, {len(set(self.reused))} reused from the store"
                + (" (--fresh: the store was not read)" if self.fresh else ""))

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
