"""Shared fixtures: the site built once per session (strict, in a temp folder), served, browsed."""

from __future__ import annotations

import subprocess

import concurrent.futures
import os
import re
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from browsing import launch
from fieldnotes.languages import LANGS
from sitebuild import BROWSER, PORT, PREBUILT, ROOT, SCREENSHOTS, SUMMARIES, Building, Built, build_site, serve


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Built:
    if PREBUILT:
        return Built(Path(PREBUILT), 0, "")
    return build_site(tmp_path_factory.mktemp("site"))


_REBUILD: dict = {}
"""The second build of the site (test_site's identical-builds test), once started, and its folder."""


def _start_rebuild() -> Building:
    if "build" not in _REBUILD:
        _REBUILD["folder"] = tempfile.TemporaryDirectory(prefix="fieldnotes-again-")
        _REBUILD["build"] = Building(Path(_REBUILD["folder"].name) / "site")
    return _REBUILD["build"]


def pytest_runtest_teardown(item, nextitem):
    """The second build starts when the browser tests are done: they keep both cores busy, and
    the tests after them mostly one, so the build runs on the other beside them (at the same
    priority as everything else, so that a busy machine slows it no more than the rest)."""
    if nextitem is not None and item.nodeid.startswith("tests/test_browser.py") \
            and not nextitem.nodeid.startswith("tests/test_browser.py") \
            and any("rebuilt_site" in getattr(each, "fixturenames", ()) for each in item.session.items):
        _start_rebuild()


@pytest.fixture(scope="session")
def rebuilt_site(built_site) -> Built:
    """The site built a second time, from the same tree and the same stored runs."""
    return _start_rebuild().done()


@pytest.fixture(scope="session")
def served(built_site):
    """The built site on http://127.0.0.1:PORT, as ``docs/site.py serve`` serves it."""
    assert built_site.status == 0, built_site.log[-4000:]
    server = serve(built_site.path, PORT)
    yield f"http://127.0.0.1:{PORT}"
    server.shutdown()


@pytest.fixture(scope="session")
def site_pages(built_site) -> list[tuple[str, str]]:
    """(language, path) of every page, from each language's sitemap."""
    pages = []
    for lang in LANGS:
        sitemap = (built_site.path / lang / "sitemap.xml").read_text(encoding="utf-8")
        pages += [(lang, url.split(f"/{lang}/", 1)[1]) for url in re.findall(r"<loc>([^<]+)</loc>", sitemap)]
    return pages


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium driven by Playwright (never a downloaded browser build)."""
    if not os.path.exists(BROWSER):
        if os.environ.get("CI"):
            pytest.fail(f"{BROWSER} is missing: .ci/run installs it (apt-get install chromium)")
        pytest.skip("needs Debian's chromium: apt-get install chromium fonts-wqy-microhei")
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = launch(p)
        yield browser
        browser.close()


@pytest.fixture
def browser_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    yield page
    context.close()


def pytest_collection_modifyitems(items):
    """Run order: tests that need no site first, while the pages run in the background (they
    start when collection ends, see fieldnotes.pytest_plugin); then the pages' blocks, which
    report those runs; then the tests of the built site, whose build reuses them. (One process:
    three pytest-xdist workers took 261 s against 233 s in one process, measured in one run.)"""
    def stage(item) -> int:
        if "built_site" in getattr(item, "fixturenames", ()):
            return 2
        return 1 if item.nodeid.startswith("docs/") else 0
    items.sort(key=stage)  # stable: within a stage, collection order


@pytest.hookimpl(trylast=True)  # after fieldnotes.pytest_plugin has started the pages' runs
def pytest_collection_finish(session):
    """The notebook and script of every page whose files' tests were selected start running in the
    background as soon as the pages' own runs are done, so that they run beside the tests of the
    built site instead of after them, without adding to the load while the pages run (their blocks
    have time limits, and the launch pages' ranks wait on each other)."""
    if session.config.option.collectonly:
        return
    files = [item for item in session.items
             if item.nodeid.startswith("tests/test_downloads.py::test_the_files_print_what_the_page_shows")]
    if not files:
        return
    pages = [future for future in {getattr(item.parent, "future", None) for item in session.items} if future]
    selected = list(dict.fromkeys(item.callspec.params["page"] for item in files))

    def start() -> None:
        concurrent.futures.wait(pages)
        files[0].module.start_executions(selected)

    threading.Thread(target=start, name="fieldnotes-downloads-start", daemon=True).start()


def _tree_state() -> str | None:
    """``git status`` of the repository (tracked changes and files git does not ignore)."""
    try:
        done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


_TREE_AT_START = _tree_state()


def pytest_sessionfinish(session, exitstatus):
    """The take-away files' runs not started yet are cancelled. The tests leave the tree as they found it: what they write goes to ignored paths
    (reports/, .cache/, site/); committed reports change only when a report command runs."""
    downloads = sys.modules.get("test_downloads")
    if downloads is not None:
        downloads.stop_executions()
    if "build" in _REBUILD:  # a run stopped early (-x, Ctrl-C) leaves no build running
        _REBUILD["build"].stop()
        _REBUILD["folder"].cleanup()
    after = _tree_state()
    if _TREE_AT_START is None or after is None or after == _TREE_AT_START:
        return
    before = set(_TREE_AT_START.splitlines())
    changed = [line for line in after.splitlines() if line not in before]
    if changed:
        session.config.pluginmanager.get_plugin("terminalreporter").write_line(
            "ERROR: the tests changed the working tree (write to an ignored path instead):\n  "
            + "\n  ".join(changed), red=True)
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter):
    """Show what the browser tests measured (search hit rate, page weights) in the CI log, and how
    many take-away files ran (the others' runs were recorded for the same code and environment)."""
    downloads = sys.modules.get("test_downloads")
    lines = SUMMARIES + [line for line in [downloads and downloads.summary()] if line]
    if lines:
        terminalreporter.section("measurements")
        for line in lines:
            terminalreporter.write_line(line)
