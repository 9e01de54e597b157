"""`pubsub-spec verify --steps [--impl CMD | --builtin NAME] [DIR_OR_TARBALL]`: the step vectors
(docs/steps.md) run against an implementation, one handler of one node at a time
(conformance/steps/runner.py; PROTOCOL.md, "Steps").

Prints one line per handler (`pass`, `fail` with the first failing case and the first field
that differs, as a JSON path, or `unsupported`) and a summary; `--json FILE` writes them too
(`--report` and `--junit` are the traces'). Exit status: 0 when no vector fails and at least
one passes, 1 otherwise, 2 on a usage error."""

from __future__ import annotations

import argparse
import contextlib
import sys
import tarfile
from pathlib import Path

from pubsub_spec.ci import write_json
from pubsub_spec.conformance.run_vectors import VECTORS, is_release, unpacked_release
from pubsub_spec.conformance.steps import systems
from pubsub_spec.conformance.steps.runner import (
    Builtin,
    Program,
    StepImpl,
    overall,
    run_steps,
    summarize,
)
from pubsub_spec.conformance.steps.vectors import load, root


def _steps_root(target: Path) -> Path:
    """The step vectors of a target: a steps folder, a folder beside one, or the corpus."""
    for candidate in (target, target / "steps", target.parent / "steps"):
        index = candidate / "index.json"
        if index.is_file() and '"systems"' in index.read_text()[:200]:
            return candidate
    raise FileNotFoundError(f"{target}: no step vectors (a folder with index.json)")


def run(a: argparse.Namespace) -> int:
    impl: StepImpl
    if a.impl:
        impl = Program(a.impl, timeout=a.op_timeout)
    else:
        name = a.builtin or "reference"
        if name != "reference":
            print("error: --steps runs the built-in `reference` or --impl CMD", file=sys.stderr)
            return 2
        impl = Builtin("reference", systems())
    targets = [t for t in a.targets if t != str(VECTORS)]
    if len(targets) > 1:
        print("error: --steps takes one folder or release tarball", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as stack:
        base = root()
        if targets:
            target = Path(targets[0])
            try:
                if target.is_file() and is_release(target):
                    target = stack.enter_context(unpacked_release(target))
                base = _steps_root(target)
            except (OSError, EOFError, tarfile.TarError, ValueError) as e:
                print(f"error: {targets[0]}: {e}", file=sys.stderr)
                return 2
        vectors = load(base)
        results = run_steps(impl, vectors)
    summaries = summarize(results)
    for s in summaries:
        print(f"{s.system + '/' + s.handler:<32} {s.describe()}")
    verdict = overall(summaries)
    counts = {k: sum(r.status == k for r in results) for k in ("pass", "fail", "unsupported")}
    print(
        f"{impl.name}: steps {verdict} ({counts['pass']} pass, {counts['fail']} fail, "
        f"{counts['unsupported']} unsupported of {len(results)} step vectors)"
    )
    code = 0 if verdict == "pass" else 1
    if a.json:  # the same top level as every command's --json (docs/ci.md)
        handlers = [
            {"system": s.system, "handler": s.handler, "verdict": s.verdict, "pass": s.passed,
             "fail": s.failed, "unsupported": s.unsupported,
             "first_failure": None if s.first_failure is None else
             {"case": s.first_failure.vector.case, "field": s.first_failure.detail}}
            for s in summaries
        ]  # fmt: skip
        write_json(a.json, "verify --steps", code, {"implementation": impl.name,
                                                    "verdict": verdict, **counts,
                                                    "handlers": handlers})  # fmt: skip
    return code
