"""Stylesheets a page does not use are not loaded by it.

mkdocstrings adds its stylesheet (``assets/_mkdocstrings.css``, 6.6 KB) to ``extra_css``, so
every page of the site would fetch it; only a page that renders an API reference (the
*Helper functions* page) has an element it styles. Each page is what a reader on a phone pays
for: the link is removed from the pages without mkdocstrings output. Typed at the boundary:
HTML in, HTML out."""

from __future__ import annotations

import re

MKDOCSTRINGS_CSS = re.compile(r'<link rel="stylesheet" href="[^"]*assets/_mkdocstrings\.css">\n?')
"""The ``<link>`` Material's template writes for mkdocstrings' ``extra_css`` entry."""
MKDOCSTRINGS_OUTPUT = 'class="doc doc-'
"""Every object mkdocstrings renders is a ``div.doc.doc-object``, whose CSS is in that file."""


def drop_unused_css(html: str) -> str:
    """``html`` without the mkdocstrings stylesheet when it has no mkdocstrings output."""
    if MKDOCSTRINGS_OUTPUT in html:
        return html
    return MKDOCSTRINGS_CSS.sub("", html)


def on_post_page(output: str, **_: object) -> str:
    """MkDocs event: each page's final HTML."""
    return drop_unused_css(output)
