"""Driving Debian's Chromium from the browser tests: launch options, and checking many pages at once."""

from __future__ import annotations

import threading

from sitebuild import BROWSER

BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]
STILL = ("document.addEventListener('DOMContentLoaded', () => { const s = document.createElement('style');"
         " s.textContent = '*, *::before, *::after { transition: none !important; animation: none !important }';"
         " document.head.appendChild(s); });")
"""An init script that turns CSS transitions off: Playwright waits for a menu to stop moving
before it clicks, 0.3 s per click on Material's language menu."""


def launch(playwright):
    return playwright.chromium.launch(executable_path=BROWSER, args=BROWSER_ARGS)


WAIT_MS = 60_000
"""How long a wait for a condition in the browser may last before it fails (a page loaded, a
sitemap fetched, results shown). A quiet machine meets each in well under a second: the bound
only ends a wait that would never end, so a busy machine waits longer instead of failing."""

BROWSERS = 2
"""Browsers at once for the every-page tests: one Chromium keeps one of two cores busy."""


def in_browsers(items: list, check, workers: int = BROWSERS) -> list[str]:
    """``check(browser, item, state)`` for every item, the items dealt out to ``workers`` threads,
    each with a Playwright and a Chromium of its own (Playwright's sync API works per thread);
    ``state`` is a dict per thread, to reuse a page. Returns the problems the checks return."""
    from playwright.sync_api import sync_playwright

    problems: list[str] = []

    def work(chunk: list) -> None:
        try:
            with sync_playwright() as p:
                browser, state = launch(p), {}
                for item in chunk:
                    problems.extend(check(browser, item, state))
                browser.close()
        except Exception as e:  # noqa: BLE001  (reported, and the test fails)
            problems.append(f"{type(e).__name__}: {e}")

    threads = [threading.Thread(target=work, args=(items[k::workers],)) for k in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return problems
