"""Seeded sub-streams: one generator per (seed, name, ...) so that what one part of a run or of
a trace draws does not depend on what the others drew, nor on the order they are made in (a
trace is the same however its generation is partitioned, e.g. by Spark).

The sub-stream of `substream(seed, "sub", 3)` is `random.Random("7:sub:3")` for seed 7: the
parts joined by ":" (a `Random` seeded with a string uses all of its bytes, independently of
PYTHONHASHSEED, so the streams are stable across runs and platforms). The committed vectors
and the pinned event-log hashes depend on these exact strings.
"""

from __future__ import annotations

import random


def substream(seed: int, *names: object) -> random.Random:
    """The generator of sub-stream `names` of `seed`: `random.Random("seed:name:...")`."""
    return random.Random(":".join(str(part) for part in (seed, *names)))
