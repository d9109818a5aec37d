"""Internal links of the Markdown pages, and whether their targets and anchors exist.

Why: ``docs/site.py check PAGE`` must say in seconds, without building the site, that a page's
links land (a page that exists, a heading or pitfall id that exists on it) and that no other
page links to an id the page no longer has: renaming a heading id is the easiest way to break
another page's link, and MkDocs reports a missing anchor only at INFO level.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from mkdocs.utils.meta import get_data

LINK = re.compile(r"\]\((?P<target>[^)\s]+?)(?:\s+\"[^\"]*\")?\)")
ID = re.compile(r"\{[^}]*#([\w-]+)[^}]*\}")
GENERATED = re.compile(r"<!--\s*[\w-]+\s*-->")  # a marker a hook replaces with generated sections


@dataclass(frozen=True)
class Link:
    source: Path
    line: int
    target: str  # as written


def outside_fences(text: str):
    """(line number, line) of every line outside code fences (1-based)."""
    fence = None
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith("```"):
            ticks = len(stripped) - len(stripped.lstrip("`"))
            if fence is None:
                fence = ticks
            elif ticks >= fence and not stripped.strip("`"):
                fence = None
            continue
        if fence is None:
            yield n, line


def _prose_lines(text: str):
    """(line number, line) outside code fences, with inline code removed."""
    for n, line in outside_fences(text):
        yield n, re.sub(r"`[^`]*`", "", line)


def links(path: Path) -> list[Link]:
    """Every relative link of a page (not ``http:``, ``mailto:`` or absolute paths)."""
    found = []
    for n, line in _prose_lines(path.read_text(encoding="utf-8")):
        for m in LINK.finditer(line):
            target = m["target"].strip("<>")
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("/"):
                continue
            found.append(Link(path, n, target))
    return found


def anchors(path: Path) -> set[str] | None:
    """The ids a link may name on a page: explicit ``{#id}``s, its pitfall ids and their
    section; None when the page has sections a hook generates (any anchor is accepted)."""
    if path.suffix != ".md":
        return None
    text = path.read_text(encoding="utf-8")
    body, meta = get_data(text)
    if GENERATED.search(body):
        return None
    ids = {m[1] for _, line in _prose_lines(body) for m in ID.finditer(line)}
    pitfalls = meta.get("pitfalls") or []
    if pitfalls:
        ids |= {"pitfalls"} | {p["id"] for p in pitfalls if isinstance(p, dict) and "id" in p}
    return ids


def resolve(link: Link) -> tuple[Path, str | None]:
    page, _, anchor = link.target.partition("#")
    target = (link.source.parent / page).resolve() if page else link.source
    return target, anchor or None


def problems(path: Path, docs: Path, root: Path) -> list[str]:
    """Dead links from ``path`` and links from other pages of ``docs`` to ids ``path`` lacks."""
    out = []
    for link in links(path):
        out += _check(link, docs, root)
    for other in sorted(docs.rglob("*.md")):
        if other == path:
            continue
        for link in links(other):
            if resolve(link)[0] == path.resolve():
                out += _check(link, docs, root)
    return out


def _check(link: Link, docs: Path, root: Path) -> list[str]:
    where = f"{link.source.resolve().relative_to(root).as_posix()}:{link.line}"
    target, anchor = resolve(link)
    page = link.target.partition("#")[0]
    if page and not page.endswith((".md", ".ipynb")):
        return []  # an asset (image, download): the strict build checks it
    if not target.is_file():
        return [f"{where}: link to {link.target}: no such page ({target.relative_to(root) if target.is_relative_to(root) else target})"]
    if not target.is_relative_to(docs.resolve()):
        return [f"{where}: link to {link.target} leaves the language's pages ({docs.relative_to(root)})"]
    ids = anchors(target)
    if anchor and ids is not None and anchor not in ids:
        return [f"{where}: link to {link.target}: {target.relative_to(root).as_posix()} has no id #{anchor}"]
    return []
