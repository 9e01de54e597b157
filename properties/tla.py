"""Running the TLA+ models of spec/ with tla-checker (`tla`, crates.io `tla-checker`, version
pinned in scripts/tla-checker.version) and checking them against spec/manifest.json: a model
that must pass passes and explores about the recorded number of distinct states (a model that
shrinks to nothing proves nothing); a mutant is rejected by the invariant it must violate."""

from __future__ import annotations

import importlib.resources
import json
import os
import shutil
import subprocess
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pubsub_spec.properties.verdict import judged

# SIGXCPU, then SIGKILL at the hard limit: the checker ran out of its CPU budget
_CPU_SIGNALS = frozenset({24, 9})


def _spec_dir() -> Path:
    """The TLA+ specs: package data `pubsub_spec/spec` (in a checkout, a symlink to `spec/`)."""
    return Path(str(importlib.resources.files("pubsub_spec") / "spec")).resolve()


SPEC = _spec_dir()


@dataclass(frozen=True)
class CiBound:
    """A model's reduced constant set (manifest entry "ci"), recorded beside the full one: the
    constants set over its cfg, and the distinct states and seconds of a run with them. The
    test suite runs every model at this bound (tests/test_tla.py); `pubsub-spec check` runs
    the full one."""

    constants: tuple[tuple[str, str], ...]
    states: int
    seconds: float


@dataclass(frozen=True)
class Model:
    name: str
    module: str
    cfg: str
    invariant: str
    expect: str  # "pass" or the TLA+ invariant that must be violated
    states: int
    seconds: float
    # constants set over the cfg's (tla-checker --constant NAME=VALUE): the reduced set of a
    # model run at its CI bound (`at_ci_bound`); empty for the model as its cfg states it
    constants: tuple[tuple[str, str], ...] = ()
    ci: CiBound | None = None  # the manifest's "ci": the reduced constant set, where needed


@dataclass(frozen=True)
class ModelRun:
    name: str
    invariant: str
    expect: str
    status: str  # ok | invariant_violation | error | ...
    violated: str
    states: int
    seconds: float
    ok: bool
    detail: str
    trace: str


def tla_binary() -> str:
    found = shutil.which("tla") or str(Path.home() / ".cargo" / "bin" / "tla")
    if not Path(found).exists():
        raise FileNotFoundError(
            "tla (crates.io tla-checker) is not on PATH nor in ~/.cargo/bin: cargo install "
            "tla-checker --locked --version $(cat scripts/tla-checker.version)"
        )
    return found


def load_manifest(spec_dir: Path = SPEC) -> list[Model]:
    data = json.loads((spec_dir / "manifest.json").read_text())
    models = []
    for m in data["models"]:
        ci = m.pop("ci", None)
        bound = None
        if ci is not None:
            consts = tuple((str(k), str(v)) for k, v in ci["constants"].items())
            bound = CiBound(consts, int(ci["states"]), float(ci["seconds"]))
        models.append(Model(**m, ci=bound))
    return models


def at_ci_bound(m: Model) -> Model:
    """The model as the test suite runs it: with its reduced constant set (and the states and
    seconds recorded for it) when the manifest records one, else as it is."""
    if m.ci is None:
        return m
    return Model(m.name, m.module, m.cfg, m.invariant, m.expect, m.ci.states, m.ci.seconds,
                 m.ci.constants)  # fmt: skip


def _render(v: Any) -> str:
    """A TLA+ value of tla-checker's JSON, compactly: a function as {k: v} without its empty or
    zero entries (the unused tree nodes of a state), a record as (field=value, ..), a set or a
    tuple as [..] (the JSON does not tell them apart)."""
    if (
        isinstance(v, list)
        and v
        and all(isinstance(x, dict) and set(x) == {"key", "value"} for x in v)
    ):
        pairs = [(x["key"], x["value"]) for x in v if x["value"] not in ([], 0, False, "")]
        return "{" + ", ".join(f"{_render(k)}: {_render(w)}" for k, w in pairs) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_render(x) for x in v) + "]"
    if isinstance(v, dict):
        fields = [(k, w) for k, w in v.items() if w != []]
        return "(" + ", ".join(f"{k}={_render(w)}" for k, w in fields) + ")"
    return json.dumps(v)


def _is_set(v: Any) -> bool:
    return isinstance(v, list) and not (
        v and all(isinstance(x, dict) and set(x) == {"key", "value"} for x in v)
    )


def _change(name: str, old: Any, new: Any) -> str:
    """One changed variable: a set (or tuple) that was one already as what it gained and lost,
    anything else as its new value."""
    if old is not None and _is_set(old) and _is_set(new) and old and new:
        gained = [x for x in new if x not in old]
        lost = [x for x in old if x not in new]
        parts = [f"+{_render(x)}" for x in gained] + [f"-{_render(x)}" for x in lost]
        if len(gained) + len(lost) < len(new):
            return f"{name} " + " ".join(parts)
    return f"{name}={_render(new)}"


def trace_text(trace: list[dict[str, Any]]) -> str:
    """The counterexample, one line per step: the action and the variables it changed (a set by
    its additions and removals; empty record fields and zero function entries left out)."""
    lines = []
    prev: dict[str, Any] = {}
    for step in trace:
        state = step["state"]
        changed = [k for k, w in state.items() if k not in prev or prev[k] != w]
        shown = ", ".join(_change(k, prev.get(k), state[k]) for k in changed)
        lines.append(f"{step['index']}: {step.get('action') or 'Init'}: {shown}")
        prev = state
    return "\n".join(lines)


def state_bound(m: Model) -> int:
    """The count that bounds a model's run (tla-checker's --max-states): twice the distinct
    states the manifest records, the most a passing run may explore. Deterministic: the same
    on every machine, however loaded."""
    return 2 * m.states + 1


def safety_timeout(m: Model) -> float:
    """The wall-clock limit of one model: only a safety net against a process that hangs
    without working (the work itself is bounded by `state_bound` and `cpu_budget`). A model is
    judged by the distinct states it explores, never by its time. Generous: 200 times the
    recorded seconds, at least an hour; 20 times was not enough on a machine loaded by a CI
    run beside two busy loops (MCTwoDTree, 31.9 s recorded, cut at 638 s)."""
    return max(3600.0, 200.0 * m.seconds)


def cpu_budget(m: Model) -> int:
    """CPU seconds one model may spend (RLIMIT_CPU of the checker process): a safety net that
    does not depend on how loaded the machine is, as CPU time does not grow with the load.
    50 times the recorded seconds, at least 10 minutes."""
    return int(max(600.0, 50.0 * m.seconds))


def _limit_cpu(seconds: int) -> Any:
    """A preexec_fn setting RLIMIT_CPU in the checker process (POSIX; elsewhere no limit)."""
    try:
        import resource
    except ImportError:  # not POSIX: the state bound and the wall clock remain
        return None

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 5))

    return apply


@dataclass(frozen=True)
class TlaOutcome:
    """One tla-checker process: how it ended (`finished`, `timeout` on the wall clock,
    `cpu` when its CPU budget ran out, `unreadable` when its last line is not JSON), its JSON
    result, and its stderr or last line for the report."""

    ended: str
    result: dict[str, Any]
    text: str
    seconds: float


def run_tla(
    module: str,
    cfg: str,
    cwd: Path,
    flags: Sequence[str] = (),
    timeout: float | None = None,
    cpu_seconds: int | None = None,
) -> TlaOutcome:
    """The one invocation of tla-checker (safety models, liveness models, trace validation's
    callers): `tla MODULE --config CFG --json --allow-deadlock FLAGS` in `cwd`, without
    colours, under an optional wall-clock timeout and CPU budget (RLIMIT_CPU)."""
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [tla_binary(), module, "--config", cfg, "--json", "--allow-deadlock", *flags],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env=dict(os.environ, NO_COLOR="1"),
            preexec_fn=None if cpu_seconds is None else _limit_cpu(cpu_seconds),
        )
    except subprocess.TimeoutExpired:
        return TlaOutcome("timeout", {}, "", time.monotonic() - start)
    secs = time.monotonic() - start
    if proc.returncode < 0 and -proc.returncode in _CPU_SIGNALS:
        return TlaOutcome("cpu", {}, f"killed by signal {-proc.returncode}", secs)
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    try:
        result = json.loads(last)
    except json.JSONDecodeError:
        return TlaOutcome("unreadable", {}, (proc.stderr.strip() or last)[-300:], secs)
    if not isinstance(result, dict):
        return TlaOutcome("unreadable", {}, last[-300:], secs)
    return TlaOutcome("finished", result, "", secs)


def within_recorded(states: int, recorded: int) -> bool:
    """A passing model explores half to twice its recorded distinct states (fewer: it shrank
    and proves less; more: it grew)."""
    return recorded / 2 <= states <= recorded * 2


def _constant_flags(m: Model) -> list[str]:
    return [f for name, value in m.constants for f in ("--constant", f"{name}={value}")]


def run_model(m: Model, spec_dir: Path = SPEC, timeout: float | None = None) -> ModelRun:
    timeout = safety_timeout(m) if timeout is None else timeout
    # a model sits beside the module it extends, in its system's folder (spec/thesis/)
    out = run_tla(
        Path(m.module).name, Path(m.cfg).name, spec_dir / Path(m.module).parent,
        ("--max-states", str(state_bound(m)), *_constant_flags(m)), timeout, cpu_budget(m),
    )  # fmt: skip
    secs = out.seconds
    if out.ended in ("timeout", "cpu", "unreadable"):
        detail = {
            "timeout": f"timed out after {timeout:.0f}s (wall clock; a hung checker)",
            "cpu": f"{out.text}: its CPU budget ({cpu_budget(m)} s) ran out",
            "unreadable": out.text,
        }[out.ended]
        status = "error" if out.ended == "unreadable" else "timeout"
        return ModelRun(m.name, m.invariant, m.expect, status, "", 0, secs, False, detail, "")
    result = out.result
    status = str(result.get("status"))
    states = int(result.get("stats", {}).get("states_explored", 0))
    violated = str(result.get("invariant_name") or "")
    trace = trace_text(result.get("trace", []))
    steps = max(0, len(result.get("trace", [])) - 1)
    if m.expect == "pass":
        ok = status == "ok" and within_recorded(states, m.states)
        detail = (
            f"holds ({states} distinct states)"
            if ok
            else f"{status} {violated}; {states} states vs {m.states} recorded"
        )
    else:
        violation = status == "invariant_violation"
        found = f"{violated} violated after {steps} steps" if violation else None
        ok, detail = judged(found, True, violated == m.expect)
        if not ok:
            detail = f"NOT rejected as expected ({status} {violated})"
    return ModelRun(
        m.name, m.invariant, m.expect, status, violated, states, secs, ok, detail, trace
    )


def run_manifest(
    spec_dir: Path = SPEC, names: Sequence[str] | None = None, jobs: int = 1
) -> list[ModelRun]:
    """Run the manifest's models (or those named, in manifest order), `jobs` tla processes at a
    time; an unknown name is an error naming it."""
    models = load_manifest(spec_dir)
    if names is not None:
        known = {m.name for m in models}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"unknown TLA+ model(s) {unknown}; see {spec_dir / 'manifest.json'}")
        models = [m for m in models if m.name in set(names)]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:  # each run is a subprocess
        return list(pool.map(lambda m: run_model(m, spec_dir), models))
