"""`pubsub-spec verify --impl CMD [DIR_OR_FILE ...]`: run an implementation on conformance
vectors without Spark (conformance/run_vectors.py): the committed corpus by default, or
vector folders, trace files and release tarballs (`pubsub-spec vectors export`). One line per
trace, a summary, and `--junit`/`--json`/`--report` for CI (docs/implementers.md, docs/ci.md).
"""

from __future__ import annotations

import argparse

from pubsub_spec.conformance import run_vectors


def add_arguments(p: argparse.ArgumentParser) -> None:
    run_vectors.add_arguments(p)


def run(args: argparse.Namespace) -> int:
    return run_vectors.run(args)
