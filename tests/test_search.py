"""Search as a reader uses it: real queries typed into the search box, in each language.

The queries live in ``tests/search-queries.yml``. For each, one of the expected pages must be in
the first 3 results, and every result must be in the searcher's language. Each language's hit
rate is written to ``reports/search.md`` (printed at the end of the run) and must be >= 95 %.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from browsing import in_browsers
from sitebuild import write_report

QUERIES = yaml.safe_load((Path(__file__).with_name("search-queries.yml")).read_text(encoding="utf-8"))
TARGET = 0.95
pytestmark = pytest.mark.timeout(600)

_rows: dict[str, list[tuple[str, bool, list[str]]]] = {}


def search(page, query: str) -> list[str]:
    """Type ``query`` into Material's search box; the result links, best first."""
    box = page.locator("input.md-search__input")
    box.click()  # focus: the index is fetched now (docs/overrides/assets/search-on-demand.js)
    box.fill("")
    box.press("End")
    idle = page.evaluate(  # "Type to start searching", once the index is loaded and empty query
        "JSON.parse(document.getElementById('__config').textContent).translations['search.result.placeholder']")
    page.wait_for_function("idle => document.querySelector('.md-search-result__meta').innerText === idle",
                           arg=idle, timeout=15_000)
    box.fill(query)
    box.press("End")  # Material's search reacts to keyup
    page.wait_for_function(
        "idle => document.querySelector('.md-search-result__meta').innerText !== idle", arg=idle,
        timeout=15_000)
    # one item per page (its best sections are links inside it): the first link is the page's
    return page.eval_on_selector_all(".md-search-result__item", "els => els.map(e => e.querySelector('a').href)")


def hit(lang: str, expected: list[str], results: list[str]) -> bool:
    top3 = [urlsplit(r).path for r in results[:3]]
    return any(p.startswith(f"/{lang}/{e}") for p in top3 for e in expected)


@pytest.fixture(scope="module")
def searched(served) -> dict[str, tuple[list, list]]:
    """Every query typed into the search box: (rows, results in another language) per language,
    the languages at once, in a browser each."""
    found: dict[str, tuple[list, list]] = {}

    def type_queries(browser, lang: str, state) -> list[str]:
        page = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US").new_page()
        page.goto(f"{served}/{lang}/")
        rows, elsewhere = [], []
        for item in QUERIES[lang]:
            results = search(page, item["q"])
            elsewhere += [f"{item['q']!r}: {r}" for r in results if not urlsplit(r).path.startswith(f"/{lang}/")]
            rows.append((item["q"], hit(lang, item["pages"], results),
                         [urlsplit(r).path + (f"#{urlsplit(r).fragment}" if urlsplit(r).fragment else "")
                          for r in results[:3]]))
        found[lang] = (rows, elsewhere)
        return []

    problems = in_browsers(sorted(QUERIES), type_queries, workers=len(QUERIES))
    assert not problems, "\n".join(problems)
    return found


@pytest.mark.parametrize("lang", sorted(QUERIES))
def test_queries_find_their_page_in_the_top_3(searched, lang):
    rows, elsewhere = searched[lang]
    _rows[lang] = rows
    report_hit_rates()
    assert not elsewhere, "results in another language:\n" + "\n".join(elsewhere)
    misses = [f"{q!r}: top 3 = {top}" for q, ok, top in rows if not ok]
    rate = 1 - len(misses) / len(rows)
    assert rate >= TARGET, f"{lang} hit rate {rate:.0%} < {TARGET:.0%}; misses:\n" + "\n".join(misses)


def report_hit_rates() -> None:
    lines = ["# Search hit rate (expected page in the top 3)", ""]
    for lang, rows in sorted(_rows.items()):
        hits = sum(ok for _, ok, _ in rows)
        lines += [f"**{lang}: {hits}/{len(rows)} = {hits / len(rows):.0%}**", "",
                  "| query | hit | top 3 |", "|---|---|---|"]
        lines += [f"| `{q}` | {'yes' if ok else '**no**'} | {'<br>'.join(top)} |" for q, ok, top in rows]
        lines.append("")
    rates = ", ".join(f"{lang} {sum(ok for _, ok, _ in rows)}/{len(rows)}" for lang, rows in sorted(_rows.items()))
    write_report("search.md", lines, f"search hit rate (top 3): {rates}")
