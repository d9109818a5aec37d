"""The pitfall catalogue (fieldnotes.pitfalls): bad pitfall data fails loudly and says where;
the built index lists every pitfall of the data, each linking to an anchor that exists."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
import yaml

from fieldnotes.blocks import read_blocks
from fieldnotes.languages import LANGS, TEXT
from fieldnotes.pitfalls import TORCH, PitfallError, as_shown, check_proofs, check_twins, code_spans, load, \
    render_index, render_section
from fieldnotes.store import environment
from sitebuild import FENCE, ROOT, make_project, run, soup

GOOD = {"id": "demo-zeros", "apis": ["torch.zeros"], "severity": "low", "gpu": False,
        "proof": ["shown"], "fixed": ["shown"], "symptom": "Zeros are zeros",
        "cause": "Nothing.", "fix": "Check with `torch.zeros(1).item() == 0`."}
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
    ({"verified": ["2.13.0"]}, "remove 'verified': where a pitfall holds is computed"),
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
    ({"id": "shown"}, "its id is also a heading id of the page"),
])
def test_a_pitfall_must_point_at_code_that_ran(tmp_path, changes, message):
    problems = problems_of(tmp_path, changes)
    assert message in problems
    assert re.search(r"demo\.md:\d+: pitfall ", problems), problems


FIX_BODY = BODY + (f"\n## Printed {{#printed}}\n\n{FENCE}python\nprint(torch.ones(1))\n{FENCE}\n"
                   f"\n## Raised {{#raised}}\n\n<!--pytest.mark.raises(RuntimeError)-->\n{FENCE}python\n"
                   f"assert torch.ones(1).item() == 1\nraise RuntimeError('shown')\n{FENCE}\n")


@pytest.mark.parametrize("changes, message", [
    ({"fixed": ["nowhere"]}, "fixed '#nowhere' is not a heading id of this page; closest: "),
    ({"fixed": ["told"]}, "the section '#told' has no executed code block"),
    ({"fixed": ["printed"]}, "no block of '#printed' asserts that the symptom is gone"),
    # a block marked to raise shows the mistake: its assert does not check the fix
    ({"fixed": ["raised"], "fix": "`torch.ones(1).item() == 1`"}, "no block of '#raised' asserts"),
    # the card's code must be the code that ran, not a paraphrase of it or code elsewhere on the page
    ({"fix": "Use `torch.ones(1)`."}, "the fix's code `torch.ones(1)` is in no block of '#shown' that asserts"),
    ({"fix": "Use `torch.zeros(1)` or `torch.zeros(2)`."}, "the fix's code `torch.zeros(2)` is in no block"),
    ({"fix": "Nothing to run."}, "the fix quotes no code: quote the code of '#shown' it applies, or say 'fixed: advice'"),
    ({"fixed": "advice", "fix": "Call `torch.zeros(1).item()`."},
     "the fix quotes code (`torch.zeros(1).item()`) but 'fixed' is 'advice'"),
])
def test_a_fix_on_a_card_is_code_that_ran_and_asserted(tmp_path, changes, message):
    problems = problems_of(tmp_path, changes, FIX_BODY)
    assert message in problems, problems
    line = int(re.search(r"demo\.md:(\d+): pitfall demo-zeros", problems)[1])
    field = "fixed:" if "proof" not in message else "proof:"
    assert (tmp_path / "en" / "demo.md").read_text(encoding="utf-8").splitlines()[line - 1].strip().startswith(field)


@pytest.mark.parametrize("changes", [
    {},  # the fix's code, as the block runs it
    {"fix": "`torch.zeros( 1 ).item()==0`, spaced otherwise"},  # whitespace aside
    {"fixed": "advice", "fix": "Prefer `torch.zeros` to `torch.empty`; see `dim`."},  # names, no code
    {"fixed": "advice", "fix": "Look at the shapes first."},
])
def test_a_fix_that_ran_or_is_advice_passes(tmp_path, changes):
    assert problems_of(tmp_path, changes, FIX_BODY) == ""


@pytest.mark.parametrize("fixed", [[], "", 3, ["shown", 4]])
def test_fixed_must_name_sections_or_say_advice(tmp_path, fixed):
    path = write(tmp_path, page([{**GOOD, "fixed": fixed}]))
    with pytest.raises(PitfallError, match="'fixed' must be the heading ids of the sections whose code applies the fix"):
        load(path, tmp_path / "en")


def test_a_card_links_to_the_code_of_its_fix(tmp_path):
    path = write(tmp_path, page([GOOD, {**GOOD, "id": "demo-advice", "fixed": "advice", "fix": "Look first."}], FIX_BODY))
    section = render_section(load(path, tmp_path / "en"), "en")
    assert f"[{TEXT['en']['proof']}](#shown) · [{TEXT['en']['fixed']}](#shown)" in section
    advice = section[section.index("{#demo-advice}"):]
    assert TEXT["en"]["fixed"] not in advice and f"[{TEXT['en']['proof']}](#shown)" in advice
    two = render_section(load(write(tmp_path, page([{**GOOD, "fixed": ["shown", "printed"]}], FIX_BODY)),
                              tmp_path / "en"), "en")
    fixed = TEXT["en"]["fixed"]
    assert f"[{fixed} 1](#shown) · [{fixed} 2](#printed)" in two, "several sections: numbered links, none alike"


def test_hand_written_pitfalls_section_is_refused(tmp_path):
    assert "remove the hand-written {#pitfalls} section" in problems_of(
        tmp_path, {}, BODY + "\n## Pitfalls {#pitfalls}\n\n- **A bullet.**\n")


def test_translations_must_keep_the_language_neutral_fields(tmp_path):
    en = write(tmp_path, page([GOOD]))
    write(tmp_path, page([{**GOOD, "symptom": "零就是零", "cause": "无。", "fix": "无。"}]), "zh")
    assert check_twins(en, tmp_path / "en", list(LANGS)) == []  # only the words differ
    write(tmp_path, page([{**GOOD, "severity": "high"}]), "zh")
    problems = "\n".join(check_twins(en, tmp_path / "en", list(LANGS)))
    # the field, its value on each side, and its line in each file
    assert re.search(r"en/demo\.md:(\d+): pitfall demo-zeros: 'severity' is 'low' here, 'high' in "
                     r"\S*zh/demo\.md:\1 ", problems), problems
    assert problems.count("\n") == 0, "one line per differing field"
    write(tmp_path, page([GOOD, {**GOOD, "id": "demo-ones"}]), "zh")
    problems = "\n".join(check_twins(en, tmp_path / "en", list(LANGS)))
    assert re.search(r"zh/demo\.md:\d+: pitfall demo-ones is not in \S*en/demo\.md", problems), problems


def test_a_wrong_proof_id_names_the_closest_heading_ids_first(tmp_path):
    problems = problems_of(tmp_path, {"proof": ["shwn"]})
    assert re.search(r"demo\.md:\d+: pitfall demo-zeros: proof '#shwn' is not a heading id of this page; "
                     r"closest: shown(, \S+)*; the others: ", problems), problems
    path = tmp_path / "en" / "demo.md"
    line = int(re.search(r"demo\.md:(\d+):", problems)[1])
    assert path.read_text(encoding="utf-8").splitlines()[line - 1].strip().startswith("proof:"), \
        "the line named is the proof field's own"


def test_an_unreadable_fence_is_reported_once_by_the_build(tmp_path):
    """The execute hook reports a page whose blocks cannot be read; the pitfall check stays quiet
    about it, so the warning is not printed twice."""
    body = BODY.replace(f"{FENCE}python\nimport torch", f"{FENCE}py\nimport torch", 1)
    assert problems_of(tmp_path, {}, body) == ""


@pytest.mark.timeout(600)
def test_bad_pitfall_data_fails_the_strict_build_naming_the_page(tmp_path):
    reused = {**GOOD, "proof": ["told"]}  # the same id on a second page, and a proof without code
    unrun = {**GOOD, "id": "demo-unrun", "fix": "Use `torch.ones(1)`."}  # a fix whose code never ran
    project = make_project(tmp_path, {"demo.md": page([GOOD]), "other.md": page([reused]),
                                      "third.md": page([unrun])})
    status, log, _ = run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs.yml"], project)
    assert status != 0
    assert re.search(r"WARNING.*docs/en/other\.md:\d+: pitfall demo-zeros: the section '#told' has no "
                     r"executed code block", log), log[-3000:]
    assert re.search(r"WARNING.*pitfall id 'demo-zeros' is already used in docs/en/(demo|other)\.md", log), log[-3000:]
    assert re.search(r"WARNING.*docs/en/third\.md:\d+: pitfall demo-unrun: the fix's code `torch\.ones\(1\)` is in no "
                     r"block of '#shown' that asserts", log), log[-3000:]


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


def _words(text: str) -> str:
    """Lowercase words only: what a reader's search matches, without punctuation and code marks."""
    return " ".join(re.findall(r"\w+", text.lower()))


def _messages(symptom: str) -> list[str]:
    """The error messages a symptom quotes: backticked spans of 4+ words (apart at spaces) with 3+
    letters; one identifier (`scaled_dot_product_attention`) is an API's name, not a message."""
    return [_words(s) for s in code_spans(symptom)
            if sum(bool(re.search(r"[A-Za-z]{3,}", w)) for w in s.split()) >= 4]


@pytest.mark.parametrize("lang", LANGS)
def test_one_pitfall_one_place(lang):
    """No two pitfalls share a symptom (issue 11): a reader who looks a symptom up finds one entry,
    whose cause and fix name every cause and link to the sections that show them; other pages
    link to it. Near-duplicates: normalized symptoms with a SequenceMatcher ratio >= 0.7, or the
    same quoted error message (one message's words inside the other's)."""
    from difflib import SequenceMatcher

    entries = [(uri, p.id, _words(p.symptom), _messages(p.symptom))
               for uri, ps in site_pitfalls(lang).items() for p in ps]
    problems = []
    matcher = SequenceMatcher(None)
    for later, (uri_b, id_b, b, msgs_b) in enumerate(entries):
        matcher.set_seq2(b)  # SequenceMatcher indexes its second sequence: once per b, as ratio(a, b) would
        for uri_a, id_a, a, msgs_a in entries[:later]:  # every pair once, a before b as in combinations()
            matcher.set_seq1(a)
            # real_quick_ratio() and quick_ratio() are upper bounds of ratio(): below 0.7, so is ratio()
            ratio = matcher.ratio() if matcher.real_quick_ratio() >= 0.7 and matcher.quick_ratio() >= 0.7 else 0.0
            same = [m for m in msgs_a for n in msgs_b if f" {m} " in f" {n} " or f" {n} " in f" {m} "]
            if ratio >= 0.7 or same:
                why = f"the same message `{same[0]}`" if same else f"similar symptoms (ratio {ratio:.2f})"
                problems.append(f"{uri_a}#{id_a} and {uri_b}#{id_b}: {why}: merge them into one entry, "
                                "and link to it from the other page")
    assert not problems, f"{lang}: near-duplicate pitfalls:\n" + "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_only_what_ran_is_called_verified(tmp_path, lang):
    """A ``gpu: true`` pitfall on a build without CUDA says it was not run, never "verified";
    the index counts only what ran."""
    t = TEXT[lang]
    path = write(tmp_path, page([GOOD, {**GOOD, "id": "demo-gpu", "gpu": True, "proof": ["on-gpu"]}]), lang)
    pitfalls = load(path, tmp_path / lang)
    cpu = render_section(pitfalls, lang, gpu=False)
    gpu_section = cpu.split("{#demo-gpu}")[1]
    assert t["not_run"] in gpu_section and t["verified"] not in gpu_section, cpu
    assert t["verified"] in cpu.split("{#demo-gpu}")[0], "a CPU pitfall that ran is verified"
    assert t["not_run"] not in render_section(pitfalls, lang, gpu=True)
    groups = [("demo", "Demo", [("demo.md", "Demo", pitfalls)])]
    index = render_index(groups, lang, gpu=False, device="CPU (x86_64)")
    assert t["total"].format(total=2, ran=1, torch=environment()["torch"], device="CPU (x86_64)") in index
    assert t["total_gpu"].format(gpu=1) in index and t["not_run"] in index
    assert t["total_gpu"].format(gpu=1) not in render_index(groups, lang, gpu=True, device="NVIDIA H200")


def test_security_is_a_severity_of_its_own(tmp_path):
    assert "severity must be one of" not in problems_of(tmp_path, {"severity": "security"})
    checkpoints = {p.id: p for p in load(ROOT / "docs/en/training/checkpoints.md", ROOT / "docs/en")}
    assert checkpoints["checkpoint-weights-only-false-runs-code"].severity == "security"


def test_where_a_pitfall_holds_is_computed_from_the_runs(tmp_path):
    """The build's torch, plus each matrix version on which every proof block passed; a version
    on which one failed is named; one on which the proof did not run (an earlier block failed)
    is neither."""
    from fieldnotes.pitfalls import holds, proof_blocks

    path = write(tmp_path, page([GOOD]))
    pitfall = load(path, tmp_path / "en")[0]
    blocks = proof_blocks(path.read_text(encoding="utf-8"), read_blocks(path), pitfall)
    assert blocks == [0]
    versions = {"2.4.1": {"results": [{"status": "error"}, {"status": "not-run"}]},
                "2.9.1": {"results": [{"status": "ok"}, {"status": "needs-gpu"}]},
                "2.6.0": {"results": [{"status": "not-run"}, {"status": "not-run"}]},
                "2.8.0": {"results": [{"status": "needs-gpu"}, {"status": "needs-gpu"}]}}
    assert holds(pitfall, blocks, versions) == (["2.9.1", TORCH], ["2.4.1"])
    section = render_section([pitfall], "en", where={pitfall.id: holds(pitfall, blocks, versions)})
    assert f"holds on torch 2.9.1, {TORCH}" in section and "its code fails on torch 2.4.1" in section
