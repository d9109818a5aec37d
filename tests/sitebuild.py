"""Building the whole site for tests: where it goes, which port it is served on, which browser."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "docs" / "hooks"))
BUILD_TIMEOUT = 900
BROWSER = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = ROOT / "reports" / "screenshots"


@dataclass
class Built:
    path: Path
    status: int
    log: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


PORT = free_port()  # the built site's URLs name the port it is served on (language switch)


def build_site(out: Path, root: Path = ROOT) -> Built:
    """``python docs/site.py build`` (both languages, --strict) into ``out``."""
    done = subprocess.run([sys.executable, str(root / "docs" / "site.py"), "build", "--out", str(out),
                           "--base-url", f"http://127.0.0.1:{PORT}/"],
                          cwd=root, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    return Built(out, done.returncode, done.stdout + done.stderr)


