"""llms.txt at each language's root (fieldnotes.llms): every page of the nav once, in its order,
with a link that works, a one-line summary from the page's opening, and its script when it has code."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from fieldnotes import llms
from fieldnotes.blocks import read_blocks
from fieldnotes.languages import CONFIGS, LANGS
from sitebuild import ROOT


def _nav_pages(lang: str) -> list[str]:
    config = yaml.load((ROOT / CONFIGS[lang]).read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    nav = config.get("nav") or yaml.load((ROOT / "mkdocs.yml").read_text("utf-8"), Loader=yaml.BaseLoader)["nav"]
    found: list[str] = []

    def walk(items):
        for item in items:
            for value in item.values():
                walk(value) if isinstance(value, list) else found.append(value)
    walk(nav)
    return found


def test_the_summary_is_the_opening_sentence_under_the_title(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("---\ntitle: x\n---\n\n# Title {#t}\n\n!!! note\n    Not this.\n\n| a | b |\n|---|---|\n\n"
                    "[`scatter_`](scatter.md) writes each value of **src** somewhere; when two values land on\n"
                    "the same position, one wins. The rest of the paragraph is more than a summary needs.\n"
                    "It goes on.\n\nNext paragraph.\n", encoding="utf-8")
    assert llms.summary(page) == ("`scatter_` writes each value of src somewhere; when two values land on the "
                                  "same position, one wins.")
    zh = tmp_path / "zh.md"
    zh.write_text("# 标题\n\n`scatter_`（散射）按照索引写入\n张量。第二句也在这里，因为第一句太短了，不够八十个字符的摘要长度要求，所以还要继续写下去才行。第三句。\n",
                  encoding="utf-8")
    assert llms.summary(zh).startswith("`scatter_`（散射）按照索引写入张量。第二句")  # no space between CJK lines
    assert llms.summary(zh).endswith("才行。")


def test_every_page_is_listed_once_with_working_links(built_site):
    assert built_site.status == 0, built_site.log[-3000:]
    for lang in LANGS:
        text = (built_site.path / lang / "llms.txt").read_text(encoding="utf-8")
        assert text.startswith("# ") and "\n> " in text and "\n## " in text
        entries = re.findall(r"^- \[([^\]]+)\]\((\S+?)\)(?:: (.*?))?(?: \(\[[^\]]+\]\((\S+)\)\))?$", text, re.M)
        pages = _nav_pages(lang)
        assert len(entries) == len(pages), f"/{lang}/llms.txt lists {len(entries)} pages, the nav {len(pages)}"
        base = re.search(r"\((https?://[^)]*?/" + lang + r"/)pitfalls\.json\)", text)[1]
        for (title, url, summary, script), src in zip(entries, pages):
            assert url.startswith(base), url
            target = built_site.path / lang / url.removeprefix(base)
            assert (target / "index.html").is_file() or target.is_file(), f"/{lang}/llms.txt: {url}"
            page = ROOT / "docs" / lang / src
            assert (summary or "") == llms.summary(page) or src in ("tags.md",), f"{src}: {summary!r}"
            assert bool(script) == bool(read_blocks(page, root=ROOT)), f"/{lang}/llms.txt: {src} and its script"
            if script:
                assert (built_site.path / lang / script.removeprefix(base)).is_file(), script
        other = "zh" if lang == "en" else "en"
        assert f"/{other}/llms.txt)" in text


def test_a_browser_reads_the_chinese_llms_txt_as_utf8(served, browser_page):
    """Served as docs/site.py serve serves it (and GitHub Pages does): with its charset."""
    response = browser_page.goto(f"{served}/zh/llms.txt")
    assert "charset=utf-8" in response.headers["content-type"]
    assert "PyTorch 实战笔记" in browser_page.inner_text("body")
    response = browser_page.goto(f"{served}/zh/tensors/scatter/scatter.py")
    assert "charset=utf-8" in response.headers["content-type"] and "本脚本" in browser_page.inner_text("body")
