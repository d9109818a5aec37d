"""Shared fixtures: the whole site built once per test session, strictly, in a temp folder."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "hooks"))
BUILD_TIMEOUT = 900


@dataclass
class Built:
    path: Path
    status: int
    log: str


def build_site(out: Path, root: Path = ROOT) -> Built:
    """``python docs/site.py build`` (both languages, --strict) into ``out``."""
    done = subprocess.run([sys.executable, str(root / "docs" / "site.py"), "build", "--out", str(out)],
                          cwd=root, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    return Built(out, done.returncode, done.stdout + done.stderr)


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Built:
    return build_site(tmp_path_factory.mktemp("site"))
