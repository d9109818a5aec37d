"""What must be the same in every language of a page: blocks, markers, heading ids, the nav line.

Why a module: the suite (``tests/test_parity.py``), ``docs/site.py check PAGE`` and ``docs/site.py
sync PAGE`` ask the same questions of a page and its translation, and each problem must say where
to look (``file:line``), so a contributor fixes it without diffing two files by eye. The pitfall
fields have their own check (:func:`fieldnotes.pitfalls.check_twins`).

Heading ids are compared because headings carry explicit ids (``## Size rules {#size-rules}``):
a link or the language switch lands on the same section in either language.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from fieldnotes import links, nav
from fieldnotes.blocks import Block, BlockError, read_blocks
from fieldnotes.languages import CONFIGS, LANGS

PAGE_SUFFIXES = {".md", ".ipynb"}
HEADING = re.compile(r"^(#{2,6})\s+(.*?)\s*$")
ANCHOR = re.compile(r"\{[^}]*#([\w-]+)[^}]*\}\s*$")


@dataclass(frozen=True)
class Heading:
    line: int  # 1-based
    level: int
    title: str  # without the {#id}
    id: str | None  # None: no explicit id


def headings(path: Path) -> list[Heading]:
    """The ``##``+ headings of a Markdown page outside code fences, in order."""
    if path.suffix != ".md":
        return []
    found = []
    for n, line in links.outside_fences(path.read_text(encoding="utf-8")):
        if m := HEADING.match(line):
            a = ANCHOR.search(m.group(2))
            title = ANCHOR.sub("", m.group(2)).strip() if a else m.group(2)
            found.append(Heading(n, len(m.group(1)), title, a.group(1) if a else None))
    return found


def anchors(path: Path) -> list[str]:
    """Heading ids of a Markdown page, in order; a heading without an explicit id shows as '?'."""
    return [h.id if h.id else f"? ({h.title})" for h in headings(path)]


def pages(docs: Path, lang: str) -> set[str]:
    """Every page of one language, as paths relative to ``docs/<lang>``."""
    base = docs / lang
    return {p.relative_to(base).as_posix() for p in base.rglob("*") if p.suffix in PAGE_SUFFIXES}


def signature(block: Block) -> tuple:
    """What must be equal between languages: language, code and markers (not the line)."""
    return (block.syntax, block.code, block.gpu, block.raises, block.match, block.timeout, block.file)


def _describe(block: Block) -> str:
    first = next((ln for ln in block.code.splitlines() if ln.strip()), "")
    marks = [m for m, on in (("gpu", block.gpu), (f"raises({block.raises})", block.raises),
                             (f"timeout({block.timeout:g})", block.timeout != 60.0), ("file", block.file)) if on]
    return f"```{block.syntax} {first[:50]!r}" + (f" [{', '.join(marks)}]" if marks else "")


def page_problems(docs: Path, page: str, configs: dict[str, Path] | None = None) -> list[str]:
    """Everything that differs between the languages of one page (``page`` relative to
    ``docs/<lang>``, e.g. ``nn/dropout.md``); empty when they are in step. ``configs``: the
    MkDocs config of each language, to check the nav line too."""
    paths = {lang: docs / lang / page for lang in LANGS}
    rel = {lang: f"docs/{lang}/{page}" for lang in LANGS}
    missing = [lang for lang in LANGS if not paths[lang].is_file()]
    if missing:
        have = next((lang for lang in LANGS if lang not in missing), None)
        return [f"{rel[have]} has no translation: {rel[lang]} is missing" for lang in missing if have]
    problems: list[str] = []
    try:
        blocks = {lang: read_blocks(paths[lang]) for lang in LANGS}
    except BlockError as e:
        return [str(e)]
    a, b = (blocks[lang] for lang in LANGS[:2])
    for i, (x, y) in enumerate(zip(a, b)):
        if signature(x) != signature(y):
            what = [name for name, u, v in zip(("language", "code", "gpu", "raises", "match", "timeout", "file"),
                                               signature(x), signature(y)) if u != v]
            problems.append(f"{page}: block {i + 1} differs between {LANGS[0]} and {LANGS[1]} "
                            f"(code, language or markers: {', '.join(what)}): {rel[LANGS[0]]}:{x.lineno} "
                            f"{_describe(x)} vs {rel[LANGS[1]]}:{y.lineno} {_describe(y)}")
    if len(a) != len(b):
        more, fewer = (LANGS[0], LANGS[1]) if len(a) > len(b) else (LANGS[1], LANGS[0])
        extra = blocks[more][len(blocks[fewer]):][0]
        problems.append(f"{page}: {len(a)} executed blocks in {LANGS[0]}, {len(b)} in {LANGS[1]}; "
                        f"the first without a twin: {rel[more]}:{extra.lineno} {_describe(extra)}")
    heads = {lang: headings(paths[lang]) for lang in LANGS}
    no_id = [f"{rel[lang]}:{h.line}: heading {h.title!r} has no explicit id {{#...}}"
             for lang in LANGS for h in heads[lang] if h.id is None]
    problems += no_id
    ids = {lang: [h.id for h in heads[lang]] for lang in LANGS}
    if not no_id and ids[LANGS[0]] != ids[LANGS[1]]:
        x, y = ids[LANGS[0]], ids[LANGS[1]]
        n = next((i for i, (u, v) in enumerate(zip(x, y)) if u != v), min(len(x), len(y)))
        at = {lang: (f"{rel[lang]}:{heads[lang][n].line} #{heads[lang][n].id}" if n < len(heads[lang])
                     else f"{rel[lang]}: (no heading {n + 1})") for lang in LANGS}
        problems.append(f"{page}: heading ids differ: {LANGS[0]} {x} vs {LANGS[1]} {y}; "
                        f"first difference: {at[LANGS[0]]} vs {at[LANGS[1]]}")
    if configs:
        problems += nav_problems(configs, page)
    return problems


def nav_problems(configs: dict[str, Path], page: str) -> list[str]:
    """The page has a nav line in every language's config, at the same place."""
    entries = {lang: nav.entries(configs[lang]) for lang in LANGS}
    if not any(entries.values()):
        return []  # no nav in any config: MkDocs lists every page itself
    where = {lang: [e.path for e in entries[lang]].index(page) if page in [e.path for e in entries[lang]] else None
             for lang in LANGS}
    problems = []
    listed = [lang for lang in LANGS if where[lang] is not None]
    if not listed:
        return [f"{page}: no nav line in {' or '.join(c.name for c in configs.values())} "
                "(add one in the same section of each; docs/site.py new does it for a new page)"]
    for lang in LANGS:
        if where[lang] is None and listed:
            problems.append(f"{configs[lang].name}: nav has no line for {page} "
                            f"(it is in {', '.join(configs[x].name for x in listed)})")
    if len(listed) == len(LANGS):
        sections = {lang: entries[lang][where[lang]].section for lang in LANGS}
        if len(set(where.values())) > 1:
            problems.append(f"{page}: nav places differ: " + ", ".join(
                f"{configs[lang].name}:{entries[lang][where[lang]].line} (entry {where[lang] + 1}, "
                f"section {sections[lang] or '(top)'!r})" for lang in LANGS))
    return problems


def problems(docs: Path, configs: dict[str, Path] | None = None) -> list[str]:
    """Everything that differs between the languages under ``docs``; empty when in parity."""
    found = {lang: pages(docs, lang) for lang in LANGS}
    out = []
    for lang in LANGS:
        for other in LANGS:
            for page in sorted(found[lang] - found[other]):
                out.append(f"docs/{lang}/{page} has no translation: docs/{other}/{page} is missing")
    for page in sorted(set.intersection(*found.values())):
        out += page_problems(docs, page, configs)
    return out


def configs_of(root: Path) -> dict[str, Path]:
    return {lang: root / CONFIGS[lang] for lang in LANGS}
