"""MkDocs hook: a missing translation fails the strict build; Chinese line breaks are joined.

The work is in the fieldnotes package (fieldnotes.languages); this file connects MkDocs' events.
"""

from fieldnotes.languages import on_files, on_page_content

__all__ = ["on_files", "on_page_content"]
