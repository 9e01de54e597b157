"""Shrinking a failing trace to a small one that still fails (delta debugging over ops).

A candidate removes a chunk of ops together with what depends on them, so that it stays a
valid trace: a subscribe goes with its unsubscribe; a join goes with every op of the peer it
added (its subscriptions, publishes, its leave, its place in a fail). Removing a publish, an
unsubscribe, a leave or a fail needs nothing else. Every candidate is re-validated with
`reference.common.ops.validate_trace` (an invalid one is never tried) and kept only if `still_fails`
says so. Chunks halve from half the ops down to single ops (ddmin), so the result is
1-minimal: removing any one op (with its dependents) makes it pass, unless the budget ran out.
At the end, initial peers that no op names are dropped when the trace still fails without
them. Sequence numbers are kept, so every op of the result points back to the original.

The search runs `still_fails` at most `budget` times; it is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.ops import (
    Advertise,
    Fail,
    Join,
    Leave,
    Op,
    Publish,
    Subscribe,
    Trace,
    Unadvertise,
    Unsubscribe,
    validate_trace,
)


def _nodes_of(op: Op) -> set[str]:
    if isinstance(op, Join | Leave):
        return {op.node}
    if isinstance(op, Fail):
        return set(op.nodes)
    if isinstance(op, Subscribe):
        return {op.sub.subscriber}
    if isinstance(op, Publish):
        return {op.event.publisher}
    if isinstance(op, Advertise):
        return {op.publisher}
    return set()


def without(ops: tuple[Op, ...], drop: set[int]) -> tuple[Op, ...]:
    """`ops` minus the ops at `drop` and everything that depends on them (module doc)."""
    dropped = [ops[i] for i in sorted(drop) if 0 <= i < len(ops)]
    gone_nodes = {op.node for op in dropped if isinstance(op, Join)}
    gone_subs = {op.sub.id for op in dropped if isinstance(op, Subscribe)}
    gone_advs = {op.id for op in dropped if isinstance(op, Advertise)}
    kept: list[Op] = []
    for i, op in enumerate(ops):
        if i in drop:
            continue
        if isinstance(op, Subscribe) and op.sub.subscriber in gone_nodes:
            gone_subs.add(op.sub.id)
            continue
        if isinstance(op, Unsubscribe) and op.sub_id in gone_subs:
            continue
        if isinstance(op, Advertise) and op.publisher in gone_nodes:
            gone_advs.add(op.id)
            continue
        if isinstance(op, Unadvertise) and op.id in gone_advs:
            continue
        if isinstance(op, Fail):
            rest = tuple(n for n in op.nodes if n not in gone_nodes)
            if rest != op.nodes:
                if rest:
                    kept.append(replace(op, nodes=rest))
                continue
        elif _nodes_of(op) & gone_nodes:
            continue
        kept.append(op)
    return tuple(kept)


def _valid(trace: Trace) -> bool:
    try:
        validate_trace(trace)
    except InputError:
        return False
    return True


def _fewer_initial_nodes(trace: Trace) -> Trace | None:
    """The trace with initial peers n0..n{k-1} only as far as ops name them, or None."""
    named = set().union(*(_nodes_of(op) for op in trace.ops)) if trace.ops else set()
    used = [
        int(n[1:])
        for n in named
        if n.startswith("n") and n[1:].isdigit() and int(n[1:]) < trace.initial_nodes
    ]
    k = max(used, default=0) + 1
    if k >= trace.initial_nodes:
        return None
    joined = {op.node for op in trace.ops if isinstance(op, Join)}
    if any(n in joined for n in (f"n{i}" for i in range(k, trace.initial_nodes))):
        return None  # renaming would be needed; keep it simple
    return replace(trace, initial_nodes=k)


def shrink(trace: Trace, still_fails: Callable[[Trace], bool], budget: int = 200) -> Trace:
    """A smaller valid trace for which `still_fails` holds (the input if none is found).
    `still_fails(trace)` is assumed; its id gets the suffix `-shrunk`."""
    ops = trace.ops
    runs = 0

    def fails(candidate: Trace) -> bool:
        nonlocal runs
        runs += 1
        return still_fails(candidate)

    chunk = max(1, len(ops) // 2)
    while runs < budget and ops:
        progressed = False
        start = 0
        while start < len(ops) and runs < budget:
            candidate = without(ops, set(range(start, min(len(ops), start + chunk))))
            t = replace(trace, ops=candidate)
            if candidate != ops and _valid(t) and fails(t):
                ops = candidate  # same start: the next chunk slid into place
                progressed = True
            else:
                start += chunk
        if not progressed:
            if chunk == 1:
                break
            chunk = max(1, chunk // 2)
    result = replace(trace, ops=ops)
    fewer = _fewer_initial_nodes(result)
    if fewer is not None and runs < budget and _valid(fewer) and fails(fewer):
        result = fewer
    return replace(result, trace_id=f"{trace.trace_id}-shrunk")
