"""MkDocs hook: the "what changed between torch versions" page, generated from the version matrix.

The work is in the fieldnotes package (fieldnotes.matrix); this file connects MkDocs' event.
"""

from fieldnotes.matrix import on_page_markdown

__all__ = ["on_page_markdown"]
