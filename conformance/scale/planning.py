"""The plan of a run at scale (driver, small): a target number of ops turned into trace numbers
0..N-1, drawn round-robin over the generators (trace number k is generator `gens[k % len(gens)]`,
index `k // len(gens)`), cut into partitions of at most `max_partition_ops` estimated ops (the
estimate of a generator is the length of its trace 0, generated on the driver)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MAX_PARTITION_OPS = 50_000
MIN_PARTITIONS = 8


@dataclass(frozen=True)
class Plan:
    generators: tuple[str, ...]
    profile: str
    seed: int
    target_ops: int
    estimate: dict[str, int]  # ops of each generator's trace 0
    traces: int
    estimated_ops: int
    partitions: tuple[tuple[int, int], ...]  # [start, end) trace numbers

    @property
    def rounds(self) -> int:
        """The full rounds (one trace of every generator each); at least 1."""
        return max(1, self.traces // len(self.generators))

    def task(self, number: int) -> tuple[str, int]:
        """(generator, index) of trace number `number`."""
        return self.generators[number % len(self.generators)], number // len(self.generators)


def plan(
    ops: int,
    generators: Sequence[str],
    profile: str,
    seed: int,
    max_partition_ops: int = MAX_PARTITION_OPS,
    min_partitions: int = MIN_PARTITIONS,
) -> Plan:
    """The traces (round-robin over the generators) whose estimated ops first reach `ops`,
    in partitions of at most `max_partition_ops` estimated ops (one trace at least), and
    smaller when that leaves fewer than `min_partitions` (so that every core has work)."""
    from pubsub_spec.conformance.generators import GENERATORS, PROFILES

    gens = tuple(generators)
    if not gens or any(g not in GENERATORS for g in gens) or profile not in PROFILES:
        raise ValueError(f"unknown generator(s) in {gens} or profile {profile!r}")
    if ops < 1 or max_partition_ops < 1:
        raise ValueError("ops and max_partition_ops must be >= 1")
    est = {g: max(1, len(GENERATORS[g](seed, 0, profile).ops)) for g in gens}
    per_round = sum(est[g] for g in gens)
    rounds = (ops - 1) // per_round
    traces, total = rounds * len(gens), rounds * per_round
    while total < ops:
        total += est[gens[traces % len(gens)]]
        traces += 1
    bound = min(max_partition_ops, max(1, math.ceil(total / max(1, min_partitions))))
    parts: list[tuple[int, int]] = []
    start, acc = 0, 0
    for k in range(traces):
        e = est[gens[k % len(gens)]]
        if k > start and acc + e > bound:
            parts.append((start, k))
            start, acc = k, 0
        acc += e
    parts.append((start, traces))
    return Plan(gens, profile, seed, ops, est, traces, total, tuple(parts))

