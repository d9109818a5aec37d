"""Recorded runs of each page's take-away notebook and script, keyed by their code (as
jupyter-cache keys a notebook's outputs by its cells), so a test run executes them only when
their code or environment changed.

Why: without it, a page's code runs three times in every test run: as the page (the build), as
its notebook and as its script. The page's run stays fresh every time: it is what the site shows,
and it catches a block that raises, hangs or prints something else on this run. The files' runs
check something else: that the files made from the page (:mod:`fieldnotes.downloads`) print what
the page shows when a reader runs them. What they print depends on their code and on the
environment only (the suite checks elsewhere that outputs are the same on every run), so a run of
the same code in the same environment, recorded earlier, stands for a new one, and is compared
with this run's page exactly as a new one would be. The key (:func:`key`) holds the files' code
(which holds the page's code, the files it uses and how the files are made), the kind of file,
Python, torch, the device, and ``requirements.txt``: a change to any of them runs the file again.

Where: ``tests/file-runs.json`` (committed; written by ``tests/record_files.py`` after a run of
every file that passed), and the store folder (``.cache/fieldnotes/files/``: every run made here,
so a second local run reuses it). ``FIELDNOTES_FILE_RECORD=off`` runs every file (the deploy
workflow does, before it publishes them).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fieldnotes.store import default_folder, environment

RECORD = Path("tests") / "file-runs.json"
KINDS = ("notebook", "script")
SWITCH = "FIELDNOTES_FILE_RECORD"
"""``off``: use no recorded run (neither the committed record nor the store's)."""


def key(code: str, kind: str, root: Path, env: Mapping[str, str] | None = None) -> str:
    """What decides what running a file prints: its code (:func:`fieldnotes.downloads.code_key`),
    its kind, the environment (``env``, default :func:`fieldnotes.store.environment`) and the
    pinned requirements."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    requirements = hashlib.sha256((root / "requirements.txt").read_bytes()).hexdigest()
    what = {"code": code, "kind": kind, "environment": dict(env or environment()), "requirements": requirements}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


class Records:
    """The committed record and the store's runs of the take-away files, by :func:`key`."""

    def __init__(self, root: Path, env: Mapping[str, str] | None = None):
        env = os.environ if env is None else env
        self.path = root / RECORD
        self.folder = default_folder(root, env) / "files"
        self.enabled = env.get(SWITCH, "") != "off"
        self._committed: dict[str, Any] | None = None

    def committed(self) -> dict[str, Any]:
        """The committed record's entries: key -> {"page", "kind", "result"}."""
        if self._committed is None:
            try:
                self._committed = json.loads(self.path.read_text(encoding="utf-8"))["runs"]
            except FileNotFoundError:
                self._committed = {}
        return self._committed

    def _file(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"  # two levels down: not one of the store's page runs

    def get(self, key: str) -> tuple[Any, str] | None:
        """A recorded result and where it was recorded, or None (then the file is run)."""
        if not self.enabled:
            return None
        entry = self.committed().get(key)
        if entry is not None:
            return entry["result"], str(RECORD)
        try:
            return json.loads(self._file(key).read_text(encoding="utf-8"))["result"], "the store"
        except (FileNotFoundError, ValueError, KeyError):
            return None

    def put(self, key: str, page: str, kind: str, result: Any) -> None:
        """Keep a run in the store (atomically: two sessions may share a store)."""
        path = self._file(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"page": page, "kind": kind, "result": result}, ensure_ascii=False),
                       encoding="utf-8")
        os.replace(tmp, path)

    def write(self, wanted: list[tuple[str, str, str]]) -> list[str]:
        """Write the committed record from the store's runs of ``wanted`` (page, kind, key), and
        only those (an entry for code no page has any more is dropped). Returns the pages whose
        run the store lacks (then nothing is written)."""
        runs, missing = {}, []
        for page, kind, k in wanted:
            try:
                entry = json.loads(self._file(k).read_text(encoding="utf-8"))
            except FileNotFoundError:
                missing.append(f"{page} ({kind})")
                continue
            runs[k] = {"page": page, "kind": kind, "result": entry["result"]}
        if not missing:
            text = json.dumps({"runs": dict(sorted(runs.items(), key=lambda kv: (kv[1]["page"], kv[1]["kind"])))},
                              ensure_ascii=False, indent=1, sort_keys=False)
            self.path.write_text(text + "\n", encoding="utf-8")
        return missing
