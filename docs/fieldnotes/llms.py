"""``llms.txt`` at each language's root: every page, in the nav's order and sections, with a
one-line summary, for AI assistants and other tools (the format of https://llmstxt.org).

Why here, and not mkdocs-llmstxt (read: 0.5.1): its sections and every page's summary are typed
in ``mkdocs.yml``, once per language (``mkdocs.zh.yml`` would repeat the plugin's whole
configuration), a second copy of the nav and of each page's opening that drifts from both; and
it adds four packages (markdownify, mdformat, mdformat-tables and their own). Here the sections
are the nav's, and a page's summary is the opening of its first paragraph, the sentence a reader
sees under the title, so a page edit is all there is to keep up. No ``llms-full.txt``: the pages'
text is about 0.9 MB per language; a tool that wants a page's code takes its script (linked
from each entry), and the pitfalls come as data (``pitfalls.json``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from fieldnotes import downloads, languages

SUMMARY_MIN = 80  # width (see _sentences): the summary is the opening paragraph's first sentences up to this
SUMMARY_MAX = 320


@dataclass(frozen=True)
class Entry:
    title: str
    url: str  # absolute
    summary: str
    script: str | None  # absolute URL of the page's script, if it has code


def summary(path: Path) -> str:
    """The opening of a page's first paragraph under its title, as plain text on one line."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = re.sub(r"\A---\n.*?\n---\n", "", path.read_text(encoding="utf-8"), flags=re.S)
    paragraph: list[str] = []
    seen_title = False
    for line in text.splitlines():
        if line.startswith("# "):
            seen_title = True
            continue
        if not seen_title:
            continue
        if not line.strip():
            if paragraph:
                break
            continue
        if not paragraph and (line.lstrip().startswith(("|", "!!!", "???", "```", "<", "#", ">")) or
                              line.startswith(("    ", "\t")) or  # an admonition's body
                              re.match(r"\s*(?:[-*+]|\d+\.)\s", line)):
            continue  # a table, an admonition, a fence, HTML, a heading or a list: not the opening
        paragraph.append(line.strip())
    plain = _plain(" ".join(paragraph))
    return _sentences(plain)


def _plain(markdown: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)  # links: their text
    text = re.sub(r"\*\*?([^*]+)\*\*?", r"\1", text)  # emphasis
    text = re.sub(r"\{[^}]*\}", "", text)  # attribute lists
    return re.sub(r"(?<=[\u3000-\u9fff\uff00-\uffef]) (?=[\u3000-\u9fff\uff00-\uffef])", "", " ".join(text.split()))


def _sentences(text: str) -> str:
    """Whole sentences from the start, at least SUMMARY_MIN wide when there are that many (a
    Chinese character counts two: it says about what two Latin letters do, and shows as wide)."""
    ends = [m.end() for m in re.finditer(r"(?<=[.!?])\s+(?=[A-Z`(\"])|(?<=[。！？])", text)]
    for end in ends:
        if _width(text[:end]) >= SUMMARY_MIN:
            return text[:end].strip() if _width(text[:end]) <= SUMMARY_MAX else _cut(text)
    return text if _width(text) <= SUMMARY_MAX else _cut(text)


def _width(text: str) -> int:
    return sum(2 if ord(c) >= 0x2E80 else 1 for c in text)


def _cut(text: str) -> str:
    while _width(text) > SUMMARY_MAX - 1:
        text = text[:-1]
    space = text.rfind(" ")
    return (text[:space] if space > len(text) - 20 else text).rstrip(" ,;:") + "…"  # at a word's end


def render(site_name: str, description: str, sections: list[tuple[str, list[Entry]]], lang: str,
           root: str) -> str:
    """llms.txt: title, description, what the site is, then one list per section."""
    t = languages.text(lang)["llms"]
    other = re.sub(rf"/{lang}/$", f"/{t['other']}/", root)
    lines = [f"# {site_name}", "", f"> {description}", "", t["about"].format(root=root, other=other), ""]
    for title, entries in sections:
        lines += [f"## {title}", ""]
        for e in entries:
            extra = f" ([{t['script']}]({e.script}))" if e.script else ""
            lines.append(f"- [{e.title}]({e.url}): {e.summary}{extra}" if e.summary else f"- [{e.title}]({e.url}){extra}")
        lines.append("")
    return "\n".join(lines)


# --- MkDocs events (docs/hooks/llms.py) ------------------------------------------------------

_nav: list = []


def on_nav(nav, config, files):
    _nav[:] = nav.items
    return nav


def on_post_build(config):
    lang = config.theme["language"]
    root = config.site_url or "/"
    site = Path(config.site_dir)

    def entry(page) -> Entry:
        src = Path(config.docs_dir) / page.file.src_uri
        name = downloads.names(page.file.src_uri)
        folder = Path(page.file.dest_uri).parent
        script = site / folder / f"{name}.py"
        script_url = root + (folder / f"{name}.py").as_posix() if script.is_file() else None
        return Entry(page.title or page.file.src_uri, root + page.url, summary(src), script_url)

    sections: list[tuple[str, list[Entry]]] = []
    loose = [entry(item) for item in _nav if item.is_page]
    if loose:
        sections.append((languages.text(lang)["llms"]["start"], loose))
    for item in _nav:
        if item.is_section:
            sections.append((item.title, [entry(c) for c in _pages(item)]))
    text = render(config.site_name, config.site_description or "", sections, lang, root)
    (site / "llms.txt").write_text(text, encoding="utf-8")


def _pages(section) -> list:
    found = []
    for child in section.children:
        found += [child] if child.is_page else _pages(child) if child.is_section else []
    return found
