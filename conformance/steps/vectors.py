"""The step vectors on disk and how they are chosen (docs/steps.md).

Layout, after ethereum/consensus-specs' tests (runner / handler / suite / case):
`conformance/vectors/steps/<system>/<handler>/<case>/` holds `pre.json` and `input.json`, and
either `post.json` and `sends.json` or `invalid` (a text file: the reason the input is
refused). Each system folder has `schema.json` (the JSON Schema of the documents), its
`index.json` (its handlers and their cases) and each handler folder a `README.md` citing the
paper rule; `index.json` at the top lists the systems (rewritten from the folders present, so
that systems generated separately never overwrite each other's lists).

Cases are chosen for coverage: candidates (conformance/steps/<system>.py) are replayed through
the reference's handlers while the lines taken in the system's handler functions are traced,
and a candidate is kept when it takes an arc (a pair of consecutive lines) that no kept case
of its handler took before, so the vectors reach the branches the candidates reach with few
cases; the first case of each kind a generator labels (a variant: `...-absent`) and the first
few of each handler (`StepSystem.at_least`) are kept whatever arcs they take, for the rules
that tell cases apart by their data rather than by their branches.
`python -m pubsub_spec.conformance.steps.vectors make [--only SYSTEM ...]` writes them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

from pubsub_spec.conformance.steps import systems
from pubsub_spec.conformance.steps.base import (
    JSON,
    Case,
    Outcome,
    StepSystem,
    canonical,
    first_difference,
)

FORMAT_VERSION = 1
MAX_PER_HANDLER = 60  # kept cases per handler at most (a bound on the committed size)


def root() -> Path:
    """The committed step vectors (package data)."""
    return Path(str(resources.files("pubsub_spec.conformance") / "vectors" / "steps"))


@dataclass(frozen=True)
class Vector:
    system: str
    handler: str
    case: str
    pre: JSON
    input: JSON
    expected: Outcome

    @property
    def id(self) -> str:
        return f"{self.system}/{self.handler}/{self.case}"


# -- choosing cases by the arcs they take ------------------------------------------------------


class ArcTracer:
    """The (function, line, next line) arcs taken in the given functions of the given files
    while it is active (sys.settrace; a stand-in for coverage.py's branch arcs that is cheap
    to reset for every candidate)."""

    def __init__(self, targets: Sequence[tuple[str, Sequence[str]]]) -> None:
        self.targets = [(f, frozenset(names)) for f, names in targets]
        self.arcs: set[tuple[str, int, int]] = set()
        self._wanted: dict[CodeType, bool] = {}

    def _want(self, code: CodeType) -> bool:
        got = self._wanted.get(code)
        if got is None:
            got = any(code.co_filename.endswith(f)
                      and (code.co_name in names or code.co_qualname in names)
                      for f, names in self.targets)  # fmt: skip
            self._wanted[code] = got
        return got

    def __enter__(self) -> ArcTracer:
        self.arcs = set()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(None)

    def _global(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event != "call" or not self._want(frame.f_code):
            return None
        last = [-frame.f_code.co_firstlineno]
        name = frame.f_code.co_name

        def local(f: FrameType, ev: str, a: Any) -> Any:
            if ev == "line":
                self.arcs.add((name, last[0], f.f_lineno))
                last[0] = f.f_lineno
            elif ev == "return":
                self.arcs.add((name, last[0], -f.f_code.co_firstlineno))
            return local

        return local


def _label(case: Case) -> str:
    """The kind of a case: the label a generator gives a variant (`...-absent`), or ''."""
    last = case.name.rsplit("-", 1)[-1]
    return "" if last.isdigit() else last


def _first(case: Case, labels: set[tuple[str, str]]) -> bool:
    """The first case of its kind for its handler (each kind of variant is kept once)."""
    return bool(_label(case)) and (case.handler, _label(case)) not in labels


def choose(system: StepSystem) -> Iterator[tuple[Case, Outcome]]:
    """The candidates that take a new arc of their handler, with their outcomes."""
    tracer = ArcTracer(system.coverage)
    taken: dict[str, set[tuple[str, int, int]]] = {}
    invalid: dict[tuple[str, str], int] = {}
    kept: dict[str, int] = {}
    names: set[tuple[str, str]] = set()
    labels: set[tuple[str, str]] = set()
    for case in system.candidates():
        full = kept.get(case.handler, 0) >= MAX_PER_HANDLER and not system.keep(case)
        if full or (case.handler, case.name) in names:
            continue
        system.prepare()
        with tracer:
            outcome = system.apply(case.pre, case.input)
        mine = taken.setdefault(case.handler, set())
        new = tracer.arcs - mine
        if outcome.invalid is not None:  # a few refused inputs per kind, whatever arcs
            kind = (case.handler, case.name.rsplit("-", 1)[-1])  # the variant's label
            if invalid.get(kind, 0) >= 2:
                continue
            invalid[kind] = invalid.get(kind, 0) + 1
        elif (
            not new
            and kept.get(case.handler, 0) >= system.at_least
            and not _first(case, labels)
            and not system.keep(case)
        ):
            continue
        labels.add((case.handler, _label(case)))
        mine |= tracer.arcs
        kept[case.handler] = kept.get(case.handler, 0) + 1
        names.add((case.handler, case.name))
        yield case, outcome


# -- the files ---------------------------------------------------------------------------------


def _readme(system: StepSystem, handler: str, cases: int) -> str:
    h = system.handler(handler)
    return (
        f"# {system.name} / {handler}\n\n"
        f"Step vectors of the `{handler}` handler of the {system.name} system ({cases} cases). "
        f"Paper rule: {h.rule} ({system.paper}).\n\n{h.doc[0].upper()}{h.doc[1:]}.\n\n"
        "Each case folder holds `pre.json` (the node's state and context) and `input.json` "
        "(what it receives), and either `post.json` and `sends.json` (its state after the "
        "handler and the messages it sent) or `invalid` (the reason the input is refused). "
        "The encoding and the JSON Schema: `../schema.json` and docs/steps.md.\n"
    )


def write(out: Path, chosen: dict[str, list[tuple[Case, Outcome]]]) -> dict[str, Any]:
    """Write the chosen systems' cases under `out` (replacing what was there for them, leaving
    the other systems alone); the top index."""
    all_systems = systems()
    for name, cases in chosen.items():
        system = all_systems[name]
        folder = out / name
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        (folder / "schema.json").write_text(canonical(system.schema()))
        by_handler: dict[str, list[str]] = {}
        for case, outcome in cases:
            where = folder / case.handler / case.name
            where.mkdir(parents=True)
            (where / "pre.json").write_text(canonical(case.pre))
            (where / "input.json").write_text(canonical(case.input))
            if outcome.invalid is not None:
                (where / "invalid").write_text(outcome.invalid + "\n")
            else:
                (where / "post.json").write_text(canonical(outcome.post))
                (where / "sends.json").write_text(canonical(outcome.sends))
            by_handler.setdefault(case.handler, []).append(case.name)
        for handler, names in sorted(by_handler.items()):
            (folder / handler / "README.md").write_text(_readme(system, handler, len(names)))
        mine = {"system": name, "handlers": {h: sorted(n) for h, n in sorted(by_handler.items())}}
        (folder / "index.json").write_text(canonical(mine))
    return write_index(out)


def listed(base: Path) -> list[str]:
    """The systems whose step vectors are under `base` (a folder with its own index.json)."""
    return sorted(p.name for p in base.iterdir() if (p / "index.json").is_file())


def write_index(out: Path) -> dict[str, Any]:
    index = {"format_version": FORMAT_VERSION, "systems": listed(out)}
    (out / "index.json").write_text(canonical(index))
    return index


def load(base: Path | None = None, only: Sequence[str] = ()) -> list[Vector]:
    """The vectors under `base` (default: the committed ones), in the index's order."""
    base = base or root()
    out: list[Vector] = []
    for system in listed(base):
        if only and system not in only:
            continue
        bundled = base / system / BUNDLE
        if bundled.is_file():  # the kit's form: one line per vector
            for line in bundled.read_text().splitlines():
                v = json.loads(line)
                expected = (
                    Outcome(invalid=v["invalid"])
                    if "invalid" in v
                    else Outcome(v["post"], v["sends"])
                )
                out.append(Vector(system, v["handler"], v["case"], v["pre"], v["input"], expected))
            continue
        index = json.loads((base / system / "index.json").read_text())
        for handler, cases in index["handlers"].items():
            for case in cases:
                where = base / system / handler / case
                pre = json.loads((where / "pre.json").read_text())
                step_input = json.loads((where / "input.json").read_text())
                if (where / "invalid").exists():
                    expected = Outcome(invalid=(where / "invalid").read_text().strip())
                else:
                    expected = Outcome(json.loads((where / "post.json").read_text()),
                                       json.loads((where / "sends.json").read_text()))  # fmt: skip
                out.append(Vector(system, handler, case, pre, step_input, expected))
    return out


BUNDLE = "vectors.ndjson"  # a system's vectors in the kit, one JSON line each


def files(base: Path | None = None) -> dict[str, bytes]:
    """The step vectors as the kit ships them (`vectors export`), by path below `base`: per
    system its index, schema and READMEs as committed, and its vectors bundled in one file
    (`<system>/vectors.ndjson`, one line per vector in the index's order: `handler`, `case`,
    `pre`, `input`, and `post` and `sends` or `invalid`), which `load` reads as well; a
    release then has a few files per system rather than four per vector."""
    base = base or root()
    out: dict[str, bytes] = {"index.json": (base / "index.json").read_bytes()}
    for system in listed(base):
        folder = base / system
        for p in sorted(folder.rglob("*")):
            rel = p.relative_to(folder)
            if p.is_file() and (len(rel.parts) == 1 or rel.name == "README.md"):
                out[f"{system}/{rel.as_posix()}"] = p.read_bytes()
        lines = []
        for v in load(base, only=(system,)):
            line: dict[str, JSON] = {"handler": v.handler, "case": v.case, "pre": v.pre,
                                     "input": v.input, **v.expected.documents()}  # fmt: skip
            lines.append(json.dumps(line, sort_keys=True, separators=(",", ":")) + "\n")
        out[f"{system}/{BUNDLE}"] = "".join(lines).encode()
    return out


def judge(expected: Outcome, got: Outcome) -> str | None:
    """None when `got` is what the vector expects, else what differs (a JSON path)."""
    if expected.invalid is not None:
        return None if got.invalid is not None else "invalid (the input must be refused)"
    if got.invalid is not None:
        return f"invalid (refused a valid input: {got.invalid})"
    where = first_difference(expected.post, got.post, "post")
    if where is not None:
        return where
    return first_difference(expected.sends, got.sends, "sends")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m pubsub_spec.conformance.steps.vectors")
    p.add_argument("action", choices=("make",))
    p.add_argument("--out", type=Path, default=None, help="default: the committed folder")
    p.add_argument("--only", nargs="*", default=(), help="systems (default: every one)")
    a = p.parse_args(argv)
    out = a.out or root()
    out.mkdir(parents=True, exist_ok=True)
    for name, system in systems().items():
        if a.only and name not in a.only:
            continue
        chosen = list(choose(system))
        write(out, {name: chosen})  # one system at a time: the others are left as they are
        print(f"{name}: {len(chosen)} cases")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
