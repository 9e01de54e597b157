"""Shrinking a failing trace to a small one that still fails (delta debugging over ops).

Candidates drop a chunk of ops, together with the unsubscribes of dropped subscriptions; a
candidate that is not a valid trace is skipped, so the result is always valid. The search is
bounded by `budget` runs of the implementation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from reference.errors import InputError
from reference.ops import Op, Subscribe, Trace, Unsubscribe, validate_trace


def _without(ops: tuple[Op, ...], drop: set[int]) -> tuple[Op, ...]:
    gone_subs = set()
    for i in drop:
        op = ops[i]
        if isinstance(op, Subscribe):
            gone_subs.add(op.sub.id)
    return tuple(
        op
        for i, op in enumerate(ops)
        if i not in drop and not (isinstance(op, Unsubscribe) and op.sub_id in gone_subs)
    )


def shrink(trace: Trace, still_fails: Callable[[Trace], bool], budget: int = 200) -> Trace:
    ops = trace.ops
    runs = 0
    chunk = max(1, len(ops) // 2)
    while chunk >= 1 and runs < budget:
        progressed = False
        start = 0
        while start < len(ops) and runs < budget:
            candidate = _without(ops, set(range(start, min(len(ops), start + chunk))))
            t = replace(trace, ops=candidate)
            try:
                validate_trace(t)
            except InputError:
                start += chunk
                continue
            runs += 1
            if candidate and still_fails(t):
                ops = candidate
                progressed = True
            else:
                start += chunk
        if not progressed:
            chunk //= 2
    return replace(trace, ops=ops, trace_id=f"{trace.trace_id}-shrunk")
