"""Search: the index the site's search worker reads (an MkDocs event; docs/hooks/search.py connects it).

Why: Material's search plugin writes ``search/search_index.json``; the site's own worker
(``docs/overrides/assets/search-worker.js``, behind Material's search box) reads it. Two things
are added or changed here, after the plugin has written it:

- **Readers' words.** ``docs/search-aliases.<lang>.yml`` maps a page (or a heading on it,
  ``page.md#anchor``) to the words readers use for what it names otherwise: a textbook name
  (对数概率 for ``log_softmax``), an everyday phrase (断点续训), an error message. They go into
  the field ``words`` of that page's (or heading's) entry, which the worker searches and never
  shows. A word for a page or anchor that does not exist fails the build, naming the file and
  the entry: aliases are reviewed data, not a place where dead targets pile up.
- **UTF-8.** Material writes the index ASCII-only, so each Chinese character, and each U+200B
  that jieba puts between words, costs 6 bytes instead of 3; the Chinese index is a third
  smaller as UTF-8, with the same content. (Code outputs are kept out of the index where they
  are rendered, in fieldnotes.render.)
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

ALIASES = "search-aliases.{lang}.yml"
"""Beside the languages' folders: ``docs/search-aliases.en.yml``, ``docs/search-aliases.zh.yml``."""


class AliasError(PluginError):
    """Bad readers' words data; the message starts with the file."""


def page_location(target: str) -> str:
    """The index location of ``path/page.md#anchor`` (directory URLs, as the site is built)."""
    path, _, anchor = target.partition("#")
    stem = path.removesuffix(".md").removesuffix(".ipynb")
    url = "" if stem == "index" else stem.removesuffix("/index") + "/"
    return f"{url}#{anchor}" if anchor else url


def load_aliases(path: Path, docs_dir: Path) -> dict[str, list[str]]:
    """``{index location: words}`` from an aliases file; AliasError names the file and entry."""
    if not path.is_file():
        return {}
    where = path.as_posix()
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise AliasError(f"{where}: a mapping of 'page.md' or 'page.md#anchor' to a list of words")
    aliases: dict[str, list[str]] = {}
    for target, words in data.items():
        if not isinstance(words, list) or not words or not all(isinstance(w, str) and w.strip() for w in words):
            raise AliasError(f"{where}: {target!r}: a non-empty list of words")
        page = str(target).partition("#")[0]
        if not (docs_dir / page).is_file():
            raise AliasError(f"{where}: {target!r}: no page docs/{docs_dir.name}/{page}")
        aliases[page_location(str(target))] = [w.strip() for w in words]
    return aliases


def add_aliases(docs: list[dict], aliases: dict[str, list[str]], where: str) -> None:
    """Put each entry's words into the field ``words`` of the index entry at its location."""
    by_location = {doc["location"]: doc for doc in docs}
    for location, words in aliases.items():
        doc = by_location.get(location)
        if doc is None:
            raise AliasError(f"{where}: {location!r}: no such heading in the search index "
                             "(the anchor must be a heading id on that page)")
        doc["words"] = " | ".join(words)


@event_priority(-100)  # after Material's search plugin has written the index
def on_post_build(config):
    index = Path(config.site_dir) / "search" / "search_index.json"
    if not index.is_file():
        return
    data = json.loads(index.read_text(encoding="utf-8"))
    docs_dir = Path(config.docs_dir)
    path = docs_dir.parent / ALIASES.format(lang=config.theme["language"])
    add_aliases(data["docs"], load_aliases(path, docs_dir), path.as_posix())
    index.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
