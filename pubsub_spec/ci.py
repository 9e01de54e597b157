"""What a CI system reads from `pubsub-spec check`, `conform` and `verify`: the exit
codes, in one place, JUnit XML (`--junit FILE`) and JSON (`--json FILE`) reports, row selection
(`--only`/`--skip`) and the environment checks that make a command exit 3 with the fix named.

Exit codes (docs/ci.md):

| code | meaning |
|---|---|
| 0 | every selected check row / implementation passed |
| 1 | a check row or an implementation failed (or was unknown, or checked nothing) |
| 2 | bad input: an unknown option value, section, model, file or program |
| 3 | an environment problem (Java, `tla`, a Python package missing): the message names the fix |
| 130, 143 | interrupted by SIGINT / SIGTERM (`conform`, `verify`): what was known is written |

A run with real failures and environment problems exits 1: the failure is the news.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

PASS = 0
FAILED = 1
BAD_INPUT = 2
ENVIRONMENT = 3

EXIT_CODES = {
    PASS: "every selected check row / implementation passed",
    FAILED: "a check row or an implementation failed (or was unknown, or checked nothing)",
    BAD_INPUT: "bad input: an unknown option value, section, model, file or program",
    ENVIRONMENT: "an environment problem (Java, tla, a Python package missing); the fix is named",
    130: "interrupted by SIGINT: what was known is written, marked interrupted",
    143: "interrupted by SIGTERM: what was known is written, marked interrupted",
}

EPILOG = "exit codes: " + "; ".join(f"{k} {v}" for k, v in EXIT_CODES.items()) + " (docs/ci.md)"

Outcome = Literal["passed", "failed", "error", "skipped"]


class EnvironmentProblem(Exception):
    """Something the machine lacks, and the command that fixes it."""

    def __init__(self, what: str, fix: str) -> None:
        super().__init__(what, fix)
        self.what = what
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.what}; fix: {self.fix}"


def exit_code(failed: bool, environment: bool) -> int:
    """1 for a real failure (even beside an environment problem), else 3, else 0."""
    return FAILED if failed else ENVIRONMENT if environment else PASS


# --- environment ---------------------------------------------------------------------------

JAVA_FIX = (
    "install Java 17+ (Debian: apt-get install openjdk-17-jre-headless, or "
    "bash scripts/setup.sh) or point JAVA_HOME at one"
)
TLA_FIX = "cargo install tla-checker --locked --version $(cat scripts/tla-checker.version)"


def java_problem(environ: dict[str, str] | None = None) -> EnvironmentProblem | None:
    """None when a Java 17+ is found (JAVA_HOME first, then PATH), as PySpark 4 needs."""
    env = os.environ if environ is None else environ
    home = env.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java", path=env.get("PATH"))
    if java is None or not Path(java).exists():
        return EnvironmentProblem("Java is not installed (Spark needs Java 17+)", JAVA_FIX)
    try:
        text = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=30, check=False
        ).stderr
    except OSError as e:
        return EnvironmentProblem(f"Java at {java} cannot run ({e})", JAVA_FIX)
    m = re.search(r'version "(\d+)(?:\.(\d+))?', text)
    if m is None:
        return None  # an unusual banner: let Spark judge
    major = int(m.group(2)) if m.group(1) == "1" and m.group(2) else int(m.group(1))
    if major < 17:
        return EnvironmentProblem(f"Java {major} at {java} is too old (Spark needs 17+)", JAVA_FIX)
    return None


def tla_problem() -> EnvironmentProblem | None:
    """None when the tla-checker binary `tla` is found (properties.tla.tla_binary)."""
    from pubsub_spec.properties.tla import tla_binary

    try:
        tla_binary()
    except FileNotFoundError:
        return EnvironmentProblem("tla (crates.io tla-checker) is not installed", TLA_FIX)
    return None


def module_problem(e: ModuleNotFoundError) -> EnvironmentProblem:
    return EnvironmentProblem(
        f"Python module {e.name!r} is missing",
        "pip install the project with its dependencies (pip install pubsub-spec, or "
        "bash scripts/setup.sh in a checkout)",
    )


# --- row selection -------------------------------------------------------------------------


@dataclass(frozen=True)
class Selector:
    """`SECTION` or `SECTION:GLOB`: a section (itself a glob: `*`) and, optionally, a glob on a
    row's name or invariant (case-insensitive, fnmatch)."""

    section: str
    glob: str = "*"

    @staticmethod
    def parse(text: str) -> Selector:
        section, _, glob = text.strip().partition(":")
        return Selector(section.strip().lower() or "*", glob.strip() or "*")

    def sections(self, known: Sequence[str]) -> list[str]:
        return [s for s in known if fnmatch.fnmatchcase(s, self.section)]

    def matches(self, section: str, *names: str) -> bool:
        if not fnmatch.fnmatchcase(section, self.section):
            return False
        return any(fnmatch.fnmatchcase(n.lower(), self.glob.lower()) for n in names)


def selectors(text: str) -> list[Selector]:
    return [Selector.parse(t) for t in text.split(",") if t.strip()]


def unknown_sections(sel: Iterable[Selector], known: Sequence[str]) -> list[str]:
    return [s.section for s in sel if not s.sections(known)]


def selected(
    only: Sequence[Selector], skip: Sequence[Selector], section: str, *names: str
) -> bool:
    """A row is selected when some `--only` selector matches it and no `--skip` one does."""
    return any(s.matches(section, *names) for s in only) and not any(
        s.matches(section, *names) for s in skip
    )


# --- reports -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One JUnit testcase: a check row, or an implementation on one trace."""

    suite: str
    classname: str
    name: str
    seconds: float
    outcome: Outcome
    message: str = ""
    text: str = ""


def _clean(text: str) -> str:
    """XML 1.0 allows no control characters but tab, newline and carriage return."""
    return re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", "?", text)


def junit_xml(name: str, cases: Sequence[Case]) -> str:
    """`<testsuites>` with one `<testsuite>` per suite, in first-seen order; a failure carries
    its reason as `message` and in full as text (the Ant/Jenkins JUnit layout;
    tests/data/junit.xsd)."""
    root = ET.Element("testsuites", name=name)
    suites: dict[str, list[Case]] = {}
    for c in cases:
        suites.setdefault(c.suite, []).append(c)
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    total_time = 0.0
    for suite, members in suites.items():
        counts = {
            "tests": len(members),
            "failures": sum(c.outcome == "failed" for c in members),
            "errors": sum(c.outcome == "error" for c in members),
            "skipped": sum(c.outcome == "skipped" for c in members),
        }
        secs = sum(c.seconds for c in members)
        attrib = {"name": _clean(suite), **{k: str(v) for k, v in counts.items()}}
        el = ET.SubElement(root, "testsuite", attrib, time=f"{secs:.3f}")
        for c in members:
            tc = ET.SubElement(
                el, "testcase", name=_clean(c.name), classname=_clean(c.classname),
                time=f"{max(c.seconds, 0.0):.3f}",
            )  # fmt: skip
            tag = {"failed": "failure", "error": "error", "skipped": "skipped"}.get(c.outcome)
            if tag is not None:
                child = ET.SubElement(tc, tag, message=_clean(c.message[:1000]))
                if tag != "skipped":
                    child.set("type", c.outcome)
                    child.text = _clean(c.text or c.message)
        for k, v in counts.items():
            totals[k] += v
        total_time += secs
    for k, v in totals.items():
        root.set(k, str(v))
    root.set("time", f"{total_time:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def write_junit(path: str | Path, name: str, cases: Sequence[Case]) -> None:
    Path(path).write_text(junit_xml(name, cases), encoding="utf-8")


def write_json(path: str | Path, command: str, code: int, body: dict[str, Any]) -> None:
    """`{"command", "exit_code", "exit_meaning", ...body}`, the same top level for every
    command."""
    data = {"command": command, "exit_code": code, "exit_meaning": EXIT_CODES[code], **body}
    Path(path).write_text(json.dumps(data, indent=1, default=str) + "\n", encoding="utf-8")


def output_file(text: str) -> str:
    """argparse type of `--junit`/`--json`: a file whose folder exists (bad input, exit 2,
    before anything runs)."""
    import argparse

    p = Path(text)
    if p.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a directory, expected a file")
    if not p.parent.is_dir():
        raise argparse.ArgumentTypeError(f"no such directory: {p.parent}")
    return text
