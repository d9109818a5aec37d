"""Search engines compared on the same queries; writes reports/search.md. A script, not a test:

    .venv/bin/python tests/search_compare.py                 # before = the last commit before the search work
    .venv/bin/python tests/search_compare.py --before HEAD   # before = the last commit, after = the working tree

Why: issue 10 asks to improve the site's search and to decide by measurement. Three engines get
the same queries, in each language: the working set (tests/search-queries.yml), the held-out
set (tests/search-queries-heldout.yml), and the real readers' sets of issue 22
(tests/search-queries-real.yml, tests/search-queries-real-heldout.yml); a missing file is skipped:

- **before**: Material's search box on the site as built at ``--before``;
- **after**: Material's search box on the site of the working tree (the site's own search);
- **Pagefind**: Pagefind (``pagefind[extended]``, requirements.txt) on the same "after" site,
  indexed per language (code outputs and permalink marks left out, as for the site's search),
  and given the readers' words of docs/search-aliases.<lang>.yml as hidden text in the page (or
  in the section) they name, so it knows what the site's own search knows. It is queried through
  its JS API in a page of that language, which segments Chinese queries in the browser.

A query is a hit when one of its expected pages is among the first 3 distinct result pages
(``hit`` of tests/test_search.py, whose ``search`` also types the queries into the box).

Each site is built in a temporary folder (``git archive`` of the revision; a copy of the working
tree as tests/bench.py makes it) with the repository's results store (FIELDNOTES_STORE), so only
pages whose code differs from a stored run execute. Nothing in the repository is written but
reports/search.md. About 3 minutes on 2 cores when the store holds every page.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import yaml
from bs4 import BeautifulSoup

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the tests' helpers, as under pytest

from bench import copy_tree  # noqa: E402
from browsing import in_browsers  # noqa: E402
from fieldnotes.languages import LANGS  # noqa: E402
from sitebuild import BROWSER, free_port  # noqa: E402
from test_search import hit, search  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BEFORE = "0152f0d5d9de6bab25ee08dc20665dd336817cb9"
"""The last commit before the search work of issue 22 (real readers' queries). The comparison with
the site before issue 10 (Material's lunr search) is in the history of reports/search.md."""
STORE = ROOT / ".cache" / "fieldnotes"
"""The repository's results store (fieldnotes.store.default_folder); its keys hold no path."""
SETS = {"working": "search-queries.yml", "held-out": "search-queries-heldout.yml",
        "real working": "search-queries-real.yml", "real held-out": "search-queries-real-heldout.yml"}
ENGINES = ("before", "after", "Pagefind")
PAGEFIND_EXCLUDE = ".fn-output, .headerlink"
"""Code outputs and the permalink marks (¶), which the site's search leaves out too."""
TOP = 3
SHOWN = 120
"""Queries longer than this are cut in the report's tables."""
BUILD_TIMEOUT = 1800


@dataclass(frozen=True)
class Query:
    q: str
    pages: tuple[str, ...]


Results = dict[str, dict[str, dict[str, list[str]]]]
"""engine → language → query → result pages (URL paths such as ``/en/nn/dropout/``), best first."""


# --- queries ------------------------------------------------------------------------------------

def load_sets() -> dict[str, dict[str, list[Query]]]:
    """Each query file that exists: set → language → queries, in the file's order."""
    sets: dict[str, dict[str, list[Query]]] = {}
    for name, file in SETS.items():
        path = ROOT / "tests" / file
        if not path.is_file():
            print(f"note: {path.relative_to(ROOT)} does not exist: the {name} set is skipped", flush=True)
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        sets[name] = {lang: [Query(item["q"], tuple(item["pages"])) for item in data.get(lang) or []]
                      for lang in LANGS}
    return sets


# --- building -----------------------------------------------------------------------------------

def export_revision(rev: str, dest: Path) -> Path:
    """The tree of a commit, as ``git archive`` gives it, in ``dest``."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def copy_working_tree(dest: Path) -> Path:
    """Tracked and untracked (not ignored) files of the working tree, as tests/bench.py copies them."""
    dest.mkdir(parents=True)
    return copy_tree(dest)


def build_env(project: Path) -> dict[str, str]:
    """The environment of a build in ``project``: the repository's store, and the project's own
    ``fieldnotes`` package (the editable install points at the repository's): a folder holding
    only a link to it goes first on PYTHONPATH (``docs/`` itself would shadow the stdlib's
    ``site`` with docs/site.py)."""
    packages = project.parent / f"{project.name}-packages"
    packages.mkdir(exist_ok=True)
    link = packages / "fieldnotes"
    if not link.exists():
        link.symlink_to(project / "docs" / "fieldnotes", target_is_directory=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("FIELDNOTES_BUILD_RUNS", "FIELDNOTES_SITE", "FIELDNOTES_PORT")}
    env.update(NO_MKDOCS_2_WARNING="1", FIELDNOTES_STORE=str(STORE),
               PYTHONPATH=os.pathsep.join(filter(None, [str(packages), os.environ.get("PYTHONPATH")])))
    found = subprocess.run([sys.executable, "-c", "import fieldnotes; print(fieldnotes.__file__)"],
                           cwd=project, env=env, capture_output=True, text=True, check=True).stdout.strip()
    if not found.startswith(str(packages)):
        sys.exit(f"the build in {project} would import fieldnotes from {found}")
    return env


def build_site(project: Path, port: int) -> tuple[Path, float]:
    """``docs/site.py build`` in ``project`` for http://127.0.0.1:<port>/; the site and seconds taken."""
    out = project / "site"
    start = time.monotonic()
    done = subprocess.run([sys.executable, "docs/site.py", "build", "--out", str(out),
                           "--base-url", f"http://127.0.0.1:{port}/"],
                          cwd=project, env=build_env(project), capture_output=True, text=True,
                          timeout=BUILD_TIMEOUT)
    if done.returncode:
        sys.exit(f"the build in {project} failed:\n{(done.stdout + done.stderr)[-4000:]}")
    return out, time.monotonic() - start


# --- Pagefind -----------------------------------------------------------------------------------

def html_file(page: str) -> str:
    """The built file of a source page: ``nn/dropout.md`` → ``nn/dropout/index.html``."""
    stem = re.sub(r"\.(md|ipynb)$", "", page)
    if stem == "index" or stem.endswith("/index"):
        return stem + ".html"
    return stem + "/index.html"


def read_aliases(project: Path, lang: str) -> dict[str, dict[str | None, list[str]]]:
    """Readers' words of docs/search-aliases.<lang>.yml: built file → anchor (None: the page) → words."""
    path = project / "docs" / f"search-aliases.{lang}.yml"
    if not path.is_file():
        return {}
    found: dict[str, dict[str | None, list[str]]] = {}
    for target, words in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
        page, _, anchor = str(target).partition("#")
        found.setdefault(html_file(page), {})[anchor or None] = [str(w) for w in words]
    return found


def mark_for_pagefind(html: str, words: dict[str | None, list[str]], where: str) -> str:
    """The page with Material's article as Pagefind's body, and the readers' words in it, hidden:
    after the heading of their anchor (Pagefind's sub-result for that section), else at the end."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.select_one("article.md-content__inner")
    if article is None:
        return html  # not a content page (404): Pagefind skips pages without a body mark
    article["data-pagefind-body"] = ""
    for anchor, terms in words.items():
        hidden = soup.new_tag("div", attrs={"style": "display:none", "class": "fn-readers-words"})
        hidden.string = " · ".join(terms)
        heading = article.find(id=anchor) if anchor else None
        if anchor and heading is None:
            sys.exit(f"{where}: no heading #{anchor} for the readers' words {terms}")
        if heading is not None:
            heading.insert_after(hidden)
        else:
            article.append(hidden)
    return str(soup)


def pagefind_site(site: Path, project: Path, dest: Path) -> tuple[Path, float]:
    """A copy of ``site`` marked for Pagefind and indexed per language; the copy and the seconds
    Pagefind took."""
    shutil.copytree(site, dest)
    seconds = 0.0
    for lang in LANGS:
        aliases = read_aliases(project, lang)
        for html in sorted((dest / lang).rglob("*.html")):
            rel = html.relative_to(dest / lang).as_posix()
            html.write_text(mark_for_pagefind(html.read_text(encoding="utf-8"), aliases.pop(rel, {}),
                                              f"{lang}/{rel}"), encoding="utf-8")
        if aliases:
            sys.exit(f"readers' words ({lang}) for pages not built: {sorted(aliases)}")
        start = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "pagefind", "--site", str(dest / lang),
                               "--exclude-selectors", PAGEFIND_EXCLUDE, "--quiet"], capture_output=True, text=True)
        if done.returncode:
            sys.exit(f"Pagefind failed on {lang}:\n{(done.stdout + done.stderr)[-4000:]}")
        seconds += time.monotonic() - start
    return dest, seconds


def pagefind_version() -> str:
    done = subprocess.run([sys.executable, "-m", "pagefind", "--version"], capture_output=True, text=True)
    return (done.stdout.strip() or "unknown").removeprefix("pagefind_extended ").removeprefix("pagefind ")


# --- serving and querying -----------------------------------------------------------------------

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def served(folder: Path, port: int) -> Iterator[str]:
    """``folder`` on http://127.0.0.1:<port> (as tests/conftest.py serves the built site)."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.shutdown()
        server.server_close()


PAGEFIND_SEARCH = """async ([lang, q]) => {
    if (!window.fnPagefind) {
        window.fnPagefind = await import(`/${lang}/pagefind/pagefind.js`);
        await window.fnPagefind.options({baseUrl: `/${lang}/`});
        await window.fnPagefind.init();
    }
    const r = await window.fnPagefind.search(q);
    const top = await Promise.all(r.results.slice(0, 10).map(x => x.data()));
    return top.map(d => d.url);
}"""


def distinct_pages(urls: list[str]) -> list[str]:
    """URL paths of the result pages, each once, in order (a section's result counts as its page)."""
    return list(dict.fromkeys(urlsplit(u).path for u in urls))


def material_results(page, lang: str, q: str) -> list[str]:
    return distinct_pages(search(page, q))


def pagefind_results(page, lang: str, q: str) -> list[str]:
    return distinct_pages(page.evaluate(PAGEFIND_SEARCH, [lang, q]))


ASK = {"before": material_results, "after": material_results, "Pagefind": pagefind_results}


def run_queries(urls: dict[str, str], queries: dict[str, list[str]]) -> Results:
    """Every query on every engine, the languages at once in a Chromium each (as tests/test_search.py)."""
    results: Results = {engine: {} for engine in ENGINES}

    def one_language(browser, lang: str, state) -> list[str]:
        for engine in ENGINES:
            context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
            page = context.new_page()
            page.goto(f"{urls[engine]}/{lang}/")
            results[engine][lang] = {q: ASK[engine](page, lang, q) for q in queries[lang]}
            context.close()
        return []

    problems = in_browsers(list(LANGS), one_language, workers=len(LANGS))
    if problems:
        sys.exit("querying failed:\n" + "\n".join(problems))
    return results


# --- the report ---------------------------------------------------------------------------------

def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def describe(rev: str) -> str:
    """A commit as ``abc1234`` and the start of its subject."""
    subject = git("log", "-1", "--format=%s", rev)
    if len(subject) > 70:
        subject = subject[:70].rsplit(" ", 1)[0] + " …"
    return f"`{git('rev-parse', '--short', rev)}` ({subject})"


def machine() -> str:
    chromium = subprocess.run([BROWSER, "--version"], capture_output=True, text=True).stdout.strip()
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {chromium}"


def shown_page(lang: str, path: str) -> str:
    return path.removeprefix(f"/{lang}/") or "(home)"


def code(text: str) -> str:
    """``text`` as a Markdown code span inside a table cell (cut to SHOWN characters)."""
    text = " ".join(text.split())
    text = text if len(text) <= SHOWN else text[:SHOWN] + "…"
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}".replace("|", "\\|")


def top_cell(lang: str, query: Query, found: list[str]) -> str:
    """The first 3 pages; all in bold when none is expected (a miss)."""
    ok = hit(lang, list(query.pages), found)
    pages = [shown_page(lang, p) for p in found[:TOP]] or ["no result"]
    return "<br>".join(p if ok else f"**{p}**" for p in pages)


def summary_rows(sets: dict[str, dict[str, list[Query]]], results: Results) -> list[tuple[str, str, str, int, int, int]]:
    """(set, language, engine, hits, queries, queries with no result), in a fixed order."""
    rows = []
    for name, by_lang in sets.items():
        for lang in LANGS:
            for engine in ENGINES:
                found = results[engine][lang]
                hits = sum(hit(lang, list(q.pages), found[q.q]) for q in by_lang[lang])
                empty = sum(not found[q.q] for q in by_lang[lang])
                rows.append((name, lang, engine, hits, len(by_lang[lang]), empty))
    return rows


def summary_table(rows: list[tuple[str, str, str, int, int, int]]) -> list[str]:
    lines = ["| set | language | engine | hits (top 3) | hit rate | no result |", "|---|---|---|---|---|---|"]
    for name, lang, engine, hits, total, empty in rows:
        rate = f"{hits / total:.0%}" if total else "–"
        lines.append(f"| {name} | {lang} | {engine} | {hits}/{total} | {rate} | {empty} |")
    return lines


def decision(rows: list[tuple[str, str, str, int, int, int]]) -> list[str]:
    """Which of the site's search (*after*) and Pagefind to keep, from the figures: the one with
    more hits over every set and language, and fewer queries that find nothing."""
    totals = {engine: (sum(r[3] for r in rows if r[2] == engine), -sum(r[5] for r in rows if r[2] == engine))
              for engine in ("after", "Pagefind")}
    kept = max(totals, key=lambda engine: totals[engine])
    hits = ", ".join(f"{engine} {h} hits, {-e} with no result" for engine, (h, e) in totals.items())
    return [f"**Kept: {kept}** (over every set and language: {hits}). Pagefind returns only pages that "
            "hold every query word, so long pasted messages and questions often find nothing."
            if kept == "after" else f"**Kept: {kept}** (over every set and language: {hits})."]


def write_report(path: Path, sets: dict[str, dict[str, list[Query]]], results: Results,
                 header: dict[str, str]) -> list[str]:
    """reports/search.md: how it was measured, the summary, then every query's top 3 per engine."""
    rows = summary_rows(sets, results)
    summary = summary_table(rows)
    lines = ["# Search: the site's search against Pagefind (tests/search_compare.py)", ""]
    lines += [f"- **{k}**: {v}" for k, v in header.items()]
    lines += ["", "A hit: one of the query's expected pages among the first 3 distinct result pages. "
              "*before* and *after* are Material's search box (as a reader types); *Pagefind* is "
              "Pagefind's JS API on the *after* site, given the same readers' words "
              "(docs/search-aliases.<lang>.yml), with code outputs left out of its index.", "",
              "## Summary", "", *summary, "", *decision(rows), ""]
    for name, by_lang in sets.items():
        for lang in LANGS:
            lines += [f"## {lang}, {name} set", "", f"The first {TOP} pages of each engine; misses in bold. "
                      f"Queries longer than {SHOWN} characters are cut here.", "",
                      "| query | expected | " + " | ".join(ENGINES) + " |", "|---" * (2 + len(ENGINES)) + "|"]
            for query in by_lang[lang]:
                expected = "<br>".join(query.pages)
                cells = [top_cell(lang, query, results[engine][lang][query.q]) for engine in ENGINES]
                lines.append(f"| {code(query.q)} | {expected} | " + " | ".join(cells) + " |")
            lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return summary


# --- the run ------------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE, help="the revision to compare with (default: %(default).12s)")
    parser.add_argument("--report", type=Path, default=ROOT / "reports" / "search.md")
    args = parser.parse_args()
    start = time.monotonic()
    sets = load_sets()
    if not sets:
        sys.exit("no query file")
    queries = {lang: list(dict.fromkeys(q.q for by_lang in sets.values() for q in by_lang[lang])) for lang in LANGS}
    ports = {engine: free_port() for engine in ENGINES}
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="fieldnotes-search-") as tmp:
        print(f"building {args.before[:12]} (before) ...", flush=True)
        before, seconds["build before"] = build_site(export_revision(args.before, Path(tmp) / "before"),
                                                     ports["before"])
        print("building the working tree (after) ...", flush=True)
        after_project = copy_working_tree(Path(tmp) / "after")
        after, seconds["build after"] = build_site(after_project, ports["after"])
        print("indexing the after site with Pagefind ...", flush=True)
        indexed, seconds["Pagefind indexing"] = pagefind_site(after, after_project, Path(tmp) / "pagefind")
        print(f"querying: {sum(map(len, queries.values()))} queries x {len(ENGINES)} engines ...", flush=True)
        query_start = time.monotonic()
        with served(before, ports["before"]) as b, served(after, ports["after"]) as a, \
                served(indexed, ports["Pagefind"]) as p:
            results = run_queries({"before": b, "after": a, "Pagefind": p}, queries)
        seconds["queries"] = time.monotonic() - query_start
    seconds["total"] = time.monotonic() - start
    dirty = " + uncommitted changes" if git("status", "--porcelain") else ""
    header = {
        "measured": time.strftime("%Y-%m-%d"),
        "machine": machine(),
        "before": describe(args.before),
        "after": f"the working tree: {describe('HEAD')}{dirty}",
        "Pagefind": f"{pagefind_version()} (`pagefind[extended]`), `--exclude-selectors \"{PAGEFIND_EXCLUDE}\"`",
        "query sets": ", ".join(f"{name} (tests/{SETS[name]}: " + ", ".join(f"{len(sets[name][lang])} {lang}"
                                                                           for lang in LANGS) + ")"
                                for name in sets) or "none",
        "run time": ", ".join(f"{k} {v:.0f} s" for k, v in seconds.items()),
    }
    summary = write_report(args.report, sets, results, header)
    print("\n".join(summary))
    print(f"wrote {args.report} in {seconds['total']:.0f} s")


if __name__ == "__main__":
    main()
