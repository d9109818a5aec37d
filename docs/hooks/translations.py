"""MkDocs hook: a page without its translation fails the strict build.

Each language is its own site (docs/en, docs/zh), so MkDocs alone would never notice a
missing translation, and the language switch would silently fall back to the home page.
"""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.translations")
PAGE_SUFFIXES = {".md", ".ipynb"}


def on_files(files, config):
    docs = Path(config.docs_dir)
    langs = [alt["lang"] for alt in config.extra.get("alternate", [])]
    for file in files:
        if Path(file.src_uri).suffix not in PAGE_SUFFIXES:
            continue
        for lang in langs:
            twin = docs.parent / lang / file.src_uri
            if lang != docs.name and not twin.is_file():
                log.warning(f"docs/{docs.name}/{file.src_uri} has no translation: "
                            f"docs/{lang}/{file.src_uri} is missing")
    return files
