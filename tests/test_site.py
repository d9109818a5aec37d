"""The strict build of both languages, and what a reader gets from it."""

from __future__ import annotations

import filecmp
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from fieldnotes.blocks import read_blocks
from fieldnotes.highlight import PLAIN_TOKENS
from fieldnotes.languages import LANGS, MATERIAL_UI
from sitebuild import ROOT, soup

DISPLAY_ONLY = re.compile(r"language-(text|console|json|yaml|toml|ini|diff|html|markdown|md)\b")


def html_pages(site: Path, lang: str):
    return sorted(p for p in (site / lang).rglob("index.html") if "assets" not in p.parts
                  and p.parent.name != "search")


def source_of(site: Path, lang: str, html: Path) -> Path | None:
    """The docs/<lang>/ file a built page came from."""
    rel = html.parent.relative_to(site / lang)
    stem = ROOT / "docs" / lang / rel
    for candidate in (stem.with_suffix(".md"), stem / "index.md", stem.with_suffix(".ipynb")):
        if candidate.is_file():
            return candidate
    return None


def rendered_code_blocks(html: Path) -> int:
    """Code blocks a reader would take for runnable code: all but outputs and text blocks."""
    article = soup(html).select_one("article")
    cells = article.select(".jp-CodeCell .jp-InputArea")
    if cells:  # a notebook page
        return len(cells)
    blocks = [b for b in article.select("div.highlight, pre:not(div.highlight pre)")
              if not b.find_parent(class_="doc")  # mkdocstrings' rendered source of the API
              and "fn-output" not in b.get("class", [])
              and not DISPLAY_ONLY.search(" ".join(b.get("class", [])))]
    return len(blocks)


def test_strict_build_passes_with_no_warning(built_site):
    assert built_site.status == 0, built_site.log[-6000:]
    noisy = [line for line in built_site.log.splitlines() if re.search(r"WARNING|ERROR", line)
             and "IPKernelApp" not in line]  # the notebook kernel's own TCP notice, not MkDocs
    assert not noisy, "\n".join(noisy)


def test_pytest_collects_every_block_the_site_renders(built_site, request):
    """No block can escape the tests: per page, collected items == rendered code blocks. The
    items are this session's when it collected docs/ (the whole suite), else a collection run."""
    option = request.config.option
    whole = "docs" in [a.rstrip("/") for a in request.config.args] and not (
        option.keyword or option.markexpr or getattr(option, "lf", False) or option.deselect)
    ids = [item.nodeid for item in request.session.items if item.nodeid.startswith("docs/")] if whole else []
    if not ids:
        done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p",
                               "no:cacheprovider", "docs"], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        ids = [line for line in done.stdout.splitlines() if "::" in line]
    collected = Counter(nodeid.split("::")[0] for nodeid in ids)
    checked = 0
    for lang in LANGS:
        for html in html_pages(built_site.path, lang):
            source = source_of(built_site.path, lang, html)
            if source is None:
                continue
            page = source.relative_to(ROOT).as_posix()
            assert rendered_code_blocks(html) == collected[page] == len(read_blocks(source)), page
            checked += 1
    assert checked >= 8


def test_no_third_party_host_in_any_page(built_site):
    """No Google Fonts, no CDN: every asset a page loads is the site's own."""
    offenders = []
    for lang in LANGS:
        for html in (built_site.path / lang).rglob("*.html"):
            page = soup(html)
            for tag, attr in (("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"),
                              ("source", "src"), ("video", "src"), ("audio", "src")):
                for el in page.find_all(tag):
                    url = el.get(attr) or ""
                    if tag == "link" and not {"stylesheet", "preload", "icon", "modulepreload",
                                              "manifest", "preconnect"} & set(el.get("rel", [])):
                        continue
                    host = urlsplit(url).hostname
                    if host and host not in ("127.0.0.1", "localhost"):
                        offenders.append(f"{html.relative_to(built_site.path)}: <{tag} {attr}={url}>")
        for css in (built_site.path / lang).rglob("*.css"):
            for url in re.findall(r"""(?:url\(|@import\s+)["']?(https?://[^"')\s]+)""", css.read_text()):
                offenders.append(f"{css.relative_to(built_site.path)}: {url}")
    assert not offenders, "\n".join(offenders)


NAMESPACES = ("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink")
"""XML namespace names (``xmlns`` in an SVG data URI): identifiers a browser never fetches."""


def third_party_urls(text: str) -> list[str]:
    return [url for url in re.findall(r"""https?://[^\s"'`()<>\\]+""", text)
            if urlsplit(url).hostname not in ("127.0.0.1", "localhost") and url.rstrip("'\"%") not in NAMESPACES]


def test_no_third_party_url_in_any_inline_script_or_style(built_site):
    """Not even one that only runs on a condition: mkdocs-jupyter's loader imported Mermaid from
    cdnjs when a notebook held a diagram (fieldnotes.notebooks leaves it out). Inline scripts,
    ``<style>`` blocks and ``style`` attributes; links a reader clicks are not requests."""
    offenders = set()
    for lang in LANGS:
        for html in (built_site.path / lang).rglob("*.html"):
            page = soup(html)
            texts = [(el.name, el.string or "") for el in page.find_all(["script", "style"])]
            texts += [(f"{el.name} style=", el["style"]) for el in page.find_all(style=True)]
            for where, text in texts:
                offenders.update(f"{html.relative_to(built_site.path)}: <{where}> {url}"
                                 for url in third_party_urls(text))
    assert not offenders, "\n".join(sorted(offenders))


@pytest.mark.parametrize("lang, search, copy", [(lang, ui["search"], ui["copy"]) for lang, ui in MATERIAL_UI.items()])
def test_each_language_has_its_own_lang_attribute_and_interface(built_site, lang, search, copy):
    for html in html_pages(built_site.path, lang):
        text = html.read_text(encoding="utf-8")
        page = soup(html)
        assert page.html["lang"] == lang, html
        assert page.select_one("input.md-search__input")["placeholder"] == search, html
        copy_label = re.search(r'"clipboard\.copy":\s*("[^"]*")', text).group(1)
        assert json.loads(copy_label) == copy, html
        links = {a["hreflang"]: a["href"] for a in page.select("a.md-select__link")}
        assert set(links) == set(LANGS), html


def test_each_language_has_its_own_search_index_and_sitemap(built_site):
    paths = {}
    for lang in LANGS:
        index = json.loads((built_site.path / lang / "search" / "search_index.json").read_text("utf-8"))
        text = " ".join(doc["text"] for doc in index["docs"]
                        if not doc["location"].startswith("glossary"))  # the glossary has both
        assert bool(re.search(r"[\u4e00-\u9fff]{8}", text.replace("\u200b", ""))) == (lang == "zh"), lang
        sitemap = (built_site.path / lang / "sitemap.xml").read_text(encoding="utf-8")
        paths[lang] = sorted(u.split(f"/{lang}/", 1)[1] for u in re.findall(r"<loc>([^<]+)</loc>", sitemap))
        assert paths[lang], lang
    assert paths["en"] == paths["zh"], "the language switch finds a page through the other sitemap"


def test_two_builds_give_identical_pages(built_site, rebuilt_site):
    again = rebuilt_site
    assert again.status == 0, again.log[-4000:]
    differ = []
    for lang in LANGS:
        for html in html_pages(built_site.path, lang):
            twin = again.path / html.relative_to(built_site.path)
            if not filecmp.cmp(html, twin, shallow=False):
                differ.append(str(html.relative_to(built_site.path)))
    assert not differ, f"pages differ between two builds: {differ}"


def test_every_output_is_sample_output_not_code(built_site):
    """Outputs are ``<pre><samp>`` (fieldnotes.outputs): Material's JavaScript mounts only
    ``pre > code``, and half of a long page's blocks are outputs."""
    samp, code = 0, []
    for lang in LANGS:
        for page in html_pages(built_site.path, lang):
            html = soup(page)
            samp += len(html.select(".fn-output pre > samp"))
            code += [f"{page.relative_to(built_site.path)}" for _ in html.select(".fn-output pre > code")]
            assert "fnslot" not in page.read_text(encoding="utf-8"), f"{page}: an output slot was left unfilled"
    assert samp > 500, f"only {samp} outputs rendered as <samp>"
    assert not code, f"outputs still rendered as <pre><code>: {Counter(code).most_common(5)}"


def test_code_keeps_only_the_token_spans_that_colour_it(built_site):
    """Names, punctuation, operators and whitespace are plain text in code (fieldnotes.highlight),
    and the tokens that are coloured keep their spans."""
    left, coloured = [], 0
    for lang in LANGS:
        for page in html_pages(built_site.path, lang):
            for code in soup(page).select("code"):
                left += [f"{page.relative_to(built_site.path)}: {span}" for span in code.find_all("span")
                         if span.get("class", [""])[0] in PLAIN_TOKENS][:1]
                coloured += len(code.select("span.k, span.nb, span.mi, span.s1, span.s2"))
    assert coloured > 1000, f"only {coloured} keyword, built-in, number and string tokens keep their colour"
    assert not left, "plain token spans left in code:\n" + "\n".join(left[:10])


def test_material_still_mounts_code_blocks_lazily(built_site):
    """mkdocs.yml turns on ``content.lazy``, a feature in Material's code but not in its docs: if an
    upgrade drops it, every code block is mounted on load again, and long pages are slow on phones."""
    bundles = list((built_site.path / "en" / "assets" / "javascripts").glob("bundle.*.min.js"))
    assert len(bundles) == 1, bundles
    assert '"content.lazy"' in bundles[0].read_text(encoding="utf-8"), f"{bundles[0].name} has no content.lazy"
    config = json.loads(soup(built_site.path / "en" / "index.html").select_one("#__config").string)
    assert "content.lazy" in config["features"]


def test_mkdocstrings_stylesheet_only_where_an_api_reference_is(built_site):
    """Every page would load mkdocstrings' 6.6 KB stylesheet; only the API reference uses it."""
    from fieldnotes.stylesheets import drop_unused_css

    link = '<link rel="stylesheet" href="../../assets/_mkdocstrings.css">\n'
    assert drop_unused_css(f"<head>{link}</head><p>prose</p>") == "<head></head><p>prose</p>"
    kept = f'<head>{link}</head><div class="doc doc-object doc-function">'
    assert drop_unused_css(kept) == kept
    for lang in LANGS:
        loading = sorted(html.parent.relative_to(built_site.path / lang).as_posix()
                         for html in html_pages(built_site.path, lang) if "_mkdocstrings.css" in html.read_text())
        assert loading == ["reference/helpers"], (lang, loading)
        assert (built_site.path / lang / "assets" / "_mkdocstrings.css").is_file()
