"""One-way dissemination (LBDD Theorem 1) as a Hypothesis check, and the mutant it must reject:
a node that also forwards within its own bucket."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import strategies as st

from pubsub_spec.reference.lbdd.algorithms import bucket_no, digest, disseminate, targets

address_sets = st.lists(
    st.tuples(*[st.integers(1, 254)] * 4).map(lambda t: ".".join(map(str, t))),
    min_size=2,
    max_size=80,
    unique=True,
)


def within_bucket_targets(me: str, source: str, view: Iterable[str]) -> tuple[str, ...]:
    """MUTANT: besides its slice, a node forwards to its successor in its own bucket."""
    own = sorted(
        (n for n in set(view) | {me} if bucket_no(source, n) == bucket_no(source, me)),
        key=lambda n: (digest(n), n),
    )
    i = own.index(me)
    extra = (own[i + 1],) if me != source and i + 1 < len(own) else ()
    return targets(me, source, view) + extra


def one_way_violation(addrs: list[str], mutant: bool = False) -> str | None:
    """None if dissemination is one-way and single; else what went wrong."""
    source, members = addrs[0], addrs[1:]
    rule = within_bucket_targets if mutant else None
    d = disseminate(source, members, {n: addrs for n in addrs}, rule)
    for a, b in d.edges:
        if bucket_no(source, b) <= bucket_no(source, a):
            return f"edge {a} -> {b} does not go to a higher bucket"
    twice = sorted(m for m, c in d.received.items() if c != 1)
    missed = sorted(set(members) - set(d.received))
    if twice or missed:
        return f"received twice: {twice[:3]}, missed: {missed[:3]}"
    return None
