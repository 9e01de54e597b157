"""`pubsub-spec check`: every invariant check — z3 lemmas, TLA+ models, Hypothesis against the
reference — in one table: invariant, checker, check, states or examples explored, time, verdict.
A mutant row passes when its check REJECTS the broken variant. Exit code 1 on any failure
(a checker that cannot run is a failure, not a silent pass)."""

from __future__ import annotations

import argparse
import importlib
import os
import time
from collections.abc import Callable

from properties.checks import INVARIANTS, CheckResult, run_hypothesis_checks
from pubsub_spec.argtypes import int_range, name_list, positive_int

SECTIONS = ("z3", "tla", "hypothesis")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--only",
        type=name_list,
        default=",".join(SECTIONS),
        help="comma-separated: z3,tla,hypothesis",
    )
    p.add_argument(
        "--examples", type=positive_int, default=200, help="Hypothesis examples per check"
    )
    p.add_argument(
        "--tla-models",
        default="",
        help="comma-separated model names from spec/manifest.json (default: all of them)",
    )
    p.add_argument(
        "--jobs",
        type=int_range(1, 256),
        default=os.cpu_count() or 1,
        help="tla processes run at once",
    )


def _z3_rows() -> list[CheckResult]:
    mod = importlib.import_module("properties.lemmas")
    rows: list[CheckResult] = []
    for r in mod.run_all():
        ok = r.verdict == "proved"
        rows.append(
            CheckResult(
                r.invariant,
                "z3",
                r.name,
                1,
                "proof",
                r.seconds,
                ok,
                r.verdict + (f": {r.counterexample}" if r.counterexample and not ok else ""),
            )
        )
    mut = importlib.import_module("properties.lemma_mutants")
    for fn in mut.MUTANTS:
        r = fn()
        verdict, conclusion = mut.EXPECTED[fn.__name__]
        # a mutant must fail for the right reason: the expected verdict, and (for a
        # counterexample) the expected conclusion among those the model violates
        ok = r.verdict == verdict and (verdict != "counterexample" or conclusion in r.violated)
        detail = f"rejected ({r.verdict}: {conclusion})" if ok else f"NOT as expected ({r.verdict})"
        rows.append(
            CheckResult(r.invariant, "z3", f"mutant {r.name}", 1, "proof", r.seconds, ok, detail)
        )
    return rows + _system_z3_rows()


# The later systems' z3 lemmas: (invariant label, module with LEMMAS and MUTANTS).
SYSTEM_LEMMAS = (
    ("Kyra: zones, trees and filters (seed 001)", "properties.kyra.lemmas"),
    ("Tam: intervals, digests, keys (seed 004)", "properties.tam.lemmas"),
)


def _system_z3_rows() -> list[CheckResult]:
    """Each system's lemmas proved, and each of its mutant rules refuted by a counterexample
    (docs/kyra.md, docs/tam.md)."""
    rows: list[CheckResult] = []
    for label, module in SYSTEM_LEMMAS:
        mod = importlib.import_module(module)
        for fns, must in ((mod.LEMMAS, "proved"), (mod.MUTANTS, "counterexample")):
            for fn in fns:
                start = time.monotonic()
                r = fn()
                ok = r.verdict == must
                plain = r.name.removeprefix("mutant: ")
                name = plain if must == "proved" else f"mutant {plain}"
                detail = r.verdict if must == "proved" else f"rejected ({r.verdict})"
                secs = time.monotonic() - start
                rows.append(CheckResult(label, "z3", name, 1, "proof", secs, ok, detail))
    return rows


def _system_race_rows() -> list[CheckResult]:
    """Kyra, Siena and mcgroups against the oracle on traces where subscriptions race
    publications (properties/kyra/race.py, the Python side of spec/kyra/KyraRouting.tla), and
    the early-install mutant rejected (it misses deliveries)."""
    race = importlib.import_module("properties.kyra.race")
    kyra_info = importlib.import_module("reference.kyra.info")
    mutants = importlib.import_module("properties.kyra.mutants")
    label = "Kyra: no duplicate, nothing missed (seed 001)"
    rows: list[CheckResult] = []
    makes = [(info.name, info.variants[0].make, False) for info in kyra_info.INFOS]
    makes.append(("mutant early-install", mutants.EarlyInstallKyra, True))
    for name, make, broken in makes:
        start = time.monotonic()
        c = race.check_race(make)
        ok = bool(c.missed) if broken else c.agree
        detail = (f"rejected: {len(c.missed)} missed" if ok else "NOT rejected") if broken else (
            c.summary()
        )
        rows.append(
            CheckResult(label, "Hypothesis", f"race traces, {name}", 2, "traces",
                        time.monotonic() - start, ok, detail)
        )  # fmt: skip
    return rows


def _tla_rows(names: list[str] | None, jobs: int) -> list[CheckResult]:
    mod = importlib.import_module("properties.tla")
    rows: list[CheckResult] = []
    for r in mod.run_manifest(names=names, jobs=jobs):
        rows.append(
            CheckResult(
                r.invariant,
                "TLA+ (tla-checker)",
                r.name,
                r.states,
                "states",
                r.seconds,
                r.ok,
                r.detail,
            )
        )
    return rows


def _section(name: str, args: argparse.Namespace) -> list[CheckResult]:
    examples: int = args.examples
    names = [n for n in args.tla_models.split(",") if n] or None
    runners: dict[str, Callable[[], list[CheckResult]]] = {
        "z3": _z3_rows,
        "tla": lambda: _tla_rows(names, args.jobs),
        "hypothesis": lambda: run_hypothesis_checks(examples) + _system_race_rows(),
    }
    start = time.monotonic()
    try:
        return runners[name]()
    except Exception as e:  # a checker that cannot run is reported, and fails the run
        return [
            CheckResult(
                inv,
                name,
                "checker unavailable",
                0,
                "-",
                time.monotonic() - start,
                False,
                f"{type(e).__name__}: {e}",
            )
            for inv in INVARIANTS[:1]
        ]


def run(args: argparse.Namespace) -> int:
    wanted = [s for s in args.only.split(",") if s]
    bad = [s for s in wanted if s not in SECTIONS]
    if bad:
        print(f"error: unknown section(s) {bad}; choose from {', '.join(SECTIONS)}")
        return 2
    rows: list[CheckResult] = []
    for s in wanted:
        rows.extend(_section(s, args))
    rows.sort(key=lambda r: INVARIANTS.index(r.invariant) if r.invariant in INVARIANTS else 9)
    head = f"{'invariant':<42} {'checker':<19} {'check':<44} {'explored':>14} {'time':>7}  verdict"
    print(head)
    print("-" * len(head))
    for r in rows:
        explored = f"{r.explored} {r.unit}"
        verdict = "PASS" if r.ok else "FAIL"
        print(
            f"{r.invariant[:42]:<42} {r.checker[:19]:<19} {r.name[:44]:<44} {explored:>14} "
            f"{r.seconds:6.1f}s  {verdict}  {r.detail[:90]}"
        )
    failed = [r for r in rows if not r.ok]
    print(f"\n{len(rows) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0
