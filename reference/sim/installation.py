"""Installation bookkeeping, one rule for every simulated system.

A subscribe op completes when every message its installation caused has arrived (decision
D-OPS in docs/design.md: the subscription then "came before" every later publish, and the
driver waits for it). Its installation latency, the time from the subscribe op to that moment
(thesis §4.3; `simulate`'s "install latency"), is recorded once per subscription, as OctopiA's
decision O-INSTALL states it (docs/octopia.md).

A system keeps one `Installation` per subscription: `expect` when it sends a message the
installation waits for, `arrived` when one arrives, and `settle` wherever the count may have
reached zero (after the handler has sent what the arrival causes, so that a count passing
through zero inside one handler does not complete the installation early).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Installation:
    """The messages a subscription's installation still waits for, and when it started."""

    started_at: float
    pending: int = 0
    recorded: bool = False  # its latency is in the metrics

    def expect(self, n: int = 1) -> None:
        """`n` more messages sent that the installation waits for."""
        self.pending += n

    def arrived(self) -> None:
        """One of them has arrived (more arrivals than messages is an accounting error)."""
        if self.pending <= 0:
            raise AssertionError("an installation message arrived that was not expected")
        self.pending -= 1

    def restart(self, n: int) -> None:
        """Wait for `n` messages afresh (an unsubscription that counts its removals the same
        way, thesis §3.3.1); the latency already recorded stays the only one."""
        self.pending = n

    @property
    def installed(self) -> bool:
        """Every expected message has arrived."""
        return self.pending == 0

    def settle(self, now: float, latencies: list[float]) -> bool:
        """Whether the subscription is installed; the first time it is, its latency
        `now - started_at` is appended to `latencies`."""
        if self.pending == 0 and not self.recorded:
            self.recorded = True
            latencies.append(now - self.started_at)
        return self.pending == 0
