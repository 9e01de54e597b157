"""Equivalent mutants of reference/sim/ and reference/registry.py (docs/mutation.md): the
argument for each."""

EQUIVALENT: dict[tuple[str, str, int, int], str] = {
    ("reference/sim/engine.py", "core/NumberReplacer", 22, 25): "Engine.processed (0 -> 1 "
    "initially) is only ever incremented (step): no module of reference/, properties/, "
    "conformance/, pubsub_spec/, benchmarks/ or scripts/ reads it (grep '\\.processed'), it is "
    "not printed, not hashed into the event log and not documented; no output can change",
    ("reference/sim/engine.py", "core/AddNot", 42, 11): "`not len(pending) >= 4096` in step "
    "flushes after every item instead of every 4096: _flush feeds the pending lines to the same "
    "sha256 in the same order, and sha256 over the concatenation equals sha256 fed piecewise "
    "(hashlib update is streaming); log_hash flushes what is left before hexdigest, so every "
    "log hash is bit-identical; only the batching (speed) changes",
    ("reference/sim/stream.py", "core/ReplaceComparisonOperator_LtE_Lt", 35, 41): "`-EXACT < x` "
    "only makes _exact(-2**53) False, so a trace holding that value is no longer vectorisable "
    "and expected_per_event takes its brute-force branch, `matches` on active.values() in "
    "insertion order: the oracle's own rule, giving the same ids in the same order as the "
    "compiled branch (subs of the event's schema in active order), which is exact at -2**53 "
    "(float(-2**53) is exact); only the speed changes",
    ("reference/sim/stream.py", "core/NumberReplacer", 153, 17): "the default total (0 -> -1) "
    "is read only in progress(len(seen), max(total, len(seen))), called after seen.add, so "
    "len(seen) >= 1 and max(-1, k) == max(0, k) == k; a caller passing total is unaffected",
}
