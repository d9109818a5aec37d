"""Where CI's time goes: README command 2 on a fresh clone, split by what it does (reports/ci-time.md).

Why: the suite grows with every page, and CI has a budget (12 minutes aimed for, on 2 cores). To
make it cheaper without losing a check, first know what costs what. This script clones the
repository (a commit, default HEAD) into a temporary folder, runs README command 2 there as a
newcomer would (the clone's README command 2: a new virtual environment, ``pip install``, ``python -m pytest``,
with the timing plugin ``tests/timing.py`` added by ``-p timing``), and splits the time into:

* install: the venv and ``pip install`` (from this machine's package cache, as CI's is);
* collection: pytest reading every page and test module;
* build: the strict site build the tests make (``built_site``), both languages;
* page blocks: the pages' items (their runs start when collection ends and go on while the
  tests that need no site run: the wall time charged here is only what the items waited for);
* notebooks and scripts: every page's take-away files executed (``test_downloads``);
* browser tests: ``test_browser`` (every page in Chromium, both languages), search in the browser
  counted under search; search: ``test_search``;
* the rest: every other test, and the session's start and end.

The cost of one more page is each per-page part divided by the number of pages. Each run is kept
in ``reports/ci-time.json`` under its label (``--label before``), and ``reports/ci-time.md`` is
written from all of them, so a before and an after sit side by side.

    .venv/bin/python tests/ci_time.py --label after            # HEAD, quiet machine
    .venv/bin/python tests/ci_time.py --label before --rev ac4befc
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from stress import command_2

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "reports" / "ci-time.md"
DATA = ROOT / "reports" / "ci-time.json"
PARTS = ("install", "collection", "build", "page blocks", "notebooks and scripts", "browser tests", "search",
         "the rest")
PER_PAGE = ("build", "page blocks", "notebooks and scripts", "browser tests")
"""The parts that grow with the number of pages (each page is built, run, run as files, toured)."""


def category(test_id: str) -> str:
    if test_id.startswith("docs/"):
        return "page blocks"
    if test_id.startswith("tests/test_downloads.py::test_the_files_print_what_the_page_shows"):
        return "notebooks and scripts"
    if test_id.startswith("tests/test_browser.py"):
        return "browser tests"
    if test_id.startswith("tests/test_search.py"):
        return "search"
    return "the rest"


def busy(timing: dict) -> dict[str, float]:
    """Per part, the mean share of all cores that were busy while its tests ran (1.0: every core)."""
    cpu = timing.get("cpu", [])
    sums: dict[str, list[float]] = {}
    for test in timing["tests"]:
        start, stop = test["start"], test["start"] + test["seconds"]
        sums.setdefault(category(test["id"]), []).extend(share for at, share in cpu if start < at <= stop)
    sums.setdefault("collection", []).extend(share for at, share in cpu if at <= timing["collected"])
    return {part: round(sum(v) / len(v), 2) for part, v in sums.items() if v}


def split(timing: dict, install: float) -> dict[str, float]:
    """Seconds per part, adding up to the run's wall time (install, then pytest's session)."""
    parts = dict.fromkeys(PARTS, 0.0)
    parts["install"] = install
    parts["collection"] = timing["collected"] - timing["start"]
    build = [f for f in timing["fixtures"] if f["name"] == "built_site"]
    parts["build"] = sum(f["seconds"] for f in build)
    for test in timing["tests"]:
        parts[category(test["id"])] += test["seconds"]
    for f in build:  # the build ran inside the setup of the first test that needed it
        parts[category(f["test"])] -= f["seconds"]
    counted = sum(parts.values()) - install
    parts["the rest"] += (timing["end"] - timing["start"]) - counted  # between tests, start and end
    return parts


def count_pages(root: Path) -> int:
    sys.path.insert(0, str(root / "docs"))
    from fieldnotes.blocks import read_blocks

    return sum(1 for p in (root / "docs" / "en").rglob("*") if p.suffix in (".md", ".ipynb")
               and read_blocks(p, root=root))


def measure(rev: str, keep: bool) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="fieldnotes-ci-time-"))
    clone = folder / "clone"
    subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", rev], cwd=clone, check=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True,
                            check=True).stdout.strip()
    if not (clone / "tests" / "timing.py").exists():  # an older commit: the plugin alone, nothing else
        shutil.copy(ROOT / "tests" / "timing.py", clone / "tests" / "timing.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith("FIELDNOTES_") and k != "VIRTUAL_ENV"}
    env.update(CI="true", NO_MKDOCS_2_WARNING="1", FIELDNOTES_TIMING=str(folder / "timing.json"))
    print(f"ci-time: {commit} in {clone}", flush=True)
    start = time.monotonic()
    install_command, _, _ = command_2(clone / "README.md").partition(" && .venv/bin/python -m pytest")
    subprocess.run(install_command, shell=True, cwd=clone, env=env, check=True, stdout=subprocess.DEVNULL)
    install = time.monotonic() - start
    print(f"ci-time: install {install:.0f} s; running the tests", flush=True)
    log = folder / "pytest.log"
    with log.open("w") as out:
        status = subprocess.run([".venv/bin/python", "-m", "pytest", "-p", "timing"], cwd=clone, env=env,
                                stdout=out, stderr=subprocess.STDOUT).returncode
    total = time.monotonic() - start
    timing = json.loads((folder / "timing.json").read_text(encoding="utf-8"))
    summary = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1]
    result = {"commit": commit, "status": status, "summary": summary, "seconds": round(total, 1),
              "pages": count_pages(clone), "cores": os.cpu_count(), "load": round(os.getloadavg()[0], 2),
              "python": platform.python_version(), "date": time.strftime("%Y-%m-%d"),
              "parts": {k: round(v, 1) for k, v in split(timing, install).items()}, "busy": busy(timing),
              "busy_all": round(sum(s for _, s in timing["cpu"]) / max(1, len(timing["cpu"])), 2)}
    if keep:
        print(f"ci-time: kept {folder}")
    else:
        shutil.rmtree(folder, ignore_errors=True)
    return result


def write(runs: dict[str, dict]) -> None:
    lines = ["# CI time: README command 2 on a fresh clone, part by part", "",
             "Written by `tests/ci_time.py` (each run: a fresh clone of the commit, a new virtual environment, "
             "its README's `pip install`, `python -m pytest`), on 2 quiet cores. Page blocks run in "
             "the background from the end of collection, while the tests that need no site run; the "
             "time charged to them is what their items still waited for.", ""]
    labels = list(runs)
    lines += ["Cores busy: the mean share of both cores in use while that part's tests ran (1.0: both, all "
              "the time); what a part leaves idle, work started earlier can use.", ""]
    lines += ["| part | " + " | ".join(f"{label} ({runs[label]['commit']}), s | share | cores busy"
                                       for label in labels) + " |",
              "|---|" + "---:|---:|---:|" * len(labels)]
    for part in PARTS:
        cells = []
        for label in labels:
            seconds, total = runs[label]["parts"][part], runs[label]["seconds"]
            used = runs[label].get("busy", {}).get(part)
            cells.append(f"{seconds:.0f} | {100 * seconds / total:.0f} % | {'' if used is None else f'{used:.2f}'}")
        lines.append(f"| {part} | " + " | ".join(cells) + " |")
    lines.append("| **total** | " + " | ".join(
        f"**{runs[label]['seconds']:.0f}** ({runs[label]['seconds'] / 60:.1f} min) | 100 % | {runs[label].get('busy_all', '')}"
        for label in labels) + " |")
    lines += ["", "| run | commit | date | pages per language | result | cost of one more page |",
              "|---|---|---|---:|---|---|"]
    for label in labels:
        run = runs[label]
        per = {part: run["parts"][part] / run["pages"] for part in PER_PAGE}
        cost = sum(per.values())
        lines.append(f"| {label} | {run['commit']} | {run['date']} | {run['pages']} | {run['summary']} (exit "
                     f"{run['status']}) | {cost:.1f} s (" + ", ".join(f"{part} {s:.1f}" for part, s in per.items())
                     + ") |")
    lines += ["", "The cost of one more page: each part that grows with the pages (build, page blocks, "
              "notebooks and scripts, browser tests), divided by the number of pages. At that rate, 60 topic "
              "pages per language take: " + "; ".join(
                  f"{label} {(runs[label]['seconds'] + (60 - runs[label]['pages']) * sum(runs[label]['parts'][p] for p in PER_PAGE) / runs[label]['pages']) / 60:.1f} min"
                  for label in labels) + ".", "",
              "Notebooks and scripts: since 407152f a page's take-away files run only when no run of their "
              "code in the same environment is recorded (`tests/file-runs.json`, `fieldnotes.filerecords`); "
              "each session's fresh page runs are held to the recorded runs. A change that adds or edits k "
              "pages without recording their runs (`tests/record_files.py`) runs those k pages' files: "
              "about the before run's notebooks-and-scripts figure per page, each."]
    REPORT.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="after", help="the run's name in the report (before, after)")
    parser.add_argument("--rev", default="HEAD", help="the commit to clone (default HEAD: commit first)")
    parser.add_argument("--keep", action="store_true", help="keep the clone and its logs")
    parser.add_argument("--write-only", action="store_true", help="rewrite the report from the runs kept")
    args = parser.parse_args()
    runs = json.loads(DATA.read_text(encoding="utf-8")) if DATA.exists() else {}
    if args.write_only:
        write(runs)
        return 0
    runs[args.label] = measure(args.rev, args.keep)
    DATA.write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    write(runs)
    print(f"ci-time: {runs[args.label]['seconds']:.0f} s, {runs[args.label]['summary']} -> {REPORT.relative_to(ROOT)}")
    return runs[args.label]["status"]


if __name__ == "__main__":
    sys.exit(main())
