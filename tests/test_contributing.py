"""The contributor's commands: ``docs/site.py new``, ``check`` and ``sync`` (fieldnotes.scaffold,
fieldnotes.check, fieldnotes.sync), on throwaway projects with a real nav.

Each check must fail on a contributor's real mistakes, naming file and line; ``new`` must give
a page that passes ``check`` as created; ``sync`` must make the translation pass parity while
keeping every line of its prose.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fieldnotes import check, nav, parity, scaffold, sync
from fieldnotes.pitfalls import check_twins
from fieldnotes.progress import Console
from sitebuild import FENCE, ROOT

NAV = {"en": "nav:\n  - Home: index.md\n  - Layers:\n      - Dropout: nn/dropout.md\n",
       "zh": "nav:\n  - 首页: index.md\n  - 网络层:\n      - Dropout: nn/dropout.md\n"}

PITFALL = """  - id: demo-eval
    apis: [F.dropout]
    severity: high
    gpu: false
    proof: [eval]
    fixed: advice
    symptom: "{symptom}"
    cause: "{cause}"
    fix: "{fix}"
"""

PAGE = """---
pitfalls:
{pitfall}---

# Dropout

{intro}

## In eval {{#eval}}

{prose}

```python
import torch
x = torch.ones(4)
print(x.sum())
```

{more}

```python
assert x.sum() == 4
```

## Notes {{#notes}}

{notes}
"""

EN = PAGE.format(pitfall=PITFALL.format(symptom="Random outputs in eval", cause="No training flag.", fix="Pass it."),
                 intro="An intro.", prose="English prose.", more="More English.", notes="See [eval](#eval).")
ZH = PAGE.format(pitfall=PITFALL.format(symptom="评估时输出随机", cause="没有传 training。", fix="传入它。"),
                 intro="中文引言。", prose="中文说明一。", more="中文说明二。", notes="见[评估](#eval)。")


def project(tmp_path: Path) -> Path:
    """The project's configs with a two-page nav, and one page in both languages."""
    for lang, name in (("en", "mkdocs.yml"), ("zh", "mkdocs.zh.yml")):
        text = (ROOT / name).read_text(encoding="utf-8")
        (tmp_path / name).write_text(re.sub(r"(?ms)^nav:\n.*?(?=^\S)", NAV[lang] + "\n", text), encoding="utf-8")
    shutil.copytree(ROOT / "snippets", tmp_path / "snippets")
    for lang, text in (("en", EN), ("zh", ZH)):
        (tmp_path / "docs" / lang / "nn").mkdir(parents=True)
        (tmp_path / "docs" / lang / "index.md").write_text("# Home\n", encoding="utf-8")
        (tmp_path / "docs" / lang / "nn" / "dropout.md").write_text(text, encoding="utf-8")
    return tmp_path


def run_check(root: Path, *pages: str, execute: bool = False) -> tuple[int, str]:
    out = io.StringIO()
    status = check.main(root, list(pages), execute=execute, console=Console(out, live=False))
    return status, out.getvalue()


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


# --- check ----------------------------------------------------------------------------------

def test_check_passes_a_page_in_step(tmp_path):
    status, out = run_check(project(tmp_path), "nn/dropout", execute=True)
    assert status == 0, out
    assert "ok   blocks: 2 passed in both languages, ran in" in out and "all checks passed" in out


@pytest.mark.parametrize("lang, old, new, expected", [
    ("zh", "assert x.sum() == 4\n", "assert x.sum() == 5\n",
     r"block 2 differs between en and zh \(code, language or markers: code\): docs/en/nn/dropout\.md:\d+ "),
    ("zh", f"{FENCE}python\nassert x.sum() == 4\n{FENCE}\n", "",
     r"2 executed blocks in en, 1 in zh; the first without a twin: docs/en/nn/dropout\.md:\d+"),
    ("zh", "## Notes {#notes}", "## Notes",
     r"docs/zh/nn/dropout\.md:\d+: heading 'Notes' has no explicit id"),
    ("zh", "{#notes}", "{#remarks}", r"first difference: docs/en/nn/dropout\.md:\d+ #notes vs docs/zh/nn/dropout\.md:\d+ #remarks"),
    ("en", "proof: [eval]", "proof: [evl]", r"docs/en/nn/dropout\.md:\d+: pitfall demo-eval: proof '#evl' is not a heading id"
                                            r" of this page; closest: eval"),
    ("zh", "severity: high", "severity: low",
     r"docs/zh/nn/dropout\.md:(\d+): pitfall demo-eval: 'severity' is 'low' here, 'high' in docs/en/nn/dropout\.md:\1"),
    ("en", "See [eval](#eval).", "See [gone](../nn/nope.md).", r"docs/en/nn/dropout\.md:\d+: link to \.\./nn/nope\.md: no such page"),
    ("en", "See [eval](#eval).", "See [eval](#evaluation).", r"docs/en/nn/dropout\.md:\d+: link to #evaluation: \S+ has no id"),
])
def test_check_names_file_and_line_of_each_mistake(tmp_path, lang, old, new, expected):
    root = project(tmp_path)
    edit(root / "docs" / lang / "nn" / "dropout.md", old, new)
    status, out = run_check(root, f"docs/{lang}/nn/dropout.md")
    assert status == 1 and re.search(expected, out), out


def test_check_sees_a_link_from_another_page_to_an_id_the_page_lost(tmp_path):
    root = project(tmp_path)
    (root / "docs" / "en" / "index.md").write_text("# Home\n\n[eval](nn/dropout.md#eval)\n", encoding="utf-8")
    for lang in ("en", "zh"):
        edit(root / "docs" / lang / "nn" / "dropout.md", "{#eval}", "{#evaluation}")
        edit(root / "docs" / lang / "nn" / "dropout.md", "proof: [eval]", "proof: [evaluation]")
        edit(root / "docs" / lang / "nn" / "dropout.md", "(#eval)", "(#evaluation)")
    status, out = run_check(root, "nn/dropout")
    assert status == 1 and "docs/en/index.md:3: link to nn/dropout.md#eval: docs/en/nn/dropout.md has no id #eval" in out, out


def test_check_runs_the_code_and_names_the_failing_line(tmp_path):
    root = project(tmp_path)
    for lang in ("en", "zh"):
        edit(root / "docs" / lang / "nn" / "dropout.md", "assert x.sum() == 4", "assert x.sum() == 5")
    status, out = run_check(root, "nn/dropout", execute=True)
    assert status == 1 and re.search(r"FAIL blocks: 1 problem\(s\)\n\s+docs/en/nn/dropout\.md:\d+: AssertionError", out), out
    assert "code: running docs/en/nn/dropout.md [0/1 done" in out and "code: failed docs/en/nn/dropout.md in" in out


def test_check_runs_in_a_project_without_a_nav(tmp_path):
    """MkDocs lists every page itself when a config has no nav: there is no nav place to compare."""
    root = project(tmp_path)
    for name in ("mkdocs.yml", "mkdocs.zh.yml"):
        text = (root / name).read_text(encoding="utf-8")
        (root / name).write_text(re.sub(r"(?ms)^nav:\n.*?(?=^\S)", "", text), encoding="utf-8")
    status, out = run_check(root, "nn/dropout")
    assert status == 0 and "ok   parity" in out, out


def test_check_refuses_what_is_not_a_page(tmp_path):
    status, out = run_check(project(tmp_path), "nn/nope")
    assert status == 2 and "nn/nope: no such page in docs/en/ or docs/zh/" in out


def test_a_nav_line_missing_in_one_language_is_named(tmp_path):
    root = project(tmp_path)
    edit(root / "mkdocs.zh.yml", "      - Dropout: nn/dropout.md\n", "")
    status, out = run_check(root, "nn/dropout")
    assert status == 1 and "mkdocs.zh.yml: nav has no line for nn/dropout.md (it is in mkdocs.yml)" in out, out


# --- new ------------------------------------------------------------------------------------

def test_new_page_passes_check_as_created(tmp_path):
    root = project(tmp_path)
    done = scaffold.create(root, "nn/interpolate", "Interpolation", "插值")
    assert "wrote docs/en/nn/interpolate.md" in done and "wrote docs/zh/nn/interpolate.md" in done
    assert [e.path for e in nav.entries(root / "mkdocs.yml")] == ["index.md", "nn/dropout.md", "nn/interpolate.md"]
    last = nav.entries(root / "mkdocs.zh.yml")[-1]
    assert (last.path, last.title, last.section) == ("nn/interpolate.md", "插值", "网络层")
    status, out = run_check(root, "nn/interpolate", execute=True)
    assert status == 0, out


@pytest.mark.parametrize("target, message", [
    ("nn/dropout", "docs/en/nn/dropout.md already exists: nothing was written"),
    ("optim/sgd", "no nav section holds pages under optim/"),
    ("nn/Bad_Name", "give SECTION/TOPIC in lowercase-words-with-dashes"),
    ("interpolate", "give SECTION/TOPIC"),
])
def test_new_refuses_and_writes_nothing(tmp_path, target, message):
    root = project(tmp_path)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    with pytest.raises(scaffold.ScaffoldError, match=re.escape(message)):
        scaffold.create(root, target)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


# --- sync -----------------------------------------------------------------------------------

def test_sync_copies_code_ids_pitfall_fields_and_keeps_the_prose(tmp_path):
    root = project(tmp_path)
    en, zh = root / "docs" / "en" / "nn" / "dropout.md", root / "docs" / "zh" / "nn" / "dropout.md"
    edit(en, "print(x.sum())", "print(x.mean())")  # a block's code
    edit(en, "More English.\n", f"More English.\n\n<!--pytest.mark.raises(ZeroDivisionError)-->\n{FENCE}python\n1 / 0\n{FENCE}\n\nAfter.\n")
    edit(en, "apis: [F.dropout]", "apis: [F.dropout, nn.Dropout]")
    edit(en, "{#notes}", "{#remarks}")  # a renamed heading id
    edit(en, "  - id: demo-eval", PITFALL.format(symptom="A second one", cause="C.", fix="F.").replace(
        "demo-eval", "demo-second").replace("[eval]", "[new-part]").replace("[F.dropout]", "[torch.ones]")
        + "  - id: demo-eval")
    (en.parent / "x").write_text("")  # a stray file beside the page changes nothing
    en.write_text(en.read_text(encoding="utf-8") + f"\n## New part {{#new-part}}\n\nNew words.\n\n{FENCE}python\nprint(3)\n{FENCE}\n",
                  encoding="utf-8")
    changes, todo = sync.sync(root, en)
    assert parity.page_problems(root / "docs", "nn/dropout.md", parity.configs_of(root)) == []
    assert check_twins(en, root / "docs" / "en", ["en", "zh"]) == []
    text = zh.read_text(encoding="utf-8")
    for line in ZH.splitlines():  # every line of the Chinese prose is still there
        if re.search(r"[\u4e00-\u9fff]", line) and "{#notes}" not in line:
            assert line in text, line
    assert "## Notes {#remarks}" in text and "print(x.mean())" in text and "1 / 0" in text
    lines = text.splitlines()
    found = {re.sub(r"^docs/zh/nn/dropout\.md:\d+: ", "", t): int(t.split(":")[1]) for t in todo}
    assert lines[found["section #new-part copied from docs/en/nn/dropout.md: translate it"] - 1] == "## New part {#new-part}"
    assert lines[found["pitfall demo-second copied: translate symptom, cause and fix"] - 1] == "  - id: demo-second"
    assert lines[found["new block: its prose needs writing in this language"] - 1].startswith("<!--pytest.mark.raises")
    assert any("apis set to [F.dropout, nn.Dropout]" in c for c in changes), changes
    assert sync.sync(root, en) == ([], []), "a second sync finds nothing to do"
    status, out = run_check(root, "nn/dropout")
    assert status == 0, out


def test_sync_fills_the_pitfalls_of_a_new_page_made_by_new(tmp_path):
    root = project(tmp_path)
    scaffold.create(root, "nn/interpolate")
    en = root / "docs" / "en" / "nn" / "interpolate.md"
    edit(en, "pitfalls: []\n", "pitfalls:\n" + PITFALL.format(symptom="S", cause="C", fix="F").replace(
        "demo-eval", "interp-demo").replace("[eval]", "[first-example]"))
    changes, todo = sync.sync(root, en)
    assert check_twins(en, root / "docs" / "en", ["en", "zh"]) == [], changes
    assert any("pitfall interp-demo copied" in t for t in todo), todo
    assert run_check(root, "nn/interpolate")[0] == 0


def test_sync_removes_what_the_edited_page_dropped_and_says_so(tmp_path):
    root = project(tmp_path)
    en, zh = root / "docs" / "en" / "nn" / "dropout.md", root / "docs" / "zh" / "nn" / "dropout.md"
    edit(en, f"{FENCE}python\nassert x.sum() == 4\n{FENCE}\n", "")
    changes, _ = sync.sync(root, en)
    assert any("removed block 'assert x.sum() == 4'" in c for c in changes), changes
    assert "中文说明二。" in zh.read_text(encoding="utf-8"), "the prose stays"
    assert parity.page_problems(root / "docs", "nn/dropout.md") == []


def test_sync_adds_the_missing_nav_line_after_the_same_page(tmp_path):
    root = project(tmp_path)
    edit(root / "mkdocs.zh.yml", "      - Dropout: nn/dropout.md\n", "")
    changes, todo = sync.sync(root, root / "docs" / "en" / "nn" / "dropout.md")
    assert [e.path for e in nav.entries(root / "mkdocs.zh.yml")] == ["index.md", "nn/dropout.md"]
    assert any("nav title 'Dropout' copied: translate it" in t for t in todo), todo


def test_sync_needs_the_language_of_the_edited_page(tmp_path):
    with pytest.raises(sync.SyncError, match="name the page you edited with its language"):
        sync.sync(project(tmp_path), Path("nn/dropout"))


# --- the command line and progress ---------------------------------------------------------

def test_site_py_verbs_run_from_the_readme(tmp_path):
    root = project(tmp_path)
    (root / "docs" / "site.py").write_bytes((ROOT / "docs" / "site.py").read_bytes())
    cmd = [sys.executable, "docs/site.py"]
    new = subprocess.run(cmd + ["new", "nn/interpolate"], cwd=root, capture_output=True, text=True)
    assert new.returncode == 0 and "next: write the page" in new.stdout, new.stdout + new.stderr
    checked = subprocess.run(cmd + ["check", "nn/interpolate", "--no-exec"], cwd=root, capture_output=True, text=True)
    assert checked.returncode == 0 and "all checks passed" in checked.stdout, checked.stdout + checked.stderr
    synced = subprocess.run(cmd + ["sync", "docs/zh/nn/interpolate.md"], cwd=root, capture_output=True, text=True)
    assert synced.returncode == 0 and "nothing to sync" in synced.stdout, synced.stdout + synced.stderr


def test_progress_is_a_line_each_in_a_log_and_one_live_line_in_a_terminal():
    log = io.StringIO()
    console = Console(log, live=False)
    console.status("running a.md")
    console.status("ran a.md")
    console.line("done")
    assert log.getvalue() == "running a.md\nran a.md\ndone\n"
    tty = io.StringIO()
    console = Console(tty, live=True)
    console.status("running a.md")
    console.status("running b.md")
    console.line("done")
    console.close()
    text = tty.getvalue()
    assert "\r\x1b[2K" in text and text.count("\n") == 1 and "done\n" in text
