"""The random probing rules, as pure functions of a seeded generator.

RndLeafProbe (thesis §3.3, Program 3.2): the subscriber picks a random tree level l and probes
the node of level l whose zone contains the subscription point; a node that does not exist
sends the probe back to its ancestor at level l/2 (`jump_back`).

RndRegionProbe (thesis §3.4.1, Program 3.3): breadth-first over the (virtual, full) 2d-tree
from the root: a node that does not overlap the target area is dropped; a node at maxlevel is
selected; above it, a node deeper than minlevel is selected with probability p, otherwise its
two children are appended to the candidate list.
"""

from __future__ import annotations

import random
from collections import deque

from pubsub_spec.reference.thesis.space import TargetArea


def random_leaf_level(rng: random.Random, max_level: int) -> int:
    """getRandomTreeLevel() of Program 3.2, line 12: uniform in [0, max_level] (decision)."""
    return rng.randint(0, max_level)


def jump_back(bits: str) -> str:
    """ "Guessing too far, we jump backwards along the tree": level l -> l/2 (Program 3.2,
    line 66; Program 3.3, line 53). Integer division; the root (level 0) always exists."""
    return bits[: len(bits) // 2]


def rnd_region_probe(
    area: TargetArea,
    k: int,
    min_level: int,
    max_level: int,
    p: float,
    rng: random.Random,
) -> list[str]:
    """The probe set of one attribute: disjoint zones covering the target area."""
    selected: list[str] = []
    candidates: deque[str] = deque([""])
    while candidates:
        bits = candidates.popleft()
        if not area.overlaps(bits, k):
            continue  # "otherwise this node is removed directly" (§3.4.1)
        level = len(bits)
        if level >= max_level:
            selected.append(bits)  # "p = 1 when this node reaches level maxl"
        elif level > min_level and rng.random() < p:
            selected.append(bits)  # Program 3.3, line 17: level > minlevel && random() < p
        else:
            candidates.extend((bits + "0", bits + "1"))
    return selected
