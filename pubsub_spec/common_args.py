"""Options that several commands share, each defined once: the same name, type, default and help
wherever it appears (`generate` and `conform` for the trace set and Spark, `conform` and
`verify` for the outside programs' limits and the feature subset, `--seed` everywhere).

Options whose meaning differs by command stay with their command: `--out` (what is written
there), `--json`/`--junit` (what one testcase is), `--jobs` (tla processes or figure runs),
`--only`, `--impl` (repeatable in `conform`, one program in `verify`), `--profile` of
`simulate` (the size of `--workload`, small by default)."""

from __future__ import annotations

import argparse

from pubsub_spec.argtypes import (
    feature_subset,
    int_range,
    memory_size,
    name_list,
    positive_int,
    seconds,
    seed_int,
    spark_master,
)
from pubsub_spec.conformance.limits import MAX_CONFORM_OPS


def add_seed(p: argparse.ArgumentParser, default: int) -> None:
    """`--seed`: the seed of every random choice of the command (traces, a workload, addresses);
    1 for trace sets, 0 for single runs."""
    p.add_argument("--seed", type=seed_int, default=default)


# -- the trace set (`generate`, `conform`) -------------------------------------------------------
def add_generators(p: argparse.ArgumentParser) -> None:
    from pubsub_spec.conformance.generators import GENERATORS

    p.add_argument(
        "--generators",
        type=name_list,
        default=",".join(GENERATORS),
        help=f"comma-separated, from: {', '.join(GENERATORS)}",
    )


def add_count(p: argparse.ArgumentParser) -> None:
    p.add_argument("--count", type=positive_int, default=3, help="traces per generator")


def add_profile(p: argparse.ArgumentParser) -> None:
    from pubsub_spec.conformance.generators import PROFILES

    p.add_argument(
        "--profile", choices=sorted(PROFILES), default=None,
        help="trace size (default: small; medium with --ops)",
    )  # fmt: skip


OPS = int_range(1, MAX_CONFORM_OPS)  # one type object: the commands' --ops are the same


def add_ops(p: argparse.ArgumentParser, then: str) -> None:
    """`--ops N`; `then` says what the command does differently at that scale."""
    p.add_argument(
        "--ops", type=OPS, default=None, metavar="N",
        help=f"size the trace set by its total number of ops instead of --count{then} (at most "
        f"{MAX_CONFORM_OPS:.0e}: conformance/limits.py)",
    )  # fmt: skip


# -- Spark (`generate`, `conform`) -----------------------------------------------------------------
def add_master(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--master", type=spark_master, default=None,
        help="Spark master URL: local[N], spark://HOST:PORT, yarn, k8s://URL (default: local[2])",
    )  # fmt: skip


def add_driver_memory(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--driver-memory", type=memory_size, default=None, metavar="SIZE",
        help="the driver JVM's heap, spark.driver.memory (default: 512m with --ops, where "
        "nothing large reaches the driver; Spark's 1g otherwise)",
    )  # fmt: skip


def add_partition_ops(p: argparse.ArgumentParser) -> None:
    from pubsub_spec.conformance.scale.planning import MAX_PARTITION_OPS

    p.add_argument(
        "--partition-ops", type=positive_int, default=MAX_PARTITION_OPS, metavar="N",
        help="with --ops: at most this many (estimated) ops per Spark partition",
    )  # fmt: skip


# -- implementations under test (`conform`, `verify`) ----------------------------------------------
def add_timeouts(p: argparse.ArgumentParser) -> None:
    """`--op-timeout` and `--total-timeout`."""
    p.add_argument(
        "--op-timeout", type=seconds, default=5.0,
        help="seconds per op, outside programs (default 5)",
    )  # fmt: skip
    p.add_argument(
        "--total-timeout", type=seconds, default=120.0,
        help="seconds per trace, outside programs and built-ins alike; with conform --ops, "
        "outside programs only (default 120)",
    )  # fmt: skip


def add_features(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--features",
        type=feature_subset,
        default=None,
        metavar="LIST",
        help="judge implementations on this named subset of features only (e.g. "
        "'strict,multi-schema'): skips for other features are accepted (feature policy, "
        "docs/conformance.md)",
    )
