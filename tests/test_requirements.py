"""requirements.txt is the whole environment, every package pinned exactly.

The README's commands install it with ``pip install --no-deps``: pip installs the list as written,
without resolving it again (13 % of a fresh install's time here). That is only right while the list
holds every package that a listed one requires, at a version that satisfies it, so these tests read
each listed package's own requirements (its installed metadata) against the list. (Before, torch's
``setuptools`` came in unpinned, resolved at install time.)
"""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from sitebuild import ROOT

REQUIREMENTS = ROOT / "requirements.txt"


def pins(text: str) -> dict[str, tuple[str, set[str]]]:
    """{package: (version, extras)} of the ``name[extras]==version`` lines (``-e .`` aside)."""
    found = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        req = Requirement(line)
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"requirements.txt: not pinned exactly: {line}"
        found[canonicalize_name(req.name)] = (specs[0].version, set(req.extras))
    return found


def unmet(pinned: dict[str, tuple[str, set[str]]]) -> list[str]:
    """What a ``--no-deps`` install of ``pinned`` would lack: each requirement of a pinned package
    (for the extras asked of it) that no pin satisfies, and each pin this environment does not have."""
    problems = []
    for name, (version, extras) in sorted(pinned.items()):
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            problems.append(f"{name}=={version} is not installed here")
            continue
        if not SpecifierSet(f"=={version}").contains(dist.version, prereleases=True):  # 2.13.0+cpu is 2.13.0
            problems.append(f"{name}: {dist.version} installed, {version} pinned")
        for line in dist.requires or []:
            req = Requirement(line)
            if req.marker and not any(req.marker.evaluate({"extra": e}) for e in extras | {""}):
                continue
            need = canonicalize_name(req.name)
            if need not in pinned:
                problems.append(f"{name} {version} requires {req}: not in requirements.txt")
            elif not req.specifier.contains(pinned[need][0], prereleases=True):
                problems.append(f"{name} {version} requires {req}: requirements.txt pins {pinned[need][0]}")
    return problems


def test_the_list_holds_every_requirement_of_what_it_lists():
    problems = unmet(pins(REQUIREMENTS.read_text(encoding="utf-8")))
    assert not problems, "\n".join(problems)


def test_a_requirement_left_out_or_pinned_too_old_is_named():
    pinned = pins(REQUIREMENTS.read_text(encoding="utf-8"))
    without = {k: v for k, v in pinned.items() if k != "setuptools"}
    assert any(p.startswith("torch 2.13.0 requires setuptools") and "not in requirements.txt" in p
               for p in unmet(without)), unmet(without)
    older = {**pinned, "setuptools": ("65.5.0", set())}
    assert any("requires setuptools" in p and "pins 65.5.0" in p for p in unmet(older)), unmet(older)
    # an extra asked for brings its own requirements: pagefind[extended] needs the extended binary
    no_binary = {k: v for k, v in pinned.items() if k != "pagefind-bin-extended"}
    assert any(p.startswith("pagefind 1.5.2 requires pagefind-bin-extended") for p in unmet(no_binary)), \
        unmet(no_binary)


def test_the_readme_and_ci_install_the_list_as_written():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"^python3 -m venv .*$", readme, flags=re.M)
    assert len(commands) == 2, commands
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for where, text in [("README command 1", commands[0]), ("README command 2", commands[1]), (".ci/run", ci)]:
        assert "pip install --no-deps -r requirements.txt" in text.replace(" -q", ""), where
