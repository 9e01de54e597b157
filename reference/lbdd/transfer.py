"""Payload distribution over an LBDD tree versus point to point, with a bandwidth model
(LBDD §4: data sent in 64 KB slices; distribution delay, rate, per-node contribution).

Model (decision D-L5 in docs/lbdd.md): every node has an upload bandwidth (one figure for all,
or one per node, e.g. drawn by `random_uploads` from a seeded generator); a node sends slice i
to each of its children in turn, and can send slice i only after receiving it; download and
latency are not limiting (a LAN, as in the paper's 12-PC test bed). Point to point, the
publisher sends every slice to every subscriber itself.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Transfer:
    completion_s: float  # distribution delay: when the last subscriber has the whole payload
    rate_bps: float  # distribution rate: payload bytes / completion time
    sent_bytes: Mapping[str, float]  # per node: bytes uploaded
    finished_s: Mapping[str, float]  # per subscriber: when it has the whole payload


def random_uploads(
    nodes: Sequence[str], rng: random.Random, low_bps: float, high_bps: float
) -> dict[str, float]:
    """An upload bandwidth per node, uniform in [low, high], drawn in sorted node order."""
    return {n: rng.uniform(low_bps, high_bps) for n in sorted(set(nodes))}


def _upload(upload_bps: float | Mapping[str, float], node: str) -> float:
    return upload_bps if isinstance(upload_bps, float | int) else upload_bps[node]


def over_tree(
    tree: Mapping[str, Sequence[str]],
    source: str,
    payload_bytes: float,
    slice_bytes: float,
    upload_bps: float | Mapping[str, float],
) -> Transfer:
    """Slice-by-slice store-and-forward over `tree` (LBDD §4.1: 64 KB slices)."""
    slices = max(1, int(-(-payload_bytes // slice_bytes)))
    arrival: dict[str, list[float]] = {source: [0.0] * slices}
    sent: dict[str, float] = {}
    order = [source]
    for node in order:  # parents before children: arrival times depend only on the parent
        per_slice = slice_bytes / _upload(upload_bps, node)
        free = 0.0
        kids = list(tree.get(node, []))
        for child in kids:
            arrival[child] = [0.0] * slices
        for i in range(slices):
            for child in kids:
                start = max(free, arrival[node][i])
                free = start + per_slice
                arrival[child][i] = free
        sent[node] = slice_bytes * slices * len(kids)
        order.extend(kids)
    finished = {n: times[-1] for n, times in arrival.items() if n != source}
    done = max(finished.values(), default=0.0)
    return Transfer(done, payload_bytes / done if done else 0.0, sent, finished)


def point_to_point(
    source: str,
    members: Sequence[str],
    payload_bytes: float,
    slice_bytes: float,
    upload_bps: float | Mapping[str, float],
) -> Transfer:
    """The baseline (LBDD §1, §4): the publisher sends every slice to every subscriber."""
    star = {source: [m for m in dict.fromkeys(members) if m != source]}
    return over_tree(star, source, payload_bytes, slice_bytes, upload_bps)


def contribution_rates(tree: Mapping[str, Sequence[str]]) -> dict[str, float]:
    """LBDD §4.3: contribution rate_i = (copies sent by N_i) / n, n = number of subscribers."""
    n = sum(len(kids) for kids in tree.values())
    return {node: (len(kids) / n if n else 0.0) for node, kids in tree.items()}
