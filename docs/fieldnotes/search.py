"""Search: the index is written as UTF-8 (an MkDocs event; docs/hooks/search.py connects it).

Why: Material writes search_index.json ASCII-only, so each Chinese character, and each U+200B
that jieba puts between words, costs 6 bytes instead of 3; the Chinese index is a third
smaller as UTF-8, with the same content. (Code outputs are kept out of the index where they
are rendered, in fieldnotes.render.)
"""

from __future__ import annotations

import json
from pathlib import Path

from mkdocs.plugins import event_priority


@event_priority(-100)  # after Material's search plugin has written the index
def on_post_build(config):
    index = Path(config.site_dir) / "search" / "search_index.json"
    if index.is_file():
        data = json.loads(index.read_text(encoding="utf-8"))
        index.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
