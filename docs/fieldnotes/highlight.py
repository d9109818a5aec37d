"""Code blocks without the token spans that change nothing a reader sees.

Why: Pygments wraps every token of a code block in a ``<span class="...">``, and on a long topic
page those spans are most of the page: 3,200 of the 4,700 elements of the Chinese scatter page.
On a phone, the browser's style and layout work grows with them, and Lighthouse counts it as
blocking time before the first paint. Names (``n``), punctuation (``p``), operators (``o``) and
whitespace (``w``) are the bulk of them (2,400 on that page), and the site colours them as the
code's own text (``--md-code-hl-*`` in docs/overrides/assets/fieldnotes.css, Material's names for
the rest), so their spans are taken out and the text stays where it was. Every other token
(keywords, strings, numbers, comments, built-ins ...) keeps its span and its colour.

Only ``<code>`` elements are touched: code blocks, inline code and mkdocstrings' signatures
(notebook cells are ``<pre>`` without ``<code>`` and keep their spans). tests/test_browser.py
checks the promise this rests on: in both schemes, a span of each class below inside a code
block has the colour of the code around it.
"""

from __future__ import annotations

import re

PLAIN_TOKENS = ("n", "p", "o", "w")
"""Pygments' short CSS classes for Name, Punctuation, Operator and Whitespace."""

CODE = re.compile(r"(<code\b[^>]*>)(.*?)(</code>)", re.DOTALL)
PLAIN = re.compile(r'<span class="(?:%s)">([^<]*)</span>' % "|".join(PLAIN_TOKENS))


def unwrap_plain_tokens(html: str) -> str:
    """``html`` with the spans of :data:`PLAIN_TOKENS` inside ``<code>`` elements replaced by their text."""
    return CODE.sub(lambda m: m[1] + PLAIN.sub(r"\1", m[2]) + m[3], html)


def on_page_content(html, page, config, files):
    """MkDocs event (docs/hooks/highlight.py): the page's code without its plain token spans."""
    return unwrap_plain_tokens(html)
