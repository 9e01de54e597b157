"""One contract per system family: everything about a system outside reference/, declared in
one place (docs/layout.md, "Adding a system").

A family's `properties/<family>/contract.py` defines `CONTRACT`, a `SystemContract` naming its
registry systems (reference/registry.py) and declaring its TLA+ models (spec/manifest.json
names) and the modules that map its runs to spec states, its check rows (z3, Hypothesis, the
TLA+ trace-validation and liveness rows), its mutants, its workloads and conformance
generators, its benchmarks and its paper figures. `pubsub-spec check`, `figures` and `systems`,
and `python -m benchmarks` loop over `contracts()`; the conformance built-ins come from the
system registry itself.

Reference code never imports this package, so the link runs one way: a contract names its
systems by their registry names, and `contract_of(name)` finds a system's contract.

Rows are `rows(examples) -> list[CheckResult]`, given as a callable or as an import string
`"module:function"` resolved only when the rows run (so that `check` imports only what it
runs, and a missing package is an environment problem of that section)."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pubsub_spec.properties.verdict import CheckResult, judged

RowsFn = Callable[[int], list[CheckResult]]
Rows = str | RowsFn  # a callable, or "module:function" naming one


def resolve(ref: str) -> object:
    """The object an import string `"module:attribute"` names."""
    module, _, attr = ref.partition(":")
    obj: object = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def rows_fn(rows: Rows) -> RowsFn:
    if callable(rows):
        return rows
    fn = resolve(rows)
    if not callable(fn):
        raise TypeError(f"{rows} is not a rows(examples) function")
    return fn


class _Lemma(Protocol):
    name: str
    verdict: str


@dataclass(frozen=True)
class LemmaSet:
    """A module of z3 lemmas with `LEMMAS` (each must be proved) and `MUTANTS` (each must come
    back with a counterexample, violating the conclusion `EXPECTED` names for it when the
    module has that table), as rows of one invariant label."""

    label: str
    module: str

    def __call__(self, examples: int = 0) -> list[CheckResult]:
        mod = importlib.import_module(self.module)
        rows: list[CheckResult] = []
        for fns, mutant in ((mod.LEMMAS, False), (mod.MUTANTS, True)):
            for fn in fns:
                start = time.monotonic()
                r: _Lemma = fn()
                plain = r.name.removeprefix("mutant: ")
                if mutant:  # rejected only by a counterexample (violating EXPECTED's conclusion)
                    want = getattr(mod, "EXPECTED", {}).get(fn.__name__, ("", ""))[1]
                    hit = want in getattr(r, "violated", ()) if want else True
                    found = f"{r.verdict}: {want}" if want and hit else r.verdict
                    ok, detail = judged(found, True, r.verdict == "counterexample" and hit)
                else:
                    ok, detail = judged(None if r.verdict == "proved" else r.verdict, False)
                    detail = r.verdict if ok else detail
                secs = time.monotonic() - start
                name = f"mutant {plain}" if mutant else plain
                rows.append(CheckResult(self.label, "z3", name, 1, "proof", secs, ok, detail))
        return rows


@dataclass(frozen=True)
class FiguresWritten:
    """What a figure writer did: figures written, the Markdown it adds to the index page
    (`index.md`), and the runs whose oracle comparison disagreed."""

    count: int
    index_text: str
    disagree: tuple[str, ...] = ()


@dataclass(frozen=True)
class FigureOptions:
    """The options of `pubsub-spec figures` a writer may use."""

    scale: str
    check: bool = True
    engine: str = "fast"
    jobs: int = 1


FigureWriter = Callable[[Path, Sequence[str], FigureOptions], FiguresWritten]


@dataclass(frozen=True)
class FigureSet:
    """A paper's figures regenerated from the reference: their ids and either the writer that
    `pubsub-spec figures` runs (`"module:function"`, a `FigureWriter`), or the benchmark
    module that prints them (`python -m benchmarks.NAME`)."""

    paper: str
    ids: tuple[str, ...]
    writer: str = ""
    benchmark: str = ""
    heads_index: bool = False  # its page opens `index.md` (the thesis' Chapter 4)


@dataclass(frozen=True)
class SystemContract:
    """Everything about a system family outside reference/ (see the module docstring)."""

    family: str  # properties/<family>/, docs/<family>.md, spec/<family>/
    paper: str
    systems: tuple[str, ...]  # registry names (reference/registry.py); () if none of its own
    tla_models: tuple[str, ...] = ()  # spec/manifest.json model names
    abstraction_maps: tuple[str, ...] = ()  # modules mapping runs to spec states
    z3: tuple[Rows, ...] = ()  # rows of `check`'s z3 section
    hypothesis: tuple[Rows, ...] = ()  # rows of its hypothesis section (race rows included)
    tla: tuple[Rows, ...] = ()  # trace-validation and liveness rows of its tla section
    mutants: tuple[str, ...] = ()  # modules of deliberately broken variants
    workloads: tuple[str, ...] = ()  # workload modules
    generators: tuple[str, ...] = ()  # its conformance generators (conformance/generators.py)
    benchmarks: tuple[str, ...] = ()  # modules of benchmarks/, run as python -m benchmarks.NAME
    figures: tuple[FigureSet, ...] = ()


# The built-in contracts, by family, in the order their rows are run.
BUILTIN: Mapping[str, str] = {
    "lbdd": "pubsub_spec.properties.lbdd.contract:CONTRACT",
    "thesis": "pubsub_spec.properties.thesis.contract:CONTRACT",
    "kyra": "pubsub_spec.properties.kyra.contract:CONTRACT",
    "octopia": "pubsub_spec.properties.octopia.contract:CONTRACT",
    "tam": "pubsub_spec.properties.tam.contract:CONTRACT",
}
# Figure sets that span every family, written by `pubsub-spec figures` after the families':
# all nine systems side by side (docs/comparison.md).
CROSS_FAMILY_FIGURES: tuple[FigureSet, ...] = (
    FigureSet(
        "All nine systems side by side", ("CMP",), writer="pubsub_spec.compare:write_figures"
    ),
)
_REGISTERED: dict[str, SystemContract] = {}


def contracts() -> list[SystemContract]:
    """Every contract: the built-in families, then those registered at run time."""
    out: list[SystemContract] = []
    for ref in BUILTIN.values():
        c = resolve(ref)
        assert isinstance(c, SystemContract), ref
        out.append(c)
    return out + list(_REGISTERED.values())


def contract(family: str) -> SystemContract:
    for c in contracts():
        if c.family == family:
            return c
    raise KeyError(f"no contract for family {family!r}")


def contract_of(system: str) -> SystemContract:
    """The contract that declares a registered system (by its registry name)."""
    for c in contracts():
        if system in c.systems:
            return c
    raise KeyError(f"no contract declares system {system!r}")


def register_contract(c: SystemContract, infos: Sequence[object] = ()) -> None:
    """Add a family at run time: its contract, and its systems (`SystemInfo`s) to the system
    registry. A plugin module does this when imported (reference/registry.py loads the
    modules named in PUBSUB_SPEC_SYSTEMS), a test directly; `unregister_contract` undoes it."""
    from pubsub_spec.reference import registry
    from pubsub_spec.reference.sim.system import SystemInfo

    if c.family in BUILTIN or c.family in _REGISTERED:
        raise ValueError(f"family {c.family!r} is already registered")
    systems = [info for info in infos if isinstance(info, SystemInfo)]
    names = [info.name for info in systems]
    if len(systems) != len(infos) or sorted(names) != sorted(c.systems):
        raise ValueError(f"contract {c.family!r} declares {c.systems}, given {names}")
    for info in systems:
        registry.register(info)
    _REGISTERED[c.family] = c


def unregister_contract(family: str) -> None:
    from pubsub_spec.reference import registry

    c = _REGISTERED.pop(family)
    for name in c.systems:
        registry.unregister(name)


def all_rows(section: str) -> Iterator[tuple[SystemContract, RowsFn]]:
    """Every contract's rows functions of a `check` section (z3, hypothesis, tla)."""
    for c in contracts():
        for r in {"z3": c.z3, "hypothesis": c.hypothesis, "tla": c.tla}[section]:
            yield c, rows_fn(r)
