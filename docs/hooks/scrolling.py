"""MkDocs hook: code blocks that scroll sideways take keyboard focus before Material mounts them.

The work is in the fieldnotes package (fieldnotes.scrolling); this file connects MkDocs' event.
"""

from fieldnotes.scrolling import on_page_content

__all__ = ["on_page_content"]
