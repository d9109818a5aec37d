"""Code blocks too wide for the page can be scrolled with the keyboard from the start.

Why: a block whose lines are wider than the content column scrolls sideways, and a keyboard
reader can only scroll it once it takes focus (WCAG 2.1.1; axe's scrollable-region-focusable).
Material gives such a block ``tabindex="0"`` when it mounts it, and since mkdocs.yml turns on
``content.lazy`` (a long page is slow on phones otherwise) it mounts a block only when it
scrolls into view. So the build gives the tabindex to the blocks that will scroll, and Material
corrects it once the block is mounted (it removes it where the block fits, or on touch screens).

Which blocks scroll is measured, not guessed: in Chromium, Material's content column holds 80
columns of code (a Chinese character takes two) at window widths of 1220 to 1600 px, its layout
with both sidebars; 79 at 960 px and 87 at 1024 px. A block with a line longer than :data:`FITS`
gets the tabindex. Where the column holds one column less, a block with an 80-column line (the
site's code has 38 such lines per language) gets its tab stop from Material, once it scrolls into
view. tests/test_browser.py checks that at 1280 px every block that scrolls, and no other, has one.
"""

from __future__ import annotations

import html as htmllib
import re
import unicodedata

FITS = 80
"""Columns of code that Material's content column shows without scrolling (measured, above)."""

BLOCK = re.compile(r"(<pre\b[^>]*>(?:<span></span>)?<code)(\b[^>]*>)(.*?)(</code></pre>)", re.DOTALL)
TAG = re.compile(r"<[^>]+>")


def columns(line: str) -> int:
    """How many columns ``line`` takes in a monospaced font: wide (CJK) characters take two."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in line)


def scrolls(code_html: str) -> bool:
    """Whether the code block with this inner HTML has a line wider than :data:`FITS`."""
    text = htmllib.unescape(TAG.sub("", code_html))
    return any(columns(line) > FITS for line in text.splitlines())


def focusable_when_wide(html: str) -> str:
    """``html`` with ``tabindex="0"`` on the ``<code>`` of every block that will scroll sideways."""
    def mark(m: re.Match) -> str:
        if "tabindex" in m[2] or not scrolls(m[3]):
            return m[0]
        return f'{m[1]} tabindex="0"{m[2]}{m[3]}{m[4]}'
    return BLOCK.sub(mark, html)


def on_page_content(html, page, config, files):
    """MkDocs event (docs/hooks/scrolling.py): wide code blocks focusable before Material mounts them."""
    return focusable_when_wide(html)
