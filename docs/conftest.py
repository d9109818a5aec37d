"""Collect every executed block of docs/<lang>/ as a pytest-codeblocks test item.

pytest-codeblocks alone would skip includes and any fence it does not know, and would run
each block with fresh globals. Here the page is read by ``read_blocks`` (the same function
the build uses: same blocks, same expanded code), and its blocks run in order in one
namespace, as the reader and the build see them. A failure reports ``page:line``, the
exception type and message, and the block's code with the failing line marked.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pytest_codeblocks.plugin import TestBlock

sys.path.insert(0, str(Path(__file__).parent / "hooks"))
from blocks import BlockError, read_blocks  # noqa: E402
from runner import page_namespace, reset_state, run_block  # noqa: E402

LANGS = {"en", "zh"}


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: the block needs CUDA; skipped where it is missing")
    config.addinivalue_line("markers", "raises(exc, match=None): the block must raise exc")


def pytest_collect_file(file_path: Path, parent):
    docs = Path(__file__).parent
    if file_path.suffix in {".md", ".ipynb"} and file_path.relative_to(docs).parts[0] in LANGS:
        return PageFile.from_parent(parent, path=file_path)
    return None


class PageFile(pytest.File):
    """One page: its blocks share a namespace and run in page order."""

    def collect(self):
        try:
            blocks = read_blocks(self.path)
        except BlockError as e:
            raise self.CollectError(str(e)) from None
        for block in blocks:
            kind = "cell" if self.path.suffix == ".ipynb" else "line"
            item = PageBlock.from_parent(self, name=f"{kind} {block.lineno}", obj=block)
            # bash blocks stop themselves (and their children) at block.timeout: leave them room
            item.add_marker(pytest.mark.timeout(block.timeout + (30 if block.syntax == "bash" else 0)))
            if block.gpu:
                item.add_marker(pytest.mark.gpu)
            yield item

    def setup(self):
        """Runs before the page's first block: a fresh namespace and seeded state."""
        reset_state()
        self.namespace: dict = page_namespace()
        self.failed: str | None = None

    def cuda(self) -> bool:
        import torch

        return torch.cuda.is_available()


class BlockFailed(Exception):
    pass


class PageBlock(TestBlock):
    """A block run through the shared namespace of its page."""

    def runtest(self):
        page: PageFile = self.parent
        block = self.obj
        if page.failed:
            pytest.skip(f"an earlier block of this page failed ({page.failed})")
        result = run_block(block.to_json(), page.namespace, page.cuda())
        if result.status == "needs-gpu":
            pytest.skip("needs CUDA: torch.cuda.is_available() is False")
        if result.status == "error":
            page.failed = block.where
            raise BlockFailed(result.error)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, BlockFailed):
            return f"{excinfo.value}\n{_numbered(self.obj, str(excinfo.value))}"
        if "Timeout" in str(excinfo.value):  # pytest-timeout stopped the block
            message = f"{self.obj.where}: timed out after {self.obj.timeout:g} s"
            return f"{message}\n{_numbered(self.obj, message)}"
        return super(TestBlock, self).repr_failure(excinfo)

    def reportinfo(self):
        return self.path, self.obj.lineno - 1, f"{self.obj.where}"


def _numbered(block, error: str) -> str:
    """The block's code, each line with where it comes from; the failing line marked >."""
    return "".join(f"{'>' if error.startswith(origin + ':') else ' '} {origin} | {line}\n"
                   for origin, line in zip(block.origins, block.code.splitlines()))
