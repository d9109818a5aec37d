"""What a reader does, in headless Chromium: switch language, copy code, load every page.

Needs Debian's chromium (``.ci/run`` installs it). Elsewhere these tests skip with that reason,
except in CI (``CI`` set), where a missing browser fails the run. Search has its own module
(``test_search.py``). Screenshots and page weights go to ``reports/`` (a CI artifact).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from axe_playwright_python.base import AXE_SCRIPT

from fieldnotes.blocks import read_blocks
from fieldnotes.highlight import PLAIN_TOKENS
from fieldnotes.languages import LANGS, MATERIAL_UI

from accessibility import (BROAD_COLOUR_CONTEXT, COLOUR_CONTEXT, COLOUR_RULES, LOOKS, SAMPLE_CODE, THEME, Violation,
                           audit_both_schemes, scheme, toggle_scheme)
from browsing import STILL, WAIT_MS, in_browsers
from sitebuild import ROOT, SCREENSHOTS, write_report

pytestmark = pytest.mark.timeout(900)

KIB = 1024
PAGE_BUDGET = 1024 * KIB  # bytes a page transfers (uncompressed), everything it loads included
HOME_BUDGET = 350 * KIB
NOTEBOOK_BUDGET = 410 * KIB  # mkdocs-jupyter's inlined CSS pruned to what the page uses (fieldnotes.notebooks);
# 400 until 2026-12-05: the nav of 41 topic pages (every page carries it) took the notebook page to 400 KiB
UI = {lang: (ui["search"], ui["copy"]) for lang, ui in MATERIAL_UI.items()}  # search box, copy button


def serve_without_instant_navigation(page) -> None:
    """Serve every HTML page as if the site were built without ``navigation.instant``.

    Material reads its features from the page's ``__config`` JSON, so one build covers both
    cases: the switch must work with Material's XHR navigation and with plain page loads."""
    def handle(route):
        if route.request.resource_type != "document":
            return route.continue_()
        response = route.fetch()
        body = re.sub(r'"navigation\.instant",\s*', "", response.text())
        route.fulfill(response=response, body=body)
    page.route("**/*", handle)


def wait_for_sitemap(page, lang: str) -> None:
    """Until the page has fetched ``/<lang>/sitemap.xml``: Material's language switch looks the
    current page up in the other site's sitemap, fetched once the page has loaded (a reader's
    click before that lands on the other home page). Waiting for that one response, rather
    than for the network to be idle for 500 ms, keeps this test fast."""
    page.wait_for_function(
        "lang => performance.getEntriesByType('resource').some("
        "e => e.name.endsWith(`/${lang}/sitemap.xml`) && e.responseEnd > 0)", arg=lang, timeout=WAIT_MS)


LOADED = "[location.href, ...performance.getEntriesByType('resource').map(e => e.name)]"
"""The page and every resource it loaded (the browser's resource timing lists cached ones too)."""


def weight(site: Path, urls: list[str]) -> int:
    """Bytes of the files behind ``urls`` (all served from ``site``): what a first visit with an
    empty cache downloads, uncompressed. (Resource timing's own sizes read 0 for resources the
    browser took from its memory cache.)"""
    total = 0
    for url in urls:
        path = site / urlsplit(url).path.lstrip("/")
        total += (path / "index.html" if path.is_dir() else path).stat().st_size
    return total


def switch_language(page, served: str, lang: str, path: str) -> list[str]:
    """On a loaded page: open the language menu, pick the other language; problems, if any."""
    other = next(x for x in LANGS if x != lang)  # the site has two languages
    wait_for_sitemap(page, other)
    page.hover(".md-header__option .md-select")
    page.click(f"a.md-select__link[hreflang={other}]")
    page.wait_for_url(f"{served}/{other}/{path}", timeout=WAIT_MS)
    page.wait_for_load_state()
    if page.get_attribute("html", "lang") != other:
        return [f"{lang}/{path}: <html lang> is {page.get_attribute('html', 'lang')}"]
    ui = (page.get_attribute("input.md-search__input", "placeholder"), page.evaluate(
        "JSON.parse(document.getElementById('__config').textContent).translations['clipboard.copy']"))
    return [f"{lang}/{path}: interface strings {ui}"] if ui != UI[other] else []


@pytest.fixture(scope="module")
def tour(served, site_pages, built_site) -> dict[str, list]:
    """Every page, as a reader with instant navigation sees it: loaded (requests, console errors,
    statuses, bytes, a screenshot observed), checked by axe in the colour scheme it loaded in and,
    after a click on the light/dark toggle, in the other, then switched to the other language. One
    visit per page serves three tests: the switch (instant navigation), the page-load checks and
    accessibility. (The toggle is remembered, so each browser's pages load in alternate schemes.)"""
    seen: dict[str, list] = {"load": [], "switch": [], "weights": [], "axe": [], "audited": [], "axe_errors": [],
                             "focus": [], "blocks": [], "full": []}

    def visit(browser, item, state) -> list[str]:
        lang, path = item
        where = f"{lang}/{path}"
        if "page" not in state:
            page = state["page"] = browser.new_context(viewport={"width": 1280, "height": 900},
                                                       locale="en-US").new_page()
            page.add_init_script(STILL)
            page.on("request", lambda r: urlsplit(r.url).hostname not in ("127.0.0.1", None)
                    and seen["load"].append(f"{state['where']}: request to another host: {r.url}"))
            page.on("response", lambda r: r.status >= 400
                    and seen["load"].append(f"{state['where']}: {r.status} {r.url}"))
            page.on("console", lambda m: m.type == "error"
                    and seen["load"].append(f"{state['where']}: console: {m.text}"))
        page, state["where"] = state["page"], where
        page.goto(f"{served}/{lang}/{path}")
        for each in LANGS:  # Material's last requests: the sitemaps of both languages
            wait_for_sitemap(page, each)
        urls = page.evaluate(LOADED)
        seen["weights"].append((weight(built_site.path, urls), where, urls))
        blocks, wrong = page.evaluate(TAB_STOPS)
        seen["blocks"].append(blocks)
        seen["focus"].extend(f"{where}: {block}" for block in wrong)
        name = re.sub(r"\W+", "-", f"{lang}-{path.strip('/') or 'index'}")
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
        try:
            violations, schemes, full = audit_both_schemes(page, where, state.setdefault("looks", set()))
            seen["axe"].extend(violations)
            seen["audited"].extend((where, scheme) for scheme in schemes)
            seen["full"].append(full)
        except Exception as e:  # noqa: BLE001  (reported by the accessibility test)
            seen["axe_errors"].append(f"{where}: axe did not run: {type(e).__name__}: {str(e).splitlines()[0]}")
        state["where"] = f"{where} (after the language switch)"
        try:
            return switch_language(page, served, lang, path)
        except Exception as e:  # noqa: BLE001  (a time-out: the switch went somewhere else)
            return [f"{where}: {type(e).__name__}: {str(e).splitlines()[0]}"]

    seen["switch"] = in_browsers(site_pages, visit)
    return seen


@pytest.mark.parametrize("instant", [True, False], ids=["instant-navigation", "plain-navigation"])
def test_language_switch_lands_on_the_same_page(served, browser_page, site_pages, instant, request):
    page = browser_page
    if not instant:
        serve_without_instant_navigation(page)
    page.goto(f"{served}/en/")
    page.evaluate("window.__sameDocument = true")
    page.click("a.md-nav__link[href$='pitfalls/']")
    page.wait_for_url(f"{served}/en/pitfalls/")
    assert page.evaluate("window.__sameDocument === true") is instant, "instant navigation mode"
    if instant:  # the tour switched every page with instant navigation
        problems = request.getfixturevalue("tour")["switch"]
        assert not problems, "\n".join(problems)
        return

    def there_and_back(browser, item, state) -> list[str]:
        """From a page to its translation and back: each switch is a full page load here."""
        lang, path = item
        other = next(x for x in LANGS if x != lang)
        if "page" not in state:
            state["page"] = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US").new_page()
            state["page"].add_init_script(STILL)
            serve_without_instant_navigation(state["page"])
        state["page"].goto(f"{served}/{lang}/{path}")
        return switch_language(state["page"], served, lang, path) or \
            switch_language(state["page"], served, other, path)

    problems = in_browsers(one_page_per_section(site_pages), there_and_back)
    assert not problems, "\n".join(problems)


def one_page_per_section(site_pages: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The first page of each folder (the home page among them), in the first language.

    The tour switches every page, in both languages, with instant navigation; without it the
    switch runs the same code on a full page load, so one page per folder (each depth of path,
    the home page, every section) proves it there, at a third of the cost. (The languages have
    the same pages: test_site checks their sitemaps.)"""
    first: dict[str, tuple[str, str]] = {}
    for lang, path in site_pages:
        if lang == LANGS[0]:
            first.setdefault(path.strip("/").rpartition("/")[0], (lang, path))
    return list(first.values())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_copy_button_copies_the_code_the_page_shows(served, browser, lang):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(f"{served}/{lang}/")
    block = read_blocks(ROOT / "docs" / lang / "index.md")[0]
    first = page.locator(".md-content .highlight").first
    first.hover()
    first.locator("button.md-code__button[data-md-type=copy], button.md-clipboard").first.click()
    copied = page.evaluate("navigator.clipboard.readText()")
    context.close()
    assert copied.strip() == block.code.strip()


OFF_COLOUR = """(tokens) => {  // each plain token, put in the first code block: is it the code's colour?
  const code = document.querySelector('.md-content .highlight pre > code');
  const want = getComputedStyle(code).color, off = [];
  for (const token of tokens) {
    const span = document.createElement('span');
    span.className = token; span.textContent = 'x'; code.append(span);
    const got = getComputedStyle(span).color; span.remove();
    if (got !== want) off.push(`${token}: ${got}, the code around it: ${want}`);
  }
  return off; }"""


def off_colour_tokens(page) -> list[str]:
    """The plain tokens (fieldnotes.highlight) that would not look like the code around them."""
    return [f"{scheme(page)} {token}" for token in page.evaluate(OFF_COLOUR, list(PLAIN_TOKENS))]


@pytest.mark.parametrize("lang", LANGS)
def test_plain_tokens_look_like_the_code_around_them_in_both_schemes(served, browser_page, lang):
    """What lets fieldnotes.highlight take their spans out: nothing a reader sees changes."""
    page = browser_page
    page.goto(f"{served}/{lang}/tensors/scatter/")
    off = off_colour_tokens(page)
    toggle_scheme(page)
    assert off + off_colour_tokens(page) == []


def test_plain_token_check_fails_on_a_coloured_token(served, browser_page):
    page = browser_page
    page.goto(f"{served}/en/tensors/scatter/")
    page.add_style_tag(content=".highlight .p { color: #d52a2a }")
    assert [line.split(":")[0] for line in off_colour_tokens(page)] == [f"{scheme(page)} p"]


MOUNTED = "pre:has(> code) > nav.md-code__nav button[data-md-type=copy], pre:has(> code) > button.md-clipboard"
OWN_BUTTON = ":scope > nav.md-code__nav button[data-md-type=copy], :scope > button.md-clipboard"
"""A code block's own copy button, once Material has mounted the block."""
def test_every_code_block_gets_its_copy_button_when_scrolled_to(served, browser_page):
    """Material mounts code blocks lazily (content.lazy in mkdocs.yml): once the first block is on
    screen and mounted, the blocks further down are not yet, and each one gets its copy button on
    the way down (blocks in a closed admonition are opened first, as a reader would). Each step
    waits for the block it scrolled to: Material mounts from an IntersectionObserver, some time
    after the scroll (later on a busy machine), and whether a block sits on the first screen
    depends on the fonts (a count at load read 0 on one machine, 1 on another)."""
    page = browser_page
    page.goto(f"{served}/zh/tensors/scatter/")
    page.evaluate("document.querySelectorAll('.md-content details').forEach(d => d.open = true)")
    blocks = page.locator(".md-content pre:has(> code)")
    shown = [i for i in range(blocks.count()) if blocks.nth(i).is_visible()]

    def scroll_to(i: int) -> None:
        blocks.nth(i).scroll_into_view_if_needed()
        blocks.nth(i).locator(OWN_BUTTON).first.wait_for(state="attached")

    scroll_to(shown[0])
    near_the_top = page.locator(f".md-content :is({MOUNTED})").count()
    assert 0 < near_the_top < len(shown) / 2, f"{near_the_top} of {len(shown)} code blocks mounted near the top"
    for i in shown:
        scroll_to(i)
    assert page.locator(f".md-content :is({MOUNTED})").count() == len(shown)


TAB_STOPS = """() => {  // visible code blocks, and those whose tab stop does not match whether they scroll
  const blocks = [...document.querySelectorAll('.md-content pre > code')].filter(c => c.checkVisibility());
  return [blocks.length, blocks.filter(c => c.hasAttribute('tabindex') !== (c.scrollWidth > c.clientWidth))
    .map(c => `block ${[...document.querySelectorAll('pre > code')].indexOf(c) + 1} `
              + (c.hasAttribute('tabindex') ? 'fits but takes focus' : 'scrolls but cannot take focus'))]; }"""


def test_every_code_block_that_scrolls_and_no_other_takes_keyboard_focus(tour):
    """Before Material mounts a block (content.lazy), fieldnotes.scrolling gave the tab stop; after,
    Material did: either way a block that scrolls sideways can be focused, and no other block can."""
    assert sum(tour["blocks"]) > 1000, f"only {sum(tour['blocks'])} code blocks checked"
    assert not tour["focus"], "\n".join(tour["focus"])


def test_tab_stop_check_fails_on_a_wide_block_without_one_and_a_narrow_block_with_one(served, browser_page):
    page = browser_page
    page.goto(f"{served}/en/training/checkpoints/")
    page.evaluate("""() => { const blocks = [...document.querySelectorAll('pre > code')];
        blocks.filter(c => c.hasAttribute('tabindex')).at(-1).removeAttribute('tabindex');
        blocks.filter(c => c.scrollWidth <= c.clientWidth).at(-1).setAttribute('tabindex', '0'); }""")
    _, wrong = page.evaluate(TAB_STOPS)
    assert sorted(block.split(" ", 2)[2] for block in wrong) == ["fits but takes focus", "scrolls but cannot take focus"]


def platform_fonts(page, selector: str) -> set[str]:
    """The faces Chromium drew the text of the first ``selector`` with (DevTools protocol)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    node = cdp.send("DOM.querySelector", {"nodeId": cdp.send("DOM.getDocument")["root"]["nodeId"],
                                          "selector": selector})["nodeId"]
    return {font["familyName"] for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]}


def test_chinese_text_gets_a_chinese_face_by_name_and_latin_text_keeps_its_own(served, browser_page):
    """fieldnotes.css names Simplified Chinese faces on Chinese pages (no fallback search for each
    run of Chinese text); English pages and the Latin text of Chinese pages keep Material's face."""
    page = browser_page
    faces = {}
    for lang in LANGS:
        page.goto(f"{served}/{lang}/tensors/scatter/")
        page.evaluate("""() => { const article = document.querySelector('.md-content article');
            article.insertAdjacentHTML('beforeend', '<p id=latin>Latin only</p><p id=hanzi>只有汉字</p>'); }""")
        family = page.evaluate("getComputedStyle(document.getElementById('hanzi')).fontFamily")
        faces[lang] = (family, platform_fonts(page, "#latin"), platform_fonts(page, "#hanzi"))
    (zh_family, zh_latin, zh_hanzi), (en_family, en_latin, _) = faces["zh"], faces["en"]
    assert "PingFang SC" in zh_family and "WenQuanYi Micro Hei" in zh_family, zh_family
    assert "PingFang SC" not in en_family, en_family
    assert zh_latin == en_latin, f"Latin text on Chinese pages drawn with {zh_latin}, on English pages {en_latin}"
    assert zh_hanzi <= {face.strip().strip('"') for face in zh_family.split(",")}, zh_hanzi


def test_search_index_is_fetched_only_when_the_reader_opens_search(served, browser_page):
    page = browser_page
    fetched = []
    page.on("request", lambda r: re.search(r"/search/search_index\.json$|/workers/search\.", r.url)
            and fetched.append(r.url))
    page.goto(f"{served}/zh/")
    page.wait_for_load_state("networkidle")
    assert not fetched, "search was loaded before the reader opened it"
    with page.expect_response(lambda r: r.url.endswith("/search/search_index.json") and r.ok):
        page.keyboard.press("/")  # Material's shortcut: focus the search box
    page.locator("input.md-search__input").fill("交叉熵")
    page.wait_for_selector(".md-search-result__item a[href*='losses/cross-entropy/']", timeout=WAIT_MS)


def test_every_page_loads_only_from_this_site_without_errors_within_budget(tour):
    weights = tour["weights"]
    write_weights(weights)
    assert not tour["load"], "\n".join(tour["load"])
    over = [f"{where}: {size / KIB:.0f} KiB" for size, where, _ in weights if size > PAGE_BUDGET]
    assert not over, f"pages over {PAGE_BUDGET // KIB} KiB:\n" + "\n".join(over)
    for size, where, _ in weights:
        if where in ("en/", "zh/"):
            assert size < HOME_BUDGET, f"home page {where}: {size / KIB:.0f} KiB >= {HOME_BUDGET // KIB} KiB"
    notebooks = [(size, where) for size, where, _ in weights if is_notebook(where)]
    assert notebooks, "the tour visited no notebook page"
    heavy = [f"{where}: {size / KIB:.0f} KiB" for size, where in notebooks if size >= NOTEBOOK_BUDGET]
    assert not heavy, f"notebook pages at or over {NOTEBOOK_BUDGET // KIB} KiB:\n" + "\n".join(heavy)


PHONE = {"width": 390, "height": 844}  # CSS pixels of a common phone (iPhone 12-15)
PHONE_SHOTS = ("", "tensors/scatter/", "nn/init/")  # home, a long topic page, a page with tags and tables
OPENING = """() => {
  const article = document.querySelector('article.md-content__inner'), h1 = article.querySelector('h1');
  const after = e => h1.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING;
  const shown = e => e.checkVisibility() && e.getBoundingClientRect().height > 0;
  const before = [...article.querySelectorAll('*')].filter(e => !after(e) && !e.contains(h1) && e !== h1 && shown(e));
  const p = [...article.querySelectorAll('p')].find(e => after(e) && !e.closest('.admonition, details') && shown(e));
  const box = p && p.getBoundingClientRect();
  return {before: before.slice(0, 3).map(e => e.outerHTML.slice(0, 80)), p: p && p.textContent.slice(0, 40),
          p_top: box && box.top, p_bottom: box && box.bottom, line: p && parseFloat(getComputedStyle(p).lineHeight),
          width: document.documentElement.scrollWidth};
}"""


def test_on_a_phone_every_page_opens_with_its_title_and_first_paragraph(served, site_pages):
    """At 390 x 844: nothing is shown above the title in the article; tags, the torch-version note and the
    table of contents leave at least three lines of the first paragraph (or all of it) on the first
    screen; nothing is wider than the screen (wide code scrolls inside its block, outputs wrap).
    Screenshots of PHONE_SHOTS in each language: reports/screenshots/phone-*.png."""
    def check(browser, item, state) -> list[str]:
        lang, path = item
        where = f"{lang}/{path}"
        if "page" not in state:
            state["page"] = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True,
                                                has_touch=True).new_page()
            state["page"].add_init_script(STILL)
        page = state["page"]
        page.goto(f"{served}/{where}")
        problems = phone_problems(page, where)
        if path in PHONE_SHOTS:
            name = re.sub(r"\W+", "-", f"phone-{lang}-{path.strip('/') or 'index'}")
            page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
        return problems

    shot = [(lang, path) for lang, path in site_pages if path in PHONE_SHOTS]
    assert len(shot) == len(LANGS) * len(PHONE_SHOTS), f"phone screenshots: pages not in the site: {shot}"
    problems = in_browsers(site_pages, check)
    assert not problems, "\n".join(problems)


def phone_problems(page, where: str) -> list[str]:
    """What is wrong with the first screen of ``page`` (loaded at PHONE size), if anything."""
    got = page.evaluate(OPENING)
    problems = []
    if got["width"] > PHONE["width"]:
        wide = page.evaluate("w => [...document.querySelectorAll('.md-content *')].filter(e => "
                             "e.getBoundingClientRect().right > w + 1).slice(0, 3).map(e => e.outerHTML.slice(0, 80))",
                             PHONE["width"])
        problems.append(f"{where}: the page is {got['width']} px wide on a {PHONE['width']} px screen: {wide}")
    if got["before"]:
        problems.append(f"{where}: shown before the title: {got['before']}")
    if got["p_top"] is None:
        problems.append(f"{where}: no paragraph after the title")
    elif min(got["p_bottom"], got["p_top"] + 3 * got["line"]) > PHONE["height"]:
        problems.append(f"{where}: the first paragraph ({got['p']!r}...) starts at {got['p_top']:.0f} px, "
                        f"below the first screen ({PHONE['height']} px)")
    return problems


def test_phone_check_fails_on_a_wide_block_a_tag_above_the_title_and_a_pushed_paragraph(served, browser):
    page = browser.new_context(viewport=PHONE, is_mobile=True).new_page()
    page.goto(f"{served}/en/tensors/gather/")
    assert phone_problems(page, "en/tensors/gather/") == []
    page.evaluate("""() => { const h1 = document.querySelector('article h1');
        h1.insertAdjacentHTML('beforebegin', '<span class=md-tag>torch.gather</span>');
        h1.insertAdjacentHTML('afterend', '<div style="height: 900px">a long note</div><pre style="width: 900px">x</pre>'); }""")
    problems = "\n".join(phone_problems(page, "en/tensors/gather/"))
    page.context.close()
    for expected in ("px wide on a 390 px screen", "shown before the title: ['<span class=\"md-tag\">",
                     "below the first screen"):
        assert expected in problems, problems


SCHEMES = ("default", "slate")  # Material's light and dark schemes (mkdocs.yml: theme.palette)


def test_every_page_has_no_serious_accessibility_violation_in_either_scheme(tour, site_pages):
    audited = set(tour["audited"])
    missing = [f"{lang}/{path} ({scheme})" for lang, path in site_pages for scheme in SCHEMES
               if (f"{lang}/{path}", scheme) not in audited]
    write_accessibility(tour["axe"], len(audited), sum(tour["full"]))
    assert not tour["axe_errors"], "\n".join(tour["axe_errors"])
    assert not missing, "pages axe did not check:\n" + "\n".join(missing)
    failing = sorted(str(v) for v in tour["axe"] if v.failing)
    assert not failing, f"{len(failing)} serious or critical axe violations:\n" + "\n".join(failing)


def test_accessibility_check_fails_on_a_low_contrast_token_and_an_unnamed_button(served, browser_page):
    """The check itself, as the tour runs it (audit_both_schemes): a code token and an inline code made
    pale in each scheme by a style sheet (neither the first of its look, so the sampling must catch
    them; the document stays the same, so the second scheme runs the colour rules only), and an icon
    button with no name, on a real page."""
    page = browser_page
    page.goto(f"{served}/en/tensors/gather/")
    mark = """() => { const seen = new Set();  // a visible word token whose colour an earlier token has
                 for (const s of document.querySelectorAll('.highlight code span')) {
                   if (!/[a-z]/.test(s.textContent) || !s.checkVisibility()) continue;
                   const colour = getComputedStyle(s).color;
                   if (seen.has(colour)) { s.id = 'pale'; break; }
                   seen.add(colour);
                 }
                 // the last visible inline code of the page: others look as it did, so it is audited
                 // only because its own colour makes it a look of its own
                 const codes = [...document.querySelectorAll('.md-content p > code')].filter(e => e.checkVisibility());
                 codes.at(-1).id = 'pale-inline';
                 const style = document.createElement('style');
                 style.textContent = `[data-md-color-scheme=default] :is(#pale, #pale-inline) { color: #c8c8c8 !important }
                                      [data-md-color-scheme=slate] :is(#pale, #pale-inline) { color: #3a3a3a !important }`;
                 document.head.appendChild(style); }"""
    page.evaluate(mark)
    page.evaluate("document.querySelector('.md-content h1').insertAdjacentHTML('afterend', "
                  "'<button id=unnamed><svg width=16 height=16></svg></button>')")
    violations, schemes, full = audit_both_schemes(page, "en/tensors/gather/")
    assert schemes == ["default", "slate"] and not full
    found = {(v.rule, element, v.scheme) for v in violations if v.failing for element in v.elements}
    for scheme in schemes:
        assert ("color-contrast", "#pale", scheme) in found, violations
        assert ("color-contrast", "#pale-inline", scheme) in found, violations
    assert ("button-name", "#unnamed", "default") in found, violations


def test_looks_audited_on_an_earlier_page_are_skipped_and_a_new_colour_is_not(served, browser_page):
    """The tour's colour rules check only looks its browser has not audited on an earlier page
    (accessibility.LOOKS). After the gather page, the scatter page's prose, headings and navigation
    are known and skipped; a paragraph and a link inside a known paragraph, made pale in each scheme,
    are looks of their own and fail, in both schemes."""
    page, looks = browser_page, set()
    page.goto(f"{served}/en/tensors/gather/")
    audit_both_schemes(page, "en/tensors/gather/", looks)
    assert len(looks) > 20, looks
    page.goto(f"{served}/en/tensors/scatter/")
    page.evaluate("""() => {
        const shown = [...document.querySelectorAll('.md-content p')].filter(e => e.checkVisibility());
        shown.at(-1).id = 'pale-p';
        shown.find(p => p.querySelector(':scope > a[href]') && p.id !== 'pale-p').querySelector(':scope > a[href]').id = 'pale-link';
        const style = document.createElement('style');
        style.textContent = `[data-md-color-scheme=default] :is(#pale-p, #pale-link) { color: #c8c8c8 !important }
                             [data-md-color-scheme=slate] :is(#pale-p, #pale-link) { color: #3a3a3a !important }`;
        document.head.appendChild(style); }""")
    violations, schemes, full = audit_both_schemes(page, "en/tensors/scatter/", looks)
    skipped = page.evaluate("document.querySelectorAll('[data-axe-known]').length")
    assert skipped > 100, f"only {skipped} elements of looks audited before were skipped"
    found = {(v.rule, element, v.scheme) for v in violations if v.failing for element in v.elements}
    for scheme in schemes:
        assert ("color-contrast", "#pale-p", scheme) in found, violations
        assert ("color-contrast", "#pale-link", scheme) in found, violations


CHECKED = """([context, rules]) => axe.run(context, {runOnly: {type: 'rule', values: rules},
    resultTypes: ['violations', 'passes', 'incomplete', 'inapplicable']})
  .then(r => [...r.passes, ...r.incomplete, ...r.violations].flatMap(v => v.nodes.map(n => `${v.id} ${n.target.join(' ')}`)))"""
"""The elements a rule checked (passed, failed or could not tell), as ``rule selector``."""


def colour_coverage(page, looks_script: str = LOOKS) -> list[str]:
    """Where the narrow colour context (accessibility.COLOUR_CONTEXT: LOOKS's new looks only) would
    check otherwise than the whole page: in the scheme shown, with no look known, the elements the
    colour rules check in each context; then, every look known, what the whole page still has checked."""
    page.evaluate(SAMPLE_CODE)
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    seen, _, _ = page.evaluate(looks_script, [])
    broad = set(page.evaluate(CHECKED, [BROAD_COLOUR_CONTEXT, list(COLOUR_RULES)]))
    narrow = set(page.evaluate(CHECKED, [COLOUR_CONTEXT, list(COLOUR_RULES)]))
    page.evaluate(looks_script, seen)
    unmarked = set(page.evaluate(CHECKED, [BROAD_COLOUR_CONTEXT, list(COLOUR_RULES)]))
    where = f"{page.url} ({scheme(page)})"
    return ([f"{where}: checked in the whole page only: {sorted(broad - narrow)[:5]}"] if broad - narrow else []) + \
        ([f"{where}: checked in the narrow context only: {sorted(narrow - broad)[:5]}"] if narrow - broad else []) + \
        ([f"{where}: checked though every look is known: {sorted(unmarked)[:5]}"] if unmarked else []) + \
        ([f"{where}: nothing checked"] if not broad else [])


@pytest.mark.parametrize("path", ["en/", "zh/tensors/gather/", "en/nn/dropout-rate/", "zh/reference/lint/"])
def test_the_narrow_colour_context_checks_what_the_whole_page_does(served, browser_page, path):
    """The tour runs the colour rules on LOOKS's marked elements only, and not at all where no look is
    new. That loses nothing only if LOOKS marks every element axe's colour rules check (text of its
    own, "→" included, form fields, links whose text is in a child): on pages with a search box, code,
    a notebook and tables, in both schemes, both contexts check the same elements, and the whole page,
    its looks known, has none left."""
    page = browser_page
    page.goto(f"{served}/{path}")
    problems = colour_coverage(page)
    toggle_scheme(page)
    problems += colour_coverage(page)
    assert not problems, "\n".join(problems)


def test_the_colour_coverage_check_fails_when_looks_misses_elements(served, browser_page):
    """The check above, given LOOKS as it was before it took every visible character (letters and
    digits only), and given LOOKS without form fields: the pitfall cards' "→" lines, then the search
    box, go unmarked, and it says so."""
    page = browser_page
    page.goto(f"{served}/en/tensors/gather/")
    letters_only = LOOKS.replace("/\\S/u.test(n.data)", "/[\\p{L}\\p{N}]/u.test(n.data)")
    no_fields = LOOKS.replace("el.matches('input:not([type=hidden]), select, textarea')\n    || ", "")
    assert LOOKS != letters_only and LOOKS != no_fields
    problems = colour_coverage(page, letters_only)
    assert any("checked though every look is known" in p and "color-contrast p:" in p for p in problems), problems
    assert any("checked in the whole page only" in p and "color-contrast p:" in p for p in problems), problems
    problems = colour_coverage(page, no_fields)
    assert any("checked though every look is known" in p and "md-search__input" in p for p in problems), problems
    assert any("checked in the whole page only" in p and "md-search__input" in p for p in problems), problems


def test_a_page_whose_document_changes_with_the_scheme_gets_every_rule_in_both(served, browser_page):
    """A button that appears only in the dark scheme (inserted when the scheme changes): the second
    scheme's document differs from the first, so every rule runs there and finds it."""
    page = browser_page
    page.goto(f"{served}/en/tensors/gather/")
    page.evaluate("""() => new MutationObserver(() => {
        if (document.body.dataset.mdColorScheme === 'slate' && !document.getElementById('dark-only'))
          document.querySelector('.md-content h1').insertAdjacentHTML('afterend',
            '<button id=dark-only><svg width=16 height=16></svg></button>');
      }).observe(document.body, {attributes: true, attributeFilter: ['data-md-color-scheme']})""")
    violations, schemes, full = audit_both_schemes(page, "en/tensors/gather/")
    assert full
    found = {(v.rule, element, v.scheme) for v in violations if v.failing for element in v.elements}
    assert ("button-name", "#dark-only", schemes[1]) in found, violations


def test_the_colour_rules_are_axes_default_rules_that_read_colours(browser_page):
    page = browser_page
    page.set_content("<p>text</p>")
    page.evaluate(AXE_SCRIPT)
    rules = page.evaluate("axe.getRules(['cat.color']).filter(r => !r.tags.includes('wcag2aaa')).map(r => r.ruleId)")
    assert sorted(rules) == sorted(COLOUR_RULES)


def write_accessibility(violations: list[Violation], audited: int, full: int) -> None:
    by_rule: dict[tuple[str, str], set[str]] = {}
    for v in violations:
        by_rule.setdefault((v.rule, v.impact), set()).add(f"{v.where} ({v.scheme})")
    lines = ["# Accessibility: axe-core on every page, both colour schemes", "",
             f"{audited} page views checked (each page in the light and the dark scheme). "
             "Serious and critical violations fail the tests; the others are listed here. "
             f"In the second scheme of a page only the colour rules ({', '.join(COLOUR_RULES)}) run while "
             f"its document is the same as in the first; {full} of {audited // 2} pages differed and "
             "ran every rule in both. The colour rules check the looks (colour, font, background) "
             "not audited on an earlier page of the same browser (accessibility.LOOKS).", "",
             "| rule | impact | page views | why it stays |", "|---|---|---|---|"]
    lines += [f"| {rule} | {impact} | {len(views)} | {THEME.get(rule, 'not yet looked at')} |"
              for (rule, impact), views in sorted(by_rule.items())]
    failing = sum(len(views) for (rule, impact), views in by_rule.items() if impact in ("serious", "critical"))
    write_report("accessibility.md", lines, f"accessibility: {audited} page views checked by axe, "
                 f"{failing} with serious or critical violations, {len(by_rule)} rules reported")


def is_notebook(where: str) -> bool:
    """Whether the page ``<lang>/<path>`` was rendered from a notebook (``docs/<lang>/<path>.ipynb``)."""
    lang, _, path = where.partition("/")
    return bool(path.strip("/")) and (ROOT / "docs" / lang / path.strip("/")).with_suffix(".ipynb").is_file()


def write_weights(weights: list[tuple[int, str, list[str]]]) -> None:
    lines = ["# Page weight: bytes each page loads (uncompressed, as on a first visit with an empty cache)", "",
             f"Budget: {PAGE_BUDGET // KIB} KiB per page, home page under {HOME_BUDGET // KIB} KiB, "
             f"notebook pages under {NOTEBOOK_BUDGET // KIB} KiB.", "",
             "| page | KiB | requests |", "|---|---|---|"]
    lines += [f"| {where} | {size / KIB:.0f} | {len(urls)} |" for size, where, urls in sorted(weights, reverse=True)]
    heaviest = max(weights)
    home = {where: size for size, where, _ in weights if where in ("en/", "zh/")}
    write_report("page-weight.md", lines, f"page weight: heaviest {heaviest[1]} {heaviest[0] / KIB:.0f} KiB; "
                 + ", ".join(f"home {w} {s / KIB:.0f} KiB" for w, s in sorted(home.items())))
