"""MkDocs hook: a page without its translation fails the strict build.

The check is in the fieldnotes package (fieldnotes.languages); this file connects MkDocs' event.
"""

from fieldnotes.languages import on_files

__all__ = ["on_files"]
