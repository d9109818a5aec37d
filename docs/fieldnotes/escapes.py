"""No code escapes: every block a page renders as code was executed, or is display-only.

Why: the blocks that run are found in the Markdown source (pytest-codeblocks' scanner, in
fieldnotes.blocks), while what a reader sees as code is whatever the Markdown extensions render
as code: ```` ``` ```` and ``~~~`` fences at any indentation, inside lists, admonitions,
details and tabs, four-space indented code, raw ``<pre>``. A form the scanner misses would show
code that never ran and that no test checks. So the check runs on the rendered page, where every
form has become a ``<pre>``: each one must be an executed block's code, an output, or a fence the
scanner found with a display-only info string (``text``, ``console``...). Anything else fails the
build, naming the page and the line of the source where that code is.

Code that the build itself renders from Python objects (mkdocstrings' API reference: signatures
and source) is not a page's fence and is left out.
"""

from __future__ import annotations

import io
from collections import Counter

from bs4 import BeautifulSoup
from pytest_codeblocks.main import extract_from_buffer

from fieldnotes.blocks import DISPLAY_ONLY, Block

GENERATED = ".doc, .doc-contents, .fn-output"
"""Containers whose <pre> the build wrote, not a fence of the page: mkdocstrings' API reference
and the outputs under executed blocks."""


def _normal(code: str) -> str:
    """Code compared as a reader sees it: its lines without trailing spaces, blank lines left out
    (the scanner drops the blank lines of an indented fence, the page shows them)."""
    return "\n".join(line.rstrip() for line in code.splitlines() if line.strip())


def display_fences(source: str) -> list[str]:
    """The code of every fence of ``source`` whose info string is display-only."""
    try:
        found = extract_from_buffer(io.StringIO(source))
    except RuntimeError:
        return []  # unreadable fences: reported by fieldnotes.blocks
    return [_normal(cb.code) for cb in found if (cb.syntax or "").split(" ")[0] in DISPLAY_ONLY]


def escaped(html: str, source: str, page: str, blocks: list[Block]) -> list[str]:
    """``page:line: ...`` for each code block of the rendered ``html`` that is neither the code of
    an executed block of ``blocks`` nor a display-only fence of ``source``."""
    known = Counter(_normal(b.code) for b in blocks) + Counter(display_fences(source))
    soup = BeautifulSoup(html, "html.parser")
    generated = {id(pre) for container in soup.select(GENERATED) for pre in container.find_all("pre")}
    problems = []
    for pre in soup.find_all("pre"):
        if id(pre) in generated:
            continue
        code = _normal(pre.get_text())
        if known[code] > 0:
            known[code] -= 1
            continue
        problems.append(f"{page}:{_line_of(source, code)}: this renders as code but neither runs nor is "
                        "display-only (write a ```python or ```bash fence, at any indentation, for code that "
                        f"runs; ```text for text to show as is): {_first(code)!r}")
    return problems


def _line_of(source: str, code: str) -> int:
    """The source line holding the code's first non-blank line (1 if it cannot be found)."""
    wanted = [line.strip() for line in code.splitlines() if line.strip()][:2]
    if not wanted:
        return 1
    lines = [line.strip() for line in source.splitlines()]
    exact = [n for n, line in enumerate(lines) if line == wanted[0]]
    within = [n for n, line in enumerate(lines) if wanted[0] in line and n not in exact]  # <pre><code>x...
    for n in exact + within:  # where the next line of the code follows too
        if len(wanted) < 2 or wanted[1] in lines[n + 1:n + 4]:
            return n + 1
    return (exact + within + [0])[0] + 1


def _first(code: str) -> str:
    line = next((line.strip() for line in code.splitlines() if line.strip()), "")
    return line[:80] + ("…" if len(line) > 80 else "")
