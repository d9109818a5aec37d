"""Outputs of executed blocks as ``<pre><samp>``: sample output, not code.

Why: Material's JavaScript mounts every ``pre > code`` on page load (a copy button, a
ResizeObserver, a size read that forces a layout), one after the other. On a long topic page
about half the blocks are outputs (40 of 88 on the Chinese scatter page), and on a phone that
start-up work is what Lighthouse counts as blocking time: in one run, median of 3, the Chinese
scatter page went from 1,110 ms to 710 ms of total blocking time with its outputs as ``samp``.
``<samp>`` is also what HTML has for a program's output. Outputs wrap (fieldnotes.css), so they
never scroll sideways and need no keyboard focus; a reader selects text to copy it.

The page's Markdown is unchanged (outputs stay fenced ``text`` blocks with the ``fn-output``
class, see fieldnotes.render); this rewrites the HTML that pymdownx.superfences made of them.
"""

from __future__ import annotations

import re

OUTPUT = re.compile(
    r'(?P<open><div class="language-text fn-output highlight"[^>]*>)(?P<title><span class="filename">[^<]*</span>)'
    r'<pre><span></span><code>(?P<body>[^<]*)</code></pre></div>')
"""An output block as superfences renders it: plain text (no token spans) under its title."""


def as_samp(html: str) -> str:
    """``html`` with every output block's ``<code>`` turned into ``<samp>``."""
    return OUTPUT.sub(lambda m: f'{m["open"]}{m["title"]}<pre><samp>{m["body"]}</samp></pre></div>', html)


def on_page_content(html, page, config, files):
    """MkDocs event (docs/hooks/outputs.py): the page's outputs as ``<pre><samp>``."""
    return as_samp(html)
