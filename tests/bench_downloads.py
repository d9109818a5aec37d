"""What the take-away files (issue 23: notebooks and scripts, llms.txt, source and git dates)
add to the site and to a build; writes reports/downloads.md. A script, not a test:

    .venv/bin/python tests/bench_downloads.py [--before COMMIT]   (~3 min)

Both trees (the commit before, default 5074ffa, and the working tree) are copied to temporary
folders and built the same way, three times each, alternating, each with its own fieldnotes
package, with execution off (``--no-exec``: no page runs, so the figure is what this machinery
costs, not the pages' code, and no results store is involved). The site's size is counted file by file.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from bench import ROOT, copy_tree, timed
from sitebuild import write_report

BEFORE = "5074ffa"


def export(commit: str, dest: Path) -> Path:
    data = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def sizes(site: Path) -> dict[str, int]:
    found = {"all": 0, "notebooks": 0, "scripts": 0, "llms.txt": 0, "html": 0, "files": 0}
    for path in site.rglob("*"):
        if not path.is_file():
            continue
        size = path.stat().st_size
        found["all"] += size
        found["files"] += 1
        if path.suffix == ".ipynb" and path.parent.name == path.stem or path.name == "home.ipynb":
            found["notebooks"] += size
        elif path.suffix == ".py":
            found["scripts"] += size
        elif path.name == "llms.txt":
            found["llms.txt"] += size
        elif path.suffix == ".html":
            found["html"] += size
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fieldnotes-bench-") as tmp:
        trees = {"before": export(args.before, Path(tmp) / "before"), "after": copy_tree(Path(tmp) / "after")}
        times: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(3):
            for name, tree in trees.items():
                # Each tree's own fieldnotes package, not the one requirements.txt installs (editable,
                # from this checkout): the hooks import it by name.
                env = {"PYTHONPATH": str(tree / "docs")}
                times[name].append(timed([sys.executable, "docs/site.py", "build", "--no-exec", "--out", "site"],
                                         tree, env))
        measured = {name: sizes(tree / "site") for name, tree in trees.items()}
    b, a = (statistics.median(times[n]) for n in ("before", "after"))
    mb = lambda n: f"{n / 1e6:.2f} MB"  # noqa: E731
    lines = [
        "# What notebooks, scripts, llms.txt and git dates add",
        "",
        f"Measured by `tests/bench_downloads.py` on this machine, {args.before} against the working tree, "
        "both languages, execution off (`--no-exec`), median of 3 alternating builds.",
        "",
        "| | before | after |",
        "|---|---|---|",
        f"| build, both languages | {b:.1f} s | {a:.1f} s ({a / b:.2f}x) |",
        f"| site size | {mb(measured['before']['all'])} | {mb(measured['after']['all'])} "
        f"(+{mb(measured['after']['all'] - measured['before']['all'])}) |",
        f"| files | {measured['before']['files']} | {measured['after']['files']} |",
        f"| notebooks (.ipynb beside their pages) | | {mb(measured['after']['notebooks'])} |",
        f"| scripts (.py) | | {mb(measured['after']['scripts'])} |",
        f"| llms.txt (both) | | {measured['after']['llms.txt'] / 1e3:.1f} KB |",
        f"| HTML pages | {mb(measured['before']['html'])} | {mb(measured['after']['html'])} |",
        "",
        "Each build: " + ", ".join(f"{n} " + " / ".join(f"{t:.1f}" for t in times[n]) + " s" for n in times),
    ]
    write_report("downloads.md", lines, "")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
