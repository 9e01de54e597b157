"""Deliberately broken OctopiA/TID variants; each must be rejected by a check
(tests/test_octopia_*.py; docs/octopia.md, "Invariants and mutants")."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pubsub_spec.reference.common.model import Event, Subscription
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.octopia.civ import bit, civ_of
from pubsub_spec.reference.octopia.config import config_of
from pubsub_spec.reference.octopia.routing import Copy
from pubsub_spec.reference.octopia.scot import Broker
from pubsub_spec.reference.octopia.subscriptions import SrtEntry
from pubsub_spec.reference.octopia.system import OctopiaSystem
from pubsub_spec.reference.octopia.tid import TidSystem


class WrongCibBit(OctopiaSystem):
    """CIV with a wrong bit: CIB_SET from C_j sets CIB j+1 (I4)."""

    def cib_index(self, from_ci: int) -> int:
        return (from_ci + 1) % self.scot.m


class NoAfpPrtCheck(OctopiaSystem):
    """scotAFP without the PRT check: the SCB is never set on arrival (§V step 2)."""

    def afp_prt_check(self, b: Broker, adv: object) -> bool:
        return False


class NoCibSet(OctopiaSystem):
    """SBP without CIB_SET (§VI step (ii))."""

    def cib_set_targets(self, b: Broker, sub: Subscription) -> list[SrtEntry]:
        return []


class ShortBroadcast(OctopiaSystem):
    """Subgrouping that drops subscriptions: the cluster broadcast stops after one hop."""

    def sub_forward(self, b: Broker, src: Broker | None) -> list[Broker]:
        return [] if src is not None else super().sub_forward(b, src)


class CivOnTwoLinks(OctopiaSystem):
    """IDR with the CIV-N header on every iLink copy, not one (A10)."""

    def copies(self, b: Broker, alinks: list[Broker], ilinks: dict[int, Broker]) -> list[Copy]:
        out = super().copies(b, alinks, ilinks)
        civ = 0
        for c in out:
            civ |= c.civ
        return [Copy(c.to, civ & ~bit(c.to[1])) if c.to[0] == b[0] else c for c in out]


class LoopingDetour(OctopiaSystem):
    """IDR whose CIV-N carries the advertisement-context CIV (CB included) instead of the
    publication context: the detour can re-enter the sender's cluster and loop (I2, I3)."""

    def copies(self, b: Broker, alinks: list[Broker], ilinks: dict[int, Broker]) -> list[Copy]:
        out = super().copies(b, alinks, ilinks)
        return [Copy(c.to, c.civ | bit(b[1])) if c.civ else c for c in out]


class SnrOnILinks(OctopiaSystem):
    """SNR whose STC copies carry the STC mask, so secondary brokers forward on iLinks too."""

    def copies(self, b: Broker, alinks: list[Broker], ilinks: dict[int, Broker]) -> list[Copy]:
        out = super().copies(b, alinks, ilinks)
        mask = civ_of(set(ilinks))
        return [Copy(c.to, mask & ~bit(c.to[1])) if c.to[0] == b[0] else c for c in out]


class TidIgnoresTid(TidSystem):
    """TID routing that forwards by every PRT entry, whatever its TID ([20])."""

    def route(self, b: Broker, event: Event, tid: str, src: Broker | None) -> None:
        for t in sorted({k[1] for k in self.prt[b]}):
            super().route(b, event, t, src)


def octopia_factory(
    cls: type[OctopiaSystem], section: str, routing: str
) -> Callable[[Trace], OctopiaSystem]:
    def make(trace: Trace) -> OctopiaSystem:
        return cls(trace, config_of(trace, section), routing)

    return make


def tid_factory(cls: type[TidSystem]) -> Callable[[Trace], TidSystem]:
    def make(trace: Trace) -> TidSystem:
        return cls(trace, config_of(trace, "tid"))

    return make


MUTANTS: Iterable[str] = (
    "WrongCibBit",
    "NoAfpPrtCheck",
    "NoCibSet",
    "ShortBroadcast",
    "CivOnTwoLinks",
    "LoopingDetour",
    "SnrOnILinks",
    "TidIgnoresTid",
)
