"""MkDocs hook: each page names its source file, links to where it is edited (when the
repository's address is known) and shows when it last changed, from git.

The work is in the fieldnotes package (fieldnotes.revisions); this file connects MkDocs' events.
"""

from fieldnotes.revisions import on_files, on_page_markdown

__all__ = ["on_files", "on_page_markdown"]
