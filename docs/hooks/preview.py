"""MkDocs hook: ``mkdocs serve --dirty`` rebuilds only what a save changed, and stays strict.

The work is in the fieldnotes package (fieldnotes.preview); this file connects MkDocs' events.
"""

from fieldnotes.preview import on_env, on_startup

__all__ = ["on_env", "on_startup"]
