"""Every executed block of ``docs/<lang>/`` as a pytest item, run through the build's executor.

pytest-codeblocks finds and names the blocks (its parser, through :func:`read_blocks`, and its
``TestBlock`` items: ``docs/en/x.md::line 12``); the code runs in :mod:`fieldnotes.execute`,
a page per interpreter, exactly as the build runs it. Tests never read the store: once the
items are selected, every page is run fresh, once (a page and its translation share the run:
same code), in a pool, up to its last selected block, so ``-k "line 40"`` or ``--lf`` runs the
blocks before it too. A complete, passing run is written to the store, where the site build in
the same session finds it. If the store already held a run of the same key, a block whose
output differs fails: a page must print nothing that changes between runs.

A failure reports ``page:line``, the exception type and message (pytest's rewritten asserts
show both sides), and the block's code with the failing line marked.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from concurrent.futures import Future
from pathlib import Path

import pytest
from pytest_codeblocks.plugin import TestBlock

from fieldnotes.blocks import Block, BlockError, find_root, read_blocks
from fieldnotes.languages import LANGS
from fieldnotes.results import BlockResult, PageRun
from fieldnotes.runs import BUILD_RUNS, Runs
from fieldnotes.store import Store, default_folder, page_key

WORKERS = int(os.environ.get("FIELDNOTES_WORKERS") or 2)
"""Pages run at once. Measured on 2 cores (reports/bench.md): see the README."""


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: the block needs CUDA; skipped where it is missing")
    config.addinivalue_line("markers", "raises(exc, match=None): the block must raise exc")
    config.stash[_FAILED] = []
    if BUILD_RUNS not in os.environ:
        # This session's runs, shared with the site builds it makes: a build started while a
        # page runs here waits for that run and reuses it (and the other way round).
        folder = tempfile.mkdtemp(prefix="fieldnotes-session-runs-")
        os.environ[BUILD_RUNS] = folder
        config.stash[_SESSION_RUNS] = folder


def pytest_unconfigure(config):
    folder = config.stash.get(_SESSION_RUNS, None)
    if folder:
        os.environ.pop(BUILD_RUNS, None)
        shutil.rmtree(folder, ignore_errors=True)


def pytest_collect_file(file_path: Path, parent):
    if file_path.suffix not in {".md", ".ipynb"}:
        return None
    try:
        lang = file_path.relative_to(find_root(file_path.parent) / "docs").parts[0]
    except (ValueError, FileNotFoundError):
        return None
    return PageFile.from_parent(parent, path=file_path) if lang in LANGS else None


_RUNS = pytest.StashKey[Runs]()
_FAILED = pytest.StashKey[list]()
_SESSION_RUNS = pytest.StashKey[str]()


class PageFile(pytest.File):
    """One page: its blocks run in page order in one interpreter."""

    blocks: list[Block]
    future: Future[PageRun] | None = None
    prior: PageRun | None = None  # the store's run of the same key before this session's
    selected: set[int] = set()  # indices of the blocks whose items were selected

    def collect(self):
        try:
            self.blocks = read_blocks(self.path, root=find_root(self.path.parent))
        except BlockError as e:
            raise self.CollectError(str(e)) from None
        kind = "cell" if self.path.suffix == ".ipynb" else "line"
        for index, block in enumerate(self.blocks):
            item = PageBlock.from_parent(self, name=f"{kind} {block.lineno}", obj=block)
            item.index = index
            if block.gpu:
                item.add_marker(pytest.mark.gpu)
            yield item


def pytest_collection_finish(session):
    """Start every selected page's run now, in collection order, in a pool."""
    if session.config.option.collectonly or _RUNS in session.config.stash:
        return
    pages = [item.parent for item in session.items if isinstance(item, PageBlock)]
    if not pages:
        return
    root = find_root(pages[0].path.parent)
    store = Store(default_folder(root))
    runs = Runs(root, store, fresh=True, workers=WORKERS)  # fresh: this session's runs only
    session.config.stash[_RUNS] = runs
    upto: dict[PageFile, int] = {}
    for item in session.items:
        if isinstance(item, PageBlock):
            upto[item.parent] = max(upto.get(item.parent, 0), item.index + 1)
            item.parent.selected = item.parent.selected | {item.index}
    for page, last in upto.items():
        page.prior = store.get(page_key(page.blocks, root)) if last == len(page.blocks) else None
        page.future = runs.submit(page.blocks, last)


def pytest_sessionfinish(session, exitstatus):
    runs = session.config.stash.get(_RUNS, None)
    if runs is not None:
        runs.shutdown()
    # However a hook or a plugin reports items, a block that did not pass fails the run.
    if session.config.stash.get(_FAILED, []) and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


class BlockFailed(Exception):
    pass


class PageBlock(TestBlock):
    """One block: its result from its page's run."""

    index: int

    def runtest(self):
        page: PageFile = self.parent
        block: Block = self.obj
        if page.future is None:
            raise BlockFailed(f"{block.where}: its page was never run (collected after the run started?)")
        run = page.future.result()
        if self.index < len(run.results):
            result = run.results[self.index]
            if result.status == "needs-gpu":  # reported at the block's page and line, as a skip mark is
                raise pytest.skip.Exception("needs CUDA: torch.cuda.is_available() is False",
                                            _use_item_location=True)
            if result.status == "error":
                self._fail(result.describe(block))
            self._same_as_before(page, result)
            return
        if run.problem_block == self.index or run.problem_block is None and run.problem:
            self._fail(run.first_error(page.blocks))
        failed = run.first_error(page.blocks) or "the page stopped before this block"
        first_bad = next((i for i, r in enumerate(run.results) if r.status == "error"), run.problem_block)
        if first_bad in page.selected:  # reported by that block's own item
            pytest.skip(f"an earlier block of this page failed ({failed.splitlines()[0]})")
        self._fail(f"{block.where}: not reached, an earlier block failed:\n{failed}")

    def _fail(self, message: str):
        self.config.stash[_FAILED].append(self.nodeid)
        raise BlockFailed(message)

    def _same_as_before(self, page: PageFile, result: BlockResult) -> None:
        if page.prior is None or self.index >= len(page.prior.results):
            return
        before = page.prior.results[self.index]
        if (before.output, before.images) != (result.output, result.images):
            self._fail(f"{self.obj.where}: the output differs from the stored run of the same code "
                       f"(.cache/fieldnotes): print nothing that changes between runs "
                       f"(addresses, timings, PIDs, unordered sets)\n--- stored:\n{before.output}"
                       f"\n--- now:\n{result.output}")

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, BlockFailed):
            return f"{excinfo.value}\n{_numbered(self.obj, str(excinfo.value))}"
        return super(TestBlock, self).repr_failure(excinfo)

    def reportinfo(self):
        return self.path, self.obj.lineno - 1, self.obj.where


def _numbered(block: Block, error: str) -> str:
    """The block's code, each line with where it comes from; the failing line marked >."""
    return "".join(f"{'>' if error.startswith(origin + ':') else ' '} {origin} | {line}\n"
                   for origin, line in zip(block.origins, block.code.splitlines()))
