"""``mkdocs serve --dirty`` (fieldnotes.preview): a save rebuilds only the page it changed, and
the strict preview does not abort on MkDocs' own dirty-build warning."""

from __future__ import annotations

import os
import queue
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from sitebuild import FENCE, make_project


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(300)
def test_dirty_preview_rebuilds_the_edited_page_only_and_stays_strict(tmp_path):
    page = f"# Edited\n\nFirst words.\n\n{FENCE}python\nprint(6 * 7)\n{FENCE}\n"
    project = make_project(tmp_path, {"edited.md": page, "other.md": f"# Other\n\n{FENCE}python\nprint(1)\n{FENCE}\n"})
    port = _port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIELDNOTES_")}
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--dirty", "-a", f"127.0.0.1:{port}"],
                            cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**env, "NO_MKDOCS_2_WARNING": "1"})
    lines: queue.Queue[str] = queue.Queue()
    log: list[str] = []
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()

    def wait_for(text: str, timeout: float = 240) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                continue
            log.append(line)
            if text in line:
                return
        raise AssertionError(f"no {text!r} in:\n{''.join(log)}")

    def fetch(path: str) -> str:
        return urllib.request.urlopen(f"http://127.0.0.1:{port}/en/{path}", timeout=30).read().decode()

    try:
        wait_for("Serving on")
        assert "42" in fetch("edited/")
        log.clear()
        edited = project / "docs" / "en" / "edited.md"
        edited.write_text(page.replace("First words.", "Second words.").replace("6 * 7", "6 * 8"), encoding="utf-8")
        wait_for("Reloading browsers")
        text = "".join(log)
        assert "Aborted" not in text and "WARNING" not in text and "dirty" not in text.lower(), text
        assert "1 pages ran (docs/en/edited.md), 0 reused" in text, text  # the other page's code did not run
        html = fetch("edited/")
        assert "Second words." in html and "48" in html
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_plain_build_is_never_dirty_and_keeps_the_warning():
    """The filter is for a dirty serve only: after one, a build logs MkDocs' warning again."""
    import logging

    from fieldnotes import preview

    preview.on_startup(command="serve", dirty=True)
    logger = logging.getLogger("mkdocs.commands.build")
    assert not logger.filter(logging.makeLogRecord({"msg": preview.DIRTY_WARNING + ", this will ..."}))
    preview.on_startup(command="build", dirty=False)
    assert logger.filter(logging.makeLogRecord({"msg": preview.DIRTY_WARNING + ", this will ..."}))
    assert not preview.dirty_serve()
