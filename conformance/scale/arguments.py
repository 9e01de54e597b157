"""Helpers of the commands that run at scale (`conform --ops`, `generate --ops`): the argparse
type of the sample fractions and the Spark session's driver settings."""

from __future__ import annotations

import math
from typing import Any

# The driver JVM of `conform --ops`/`generate --ops` (docs/conformance.md, "Driver memory"): a
# 512m heap (spark.driver.memory; Spark's default is 1g), since only counts and a few failures
# reach the driver, with the throughput collector: in local mode that JVM runs the SQL oracle,
# which at 10^7 ops took 123 s with 1g and G1 (1.44 GB resident), 163 s with 512m and G1, and
# 110 s with 512m and the parallel collector (0.93 GB resident).
SCALE_DRIVER_MEMORY = "512m"
SCALE_JAVA_OPTIONS = "-XX:+UseParallelGC"


def fraction(text: str) -> float:
    """argparse type of --sample-slow / --cross-check: a number in (0, 1]."""
    import argparse

    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (0.0 < x <= 1.0) or math.isnan(x):
        raise argparse.ArgumentTypeError(f"must be in (0, 1]: {text}")
    return x


def scale_session(args: Any) -> tuple[str | None, str | None]:
    """(driver_memory, java_options) of get_spark for a command's arguments: with --ops, a 512m
    driver heap unless --driver-memory says otherwise, and the parallel collector; without,
    Spark's defaults (or --driver-memory)."""
    ops = getattr(args, "ops", None)
    memory = getattr(args, "driver_memory", None)
    return memory or (SCALE_DRIVER_MEMORY if ops else None), SCALE_JAVA_OPTIONS if ops else None

