"""Checks on the GitHub Actions workflows in .github/workflows/.

(a) each workflow is valid against the GitHub workflow JSON schema
    (check-jsonschema's vendored copy, so no network is needed);
(b) zizmor, a security linter for workflows, reports nothing of medium
    severity or above;
(c) every action is pinned to a full commit SHA, with the tag as a comment.

The issue forms in .github/ISSUE_TEMPLATE/ are schema-checked too.

check-jsonschema and zizmor are run from the Python environment that runs
the tests (they are in requirements.txt).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
GITHUB_DIR = ROOT / ".github"
WORKFLOWS_DIR = GITHUB_DIR / "workflows"
ISSUE_TEMPLATE_DIR = GITHUB_DIR / "ISSUE_TEMPLATE"

WORKFLOWS = sorted(
    path for path in WORKFLOWS_DIR.glob("*") if path.suffix in {".yml", ".yaml"}
)
ISSUE_FORMS = sorted(
    path
    for path in ISSUE_TEMPLATE_DIR.glob("*")
    if path.suffix in {".yml", ".yaml"} and path.stem != "config"
)

SUBPROCESS_TIMEOUT = 100  # seconds; below the pytest timeout, for a clearer error


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _executable(name: str) -> str:
    """Path of a console script installed in the running Python environment."""
    exe = name + (".exe" if os.name == "nt" else "")
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = folder / exe
        if candidate.is_file():
            return str(candidate)
    pytest.fail(
        f"{name} is not installed in this Python environment ({sys.executable}); "
        "run: python -m pip install -r requirements.txt"
    )


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=SUBPROCESS_TIMEOUT,
        check=False,
    )


def _output(result: subprocess.CompletedProcess[str]) -> str:
    return f"exit code {result.returncode}\n{result.stdout}\n{result.stderr}".rstrip()


def _check_schema(path: Path, schema: str) -> None:
    result = _run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)]
    )
    if result.returncode != 0:
        pytest.fail(
            f"{_rel(path)} does not match the {schema} schema:\n{_output(result)}",
            pytrace=False,
        )


@pytest.mark.timeout(120)
def test_workflows_exist() -> None:
    names = {path.name for path in WORKFLOWS}
    assert {"pr.yml", "deploy.yml", "gpu.yml"} <= names, names


@pytest.mark.timeout(120)
@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda path: path.name)
def test_workflow_schema(path: Path) -> None:
    _check_schema(path, "vendor.github-workflows")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("path", ISSUE_FORMS, ids=lambda path: path.name)
def test_issue_form_schema(path: Path) -> None:
    _check_schema(path, "vendor.github-issue-forms")


@pytest.mark.timeout(120)
def test_issue_template_config_schema() -> None:
    _check_schema(ISSUE_TEMPLATE_DIR / "config.yml", "vendor.github-issue-config")


@pytest.mark.timeout(120)
def test_zizmor_finds_nothing_medium_or_above() -> None:
    result = _run(
        [
            _executable("zizmor"),
            "--offline",  # no GitHub API calls; online audits are skipped
            "--min-severity",
            "medium",
            "--strict-collection",  # a workflow zizmor cannot parse is an error
            "--format",
            "plain",
            "--color",
            "never",
            "--no-progress",
            _rel(WORKFLOWS_DIR),
        ]
    )
    # zizmor exits 0 when it reports nothing, 1 or 2 when it could not run
    # (e.g. a file it cannot parse), and 10 or more when it reports findings.
    if result.returncode >= 10:
        pytest.fail(
            f"zizmor reported findings of medium severity or above:\n{_output(result)}",
            pytrace=False,
        )
    if result.returncode != 0:
        pytest.fail(f"zizmor could not audit the workflows:\n{_output(result)}", pytrace=False)


# --- (c) pinning -------------------------------------------------------------

SHA_PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[^@\s]+)?@[0-9a-f]{40}$")
DOCKER_PINNED = re.compile(r"^docker://[^@\s]+@sha256:[0-9a-f]{64}$")
USES_LINE = re.compile(
    r"""^\s*(?:-\s+)?uses:\s*(?P<q>['"]?)(?P<ref>[^'"\s#]+)(?P=q)\s*(?:\#\s*(?P<comment>.*?))?\s*$"""
)
VERSION_COMMENT = re.compile(r"^v\d+(\.\d+)*\S*$")


def _uses_in_yaml(path: Path) -> list[str]:
    """Every `uses:` of a job (reusable workflow) or a step, from the parsed YAML."""
    # ruamel.yaml comes with check-jsonschema; imported here so that a missing
    # package fails these tests only, not the collection of the whole suite.
    from ruamel.yaml import YAML

    data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for job in (data.get("jobs") or {}).values():
        if "uses" in job:
            found.append(job["uses"])
        for step in job.get("steps") or []:
            if "uses" in step:
                found.append(step["uses"])
    return found


def _uses_lines(path: Path) -> dict[str, list[str | None]]:
    """`uses:` value -> the comments on the lines where it is written."""
    lines: dict[str, list[str | None]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = USES_LINE.match(line)
        if match:
            lines.setdefault(match["ref"], []).append(match["comment"])
    return lines


@pytest.mark.timeout(120)
@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda path: path.name)
def test_actions_pinned_to_commit_sha(path: Path) -> None:
    uses = _uses_in_yaml(path)
    assert uses, f"{_rel(path)} uses no actions"
    comments = _uses_lines(path)

    problems = []
    for ref in uses:
        if ref.startswith("./"):
            continue  # an action in this repository: pinned by the checkout
        if ref.startswith("docker://"):
            if not DOCKER_PINNED.match(ref):
                problems.append(f"{ref}: pin the image by digest (@sha256:...)")
            continue
        if not SHA_PINNED.match(ref):
            problems.append(f"{ref}: pin to a full 40-hex commit SHA")
            continue
        if ref not in comments:
            problems.append(f"{ref}: write it on one line as `uses: {ref} # vX.Y.Z`")
            continue
        for comment in comments[ref]:
            if not comment or not VERSION_COMMENT.match(comment):
                problems.append(
                    f"{ref}: add the release tag as a comment, e.g. `# v1.2.3` "
                    f"(found {comment!r})"
                )
    if problems:
        pytest.fail(f"{_rel(path)}:\n" + "\n".join(problems), pytrace=False)


def test_deploy_publishes_what_its_own_tests_executed():
    """The deploy job runs each page once: its tests run every page fresh into a store of the job's
    own (emptied first, under the runner's temporary folder), and its build reuses those runs and
    no other. No stored run from elsewhere reaches the published site, and no recorded run of a
    take-away file stands for one (fieldnotes.filerecords)."""
    deploy = yaml.safe_load((GITHUB_DIR / "workflows" / "deploy.yml").read_text(encoding="utf-8"))
    job = deploy["jobs"]["build"]
    assert job["env"]["FIELDNOTES_STORE"].startswith("${{ runner.temp }}/"), job.get("env")
    runs = [step.get("run", "") for step in job["steps"]]
    tests = next(i for i, run in enumerate(runs) if "python -m pytest" in run)
    build = next(i for i, run in enumerate(runs) if "python docs/site.py build" in run)
    assert tests < build, "the build reuses the tests' runs: the tests come first"
    assert runs[tests].index('rm -rf "${FIELDNOTES_STORE}"') < runs[tests].index("python -m pytest")
    assert all("FIELDNOTES_STORE" not in step.get("env", {}) for step in job["steps"]), "one store for the job"
    # the notebooks and scripts it publishes run in this job, whatever tests/file-runs.json records
    assert job["steps"][tests].get("env", {}).get("FIELDNOTES_FILE_RECORD") == "off", job["steps"][tests]
