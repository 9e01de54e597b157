"""Which implementation runs on which trace of a run at scale: the fast built-ins (`FAST`) on
every trace, the slow ones (the reference simulators, outside programs) on a deterministic,
systematic sample of `slow_fraction` of the traces (`in_sample`: every s-th trace of each
generator, s = 1/fraction rounded, from an offset drawn from the seed and the implementation's
name, spread over the generators), and `oracle-python`, the cross-check of the SQL oracle, on a
sample of `cross_fraction`. The default fractions share fixed budgets of ops (`default_fractions`),
so that the cost stays about constant as the set grows and as implementations are added."""

from __future__ import annotations

import functools
import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pubsub_spec.conformance.scale.executor import Job

# The fast built-ins run on every trace (0.05-0.2 ms per op); the cross-check oracle on a
# sample; everything else (the simulators: ~1.3 ms per op; outside programs) is "slow".
FAST: tuple[str, ...] = ("oracle-indexed", "reference-array")
CROSS_CHECK = "oracle-python"
# Sampling policy: the slow implementations share SLOW_OPS_BUDGET ops (each runs on
# SLOW_OPS_BUDGET / (ops x number of slow ones) of the traces, all of them at CI sizes) and the
# cross-check runs on CROSS_OPS_BUDGET / ops, so their cost stays about constant as the set
# grows and as implementations are added.
SLOW_OPS_BUDGET = 100_000
CROSS_OPS_BUDGET = 1_000_000


def default_fractions(ops: int, slow_impls: int = 1) -> tuple[float, float]:
    """(slow fraction, cross-check fraction) of the sampling policy for a set of `ops` ops run
    by `slow_impls` slow implementations (they share one budget)."""
    share = SLOW_OPS_BUDGET / (ops * max(1, slow_impls))
    return min(1.0, share), min(1.0, CROSS_OPS_BUDGET / ops)


def stride(fraction: float) -> int:
    """The sample of `fraction` takes every `stride`-th round: 1/fraction, rounded."""
    return 1 if fraction >= 1.0 else max(1, round(1 / fraction))


def effective(fraction: float) -> float:
    """The share of the rounds a sample of `fraction` really takes (1/stride)."""
    return 1 / stride(fraction)


@functools.cache
def sample_offset(seed: int, width: int, what: str) -> int:
    """The sample's first round, drawn from the seed below `width` = min(stride, rounds), so
    that a set of at least one full round always has a round in the sample."""
    return random.Random(f"{seed}:{what}").randrange(width)


def in_sample(
    seed: int,
    index: int,
    rounds: int,
    fraction: float,
    what: str = "sample",
    lane: int = 0,
    lanes: int = 1,
) -> bool:
    """Whether trace `index` of generator number `lane` (of `lanes`) is in the deterministic
    sample `what` of `fraction` (1.0: every trace) of a set of `rounds` full rounds.
    Systematic: the indices o, o + stride, o + 2 stride, ... of every generator, so every
    generator is in the sample in the same share (within one trace), and the share of traces
    an implementation skips for lack of a feature is that of the whole set, not a chance of
    the draw (the feature policy judges it; verdict.py). The generators' offsets o are spread
    over the stride, so that the sampled traces, consecutive trace numbers if they shared a
    round, do not all fall in one Spark partition."""
    if fraction >= 1.0:
        return True
    step = stride(fraction)
    width = min(step, max(1, rounds))
    o = (sample_offset(seed, width, what) + lane * max(1, width // lanes)) % width
    return index % step == o


@functools.cache
def sample_of(impl: str) -> str:
    """Whose sample `impl` takes: the variants of one claimed system take the sample of its
    reference built-in (conformance/observed.py, `REFERENCE`), so that with the protocol level
    one reference run per trace serves them all (`reference-multicast` runs where `reference`
    does, `tam-fewest-keys` and `tam-all` where `tam` does); every other implementation its own."""
    from pubsub_spec.conformance.observed import REFERENCE, claim_of

    claim = claim_of(impl)
    return impl if claim is None else REFERENCE[claim]


def is_slow(impl: str) -> bool:
    return impl not in FAST and impl != CROSS_CHECK


def runs_on(job: Job, impl: str, number: int) -> bool:
    """The sampling policy for one implementation and trace number `number`. Each slow
    implementation has a sample of its own (its offset drawn from the seed and its name), so
    that their work spreads over more traces and partitions; the variants of one claimed system
    share their reference's (`sample_of`)."""
    p = job.plan
    lanes = len(p.generators)
    lane, index = number % lanes, number // lanes
    if impl == CROSS_CHECK:
        return in_sample(p.seed, index, p.rounds, job.cross_fraction, "cross-check", lane, lanes)
    if is_slow(impl):
        return in_sample(
            p.seed, index, p.rounds, job.slow_fraction, f"sample:{sample_of(impl)}", lane, lanes
        )
    return True

