"""Deliberately broken Tam systems (Tam, Azimi, Jacobsen, DBISP2P 2003), each rejected by the
oracle comparison of `properties.tam.checks` (docs/tam.md "Invariants checked")."""

from __future__ import annotations

from collections.abc import Sequence

from pubsub_spec.reference.common.model import MatchMode, Schema
from pubsub_spec.reference.tam.config import TamConfig
from pubsub_spec.reference.tam.system import TamSystem


class NoRepair(TamSystem):
    """Scribe without repair (§1, §6 "transparently handled by Pastry and Scribe"; T12): a
    forwarder's or root's leave or failure leaves its members cut off from the tree."""

    def __init__(
        self,
        schemas: Sequence[Schema],
        matching: MatchMode,
        config: TamConfig,
        seed: int,
        initial_nodes: Sequence[str],
    ) -> None:
        super().__init__(schemas, matching, config, seed, initial_nodes, repair=False)


class NoSeenList(TamSystem):
    """Policy `all` without the subscriber's seen-list (§3.6, T8): a publication that reaches
    a peer through several indices is delivered once per index."""

    def __init__(
        self,
        schemas: Sequence[Schema],
        matching: MatchMode,
        config: TamConfig,
        seed: int,
        initial_nodes: Sequence[str],
    ) -> None:
        super().__init__(schemas, matching, config, seed, initial_nodes, seen_list=False)
