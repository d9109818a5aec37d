"""Benchmark of the build and the tests; writes reports/bench.md. A script, not a test:

    .venv/bin/python tests/bench.py              # everything, the full test run included (~10 min)
    .venv/bin/python tests/bench.py --no-pytest  # builds and serve reloads only (~3 min)

Everything runs in a copy of the working tree in a temporary folder, with its own empty
results store, so the repository, its store and reports/ (but bench.md) are left alone. The
machines are noisy: the targets are ratios between figures measured in the same run; short
measurements are the median of three.
"""

from __future__ import annotations

import argparse
import os
import queue
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = "docs/en/tensors/gather.md"  # the page edited; it has 32 blocks
BEFORE = {  # measured on landed main before the store (issue 9), same kind of machine
    "cold": "59 s", "unchanged": "59 s (12x the floor)", "prose_serve": "55 s",
    "pytest": "8 min 8 s (8x a cold build)",
}


def copy_tree(dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def timed(args: list[str], cwd: Path, env: dict | None = None) -> float:
    start = time.monotonic()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **(env or {})})
    seconds = time.monotonic() - start
    if done.returncode:
        sys.exit(f"failed: {' '.join(args)}\n{(done.stdout + done.stderr)[-3000:]}")
    return seconds


def build(cwd: Path, *extra: str) -> float:
    return timed([sys.executable, "docs/site.py", "build", "--out", "site", *extra], cwd)


def median(f, n: int = 3) -> float:
    return statistics.median(f() for _ in range(n))


class Edits:
    """Prose and code edits of one page, each different from the last (so each is a change)."""

    def __init__(self, project: Path):
        self.path, self.n = project / PAGE, 0
        self.original = self.path.read_text(encoding="utf-8")

    def prose(self) -> None:
        self.n += 1
        self.path.write_text(self.original + f"\nA paragraph added by the benchmark ({self.n}).\n",
                             encoding="utf-8")

    def code(self) -> None:
        self.n += 1
        first = self.original.index("```python\n") + len("```python\n")
        self.path.write_text(self.original[:first] + f"# benchmark edit {self.n}\n" + self.original[first:],
                             encoding="utf-8")


class Serve:
    """``mkdocs serve`` (English) in the copy; times a rebuild from an edit to 'Reloading browsers'."""

    def __init__(self, project: Path, env: dict, *extra: str):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = port = s.getsockname()[1]
        self.proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "-a", f"127.0.0.1:{port}", *extra],
                                     cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env={**os.environ, "NO_MKDOCS_2_WARNING": "1", **env})
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.proc.stdout], daemon=True).start()
        self.wait_for("Serving on")

    def wait_for(self, text: str, timeout: float = 600) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                continue
            if "ERROR" in line or "Aborted" in line:
                sys.exit(f"mkdocs serve: {line}")
            if text in line:
                return
        sys.exit(f"mkdocs serve: no '{text}' within {timeout} s")

    def reload(self, edit) -> float:
        start = time.monotonic()
        edit()
        self.wait_for("Reloading browsers")
        return time.monotonic() - start

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait()


class Preview:
    """A preview as a writer sees it: ``mkdocs serve`` (``--dirty`` or not) and the edited page
    open in headless Chromium; times a save to the moment the new text shows in the browser."""

    def __init__(self, project: Path, *extra: str):
        from playwright.sync_api import sync_playwright

        sys.path.insert(0, str(ROOT / "tests"))
        from browsing import launch

        self.serve = Serve(project, {}, *extra)
        self.playwright = sync_playwright().start()
        self.browser = launch(self.playwright)
        self.page = self.browser.new_page()
        url = f"http://127.0.0.1:{self.serve.port}/en/" + PAGE.removeprefix("docs/en/").removesuffix(".md") + "/"
        self.page.goto(url)

    def shows(self, edit, text: str, timeout: float = 120) -> float:
        start = time.monotonic()
        edit()
        self.page.wait_for_function("t => document.body && document.body.innerText.includes(t)", arg=text,
                                    timeout=timeout * 1000, polling=20)
        return time.monotonic() - start

    def stop(self) -> None:
        self.browser.close()
        self.playwright.stop()
        self.serve.stop()


def preview_figures(project: Path, edits: Edits, m: dict[str, float]) -> None:
    """Save-to-browser times of a prose and a code edit, under plain and dirty ``mkdocs serve``."""
    for name, extra in (("plain", ()), ("dirty", ("--dirty",))):
        print(f"preview in Chromium, mkdocs serve {' '.join(extra)}...", flush=True)
        preview = Preview(project, *extra)
        m[f"preview_{name}_prose"] = median(lambda: preview.shows(edits.prose, f"by the benchmark ({edits.n + 1})"))
        m[f"preview_{name}_code"] = median(lambda: preview.shows(edits.code, f"# benchmark edit {edits.n + 1}"))
        preview.stop()


def staleness_seconds() -> float:
    """Translation staleness over the repository's whole history (no baseline), nothing cached:
    the cost a cold build pays to say which translations lag (fieldnotes.staleness). Best of 3."""
    from fieldnotes import staleness

    seconds = []
    for _ in range(3):
        staleness._history.cache_clear()
        start = time.perf_counter()
        staleness.check(ROOT / "docs", None)
        seconds.append(time.perf_counter() - start)
    return min(seconds)


def page_run_seconds(project: Path) -> float:
    code = ("import sys, time\nfrom pathlib import Path\nfrom fieldnotes.blocks import read_blocks\n"
            "from fieldnotes.execute import run_page\nblocks = read_blocks(Path(sys.argv[1]))\n"
            "start = time.monotonic()\nassert run_page(blocks, Path.cwd()).ok\nprint(time.monotonic() - start)\n")
    return statistics.median(float(subprocess.run([sys.executable, "-c", code, PAGE], cwd=project, check=True,
                                                  capture_output=True, text=True).stdout) for _ in range(3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-pytest", action="store_true", help="skip the full test run")
    parser.add_argument("--preview", action="store_true",
                        help="only the preview figures (mkdocs serve and --dirty, in Chromium), printed")
    args = parser.parse_args()
    m: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="fieldnotes-bench-") as tmp:
        project = copy_tree(Path(tmp))
        edits = Edits(project)
        if args.preview:  # the store holds every page, as for a contributor who built once
            if (ROOT / ".cache" / "fieldnotes").is_dir():
                shutil.copytree(ROOT / ".cache" / "fieldnotes", project / ".cache" / "fieldnotes")
            build(project)
            m["page_run"] = page_run_seconds(project)
            preview_figures(project, edits, m)
            print("\n".join(f"{k}: {v:.2f} s" for k, v in m.items()))
            return

        print("floor: builds with execution off ...", flush=True)
        m["floor"] = median(lambda: build(project, "--no-exec"))
        print("cold build ...", flush=True)
        m["cold"] = build(project)
        print("builds with nothing changed ...", flush=True)
        m["unchanged"] = median(lambda: build(project))
        print("builds after a prose edit ...", flush=True)
        m["prose"] = median(lambda: (edits.prose(), build(project))[1])
        print("builds after a code edit, and the page's own run ...", flush=True)
        m["code"] = median(lambda: (edits.code(), build(project))[1])
        m["page_run"] = page_run_seconds(project)
        m["staleness"] = staleness_seconds()
        print("mkdocs serve reloads ...", flush=True)
        serve = Serve(project, {"FIELDNOTES_EXECUTE": "0"})
        m["serve_floor"] = median(lambda: serve.reload(edits.prose))
        serve.stop()
        serve = Serve(project, {})
        m["serve_prose"] = median(lambda: serve.reload(edits.prose))
        m["serve_code"] = median(lambda: serve.reload(edits.code))
        serve.stop()
        preview_figures(project, edits, m)
        if not args.no_pytest:
            print("python -m pytest (the whole suite) ...", flush=True)
            shutil.rmtree(project / ".cache", ignore_errors=True)
            (project / PAGE).write_text(edits.original, encoding="utf-8")
            m["pytest"] = timed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], project)
    write_report(m)


def write_report(m: dict[str, float]) -> None:
    floor, sfloor, page = m["floor"], m["serve_floor"], m["page_run"]
    rows = [
        ("build, execution off (the floor)", m["floor"], "", "", BEFORE.get("floor", "4.9 s")),
        ("cold build (empty store)", m["cold"], "", "", BEFORE["cold"]),
        ("build, nothing changed", m["unchanged"], f"{m['unchanged'] / floor:.2f}x floor", "≤ 1.3x floor",
         BEFORE["unchanged"]),
        ("build after a prose edit", m["prose"], f"{m['prose'] / floor:.2f}x floor", "≤ 1.3x floor", "59 s"),
        (f"build after a code edit of {PAGE}", m["code"], f"floor + {m['code'] - floor:.1f} s",
         f"≤ floor + page run ({page:.1f} s) + 2 s", "59 s"),
        ("`mkdocs serve` reload, execution off (serve floor)", sfloor, "", "", ""),
        ("`mkdocs serve` reload after a prose edit", m["serve_prose"], f"{m['serve_prose'] / sfloor:.2f}x serve floor",
         "≤ 1.3x serve floor", BEFORE["prose_serve"]),
        ("`mkdocs serve` reload after a code edit", m["serve_code"], f"serve floor {m['serve_code'] - sfloor:+.1f} s",
         f"≤ serve floor + page run ({page:.1f} s) + 2 s", "55 s"),
    ]
    met = {
        "build, nothing changed": m["unchanged"] <= 1.3 * floor,
        "build after a prose edit": m["prose"] <= 1.3 * floor,
        f"build after a code edit of {PAGE}": m["code"] <= floor + page + 2,
        "`mkdocs serve` reload after a prose edit": m["serve_prose"] <= 1.3 * sfloor,
        "`mkdocs serve` reload after a code edit": m["serve_code"] <= sfloor + page + 2,
    }
    if "preview_dirty_prose" in m:
        rows += [
            ("preview in Chromium, `mkdocs serve`: save of a prose edit to the text shown", m["preview_plain_prose"],
             "", "", "3.7 s quiet, 12 s busy (issue 21)"),
            ("preview in Chromium, `mkdocs serve --dirty`: save of a prose edit to the text shown",
             m["preview_dirty_prose"], f"{m['preview_plain_prose'] / m['preview_dirty_prose']:.1f}x faster than plain",
             "≤ 1.5 s", ""),
            ("preview in Chromium, `mkdocs serve`: save of a code edit to the new code shown", m["preview_plain_code"],
             "", "", ""),
            ("preview in Chromium, `mkdocs serve --dirty`: save of a code edit to the new code shown",
             m["preview_dirty_code"], f"{m['preview_dirty_code'] - m['preview_dirty_prose']:+.1f} s on the prose edit",
             f"≤ 1.5 s + page run ({page:.1f} s)", ""),
        ]
        met["preview in Chromium, `mkdocs serve --dirty`: save of a prose edit to the text shown"] = \
            m["preview_dirty_prose"] <= 1.5
        met["preview in Chromium, `mkdocs serve --dirty`: save of a code edit to the new code shown"] = \
            m["preview_dirty_code"] <= 1.5 + page
    if "staleness" in m:
        commits = subprocess.run(["git", "rev-list", "--count", "--first-parent", "HEAD"], cwd=ROOT,
                                 capture_output=True, text=True).stdout.strip()
        rows.append(("translation staleness over the whole history (no baseline, nothing cached)", m["staleness"],
                     f"{commits} commits", "≤ 0.5 s", ""))
        met["translation staleness over the whole history (no baseline, nothing cached)"] = m["staleness"] <= 0.5
    if "pytest" in m:
        rows.append(("`python -m pytest` (everything)", m["pytest"], f"{m['pytest'] / m['cold']:.2f}x cold build",
                     "≤ 3x cold build", BEFORE["pytest"]))
        met["`python -m pytest` (everything)"] = m["pytest"] <= 3 * m["cold"]
    lines = ["# Benchmark: build and tests (tests/bench.py)", "",
             f"{os.cpu_count()} cores; measured {time.strftime('%Y-%m-%d')}, all in one run; "
             "short figures are medians of three. Both languages are built in every build.", "",
             "| measurement | seconds | ratio | target | met | before (issue 9; preview: issue 21) |", "|---|---|---|---|---|---|"]
    for name, seconds, ratio, target, before in rows:
        mark = ("yes" if met[name] else "**no**") if name in met else ""
        lines.append(f"| {name} | {seconds:.1f} | {ratio} | {target} | {mark} | {before} |")
    lines += ["", f"The page's own run ({PAGE}, in one page interpreter): {page:.1f} s.",
              "", "Preview figures: the page open in headless Chromium with MkDocs' live reload, timed from the "
              "file write to the moment the page's text contains the edit (polled every 20 ms); the "
              "store holds every page's run, as for a contributor who has built once."]
    report = ROOT / "reports" / "bench.md"
    report.parent.mkdir(exist_ok=True)
    report.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
