"""Trace validation against the TLA+ specs (the practice of CCF's and etcd's trace
validation): a run of the reference is exported as a sequence of abstract states (the spec's
variables under a documented abstraction map, docs/tla.md "Trace validation"), a small TLA+
module is generated that EXTENDS the spec unchanged, fixes the constants to the run's and lets
tla-checker decide whether the recorded states are a behaviour of the spec:

- `sequence_module`: a history variable `tvI` steps through the recorded states; the initial
  state must satisfy the spec's `Init`, every step must be a step of the spec's `Next` landing
  exactly on the next recorded state; the last state stutters. A recorded step that is not a
  `Next` step leaves a state without successor: tla-checker reports a deadlock (its trace is the
  validated prefix) and the run is rejected.
- for a spec whose `Next` only stutters (CutoffRemap: every state is an initial state), each
  recorded state is checked to satisfy `Init` and the observations to equal the spec's
  operators, as invariants over the recorded states (`record_module`).

This module holds the shared parts: TLA+ literals of Python values and the tla run itself.
The exporters are properties/thesis/trace_export.py and properties/lbdd/trace_export.py; the
rows of `pubsub-spec check` are properties/trace_validation.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pubsub_spec.properties.tla import SPEC, tla_binary, trace_text
from pubsub_spec.reference.sim.engine import Engine

TlaValue = (
    bool | int | str | frozenset["TlaValue"] | tuple["TlaValue", ...] | Mapping[str, "TlaValue"]
)


def tla_literal(v: TlaValue) -> str:
    """A TLA+ literal: a bool, an int, a string, a set (frozenset, sorted by its literal), a
    tuple (also a function on 1..n) or a record (a mapping with string keys)."""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        if v < 0:
            raise ValueError(f"trace values are naturals here, got {v}")
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, frozenset):
        return "{" + ", ".join(sorted(tla_literal(x) for x in v)) + "}"
    if isinstance(v, tuple):
        return "<<" + ", ".join(tla_literal(x) for x in v) + ">>"
    return "[" + ", ".join(f"{k} |-> {tla_literal(x)}" for k, x in v.items()) + "]"


def sequence_module(
    name: str,
    extends: str,
    variables: Sequence[str],
    states: Sequence[Mapping[str, TlaValue]],
    definitions: str = "",
) -> str:
    """A module checking that `states` is a behaviour of `extends`'s Init /\\ [][Next]_vars."""
    rows = ",\n    ".join(tla_literal(s) for s in states)
    now = " /\\ ".join(f"{v} = TVStates[j].{v}" for v in variables)
    nxt = " /\\ ".join(f"{v}' = TVStates[j].{v}" for v in variables)
    return f"""---- MODULE {name} ----
EXTENDS {extends}, Sequences
VARIABLE tvI
{definitions}
TVStates == <<
    {rows}
    >>
TVIs(j) == {now}
TVIsNext(j) == {nxt}
TVInit == tvI = 1 /\\ Init /\\ TVIs(1)
TVStep == tvI < Len(TVStates) /\\ Next /\\ TVIsNext(tvI + 1) /\\ tvI' = tvI + 1
TVEnd == tvI = Len(TVStates) /\\ UNCHANGED <<tvI, {", ".join(variables)}>>
TVNext == TVStep \\/ TVEnd
====
"""


@dataclass(frozen=True)
class Validation:
    """The verdict of tla-checker on one generated module."""

    ok: bool
    status: str  # ok | deadlock | invariant_violation | error
    violated: str
    states: int
    detail: str
    trace: str


def validate(
    spec_folder: str,
    module_name: str,
    module_text: str,
    cfg_text: str,
    expect_states: int | None = None,
    max_depth: int | None = None,
) -> Validation:
    """Run tla-checker on a generated module placed beside a copy of the spec folder's modules
    (spec/<folder>/*.tla, unchanged) in a fresh temporary directory. Bounded by the recorded
    states (a finite, deterministic exploration), not by time: no wall-clock limit but the
    checker's own state limit. With `expect_states`, a run exploring another number of distinct
    states (a record matched twice or never) is rejected too. `max_depth` raises tla-checker's
    trace-depth limit (100 by default) for a sequence module of more recorded states."""
    with tempfile.TemporaryDirectory(prefix="pubsub-tv-") as tmp:
        for f in (SPEC / spec_folder).glob("*.tla"):
            shutil.copy(f, tmp)
        (Path(tmp) / f"{module_name}.tla").write_text(module_text)
        (Path(tmp) / f"{module_name}.cfg").write_text(cfg_text)
        depth = ["--max-depth", str(max_depth)] if max_depth is not None else []
        args = [tla_binary(), f"{module_name}.tla", "--config", f"{module_name}.cfg", "--json"]
        proc = subprocess.run(
            [*args, *depth],
            cwd=tmp,
            capture_output=True,
            text=True,
            check=False,
            env=dict(os.environ, NO_COLOR="1"),
        )
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    try:
        result = json.loads(last)
    except json.JSONDecodeError:
        return Validation(False, "error", "", 0, (proc.stderr.strip() or last)[-400:], "")
    status = str(result.get("status"))
    states = int(result.get("stats", {}).get("states_explored", 0))
    violated = str(result.get("invariant_name") or "")
    trace = trace_text(result.get("trace", []))
    ok = status == "ok" and (expect_states is None or states == expect_states)
    if ok:
        detail = f"validated ({states} recorded states)"
    elif status == "ok":
        detail = f"{states} distinct states explored, {expect_states} recorded"
    elif status == "deadlock":
        steps = max(0, len(result.get("trace", [])) - 1)
        detail = f"recorded step {steps + 1} is not a Next step of the spec"
    elif status == "invariant_violation":
        detail = f"{violated} violated"
    else:
        detail = f"{status}: {str(result.get('error') or result.get('message') or '')[:300]}"
    return Validation(ok, status, violated, states, detail, trace)


def rest_module(
    name: str,
    extends: str,
    variables: Sequence[str],
    states: Sequence[Mapping[str, TlaValue]],
    definitions: str = "",
    wrap: Mapping[str, str] | None = None,
) -> str:
    """Like `sequence_module`, but the states still to match are a variable `tvRest` whose head
    is compared (indexing a literal sequence re-evaluates it at each step in tla-checker, which
    is quadratic in the run's length; properties/thesis/tree_trace.py). `wrap[v]` turns the
    recorded field `{}` (e.g. a set of pairs) into the spec's value (e.g. a function)."""
    rows = ",\n    ".join(tla_literal(s) for s in states)
    w = wrap or {}

    def eq(prime: str) -> str:
        return "\n    /\\ ".join(
            f"{v}{prime} = " + w.get(v, "{}").format(f"r.{v}") for v in variables
        )

    return f"""---- MODULE {name} ----
EXTENDS {extends}, Sequences
VARIABLE tvRest
{definitions}
TVStates == <<
    {rows}
    >>
TVIs(r) ==
    /\\ {eq("")}
TVIsNext(r) ==
    /\\ {eq("'")}
TVInit == tvRest = Tail(TVStates) /\\ Init /\\ TVIs(TVStates[1])
TVStep == tvRest # <<>> /\\ Next /\\ TVIsNext(Head(tvRest)) /\\ tvRest' = Tail(tvRest)
TVEnd == tvRest = <<>> /\\ UNCHANGED <<tvRest, {", ".join(variables)}>>
TVNext == TVStep \\/ TVEnd
====
"""


T = TypeVar("T")


class RecordingEngine(Engine[T]):
    """An engine that also tells `on_schedule` of every item scheduled (the exporters' view of
    the messages in flight); it schedules exactly as the engine it replaces."""

    def __init__(self, on_schedule: Callable[[T], None]) -> None:
        super().__init__()
        self._on_schedule = on_schedule

    def schedule(self, at: float, item: T) -> None:
        super().schedule(at, item)
        self._on_schedule(item)
