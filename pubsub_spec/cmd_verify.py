"""`pubsub-spec verify --impl CMD [DIR_OR_FILE ...]`: run an implementation on conformance
vectors without Spark (the runner is conformance/run_vectors.py): the committed corpus by
default, or vector folders, trace files and release tarballs (`pubsub-spec vectors export`).

Prints one line per trace and a summary; `--report DIR` also writes report.md / report.html,
`--json FILE` the summary and verdicts as JSON, `--junit FILE` one JUnit testcase per trace
(docs/implementers.md, docs/ci.md). Exit status (docs/ci.md): 0 when the implementation
passes, 1 when it fails, is unknown or checked nothing, 2 on a usage error (an unknown built-in,
a missing file).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tarfile
from collections.abc import Sequence
from pathlib import Path

from pubsub_spec.argtypes import feature_subset, non_empty, out_dir, seconds
from pubsub_spec.ci import EPILOG, output_file, write_json, write_junit
from pubsub_spec.conformance.impls import builtin, outside
from pubsub_spec.conformance.run_vectors import (
    VECTORS,
    is_release,
    run_vectors,
    unpacked_release,
)
from pubsub_spec.conformance.verdict import overall


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
    p.add_argument("--op-timeout", type=seconds, default=5.0, help="seconds per op (default 5)")
    p.add_argument("--total-timeout", type=seconds, default=120.0, help="seconds per trace")
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
    p.add_argument(
        "--features",
        type=feature_subset,
        default=None,
        metavar="LIST",
        help="judge on this named subset of features only (feature policy, docs/conformance.md)",
    )
    p.add_argument(
        "targets", nargs="*", metavar="DIR_OR_FILE", default=[str(VECTORS)],
        help="vector directories, trace files or release tarballs (default: the committed "
        "corpus)",
    )  # fmt: skip


def _builtin_name(text: str) -> str:
    if text not in builtin():
        raise argparse.ArgumentTypeError(f"unknown built-in implementation {text!r}")
    return text


def run(a: argparse.Namespace) -> int:
    """Run the vectors as `a` says; the exit status of docs/ci.md."""
    missing = [t for t in a.targets if not Path(t).exists()]
    if missing:
        print(f"error: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as stack:
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
    verdicts = run_vectors(impl, targets, a.op_timeout, a.total_timeout, True)
    verdict = overall(verdicts, a.features)
    passed = sum(v.verdict == "pass" for v in verdicts)
    rejected = sum(v.kind in ("bad-trace", "bad-expected") for v in verdicts)
    print(
        f"{impl}: {verdict} ({passed}/{len(verdicts)} traces pass, {rejected} rejected, "
        f"{sum(v.checked for v in verdicts)} publishes checked)"
    )
    if a.report:
        from pubsub_spec.conformance.report import write_report

        note = f"Vectors: {', '.join(a.targets)}; implementation `{impl}`."
        written = write_report(Path(a.report), verdicts, "Conformance vectors", [note], a.features)
        print(f"report: {written}")
    code = 0 if verdict == "pass" else 1
    if a.json or a.junit:
        from pubsub_spec.cmd_conform import verdict_case, verdicts_json

        if a.json:
            write_json(a.json, "verify", code, {"targets": a.targets, **verdicts_json(
                verdicts, a.features)})  # fmt: skip
        if a.junit:
            cases = [verdict_case(v, "vectors") for v in verdicts]
            write_junit(a.junit, "pubsub-spec verify", cases)
    return code
