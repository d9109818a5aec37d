"""MkDocs hook: a page whose other language's prose changed since its own last change says so
under its title, and the build lists it.

The work is in the fieldnotes package (fieldnotes.staleness); this file connects MkDocs' events.
"""

from fieldnotes.staleness import on_files, on_page_content

__all__ = ["on_files", "on_page_content"]
