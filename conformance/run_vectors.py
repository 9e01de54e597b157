"""Run an implementation on a directory of vectors, without Spark.

  python -m pubsub_spec.conformance.run_vectors --impl "CMD ARGS" [DIR_OR_FILE ...]
  python -m pubsub_spec.conformance.run_vectors --builtin reference [DIR_OR_FILE ...]

DIR defaults to the committed corpus `conformance/vectors/`. A directory's traces are those
listed in its `index.json` (key `trace`, or a trace-set index with `traces[].trace`) or, without
one, every `*.ndjson` that is not `*.expected.ndjson`. Each trace `X.ndjson` is compared with
`X.expected.ndjson` (with the Python oracle where there is none). A malformed trace or expected
file is reported as rejected, naming file, line and field, and the others still run.

A target may also be a vectors release tarball (`pubsub-spec vectors export`), read without
unpacking it anywhere but a temporary folder. `pubsub-spec verify` is this runner.

Prints one line per trace and a summary; `--report DIR` also writes report.md / report.html,
`--json FILE` the summary and verdicts as JSON, `--junit FILE` one JUnit testcase per trace.
Exit status (docs/ci.md): 0 when the implementation passes, 1 when it fails, is unknown or
checked nothing, 2 on a usage error (an unknown built-in, a missing file).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from pubsub_spec.argtypes import feature_subset, non_empty, out_dir, seconds
from pubsub_spec.conformance.impls import builtin, outside
from pubsub_spec.conformance.runner import run_traces
from pubsub_spec.conformance.traceio import _load, confined, read_text_file
from pubsub_spec.conformance.verdict import Verdict, overall
from pubsub_spec.reference.common.errors import InputError

VECTORS = Path(__file__).with_name("vectors")


def collect_traces(target: Path) -> tuple[list[Path], list[InputError]]:
    """The trace files of a directory (index.json order, else sorted) or the path itself, and
    the index's rejected entries (file, line and field named): an index that is not JSON or not
    a list of entries, an entry without a `trace` name, or one that points outside the
    directory (confinement). A bad entry does not stop the others."""
    if not target.is_dir():
        return [target], []  # the reader rejects what is not a regular file
    index = target / "index.json"
    if not os.path.lexists(index):
        return sorted(
            p for p in target.glob("*.ndjson") if not p.name.endswith(".expected.ndjson")
        ), []  # fmt: skip
    try:
        data = _load(read_text_file(index), f"{index} line 1")
    except InputError as e:
        return [], [e]
    entries = data.get("traces") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        where = f"{index} line 1"
        return [], [InputError(where, "traces", "expected a list of entries")]
    paths: list[Path] = []
    bad: list[InputError] = []
    for n, entry in enumerate(entries):
        fld = f"traces[{n}].trace"
        name = entry.get("trace") if isinstance(entry, dict) else None
        try:
            if not isinstance(name, str):
                raise InputError(f"{index} line 1", fld, f"expected a file name, got {name!r}")
            paths.append(confined(target, name, f"{index} line 1", fld))
        except InputError as err:
            bad.append(err)
    return paths, bad


def list_traces(target: Path) -> list[Path]:
    """The trace files of `target` (collect_traces); raises the first bad index entry."""
    paths, bad = collect_traces(target)
    if bad:
        raise bad[0]
    return paths


def run_vectors(
    impl: str,
    targets: Sequence[Path] = (VECTORS,),
    op_timeout: float = 5.0,
    total_timeout: float = 120.0,
    echo: bool = False,
) -> list[Verdict]:
    """One verdict per trace of `targets` for `impl` (a built-in name or `cmd:COMMAND`)."""
    paths: list[Path] = []
    rejected: list[Verdict] = []
    for t in targets:
        found, bad = collect_traces(Path(t))
        paths += found
        rejected += [
            Verdict(impl, f"{Path(t).name}/index.json:{e.field}", "?", "skipped",
                    reason=f"bad index: {e}", kind="bad-trace")
            for e in bad
        ]  # fmt: skip

    def show(done: int, total: int, v: Verdict) -> None:
        if echo:
            print(f"[{done:>3}/{total}] {v.trace_id:<32} {v.describe()}", flush=True)

    return rejected + run_traces([impl], paths, None, op_timeout, total_timeout, progress=show)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m pubsub_spec.conformance.run_vectors",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(p)
    return run(p.parse_args(argv))


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The runner's options (also those of `pubsub-spec verify`)."""
    from pubsub_spec.ci import EPILOG, output_file

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
                except (OSError, tarfile.TarError, ValueError) as e:
                    print(f"error: {t}: not a vectors release: {e}", file=sys.stderr)
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
        from pubsub_spec.ci import write_json, write_junit
        from pubsub_spec.cmd_conform import verdict_case, verdicts_json

        if a.json:
            write_json(a.json, "verify", code, {"targets": a.targets, **verdicts_json(
                verdicts, a.features)})  # fmt: skip
        if a.junit:
            cases = [verdict_case(v, "vectors") for v in verdicts]
            write_junit(a.junit, "pubsub-spec verify", cases)
    return code


RELEASE_SUFFIXES = (".tar.gz", ".tgz")


def is_release(path: Path) -> bool:
    return path.name.endswith(RELEASE_SUFFIXES)


@contextlib.contextmanager
def unpacked_release(path: Path) -> Iterator[Path]:
    """A vectors release tarball unpacked into a temporary folder (the `data` filter: no links
    out, no absolute names), yielding its `vectors/` folder."""
    with tempfile.TemporaryDirectory(prefix="pubsub-vectors-") as tmp, tarfile.open(path) as tar:
        tar.extractall(tmp, filter="data")
        found = sorted(Path(tmp).glob("*/vectors/index.json"))
        if not found:
            raise ValueError("no */vectors/index.json inside")
        yield found[0].parent


if __name__ == "__main__":
    sys.exit(main())
