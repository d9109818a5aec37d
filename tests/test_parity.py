"""Every page exists in both languages with the same code, markers and anchors, in order.

Anchors are compared too: headings carry explicit ids (``## Size rules {#size-rules}``), so a
link or a language switch lands on the same section in either language.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.utils.yaml import get_yaml_loader, yaml_load

from fieldnotes.blocks import BlockError, read_blocks
from fieldnotes.languages import LANGS

ROOT = Path(__file__).resolve().parents[1]
PAGE_SUFFIXES = {".md", ".ipynb"}
HEADING = re.compile(r"^(#{2,6})\s+(.*?)\s*$")
ANCHOR = re.compile(r"\{[^}]*#([\w-]+)[^}]*\}\s*$")


def pages(docs: Path, lang: str) -> set[str]:
    base = docs / lang
    return {p.relative_to(base).as_posix() for p in base.rglob("*") if p.suffix in PAGE_SUFFIXES}


def anchors(path: Path) -> list[str]:
    """Heading ids of a Markdown page, in order; a heading without an explicit id shows as '?'."""
    if path.suffix != ".md":
        return []
    found, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        m = None if fenced else HEADING.match(line)
        if m:
            a = ANCHOR.search(m.group(2))
            found.append(a.group(1) if a else f"? ({m.group(2)})")
    return found


def signature(path: Path) -> list[tuple]:
    return [(b.syntax, b.code, b.gpu, b.raises, b.match, b.timeout) for b in read_blocks(path)]


def parity_problems(docs: Path) -> list[str]:
    """Everything that differs between the languages under ``docs``; empty when in parity."""
    problems = []
    found = {lang: pages(docs, lang) for lang in LANGS}
    for lang in LANGS:
        for other in LANGS:
            for page in sorted(found[lang] - found[other]):
                problems.append(f"docs/{lang}/{page} has no translation: docs/{other}/{page} is missing")
    for page in sorted(found["en"] & found["zh"]):
        en, zh = docs / "en" / page, docs / "zh" / page
        try:
            a, b = signature(en), signature(zh)
        except BlockError as e:
            problems.append(str(e))
            continue
        if len(a) != len(b):
            problems.append(f"{page}: {len(a)} executed blocks in en, {len(b)} in zh")
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                problems.append(f"{page}: block {i + 1} differs between en and zh "
                                f"(code, language or markers): {x[1][:60]!r} vs {y[1][:60]!r}")
        ids = {lang: anchors(docs / lang / page) for lang in LANGS}
        missing = [f"docs/{lang}/{page}: heading {h[2:]} has no explicit id {{#...}}"
                   for lang in LANGS for h in ids[lang] if h.startswith("?")]
        problems += missing
        if not missing and ids["en"] != ids["zh"]:
            problems.append(f"{page}: heading ids differ: en {ids['en']} vs zh {ids['zh']}")
    return problems


def nav_files(config: Path) -> list[str]:
    def walk(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, list):
            for x in node:
                yield from walk(x)
        elif isinstance(node, dict):
            for x in node.values():
                yield from walk(x)

    with open(config, "rb") as f:
        return list(walk(yaml_load(f, get_yaml_loader()).get("nav", [])))


def test_every_page_in_both_languages_with_same_code_and_anchors():
    problems = parity_problems(ROOT / "docs")
    assert not problems, "\n".join(problems)


def test_both_navs_list_the_same_pages_in_the_same_order():
    assert nav_files(ROOT / "mkdocs.yml") == nav_files(ROOT / "mkdocs.zh.yml")
