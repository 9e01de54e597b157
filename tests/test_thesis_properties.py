"""The reference delivers exactly the oracle's set on generated workloads ("Done
when"), and each deliberately broken variant is caught by the same check."""

from __future__ import annotations

import pytest
from hypothesis import Phase, given, settings

from pubsub_spec.properties.thesis.mutants import MUTANTS
from pubsub_spec.properties.thesis.strategies import race_trace, workloads
from pubsub_spec.reference.common.ops import Trace
from pubsub_spec.reference.sim.run import RunResult
from pubsub_spec.reference.thesis.config import config_of
from pubsub_spec.reference.thesis.lnrt import is_partition
from pubsub_spec.reference.thesis.run import run_and_compare
from pubsub_spec.reference.thesis.system import TwoDTreeSystem


def check_invariants(trace: Trace, result: RunResult[TwoDTreeSystem]) -> None:
    """No missed, duplicate or spurious delivery; bounded depth; every routing table partitions
    its node's zone and names existing nodes; nothing is held once the run is quiescent."""
    from pubsub_spec.reference.common.oracle import expected_deliveries
    from pubsub_spec.reference.sim.run import compare

    c = compare(expected_deliveries(trace), result.deliveries)
    assert c.agree, (c.summary(), c.missed[:5], c.duplicate[:5], c.spurious[:5])
    system = result.system
    depth, bound = result.system.metrics.max_depth, config_of(trace).max_depth
    assert depth <= bound, f"tree depth {depth} > max_depth {bound}"
    existing = {(n.qattr, n.bits) for n in system.tree_nodes()}
    for node in system.tree_nodes():
        assert not node.splitting and not node.held
        if node.lnrt is not None:
            assert is_partition(node.bits, node.lnrt)
            assert all((node.qattr, r) in existing for r in node.lnrt)


@settings(max_examples=200)
@given(workloads())
def test_reference_agrees_with_oracle(trace: Trace) -> None:
    result, _ = run_and_compare(trace)
    check_invariants(trace, result)


@pytest.mark.parametrize("seed", range(0, 60))
def test_reference_survives_split_races(seed: int) -> None:
    result, _ = run_and_compare(race_trace(seed))
    check_invariants(race_trace(seed), result)


def test_races_really_happen() -> None:
    """The race workloads do exercise the split/probe race (otherwise the tests above prove
    little): messages are held by splitting nodes, probes jump back and are deduplicated."""
    totals = {"held": 0, "jump_backs": 0, "dedup": 0}
    for seed in range(10):
        m = run_and_compare(race_trace(seed))[0].system.metrics
        totals["held"] += m.held
        totals["jump_backs"] += m.jump_backs
        totals["dedup"] += m.dedup_discards
    assert all(v > 0 for v in totals.values()), totals


def first_failure(cls: type[TwoDTreeSystem], seeds: range) -> tuple[int, str] | None:
    for seed in seeds:
        trace = race_trace(seed)
        result, c = run_and_compare(trace, system_class=cls)
        if not c.agree:
            return seed, c.summary()
        if result.system.metrics.max_depth > config_of(trace).max_depth:
            return seed, f"depth {result.system.metrics.max_depth} > {config_of(trace).max_depth}"
    return None


@pytest.mark.parametrize(
    ("mutant", "symptom"),
    [
        ("thesis-split", "missed"),
        ("no-seen-inheritance", "duplicate"),
        ("no-dedup", "duplicate"),
        ("no-jump-back", "missed"),
    ],
)
def test_race_mutant_is_caught(mutant: str, symptom: str) -> None:
    found = first_failure(MUTANTS[mutant], range(300))
    assert found is not None, f"mutant {mutant} was not caught"
    seed, text = found
    print(f"{mutant}: race_trace({seed}) -> {text}")
    assert f" 0 {symptom}" not in text


def hypothesis_rejects(cls: type[TwoDTreeSystem], max_examples: int) -> str:
    """Run the generated-workload check against a mutant; return the failure it reports."""

    @settings(max_examples=max_examples, phases=[Phase.explicit, Phase.generate])
    @given(workloads(churn=False))
    def check(trace: Trace) -> None:
        result, _ = run_and_compare(trace, system_class=cls)
        check_invariants(trace, result)

    with pytest.raises(AssertionError) as info:
        check()
    return str(info.value)


def test_closed_segments_mutant_is_caught() -> None:
    """Erratum E3: closed remap segments deliver twice at a segment boundary."""
    text = hypothesis_rejects(MUTANTS["closed-segments"], 400)
    assert "duplicate" in text and " 0 duplicate" not in text


def test_no_depth_cap_mutant_is_caught() -> None:
    text = hypothesis_rejects(MUTANTS["no-depth-cap"], 200)
    assert "> max_depth" in text
