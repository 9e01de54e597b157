"""Malformed input is rejected before anything runs, with an error naming line and field."""

from __future__ import annotations

import math

import pytest

from pubsub_spec.reference.common.errors import InputError
from pubsub_spec.reference.common.model import (
    Attribute,
    Event,
    Number,
    Predicate,
    Schema,
    Subscription,
)
from pubsub_spec.reference.common.ops import (
    Op,
    Publish,
    Subscribe,
    Trace,
    Unsubscribe,
    validate_trace,
)
from pubsub_spec.reference.thesis.run import run_trace

S = Schema("s", (Attribute("a", "float", 0.0, 100.0), Attribute("b", "int", 0, 10)))


def sub(sid: str = "s1", lo: Number = 1.0, hi: Number = 2.0, attr: str = "a") -> Subscribe:
    return Subscribe(1, Subscription(sid, "n0", "s", (Predicate(attr, lo, hi),)))


def pub(v: Number, attr: str = "a", seq: int = 2, eid: str = "e1") -> Publish:
    return Publish(seq, Event(eid, "n1", "s", ((attr, v),)))


def rejected(*ops: Op) -> InputError:
    trace = Trace((S,), tuple(ops), initial_nodes=4)
    with pytest.raises(InputError) as info:
        run_trace(trace)
    return info.value


@pytest.mark.parametrize(
    ("ops", "where", "field", "words"),
    [
        ((sub(attr="zz"),), "line 2", "predicates.zz", "unknown attribute"),
        ((sub(lo=5.0, hi=2.0),), "line 2", "predicates.a", "inverted range"),
        ((sub(lo=-1.0),), "line 2", "predicates.a", "outside domain"),
        ((sub(lo=math.nan),), "line 2", "predicates.a.lo", "finite"),
        ((sub(hi=math.inf),), "line 2", "predicates.a.hi", "finite"),
        ((sub(attr="b", lo=1.5, hi=3),), "line 2", "predicates.b.lo", "int"),
        ((sub(), pub(math.nan)), "line 3", "values.a", "finite"),
        ((sub(), pub(101.0)), "line 3", "values.a", "outside domain"),
        ((sub(), pub(1.0, attr="q")), "line 3", "values.q", "unknown attribute"),
        ((sub(), Subscribe(2, sub().sub)), "line 3", "id", "duplicate subscription id"),
        ((sub(), pub(1.0), pub(2.0, seq=3)), "line 4", "id", "duplicate event id"),
        ((Unsubscribe(1, "nope"),), "line 2", "id", "unknown"),
        ((sub(), pub(1.0, seq=1)), "line 3", "seq", "increase"),
    ],
)
def test_bad_input_names_the_place(ops: tuple[Op, ...], where: str, field: str, words: str) -> None:
    err = rejected(*ops)
    assert err.where.startswith(where) and err.field == field and words in err.message, str(err)


def test_bad_schema_is_rejected() -> None:
    bad = Schema("s", (Attribute("a", "float", 5.0, 1.0),))
    with pytest.raises(InputError, match="min < max"):
        validate_trace(Trace((bad,), (), initial_nodes=1))


def test_valid_trace_passes() -> None:
    validate_trace(Trace((S,), (sub(), pub(1.5)), initial_nodes=2))
