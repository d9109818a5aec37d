"""Outputs are data (fieldnotes.outputs): whatever a block prints reaches the HTML as literal text.

For every Markdown extension the site enables (read from mkdocs.yml, so a new one without a case
here fails), an output that would trigger it. Each case is first written as page prose, where the
extension must act on it (the trigger is real), then printed by a block, where the page must
show it as it was printed: the same HTML as a page whose block printed a harmless word, with the
text in the ``<samp>``.
"""

from __future__ import annotations

import html as htmllib
import re
from pathlib import Path

import markdown
import pytest
from bs4 import BeautifulSoup
from mkdocs.utils.yaml import get_yaml_loader, yaml_load

from fieldnotes.blocks import Block
from fieldnotes.outputs import SlotError, Slots, figure_html, output_html, printable
from fieldnotes.render import render_page
from fieldnotes.results import BlockResult, Env, PageRun

ROOT = Path(__file__).resolve().parents[1]
PAGE = "# Page\n\n```python\nprint(x)\n```\n\nAfter.\n"
BLOCK = Block("docs/en/page.md", 3, 5, "", "python", "print(x)\n", ["docs/en/page.md:4"])
ENV = Env("2.13.0", "3.11.7", "CPU (x86_64)", False)

# extension -> (an output that would trigger it, what the extension makes of it as prose)
TRIGGERS = {
    "toc": ("[TOC]\n\n## Heading {#h}", 'class="toc"'),
    "admonition": ('!!! danger "Injected"\n    body', 'class="admonition danger"'),
    "attr_list": ("A paragraph\n{: #hijack .evil onclick=\"alert(1)\" }", 'id="hijack"'),
    "md_in_html": ('<div markdown="1">**bold**</div>', "<strong>bold</strong>"),
    "tables": ("| a | b |\n|---|---|\n| 1 | 2 |", "<table>"),
    "footnotes": ("text[^1]\n\n[^1]: a footnote", 'class="footnote"'),
    "pymdownx.details": ('??? note "Hidden"\n    body', "<details"),
    "pymdownx.superfences": ("```python\nimport os\n```", 'class="language-python highlight"'),
    "pymdownx.highlight": ("```python hl_lines=\"1\"\nimport os\n```", 'class="hll"'),
    "pymdownx.inlinehilite": ("`#!python import os`", '<span class="kn">import</span>'),
    "pymdownx.tabbed": ('=== "Tab"\n\n    inside', 'class="tabbed-set'),
    "pymdownx.snippets": ('--8<-- "mkdocs.yml"', "site_name: PyTorch Field Notes"),
}
# syntax of Markdown itself, of MkDocs and of extensions a page might add later
OTHER = {
    "raw-html": "<script>alert(1)</script><img src=x onerror=alert(1)>",
    "html-comment": "<!-- hidden --> <!--pytest.mark.gpu-->",
    "jinja": "{{ config.site_name }} {% include 'x' %} {# c #}",
    "emoji": ":smile: :material-github:",
    "abbreviation": "*[HTML]: Hyper Text Markup Language\nHTML",
    "snippet-outside": '--8<-- "/etc/passwd"\n;--8<-- "../../etc/passwd"',
    "links": "[a](javascript:alert(1)) <http://example.com> ![i](x.png)",
    "emphasis": "**bold** _it_ `code` \\*escaped\\* &amp; &lt;b&gt;",
    "fence-breaker": "````\n```\n</samp></pre></div><h1>out</h1>",
    "control": "bell\x07 escape\x1b[31m nul\x00 del\x7f cr\r\nbare\rreturn",
}


def site_extensions() -> dict[str, dict]:
    """The Markdown extensions mkdocs.yml enables, each with its options."""
    with open(ROOT / "mkdocs.yml", "rb") as f:
        config = yaml_load(f, get_yaml_loader())
    extensions = {}
    for ext in config["markdown_extensions"]:
        name, options = next(iter(ext.items())) if isinstance(ext, dict) else (ext, {})
        extensions[name] = dict(options or {})
    return extensions


def site_markdown() -> markdown.Markdown:
    """Python-Markdown with the site's extensions and options (snippets' base path made
    absolute, so that a real include would work here)."""
    configs = site_extensions()
    configs["pymdownx.snippets"]["base_path"] = [str(ROOT)]
    return markdown.Markdown(extensions=list(configs), extension_configs=configs)


def page_html(output: str) -> tuple[str, str]:
    """The page's HTML when its block printed ``output``, and the same page's HTML when it
    printed a placeholder word instead (with that word put back as the escaped output)."""
    def build(printed: str) -> str:
        run = PageRun(ENV, [BlockResult("ok", printed + "\n")])
        source, slots = render_page(PAGE, [BLOCK], run, "en")
        return slots.fill(site_markdown().convert(source))

    shown = htmllib.escape(printable(output), quote=False)
    return build(output), build("PLACEHOLDER").replace("PLACEHOLDER", shown)


def test_every_enabled_extension_has_a_trigger_case():
    assert set(site_extensions()) == set(TRIGGERS), "add an output that would trigger each new extension"


@pytest.mark.parametrize("extension", sorted(TRIGGERS))
def test_the_trigger_is_real_in_page_prose(extension):
    output, made = TRIGGERS[extension]
    assert made in site_markdown().convert(output), f"{extension} did not act on {output!r} as prose"


@pytest.mark.parametrize("case", sorted(TRIGGERS) + sorted(OTHER))
def test_an_output_is_shown_as_printed(case):
    output = TRIGGERS[case][0] if case in TRIGGERS else OTHER[case]
    got, expected = page_html(output)
    assert got == expected
    samp = BeautifulSoup(got, "html.parser").find("samp")
    assert samp.get_text() == printable(output) + "\n"
    assert "fnslot" not in got


def test_control_characters_become_visible_symbols():
    assert printable("a\x07b\x1bc\x00d\x7f\r\ne\rf") == "a\u2407b\u241bc\u2400d\u2421\ne\nf"


def test_a_failure_and_a_figure_are_html_of_their_own():
    run = PageRun(ENV, [BlockResult("error", '--8<-- "mkdocs.yml"\n', error="ValueError: <b>", line=1)])
    source, slots = render_page(PAGE, [BLOCK], run, "en")
    html = slots.fill(site_markdown().convert(source))
    assert 'class="admonition failure"' in html and "site_name" not in html
    assert "docs/en/page.md:4: ValueError: &lt;b&gt;" in html
    assert figure_html("iVBORw0K", "Figure") == \
        '<p><img alt="Figure" class="fn-figure" src="data:image/png;base64,iVBORw0K" /></p>'
    with pytest.raises(ValueError):
        figure_html('x" onerror="alert(1)', "Figure")


def test_a_slot_that_markdown_lost_fails_naming_the_block():
    slots = Slots()
    word = slots.add(output_html("x", "Output"), "docs/en/page.md:3")
    assert slots.fill(f"<p>{word}</p>") == output_html("x", "Output")
    assert slots.fill(f"<li>{word}</li>") == f"<li>{output_html('x', 'Output')}</li>"
    with pytest.raises(SlotError, match=r"^docs/en/page\.md:3: the output of this block has no place"):
        slots.fill("<p>the page lost it</p>")


def test_a_slot_cannot_be_forged_by_an_output_or_a_page():
    got, _ = page_html("fnslot0000000000000000n0")
    assert got.count("fnslot0000000000000000n0") == 1  # shown, not replaced
    assert re.fullmatch(r"fnslot[0-9a-f]{16}n0", Slots().add("x", "p:1"))
