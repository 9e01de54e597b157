"""A toy system added through the contract alone (docs/layout.md, "Adding a system"): a central
brute-force matcher that stores every subscription at one broker and matches each publication
against all of them. Nothing in reference/, properties/ or pubsub_spec/ names it:
`register()` adds it (its `SystemInfo` to the system registry, its `SystemContract` to the
contracts) and `unregister()` removes it. tests/test_contract_toy.py uses it; a process started
with PUBSUB_SPEC_SYSTEMS=tests.toy_plugin registers it on start (Spark executors included)."""

from __future__ import annotations

from collections.abc import Sequence

from pubsub_spec.properties.contract import (
    SystemContract,
    register_contract,
    unregister_contract,
)
from pubsub_spec.properties.verdict import CheckResult, Found, timed_row
from pubsub_spec.reference.common.matching import matches
from pubsub_spec.reference.common.model import Event, Subscription
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.common.oracle import Delivery
from pubsub_spec.reference.sim.metrics import MessageType, Metrics
from pubsub_spec.reference.sim.run import run_and_compare
from pubsub_spec.reference.sim.system import (
    LENIENT,
    MULTI_SCHEMA,
    STRICT,
    System,
    SystemInfo,
    Variant,
)


class ToySystem(System[None]):
    """Every subscription at one broker; a publication is matched against all of them."""

    def __init__(self, trace: Trace) -> None:
        super().__init__(trace.seed)
        self.mode = trace.matching
        self.subs: dict[str, Subscription] = {}
        self.metrics = Metrics()

    def subscribe(self, sub: Subscription, seq: int) -> None:
        self.subs[sub.id] = sub

    def installed(self, sub_id: str) -> bool:
        return sub_id in self.subs

    def unsubscribe(self, sub_id: str) -> None:
        self.subs.pop(sub_id, None)

    def publish(self, event: Event, seq: int) -> None:
        for sub in self.subs.values():
            if sub.schema == event.schema and matches(sub, event, self.mode):
                self.deliveries.append(Delivery(event.id, sub.id))

    def join(self, name: str) -> None:
        raise ValueError("the toy has no churn")

    def leave(self, name: str) -> None:
        raise ValueError("the toy has no churn")

    def fail(self, names: Sequence[str]) -> None:
        raise ValueError("the toy has no churn")

    def peer_count(self) -> int:
        return 1

    def _dispatch(self, item: None) -> str:
        return ""


class ForgetfulToy(ToySystem):
    """MUTANT: drops every subscription after its first delivery."""

    def publish(self, event: Event, seq: int) -> None:
        before = len(self.deliveries)
        super().publish(event, seq)
        for d in self.deliveries[before:]:
            self.subs.pop(d.sub_id, None)


INVARIANT = "Toy: exactly the oracle's deliveries"


def _first_disagreement(make: type[ToySystem]) -> Found:
    from pubsub_spec.conformance.generators import GENERATORS

    traces = [GENERATORS["uniform"](1, i, "tiny") for i in range(3)]
    for n, t in enumerate(traces, 1):
        _, c = run_and_compare(t, make)
        if not c.agree:
            return n, c.summary()
    return len(traces), None


def rows(examples: int) -> list[CheckResult]:
    return [
        timed_row(INVARIANT, "Hypothesis", "toy: uniform workloads", "traces",
                  lambda: _first_disagreement(ToySystem)),
        timed_row(INVARIANT, "Hypothesis", "toy: mutant forgetful", "traces",
                  lambda: _first_disagreement(ForgetfulToy), mutant=True),
    ]  # fmt: skip


INFO = SystemInfo(
    name="toy",
    paper="none: a test's toy system",
    summary="a central brute-force matcher",
    features=frozenset({STRICT, LENIENT, MULTI_SCHEMA}),
    message_types=(MessageType("None", "the toy sends no message"),),
    variants=(Variant("toy", "every subscription at one broker", ToySystem),),
    default_variant="toy",
)
CONTRACT = SystemContract(
    family="toy",
    paper="none",
    systems=("toy",),
    hypothesis=(rows,),
    mutants=("tests.toy_system",),
)


def register() -> None:
    register_contract(CONTRACT, [INFO])


def unregister() -> None:
    unregister_contract(CONTRACT.family)
