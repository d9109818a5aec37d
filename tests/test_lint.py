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


def _pages(lang: str) -> list[Path]:
    return sorted(p for p in (ROOT / "docs" / lang).rglob("*") if p.suffix in (".md", ".ipynb"))


@pytest.mark.parametrize("lang", LANGS)
def test_every_rule_is_a_pitfall_proved_by_its_page(lang):
    """Each rule has a block marked as its mistake and one marked as its fix on its pitfall's page
    (that it fires on the first and not on the second: lint.page_problems, next test), and each
    hint the mistakes produce has its Chinese translation."""
    catalogue = _catalogue(lang)
    untranslated: set[str] = set()
    marked: dict[str, set[str]] = {"mistake": set(), "fix": set()}  # "rule id@page"
    for page in _pages(lang):
        before = ""  # the page's earlier blocks: a block uses what they imported
        for block in read_blocks(page, root=ROOT):
            context, before = before, before + (block.code if block.syntax == "python" and not block.file else "")
            where = page.relative_to(ROOT / "docs" / lang).as_posix()
            marked["mistake"] |= {f"{pid}@{where}" for pid in block.lint_mistake}
            marked["fix"] |= {f"{pid}@{where}" for pid in block.lint_fix}
            if block.lint_mistake:
                untranslated |= {f.detail for f in lint.lint_code(block.code, block.where, context=context)
                                 if f.detail and lint.hint(f.detail, "zh") == f.detail}
    problems = []
    for pid in lint.RULES:
        if pid not in catalogue:
            problems.append(f"rule {pid}: no pitfall of that id in docs/{lang}")
            continue
        for kind in ("mistake", "fix"):
            if f"{pid}@{catalogue[pid]}" not in marked[kind]:
                problems.append(f"rule {pid}: no block of docs/{lang}/{catalogue[pid]} is marked lint({kind}=...) for it")
    assert not problems, "\n".join(problems)
    assert not untranslated, f"hints without a Chinese translation (fieldnotes.lint.HINTS_ZH): {untranslated}"
    assert len(lint.RULES) >= 25  # issue 24: at least 25 rules, each proved as above


@pytest.mark.parametrize("lang", LANGS)
def test_the_sites_own_code_follows_its_advice(lang):
    """Every finding in the pages' code (snippets included) is in a block that shows that mistake on
    purpose (marked lint(mistake=ID)) or silenced by an ignore comment on its line, each marked
    mistake fires and no marked fix does: a reader who copies any other block copies none of the
    site's pitfalls (issue 24: explicit weights_only). docs/site.py check runs the same per page."""
    problems = [p for page in _pages(lang) for p in lint.page_problems(page, ROOT)]
    problems += lint.snippet_problems(ROOT, _pages(lang))
    assert not problems, "\n".join(problems)


def test_a_contributors_unmarked_mistake_is_named_with_its_line(tmp_path):
    """A page whose block shows a pitfall without the marker, and one whose marked fix still has
    it: page_problems names each line and what to do."""
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n", encoding="utf-8")
    page = tmp_path / "docs" / "en" / "p.md"
    page.parent.mkdir(parents=True)
    page.write_text("# P\n\n```python\nimport torch\nx = torch.load('a.pt')\n```\n\n"
                    '<!--pytest.mark.lint(fix="checkpoint-load-weights-only-implicit")-->\n'
                    "```python\ny = torch.load('b.pt')\n```\n\n"
                    '<!--pytest.mark.lint(mistake="no-such-rule")-->\n```python\nz = 1\n```\n', encoding="utf-8")
    problems = lint.page_problems(page, tmp_path)
    assert any(p.startswith("docs/en/p.md:5: checkpoint-load-weights-only-implicit") and "mark the block" in p
               for p in problems), problems
    assert any("checkpoint-load-weights-only-implicit fires on the fix" in p for p in problems), problems
    assert any("'no-such-rule', which is no rule" in p for p in problems), problems


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
