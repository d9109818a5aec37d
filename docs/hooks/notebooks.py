"""MkDocs hook: a notebook page keeps only the CSS it uses, and no loader from another host.

The work is in the fieldnotes package (fieldnotes.notebooks); this file connects MkDocs' event.
"""

from fieldnotes.notebooks import on_post_page

__all__ = ["on_post_page"]
