"""How fast the site's search worker answers: every query the search tests ask, in headless
Chromium, with the worker of a commit and the working tree's, alternating, on one built site;
writes reports/search-worker.md. A script, not a test:

    .venv/bin/python tests/bench_search.py --site DIR --port PORT [--before COMMIT]   (~4 min)

``DIR`` is a site built for ``http://127.0.0.1:PORT/`` (``docs/site.py build --out DIR --base-url
...``). Both workers get the same index (the site's); each language's queries are asked twice per
worker (the medians of two runs are quoted) through the search tests' own emulation of the box
(``test_search.ask_worker``), and the answers of the two workers must be the same.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

WORKER = "docs/overrides/assets/search-worker.js"


def answer_with(body: str):
    """A route handler that answers with ``body``: the worker under test."""
    def handle(route) -> None:
        route.fulfill(body=body, content_type="text/javascript")
    return handle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--before", default="HEAD")
    args = parser.parse_args()
    os.environ["FIELDNOTES_SITE"], os.environ["FIELDNOTES_PORT"] = str(args.site), str(args.port)
    from playwright.sync_api import sync_playwright

    import test_search as ts
    from browsing import launch
    from sitebuild import ROOT, serve, write_report

    from fieldnotes.languages import LANGS

    workers = {f"before ({args.before})": subprocess.run(["git", "show", f"{args.before}:{WORKER}"], cwd=ROOT,
                                                          capture_output=True, text=True, check=True).stdout,
               "after (working tree)": (ROOT / WORKER).read_text(encoding="utf-8")}
    server = serve(args.site, args.port)
    served = f"http://127.0.0.1:{args.port}"
    seconds: dict[tuple[str, str], list[float]] = {}
    digests: dict[tuple[str, str], str] = {}
    counts: dict[str, int] = {}
    with sync_playwright() as p:
        browser = launch(p)
        for _ in range(2):
            for name, source in workers.items():
                for lang in LANGS:
                    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
                    page.route("**/search-worker.js", answer_with(source))
                    page.add_init_script(ts.CAPTURE)
                    page.goto(f"{served}/{lang}/")
                    ts.open_search(page)
                    queries = ts.all_queries(lang, args.site)
                    counts[lang] = len(queries)
                    start = time.monotonic()
                    answers = ts.ask_worker(page, f"{served}/{lang}/", queries)
                    seconds.setdefault((name, lang), []).append(time.monotonic() - start)
                    digests[name, lang] = hashlib.sha256(json.dumps(answers, sort_keys=True).encode()).hexdigest()
                    page.context.close()
                    print(f"{name} {lang}: {seconds[name, lang][-1]:.1f} s", flush=True)
        browser.close()
    server.shutdown()
    before, after = workers
    lines = ["# Search worker: time to answer every query of the search tests", "",
             f"Written by `tests/bench_search.py`: {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}, headless "
             "Chromium, one site's index for both workers, the median of two runs each (alternating). "
             "Per query: the worker's search and its answer's transfer to the page (every matching "
             "section, highlighted, as Material's result list receives it).", "",
             "| language | queries | before, s | after, s | before, ms per query | after, ms per query | ratio | same answers |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for lang in LANGS:
        b, a = (statistics.median(seconds[name, lang]) for name in (before, after))
        lines.append(f"| {lang} | {counts[lang]} | {b:.1f} | {a:.1f} | {1000 * b / counts[lang]:.0f} | "
                     f"{1000 * a / counts[lang]:.0f} | {b / a:.2f}x | "
                     f"{'yes' if digests[before, lang] == digests[after, lang] else 'NO'} |")
    lines += ["", f"Before: {before}; after: {after}."]
    write_report("search-worker.md", lines, "search worker timed")
    print("\n".join(lines))
    if any(digests[before, lang] != digests[after, lang] for lang in LANGS):
        sys.exit("the two workers answer differently")


if __name__ == "__main__":
    main()
