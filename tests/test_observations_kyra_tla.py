"""TLA+ trace validation of observed Kyra runs (properties/kyra/observed.py): the kyra
built-in's observations give the record the reference's own map gives (the same constants,
messages and table and proxy states; handlings the log does not show may stand elsewhere) and
validate against spec/kyra/KyraRouting.tla, as does a publication overtaking a SubPropagate
(K-D12); a log with a step the model forbids (an EventRoute on a non-covering tree, a
filter-add with no SubPropagate, a dropped proxy-store, the flood-tree mutant's forwarding, the
fault kit's kyra-non-covering-tree program) does not, and the rejection names the step; a run
outside the map's bound is not validated, with the bound named."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from itertools import pairwise

import pytest

from pubsub_spec.conformance.observed import observe, observed_run
from pubsub_spec.conformance.protocol_rules.base import Observed, ObservedRun
from pubsub_spec.properties.kyra.observed import fits, observed_kyra_run, validate_observed
from pubsub_spec.properties.kyra.trace_export import (
    FloodTreeKyra,
    KyraRun,
    KyraTraceSystem,
    cliques_of,
    kyra_trace,
    oracle_agrees_kyra,
    record_kyra_run,
)
from pubsub_spec.properties.tracecheck import TlaValue, Validation
from pubsub_spec.reference.common.model import Attribute, Schema
from pubsub_spec.reference.common.ops import Join, Publish, Subscribe, Trace
from pubsub_spec.reference.kyra.system import KyraSystem
from pubsub_spec.reference.sim.observe import Observation, state

needs_tla = pytest.mark.skipif(shutil.which("tla") is None, reason="tla-checker not installed")

SEEDS = range(4)
FIXED = ("started", "unsubbed", "proxy", "tab", "published", "subAt", "activeAt")


class HacKyra(KyraTraceSystem):
    """The observing reference with the built-in's own cliques (HAC, §III.A), not the two
    cliques `record_kyra_run` gives it: the system `observed_run("kyra", ...)` runs."""

    def __init__(self, trace: Trace, cliques: list[tuple[str, ...]] | None = None) -> None:
        super().__init__(trace, None)


def _fixed(states: list[dict[str, TlaValue]]) -> list[tuple[TlaValue, ...]]:
    """The states without `msgs` and `dcount` (what the order of silent handlings changes),
    consecutive equal ones merged."""
    out: list[tuple[TlaValue, ...]] = []
    for s in states:
        p = tuple(s[k] for k in FIXED)
        if not out or out[-1] != p:
            out.append(p)
    return out


def _sent(states: list[dict[str, TlaValue]]) -> frozenset[TlaValue]:
    """Every message record in flight in some state."""
    out: set[TlaValue] = set()
    for s in states:
        msgs = s["msgs"]
        assert isinstance(msgs, frozenset)
        out |= msgs
    return frozenset(out)


def _pair(seed: int, layout: str) -> tuple[ObservedRun, KyraRun]:
    """The observed run and the reference's own record of the same trace: the built-in's
    layout (HAC cliques) or the two cliques `record_kyra_run` gives."""
    trace = kyra_trace(seed)
    if layout == "hac":
        return observed_run("kyra", trace), record_kyra_run(trace, HacKyra)
    run = observe(KyraSystem(trace, cliques_of(trace)), trace, "kyra")
    return run, record_kyra_run(trace)


@pytest.mark.parametrize("layout", ["hac", "two cliques"])
def test_observed_records_are_the_reference_map_s(layout: str) -> None:
    """Same constants, the same messages in flight at some point (self-messages included),
    the same first and last states, the same succession of the other variables; only where a
    silent handling stands (msgs, dcount) may differ."""
    for seed in SEEDS:
        run, theirs = _pair(seed, layout)
        assert fits(run) is None
        mine = observed_kyra_run(run)
        assert not mine.problem and not theirs.problem, (mine.problem, theirs.problem)
        assert mine.constants == theirs.constants
        assert (mine.n_servers, mine.n_trees, mine.unsubs) == (
            theirs.n_servers, theirs.n_trees, theirs.unsubs,
        )  # fmt: skip
        assert len(mine.states) == len(theirs.states)
        assert mine.states[0] == theirs.states[0] and mine.states[-1] == theirs.states[-1]
        assert _fixed(mine.states) == _fixed(theirs.states)
        assert _sent(mine.states) == _sent(theirs.states)


@needs_tla
def test_the_built_in_runs_validate() -> None:
    for seed in SEEDS:
        results = validate_observed(observed_run("kyra", kyra_trace(seed)))
        assert results is not None and len(results) == 1
        [(_, v)] = results
        assert v is not None and v.ok, (seed, v)


@needs_tla
def test_a_publication_overtaking_a_sub_propagate_finds_the_subscription_not_installed() -> None:
    """K-D12: a subscription is installed once nothing it caused is in flight. A log whose
    last filter-add of a subscription comes after the next publication (an implementation that
    does not wait for installation) records it in `subAt` but not in `activeAt`, and is still a
    KyraRouting behaviour."""
    for seed in range(8):
        trace = kyra_trace(seed)
        run = observed_run("kyra", trace)
        log = list(run.log)
        for before, op in pairwise(trace.ops):
            if not (isinstance(before, Subscribe) and isinstance(op, Publish)):
                continue
            adds = [k for k, o in enumerate(log) if o.obs.name == "filter-add"
                    and o.obs.sub == before.sub.id]  # fmt: skip
            pub = [k for k, o in enumerate(log) if o.obs.name == "EventToZone"
                   and o.obs.event == op.event.id]  # fmt: skip
            if not adds or not pub:
                continue
            log.insert(pub[0], log.pop(adds[-1]))  # right after the EventToZone
            late = replace(run, log=tuple(log))
            states = observed_kyra_run(late).states
            assert any(s["subAt"] != s["activeAt"] for s in states)
            [(_, v)] = validate_observed(late) or []
            assert v is not None and v.ok, v
            return
    raise AssertionError("no subscription followed by a remote publication in 8 seeds")


# -- tampered logs ---------------------------------------------------------------------------


def _edit(run: ObservedRun, at: int, new: list[Observation]) -> ObservedRun:
    """The run with the observation at `at` replaced by `new` (none: dropped)."""
    log = list(run.log)
    log[at : at + 1] = [Observed(log[at].seq, o) for o in new]
    return replace(run, log=tuple(log))


def _rejected(run: ObservedRun) -> Validation:
    results = validate_observed(run)
    assert results is not None
    [(_, v)] = results
    assert v is not None and not v.ok, v
    assert "is not a Next step" in v.detail, v
    return v


def _named(v: Validation) -> int:
    """The log index of the head observation of the step the rejection names."""
    m = re.search(r"\(observation (\d+):", v.detail)
    assert m is not None, v.detail
    return int(m.group(1))


def _block_of(run: ObservedRun, head: int, k: int) -> bool:
    """Whether observation k is in the handling that begins at `head` (same server, no other
    server's observation between)."""
    log = run.log
    return head <= k and all(log[i].obs.node == log[k].obs.node for i in range(head, k + 1))


@needs_tla
def test_an_event_route_on_a_non_covering_tree_is_rejected() -> None:
    """Kyra §III: an event is routed on the tree whose zone covers its key; the same hop named
    on another tree is no `Route` step."""
    for seed in SEEDS:
        run = observed_run("kyra", kyra_trace(seed))
        trees = sorted({str(o.obs.fields["tree"]) for o in run.log if o.obs.name == "tree-join"})
        k = next((k for k, o in enumerate(run.log) if o.obs.name == "EventRoute"), None)
        if k is None or len(trees) < 2:
            continue
        ob = run.log[k].obs
        other = next(t for t in trees if t != ob.fields["tree"])
        moved = replace(ob, fields={**ob.fields, "tree": other})
        [(_, ok)] = validate_observed(run) or []
        assert ok is not None and ok.ok, ok
        v = _rejected(_edit(run, k, [moved]))
        assert _block_of(run, _named(v), k), v.detail
        return
    raise AssertionError(f"no EventRoute in seeds {SEEDS}")


@needs_tla
def test_a_filter_add_with_no_sub_propagate_is_rejected() -> None:
    """§II.A: a server records an entry when a SubPropagate brings it; the same entry recorded
    the other way along the edge, with nothing in flight, is no `RecvProp` step."""
    run = observed_run("kyra", kyra_trace(0))
    k, ob = next((k, o.obs) for k, o in enumerate(run.log) if o.obs.name == "filter-add")
    back = state("filter-add", str(ob.fields["direction"]), sub=ob.sub,
                 tree=ob.fields["tree"], direction=ob.node, proxy=ob.fields["proxy"])  # fmt: skip
    v = _rejected(_edit(run, k, [ob, back]))
    assert _named(v) == k + 1, v.detail


@needs_tla
def test_a_dropped_proxy_store_is_rejected() -> None:
    """§III, subscription movement: a SubMove's receiver stores the subscription; with its
    proxy-store missing the SubMove is handled without storing, which no `RecvMove` does."""
    for seed in SEEDS:
        run = observed_run("kyra", kyra_trace(seed))
        k = next(
            (
                k
                for k, o in enumerate(run.log)
                if o.obs.name == "proxy-store" and o.obs.fields["origin"] != o.obs.node
            ),
            None,
        )
        if k is None:
            continue
        v = _rejected(_edit(run, k, []))
        sub = run.log[k].obs.sub
        assert "handled silently" in v.detail and f"subscribe {sub}" in v.detail, v.detail
        return
    raise AssertionError(f"no SubMove to another server in seeds {SEEDS}")


@needs_tla
def test_the_flood_tree_mutant_s_log_is_rejected_while_its_deliveries_are_right() -> None:
    """FloodTreeKyra (properties/kyra/trace_export.py) forwards to every tree neighbour: its
    deliveries are the oracle's, its observation log is no KyraRouting behaviour."""
    trace = kyra_trace(0)
    run = observe(FloodTreeKyra(trace, cliques_of(trace)), trace, "kyra")
    v = _rejected(run)
    assert run.log[_named(v)].obs.kind == "send", v.detail
    assert oracle_agrees_kyra(trace, FloodTreeKyra)


@needs_tla
def test_the_fault_kit_s_non_covering_tree_program_is_rejected() -> None:
    """The protocol fault kit's `kyra-non-covering-tree` (conformance/examples/
    protocol_faults.py: right deliveries, an event routed along a tree whose zone does not
    cover it): its log is no KyraRouting behaviour, the kit's un-faulted log is one."""
    from pubsub_spec.conformance.examples import protocol_faults as kit

    fault = kit.FAULTS["kyra-non-covering-tree"]
    for seed in range(4, 6):
        trace = kyra_trace(seed)
        [(_, ok)] = validate_observed(kit.observed_run("kyra", None, trace)) or []
        assert ok is not None and ok.ok, ok
        run = kit.observed_run("kyra", fault, trace)
        v = _rejected(run)
        assert run.log[_named(v)].obs.name == "EventRoute", v.detail


# -- outside the bound -----------------------------------------------------------------------


def test_a_run_outside_the_bound_is_not_validated() -> None:
    trace = kyra_trace(0)
    run = observed_run("kyra", trace)
    outside = {
        "churn": replace(trace, ops=(*trace.ops, Join(len(trace.ops) + 1, "x"))),
        "0..5": replace(trace, schemas=(Schema("kv", (Attribute("k", "int", 0, 9),)),)),
        "servers": replace(trace, initial_nodes=9),
        "strict": replace(trace, matching="lenient"),
    }
    for reason, t in outside.items():
        other = replace(run, trace=t)
        assert reason in (fits(other) or ""), (reason, fits(other))
        assert validate_observed(other) is None
    siena = replace(run, system="siena")
    assert "not kyra" in (fits(siena) or "") and validate_observed(siena) is None


def test_a_log_without_its_layout_is_not_mapped() -> None:
    """The constants come from the `zone` and `tree-join` states: without them there is no
    record to validate, and the problem is named."""
    run = observed_run("kyra", kyra_trace(0))
    bare = replace(run, log=tuple(o for o in run.log if o.obs.name != "zone"))
    assert "no zone observed for n0" in observed_kyra_run(bare).problem
    assert validate_observed(bare) == [("run", None)]
