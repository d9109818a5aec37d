"""axe-core on a loaded page, in the colour scheme it shows and in the other one.

axe (bundled by ``axe-playwright-python``, which pins its version) is injected into the page and
run with its default rules (WCAG 2.0-2.2 A/AA and best practices). What fails the tests: a
``serious`` or ``critical`` violation. Nothing is turned off; ``THEME`` records, with the reason,
what the theme itself does that axe reports at a lower impact and the site leaves as is.

Why code tokens are sampled: axe's colour-contrast rule checks every element with text, and a
page's code blocks hold thousands of Pygments token spans (4,800 on the ``torch.nn.init`` page),
which made one run take 9 s on that page. Two spans with the same computed colour, font and
background have the same contrast, so the code blocks whose tokens are spans are excluded and,
inside them, the first span of each (token class, colour, weight, style, size, background behind
it: the class too, so the other scheme, audited after the unwrapping below, keeps one of each) is
included again (axe's nested include); the other token spans are then unwrapped to their text,
after the page's screenshot, since every axe rule walks the whole tree (6,500 elements -> 1,800 on
that page). Output blocks (plain text, no spans) and inline code are checked whole. The same page
then takes 2-3 s; a changed colour on any one token still fails, because that token's colour makes
it a sample of its own (``test_accessibility_check_fails_...`` in ``test_browser.py``).

The same holds for text elements a page repeats in one look: inline code (389 on the ``scatter_``
page), the navigation's entries, output titles. Of each look (tag, class, colour, font, decoration,
opacity, shadow, background behind it), the first is audited and the others are excluded; the marks
are made anew in each scheme, so two elements alike in one scheme and not in the other are both
audited in the other. They hold no roles, names or states of their own for other rules to check.

Since ``fieldnotes.highlight`` leaves names and punctuation as the code element's own text, most
blocks have words outside token spans. Those blocks were once checked whole (every token span: 600
of the 1,274 elements colour-contrast checked on the ``scatter_`` page); now the code element stays
in, for its own text in its own colour, and its token spans are sampled and unwrapped like the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from axe_playwright_python.base import AXE_SCRIPT

FAILING_IMPACTS = ("serious", "critical")

THEME = {
    "landmark-unique": "moderate: Material 9.8 puts each code block's copy button in an unlabelled "
                       "<nav class='md-code__nav'>, so a page has several nav landmarks of the same name",
}
"""Violations below FAILING_IMPACTS that come from the theme, left with the reason (reported, not failing)."""

SAMPLE_CODE = r"""() => {
  // Colours at their final values: a CSS transition still running (Material fades colours, on a
  // hover or a scheme switch) shows axe and the sampling an in-between colour for a moment.
  if (!document.getElementById('axe-still')) {
    const still = document.createElement('style');
    still.id = 'axe-still';
    still.textContent = '*, *::before, *::after { transition: none !important; animation: none !important }';
    document.head.appendChild(still);
  }
  const opaque = el => {
    for (; el; el = el.parentElement) {
      const bg = getComputedStyle(el).backgroundColor;
      if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') return bg;
    }
    return 'none';
  };
  const seen = new Set();
  for (const code of document.querySelectorAll('.highlight pre > code')) {
    const own = [...code.childNodes].filter(n => n.nodeType === Node.TEXT_NODE).map(n => n.data).join('');
    // Words outside token spans (fieldnotes.highlight leaves names as plain text): the code element
    // stays in, for that text in the code's own colour; otherwise it is left out and only its samples count.
    if (!/[\p{L}\p{N}]/u.test(own)) code.setAttribute('data-axe-tokens', '');
    for (const span of code.querySelectorAll('span')) {
      if (!/[\p{L}\p{N}]/u.test(span.textContent)) continue;  // axe skips punctuation-only text
      if (!span.checkVisibility()) continue;  // nor hidden text (a closed details): no sample there
      const s = getComputedStyle(span);
      const key = [span.className, s.color, s.fontWeight, s.fontStyle, s.fontSize, s.textDecorationLine, opaque(span)].join('|');
      if (!seen.has(key)) { seen.add(key); span.setAttribute('data-axe-sample', ''); }
    }
    for (const span of [...code.querySelectorAll('span:not([data-axe-sample])')])
      if (!span.querySelector('[data-axe-sample]')) span.replaceWith(...span.childNodes);
  }
  // Repeated text elements (inline code, the nav's entries, output titles): in this scheme, the first
  // of each look stays in, the others are left out; marked anew at each call (each scheme).
  const looks = new Set();
  for (const el of document.querySelectorAll(':not(pre) > code, .md-nav .md-ellipsis, .highlight .filename')) {
    el.removeAttribute('data-axe-same');
    if (el.children.length || !/[\p{L}\p{N}]/u.test(el.textContent)) continue;  // text only
    if (!el.checkVisibility()) continue;  // hidden (a collapsed nav section): axe skips it anyway
    const s = getComputedStyle(el);
    const key = [el.tagName, el.className, s.color, s.fontWeight, s.fontStyle, s.fontSize, s.textDecorationLine,
                 s.opacity, s.textShadow, opaque(el)].join('|');
    if (looks.has(key)) el.setAttribute('data-axe-same', ''); else looks.add(key);
  }
}"""

CONTEXT = {"include": [["html"], ["[data-axe-sample]"]], "exclude": [["[data-axe-tokens]"], ["[data-axe-same]"]]}

LOOKS = r"""(known) => {
  // Every visible element with text of its own (letters or digits), by its look: what decides its
  // contrast (its colour, font, decoration, opacity with its ancestors', shadow, the first opaque
  // background behind it and any background image on the way) and whether a link stands out from
  // the text around it (the parent's colour). A look audited on an earlier page of this browser is
  // marked known and left out of the colour rules; a new one is marked and audited. Marked anew at
  // each call (each scheme); returns the looks seen so far and how many elements were new / known.
  const looks = new Set(known);
  const behind = el => {
    const images = [];
    for (; el; el = el.parentElement) {
      const s = getComputedStyle(el);
      if (s.backgroundImage !== 'none') images.push(s.backgroundImage);
      if (s.backgroundColor !== 'rgba(0, 0, 0, 0)' && s.backgroundColor !== 'transparent')
        return s.backgroundColor + images.join(',');
    }
    return 'none' + images.join(',');
  };
  const alpha = el => { let a = 1; for (; el; el = el.parentElement) a *= +getComputedStyle(el).opacity; return a; };
  // What the colour rules check: an element with text of its own (any visible character: axe's
  // color-contrast checks "→" too), a form field, a link with text (link-in-text-block reads the
  // link, whose text may sit in a child <code>).
  const checked = el => el.matches('input:not([type=hidden]), select, textarea')
    || [...el.childNodes].some(n => n.nodeType === Node.TEXT_NODE && /\S/u.test(n.data))
    || (el.matches('a[href], [role=link]') && /\S/u.test(el.innerText));
  let fresh = 0, skipped = 0;
  for (const el of document.body.querySelectorAll('*')) {
    el.removeAttribute('data-axe-known');
    el.removeAttribute('data-axe-look');
    if (!checked(el)) continue;
    // left to the sampling above: a code element whose words were all in token spans, and repeats
    if (el.matches('[data-axe-tokens], [data-axe-same]') || !el.checkVisibility()) continue;
    const s = getComputedStyle(el);
    const key = [el.tagName, el.className, el.type || '', s.color, s.fontWeight, s.fontStyle, s.fontSize,
                 s.textDecorationLine, s.textDecorationColor, s.textShadow, alpha(el), behind(el),
                 el.matches('input, textarea') ? getComputedStyle(el, '::placeholder').color : '',
                 el.parentElement ? getComputedStyle(el.parentElement).color : ''].join('|');
    if (looks.has(key)) { el.setAttribute('data-axe-known', ''); skipped++; }
    else { looks.add(key); el.setAttribute('data-axe-look', ''); fresh++; }
  }
  return [[...looks], fresh, skipped];
}"""
"""Why the colour rules skip looks audited on an earlier page: color-contrast was two thirds of a
page's axe time (2-3 s a run, in each scheme), and a site's pages repeat the same few dozen looks
(prose, headings, the navigation, inline code, each token class, outputs, cards): two elements of
one look have one contrast, as the sampling above already holds inside a page. Each browser of the
tour keeps the looks it audited; a page's colour rules then check its new looks only (an element
of a new look inside one of a known look is still checked: axe's nested include). A colour that
changes on any one element makes a new look, audited (``test_browser``'s planted page)."""

COLOUR_CONTEXT = {"include": [["[data-axe-look]"]],
                  "exclude": [["[data-axe-tokens]"], ["[data-axe-same]"], ["[data-axe-known]"]]}
"""The colour rules' context: the elements of looks new to this browser, and nothing else. axe runs a
rule's matcher on every element of its context (color-contrast's reads each element's style and
layout: 0.4 s a run on a page of 1,900 elements even when it then checks 15), so the context holds
only what LOOKS marks: every element the colour rules check (``BROAD_COLOUR_CONTEXT`` checks the
same elements, ``test_browser``), less the looks already audited. A page with no new look in a
scheme runs no colour rule there."""

BROAD_COLOUR_CONTEXT = {"include": [["html"], *COLOUR_CONTEXT["include"]], "exclude": COLOUR_CONTEXT["exclude"]}
"""The whole page less the sampled-out elements (the colour rules' context before the narrowing): where
no look is known yet, the colour rules check the same elements in it as in ``COLOUR_CONTEXT``."""

COLOUR_RULES = ("color-contrast", "link-in-text-block")
"""The rules among axe's defaults whose verdict depends on colours (its ``cat.color`` rules less the
AAA one, which is off by default; ``test_browser`` checks the list against the bundled axe). In the
second scheme of a page only these run, when the page's elements, attributes and text are what they
were in the first (``STRUCTURE``): every other rule reads the same document and would say the same.
Where the document differs, every rule runs again."""

STRUCTURE = r"""() => {
  // A fingerprint of the page's document apart from what a scheme switch must change: the colour
  // attributes on <body>, the palette toggle's own form, and the marks of the sampling above.
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll('form[data-md-component=palette]').forEach(e => e.remove());
  for (const name of ['data-md-color-scheme', 'data-md-color-primary', 'data-md-color-accent', 'data-md-color-media'])
    copy.removeAttribute(name);
  const marks = ['data-axe-sample', 'data-axe-same', 'data-axe-tokens', 'data-axe-known', 'data-axe-look'];
  for (const e of copy.querySelectorAll(marks.map(m => `[${m}]`).join(', ')))
    for (const name of marks) e.removeAttribute(name);
  // Material's schemes set colours only, apart from images marked #only-light / #only-dark, which
  // one scheme hides: what each image shows counts too.
  const shown = [...document.images].map(img => img.checkVisibility() ? 1 : 0).join('');
  const html = copy.outerHTML + shown;
  let hash = 2166136261;  // FNV-1a over the UTF-16 code units
  for (let i = 0; i < html.length; i++) hash = Math.imul(hash ^ html.charCodeAt(i), 16777619) >>> 0;
  return `${html.length}:${hash}`;
}"""


def scheme(page) -> str:
    """The colour scheme the page shows (Material's ``data-md-color-scheme``)."""
    return page.evaluate("document.body.getAttribute('data-md-color-scheme')")


@dataclass(frozen=True)
class Violation:
    where: str
    scheme: str
    rule: str
    impact: str
    elements: tuple[str, ...]
    summary: str

    @property
    def failing(self) -> bool:
        return self.impact in FAILING_IMPACTS

    def __str__(self) -> str:
        shown = ", ".join(self.elements[:5]) + (f" and {len(self.elements) - 5} more" if len(self.elements) > 5 else "")
        return f"{self.where} ({self.scheme}): {self.rule} ({self.impact}) on {shown}: {self.summary}"


def audit(page, where: str, colour_only: bool = False, looks: set[str] | None = None) -> list[Violation]:
    """axe on ``page`` as it is now (its default rules, or only COLOUR_RULES): every violation, at any
    impact, naming the page, the colour scheme, the rule, the elements and axe's summary of what to fix.
    The colour rules check only the looks not in ``looks`` (the looks this browser audited on earlier
    pages; updated here); without ``looks``, every look of the page."""
    page.evaluate(SAMPLE_CODE)
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    runs = [] if colour_only else [(CONTEXT, {"rules": {rule: {"enabled": False} for rule in COLOUR_RULES}})]
    seen, fresh, _ = page.evaluate(LOOKS, sorted(looks or ()))
    if looks is not None:
        looks.update(seen)
    if fresh:  # otherwise COLOUR_CONTEXT holds no element (and axe refuses an empty context)
        runs.append((COLOUR_CONTEXT, {"runOnly": {"type": "rule", "values": list(COLOUR_RULES)}}))
    found = []
    for context, options in runs:
        result = page.evaluate("([context, options]) => axe.run(context, options)",
                               [context, {"resultTypes": ["violations"], **options}])
        found += result["violations"]
    shown = scheme(page)
    return [Violation(where, shown, v["id"], v["impact"] or "unknown",
                      tuple(" ".join(map(str, n["target"])) for n in v["nodes"]),
                      " ".join(v["nodes"][0].get("failureSummary", "").split())[:300] if v["nodes"] else v["help"])
            for v in found]


def toggle_scheme(page) -> str:
    """Click the header's light/dark toggle, as a reader does; the scheme now shown. Material
    stores the choice, so the next page this browser context loads comes in that scheme."""
    before = scheme(page)
    page.click("form[data-md-component=palette] label.md-header__button:not([hidden])")
    page.wait_for_function("s => document.body.getAttribute('data-md-color-scheme') !== s", arg=before)
    return scheme(page)


def audit_both_schemes(page, where: str, looks: set[str] | None = None) -> tuple[list[Violation], list[str], bool]:
    """axe in the scheme the page loaded in, then in the other: (violations, schemes audited, whether
    every rule ran in the other too). In the other scheme only COLOUR_RULES run while the document
    is the same as in the first (STRUCTURE, after the same sampling); every rule runs otherwise.
    ``looks``: see :func:`audit`."""
    first = audit(page, where, looks=looks)
    shape, before = page.evaluate(STRUCTURE), scheme(page)
    toggle_scheme(page)
    page.evaluate(SAMPLE_CODE)
    full = page.evaluate(STRUCTURE) != shape
    return first + audit(page, where, colour_only=not full, looks=looks), [before, scheme(page)], full
