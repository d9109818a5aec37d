"""MkDocs hook: outputs of executed blocks are <pre><samp>, not <pre><code>.

The work is in the fieldnotes package (fieldnotes.outputs); this file connects MkDocs' event.
"""

from fieldnotes.outputs import on_page_content

__all__ = ["on_page_content"]
