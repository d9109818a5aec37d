"""MkDocs hook: keep the search index small, since every reader downloads it.

Why: the index is fetched by every reader who searches, over slow links too (the site is read
from mainland China). Two things in it are pure weight:

- outputs of executed blocks (printed tensors, tracebacks): nobody searches for the digits of
  a random tensor, and they outrank prose. They are marked ``data-search-exclude``, which
  Material's search plugin honours (and removes from the page afterwards);
- ``\\uXXXX`` escapes: Material writes the JSON ASCII-only, so each Chinese character, and each
  U+200B that jieba puts between words, costs 6 bytes instead of 3. The file is rewritten
  as UTF-8 with the same content.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mkdocs.plugins import event_priority

OUTPUT_BLOCK = re.compile(r'<div class="([^"]*\bfn-output\b[^"]*)"')


def on_page_content(html, page, config, files):
    return OUTPUT_BLOCK.sub(r'<div class="\1" data-search-exclude="output"', html)


@event_priority(-100)  # after Material's search plugin has written the index
def on_post_build(config):
    index = Path(config.site_dir) / "search" / "search_index.json"
    if index.is_file():
        data = json.loads(index.read_text(encoding="utf-8"))
        index.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
