"""The 2d-tree's own figures of a run (thesis §4.3): splits, overflow, depth, false positives,
probe dedup and jump-backs, LeafUpdate losses, lost points, probes held during splits."""

from __future__ import annotations

from dataclasses import dataclass

from pubsub_spec.reference.sim.metrics import Metrics


@dataclass
class TreeMetrics(Metrics):
    splits: int = 0
    overflow: int = 0
    max_depth: int = 0
    false_positives: int = 0
    dedup_discards: int = 0
    jump_backs: int = 0
    leaf_updates_lost: int = 0
    points_lost: int = 0
    held: int = 0
