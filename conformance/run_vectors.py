"""The file-based runner: an implementation on vector folders, trace files or release tarballs,
without Spark. Its command line is `pubsub-spec verify` (pubsub_spec/cmd_verify.py).

A directory's traces are those listed in its `index.json` (key `trace`, or a trace-set index
with `traces[].trace`) or, without one, every `*.ndjson` that is not `*.expected.ndjson`. Each
trace `X.ndjson` is compared with `X.expected.ndjson` (with the Python oracle where there is
none). A malformed trace or expected file is reported as rejected, naming file, line and field,
and the others still run. The default target is the committed corpus `conformance/vectors/`.

A target may also be a vectors release tarball (`pubsub-spec vectors export`), read without
unpacking it anywhere but a temporary folder (`unpacked_release`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from pubsub_spec.conformance.runner import run_traces
from pubsub_spec.conformance.traceio import _load, confined, read_text_file
from pubsub_spec.conformance.verdict import Verdict
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


def collect_targets(impl: str, targets: Sequence[Path]) -> tuple[list[Path], list[Verdict]]:
    """The traces of every target, and a `skipped` bad-trace verdict for `impl` per entry of a
    target's index.json that could not be used."""
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
    return paths, rejected


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
    paths, rejected = collect_targets(impl, targets)

    def show(done: int, total: int, v: Verdict) -> None:
        if echo:
            print(f"[{done:>3}/{total}] {v.trace_id:<32} {v.describe()}", flush=True)

    return rejected + run_traces([impl], paths, None, op_timeout, total_timeout, progress=show)


RELEASE_SUFFIXES = (".tar.gz", ".tgz")


def is_release(path: Path) -> bool:
    return path.name.endswith(RELEASE_SUFFIXES)


@contextlib.contextmanager
def unpacked_release(path: Path) -> Iterator[Path]:
    """A vectors release tarball verified against its manifest and unpacked, bounded, into a
    temporary folder (conformance/release.py), yielding its `vectors/` folder."""
    from pubsub_spec.conformance.release import unpacked_release as verified

    with verified(path) as vectors:
        yield vectors
