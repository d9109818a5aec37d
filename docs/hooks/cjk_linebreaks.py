"""MkDocs hook: a line break inside a Chinese paragraph does not become a space.

The work is in the fieldnotes package (fieldnotes.languages.join_cjk_lines); this file connects
MkDocs' event.
"""

from fieldnotes.languages import on_page_content

__all__ = ["on_page_content"]
