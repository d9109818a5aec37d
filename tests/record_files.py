"""Record the runs of every page's notebook and script (tests/file-runs.json, fieldnotes.filerecords).

Why: the test run executes a take-away file only when no run of its code, in the same
environment, is recorded; a page whose code changed has no record, so its files run in CI until
this is run again. It runs the files' tests with every file executed fresh
(``FIELDNOTES_FILE_RECORD=off``; the runs land in the store), and, only if they all passed, writes
the record from those runs: one entry per page and kind, for the code the pages have now.

    .venv/bin/python tests/record_files.py                       # every page: about 7 minutes on 2 cores
    .venv/bin/python tests/record_files.py tensors/indexing.md   # the pages you changed (the others' runs
                                                                 # come from the store, or the command says so)

Then commit ``tests/file-runs.json``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "docs")]

from fieldnotes import filerecords  # noqa: E402


def main(pages: list[str]) -> int:
    env = dict(os.environ, **{filerecords.SWITCH: "off"})
    test = "tests/test_downloads.py::test_the_files_print_what_the_page_shows"
    tests = [f"{test}[{page}-{kind}]" for page in pages for kind in filerecords.KINDS] if pages else [test]
    status = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=ROOT,
                            env=env).returncode
    if status != 0:
        print(f"record_files: the files' tests failed (exit {status}): nothing recorded", file=sys.stderr)
        return status
    import test_downloads

    wanted = [(page, kind, filerecords.key(test_downloads.made_here(page)[0], kind, ROOT))
              for page in test_downloads.PAGES for kind in filerecords.KINDS]
    missing = filerecords.Records(ROOT).write(wanted)
    if missing:
        print("record_files: no run in the store for " + ", ".join(missing) + ": name those pages too, "
              "or none to record every page", file=sys.stderr)
        return 1
    print(f"record_files: {len(wanted)} runs recorded in {filerecords.RECORD}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
