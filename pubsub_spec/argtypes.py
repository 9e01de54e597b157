"""argparse types with ranges: every number a command takes is checked where it is
parsed, with a message that names the option's rule (`--nodes 0`, `nan`, `inf`, a negative
depth, a probability of 5, an empty `--impl`, an `--out` that is a file)."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from pathlib import Path


def int_range(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An integer in [low, high] (either end optional)."""

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {_bounds(low, high)}, got {value}")
        return value

    parse.__name__ = f"integer {_bounds(low, high)}"
    return parse


def float_range(
    low: float | None = None, high: float | None = None, low_open: bool = False
) -> Callable[[str], float]:
    """A finite number in [low, high] (or (low, high] with `low_open`); NaN and infinities are
    rejected."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        below = low is not None and (value <= low if low_open else value < low)
        if below or (high is not None and value > high):
            raise argparse.ArgumentTypeError(
                f"must be {_bounds(low, high, low_open)}, got {value:g}"
            )
        return value

    parse.__name__ = f"number {_bounds(low, high, low_open)}"
    return parse


def _bounds(low: float | None, high: float | None, low_open: bool = False) -> str:
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{low:g}, {high:g}]"
    if low is not None:
        return f"{'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"<= {high:g}"
    return "any"


positive_int = int_range(1)
non_negative_int = int_range(0)
seed_int = int_range(-(2**53 - 1), 2**53 - 1)  # conformance/FORMAT.md, "Numbers"
probability = float_range(0.0, 1.0)
seconds = float_range(0.0, 86400.0, low_open=True)  # a timeout: > 0, at most a day


def non_empty(text: str) -> str:
    """A non-blank string (e.g. an `--impl` command)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return text


def out_dir(text: str) -> str:
    """A directory to write into: it may not exist yet, but must not be a file."""
    if not text.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} exists and is not a directory")
    for parent in path.parents:
        if parent.exists() and not parent.is_dir():
            raise argparse.ArgumentTypeError(f"{parent} is not a directory")
    return text


def existing_dir(text: str) -> str:
    if not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text}: not a directory")
    return text


def name_list(text: str) -> str:
    """A comma-separated list with at least one non-empty name."""
    if not [x for x in text.split(",") if x.strip()]:
        raise argparse.ArgumentTypeError("expected at least one name")
    return text


def feature_subset(text: str) -> frozenset[str]:
    """A comma-separated subset of the feature vocabulary (reference.sim.system.FEATURES)."""
    from pubsub_spec.reference.sim.system import FEATURES

    names = frozenset(x.strip() for x in text.split(",") if x.strip())
    unknown = sorted(names - set(FEATURES))
    if not names or unknown:
        raise argparse.ArgumentTypeError(
            f"expected features from {', '.join(FEATURES)}"
            + (f"; unknown: {', '.join(unknown)}" if unknown else "")
        )
    return names


SPARK_MASTER = re.compile(
    r"local(\[(\d+|\*)(,\d+)?\])?|local-cluster\[\d+,\d+,\d+\]|yarn"
    r"|(spark|mesos)://[^\s/]+(:\d+)?(,[^\s/]+(:\d+)?)*/?|k8s://\S+"
)


def spark_master(text: str) -> str:
    """A Spark master URL by its scheme (bad input, exit 2)."""
    if not SPARK_MASTER.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a Spark master URL (local, local[N], local-cluster[N,C,M], "
            "spark://HOST:PORT, mesos://HOST:PORT, yarn, k8s://URL)"
        )
    return text.strip()


def memory_size(text: str) -> str:
    """A JVM memory size as Spark takes it: a whole number and a unit k, m, g or t (e.g. 512m),
    at least 256m (less cannot run the SQL oracle's joins)."""
    m = re.fullmatch(r"\s*(\d+)\s*([kmgt])b?\s*", text.lower())
    if m is None:
        raise argparse.ArgumentTypeError(f"expected a size such as 512m or 2g, got {text!r}")
    size = int(m.group(1)) * 1024 ** "kmgt".index(m.group(2))  # in KiB
    if size < 256 * 1024:
        raise argparse.ArgumentTypeError(f"must be at least 256m, got {text!r}")
    return f"{m.group(1)}{m.group(2)}"
