"""MkDocs hook: the rule list of the fieldnotes lint page, from the checker and the catalogue.

The work is in the fieldnotes package (fieldnotes.lint); this file connects MkDocs' events.
"""

from fieldnotes.lint import on_page_markdown

__all__ = ["on_page_markdown"]
