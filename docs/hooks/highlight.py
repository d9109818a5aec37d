"""MkDocs hook: code blocks without the Pygments spans of tokens shown as plain code text.

The work is in the fieldnotes package (fieldnotes.highlight); this file connects MkDocs' event.
"""

from fieldnotes.highlight import on_page_content

__all__ = ["on_page_content"]
