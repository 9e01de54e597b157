"""Running the TLA+ models of spec/ with tla-checker (`tla`, crates.io `tla-checker`, version
pinned in scripts/tla-checker.version) and checking them against spec/manifest.json: a model
that must pass passes and explores about the recorded number of distinct states (a model that
shrinks to nothing proves nothing); a mutant is rejected by the invariant it must violate."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SPEC = Path(__file__).resolve().parent.parent / "spec"


@dataclass(frozen=True)
class Model:
    name: str
    module: str
    cfg: str
    invariant: str
    expect: str  # "pass" or the TLA+ invariant that must be violated
    states: int
    seconds: float


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
        raise FileNotFoundError("tla (cargo install tla-checker --locked) is not installed")
    return found


def load_manifest(spec_dir: Path = SPEC) -> list[Model]:
    data = json.loads((spec_dir / "manifest.json").read_text())
    return [Model(**m) for m in data["models"]]


def _trace_text(trace: list[dict[str, Any]]) -> str:
    lines = []
    for step in trace:
        state = ", ".join(f"{k}={json.dumps(v)[:120]}" for k, v in step["state"].items())
        lines.append(f"{step['index']}: {step.get('action') or 'Init'}: {state}")
    return "\n".join(lines)


def run_model(m: Model, spec_dir: Path = SPEC, timeout: float = 300.0) -> ModelRun:
    start = time.monotonic()
    proc = subprocess.run(
        [tla_binary(), m.module, "--config", m.cfg, "--json", "--allow-deadlock"],
        cwd=spec_dir,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=dict(os.environ, NO_COLOR="1"),
    )
    secs = time.monotonic() - start
    last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    try:
        result = json.loads(last)
    except json.JSONDecodeError:
        detail = (proc.stderr.strip() or last)[-300:]
        return ModelRun(m.name, m.invariant, m.expect, "error", "", 0, secs, False, detail, "")
    status = str(result.get("status"))
    states = int(result.get("stats", {}).get("states_explored", 0))
    violated = str(result.get("invariant_name") or "")
    trace = _trace_text(result.get("trace", []))
    if m.expect == "pass":
        ok = status == "ok" and m.states / 2 <= states <= m.states * 2
        detail = (
            f"holds ({states} distinct states)"
            if ok
            else f"{status} {violated}; {states} states vs {m.states} recorded"
        )
    else:
        ok = status == "invariant_violation" and violated == m.expect
        detail = (
            f"rejected: {violated} violated after {len(result.get('trace', []))} states"
            if ok
            else f"NOT rejected as expected ({status} {violated})"
        )
    return ModelRun(
        m.name, m.invariant, m.expect, status, violated, states, secs, ok, detail, trace
    )


def run_manifest(spec_dir: Path = SPEC) -> list[ModelRun]:
    return [run_model(m, spec_dir) for m in load_manifest(spec_dir)]
