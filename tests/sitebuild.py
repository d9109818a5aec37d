"""Building the whole site for tests: where it goes, which port it is served on, which browser."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil
from bs4 import BeautifulSoup

from fieldnotes.downloads import MEDIA_TYPES
from fieldnotes.languages import LANGS


ROOT = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT = 900
BROWSER = shutil.which("chromium") or "/usr/bin/chromium"
REPORTS = ROOT / "reports"  # uploaded as a CI artifact: screenshots, search hit rate, page weights
SCREENSHOTS = REPORTS / "screenshots"
SUMMARIES: list[str] = []  # one line per report written in this run, printed at the end


def write_report(name: str, lines: list[str], summary: str) -> None:
    """Write ``reports/<name>`` and keep ``summary`` for the end of the pytest run."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    (REPORTS / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    SUMMARIES[:] = [line for line in SUMMARIES if not line.endswith(f"(reports/{name})")]
    SUMMARIES.append(f"{summary} (reports/{name})")


@functools.cache
def soup(html: Path) -> BeautifulSoup:
    """A built page, parsed once for all the test modules (parsing every page costs seconds)."""
    return BeautifulSoup(html.read_text(encoding="utf-8"), "html.parser")


@dataclass
class Built:
    path: Path
    status: int
    log: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The built site's URLs name the port it is served on (language switch). To run the browser tests
# on a site built earlier: FIELDNOTES_SITE=folder FIELDNOTES_PORT=the port it was built for.
PORT = int(os.environ.get("FIELDNOTES_PORT") or free_port())
PREBUILT = os.environ.get("FIELDNOTES_SITE")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MEDIA_TYPES}  # as site.py serve

    def log_message(self, *args):
        pass


def serve(site: Path, port: int) -> http.server.ThreadingHTTPServer:
    """``site`` on http://127.0.0.1:``port``, as ``docs/site.py serve`` serves it, from a thread
    (``shutdown()`` the server to stop)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port),
                                             functools.partial(QuietHandler, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Building:
    """``python docs/site.py build`` (both languages, --strict) into ``out``, running: ``done()``
    waits for it. Its output goes to a file beside ``out``, so that nobody needs to read a pipe
    while it runs."""

    def __init__(self, out: Path, root: Path = ROOT):
        self.out, self.log = out, out.with_name(out.name + ".log")
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, str(root / "docs" / "site.py"), "build", "--out", str(out),
                 "--base-url", f"http://127.0.0.1:{PORT}/"],
                cwd=root, stdout=log, stderr=subprocess.STDOUT)

    def done(self) -> Built:
        try:
            status = self.process.wait(timeout=BUILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.stop()
            status = self.process.returncode
        return Built(self.out, status, self.log.read_text(encoding="utf-8", errors="replace"))

    def stop(self) -> None:
        """Kill the build and the builds of each language it started, if still running."""
        with contextlib.suppress(psutil.Error):
            for each in [*psutil.Process(self.process.pid).children(recursive=True), self.process]:
                with contextlib.suppress(psutil.Error):
                    each.kill()
        self.process.wait()


def build_site(out: Path, root: Path = ROOT) -> Built:
    """``python docs/site.py build`` (both languages, --strict) into ``out``."""
    return Building(out, root).done()




FENCE = "```"


def make_project(tmp: Path, pages: dict[str, str]) -> Path:
    """A copy of the project's machinery (configs, hooks, conftest) around the given pages."""
    for name in ("docs/hooks", "docs/overrides", "snippets"):
        shutil.copytree(ROOT / name, tmp / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("docs/conftest.py", "docs/site.py", "docs/search-userdict.zh.txt", "mkdocs.zh.yml"):
        shutil.copy(ROOT / name, tmp / name)
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    (tmp / "mkdocs.yml").write_text(re.sub(r"(?ms)^nav:\n.*?(?=^\S)", "", config), encoding="utf-8")
    (tmp / "mkdocs.zh.yml").write_text(re.sub(r"(?ms)^nav:\n.*?(?=^\S)", "",
                                              (ROOT / "mkdocs.zh.yml").read_text("utf-8")), "utf-8")
    for lang in LANGS:
        (tmp / "docs" / lang).mkdir(parents=True)
        (tmp / "docs" / lang / "index.md").write_text("# Home\n", encoding="utf-8")
        for name, text in pages.items():
            if lang == "en" or name != "only-english.md":
                (tmp / "docs" / lang / name).write_text(text, encoding="utf-8")
    return tmp


def run(args: list[str], cwd: Path, timeout: float = 300) -> tuple[int, str, float]:
    return run_together([args], cwd, timeout)[0]


def run_together(commands: list[list[str]], cwd: Path, timeout: float = 300) -> list[tuple[int, str, float]]:
    """Run the commands at the same time (the fault tests' builds and test runs mostly wait on
    sleeping and hanging blocks); (exit status, output, seconds) of each."""
    start = time.monotonic()
    # A project of its own: nothing of this test session's runs or store (FIELDNOTES_*) leaks in.
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIELDNOTES_")}
    procs = [subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env={**env, "NO_MKDOCS_2_WARNING": "1"}) for args in commands]
    done = []
    for proc in procs:
        output, _ = proc.communicate(timeout=max(1.0, timeout - (time.monotonic() - start)))
        done.append((proc.returncode, output, time.monotonic() - start))
    return done
