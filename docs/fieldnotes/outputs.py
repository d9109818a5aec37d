"""Outputs are data: what a block printed reaches the HTML without ever being read as page source.

Why: a page's Markdown goes through pymdownx.snippets (``--8<--`` includes a file), fences,
attribute lists, abbreviations, footnotes, admonitions, raw HTML and the rest. Had an output
been written into the Markdown, even inside a fence, a block that printed ``--8<-- "mkdocs.yml"``
would have published that file under itself (snippets reads every line, fenced or not), and one
naming a path outside the project would have aborted the build. So an output joins the page in
two steps (:class:`Slots`):

1. :func:`fieldnotes.render.render_page` puts a *slot* where the output goes: a paragraph of one
   word, ``fnslot`` + a nonce of this process + a number, letters and digits only, which no
   Markdown extension changes, and which no page or output can guess;
2. after Markdown has made the page's HTML (``on_page_content``), :meth:`Slots.fill` replaces
   each slot by the output's HTML, made here from the text with every ``<``, ``>`` and ``&``
   escaped. A slot not found (a page construct that swallowed it) fails, naming the block.

The HTML is ``<pre><samp>``, not ``<pre><code>``: sample output, not code. Material's JavaScript
mounts every ``pre > code`` on page load (a copy button, a ResizeObserver, a size read that forces
a layout), and on a long topic page about half the blocks are outputs (40 of 88 on the Chinese
scatter page): on a phone, in one Lighthouse run (median of 3), that page went from 1,110 ms to
710 ms of total blocking time with its outputs as ``samp``. Outputs wrap (fieldnotes.css), so
they never scroll sideways and need no keyboard focus; a reader selects text to copy it.
Outputs stay out of the search index (``data-search-exclude``): nobody searches for a printed
tensor's digits.
"""

from __future__ import annotations

import html as htmllib
import re
import secrets
from dataclasses import dataclass, field

_NONCE = secrets.token_hex(8)
"""New in every process: a page's prose or a block's output cannot contain a slot of this build."""

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def printable(text: str) -> str:
    """Text as a terminal would leave it readable: ``\\r\\n`` and a lone ``\\r`` as line breaks,
    other control characters as their visible symbols (U+2400...: ␀, ␛), never raw in the HTML."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return CONTROL.sub(lambda m: chr(0x2421) if m[0] == "\x7f" else chr(0x2400 + ord(m[0])), text)


def output_html(text: str, title: str) -> str:
    """One output block: its title and the text, escaped, as ``<pre><samp>``."""
    body = htmllib.escape(printable(text).strip("\n"), quote=False)
    return (f'<div class="language-text fn-output highlight" data-search-exclude="output">'
            f'<span class="filename">{htmllib.escape(title)}</span><pre><samp>{body}\n</samp></pre></div>')


def figure_html(png_base64: str, alt: str) -> str:
    """A figure a block drew (PNG, base64), as an image of the page."""
    if not re.fullmatch(r"[A-Za-z0-9+/=]*", png_base64):
        raise ValueError("a figure must be base64 PNG data")
    return f'<p><img alt="{htmllib.escape(alt)}" class="fn-figure" src="data:image/png;base64,{png_base64}" /></p>'


def unindexed(html: str, css_class: str) -> str:
    """``html`` with every ``<details>`` of ``css_class`` marked ``data-search-exclude`` (notes
    whose words are the site's own interface text, not the page's content)."""
    return re.sub(rf'<details class="([^"]*\b{re.escape(css_class)}\b[^"]*)"',
                  r'<details class="\1" data-search-exclude', html)


class SlotError(Exception):
    """A slot was not found in the page's HTML; the message names the block."""


@dataclass
class Slots:
    """The outputs of one page, each waiting for its place in the HTML."""

    html: dict[str, str] = field(default_factory=dict)  # slot word -> HTML
    where: dict[str, str] = field(default_factory=dict)  # slot word -> "page:line" of its block

    def add(self, html: str, where: str) -> str:
        """A new slot holding ``html``; returns the word to put, alone in a paragraph, in the Markdown."""
        word = f"fnslot{_NONCE}n{len(self.html)}"
        self.html[word], self.where[word] = html, where
        return word

    def fill(self, page_html: str) -> str:
        """``page_html`` with each slot (its paragraph, or the bare word in a tight list item)
        replaced by its HTML. Raises :class:`SlotError` naming the block of a slot not found."""
        if not self.html:
            return page_html
        missing = []

        def one(m: re.Match) -> str:
            word = m["word"] or m["bare"]
            return self.html.get(word, m[0])

        filled = _SLOT.sub(one, page_html)
        for word in self.html:
            if word in page_html:
                continue
            missing.append(self.where[word])
        if missing:
            raise SlotError(f"{missing[0]}: the output of this block has no place on the page (its slot was "
                            "lost in the page's Markdown: is the block inside a construct that drops paragraphs?)")
        return filled


_SLOT = re.compile(rf"<p>(?P<word>fnslot{_NONCE}n\d+)</p>|(?P<bare>(?<!\w)fnslot{_NONCE}n\d+(?!\w))")
"""A slot as Markdown leaves it: a paragraph of its own, or the bare word (a tight list item)."""
