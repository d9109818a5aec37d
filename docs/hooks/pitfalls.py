"""MkDocs hook: the pitfall catalogue (sections, tags, index) from each page's front matter.

The work is in the fieldnotes package (fieldnotes.pitfalls); this file connects MkDocs' events.
"""

from fieldnotes.pitfalls import on_files, on_nav, on_page_markdown, on_post_build

__all__ = ["on_files", "on_nav", "on_page_markdown", "on_post_build"]
