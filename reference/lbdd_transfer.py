"""Payload distribution over an LBDD tree versus point to point, with a bandwidth model
(LBDD §4: data sent in 64 KB slices; distribution delay, rate, per-node contribution).

Model (decision D-L5 in docs/lbdd.md): every node has the same upload bandwidth; a node sends
slice i to each of its children in turn, and can send slice i only after receiving it; download
and latency are not limiting (a LAN, as in the paper's 12-PC test bed). Point to point, the
publisher sends every slice to every subscriber itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Transfer:
    completion_s: float  # when the last subscriber has the whole payload
    rate_bps: float  # payload bytes / completion time (distribution rate)
    sent_bytes: Mapping[str, float]  # per node: bytes uploaded (contribution)


def over_tree(
    tree: Mapping[str, Sequence[str]],
    source: str,
    payload_bytes: float,
    slice_bytes: float,
    upload_bps: float,
) -> Transfer:
    slices = max(1, int(-(-payload_bytes // slice_bytes)))
    per_slice = slice_bytes / upload_bps
    arrival: dict[str, list[float]] = {source: [0.0] * slices}
    sent: dict[str, float] = {}
    order = [source]
    for node in order:  # parents before children: arrival times depend only on the parent
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
    done = max((times[-1] for n, times in arrival.items() if n != source), default=0.0)
    return Transfer(done, payload_bytes / done if done else 0.0, sent)


def point_to_point(
    source: str, members: Sequence[str], payload_bytes: float, slice_bytes: float, upload_bps: float
) -> Transfer:
    star = {source: [m for m in members if m != source]}
    return over_tree(star, source, payload_bytes, slice_bytes, upload_bps)
