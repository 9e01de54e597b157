"""`pubsub-spec simulate`: the thesis' experiment (Ch. 4) on a simulated system of the registry
(`--system`, default the thesis' own), checked against the oracle. Defaults are Table 4.1 (1000
nodes, 5 subscriptions per node, 10,000 events). The flags of the 2d-tree (delivery, cut-off,
widening, depth, replication, LeafUpdate faults) configure the thesis system's section."""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from pubsub_spec.argtypes import float_range, int_range
from pubsub_spec.common_args import add_seed
from pubsub_spec.conformance.limits import (
    MAX_SIM_EVENTS,
    MAX_SIM_NODES,
    MAX_SIM_SUBSCRIPTIONS,
    MEMORY_ENV,
    memory_limit,
    set_memory_limit,
    simulate_estimate,
)
from pubsub_spec.progress import ProgressBar
from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import MATCH_MODES
from pubsub_spec.reference.common.ops import Publish, Trace
from pubsub_spec.reference.registry import SYSTEMS
from pubsub_spec.reference.sim.run import RunResult, run_trace
from pubsub_spec.reference.sim.stream import (
    DeliveryStream,
    StreamedDeliveries,
    compare_stream,
    expected_per_event,
)
from pubsub_spec.reference.sim.system import System, SystemInfo, Variant
from pubsub_spec.reference.thesis.config import (
    DEFAULT_CUTOFF_FRACTION,
    DELIVERY_VALUES,
    PRESETS,
    PROBE_ROUTINGS,
    ThesisConfig,
)
from pubsub_spec.reference.thesis.info import BUILTIN_OF
from pubsub_spec.reference.thesis.overrides import Overrides, configured
from pubsub_spec.reference.thesis.substrate_fast import FastTwoDTreeSystem
from pubsub_spec.reference.thesis.system import TwoDTreeSystem


def add_arguments(p: argparse.ArgumentParser) -> None:
    nodes, events = int_range(1, MAX_SIM_NODES), int_range(0, MAX_SIM_EVENTS)  # limits.py
    p.add_argument("--nodes", type=nodes, default=1000, help="num_nodes (Table 4.1: 1000)")
    p.add_argument(
        "--subs-per-node",
        type=float_range(0, 10**4),
        default=5,
        help="aver_sub/node (Table 4.1: 5)",
    )
    p.add_argument("--events", type=events, default=10000, help="num_pubs (Table 4.1: 10000)")
    add_seed(p, 0)
    p.add_argument(
        "--system", choices=sorted(SYSTEMS), default="thesis", help="see `pubsub-spec systems`"
    )
    p.add_argument(
        "--preset",
        choices=PRESETS,
        default=None,
        help="thesis: the thesis' Ch. 4 setting (multicast probes, unicast delivery, cut-off "
        f"c = {DEFAULT_CUTOFF_FRACTION} x domain width); the flags below override it",
    )
    p.add_argument(
        "--probe",
        choices=PROBE_ROUTINGS,
        default=None,
        help="probe routing (thesis system): unicast (§3.4.1) or prefix-grouped multicast "
        "(§3.4.2); default: as --delivery implies (multicast for multicast/lbdd)",
    )
    p.add_argument(
        "--delivery",
        choices=DELIVERY_VALUES,
        default=None,
        help="event delivery (thesis system): unicast (§3.4.3), grouped (§3.4.2 applied to "
        "delivery), lbdd (LBDD); 'multicast' = --probe multicast --delivery grouped; "
        "default: the trace's, else unicast",
    )
    p.add_argument("--matching", choices=MATCH_MODES, default="strict")
    p.add_argument(
        "--cutoff",
        default=None,
        help="cut-off c per attribute (§3.5): 'Attr1=1000,Attr2=500', one fraction of "
        f"each domain's width, e.g. '0.2', 'on' (= {DEFAULT_CUTOFF_FRACTION}) or 'off'",
    )
    p.add_argument(
        "--widening", type=float_range(0), default=0.0, help="range widening r, all attributes"
    )
    p.add_argument("--max-depth", type=int_range(0, 64), default=ThesisConfig.max_depth)
    p.add_argument("--replication", type=int_range(0, 16), default=ThesisConfig.replication)
    p.add_argument("--leaf-update-loss", type=float_range(0, 1), default=0.0)
    p.add_argument("--leaf-update-delay-ms", type=float_range(0), default=0.0)
    p.add_argument(
        "--proximity",
        choices=("on", "off"),
        default=None,
        help="Pastry proximity neighbour selection on the latency model (thesis system, "
        "§2.1.2; docs/thesis.md D-DHT, G4); default: the trace's, else off",
    )
    p.add_argument(
        "--proximity-candidates",
        type=int_range(0, 10**6),
        default=None,
        help="PNS sample size per routing-table entry (default 16; 0: all candidates)",
    )
    p.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help="thesis system: fast (default; reference/thesis/substrate_fast.py, the same run "
        "bit for bit: same event-log hash) or reference (reference/thesis/system.py itself)",
    )
    p.add_argument("--trace", default=None, help="run this NDJSON trace instead of a workload")
    from pubsub_spec.conformance.generators import GENERATORS, PROFILES

    p.add_argument(
        "--workload",
        choices=sorted(GENERATORS),
        default=None,
        help="run a conformance generator's trace (seed --seed, index 0, size --profile) "
        "instead of the thesis' Zipf workload; --nodes, --subs-per-node, --events and "
        "--matching are then ignored (e.g. octopia-stock for OctopiA and TID)",
    )
    p.add_argument(
        "--profile", choices=sorted(PROFILES), default="small", help="size for --workload"
    )


def build_trace(args: argparse.Namespace) -> Trace:
    """The trace to run (a file, a conformance generator's or the thesis workload), with the
    thesis system's flags applied to its section (reference/thesis/overrides.py)."""
    if args.trace:
        from pubsub_spec.conformance.traceio import read_trace

        trace = read_trace(args.trace)
    elif args.workload:
        from pubsub_spec.conformance.generators import GENERATORS

        trace = GENERATORS[args.workload](args.seed, 0, args.profile)
    else:
        from pubsub_spec.reference.thesis.workload import thesis_trace

        trace = thesis_trace(
            args.nodes, args.subs_per_node, args.events, args.seed, matching=args.matching
        )
    if args.system == "thesis":
        trace = configured(trace, overrides(args), where="--cutoff")
    return replace(trace, seed=args.seed if not args.trace else trace.seed)


def overrides(args: argparse.Namespace) -> Overrides:
    """The thesis system's flags (reference/thesis/overrides.py says what they do)."""
    return Overrides(
        preset=args.preset,
        probe=args.probe,
        delivery=args.delivery,
        proximity_routing=None if args.proximity is None else args.proximity == "on",
        proximity_candidates=args.proximity_candidates,
        widening=args.widening,
        cutoff=args.cutoff,
        max_depth=args.max_depth,
        replication=args.replication,
        leaf_update_loss=args.leaf_update_loss,
        leaf_update_delay_ms=args.leaf_update_delay_ms,
    )


ENGINES = ("fast", "reference")


def chosen(args: argparse.Namespace) -> tuple[SystemInfo, Variant]:
    info = SYSTEMS[args.system]
    if info.name != "thesis":
        if args.engine == "fast":
            raise InputError("--engine", "engine", "fast is the thesis system's engine only")
        return info, info.variant(info.default_variant)
    # the thesis system runs as the trace's section says (build_trace has put the flags there)
    legacy = args.delivery if args.probe is None and args.preset is None else None
    name = BUILTIN_OF.get(legacy, "reference") if legacy else "reference"
    make = (
        TwoDTreeSystem.for_trace if args.engine == "reference" else FastTwoDTreeSystem.for_trace
    )
    return info, Variant(name, info.variant(name).doc, make)


def _mean(xs: list[float]) -> float:
    return statistics.fmean(xs) if xs else 0.0


def _pct(xs: npt.NDArray[np.float64], q: float) -> float:
    """The value at index int(q * n) of the sorted values of the float64 array `xs` (0.0 if
    empty), by a partial sort (the same element; millions of values at full scale)."""
    if not len(xs):
        return 0.0
    k = min(len(xs) - 1, int(q * len(xs)))
    return float(np.partition(xs, k)[k])


def report(trace: Trace, info: SystemInfo, result: RunResult[Any]) -> list[str]:
    """The table of the system's declared message types (§4.2.1 for the thesis), latencies,
    the system's own figures, and the run's simulated time and event-log hash."""
    m = result.metrics
    n_peers = max(1, result.system.peer_count())
    lines = [
        f"workload: {trace.generator}, {trace.initial_nodes} nodes, "
        f"{len(trace.ops)} ops, seed {trace.seed}, {result.system.describe()}, "
        f"matching {trace.matching}",
        "",
        f"{'message type':<20}{'messages':>11}{'sends':>10}{'hops/send':>11}"
        f"{'bytes':>13}{'bytes/node':>12}",
    ]
    for kind in (t.name for t in info.message_types):
        lines.append(
            f"{kind:<20}{m.messages[kind]:>11}{m.sends[kind]:>10}{m.hops_per_send(kind):>11.2f}"
            f"{m.bytes[kind]:>13}{m.bytes[kind] / n_peers:>12.1f}"
        )
    lat = np.asarray(m.delivery_latency_ms, dtype=np.float64)
    ins = np.asarray(m.install_latency_ms, dtype=np.float64)
    lines += [
        "",
        f"delivery latency ms: mean {_mean(m.delivery_latency_ms):.1f}, "
        f"p50 {_pct(lat, 0.5):.1f}, p90 {_pct(lat, 0.9):.1f}, max {_pct(lat, 1.0):.1f}",
        f"install latency ms:  mean {_mean(m.install_latency_ms):.1f}, "
        f"p90 {_pct(ins, 0.9):.1f}",
        *result.system.figures(),
        f"simulated time: {result.sim_time_ms / 1000:.1f} s; event-log hash "
        f"{result.event_log_hash[:16]}",
    ]
    return lines


def _too_large(args: argparse.Namespace) -> str | None:
    """The run's size against conformance/limits.py and the memory limit, before any work."""
    subs = round(args.nodes * args.subs_per_node)
    if subs > MAX_SIM_SUBSCRIPTIONS:
        return (f"--nodes x --subs-per-node = {subs:,} subscriptions, at most "
                f"{MAX_SIM_SUBSCRIPTIONS:,}")  # fmt: skip
    need, limit = simulate_estimate(args.nodes, subs, args.events), memory_limit()
    if limit is not None and need > limit:
        return (f"{args.nodes:,} nodes, {subs:,} subscriptions and {args.events:,} events need "
                f"about {need / 2**30:,.1f} GiB, more than the memory limit of "
                f"{limit / 2**30:.1f} GiB ({MEMORY_ENV}, 0 for none)")  # fmt: skip
    return None


def run(args: argparse.Namespace) -> int:
    # a run allocates millions of small objects, few of them in cycles: rarer collections
    gc.set_threshold(100_000, 50, 100)  # save about a tenth of the time
    try:
        problem = _too_large(args)
    except ValueError as e:  # a bad PUBSUB_SPEC_MEMORY_LIMIT
        problem = str(e)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    set_memory_limit(memory_limit())  # beyond it: a MemoryError, reported (cli.py)
    try:
        trace = build_trace(args)
        info, variant = chosen(args)
        stream = DeliveryStream()

        def make(t: Trace) -> System[Any]:
            # deliveries are streamed into ids per event, not kept as a list
            system = variant.make(t)
            system.deliveries = StreamedDeliveries(stream)
            return system

        result = run_trace(trace, make, progress=ProgressBar("simulate", min_total=2000))
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for line in report(trace, info, result):
        print(line)
    n_events = sum(1 for op in trace.ops if isinstance(op, Publish))
    comparison = compare_stream(
        expected_per_event(trace), stream, ProgressBar("oracle", min_total=2000), n_events
    )
    for label, items in (
        ("missed", comparison.missed),
        ("duplicate", comparison.duplicate),
        ("spurious", comparison.spurious),
    ):
        for d in items[:10]:
            print(f"  {label}: event {d.event_id} subscription {d.sub_id}")
    print(comparison.summary())
    return 0 if comparison.agree else 1
