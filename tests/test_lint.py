"""fieldnotes lint (fieldnotes.lint): the mechanism on code written here, then every rule proved on
the pages' own blocks, in both languages: it fires on each block marked lint(mistake=ID) and
stays silent on each marked lint(fix=ID); a rule without both, or a marker without a rule, fails."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
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
    assert lines[0].startswith(f"{tmp_path / 'sub' / 'nb.ipynb'}:4:1 (cell 3, line 2) cudnn-benchmark-written-as-call ")
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


# Files a repository holds that the checker must never stop at (../shared/reviews/lint-field-test.md,
# section 5): each case is named or checked, and the run goes on to the file after it.
VOLATILE = "x = Variable(t, volatile=True)\n"  # one finding: inference-volatile-ignored
ODD = {  # name: (bytes, None if it is checked, else words of the reason it gives)
    "a_bom.py": ("\ufeffimport torch\n" + VOLATILE).encode("utf-8"),
    "a_latin1.py": ("# -*- coding: latin-1 -*-\n# café\n" + VOLATILE).encode("latin-1"),
    "b_deep.py": ("x = " + "+".join(["1"] * 200_000) + "\n").encode(),
    "b_list.ipynb": b"[1, 2]",
    "b_nbformat3.ipynb": json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": [{"cells": []}],
                                     "metadata": {}}).encode(),
    "b_truncated.ipynb": b'{"cells": [{"cell_type": "code", "sou',
    "b_python2.py": b'print "x"\n',
    "b_nul.py": b"x = 1\x00\n",
    "b_cell_is_text.ipynb": json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                                        "cells": ["x = 1"]}).encode(),
    "b_unknown_coding.py": b"# -*- coding: no-such-codec -*-\nx = 1\n",
}
REASONS = {"b_deep.py": "too deeply nested", "b_list.ipynb": "its JSON is a list",
           "b_nbformat3.ipynb": "nbformat 3", "b_truncated.ipynb": "does not parse",
           "b_python2.py": "SyntaxError", "b_nul.py": "null bytes",
           "b_cell_is_text.ipynb": "cell 1 is a str", "b_unknown_coding.py": "SyntaxError: unknown encoding"}


def _notebook(*cells: str, nbformat: int = 4) -> str:
    return json.dumps({"cells": [{"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in cells],
                       "metadata": {}, "nbformat": nbformat, "nbformat_minor": 5})


def test_files_are_read_as_python_reads_them(tmp_path):
    """A byte-order mark and a coding comment (PEP 263) are honoured, as python honours them."""
    for name in ("a_bom.py", "a_latin1.py"):
        (tmp_path / name).write_bytes(ODD[name])
        assert subprocess.run([sys.executable, str(tmp_path / name)], capture_output=True).stderr.count(b"SyntaxError") == 0
        found, reason = lint.check_file(tmp_path / name)
        assert reason is None and [(f.line, f.rule) for f in found] == [(ODD[name].count(b"\n"), "inference-volatile-ignored")]


def test_an_odd_file_is_named_on_one_line_and_the_run_goes_on(tmp_path):
    """Each case is named with its reason on one line (no traceback) and the file after it is
    still checked; exit status 2 wins over 1 (a finding), which wins over 0."""
    for name, data in ODD.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "c_dangling.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "c_folder.py").mkdir()  # a folder named like a file: not a file, nothing to say
    (tmp_path / "z_last.py").write_text(VOLATILE, encoding="utf-8")
    done = _run(str(tmp_path))
    assert "Traceback" not in done.stderr, done.stderr
    named = dict(line.split(": cannot be checked: ", 1) for line in done.stderr.splitlines())
    assert set(named) == {str(tmp_path / n) for n in [*REASONS, "c_dangling.py"]}, done.stderr
    for name, words in REASONS.items():
        assert words in named[str(tmp_path / name)], (name, named[str(tmp_path / name)])
    assert "FileNotFoundError" in named[str(tmp_path / "c_dangling.py")]
    checked = {line.split(":", 1)[0] for line in done.stdout.splitlines()}
    assert checked == {str(tmp_path / n) for n in ("a_bom.py", "a_latin1.py", "z_last.py")}, done.stdout
    assert done.returncode == lint.UNCHECKED == 2
    assert _run(str(tmp_path / "z_last.py")).returncode == lint.FOUND == 1
    (tmp_path / "clean.py").write_text("x = 1\n", encoding="utf-8")
    assert _run(str(tmp_path / "clean.py")).returncode == 0
    assert _run(str(tmp_path / "b_list.ipynb"), str(tmp_path / "clean.py")).returncode == 2


def test_magics_keep_the_cell_valid_python_and_the_lines_in_place(tmp_path):
    """yolov5's tutorial: an ``elif`` whose body is only magics (blanked, the body was empty:
    IndentationError); shell assignments, help, continued shell lines too. The finding after them
    keeps its line number."""
    cell = ("logger = 'TensorBoard'\nif logger == 'Comet':\n  import comet_ml\n"
            "elif logger == 'TensorBoard':\n  %load_ext tensorboard\n  %tensorboard --logdir runs/train\n"
            "files = !ls\nx, y = %who_ls\ntorch.nn.Linear?\n!pip install \\\n    torch\n" + VOLATILE)
    assert lint.without_magics(cell)[3:11] == [
        "elif logger == 'TensorBoard':", "  pass", "  pass", "files = None", "x, y = None", "pass", "pass", ""]
    modulo = "y = (3\n% 2)\n"  # valid Python: the % continues the expression, it is no magic
    assert lint.without_magics(modulo) == modulo.splitlines()
    (tmp_path / "tutorial.ipynb").write_text(_notebook("%%bash\nnot python at all\n", cell), encoding="utf-8")
    found, reason = lint.check_file(tmp_path / "tutorial.ipynb")
    assert reason is None and [(f.line, f.rule) for f in found] == [(2 + 12, "inference-volatile-ignored")]


def _mutations(rng, data: bytes, count: int) -> Iterator[bytes]:
    """Truncations, replaced and deleted bytes, removed and re-indented lines of real files."""
    for _ in range(count):
        kind = rng.randrange(4)
        if kind == 0:
            yield data[:rng.randrange(len(data) + 1)]
        elif kind == 1:
            b = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(len(b))] = rng.randrange(256)
            yield bytes(b)
        elif kind == 2:
            lines = data.splitlines(True)
            del lines[rng.randrange(len(lines))]
            yield b"".join(lines)
        else:
            lines = data.splitlines(True)
            i = rng.randrange(len(lines))
            lines[i] = b" " * rng.choice([1, 3, 8]) + lines[i]
            yield b"".join(lines)


def _shapes(rng) -> Iterator[object]:
    """JSON values where a notebook's parts have the wrong type or are missing."""
    good = json.loads(_notebook("import torch\n" + VOLATILE, "%time x = 1\n"))
    wrong = [None, 1, "x", [], {}, [1], {"a": 1}, ["x", 2]]
    for _ in range(60):
        nb = json.loads(json.dumps(good))
        path = rng.choice([(), ("cells",), ("cells", 0), ("cells", 0, "source"), ("cells", 1, "cell_type"),
                           ("nbformat",), ("cells", 0, "source", 0)])
        target = nb
        try:
            for key in path[:-1]:
                target = target[key]
            if path:
                target[path[-1]] = rng.choice(wrong)
            else:
                nb = rng.choice(wrong)
        except (KeyError, IndexError, TypeError):
            pass
        yield nb


def test_random_and_broken_files_never_make_it_raise(tmp_path):
    """Fuzz (seeded, so a failure repeats): the site's own snippets and a notebook of them,
    truncated and garbled, and notebooks whose JSON has the wrong shapes. ``check_file`` returns
    findings or a reason for every one, and the command over the whole folder exits 0, 1 or 2
    with no traceback."""
    import random

    rng = random.Random(20261204)
    sources = [p.read_bytes() for p in sorted((ROOT / "snippets").glob("*.py"))[:12]]
    notebook = _notebook(*(s.decode() for s in sources[:4])).encode()
    cases = {}
    for i, data in enumerate(sources):
        for j, mutated in enumerate(_mutations(rng, data, 12)):
            cases[f"py{i:02}_{j:02}.py"] = mutated
    for j, mutated in enumerate(_mutations(rng, notebook, 60)):
        cases[f"nb_bytes_{j:02}.ipynb"] = mutated
    for j, shape in enumerate(_shapes(rng)):
        cases[f"nb_shape_{j:02}.ipynb"] = json.dumps(shape).encode()
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    outcomes = {"checked": 0, "named": 0}
    for name in cases:
        found, reason = lint.check_file(tmp_path / name)  # raising here fails the test
        assert isinstance(found, list) and (reason is None or isinstance(reason, str) and reason)
        assert "please report" not in (reason or ""), f"{name}: {reason}"
        outcomes["checked" if reason is None else "named"] += 1
    assert min(outcomes.values()) > 20, outcomes  # both paths exercised
    done = _run(str(tmp_path))
    assert done.returncode in (0, 1, 2) and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert len(done.stderr.splitlines()) == outcomes["named"]


NANOGPT = '''import torch
from torch.nn.parallel import DistributedDataParallel as DDP
model = GPT(gptconf)
if compile:
    unoptimized_model = model
    model = torch.compile(model)
if ddp:
    model = DDP(model, device_ids=[ddp_local_rank])
raw_model = model.module if ddp else model
while True:
    checkpoint = {"model": raw_model.state_dict(), "optimizer": optimizer.state_dict()}
    torch.save(checkpoint, "ckpt.pt")
'''


def test_the_compile_prefix_is_followed_through_aliases_branches_and_ddp():
    """nanoGPT's train.py (../shared/reviews/lint-field-test.md): the compiled model reaches
    state_dict() through DDP's .module and a conditional expression; its author wrote that the
    prefix appears "sometimes". Its correct forms stay quiet."""
    assert rules(NANOGPT, select={"compile-orig-mod-prefix"}) == [(11, "compile-orig-mod-prefix")]
    fixes = {
        "unwrapped": NANOGPT.replace("raw_model = model.module if ddp else model",
                                     "raw_model = model.module if ddp else model\n"
                                     "raw_model = getattr(raw_model, '_orig_mod', raw_model)"),
        "the original": NANOGPT.replace("raw_model.state_dict()", "unoptimized_model.state_dict()"),
        "_orig_mod": NANOGPT.replace("raw_model.state_dict()", "raw_model._orig_mod.state_dict()"),
        "replaced later": "import torch\nm = torch.compile(net)\nm = net\nm.state_dict()\n",
        "saved before": "import torch\nnet.state_dict()\nnet = torch.compile(net)\n",
        "Module.compile() is in place": "net.compile()\nnet.state_dict()\n",
    }
    for name, code in fixes.items():
        assert rules(code, select={"compile-orig-mod-prefix"}) == [], name
    alias = "import torch\nc = torch.compile(net) if fast else net\nalias = c\ndef save():\n    alias.state_dict()\n"
    assert rules(alias, select={"compile-orig-mod-prefix"}) == [(5, "compile-orig-mod-prefix")]


def _nb_file(folder: Path, name: str, *cells: str, **meta) -> Path:
    nb = json.loads(_notebook(*cells))
    nb["metadata"].update(meta)
    (folder / name).write_text(json.dumps(nb), encoding="utf-8")
    return folder / name


def test_what_a_notebook_holds_besides_python(tmp_path):
    """Review of the lint page (A1-A4, A7): a % or != that starts a continuation line inside
    brackets is Python, also in a cell with a real magic; a form feed or U+2028 does not shift a
    line; %%time's body is checked, %%bash's is not; a finding says its cell and line; another
    language's notebook is skipped, not counted as unchecked; each malformed shape has its reason."""
    mixed = "!pip install tqdm\nmsg = ('loss %.3f'\n       % loss)\nok = (a\n      != b)\n" + VOLATILE
    assert lint.without_magics(mixed)[:5] == ["pass", "msg = ('loss %.3f'", "       % loss)", "ok = (a", "      != b)"]
    odd_breaks = "s = 'a\u2028b'\nt = 1\x0c\n" + VOLATILE
    cells = {"mixed": mixed, "breaks": odd_breaks, "time": "%%time\nfor e in range(3):\n    " + VOLATILE,
             "bash": "%%bash\necho " + VOLATILE}
    for name, cell in cells.items():
        found, reason = lint.check_file(_nb_file(tmp_path, f"{name}.ipynb", "import torch\n", cell))
        assert reason is None, (name, reason)
        want = {"mixed": [(7, "cell 2, line 6")], "breaks": [(4, "cell 2, line 3")],
                "time": [(4, "cell 2, line 3")], "bash": []}[name]
        assert [(f.line, f.where) for f in found] == want, name
    ff = tmp_path / "ff.py"
    ff.write_text("x = 1\n\x0c\ny = Variable(t, volatile=True)  # fieldnotes: ignore\n", encoding="utf-8")
    assert lint.check_file(ff) == ([], None)
    r = _nb_file(tmp_path, "r.ipynb", "library(ggplot2)\n", language_info={"name": "R"})
    done = _run(str(r))
    assert done.returncode == 0 and done.stderr.strip() == f"{r}: skipped: not Python: the notebook's language is R"
    for name, data, words in [("nocells.ipynb", {"nbformat": 4, "nbformat_minor": 5, "metadata": {}}, "no list of cells"),
                              ("strfmt.ipynb", {"nbformat": "4", "cells": []}, "nbformat '4'")]:
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
        assert words in lint.check_file(tmp_path / name)[1]


def test_a_folder_is_walked_without_hidden_folders_and_installed_packages(tmp_path):
    """Review A6: `fieldnotes-lint .` at a project root read .venv's site-packages (a Python 2
    file there made every run exit 2) and reported each notebook twice, once from its Jupyter
    checkpoint. A file named on the command line is still read wherever it is."""
    (tmp_path / "train.py").write_text(VOLATILE, encoding="utf-8")
    for folder in (".venv/lib/site-packages/pkg", ".ipynb_checkpoints", "venv/lib", ".git", "node_modules/x"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "m.py").write_text('print "py2"\n' + VOLATILE, encoding="utf-8")
    done = _run(str(tmp_path))
    assert done.returncode == 1 and done.stderr == "", done.stderr
    assert [line.split(":")[0] for line in done.stdout.splitlines()] == [str(tmp_path / "train.py")]
    assert _run(str(tmp_path / ".ipynb_checkpoints" / "m.py")).returncode == 2


YOLOV5_CKPT = '''import torch
from torch.cuda import amp
scaler = amp.GradScaler(enabled=amp_on)
for epoch in range(start_epoch, epochs):
    ckpt = {
        "epoch": epoch,
        "model": deepcopy(de_parallel(model)).half(),
        "optimizer": optimizer.state_dict(),
        "opt": vars(opt),
    }
    torch.save(ckpt, last)
'''


def test_a_resume_checkpoint_without_the_scaler_is_found():
    """nanoGPT and yolov5 (../shared/reviews/lint-field-test.md): a GradScaler, and a checkpoint
    that holds the optimizer's state but not the scaler's. Quiet where the scaler is saved in the
    dict, added to it later or saved on its own, where no scaler is made, and for a dict without
    the optimizer (weights for inference, not a resume)."""
    nanogpt = ("import torch\nscaler = torch.cuda.amp.GradScaler(enabled=(dtype == 'float16'))\n"
               "checkpoint = {'model': raw_model.state_dict(), 'optimizer': optimizer.state_dict(),\n"
               "              'iter_num': iter_num}\ntorch.save(checkpoint, 'ckpt.pt')\n")
    rule = {"amp-scaler-not-checkpointed"}
    assert rules(nanogpt, select=rule) == [(3, "amp-scaler-not-checkpointed")]
    assert rules(YOLOV5_CKPT, select=rule) == [(5, "amp-scaler-not-checkpointed")]
    quiet = {
        "in the dict": YOLOV5_CKPT.replace('"opt": vars(opt),', '"opt": vars(opt), "scaler": scaler.state_dict(),'),
        "added later": YOLOV5_CKPT.replace("    torch.save(ckpt, last)", '    ckpt["scaler"] = scaler.state_dict()\n'
                                                                        "    torch.save(ckpt, last)"),
        "saved on its own": YOLOV5_CKPT + 'torch.save(scaler.state_dict(), "scaler.pt")\n',
        "no scaler": YOLOV5_CKPT.replace("scaler = amp.GradScaler(enabled=amp_on)", ""),
        "weights only": YOLOV5_CKPT.replace('"optimizer": optimizer.state_dict(),', ""),
    }
    for name, code in quiet.items():
        assert rules(code, select=rule) == [], name


def test_a_result_thrown_away_is_found_and_a_modules_to_is_not():
    """timm's xception (../shared/reviews/lint-field-test.md): ``F.dropout(x, self.drop_rate,
    training=self.training)`` as a statement of its own, so drop_rate had no effect; a discarded
    masked_fill or a tensor's .to(dtype). Quiet: assigned results, inplace=True, the in-place
    forms, a module's .to()/.half(), matplotlib's scatter, torch.save."""
    xception = ("import torch.nn.functional as F\nfrom torch import nn\n\nclass Xception(nn.Module):\n"
                "    def forward(self, x):\n        x = self.features(x)\n"
                "        if self.drop_rate:\n            F.dropout(x, self.drop_rate, training=self.training)\n"
                "        return self.fc(x)\n")
    rule = {"inplace-result-discarded"}
    assert rules(xception, select=rule) == [(8, "inplace-result-discarded")]
    found = ("import torch\nx = torch.zeros(3)\nx.masked_fill(x > 0, 1.)\nx.to(torch.float16)\n"
             "torch.clamp(x, 0, 1)\nlogits.masked_fill(mask, float('-inf'))\nprint(x)\n")
    assert rules(found, select=rule | {"devices-to-not-assigned"}) == [
        (3, "inplace-result-discarded"), (4, "devices-to-not-assigned"), (5, "inplace-result-discarded"),
        (6, "inplace-result-discarded")]
    # a script's last line is thrown away too; a cell's displayed statement (cell_ends) is not
    assert rules("import torch\nx = torch.zeros(3)\nx.masked_fill(x > 0, 1.)\n", select=rule) == [
        (3, "inplace-result-discarded")]
    assert rules("x.masked_fill(m, 1.)\ny = 1\nx.masked_fill(m, 2.)\n", select=rule, cell_ends=[1]) == [
        (3, "inplace-result-discarded")]
    # review 37: calls that write through out= or a positional inplace change their tensor
    writes = ("import torch\nimport torch.nn.functional as F\nx = torch.zeros(3)\ntorch.clamp(x, min=0, out=x)\n"
              "F.relu(x, True)\nF.leaky_relu(x, 0.2, True)\nF.dropout(x, 0.1, True, True)\nself._fin.detach()\n"
              "F.relu(x, False)\n")
    assert rules(writes, select=rule) == [(9, "inplace-result-discarded")]
    # a module that shares a name with a tensor of another function is not a tensor
    scoped = ("import torch\nfrom torch import nn\ndef inputs():\n    emb = torch.randn(10, 4)\n    return emb\n"
              "def build():\n    emb = nn.Embedding(10, 4)\n    emb.cuda()\n    return emb\n"
              "def twice():\n    t = torch.zeros(2)\n    t = nn.Linear(2, 2)\n    t.cuda()\n")
    assert rules(scoped, select={"devices-to-not-assigned"}) == []
    quiet = ("import torch\nimport torch.nn.functional as F\nx = torch.zeros(3)\ny = x.masked_fill(x > 0, 1.)\n"
             "x.masked_fill_(x > 0, 1.)\nF.relu(x, inplace=True)\nmodel.to(device)\nmodel.half()\n"
             "ax.scatter(a, b)\ntorch.save(x, 'x.pt')\nx = x.to(torch.float16)\nnet = nn.Linear(2, 2)\n"
             "net.to(torch.float16)\n")
    assert rules(quiet, select=rule | {"devices-to-not-assigned"}) == []


def test_a_cells_last_expression_is_displayed_not_discarded(tmp_path):
    """In a notebook, each cell's last line with code shows its value (trailing blank lines
    aside); the same call before another line of the cell is thrown away."""
    nb = _nb_file(tmp_path, "shown.ipynb", "import torch\nx = torch.zeros(3)\nx.masked_fill(x > 0, 1.)\n\n",
                  "x.masked_fill(x > 0, 2.)\nprint(x)\n", "x.masked_fill(x > 0, 3.)  # shown\n# a comment after it\n",
                  "x.masked_fill(x > 0, 4.);\n")
    found, reason = lint.check_file(nb, select={"inplace-result-discarded"})
    # cell 2: not the last statement; cell 3: the last statement, a comment after it; cell 4: `;` hides it
    assert reason is None and [(f.line, f.where) for f in found] == [(5, "cell 2, line 1"), (9, "cell 4, line 1")]


def test_review_37_cases_of_the_other_rules(tmp_path):
    """Review 37: a config or metrics dict with an "optimizer" key is no checkpoint, an
    optimizer called opt is one, and a printed scaler state is not a saved one; a function's
    parameter or a loop variable named like the compiled model is not it; %%writefile NAME.py
    holds Python; a comment that ends in a backslash continues nothing; build/ copies are left
    out and a linked folder is named as skipped."""
    scaler = "import torch\nscaler = torch.amp.GradScaler('cuda')\n"
    rule = {"amp-scaler-not-checkpointed"}
    assert rules(scaler + "wandb.init(config={'optimizer': 'AdamW'})\nwandb.log({'optim/lr': 3e-4})\n",
                 select=rule) == []
    assert rules(scaler + "ckpt = {'model': model.state_dict(), 'opt': opt.state_dict()}\n", select=rule) == [
        (3, "amp-scaler-not-checkpointed")]
    assert rules(scaler + "print(scaler.state_dict())\nckpt = {'optimizer': optimizer.state_dict()}\n",
                 select=rule) == [(4, "amp-scaler-not-checkpointed")]
    compiled = ("import torch\nmodel = torch.compile(net)\ndef save(model, path):\n"
                "    torch.save(model.state_dict(), path)\nfor model in [net]:\n    model.state_dict()\n"
                "with open_model() as model:\n    model.state_dict()\n")
    assert rules(compiled, select={"compile-orig-mod-prefix"}) == []
    ddp_script = "%%writefile ddp_example.py\nimport torch\nx = Variable(t, volatile=True)\n"
    comment = "!pip install x\n# data in C:\\data\\\n%matplotlib inline\n" + VOLATILE
    for name, cell, line in [("writefile", ddp_script, 3), ("comment", comment, 4)]:
        found, reason = lint.check_file(_nb_file(tmp_path, f"{name}.ipynb", cell))
        assert reason is None and [f.line for f in found] == [line], (name, reason)
    project = tmp_path / "proj"
    for folder in ("proj/src", "proj/build/lib", "proj/dist", "elsewhere"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "m.py").write_text(VOLATILE, encoding="utf-8")
    (project / "src" / "linked").symlink_to(tmp_path / "elsewhere")
    done = _run(str(project))
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip() == f"{project / 'src' / 'linked'}: skipped: {lint.LINKED_FOLDER}"
    assert [line.split(":")[0] for line in done.stdout.splitlines()] == [str(project / "src" / "m.py")]


def test_the_ddp_prefix_rule_follows_the_wrapper_in_source_order():
    """Field test 2 (reports/lint.md): MAE takes the plain model's state_dict() before wrapping
    it (a false finding), DINO assigns the wrapper before a deeper assignment in an elif (a miss)."""
    rule = {"checkpoint-ddp-module-prefix"}
    mae = ("import torch\nmodel = build()\nstate_dict = model.state_dict()\n"
           "model = torch.nn.parallel.DistributedDataParallel(model)\nmodel_without_ddp = model.module\n"
           "torch.save({'model': model_without_ddp.state_dict()}, 'x.pth')\n")
    assert rules(mae, select=rule) == []
    dino = ("import torch\nif arch == 'a':\n    student = make()\nelif arch == 'b':\n    student = torch.hub.load('x', 'y')\n"
            "student = nn.parallel.DistributedDataParallel(student)\nsave_dict = {'student': student.state_dict()}\n")
    assert rules(dino, select=rule) == [(7, "checkpoint-ddp-module-prefix")]
    # build-nanogpt: the unwrap idiom takes .module exactly when the model is wrapped
    assert rules(NANOGPT.replace("import torch\n", "import torch\nfrom torch import nn\n"), select=rule) == []
    assert rules(NANOGPT.replace("model.module if ddp else model", "model if not ddp else model.module"),
                 select=rule | {"compile-orig-mod-prefix"}) == [(11, "compile-orig-mod-prefix")]


def test_a_grad_mode_called_on_a_line_of_its_own_is_found():
    """kuprel/min-dalle#24: `torch.no_grad()` as a statement enters nothing; in `with`, as a
    decorator, or set_grad_enabled(False) as a call, it works."""
    rule = {"inference-no-grad-not-entered"}
    code = ("import torch\nfrom torch import no_grad\ntorch.no_grad()\nno_grad()\ntorch.inference_mode()\n"
            "with torch.no_grad():\n    pass\n@torch.no_grad()\ndef f():\n    pass\ntorch.set_grad_enabled(False)\n")
    assert rules(code, select=rule) == [(3, "inference-no-grad-not-entered"), (4, "inference-no-grad-not-entered"),
                                        (5, "inference-no-grad-not-entered")]
    spelled = "import torch\ntorch.autograd.inference_mode()\ntorch.autograd.grad_mode.no_grad()\ntorch.enable_grad()\n"
    assert [f.detail for f in lint.lint_code(spelled, select=rule)] == [
        "use it in a with statement: with torch.inference_mode():", "use it in a with statement: with torch.no_grad():",
        "use it in a with statement: with torch.enable_grad():"]
