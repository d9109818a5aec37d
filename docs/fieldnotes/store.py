"""The results store: a page's successful run, kept under a key made of everything that can
change its outputs, so a build runs only the pages whose code (or environment) changed.

Why not jupyter-cache: it keys a *notebook* on its code cells and executes it in a Jupyter
kernel. Our pages are Markdown with bash blocks, markers (``raises``, ``gpu``, ``timeout``),
included files and scripts run by path, and they run in :mod:`fieldnotes.runner`, not in a
kernel. Fitting them in would mean converting every page to a notebook and keeping the real
key in its metadata; the store it would replace is a folder of JSON files.

The key (:func:`page_key`) is the SHA-256 of: the blocks' expanded code and markers (no page
path, no line numbers: a page and its translation share entries), the contents of every
file or folder under ``snippets/`` the code names (``snippets/ddp_cpu.py`` run by a bash block), the
executor's own source, the Python version, the torch version and the device. Only complete,
successful runs are stored. Default folder: ``.cache/fieldnotes/`` in the project (git-ignored);
``FIELDNOTES_STORE`` moves it. Delete the folder to clear it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import platform
import re
import subprocess
from collections.abc import Iterator, Mapping
from functools import cache
from importlib.metadata import version
from pathlib import Path

import fieldnotes
from fieldnotes.blocks import Block
from fieldnotes.execute import COPIED
from fieldnotes.results import PageRun

EXECUTOR_SOURCES = ("runner.py", "execute.py", "results.py")
"""The modules whose code decides what a run produces: a change to one re-runs every page."""
PATH_TOKEN = re.compile(r"[\w.\-/]+")


def default_folder(root: Path, env: Mapping[str, str] | None = None) -> Path:
    """``FIELDNOTES_STORE`` of ``env`` (the process's environment by default), else the
    checkout's ``.cache/fieldnotes``. A test's own project passes ``env={}``: its builds run
    without the FIELDNOTES_* variables, and must not read or write the session's store."""
    return Path((os.environ if env is None else env).get("FIELDNOTES_STORE") or root / ".cache" / "fieldnotes")


@cache
def environment() -> dict[str, str]:
    """Python, torch and device, read without importing torch (a build with nothing to run
    must stay fast): the device is the CPU for a CPU build of torch, else the GPUs that
    ``nvidia-smi`` lists (and CUDA_VISIBLE_DEVICES)."""
    torch = version("torch")
    device = f"CPU ({platform.machine()})"
    if "+cpu" not in torch:
        try:
            gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.SubprocessError):
            gpus = ""
        gpus = re.sub(r"\s*\(UUID: [^)]*\)", "", gpus).strip()
        if gpus:
            device = f"{gpus} | CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', '')}"
    return {"python": platform.python_version(), "torch": torch, "device": device}


@cache
def executor_version() -> str:
    package = Path(fieldnotes.__file__).parent
    digest = hashlib.sha256()
    for name in EXECUTOR_SOURCES:
        digest.update((package / name).read_bytes())
    return digest.hexdigest()[:16]


def named_files(blocks: list[Block], root: Path) -> dict[str, str]:
    """The project files a page can read, with the hash of their contents: those its code names
    by relative path inside the folders copied into its working directory (``snippets/x.py``
    run by a bash block, or ``snippets`` itself put on ``sys.path``). Nothing else of the
    project is within a block's reach by a relative path (fieldnotes.execute.COPIED). A block
    that runs a module of this package (``python -m fieldnotes.lint``) names its source too."""
    found: dict[str, str] = {}
    for block in blocks:
        for token in set(PATH_TOKEN.findall(block.code)):
            module = re.fullmatch(r"fieldnotes\.(\w+)", token)
            if module and (Path(fieldnotes.__file__).parent / f"{module[1]}.py").is_file():
                # `python -m fieldnotes.lint`: the page shows what this machinery prints, so its
                # source is part of the key; the checker also reads every page's pitfalls.
                found[f"fieldnotes/{module[1]}.py"] = _hash_path(Path(fieldnotes.__file__).parent / f"{module[1]}.py")
                if module[1] == "lint":
                    for lang_docs in sorted((root / "docs").glob("*/")):
                        if (lang_docs / "index.md").is_file():
                            found[f"docs/{lang_docs.name}"] = _hash_path(lang_docs)
                continue
            token = token.strip("/")
            while token.startswith("./"):
                token = token[2:]
            if token in found or token.split("/")[0] not in COPIED or ".." in token.split("/"):
                continue
            path = root / token
            if path.is_file() or path.is_dir():
                found[token] = _hash_path(path)
    return dict(sorted(found.items()))


def _hash_path(path: Path) -> str:
    digest = hashlib.sha256()
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()
                                                  and "__pycache__" not in p.parts)
    for f in files:
        digest.update(f.relative_to(path).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()


def page_key(blocks: list[Block], root: Path) -> str:
    """Everything that can change the page's outputs, hashed (see the module docstring)."""
    what = {"executor": executor_version(), **environment(),
            "blocks": [b.code_fields() for b in blocks], "files": named_files(blocks, root)}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


class Store:
    """A folder of ``<key>.json`` runs; writes are atomic, and :meth:`lock` lets two builds
    (the two languages) run a page once between them."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> PageRun | None:
        try:
            return PageRun.from_json(json.loads(self._path(key).read_text(encoding="utf-8")))
        except (FileNotFoundError, ValueError, KeyError, TypeError):
            return None  # absent, or unreadable (then it is simply run again)

    def has(self, key: str) -> bool:
        return self._path(key).is_file()

    def put(self, key: str, run: PageRun) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(run.to_json(), ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)

    @contextlib.contextmanager
    def lock(self, key: str) -> Iterator[None]:
        """Held while a page runs: another process wanting the same key waits, then reuses."""
        path = self._path(key).with_suffix(".lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def entries(self) -> list[Path]:
        return sorted(self.folder.glob("*/*.json"))


def main() -> None:
    """``python -m fieldnotes.store [--clear]``: where the store is and what it holds."""
    import argparse
    import shutil

    from fieldnotes.blocks import find_root

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--clear", action="store_true", help="delete every stored run")
    args = parser.parse_args()
    store = Store(default_folder(find_root()))
    entries = store.entries()
    size = sum(p.stat().st_size for p in entries)
    print(f"{store.folder}: {len(entries)} runs, {size / 1024:.0f} KiB")
    if args.clear and store.folder.exists():
        shutil.rmtree(store.folder)
        print("cleared")


if __name__ == "__main__":
    main()
