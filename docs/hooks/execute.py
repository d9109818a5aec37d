"""MkDocs hook: every page's code runs (or its stored run is reused) and its outputs show under it.

The work is in the fieldnotes package (fieldnotes.build); this file connects MkDocs' events.
"""

from fieldnotes.build import on_files, on_page_content, on_page_markdown, on_post_build

__all__ = ["on_files", "on_page_content", "on_page_markdown", "on_post_build"]
