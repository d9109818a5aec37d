"""Notebook pages: only what the page uses of what mkdocs-jupyter inlines, and nothing from another host.

Why: mkdocs-jupyter 0.26.3 renders a notebook with nbconvert's ``lab`` template, which puts into
the page, inline: JupyterLab's whole stylesheet (about 590 KB, nearly all of it for widgets,
file browsers and editors a static page never has; the page weighed about 960 KiB), a module
script that imports Mermaid (and its ELK layouts) from cdnjs.cloudflare.com when the page holds
a diagram, and MathJax's configuration beside a ``<script src="">`` (its URL is empty in this
site's config: math is not rendered). None of it can be switched off: its options choose the
light or dark stylesheet (``theme``), RequireJS (``include_requirejs``, already off) and the
MathJax URL (``custom_mathjax_url``); its template (``mkdocs_html/notebook.html.j2`` in the
package) is fixed. So, once MkDocs has written the page (:func:`on_post_page`), for notebook
pages only:

- the Mermaid loader is removed when the page has no diagram (``.jp-Mermaid``), and MathJax's
  scripts always (nothing loads MathJax on this site);
- the notebook's ``<style>`` blocks become one, in the same order, keeping a rule only when one
  of its selectors matches an element of the page in one of the site's colour schemes
  (:func:`used_css`): the page renders the same, in light and dark, with about 15 KB of the 590;
- a URL of another host left in the notebook's scripts, styles or comments fails the build,
  naming the page: a new mkdocs-jupyter or nbconvert cannot bring a CDN request back unnoticed,
  and a notebook with a Mermaid diagram fails until Mermaid is served by the site itself.

Matching is conservative: a selector is tried without its pseudo-elements and state
pseudo-classes (``:hover``, ``::before`` ...), so a rule that applies on hover is kept; a
selector soupsieve cannot evaluate keeps its rule. It is matched against the page as built:
an element that a script adds later (Material wraps a table in ``.md-typeset__scrollwrap``)
is not seen. Custom properties (``--jp-*``) are kept when a kept rule, the page or one of its
stylesheets uses them, ``@keyframes`` and ``@font-face`` when a kept rule names them. The same
input gives the same output: rebuilds are identical. Cost: about a second per notebook page.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import soupsieve
import tinycss2
from bs4 import BeautifulSoup, Comment, Tag
from mkdocs.exceptions import PluginError

LOCAL_HOSTS = ("127.0.0.1", "localhost")
URL = re.compile(r"""https?://[^\s"'`()<>\\]+""")

STRUCTURAL = frozenset({
    "not", "is", "matches", "any", "where", "has", "root", "empty", "lang", "dir",
    "first-child", "last-child", "only-child", "first-of-type", "last-of-type", "only-of-type",
    "nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type",
})
"""Pseudo-classes that depend only on the document, which soupsieve evaluates as a browser
would. Any other pseudo-class (a state: ``:hover``, ``:checked``) or pseudo-element is left
out of a selector before it is matched."""

VAR = re.compile(r"var\(\s*(--[\w-]+)")


class NotebookError(PluginError):
    """A notebook page would load something from another host; the message names the page."""


@dataclass(frozen=True)
class Scheme:
    """What Material's palette toggle writes on ``<body>``: one per palette of the config."""
    scheme: str
    primary: str
    accent: str


def schemes(config) -> list[Scheme]:
    """The site's colour schemes (light and dark here), as ``<body>`` attributes."""
    palettes = config.theme.get("palette") or [{}]
    if isinstance(palettes, dict):
        palettes = [palettes]
    return [Scheme(str(p.get("scheme", "default")), str(p.get("primary", "indigo")).replace(" ", "-"),
                   str(p.get("accent", "indigo")).replace(" ", "-")) for p in palettes]


def on_post_page(output: str, page, config) -> str:
    if not page.file.src_uri.endswith(".ipynb"):
        return output
    site = Path(config.site_dir)
    folder = posixpath.dirname(page.file.dest_uri)

    def stylesheet(href: str) -> str:
        if urlsplit(href).scheme or href.startswith("/"):
            return ""
        path = site / posixpath.normpath(posixpath.join(folder, urlsplit(href).path))
        return path.read_text(encoding="utf-8") if path.is_file() else ""

    return focusable_code(prune_notebook_page(output, schemes(config), stylesheet, page.file.src_uri))


def focusable_code(html: str) -> str:
    """Each code cell's box, which scrolls sideways when a line is long, can take the keyboard's
    focus (``tabindex="0"``, as Material gives its own code blocks): a reader without a mouse
    can scroll it (WCAG 2.1.1; axe's scrollable-region-focusable)."""
    return html.replace('<div class="highlight-ipynb hl-python">', '<div class="highlight-ipynb hl-python" tabindex="0">')


def prune_notebook_page(html: str, site_schemes: list[Scheme], stylesheet, where: str) -> str:
    """The page ``html`` with the notebook's unused loaders and CSS left out (see the module).

    ``stylesheet(href)`` returns the text of a stylesheet the page links (for the custom
    properties it uses); ``where`` names the page in errors."""
    doc = BeautifulSoup(html, "html.parser")
    article = doc.find("article")
    if article is None:
        return html
    styles = article.find_all("style")
    loaders = [(tag, _unused_loader(tag, doc)) for tag in article.find_all("script")]
    scripts = [tag for tag, kind in loaders if kind]
    removed = {kind for _, kind in loaders if kind}
    comments = [c for c in article.find_all(string=lambda s: isinstance(s, Comment))  # "Load mathjax" ...
                if any(kind in c.lower() for kind in removed)]
    if not styles and not scripts:
        return html
    edits = [(_span(html, tag, "script", where), "") for tag in scripts]
    spans = [_span(html, tag, "style", where) for tag in styles]
    css = "\n".join(tag.string or "" for tag in styles)
    for tag in styles + scripts:  # the page as it will be, for what else uses custom properties
        tag.extract()
    linked = [stylesheet(link["href"]) for link in doc.find_all("link", rel="stylesheet", href=True)]
    used_vars = set(VAR.findall(str(doc))) | {name for text in linked for name in VAR.findall(text)}
    kept = used_css(css, doc, site_schemes, used_vars)
    if spans:
        edits += [(spans[0], f"<style>{kept}</style>")] + [(span, "") for span in spans[1:]]
    taken = [span for span, _ in edits]
    for comment in comments:  # each where the parser saw it, not inside a removed element
        text, start = f"<!--{comment}-->", _offset(html, article)
        while (start := html.find(text, start)) >= 0 and any(a <= start < b for a, b in taken):
            start += 1
        if start >= 0:
            edits.append(((start, start + len(text)), ""))
        comment.extract()
    for (start, end), text in sorted(edits, reverse=True):
        html = html[:start] + text + html[end:]
    _check_hosts(kept, article, where)
    return html


def _unused_loader(script: Tag, doc: BeautifulSoup) -> str | None:
    """What ``script`` loads when this page does not use it ("mathjax", "mermaid"), else None."""
    text = script.string or ""
    if script.get("type") == "text/x-mathjax-config" or script.get("src") == "":
        return "mathjax"  # its URL is empty on this site: nothing renders math
    if ".jp-Mermaid" in text and "import(" in text and doc.select_one(".jp-Mermaid") is None:
        return "mermaid"
    return None


def _offset(html: str, tag: Tag) -> int:
    """Where ``tag`` starts in ``html``, from the line and column the parser saw it at."""
    start = 0
    for _ in range(tag.sourceline - 1):
        start = html.index("\n", start) + 1
    return start + tag.sourcepos


def _span(html: str, tag: Tag, name: str, where: str) -> tuple[int, int]:
    """Where the element ``tag`` (a script or style: raw text, ended by the first ``</name>``)
    is in ``html``."""
    start = _offset(html, tag)
    if not html.startswith(f"<{name}", start):
        raise NotebookError(f"{where}: no <{name}> at line {tag.sourceline}, column {tag.sourcepos}")
    return start, html.index(f"</{name}>", start) + len(f"</{name}>")


def _check_hosts(css: str, article: Tag, where: str) -> None:
    """Fail when what is left of the notebook (its CSS, scripts, comments) names another host."""
    texts = [("style", css)] + [("script", " ".join([tag.string or "", tag.get("src") or ""]))
                                for tag in article.find_all("script")]
    texts += [("comment", str(c)) for c in article.find_all(string=lambda s: isinstance(s, Comment))]
    for kind, text in texts:
        for url in URL.findall(text):
            if urlsplit(url).hostname not in LOCAL_HOSTS and not _namespace(url):
                raise NotebookError(f"{where}: a notebook {kind} names another host: {url} "
                                    "(fieldnotes.notebooks: leave out what loads it)")


def _namespace(url: str) -> bool:
    """An XML namespace name (``xmlns`` in an SVG data URI): an identifier, never fetched."""
    return url.rstrip("'\"%") in ("http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink")


# --- CSS -----------------------------------------------------------------------------------

def used_css(css: str, doc: BeautifulSoup, site_schemes: list[Scheme], used_vars: set[str]) -> str:
    """The rules of ``css`` that apply somewhere in ``doc`` in one of ``site_schemes``,
    serialised; custom properties not in ``used_vars`` (nor used by what is kept) dropped."""
    rules = _keep_rules(tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True),
                        _Matcher(doc, site_schemes))
    declarations = list(_declarations(rules))
    named = " ".join(tinycss2.serialize(d.value) for d in declarations  # animations and fonts used
                     if d.lower_name in ("animation", "animation-name", "font", "font-family"))
    rules = _keep_at_rules(rules, set(re.findall(r"[\w-]+", named)))
    refs = set(used_vars)
    declared: dict[str, list[str]] = {}
    for d in declarations:
        value = tinycss2.serialize(d.value)
        if d.name.startswith("--"):
            declared.setdefault(d.name, []).append(value)
        else:
            refs.update(VAR.findall(value))
    refs.update(VAR.findall("".join(tinycss2.serialize([r]) for r in _at_rules(rules))))
    todo = list(refs)
    while todo:  # a used custom property's value may use others
        for value in declared.get(todo.pop(), []):
            new = set(VAR.findall(value)) - refs
            refs |= new
            todo += new
    return "".join(_serialize(rule, refs) for rule in rules)


GROUPS = ("media", "supports", "layer", "container")
"""At-rules that hold rules: kept with the rules inside them that are kept."""


def _keep_rules(rules: list, matcher: _Matcher) -> list:
    """The qualified rules a selector of which matches (in their groups, as ``(group, rules)``),
    and the other at-rules; ``@charset`` (no effect in a ``<style>``) and ``@import`` left out."""
    kept = []
    for rule in rules:
        if rule.type == "qualified-rule":
            if matcher.any_matches(rule.prelude):
                kept.append(rule)
        elif rule.type != "at-rule" or rule.lower_at_keyword in ("charset", "import"):
            continue
        elif rule.lower_at_keyword in GROUPS and rule.content is not None:
            inner = _keep_rules(tinycss2.parse_blocks_contents(rule.content, skip_comments=True,
                                                               skip_whitespace=True), matcher)
            if inner:
                kept.append((rule, inner))
        else:
            kept.append(rule)
    return kept


def _keep_at_rules(rules: list, names: set[str]) -> list:
    """Without the ``@keyframes`` and ``@font-face`` whose name no kept declaration uses."""
    kept = []
    for rule in rules:
        if isinstance(rule, tuple):
            inner = _keep_at_rules(rule[1], names)
            if inner:
                kept.append((rule[0], inner))
        elif rule.type == "at-rule" and "keyframes" in rule.lower_at_keyword:
            if {t.value for t in rule.prelude if t.type in ("ident", "string")} & names:
                kept.append(rule)
        elif rule.type == "at-rule" and rule.lower_at_keyword == "font-face":
            family = [d for d in _parse(rule.content) if d.type == "declaration" and d.lower_name == "font-family"]
            if family and set(re.findall(r"[\w-]+", tinycss2.serialize(family[0].value))) <= names:
                kept.append(rule)
        else:
            kept.append(rule)
    return kept


def _parse(content: list | None) -> list:
    return tinycss2.parse_blocks_contents(content or [], skip_comments=True, skip_whitespace=True)


def _declarations(rules: list):
    """The declarations of the kept qualified rules."""
    for rule in rules:
        if isinstance(rule, tuple):
            yield from _declarations(rule[1])
        elif rule.type == "qualified-rule":
            yield from (d for d in _parse(rule.content) if d.type == "declaration")


def _at_rules(rules: list):
    """The kept at-rules other than groups (``@keyframes``, ``@font-face`` ...)."""
    for rule in rules:
        if isinstance(rule, tuple):
            yield from _at_rules(rule[1])
        elif rule.type == "at-rule":
            yield rule


def _serialize(rule, refs: set[str]) -> str:
    if isinstance(rule, tuple):
        group, inner = rule
        body = "".join(_serialize(r, refs) for r in inner)
        return f"@{group.at_keyword}{tinycss2.serialize(group.prelude)}{{{body}}}" if body else ""
    if rule.type == "at-rule":
        return tinycss2.serialize([rule])
    body = ";".join(_declaration(d) for d in _parse(rule.content) if d.type != "error"  # a browser drops it too
                    and (d.type != "declaration" or not d.name.startswith("--") or d.name in refs))
    return f"{tinycss2.serialize(rule.prelude).strip()}{{{body}}}" if body else ""


def _declaration(item) -> str:
    if item.type != "declaration":
        return tinycss2.serialize([item])
    important = "!important" if item.important else ""
    return f"{item.name}:{tinycss2.serialize(item.value).strip()}{important}"


class _Matcher:
    """Whether a selector list matches an element of the page, in any colour scheme."""

    SCHEME_ATTRS = ("data-md-color-scheme", "data-md-color-primary", "data-md-color-accent")

    def __init__(self, doc: BeautifulSoup, site_schemes: list[Scheme]):
        self.doc = doc
        self.body = doc.find("body")
        self.schemes = site_schemes
        self.names: set[str] = set()
        self.classes: set[str] = set()
        self.ids: set[str] = set()
        for tag in doc.find_all(True):
            self.names.add(tag.name)
            self.classes.update(tag.get("class", []))
            if tag.get("id"):
                self.ids.add(tag["id"])
        self.cache: dict[str, bool] = {}

    def any_matches(self, prelude: list) -> bool:
        return any(self.matches(selector) for selector in _split(prelude))

    def matches(self, selector: list) -> bool:
        text = _static(selector)
        if text is None:
            return True  # a state pseudo-class inside :is()/:has() ...: cannot tell, kept
        if text not in self.cache:
            self.cache[text] = self._matches(text)
        return self.cache[text]

    def _matches(self, text: str) -> bool:
        if not self._could_match(text):
            return False
        try:
            compiled = soupsieve.compile(text)
        except Exception:  # noqa: BLE001  (soupsieve cannot read it: kept, as a browser might)
            return True
        # Only the palette attributes differ between schemes: other selectors are tried once.
        schemes = self.schemes if self.body is not None and "data-md-color" in text else [None]
        for scheme in schemes:
            if scheme is not None:
                for attr, value in zip(self.SCHEME_ATTRS, (scheme.scheme, scheme.primary, scheme.accent)):
                    self.body[attr] = value
            if compiled.select_one(self.doc) is not None:
                return True
        return False

    def _could_match(self, text: str) -> bool:
        """False when the selector needs an element name, class or id the page does not have
        (cheap, and most of JupyterLab's rules end here). Read outside brackets and functions;
        a selector with an escape is left to soupsieve."""
        if "\\" in text:
            return True
        bare = re.sub(r"\[[^\]]*\]|\([^()]*(?:\([^()]*\)[^()]*)*\)", "", text)
        names = re.findall(r"(?:^|[\s>+~])([a-zA-Z][\w-]*)", bare)
        classes = re.findall(r"\.(-?[_a-zA-Z][\w-]*)", bare)
        ids = re.findall(r"#(-?[_a-zA-Z][\w-]*)", bare)
        return (all(n.lower() in self.names for n in names) and all(c in self.classes for c in classes)
                and all(i in self.ids for i in ids))


def _split(prelude: list) -> list[list]:
    """A selector list's selectors (token lists), split at top-level commas."""
    selectors: list[list] = [[]]
    for token in prelude:
        if token.type == "literal" and token.value == ",":
            selectors.append([])
        else:
            selectors[-1].append(token)
    return [s for s in selectors if any(t.type not in ("whitespace", "comment") for t in s)]


def _static(selector: list) -> str | None:
    """The selector without pseudo-elements and state pseudo-classes (a compound left empty
    becomes ``*``); None when a function such as :is() holds one."""
    out: list[str] = []
    tokens = list(selector)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "literal" and token.value == ":":
            j = i + 1
            if j < len(tokens) and tokens[j].type == "literal" and tokens[j].value == ":":
                j += 1  # ::pseudo-element
            name_token = tokens[j] if j < len(tokens) else None
            name = getattr(name_token, "lower_name", None) or getattr(name_token, "value", "")
            name = str(name).lower()
            if j == i + 1 and name in STRUCTURAL:
                if name_token.type == "function" and name != "not" and _has_state(name_token.arguments):
                    return None
                out.append(tinycss2.serialize(tokens[i:j + 1]))
            elif not out or out[-1] in (" ", ">", "+", "~"):
                out.append("*")  # the pseudo was the whole compound
            i = j + 1
            continue
        if token.type == "whitespace":
            out.append(" ")
        elif token.type == "literal" and token.value in (">", "+", "~"):
            out.append(token.value)
        else:
            out.append(tinycss2.serialize([token]))
        i += 1
    text = "".join(out).strip()
    if not text or text[-1] in ">+~":
        text += "*"
    return text


def _has_state(tokens: list) -> bool:
    """Whether the arguments of :is(), :where(), :has() ... hold a non-structural pseudo."""
    for i, token in enumerate(tokens):
        if token.type == "literal" and token.value == ":" and i + 1 < len(tokens):
            following = tokens[i + 1]
            name = str(getattr(following, "lower_name", None) or getattr(following, "value", "")).lower()
            if name not in STRUCTURAL and name != ":":
                return True
            if following.type == "function" and _has_state(following.arguments):
                return True
    return False
