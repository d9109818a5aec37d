"""MkDocs hook: a page loads the mkdocstrings stylesheet only if it renders an API reference.

The work is in the fieldnotes package (fieldnotes.stylesheets); this file connects MkDocs' event.
"""

from fieldnotes.stylesheets import on_post_page

__all__ = ["on_post_page"]
