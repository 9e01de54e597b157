"""The format's numeric limits (FORMAT.md, "Numbers"): seq, seed and initial_nodes
within +-(2^53 - 1), so that a client reading JSON numbers as doubles can echo them; the limit
is enforced on read with the field named, and accepted up to it."""

from __future__ import annotations

import pytest

from pubsub_spec.conformance.traceio import parse_trace_lines
from pubsub_spec.reference.common.errors import InputError

HEADER = (
    '{"format":"pubsub-trace","version":1,"trace_id":"t","seed":SEED,"generator":"manual",'
    '"schemas":[{"name":"s","attributes":[{"name":"a","type":"int","min":0,"max":9}]}],'
    '"semantics":{"matching":"strict"},"config":{"initial_nodes":2}}'
)
SUB = (
    '{"seq":SEQ,"op":"subscribe","id":"s1","subscriber":"n0","schema":"s",'
    '"predicates":{"a":[1,5]}}'
)
LIMIT = 2**53 - 1


@pytest.mark.parametrize(("seed", "seq"), [(LIMIT, LIMIT), (-LIMIT, 0)])
def test_values_up_to_the_limit_are_read(seed: int, seq: int) -> None:
    trace = parse_trace_lines([HEADER.replace("SEED", str(seed)), SUB.replace("SEQ", str(seq))])
    assert trace.seed == seed and trace.ops[0].seq == seq


@pytest.mark.parametrize(
    ("seed", "seq", "line", "field"),
    [
        (LIMIT + 1, 1, 1, "seed"),
        (-LIMIT - 1, 1, 1, "seed"),
        (0, LIMIT + 1, 2, "seq"),
        (0, 2**63 - 1, 2, "seq"),
    ],
)
def test_values_beyond_the_limit_are_rejected(seed: int, seq: int, line: int, field: str) -> None:
    lines = [HEADER.replace("SEED", str(seed)), SUB.replace("SEQ", str(seq))]
    with pytest.raises(InputError) as err:
        parse_trace_lines(lines, "t.ndjson")
    assert err.value.where.endswith(f"line {line}") and err.value.field == field, str(err.value)
