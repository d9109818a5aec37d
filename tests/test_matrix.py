"""The version matrix's data (docs/matrix/, fieldnotes.matrix) and what the pages make of it.

The matrix does not run here (it installs other torch builds, GBs each): these tests check the
committed data files' shape, that an entry made from code that has changed since is never
shown, that a page's notes and the changes page are computed from the data, and the
interpreter option the matrix runs pages with.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fieldnotes.blocks import read_blocks
from fieldnotes.matrix import DATA, coverage, PINNED, VERSIONS, code_hash, current, data_file, entry, pages, \
    render_changes, shard
from fieldnotes.render import render_page
from fieldnotes.results import BlockResult, Env, PageRun
from sitebuild import FENCE, ROOT, write_report

STATUSES = {"ok", "error", "needs-gpu", "not-run"}
FILES = sorted((ROOT / DATA).rglob("*.json"))


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(ROOT / DATA).as_posix() for p in FILES])
def test_data_file_schema(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    page = ROOT / "docs" / "en" / data["page"]
    assert page.is_file(), f"{path}: page {data['page']} does not exist"
    assert data_file(ROOT, page) == path
    known = {v.torch for v in VERSIONS}
    assert set(data["versions"]) <= known, f"{path}: versions not in the matrix: {set(data['versions']) - known}"
    for version, e in data["versions"].items():
        assert {"code", "device", "python", "torch", "date", "results"} <= set(e), f"{path} {version}"
        assert e["torch"].split("+")[0] == version, f"{path}: {version} was run on torch {e['torch']}"
        for r in e["results"]:
            assert r["status"] in STATUSES, f"{path} {version}: {r}"
            assert r["status"] != "error" or "error" in r, f"{path} {version}: an error without its message"


def test_coverage_report():
    """How many versions each page's current data covers, in reports/matrix-coverage.md (the
    committed reports/matrix.md is written by ``docs/site.py matrix``, on purpose). Not a gate: a
    contributor's code change makes a page's entries stale until the matrix runs again (the
    page then says so), and the weekly workflow brings them back."""
    lines, summary = coverage(ROOT)
    write_report("matrix-coverage.md", lines, summary)
    rows = [line for line in lines if line.startswith("| ") and not line.startswith("| page")]
    assert rows


PAGE = f"# Demo\n\n## Part {{#part}}\n\n{FENCE}python\nprint(1)\n{FENCE}\n\n{FENCE}python\nprint(2)\n{FENCE}\n"


@pytest.fixture
def demo(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    for lang in ("en", "zh"):
        (tmp_path / "docs" / lang).mkdir(parents=True)
        (tmp_path / "docs" / lang / "demo.md").write_text(PAGE, encoding="utf-8")
    blocks = read_blocks(tmp_path / "docs" / "en" / "demo.md", root=tmp_path)
    env = Env("2.13.0+cpu", "3.11.7", "CPU (x86_64)", False)
    pinned = PageRun(env, [BlockResult("ok", "1\n"), BlockResult("ok", "2\n")])
    old = PageRun(Env("2.4.1+cu121", "3.11.7", "CPU (x86_64)", False),
                  [BlockResult("ok", "1\n"), BlockResult("error", "", error="RuntimeError: not on 2.4")])
    data = {"page": "demo.md", "versions": {"2.4.1": entry(old, pinned, blocks, tmp_path),
                                            PINNED: entry(pinned, pinned, blocks, tmp_path)}}
    path = tmp_path / DATA / "demo.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return tmp_path, blocks, pinned, data


def test_a_page_says_where_else_it_ran_and_what_differs(demo):
    root, blocks, pinned, data = demo
    markdown, slots = render_page(PAGE, blocks, pinned, "en", current(data, blocks, root))
    assert "The same code was also run on torch 2.4.1+cu121, on CPU (x86_64): 1 block(s) behaved differently" \
        in markdown
    assert '??? failure fn-version "On torch 2.4.1+cu121 this block fails"' in markdown
    from fieldnotes.outputs import unindexed

    assert unindexed('<details class="failure fn-version">', "fn-version") == \
        '<details class="failure fn-version" data-search-exclude>'
    assert unindexed('<details class="note">', "fn-version") == '<details class="note">'
    assert any("RuntimeError: not on 2.4" in html for html in slots.html.values())
    changes = render_changes(root, "en")
    assert "## torch 2.4.1" in changes and "[Demo: Part](demo.md#part), block at line 9: fails: " \
                                           "`RuntimeError: not on 2.4`" in changes


def test_an_entry_of_code_that_has_changed_is_never_shown(demo):
    root, blocks, pinned, data = demo
    page = root / "docs" / "en" / "demo.md"
    page.write_text(PAGE.replace("print(2)", "print(3)"), encoding="utf-8")
    (root / "docs" / "zh" / "demo.md").write_text(PAGE.replace("print(2)", "print(3)"), encoding="utf-8")
    changed = read_blocks(page, root=root)
    assert code_hash(changed, root) != code_hash(blocks, root)
    assert current(data, changed, root) == {}
    markdown, slots = render_page(PAGE, changed, pinned, "en", current(data, changed, root))
    assert "2.4.1" not in markdown and "has not been run on other torch versions" in markdown
    assert "2.4.1" not in render_changes(root, "en")


def test_the_changes_page_matches_the_data(tmp_path):
    """Every current entry that fails or differs is listed under its version, in both languages."""
    for lang in ("en", "zh"):
        changes = render_changes(ROOT, lang)
        for path in FILES:
            data = json.loads(path.read_text(encoding="utf-8"))
            page = ROOT / "docs" / lang / data["page"]
            blocks = read_blocks(page, root=ROOT)
            for version, e in current(data, blocks, ROOT).items():
                if version == PINNED:
                    continue
                section = changes.split(f"## torch {version} ")[1].split("\n## ")[0]
                for block, r in zip(blocks, e["results"]):
                    if r["status"] == "error" or "output" in r:
                        assert f"{data['page']}" in section and f" {block.lineno}" in section, \
                            f"{lang}: {data['page']}:{block.lineno} on {version} is not on the changes page"


def test_shards_cover_every_page_once():
    items = list(range(27))
    shares = [shard(items, f"{i}/4") for i in range(1, 5)]
    assert sorted(x for s in shares for x in s) == items
    with pytest.raises(ValueError):
        shard(items, "5/4")


def test_shards_data_merge_into_one_file_per_page(demo, tmp_path_factory):
    root, blocks, pinned, data = demo
    from fieldnotes.matrix import merge

    other = tmp_path_factory.mktemp("shard")
    later = json.loads(json.dumps(data))
    later["versions"] = {"2.14.1": {**data["versions"][PINNED], "torch": "2.14.1", "date": "2099-01-01"}}
    (other / "demo.json").write_text(json.dumps(later), encoding="utf-8")
    assert merge(root, [other]) == 1
    merged = json.loads((root / DATA / "demo.json").read_text(encoding="utf-8"))
    assert list(merged["versions"]) == ["2.4.1", PINNED, "2.14.1"]


def test_the_workflow_runs_every_version_of_the_matrix():
    import yaml

    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "matrix.yml").read_text(encoding="utf-8"))
    assert workflow["jobs"]["run"]["strategy"]["matrix"]["torch"] == [v.torch for v in VERSIONS]


GPU_PAGE = f"# GPU\n\n<!--pytest.mark.gpu-->\n{FENCE}python\nimport torch\nprint(torch.ones(2, device='cuda'))\n{FENCE}\n"


def test_a_gpu_recording_is_shown_labelled_while_the_code_is_unchanged(tmp_path):
    """A recording made here (as ``matrix --record-gpu`` writes one on a CUDA machine): a CPU
    build shows it under its label; once the code changes, the "needs CUDA" label again."""
    from fieldnotes.languages import TEXT
    from fieldnotes.matrix import recording

    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    page = tmp_path / "docs" / "en" / "gpu.md"
    page.parent.mkdir(parents=True)
    page.write_text(GPU_PAGE, encoding="utf-8")
    blocks = read_blocks(page, root=tmp_path)
    data = {"page": "gpu.md", "recordings": {"NVIDIA H200": {
        "code": code_hash(blocks, tmp_path), "device": "NVIDIA H200", "torch": "2.13.0+cu128", "cuda": "12.8",
        "date": "2026-12-01", "results": [{"status": "ok", "output": "tensor([1., 1.], device='cuda:0')\n"}]}}}
    cpu_run = PageRun(Env("2.13.0+cpu", "3.11.7", "CPU (x86_64)", False), [BlockResult("needs-gpu")])
    markdown, slots = render_page(GPU_PAGE, blocks, cpu_run, "en", {}, recording(data, blocks, tmp_path))
    label = TEXT["en"]["recorded"].format(device="NVIDIA H200", torch="2.13.0+cu128", cuda="12.8", date="2026-12-01")
    assert f'!!! note "{label}"' in markdown and TEXT["en"]["gpu"] not in markdown
    assert any("device=&#x27;cuda:0&#x27;" in h or "device='cuda:0'" in h for h in slots.html.values())
    page.write_text(GPU_PAGE.replace("ones(2", "ones(3"), encoding="utf-8")
    changed = read_blocks(page, root=tmp_path)
    assert recording(data, changed, tmp_path) is None
    markdown, _ = render_page(GPU_PAGE, changed, cpu_run, "en", {}, recording(data, changed, tmp_path))
    assert TEXT["en"]["gpu"] in markdown and "Recorded on" not in markdown
