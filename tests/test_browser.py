"""What a reader does, in headless Chromium: search, switch language, load pages.

Needs Debian's chromium (``.ci/run`` installs it). Elsewhere these tests skip with that reason,
except in CI (``CI`` set), where a missing browser fails the run.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from sitebuild import SCREENSHOTS

pytestmark = pytest.mark.timeout(300)

SEARCHES = [  # (language, query, page (or pages) of which one must be in the top 3)
    ("en", "scatter_", "tensors/scatter/"),
    ("en", "F.dropout", "nn/dropout/"),
    ("en", "one-hot", ("tensors/scatter-reduce/", "tensors/scatter/")),
    ("en", "include_self", "tensors/scatter-reduce/"),
    ("en", "label_smoothing", "losses/cross-entropy/"),
    ("en", "running_var", "nn/batchnorm/"),
    ("en", "dilation", "nn/conv2d/"),
    ("en", "kaiming_normal_", "nn/init/"),
    ("en", "LOCAL_RANK", "distributed/ddp/"),
    ("en", "map_location", "training/checkpoints/"),
    ("en", "weights_only", "training/checkpoints/"),
    ("en", "volatile", "training/inference-modes/"),
    ("en", "empty_cache", "training/gpu-memory/"),
    ("zh", "scatter_", "tensors/scatter/"),
    ("zh", "散射", "tensors/scatter/"),  # in the middle of a sentence: needs jieba + separator
    ("zh", "独热编码", ("tensors/scatter-reduce/", "tensors/scatter/")),
    ("zh", "交叉熵", "losses/cross-entropy/"),
    ("zh", "初始化", ("nn/init/", "tensors/fill-and-random/")),
    ("zh", "叶子张量", "tensors/in-place/"),
    ("zh", "批归一化", "nn/batchnorm/"),
    ("zh", "显存", "training/gpu-memory/"),
    ("zh", "梯度累积", "training/inference-modes/"),
    ("zh", "torchrun", "distributed/ddp/"),
    ("zh", "评估模式", "nn/dropout/"),
    ("zh", "随机失活", "nn/dropout/"),
]


def search(page, query: str) -> list[str]:
    page.click("label.md-search__icon, .md-search__input", timeout=10_000)
    box = page.locator("input.md-search__input")
    box.fill(query)
    box.press("End")  # Material's search reacts to keyup
    page.wait_for_selector(".md-search-result__item", timeout=10_000)
    return page.eval_on_selector_all(".md-search-result__item > a", "els => els.map(e => e.href)")


@pytest.mark.parametrize("lang, query, expected", SEARCHES)
def test_search_returns_pages_in_the_readers_language(served, browser_page, lang, query, expected):
    browser_page.goto(f"{served}/{lang}/")
    hits = search(browser_page, query)
    assert hits, f"no result for {query!r}"
    assert all(urlsplit(h).path.startswith(f"/{lang}/") for h in hits), hits
    top3 = [urlsplit(h).path for h in hits[:3]]
    wanted = (expected,) if isinstance(expected, str) else expected
    assert any(p.startswith(f"/{lang}/{w}") for p in top3 for w in wanted), f"{query!r}: {top3}"


def test_language_switch_lands_on_the_same_page(served, browser_page, site_pages):
    for lang, path in site_pages:
        other = "zh" if lang == "en" else "en"
        browser_page.goto(f"{served}/{lang}/{path}")
        browser_page.wait_for_load_state("networkidle")  # Material fetches the other sitemap first
        browser_page.hover(".md-header__option .md-select")
        browser_page.click(f"a.md-select__link[hreflang={other}]")
        browser_page.wait_for_url(f"{served}/{other}/{path}", timeout=10_000)
        assert browser_page.get_attribute("html", "lang") == other
        placeholder = browser_page.get_attribute("input.md-search__input", "placeholder")
        assert placeholder == {"en": "Search", "zh": "搜索"}[other]


def test_pages_load_nothing_from_other_hosts_and_log_no_errors(served, browser_page, site_pages):
    problems: list[str] = []
    browser_page.on("request", lambda r: urlsplit(r.url).hostname not in ("127.0.0.1", None)
                    and problems.append(f"request to another host: {r.url}"))
    browser_page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status} {r.url}"))
    browser_page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    for lang, path in site_pages:
        browser_page.goto(f"{served}/{lang}/{path}")
        browser_page.wait_for_load_state("networkidle")
        name = re.sub(r"\W+", "-", f"{lang}-{path.strip('/') or 'index'}")
        browser_page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)
    assert not problems, "\n".join(problems)
