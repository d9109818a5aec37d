"""``mkdocs serve --dirty``: a prose edit in the browser in about a second, not a whole rebuild.

Why: under plain ``mkdocs serve`` every save rebuilds all ~40 pages of the language (6 to 12 s
on two cores), though one paragraph changed. MkDocs' dirty reload renders only the pages whose
source is newer than their output, but two things stood in its way here:

- MkDocs logs a WARNING on every dirty build ("A 'dirty' build is being performed"), and the
  site is ``strict``: the rebuild aborts and the preview looks stuck. :func:`on_startup`
  filters that one message out of a dirty ``serve`` (never out of ``mkdocs build``, which is
  never dirty here) and says once what a dirty preview does not refresh;
- the hooks read every page on every build (blocks, pitfalls: 1.5 s of the 2.6 s of a dirty
  rebuild). :func:`unchanged` tells them which pages MkDocs will not rebuild, so they skip
  running those pages' code, and :func:`cached` keeps what they read per file version; the
  theme's compiled templates are kept too (:func:`on_env`).

What a dirty preview does not refresh: other pages that show something of the edited one (its
title in the nav, its pitfalls in the pitfall index). A full build (``docs/site.py build``,
CI) is always complete and strict.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Callable, TypeVar

import jinja2

log = logging.getLogger("mkdocs.hooks.preview")
T = TypeVar("T")

_dirty_serve = False
_cache: dict[tuple, object] = {}
DIRTY_WARNING = "A 'dirty' build is being performed"


class _DropDirtyWarning(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(DIRTY_WARNING)


_filter = _DropDirtyWarning()


def on_startup(command: str, dirty: bool) -> None:
    global _dirty_serve
    _dirty_serve = command == "serve" and dirty
    logger = logging.getLogger("mkdocs.commands.build")
    if _dirty_serve:
        logger.addFilter(_filter)
        log.info("preview: a save rebuilds only the pages it changed (a page's code runs again when "
                 "its code changed); the nav and the pitfall index catch up on the next full build")
    else:
        logger.removeFilter(_filter)


class _Bytecode(jinja2.BytecodeCache):
    """Compiled templates kept in memory across rebuilds (keyed by name and source checksum, so
    an edited template compiles again): each rebuild loads a fresh config, whose new Jinja
    environment would otherwise compile the theme's ~40 templates again (a fifth of a rebuild)."""

    def __init__(self) -> None:
        self.codes: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if (code := self.codes.get(bucket.key)) is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.codes[bucket.key] = bucket.bytecode_to_string()


_bytecode = _Bytecode()


def on_env(env: jinja2.Environment, config, files) -> jinja2.Environment:
    if _dirty_serve:
        env.bytecode_cache = _bytecode
    return env


def dirty_serve() -> bool:
    return _dirty_serve


def unchanged(file) -> bool:
    """Under a dirty preview, whether MkDocs will skip this page (its output is up to date)."""
    return _dirty_serve and not file.is_modified()


def cached(path: Path, what: str, read: Callable[[], T], *also: Path) -> T:
    """``read()``'s result for this version of ``path`` (and of ``also``: files it depends on),
    kept for the life of the process; outside a dirty preview, always read afresh."""
    if not _dirty_serve:
        return read()
    key = (what, str(path), *(_version(p) for p in (path, *also)))
    if key not in _cache:
        _cache[key] = read()
    return _cache[key]  # type: ignore[return-value]


def _version(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size
