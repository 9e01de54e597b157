"""The Cluster Index Vector (OctopiA §IV-C, Fig. 4): m bits indexed from the right, bit i (the
Cluster Index Bit, CIB) standing for cluster C_i. Held as an int bit mask.

Three contexts, each with a Context Bit (CB):
- advertisement context (at the host broker only): CB = the host's CI; other 1-bits are STCs.
  Decision A3/A4: stored as (host_ci, stc_mask); `AdvertisementContext.civ()` is the Fig. 4(a)
  vector (CB | STCs) and `tc_mask()` the Fig. 8 reading (STCs | host bit iff PTC).
- subscription context (at a secondary broker): meaningful bits are its own SCB and the
  sending cluster's bit (Fig. 4(b)); stored as (host_ci, own ci, scb) (A4).
- publication context: 1-bits are the clusters still to be entered (STCs at the host, the
  flagged clusters of a CIV-N, §VII-B).
"""

from __future__ import annotations

from dataclasses import dataclass


def bit(i: int) -> int:
    return 1 << i


def has(civ: int, i: int) -> bool:
    return bool(civ >> i & 1)


def bits(civ: int) -> tuple[int, ...]:
    """The indexes of the 1-bits, lowest first."""
    return tuple(i for i in range(civ.bit_length()) if civ >> i & 1)


def civ_of(indexes: tuple[int, ...] | list[int] | set[int]) -> int:
    out = 0
    for i in indexes:
        out |= bit(i)
    return out


def civ_str(civ: int, m: int) -> str:
    """The vector as printed in the paper: bit 0 rightmost (§IV-C)."""
    if civ >> m:
        raise ValueError(f"CIV {civ:b} has bits beyond m={m}")
    return format(civ, f"0{m}b")


@dataclass(frozen=True)
class AdvertisementContext:
    """CIV at the publisher's host broker (Fig. 4(a), A4)."""

    host_ci: int
    stc_mask: int = 0

    def __post_init__(self) -> None:
        if has(self.stc_mask, self.host_ci):
            raise ValueError("the host cluster is never an STC of its own publisher")

    def civ(self) -> int:
        """CB (host CI) plus the STC bits, as in Fig. 4(a)."""
        return bit(self.host_ci) | self.stc_mask

    def with_cib(self, j: int) -> AdvertisementContext:
        """CIB_SET from cluster j (§V step 3, §VI): set CIB j (never the CB)."""
        if j == self.host_ci:
            raise ValueError("CIB_SET from the host cluster")
        return AdvertisementContext(self.host_ci, self.stc_mask | bit(j))

    def tc_mask(self, ptc: bool) -> int:
        """Target clusters (Fig. 8's reading of the CIV, decision A3)."""
        return self.stc_mask | (bit(self.host_ci) if ptc else 0)

    def publication(self) -> int:
        """The publication-context CIV at the host: the STCs (§VII-A)."""
        return self.stc_mask


@dataclass(frozen=True)
class SubscriptionContext:
    """CIV at a secondary broker B(x, own_ci) of the advertisement (Fig. 4(b), A4): only the
    SCB (its own cluster's bit) and the sending cluster's bit mean anything."""

    host_ci: int
    own_ci: int
    scb: bool = False

    def civ(self) -> int:
        return bit(self.host_ci) | (bit(self.own_ci) if self.scb else 0)
