"""`pubsub-spec check`: every invariant check — z3 lemmas, TLA+ models, Hypothesis against the
reference — in one table: invariant, checker, check, states or examples explored, time, verdict.
The rows are every system family's, found through the families' contracts
(properties/<family>/contract.py, docs/layout.md "Adding a system"), and the models of
spec/manifest.json. A mutant row passes when its check REJECTS the broken variant. Exit code 1
on any failure (a checker that cannot run is a failure, not a silent pass), 2 on bad input (an
unknown section or model, a selection of no row), 3 when a checker cannot run for want of
something on the machine (`tla`, a Python package; the fix is printed) and nothing else failed.
`--junit`/`--json` write the rows for CI (pubsub_spec/ci.py, docs/ci.md)."""

from __future__ import annotations

import argparse
import importlib
import os
import time
from collections.abc import Callable

from pubsub_spec.argtypes import int_range, positive_int
from pubsub_spec.ci import (
    BAD_INPUT,
    EPILOG,
    Case,
    EnvironmentProblem,
    Outcome,
    Selector,
    exit_code,
    module_problem,
    output_file,
    selected,
    selectors,
    tla_problem,
    unknown_sections,
    write_json,
    write_junit,
)
from pubsub_spec.properties.checks import INVARIANTS
from pubsub_spec.properties.contract import all_rows
from pubsub_spec.properties.verdict import CheckResult

SECTIONS = ("z3", "tla", "hypothesis")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.epilog = EPILOG
    p.add_argument(
        "--only",
        default=",".join(SECTIONS),
        metavar="SELECTORS",
        help="comma-separated rows to run: SECTION or SECTION:GLOB, SECTION one of z3, tla, "
        "hypothesis or *, GLOB on the row's name or invariant (case-insensitive), e.g. "
        "'z3,tla:MCCutoff*' or '*:*cut-off*' (default: every row)",
    )
    p.add_argument(
        "--skip",
        default="",
        metavar="SELECTORS",
        help="rows to leave out, same syntax (e.g. 'hypothesis:*race*'); a whole section "
        "(e.g. 'tla') is not run at all",
    )
    p.add_argument("--junit", type=output_file, metavar="FILE", help="also write JUnit XML")
    p.add_argument("--json", type=output_file, metavar="FILE", help="also write the rows as JSON")
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


def _contract_rows(section: str, examples: int) -> list[CheckResult]:
    """Every system family's rows of a section, family by family (properties/contract.py)."""
    return [row for _, rows in all_rows(section) for row in rows(examples)]


def _z3_rows() -> list[CheckResult]:
    """Every family's z3 lemmas proved and its lemma mutants rejected."""
    return _contract_rows("z3", 0)


def _tla_rows(names: list[str] | None, jobs: int) -> list[CheckResult]:
    """The models of spec/manifest.json (each declared by one family's contract), run `jobs`
    at a time in manifest order."""
    mod = importlib.import_module("pubsub_spec.properties.tla")
    rows: list[CheckResult] = []
    for r in mod.run_manifest(names=names, jobs=jobs):
        rows.append(
            CheckResult(r.invariant, "TLA+ (tla-checker)", r.name, r.states, "states",
                        r.seconds, r.ok, r.detail)
        )  # fmt: skip
    return rows


def _trace_and_liveness_rows(named_models: bool) -> list[CheckResult]:
    """Each family's runs of the reference validated against its TLA+ specs and its liveness
    models (properties/trace_validation.py, properties/liveness.py); left out when only named
    models were asked for (--tla-models)."""
    return [] if named_models else _contract_rows("tla", 0)


def _section(
    name: str, args: argparse.Namespace, tla_names: list[str] | None
) -> tuple[list[CheckResult], EnvironmentProblem | None]:
    """The section's rows, and the environment problem that kept it from running (exit 3)."""
    examples: int = args.examples
    runners: dict[str, Callable[[], list[CheckResult]]] = {
        "z3": _z3_rows,
        "tla": lambda: (  # no model selected: the trace and liveness rows may still be
            (_tla_rows(tla_names, args.jobs) if tla_names else [])
            + _trace_and_liveness_rows(bool(args.tla_models))
        ),
        "hypothesis": lambda: _contract_rows("hypothesis", examples),
    }
    start = time.monotonic()
    problem = tla_problem() if name == "tla" else None
    error = ""
    if problem is None:
        try:
            return runners[name](), None
        except ModuleNotFoundError as e:  # a dependency missing: the environment's fault
            problem = module_problem(e)
        except Exception as e:  # a checker that cannot run is reported, and fails the run
            error = f"{type(e).__name__}: {e}"
    row = CheckResult(
        INVARIANTS[0], name, "checker unavailable", 0, "-", time.monotonic() - start, False,
        str(problem) if problem else error,
    )  # fmt: skip
    return [row], problem


def _tla_selection(
    args: argparse.Namespace, only: list[Selector], skip: list[Selector]
) -> list[str]:
    """The TLA+ models to run: `--tla-models` (default all), narrowed by --only/--skip on the
    model name or its invariant before anything runs. Raises ValueError naming an unknown
    model (bad input)."""
    from pubsub_spec.properties.tla import load_manifest

    models = load_manifest()
    named = [n for n in args.tla_models.split(",") if n]
    unknown = sorted(set(named) - {m.name for m in models})
    if unknown:
        raise ValueError(f"unknown TLA+ model(s) {unknown}; see spec/manifest.json")
    return [
        m.name
        for m in models
        if (not named or m.name in named) and selected(only, skip, "tla", m.name, m.invariant)
    ]


def run(args: argparse.Namespace) -> int:
    only, skip = selectors(args.only), selectors(args.skip)
    bad = unknown_sections([*only, *skip], SECTIONS)
    if bad or not only:
        print(f"error: unknown section(s) {bad}; choose from {', '.join(SECTIONS)} (or *)")
        return BAD_INPUT
    wanted = [
        s
        for s in SECTIONS
        if any(o.sections([s]) for o in only)
        and not any(k.sections([s]) and k.glob == "*" for k in skip)
    ]
    tla_names: list[str] = []
    if "tla" in wanted:
        try:
            tla_names = _tla_selection(args, only, skip)
        except ValueError as e:
            print(f"error: {e}")
            return BAD_INPUT
        if not tla_names and args.tla_models:  # named models only, none left: nothing to run
            wanted.remove("tla")
    rows: list[tuple[str, CheckResult]] = []
    problems: list[EnvironmentProblem] = []
    for s in wanted:
        got, problem = _section(s, args, tla_names if s == "tla" else None)
        if problem is not None:
            problems.append(problem)
        rows += [
            (s, r)
            for r in got
            if r.name == "checker unavailable" or selected(only, skip, s, r.name, r.invariant)
        ]
    if not rows:
        print(f"error: --only {args.only!r} --skip {args.skip!r} select no check row")
        return BAD_INPUT
    rows.sort(key=lambda sr: _order(sr[1].invariant))
    head = f"{'invariant':<42} {'checker':<19} {'check':<44} {'explored':>14} {'time':>7}  verdict"
    print(head)
    print("-" * len(head))
    for _, r in rows:
        explored = f"{r.explored} {r.unit}"
        verdict = "PASS" if r.ok else "FAIL"
        print(
            f"{r.invariant[:42]:<42} {r.checker[:19]:<19} {r.name[:44]:<44} {explored:>14} "
            f"{r.seconds:6.1f}s  {verdict}  {r.detail[:90]}"
        )
    unavailable = {s for s, r in rows if r.name == "checker unavailable" and problems}
    failed = [r for s, r in rows if not r.ok and s not in unavailable]
    not_ok = sum(not r.ok for _, r in rows)
    print(f"\n{len(rows) - not_ok} passed, {not_ok} failed")
    for p in problems:
        print(f"environment problem: {p}")
    code = exit_code(bool(failed), bool(problems))
    if args.junit:
        cases = [_case(s, r, s in unavailable) for s, r in rows]
        write_junit(args.junit, "pubsub-spec check", cases)
    if args.json:
        write_json(args.json, "check", code, {
            "selection": {"only": args.only, "skip": args.skip},
            "environment_problems": [{"what": p.what, "fix": p.fix} for p in problems],
            "rows": [_row_json(s, r, s in unavailable) for s, r in rows],
        })  # fmt: skip
    return code


def _order(invariant: str) -> int:
    return INVARIANTS.index(invariant) if invariant in INVARIANTS else len(INVARIANTS)


def _case(section: str, r: CheckResult, environment: bool) -> Case:
    outcome: Outcome = "passed" if r.ok else "error" if environment else "failed"
    return Case(
        f"check.{section}", r.invariant, f"{r.checker}: {r.name}", r.seconds, outcome,
        "" if r.ok else r.detail, f"{r.explored} {r.unit}; {r.detail}",
    )  # fmt: skip


def _row_json(section: str, r: CheckResult, environment: bool) -> dict[str, object]:
    return {
        "section": section, "invariant": r.invariant, "checker": r.checker, "name": r.name,
        "explored": r.explored, "unit": r.unit, "seconds": round(r.seconds, 3), "ok": r.ok,
        "environment_problem": environment, "detail": r.detail,
    }  # fmt: skip
