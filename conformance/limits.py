"""Upper bounds on every size a trace or a flag can carry, and the default memory limit
(docs/conformance.md, "Resource bounds"). Each is checked before the work starts (the trace
readers of traceio.py, the flags of `simulate` and `conform --ops`), so an oversized input is
exit 2 naming its place, not minutes of growth and then a MemoryError.

The bounds are far above what the suite and the thesis' experiments use (the largest
generated trace has 120 initial nodes and about 1,100 ops; the thesis' largest run 5,000 nodes,
25,000 subscriptions, 10,000 events) and far below what exhausts a machine.
"""

from __future__ import annotations

import os

# -- traces (checked by conformance/traceio.py while reading) -------------------------------------
MAX_NODES = 100_000  # config.initial_nodes
MAX_TRACE_OPS = 1_000_000  # op lines of one trace
MAX_LINE_CHARS = 1 << 20  # one line of a trace file (a header with many schemas fits)
MAX_NAME_CHARS = 256  # every JSON string of a trace line: ids, node names, schema, attribute
MAX_LIST = 10_000  # every JSON array of a trace line (a fail's nodes, a cut list, ...)
MAX_CONFIG_INT = 100_000  # every integer of a system's config section (intervals, depths)

# -- flags ---------------------------------------------------------------------------------------
MAX_SIM_NODES = 1_000_000  # simulate --nodes
MAX_SIM_SUBSCRIPTIONS = 10_000_000  # simulate --nodes x --subs-per-node
MAX_SIM_EVENTS = 100_000_000  # simulate --events
MAX_CONFORM_OPS = 10**10  # conform/generate --ops (10^7 ops take about 10 minutes on 2 cores)

# -- memory ----------------------------------------------------------------------------------------
MEMORY_ENV = "PUBSUB_SPEC_MEMORY_LIMIT"
DEFAULT_MEMORY = 4 << 30  # bytes of RLIMIT_DATA for a built-in's worker and for simulate


def parse_size(text: str) -> int | None:
    """'4G', '512M', '1000000' -> bytes; '0' or 'none' -> None (no limit). ValueError else."""
    t = text.strip().lower()
    if t in ("0", "none", "unlimited"):
        return None
    scale = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}.get(t[-1:], 1)
    digits = t[:-1] if scale != 1 else t
    if not digits.isdigit() or int(digits) == 0:
        raise ValueError(f"{MEMORY_ENV}={text!r}: expected bytes such as 4G, 512M or 0 (none)")
    return int(digits) * scale


def memory_limit() -> int | None:
    """The memory limit in bytes (None: none): PUBSUB_SPEC_MEMORY_LIMIT, else DEFAULT_MEMORY."""
    text = os.environ.get(MEMORY_ENV)
    return DEFAULT_MEMORY if text is None else parse_size(text)


def simulate_estimate(nodes: int, subscriptions: int, events: int) -> int:
    """Bytes a `simulate` run of this size takes at its peak, roughly (measured on the thesis
    system: about 20 KB per node, 3.5 KB per subscription, per event 3 KB plus 4 bytes per
    subscription for its deliveries and messages, over a 64 MB interpreter)."""
    return (
        (64 << 20) + nodes * 20_000 + subscriptions * 3_500 + events * (3_000 + 4 * subscriptions)
    )


def set_memory_limit(limit: int | None) -> None:
    """RLIMIT_DATA of this process (the heap and anonymous mappings: Python's allocations), so
    that growth beyond it is a MemoryError the caller turns into a verdict or a message."""
    if limit is None:
        return
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft == resource.RLIM_INFINITY or soft > limit:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
