"""MkDocs hook: llms.txt at the language's root, every page with a one-line summary.

The work is in the fieldnotes package (fieldnotes.llms); this file connects MkDocs' events.
Listed after docs/hooks/execute.py, which writes the pages' scripts that llms.txt links.
"""

from fieldnotes.llms import on_nav, on_post_build

__all__ = ["on_nav", "on_post_build"]
