"""fieldnotes lint (fieldnotes.lint): the mechanism on code written here, then every rule proved on
the pages' own blocks, in both languages: it fires on each block marked lint(mistake=ID) and
stays silent on each marked lint(fix=ID); a rule without both, or a marker without a rule, fails."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fieldnotes import lint
from fieldnotes.blocks import read_blocks
from fieldnotes.languages import LANGS, TEXT
from fieldnotes.pitfalls import load
from sitebuild import ROOT

BAD = '''import torch
import torch.nn.functional as fun
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(2, 2) for _ in range(3)]
        self.scale = torch.ones(2)

    def forward(self, x):
        return fun.dropout(x, 0.5)


torch.backends.cudnn.benchmarks = True
opt = torch.optim.Adam(Net().parameters(), weight_decay=1e-2)  # fieldnotes: ignore[optim-adam-weight-decay-is-l2]
'''


def rules(code: str, **kwargs) -> list[tuple[int, str]]:
    return [(f.line, f.rule) for f in lint.lint_code(code, **kwargs)]


def test_rules_follow_imports_and_the_ignore_comment():
    assert rules(BAD) == [(9, "module-plain-list-not-trained"), (10, "module-tensor-attribute-not-buffer"),
                          (13, "dropout-functional-in-eval"), (16, "cudnn-benchmark-typo-silent")]
    assert rules(BAD, select={"dropout-functional-in-eval"}) == [(13, "dropout-functional-in-eval")]
    assert (13, "dropout-functional-in-eval") not in rules(BAD, ignore={"dropout-functional-in-eval"})
    assert rules(BAD.replace("  # fieldnotes: ignore[optim-adam-weight-decay-is-l2]", ""))[-1] == \
        (17, "optim-adam-weight-decay-is-l2")
    assert rules(BAD.replace("[optim-adam-weight-decay-is-l2]", "[some-other-rule]"))[-1][1] == \
        "optim-adam-weight-decay-is-l2"  # an ignore names the rule it silences
    assert rules(BAD.replace("[optim-adam-weight-decay-is-l2]", "")) == rules(BAD)  # bare: the whole line


def test_what_looks_alike_is_not_flagged():
    fine = '''import torch
from torch.nn import functional as F
def forward(x):
    return F.dropout(x, 0.5, True)
class M(torch.nn.Module):
    def forward(self, x):
        y = F.dropout(x, p=0.5, training=self.training)
        self.cache = [x, y]
        return y
def dropout(x, p): return x
class Agent:  # not a Module: its tensors and lists are its own business
    def __init__(self):
        self.states = torch.zeros(3)
        self.nets = [torch.nn.Linear(2, 2)]
opt = torch.optim.Adam([], weight_decay=0)
opt = torch.optim.Adam([], weight_decay=args.l2)  # an L2 penalty on purpose (pytorch/examples gcn)
torch.backends.cudnn.benchmark = True
torch.use_deterministic_algorithms(True)
with torch.autograd.set_detect_anomaly(True):
    pass
scaler = torch.amp.GradScaler("cpu")
def step(opt, model):
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
loader = torch.utils.data.DataLoader([1, 2], num_workers=2)
if __name__ == "__main__":
    for batch in loader:
        pass
compiled = torch.compile(M())
'''
    assert rules(fine) == []


def _run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fieldnotes.lint", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_the_command_reports_file_line_symptom_and_url_and_exits_1(tmp_path):
    (tmp_path / "train.py").write_text(BAD, encoding="utf-8")
    nb = {"cells": [{"cell_type": "markdown", "source": ["# x"], "metadata": {}},
                    {"cell_type": "code", "source": ["%%time\n", "x = 1\n"], "metadata": {}, "outputs": []},
                    {"cell_type": "code", "source": ["!pip list\n", "torch.backends.cudnn.benchmark(True)\n"],
                     "metadata": {}, "outputs": []}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "nb.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    done = _run(str(tmp_path))
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{tmp_path / 'sub' / 'nb.ipynb'}:4:1 cudnn-benchmark-written-as-call ")
    assert lines[1].startswith(f"{tmp_path / 'train.py'}:9:9 module-plain-list-not-trained ")
    assert lines[1].endswith("/en/nn/module-state/#module-plain-list-not-trained")
    zh = _run("--lang", "zh", "--select", "dropout-functional-in-eval", str(tmp_path / "train.py"))
    assert zh.returncode == 1 and len(zh.stdout.splitlines()) == 1
    assert "/zh/nn/dropout/#dropout-functional-in-eval" in zh.stdout and "eval" in zh.stdout
    clean = tmp_path / "clean.py"
    clean.write_text("import torch\nprint(torch.ones(1))\n", encoding="utf-8")
    assert _run(str(clean)).returncode == 0


def test_a_file_that_cannot_be_read_is_named_and_the_rest_checked(tmp_path):
    (tmp_path / "a_broken.py").write_text("def f(:\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("x = Variable(t, volatile=True)\n", encoding="utf-8")
    done = _run(str(tmp_path))
    assert done.returncode == 2
    assert f"{tmp_path / 'a_broken.py'}: cannot be checked: SyntaxError" in done.stderr
    assert "inference-volatile-ignored" in done.stdout
    assert _run("--select", "no-such-rule", str(tmp_path)).returncode == 2


def _catalogue(lang: str) -> dict[str, str]:
    docs = ROOT / "docs" / lang
    return {p.id: p.page for page in sorted(docs.rglob("*.md")) for p in load(page, docs)}


@pytest.mark.parametrize("lang", LANGS)
def test_every_rule_is_a_pitfall_proved_by_its_page(lang):
    """Fires on the mistake the page shows, silent on the fix it shows, in each language."""
    catalogue = _catalogue(lang)
    untranslated: set[str] = set()
    mistakes: dict[str, list[str]] = {}
    fixes: dict[str, list[str]] = {}
    problems = []
    docs = ROOT / "docs" / lang
    for page in sorted(docs.rglob("*.md")):
        before = ""  # the page's earlier blocks: a block uses what they imported
        for block in read_blocks(page, root=ROOT):
            context, before = before, before + (block.code if block.syntax == "python" and not block.file else "")
            for pid in block.lint_mistake + block.lint_fix:
                if pid not in lint.RULES:
                    problems.append(f"{block.where}: lint marker names {pid!r}, which is no rule")
            if not (block.lint_mistake or block.lint_fix):
                continue
            findings = lint.lint_code(block.code, block.where, context=context)
            found = {f.rule for f in findings}
            untranslated |= {f.detail for f in findings if f.detail and lint.hint(f.detail, "zh") == f.detail}
            for pid in block.lint_mistake:
                mistakes.setdefault(pid, []).append(block.where)
                if pid not in found:
                    problems.append(f"{block.where}: {pid} does not fire on the mistake this block shows")
            for pid in block.lint_fix:
                fixes.setdefault(pid, []).append(block.where)
                if pid in found:
                    problems.append(f"{block.where}: {pid} fires on the fix this block shows")
    for pid in lint.RULES:
        if pid not in catalogue:
            problems.append(f"rule {pid}: no pitfall of that id in docs/{lang}")
            continue
        where = f"docs/{lang}/{catalogue[pid]}"
        if not any(w.startswith(where + ":") for w in mistakes.get(pid, [])):
            problems.append(f"rule {pid}: no block of {where} is marked lint(mistake=...) for it")
        if not any(w.startswith(where + ":") for w in fixes.get(pid, [])):
            problems.append(f"rule {pid}: no block of {where} is marked lint(fix=...) for it")
    assert not problems, "\n".join(problems)
    assert not untranslated, f"hints without a Chinese translation (fieldnotes.lint.HINTS_ZH): {untranslated}"
    assert len(lint.RULES) >= 25  # issue 24: at least 25 rules, each proved as above



@pytest.mark.parametrize("lang", LANGS)
def test_the_sites_own_code_follows_its_advice(lang):
    """Every finding in the pages' code (snippets included) is in a block that shows that mistake on
    purpose (marked lint(mistake=ID)) or silenced by an ignore comment on its line: a reader who
    copies any other block copies none of the site's pitfalls (issue 24: explicit weights_only)."""
    problems = []
    shown: dict[str, set[str]] = {}  # snippet file -> the rules its including block shows on purpose
    for page in sorted((ROOT / "docs" / lang).rglob("*")):
        if page.suffix not in (".md", ".ipynb"):
            continue
        before = ""
        for block in read_blocks(page, root=ROOT):
            if block.syntax != "python":
                continue
            context, before = before, before + (block.code if not block.file else "")
            if block.file:
                shown.setdefault(block.file, set()).update(block.lint_mistake)
            for f in lint.lint_code(block.code, block.where, context=context):
                if f.rule not in block.lint_mistake:
                    problems.append(f"{block.where} (line {f.line} of the block): {f.rule} ({f.detail})")
    for snippet in sorted((ROOT / "snippets").rglob("*.py")):
        name = snippet.relative_to(ROOT).as_posix()
        for f in lint.lint_code(snippet.read_text(encoding="utf-8"), name):
            if f.rule not in shown.get(name, set()):
                problems.append(f"{name}:{f.line}: {f.rule} ({f.detail})")
    assert not problems, "the site's code has pitfalls it does not show on purpose:\n" + "\n".join(problems)


def test_the_site_lists_every_rule_and_each_pitfall_says_it_is_detected(built_site):
    """The lint page's table has one row per rule, linked to its pitfall; each such pitfall's
    section links back; the page's own demonstration ran the checker (exit status 1)."""
    from sitebuild import soup

    assert built_site.status == 0, built_site.log[-3000:]
    for lang in LANGS:
        page = soup(built_site.path / lang / "reference" / "lint" / "index.html")
        rows = page.select("#rules ~ table tbody tr")
        assert sorted(r.select_one("code").get_text() for r in rows) == sorted(lint.RULES), lang
        # each rule's torch versions are those its pitfall's section and pitfalls.json give
        catalogue = json.loads((built_site.path / lang / "pitfalls.json").read_text(encoding="utf-8"))
        facts = {p["id"]: p for p in catalogue["pitfalls"]}
        sep = TEXT[lang]["and"]
        for row in rows:
            pid, versions = row.select_one("code").get_text(), row.select("td")[-1].get_text()
            fact = facts[pid]
            if fact["ran_in_this_build"]:
                assert versions.startswith(sep.join(fact["holds_on"]["torch"])), (lang, pid, versions)
                assert all(v in versions for v in fact["fails_on"]["torch"]), (lang, pid, versions)
        assert len(facts["checkpoint-load-weights-only-implicit"]["holds_on"]["torch"]) > 1  # the matrix is read
        assert "exit status 1" in page.select_one(".fn-output").get_text()
        for pid, where in _catalogue(lang).items():
            html = soup(built_site.path / lang / where.removesuffix(".md") / "index.html")
            section = html.find(id=pid)
            body = []
            for sibling in section.find_next_siblings():
                if sibling.name in ("h2", "h3"):
                    break
                body += sibling.find_all("a")
            links = [a for a in body if a.get("href", "").endswith("reference/lint/#rules")]
            assert bool(links) == (pid in lint.RULES), f"/{lang}/{where}#{pid}"


def test_without_the_catalogue_findings_still_print(tmp_path, monkeypatch, capsys):
    """Installed on its own (a pre-commit hook of another repository), the checker has no pages:
    it says so once and still reports file, line, id and hint, with exit status 1."""
    def missing(*args):
        raise FileNotFoundError("no mkdocs.yml at or above the package")

    monkeypatch.setattr(lint, "catalogue", missing)
    (tmp_path / "t.py").write_text("x = Variable(t, volatile=True)\n", encoding="utf-8")
    assert lint.main([str(tmp_path / "t.py")]) == 1
    out, err = capsys.readouterr()
    assert out.strip() == f"{tmp_path / 't.py'}:1:5 inference-volatile-ignored " \
                          "(use torch.no_grad() or torch.inference_mode())"
    assert "no pitfall catalogue here" in err


def test_the_pre_commit_hook_runs_the_console_script():
    import tomllib

    import yaml

    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    (hook,) = hooks
    assert hook["id"] == "fieldnotes-lint" and hook["entry"] in scripts and hook["language"] == "python"
    assert scripts[hook["entry"]] == "fieldnotes.lint:main"
