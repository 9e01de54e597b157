"""The repository stands alone (docs/design.md, "Layout"): no tracked text file names a file
outside the repository, cites a paper by a source-folder number instead of as a paper, or cites
an issue number that no reader of a clone can resolve.

The scanner reports file:line for each offence; `test_scanner_reports_each_kind` feeds it one
sample line of each kind (and lines that must stay legal) so that the main test can fail."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parent.parent

# Committed data, not prose: byte-identical outputs of the reference (vectors, figure CSVs).
_DATA = (
    re.compile(r"^conformance/vectors/.*\.ndjson$"),
    re.compile(r"^docs/figures/.*\.csv$"),
)

# The literals are assembled from parts so that this file does not report itself.
_OUTSIDE_LITERALS = ("shared" + "/seeds", "shared" + "/briefs", "DESIGN" + ".md")
_UP_PATH = re.compile(r"((?:\.\./)+)([A-Za-z0-9_][A-Za-z0-9_.\-]*)")
# `../` paths that are not references to files: each (file, path) with why it is legitimate.
# (Files under tests/ are not searched for `../` paths at all: they build paths that leave a
# folder on purpose, to check that the suite refuses them, and links of the built site.)
ALLOWED_UP_PATHS = {
    ("scripts/docs_gen.py", "../tla.md"): "a link from the generated page docs/spec/index.md",
    ("conformance/steps/vectors.py", "../schema.json"): "a link from the README it writes in "
    "conformance/vectors/steps/<system>/<handler>/ to that system's schema.json",
}
SELF = "tests/test_standalone.py"  # its sample lines are offences on purpose
_SEED_CITATION = re.compile(r"\bseeds?[ \t]+0{2}\d\b", re.IGNORECASE)
_ISSUE_CITATION = re.compile(r"\bissues?[ \t]+#?\d+", re.IGNORECASE)


def _leaves_repo(rel_file: str, ups: str, component: str) -> bool:
    """True if `ups` + `component` names something outside the repository: resolved from the folder
    of `rel_file` it escapes the root, or it names nothing there and escapes from the root itself
    (a path written relative to the checkout, like a sibling folder of the clone)."""
    up = ups.count("../")
    folder = PurePosixPath(rel_file).parent.parts
    if up > len(folder) or (up == len(folder) and component == ".."):
        return True
    inside = ROOT.joinpath(*folder[: len(folder) - up], component)
    return not inside.exists()


def offences(rel_file: str, text: str) -> list[str]:
    """Every offence in `text` (the content of the tracked file `rel_file`), as 'file:line: why'."""
    found: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        where = f"{rel_file}:{number}"
        for match in _UP_PATH.finditer(line if not rel_file.startswith("tests/") else ""):
            if (rel_file, match.group(0)) in ALLOWED_UP_PATHS:
                continue
            if _leaves_repo(rel_file, match.group(1), match.group(2)):
                found.append(f"{where}: path outside the repository {match.group(0)!r}")
        for literal in _OUTSIDE_LITERALS:
            if literal in line:
                found.append(f"{where}: names a file outside the repository {literal!r}")
        for match in _SEED_CITATION.finditer(line):
            found.append(f"{where}: cites a paper by its source folder {match.group(0)!r}")
        for match in _ISSUE_CITATION.finditer(line):
            found.append(f"{where}: cites an issue number {match.group(0)!r}")
    return found


def _tracked_texts() -> list[tuple[str, str]]:
    names = (
        subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
        .stdout.decode("utf-8")
        .split("\0")
    )
    texts: list[tuple[str, str]] = []
    for name in filter(None, names):
        if name == SELF:
            continue
        path = ROOT / name
        if any(p.match(name) for p in _DATA) or not path.is_file() or path.is_symlink():
            continue
        raw = path.read_bytes()
        if b"\0" in raw[:8192]:
            continue  # binary (figures, images)
        try:
            texts.append((name, raw.decode("utf-8")))
        except UnicodeDecodeError:
            continue
    return texts


def test_scanner_reports_each_kind() -> None:
    bad = {
        "docs/x.md": "see " + "../" + "shared/notes.md",
        "reference/thesis/x.py": "# see ../../" + "../elsewhere/file.txt",
        "README.md": "The shared design is " + _OUTSIDE_LITERALS[2],
        "spec/x.tla": "\\* from " + _OUTSIDE_LITERALS[0] + "/000.txt",
        "tests/x.py": "# the reading in " + _OUTSIDE_LITERALS[1] + "/tam.md",
        "conformance/x.md": "the contract (" + _OUTSIDE_LITERALS[2] + ', "Active")',
        "docs/y.md": "Tam et al. (" + "seed" + " 004)",
        "docs/z.md": "Five papers (" + "seeds" + " 000-004)",
        "pubsub_spec/x.py": "# added for " + "issue" + " 14",
        "conformance/x.py": "# (" + "Issue" + " #16)",
        "docs/w.md": "as in " + "issues" + " 10 and 12",
    }
    for name, line in bad.items():
        assert offences(name, line), (name, line)
    assert offences("docs/a/b.md", "[x](../../../outside.md)")
    assert not offences("tests/x.py", 'index = ["../outside/t.ndjson"]')  # a refused path
    good = {
        "docs/x.md": "[format](../conformance/FORMAT.md) and [invariant](invariants/README.md)",
        "docs/invariants/x.md": "[thesis](../thesis.md), [spec](../../spec/README.md)",
        "reference/thesis/x.py": "rng = random.Random(seed)  # seed 7, seeds of the run",
        "tests/x.py": "simulate --seed 7; a seed 1 run; design.md#decisions",
        "docs/y.md": "the issues a reader may meet; 14 issues",
    }
    for name, line in good.items():
        assert not offences(name, line), (name, line, offences(name, line))


def test_no_file_outside_the_repository_and_no_issue_numbers() -> None:
    texts = _tracked_texts()
    assert len(texts) > 100  # the scan really read the repository
    found = [o for name, text in texts for o in offences(name, text)]
    for name, path in ALLOWED_UP_PATHS:  # no stale exemption
        assert any(n == name and path in text for n, text in texts), (name, path)
    assert not found, f"{len(found)} offence(s):\n" + "\n".join(found)
