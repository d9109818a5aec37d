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
- **Translated error messages.** ``docs/search-errors.<lang>.yml`` maps a pitfall to the
  renderings of the error message it quotes that a machine translator gives (Chinese readers
  paste those): more readers' words, in a file of their own because the tests type each one.
- **API names.** Each page's entry gets the field ``apis``: the names its pitfalls list (``apis``)
  and the code spans of its headings and title (``F.dropout``, ``Tensor.scatter_``). The worker
  weighs a query word that is an API name above generic words, and puts the page whose title
  names it first, so "what does the gather function do" finds the gather page.
- **Readers' terms.** ``docs/search-synonyms.<lang>.yml`` maps a term readers type (a machine
  translator's 渐变 for gradient) to the site's term (梯度); it goes into the index's
  ``config.synonyms`` (Material's search UI posts the index's ``config``, ``docs`` and ``options``
  to the worker, nothing else), and the worker reads a query's term as the site's.
- **UTF-8.** Material writes the index ASCII-only, so each Chinese character, and each U+200B
  that jieba puts between words, costs 6 bytes instead of 3; the Chinese index is a third
  smaller as UTF-8, with the same content. (Code outputs are kept out of the index where they
  are rendered, in fieldnotes.render.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from mkdocs.utils.meta import get_data
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

ALIASES = "search-aliases.{lang}.yml"
"""Beside the languages' folders: ``docs/search-aliases.en.yml``, ``docs/search-aliases.zh.yml``."""
ERRORS = "search-errors.{lang}.yml"
"""Pitfall anchor -> renderings of the error message it quotes in the language (machine
translations, as readers paste them): readers' words, kept apart because the tests type each."""
SYNONYMS = "search-synonyms.{lang}.yml"
"""Readers' terms -> the site's terms, per language (optional)."""
CODE_SPAN = re.compile(r"`([^`\n]+)`")
HEADING_LINE = re.compile(r"^#{1,6}\s+(.*)$")


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


GENERIC = {"tensor", "training", "dim", "grad", "module", "optimizer", "parameter", "parameters", "input",
           "output", "self", "data", "model", "loss", "device", "size", "shape", "variable", "cpu",
           "cuda", "gpu", "function", "false", "true", "none"}
"""Names that are APIs but also the words of every question: not weighed as API names."""


def api_name(text: str) -> str | None:
    """An API as the worker matches it: the last dotted part, without a call's parentheses and
    arguments, lowercased (``nn.Module.eval()`` -> ``eval``, ``F.interpolate(mode=...)`` ->
    ``interpolate``); None for what is not a name (an expression, a number, a sentence)."""
    name = re.sub(r"\(.*$", "", text.strip()).strip()
    name = name.split(".")[-1].lower() if name else ""
    return name if re.fullmatch(r"[a-z_][a-z0-9_]{2,}", name) and name not in GENERIC else None


def page_apis(path: Path) -> list[str]:
    """The API names a page is about: its pitfalls' ``apis`` and the code spans of its headings."""
    text = path.read_text(encoding="utf-8")
    body, meta = get_data(text)
    found = [a for p in meta.get("pitfalls") or [] if isinstance(p, dict) for a in p.get("apis") or []]
    fence = False
    for line in body.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        elif not fence and (m := HEADING_LINE.match(line)):
            found += CODE_SPAN.findall(m[1])
    return sorted({n for a in found if (n := api_name(str(a)))})


def load_synonyms(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) and k.strip() and v.strip()
                                             for k, v in data.items()):
        raise AliasError(f"{path.as_posix()}: a mapping of a reader's term to the site's term (both strings)")
    return {k.strip().lower(): v.strip().lower() for k, v in data.items()}


def add_apis(docs: list[dict], docs_dir: Path) -> None:
    by_location = {doc["location"]: doc for doc in docs}
    for path in sorted(docs_dir.rglob("*.md")):
        doc = by_location.get(page_location(path.relative_to(docs_dir).as_posix()))
        if doc is not None and (names := page_apis(path)):
            doc["apis"] = " ".join(names)


@event_priority(-100)  # after Material's search plugin has written the index
def on_post_build(config):
    index = Path(config.site_dir) / "search" / "search_index.json"
    if not index.is_file():
        return
    data = json.loads(index.read_text(encoding="utf-8"))
    docs_dir = Path(config.docs_dir)
    path = docs_dir.parent / ALIASES.format(lang=config.theme["language"])
    aliases = load_aliases(path, docs_dir)
    errors = docs_dir.parent / ERRORS.format(lang=config.theme["language"])
    for location, words in load_aliases(errors, docs_dir).items():
        aliases[location] = aliases.get(location, []) + [w for w in words if w not in aliases.get(location, [])]
    add_aliases(data["docs"], aliases, f"{path.as_posix()} or {errors.as_posix()}")
    add_apis(data["docs"], docs_dir)
    synonyms = load_synonyms(docs_dir.parent / SYNONYMS.format(lang=config.theme["language"]))
    if synonyms:  # in "config": Material's search UI posts only config, docs and options to the worker
        data["config"]["synonyms"] = synonyms
    index.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
