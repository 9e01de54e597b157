"""`pubsub-spec verify --impl CMD [DIR_OR_FILE ...]`: run an implementation on conformance
vectors without Spark (the runner is conformance/run_vectors.py): the committed corpus by
default, or vector folders, trace files and release tarballs (`pubsub-spec vectors export`).

Prints one line per trace and a summary; `--report DIR` also writes report.md / report.html,
`--json FILE` the summary and verdicts as JSON, `--junit FILE` one JUnit testcase per trace
(docs/implementers.md, docs/ci.md). Exit status (docs/ci.md): 0 when the implementation
passes, 1 when it fails, is unknown or checked nothing, 2 on a usage error (an unknown built-in,
a missing file).

`--level protocol` also judges how the implementation disseminates (conformance/OBSERVATIONS.md):
each trace gets a protocol verdict (`conforms`, `deviates (rule)`, `not reported`), and the exit
status is 1 unless the delivery level passes and the protocol level conforms.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tarfile
from collections.abc import Sequence
from pathlib import Path

from pubsub_spec.argtypes import non_empty, out_dir
from pubsub_spec.ci import EPILOG, output_file, write_json, write_junit
from pubsub_spec.common_args import add_features, add_timeouts
from pubsub_spec.conformance.impls import builtin, outside
from pubsub_spec.conformance.lifeline import Interrupted, interruptible
from pubsub_spec.conformance.run_vectors import (
    VECTORS,
    collect_targets,
    is_release,
    unpacked_release,
)
from pubsub_spec.conformance.runner import run_traces
from pubsub_spec.conformance.verdict import Verdict, overall, overall_protocol
from pubsub_spec.outputs import OutputProblem, check_outputs, locked


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="pubsub-spec verify",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(p)
    return run(p.parse_args(argv))


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The runner's options."""
    p.epilog = EPILOG
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--impl", type=non_empty, metavar="CMD", help="command line of an outside implementation"
    )
    who.add_argument(
        "--builtin", type=_builtin_name, metavar="NAME", help=f"one of {', '.join(builtin())}"
    )
    add_timeouts(p)
    p.add_argument(
        "--report", type=out_dir, metavar="DIR", help="also write report.md and report.html here"
    )
    p.add_argument(
        "--json", type=output_file, metavar="FILE", help="also write summary and verdicts as JSON"
    )
    p.add_argument(
        "--junit", type=output_file, metavar="FILE",
        help="also write JUnit XML: one testcase per trace",
    )  # fmt: skip
    add_features(p)
    p.add_argument(
        "--level", choices=LEVELS, default="delivery",
        help="delivery: what is delivered (default); protocol: also how it is disseminated, "
        "from the observations of protocol version 2 (conformance/OBSERVATIONS.md); a "
        "deviation or a program that reports none fails (exit 1)",
    )  # fmt: skip
    p.add_argument(
        "--steps", action="store_true",
        help="run the step vectors instead: one handler of one node per vector, pre-state and "
        "input in, post-state and sends out (docs/steps.md)",
    )  # fmt: skip
    p.add_argument(
        "targets", nargs="*", metavar="DIR_OR_FILE", default=[str(VECTORS)],
        help="vector directories, trace files or release tarballs (default: the committed "
        "corpus)",
    )  # fmt: skip


LEVELS = ("delivery", "protocol")


def _builtin_name(text: str) -> str:
    if text not in builtin():
        raise argparse.ArgumentTypeError(f"unknown built-in implementation {text!r}")
    return text


def run(a: argparse.Namespace) -> int:
    """Run the vectors as `a` says; the exit status of docs/ci.md (130/143 when interrupted
    by SIGINT/SIGTERM, after writing what is known, marked interrupted)."""
    missing = [t for t in a.targets if not Path(t).exists()]
    if missing:
        print(f"error: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    if getattr(a, "steps", False):
        from pubsub_spec.cmd_verify_steps import run as run_steps

        return run_steps(a)
    try:  # every output is writable, and the report folder ours alone, before anything runs
        check_outputs({"--json": a.json, "--junit": a.junit}, {"--report": a.report})
    except OutputProblem as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as stack:
        if a.report:
            try:
                stack.enter_context(locked(a.report, "verify"))
            except OutputProblem as e:
                print(f"error: {e}", file=sys.stderr)
                return 2
        targets: list[Path] = []
        for t in a.targets:
            if Path(t).is_file() and is_release(Path(t)):
                try:
                    targets.append(stack.enter_context(unpacked_release(Path(t))))
                except (OSError, EOFError, tarfile.TarError, ValueError) as e:
                    print(f"error: {t}: not a valid vectors release: {e}", file=sys.stderr)
                    return 2
            else:
                targets.append(Path(t))
        return _run(a, targets)


def _run(a: argparse.Namespace, targets: list[Path]) -> int:
    impl = outside(a.impl) if a.impl else (a.builtin or "reference")
    verdicts, stopped, total = _verdicts(impl, targets, a)
    verdict = overall(verdicts, a.features)
    level = getattr(a, "level", "delivery")
    protocol = overall_protocol(verdicts) if level == "protocol" else ""
    passed = sum(v.verdict == "pass" for v in verdicts)
    rejected = [v for v in verdicts if v.kind in ("bad-trace", "bad-expected")]
    for v in rejected:  # the reasons on the console too, not only in --json/--report
        print(f"rejected: {v.trace_id}: {v.reason}", file=sys.stderr)
    print(
        f"{impl}: {verdict} ({passed}/{len(verdicts)} traces pass, {len(rejected)} rejected, "
        f"{sum(v.checked for v in verdicts)} publishes checked)"
        + (f"; protocol: {protocol}" if protocol else "")
    )
    notes = [f"Vectors: {', '.join(a.targets)}; implementation `{impl}`."]
    if stopped is not None:
        notes.insert(0, f"**Interrupted** by {stopped.name} after {len(verdicts)} of {total} "
                        "traces; the others did not run.")  # fmt: skip
        print(f"interrupted by {stopped.name} after {len(verdicts)} of {total} traces",
              file=sys.stderr)  # fmt: skip
    if a.report:
        from pubsub_spec.conformance.report import write_report

        title = "Conformance vectors" + (" (interrupted)" if stopped else "")
        written = write_report(Path(a.report), verdicts, title, notes, a.features)
        print(f"report: {written}")
    code = 0 if verdict == "pass" and (level != "protocol" or protocol == "conforms") else 1
    if stopped is not None:
        code = stopped.exit_code
    if a.json or a.junit:
        from pubsub_spec.cmd_conform import verdict_case, verdicts_json

        if a.json:
            body = {"targets": a.targets, "level": level,
                    **verdicts_json(verdicts, a.features)}  # fmt: skip
            body["interrupted"] = stopped.name if stopped else None
            write_json(a.json, "verify", code, body)
        if a.junit:
            cases = [verdict_case(v, "vectors", level=level) for v in verdicts]
            write_junit(a.junit, "pubsub-spec verify", cases)
    return code


def _verdicts(
    impl: str, targets: list[Path], a: argparse.Namespace
) -> tuple[list[Verdict], Interrupted | None, int]:
    """The verdicts (run_vectors, one by one), or those known when SIGINT/SIGTERM came, the
    signal, and the number of traces there were."""
    paths, index = collect_targets(impl, targets)
    total = len(index) + len(paths)
    done: list[Verdict] = []

    def show(n: int, of: int, v: Verdict) -> None:
        done.append(v)
        level = f"; protocol: {v.protocol_detail}" if v.protocol else ""
        print(f"[{n:>3}/{of}] {v.trace_id:<32} {v.describe()}{level}", flush=True)

    protocol = getattr(a, "level", "delivery") == "protocol"
    try:
        with interruptible():
            ran = run_traces([impl], paths, None, a.op_timeout, a.total_timeout, progress=show,
                             protocol=protocol)  # fmt: skip
    except Interrupted as stop:
        return index + done, stop, total
    return index + ran, None, total
