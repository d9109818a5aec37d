"""The ``nav:`` of each language's MkDocs config, read with line numbers and edited as text.

Why as text: the configs are written by hand, with comments that explain settings; a YAML
round trip would drop them. The nav is a list of ``- Title: path.md`` lines under
``- Section:`` lines, which is all ``docs/site.py new`` and ``sync`` need to read and to add
one line to, in the right section, in the same place in every language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

LINE = re.compile(r"^(?P<indent>\s*)-\s+(?:(?P<title>(?:\"[^\"]*\"|'[^']*'|[^:#]+?)):\s*)?(?P<path>[^\s:#]+\.(?:md|ipynb))\s*(?:#.*)?$")
SECTION = re.compile(r"^(?P<indent>\s*)-\s+(?P<title>\"[^\"]*\"|'[^']*'|[^:#]+?):\s*(?:#.*)?$")


class NavError(Exception):
    """The nav cannot be read or edited as asked; the message names the file and line."""


@dataclass(frozen=True)
class Entry:
    path: str  # relative to docs_dir, e.g. "nn/dropout.md"
    title: str
    section: str | None  # the title of the section holding it (None: top level)
    line: int  # 1-based line in the config
    indent: str


def _nav_lines(config: Path) -> tuple[list[str], int, int]:
    """The config's lines and the [start, end) range of its nav block (after ``nav:``)."""
    lines = config.read_text(encoding="utf-8").splitlines()
    start = next((i + 1 for i, ln in enumerate(lines) if ln.rstrip() == "nav:"), None)
    if start is None:
        raise NavError(f"{config.name}: no 'nav:' block")
    end = next((i for i in range(start, len(lines)) if lines[i].strip() and not lines[i].startswith((" ", "\t"))),
               len(lines))
    return lines, start, end


def _unquote(s: str) -> str:
    s = s.strip()
    return s[1:-1] if len(s) > 1 and s[0] == s[-1] and s[0] in "'\"" else s


def entries(config: Path) -> list[Entry]:
    """Every page line of the nav, in order, with the section it is in; none when the config has
    no ``nav:`` (MkDocs then lists every page itself)."""
    if not any(ln.rstrip() == "nav:" for ln in config.read_text(encoding="utf-8").splitlines()):
        return []
    lines, start, end = _nav_lines(config)
    found, section = [], None
    for i in range(start, end):
        line = lines[i]
        if m := LINE.match(line):
            found.append(Entry(m["path"], _unquote(m["title"] or ""), section, i + 1, m["indent"]))
        elif m := SECTION.match(line):
            section = _unquote(m["title"])
    return found


def sections(config: Path) -> dict[str, str]:
    """Folder (``tensors``) -> the title of the nav section whose pages live in it."""
    out: dict[str, str] = {}
    for e in entries(config):
        if e.section and "/" in e.path:
            out.setdefault(e.path.split("/")[0], e.section)
    return out


def insert(config: Path, page: str, title: str, after: str | None = None) -> int:
    """Add ``- title: page`` to the config's nav: after the entry for ``after`` if given, else
    at the end of the section whose pages are in ``page``'s folder. Returns the new line number."""
    lines, start, end = _nav_lines(config)
    found = entries(config)
    if any(e.path == page for e in found):
        raise NavError(f"{config.name}: the nav already lists {page}")
    if after is not None:
        anchor = next((e for e in found if e.path == after), None)
        if anchor is None:
            raise NavError(f"{config.name}: the nav has no line for {after}")
    else:
        folder = page.split("/")[0]
        same = [e for e in found if "/" in e.path and e.path.split("/")[0] == folder and e.section]
        if not same:
            known = sorted(sections(config))
            raise NavError(f"{config.name}: no nav section holds pages under {folder}/; "
                           f"sections by folder: {', '.join(known)}")
        anchor = same[-1]
    text = f'"{title}"' if re.search(r"[:#'\"]|^\s|\s$", title) else title
    lines.insert(anchor.line, f"{anchor.indent}- {text}: {page}")
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return anchor.line + 1
