"""What a page shows of what its blocks print, before a change and now; writes reports/outputs.md.

    .venv/bin/python tests/outputs_compare.py --before COMMIT     # about 3 minutes

A script, not a test (the tests are tests/test_outputs.py, tests/test_capture.py and the fault
pages of tests/test_failure_modes.py). For each tree (COMMIT in a temporary git worktree, and
the working tree), in one run on one machine:

- a strict build of a one-page project per case (a block printing page source, output below
  Python's ``sys.stdout``), and what the built page shows under the block;
- the page interpreter on blocks that print without end: how long until the block is stopped,
  and why (the output cap, or the 60 s time limit).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
F = "```"
PAGES = {
    "print-include": ("a print of `--8<-- \"mkdocs.yml\"`", "print('--8' + '<-- \"mkdocs.yml\"')"),
    "print-include-outside": ("a print of `--8<-- \"/etc/passwd\"`", "print('--8' + '<-- \"/etc/passwd\"')"),
    "print-admonition": ("a print of `!!! danger` and an indented line", "print('!!! danger \"x\"\\n    body')"),
    "os-system": ("`os.system(\"echo hi\")`", "import os\nos.system('echo hi')"),
    "subprocess": ("`subprocess.run([\"echo\", \"hi\"])`", "import subprocess\nsubprocess.run(['echo', 'hi'])"),
    "stdout-buffer": ("`sys.stdout.buffer.write(b\"hi\\n\")`", "import sys\nsys.stdout.buffer.write(b'hi\\n')"),
}
ENDLESS = {
    "python loop writing to sys.stdout": "import sys\nwhile True:\n    sys.stdout.write('x' * 100)\n",
    "os.system('yes')": "import os\nos.system('yes')\n",
}
LIMIT = 10  # seconds: the blocks' time limit here (60 by default); what the old executor wrote meanwhile, it read
RUN_ENDLESS = """
import json, sys, time
from pathlib import Path
from fieldnotes.blocks import Block
from fieldnotes.execute import run_page

def main():
    out = {}
    for name, code in json.loads(sys.argv[2]).items():
        block = Block("docs/en/page.md", 3, 8, "", "python", code, [f"docs/en/page.md:{i}" for i in range(4, 9)],
                      timeout=LIMIT)
        start = time.monotonic()
        run = run_page([block], Path(sys.argv[1]))
        out[name] = [round(time.monotonic() - start, 1), (run.first_error([block]) or "passed").splitlines()[0]]
    print(json.dumps(out))

if __name__ == "__main__":
    main()
"""


def project(tree: Path, folder: Path, name: str, code: str) -> Path:
    for part in ("docs/hooks", "docs/overrides", "snippets"):
        shutil.copytree(tree / part, folder / part, ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("docs/conftest.py", "docs/search-userdict.zh.txt", "mkdocs.yml"):
        shutil.copy(tree / part, folder / part)
    config = (folder / "mkdocs.yml").read_text(encoding="utf-8")
    start = config.index("\nnav:\n")
    end = config.index("\ntheme:")
    (folder / "mkdocs.yml").write_text(config[:start] + config[end:], encoding="utf-8")
    for lang in ("en", "zh"):
        (folder / "docs" / lang).mkdir(parents=True, exist_ok=True)
        (folder / "docs" / lang / "index.md").write_text("# Home\n", encoding="utf-8")
        (folder / "docs" / lang / f"{name}.md").write_text(f"# {name}\n\n{F}python\n{code}\n{F}\n", encoding="utf-8")
    return folder


def shown(tree: Path, scratch: Path) -> dict[str, str]:
    """Per case: the build's status and what the page shows under the block."""
    results = {}
    for name, (_, code) in PAGES.items():
        folder = project(tree, scratch / name, name, code)
        env = {"PYTHONPATH": str(tree / "docs"), "NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin",
               "FIELDNOTES_STORE": str(folder / ".store"), "HOME": str(scratch)}
        done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=600)
        page = folder / "site" / "en" / name / "index.html"
        if not page.exists():
            line = next((l for l in done.stderr.splitlines() if "Error" in l), done.stderr.strip()[-200:])
            results[name] = f"build aborted: {line.strip()[:160]}"
            continue
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        article = soup.select_one("article")
        outputs = [o.get_text() for o in article.select(".fn-output pre")]
        text = " / ".join(o.strip().replace("\n", "⏎")[:90] for o in outputs) or "(nothing under the block)"
        extra = " [page shows an admonition from the output]" if article.select(".admonition.danger") else ""
        status = "build passed" if done.returncode == 0 else "build failed"
        results[name] = f"{status}; shown: `{text}`{extra}"
    return results


def endless(tree: Path, scratch: Path) -> dict[str, list]:
    script = scratch / "endless.py"
    script.write_text(f"LIMIT = {LIMIT}\n" + RUN_ENDLESS, encoding="utf-8")
    out = {}
    for name, code in ENDLESS.items():  # a process each: one that dies takes no other case with it
        start = time.monotonic()
        done = subprocess.run([sys.executable, str(script), str(tree), json.dumps({name: code})],
                              env={"PYTHONPATH": str(tree / "docs"), "PATH": "/usr/bin:/bin"}, cwd=tree,
                              capture_output=True, text=True, timeout=600)
        if done.returncode:
            why = " (SIGKILL: out of memory?)" if done.returncode == -9 else ""
            out[name] = [round(time.monotonic() - start, 1),
                         f"the executor itself died, exit status {done.returncode}{why}"]
        else:
            out.update(json.loads(done.stdout.strip().splitlines()[-1]))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the commit to compare the working tree with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fieldnotes-outputs-") as tmp:
        tmp = Path(tmp)
        before = tmp / "before"
        subprocess.run(["git", "worktree", "add", "--detach", str(before), args.before], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            trees = {f"before ({args.before})": before, "now": ROOT}
            pages = {label: shown(tree, tmp / f"pages-{i}") for i, (label, tree) in enumerate(trees.items())}
            loops = {label: endless(tree, tmp) for label, tree in trees.items()}
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, check=True)
    lines = ["# Outputs: what a page shows of what its blocks print", "",
             f"Written by `tests/outputs_compare.py --before {args.before}` on {time.strftime('%Y-%m-%d')}: "
             "both trees measured in the same run, on the same machine.", "",
             "## A strict build of a page whose one block does this", "",
             "| block | " + " | ".join(trees) + " |", "|---|" + "---|" * len(trees)]
    for name, (label, _) in PAGES.items():
        lines.append(f"| {label} | " + " | ".join(pages[t][name].replace("|", "\\|") for t in trees) + " |")
    lines += ["", f"## A block that prints without end (time limit {LIMIT} s, output cap 64 KiB)", "",
              "| block | " + " | ".join(trees) + " |", "|---|" + "---|" * len(trees)]
    for name in ENDLESS:
        lines.append(f"| `{name}` | " + " | ".join(
            f"after {loops[t][name][0]} s: {loops[t][name][1].removeprefix('docs/en/page.md:3: ')[:90]}"
            for t in trees) + " |")
    (ROOT / "reports").mkdir(exist_ok=True)
    (ROOT / "reports" / "outputs.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
