"""Screenshots of the note a lagging translation shows, in both directions (a report, not a test).

A throwaway clone of this repository's committed history gets one English-only prose commit on
one page and one Chinese-only prose commit on another; both languages are built without running
code (``docs/site.py build --no-exec``), served on 127.0.0.1, and headless Chromium takes the
first screen of each lagging page:

    .venv/bin/python tests/staleness_screenshots.py

writes reports/staleness-zh-lags.png (the Chinese page, after an English edit) and
staleness-en-lags.png (the English page, after a Chinese edit). About a minute on two cores.
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from browsing import launch  # noqa: E402
from sitebuild import REPORTS, ROOT, free_port  # noqa: E402

EDITS = {  # lagging language -> (page, language edited, sentence added to its first paragraph)
    "zh": ("tensors/scatter.md", "en", " A sentence added in English only, after the translation."),
    "en": ("nn/dropout.md", "zh", "这一句只加在中文页面上。"),
}
NOT_PROSE = (" ", "#", "<", "!", "`" * 3, "|", "-", "*", ">", "{", "[")
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "Screenshots",
           "GIT_AUTHOR_EMAIL": "screenshots@example.com", "GIT_COMMITTER_NAME": "Screenshots",
           "GIT_COMMITTER_EMAIL": "screenshots@example.com"}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout.strip()


def add_sentence(path: Path, sentence: str) -> None:
    """``sentence`` at the end of the first paragraph after the page's title."""
    lines = path.read_text(encoding="utf-8").splitlines()
    title = next(i for i, line in enumerate(lines) if line.startswith("# "))
    first = next(i for i in range(title + 1, len(lines)) if lines[i].strip() and not lines[i].startswith(NOT_PROSE))
    end = next((i for i in range(first, len(lines)) if not lines[i].strip()), len(lines)) - 1
    lines[end] += sentence
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="fieldnotes-staleness-") as tmp:
        clone, site, port = Path(tmp) / "clone", Path(tmp) / "site", free_port()
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        for lagging, (page, edited, sentence) in EDITS.items():
            add_sentence(clone / "docs" / edited / page, sentence)
            git(clone, "commit", "-q", "-am", f"{edited}: a sentence on {page} (screenshot of the {lagging} note)")
            print(f"{edited}-only prose commit {git(clone, 'rev-parse', '--short=7', 'HEAD')} on {page}")
        build = subprocess.run([sys.executable, "docs/site.py", "build", "--no-exec", "--out", str(site),
                                "--base-url", f"http://127.0.0.1:{port}/"], cwd=clone, capture_output=True, text=True)
        print("\n".join(line for line in build.stdout.splitlines() if "translation" in line or "built" in line))
        if build.returncode:
            print(build.stdout[-4000:] + build.stderr[-2000:])
            return 1
        handler = functools.partial(_QuietHandler, directory=str(site))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        from playwright.sync_api import sync_playwright

        REPORTS.mkdir(parents=True, exist_ok=True)
        try:
            with sync_playwright() as p:
                browser = launch(p)
                for lagging, (page, _, _) in EDITS.items():
                    tab = browser.new_page(viewport={"width": 1280, "height": 720}, locale=f"{lagging}-{lagging.upper()}")
                    url = f"http://127.0.0.1:{port}/{lagging}/{page.removesuffix('.md')}/"
                    tab.goto(url, wait_until="networkidle")
                    note = tab.locator(".fn-stale")
                    assert note.count() == 1, f"{url}: no note"
                    shot = REPORTS / f"staleness-{lagging}-lags.png"  # committed: a report command's output
                    tab.screenshot(path=str(shot))
                    print(f"{shot.relative_to(ROOT)}: {note.inner_text()}")
                    tab.close()
                browser.close()
        finally:
            server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
