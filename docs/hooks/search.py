"""MkDocs hook: the search index is written as UTF-8.

The work is in the fieldnotes package (fieldnotes.search); this file connects MkDocs' events.
"""

from fieldnotes.search import on_post_build

__all__ = ["on_post_build"]
