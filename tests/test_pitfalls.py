"""The pitfall catalogue (fieldnotes.pitfalls): bad pitfall data fails loudly and says where;
the built index lists every pitfall of the data, each linking to an anchor that exists."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

from fieldnotes.languages import LANGS
from fieldnotes.pitfalls import TORCH, PitfallError, check_proofs, check_twins, load
from sitebuild import FENCE, ROOT, make_project, run, soup

GOOD = {"id": "demo-zeros", "apis": ["torch.zeros"], "severity": "low", "gpu": False,
        "verified": [TORCH], "proof": ["shown"], "symptom": "Zeros are zeros",
        "cause": "Nothing.", "fix": "Nothing."}
BODY = (f"# Demo\n\n## Shown {{#shown}}\n\n{FENCE}python\nimport torch\nassert torch.zeros(1).item() == 0\n{FENCE}\n\n"
        f"## Told {{#told}}\n\nOnly words here.\n\n"
        f"## On a GPU {{#on-gpu}}\n\n<!--pytest.mark.gpu-->\n{FENCE}python\nprint(torch.zeros(1, device='cuda'))\n{FENCE}\n")


def page(pitfalls: list[dict], body: str = BODY) -> str:
    return "---\n" + yaml.safe_dump({"pitfalls": pitfalls}, allow_unicode=True, sort_keys=False) + "---\n\n" + body


def write(docs: Path, text: str, lang: str = "en", name: str = "demo.md") -> Path:
    path = docs / lang / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(tmp_path: Path, changes: dict, body: str = BODY) -> str:
    path = write(tmp_path, page([{**GOOD, **changes}], body))
    return "\n".join(check_proofs(path, load(path, tmp_path / "en")))


def test_good_data_has_no_problem(tmp_path):
    assert problems_of(tmp_path, {}) == ""


@pytest.mark.parametrize("changes, message", [
    ({"fix": None}, "'fix' must be a non-empty str"),
    ({"severity": "critical"}, "severity must be one of"),
    ({"gpu": "no"}, "'gpu' must be a non-empty bool"),
    ({"id": "Demo Zeros"}, "must be lowercase-words-with-dashes"),
    ({"symptom": "two\nlines"}, "the symptom is one line"),
    ({"colour": "red"}, "unknown fields ['colour']"),
])
def test_malformed_entry_is_refused_with_page_and_line(tmp_path, changes, message):
    path = write(tmp_path, page([{**GOOD, **changes}]))
    with pytest.raises(PitfallError) as error:
        load(path, tmp_path / "en")
    assert message in str(error.value)
    assert re.match(r".*demo\.md:\d+: pitfall 1", str(error.value)), str(error.value)


@pytest.mark.parametrize("changes, message", [
    ({"proof": ["nowhere"]}, "proof '#nowhere' is not a heading id of this page"),
    ({"proof": ["told"]}, "the section '#told' has no executed code block"),
    ({"gpu": True}, "gpu is true but the section '#shown' has no GPU-marked block"),
    ({"proof": ["on-gpu"]}, "gpu is false but no proof section runs code without a GPU"),
    ({"verified": ["1.0.0"]}, f"does not list torch {TORCH}"),
    ({"id": "shown"}, "its id is also a heading id of the page"),
])
def test_a_pitfall_must_point_at_code_that_ran(tmp_path, changes, message):
    problems = problems_of(tmp_path, changes)
    assert message in problems
    assert re.search(r"demo\.md:\d+: pitfall ", problems), problems


def test_hand_written_pitfalls_section_is_refused(tmp_path):
    assert "remove the hand-written {#pitfalls} section" in problems_of(
        tmp_path, {}, BODY + "\n## Pitfalls {#pitfalls}\n\n- **A bullet.**\n")


def test_translations_must_keep_the_language_neutral_fields(tmp_path):
    en = write(tmp_path, page([GOOD]))
    write(tmp_path, page([{**GOOD, "symptom": "零就是零", "cause": "无。", "fix": "无。"}]), "zh")
    assert check_twins(en, tmp_path / "en", list(LANGS)) == []  # only the words differ
    write(tmp_path, page([{**GOOD, "severity": "high"}]), "zh")
    problems = "\n".join(check_twins(en, tmp_path / "en", list(LANGS)))
    assert "pitfalls differ from" in problems and "'severity': \"'high'\"" in problems, problems


@pytest.mark.timeout(600)
def test_bad_pitfall_data_fails_the_strict_build_naming_the_page(tmp_path):
    reused = {**GOOD, "proof": ["told"]}  # the same id on a second page, and a proof without code
    project = make_project(tmp_path, {"demo.md": page([GOOD]), "other.md": page([reused])})
    status, log, _ = run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml"], project)
    assert status != 0
    assert re.search(r"WARNING.*docs/en/other\.md:\d+: pitfall demo-zeros: the section '#told' has no "
                     r"executed code block", log), log[-3000:]
    assert re.search(r"WARNING.*pitfall id 'demo-zeros' is already used in docs/en/(demo|other)\.md", log), log[-3000:]


# --- the real site ---------------------------------------------------------------------------

def site_pitfalls(lang: str) -> dict[str, list]:
    """src path -> the page's pitfalls, read from the data as the build reads it."""
    docs = ROOT / "docs" / lang
    return {p.relative_to(docs).as_posix(): ps for p in sorted(docs.rglob("*.md")) if (ps := load(p, docs))}


def test_the_site_has_at_least_40_pitfalls_each_shown_by_code():
    for lang in LANGS:
        found = site_pitfalls(lang)
        assert sum(len(ps) for ps in found.values()) >= 40, lang
        docs = ROOT / "docs" / lang
        problems = [pr for uri in found for pr in check_proofs(docs / uri, found[uri])]
        assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_index_lists_every_pitfall_and_links_to_its_anchor(built_site, lang):
    site = built_site.path / lang
    index = soup(site / "pitfalls" / "index.html")
    links = [a["href"] for a in index.select("article table td:first-child a")]
    expected = [f"{uri.removesuffix('.md')}/#{p.id}" for uri, ps in site_pitfalls(lang).items() for p in ps]
    assert sorted(links) == sorted(f"../{e}" for e in expected)
    for href in links:
        target, anchor = href.removeprefix("../").split("#")
        html = soup(site / target / "index.html")
        heading = html.find(id=anchor)
        assert heading is not None and heading.name == "h3", href
        assert html.select(".md-tags .md-tag"), f"{target}: no tags"
