"""Every executed block of docs/<lang>/ is a pytest item (``docs/en/x.md::line 12``), run by the
same executor as the build: see fieldnotes.pytest_plugin."""

from fieldnotes.pytest_plugin import (  # noqa: F401  (pytest finds hooks by name here)
    pytest_collect_file,
    pytest_collection_finish,
    pytest_configure,
    pytest_sessionfinish,
    pytest_unconfigure,
)
