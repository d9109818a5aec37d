"""MkDocs hook: a line break inside a Chinese paragraph must not become a space.

Markdown keeps a paragraph's line breaks in the HTML, and browsers show each as a space,
which is right between English words and wrong between two Chinese characters
("张量，\\n手工" shows as "张量， 手工"). Outside <pre>, drop a newline whose neighbours are
both CJK, or that follows CJK punctuation.
"""

from __future__ import annotations

import re

CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
JOIN = re.compile(rf"(?<=[{CJK}])[ \t]*\n[ \t]*(?=[{CJK}])|(?<=[\u3000-\u303f\uff00-\uffef])[ \t]*\n[ \t]*")
PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)


def join_cjk_lines(html: str) -> str:
    parts = PRE.split(html)
    return "".join(p if i % 2 else JOIN.sub("", p) for i, p in enumerate(parts))


def on_page_content(html, page, config, files):
    if config.theme["language"].startswith("zh"):
        return join_cjk_lines(html)
    return html
