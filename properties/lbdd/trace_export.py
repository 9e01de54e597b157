"""Trace validation of LBDD disseminations against spec/lbdd/LBDD.tla.

A run of `reference.lbdd.algorithms.disseminate` is observed through its `rule` argument (the
reference is not changed): the recording rule notes each node in the order it forwards and the
view it forwards from, then calls the reference's `targets`. The run becomes a sequence of
states of LBDD.tla under this abstraction map (docs/tla.md, "Trace validation"):

- nodes: the source is node 1, the others 2..N in the order (digest, address);
- Dig: LBDD.tla has W = 3-bit digests, so a run is mapped only when its non-empty buckets fit:
  the real bucket of n is the highest bit in which digest(n) and digest(source) differ,
  computed here from the MD5 digests, NOT by the reference's `bucket_no` (so a slip in the
  reference's distance is not copied into the map). The non-empty real buckets, highest first,
  become abstract buckets 3, 2, 1 and the node of rank r (by digest) in abstract bucket b gets
  digest 2^(b-1) + r: the bucket order and the order inside each bucket, all that Algorithms 1
  and 2 read, are kept. A run with more than three non-empty buckets, or a bucket too full for
  its abstract one (1, 2, 4 nodes), or a digest tie, is not mapped (counted, not validated);
- alive: the live nodes; view[n]: n's view in the run plus n itself (the spec's views start at
  Node); got, forwarded, edges, hops: from the recorded forwards; used: the views forwarded
  from; late: FALSE (failures happen before the payload leaves);
- steps: Fail(f) per failed node, Detect(n, f) per live node whose view has lost f, Start,
  then Forward(n) per recorded forward, in the order of the run.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pubsub_spec.properties.tracecheck import TlaValue, Validation, sequence_module, validate
from pubsub_spec.reference.lbdd.algorithms import (
    Churn,
    TargetRule,
    digest,
    disseminate,
    heartbeat_views,
    select_targets,
    targets,
)

VARIABLES = ("alive", "view", "got", "forwarded", "edges", "started", "hops", "used", "late")


@dataclass(frozen=True)
class LbddRun:
    """One dissemination as the reference ran it: who forwarded, in order, from which view."""

    source: str
    nodes: tuple[str, ...]  # every member, the source included
    alive: frozenset[str]
    forwards: tuple[tuple[str, frozenset[str], tuple[str, ...]], ...]  # node, view, targets
    received: Mapping[str, int]


def record_run(
    source: str,
    nodes: Sequence[str],
    alive: Iterable[str],
    views: Mapping[str, Iterable[str]],
    rule: TargetRule | None = None,
) -> LbddRun:
    """Run `disseminate` with a recording rule around `rule` (the reference's `targets` by
    default); the dissemination itself is the reference's."""
    forwards: list[tuple[str, frozenset[str], tuple[str, ...]]] = []
    inner = rule or targets

    def recording(me: str, src: str, view: Iterable[str]) -> tuple[str, ...]:
        v = frozenset(view)
        out = inner(me, src, v)
        forwards.append((me, v, tuple(out)))
        return out

    live = frozenset(alive) | {source}
    d = disseminate(source, live, views, recording)
    return LbddRun(source, tuple(sorted(set(nodes) | {source})), live, tuple(forwards), d.received)


def _real_bucket(a: str, source: str) -> int:
    """The highest differing bit of the two MD5 digests, plus one (LBDD §3.2), computed here
    independently of reference.lbdd.algorithms.bucket_no."""
    return (digest(a) ^ digest(source)).bit_length()


def abstract_digests(source: str, nodes: Sequence[str]) -> dict[str, int] | None:
    """The abstraction map's digests (module doc), or None when the run does not fit W = 3."""
    others = [n for n in nodes if n != source]
    by_bucket: dict[int, list[str]] = {}
    for n in others:
        b = _real_bucket(n, source)
        if b == 0:
            return None  # a digest tie with the source (D-L4): not in the spec (distinct Dig)
        by_bucket.setdefault(b, []).append(n)
    if len({digest(n) for n in nodes}) != len(nodes) or len(by_bucket) > 3:
        return None
    out = {source: 0}
    for abstract, real in zip((3, 2, 1), sorted(by_bucket, reverse=True), strict=False):
        members = sorted(by_bucket[real], key=lambda n: (digest(n), n))
        if len(members) > 1 << (abstract - 1):
            return None
        for r, n in enumerate(members):
            out[n] = (1 << (abstract - 1)) + r
    return out


def abstract_states(run: LbddRun, dig: Mapping[str, int]) -> list[dict[str, TlaValue]]:
    """The sequence of LBDD.tla states of the run (module doc)."""
    order = sorted(run.nodes, key=lambda n: (n != run.source, digest(n), n))
    num = {n: i + 1 for i, n in enumerate(order)}
    everyone = frozenset(num.values())
    alive: set[int] = set(everyone)
    view = {i: set(everyone) for i in everyone}
    got = dict.fromkeys(everyone, 0)
    hops = dict.fromkeys(everyone, 0)
    forwarded: set[int] = set()
    edges: set[tuple[int, int]] = set()
    used: set[frozenset[int]] = set()
    started = False
    states: list[dict[str, TlaValue]] = []

    def snap() -> None:
        states.append(
            {
                "alive": frozenset(alive),
                "view": tuple(frozenset(view[i]) for i in sorted(everyone)),
                "got": tuple(got[i] for i in sorted(everyone)),
                "forwarded": frozenset(forwarded),
                "edges": frozenset(edges),
                "started": started,
                "hops": tuple(hops[i] for i in sorted(everyone)),
                "used": frozenset(used),
                "late": False,
            }
        )

    snap()
    for n in order:  # Fail(f)
        if n not in run.alive:
            alive.discard(num[n])
            snap()
    views = {me: v for me, v, _ in run.forwards}
    for me in order:  # Detect(n, f): n's view of the run has lost f
        if me not in views or num[me] not in alive:
            continue
        mine = {num[x] for x in views[me] if x in num} | {num[me]}
        for f in sorted(everyone - mine):
            view[num[me]].discard(f)
            snap()
    started = True  # Start
    got[num[run.source]] = 1
    snap()
    for me, _, out in run.forwards:  # Forward(n)
        i = num[me]
        forwarded.add(i)
        used.add(frozenset(view[i]))
        for t in out:
            j = num[t]
            edges.add((i, j))
            if j in alive:
                if got[j] == 0:
                    hops[j] = min(hops[i] + 1, 7)
                got[j] = min(got[j] + 1, 2)
        snap()
    return states


def lbdd_module(run: LbddRun, dig: Mapping[str, int], name: str) -> tuple[str, str, int]:
    """The generated module and cfg (constants fixed to the run's) and the number of states."""
    states = abstract_states(run, dig)
    order = sorted(run.nodes, key=lambda n: (n != run.source, digest(n), n))
    digs = tuple(dig[n] for n in order)
    definitions = "TVDig == <<" + ", ".join(map(str, digs)) + ">>"
    module = sequence_module(name, "LBDD", VARIABLES, states, definitions=definitions)
    failed = sum(1 for n in run.nodes if n not in run.alive)
    cfg = f"""CONSTANTS
    Bug = "none"
    N = {len(order)}
    MaxFail = {max(1, failed)}
    WithinBucket = FALSE
    SliceMode = "exact"
    Dig <- TVDig
INIT TVInit
NEXT TVNext
"""
    return module, cfg, len(states)


def generated_runs(seed: int, count: int) -> list[LbddRun]:
    """Generated disseminations that fit the spec's W = 3 map: 2..8 members drawn from a pool of
    addresses, agreeing views or one failure caught in the middle of its detection (views that
    differ, LBDD §3.4), every draw from `random.Random(f"{seed}:tv-lbdd:{i}")`."""
    runs: list[LbddRun] = []
    i = 0
    while len(runs) < count:
        rng = random.Random(f"{seed}:tv-lbdd:{i}")
        i += 1
        pool = [f"10.0.{rng.randrange(256)}.{rng.randrange(1, 255)}" for _ in range(8)]
        nodes = sorted(set(rng.sample(pool, rng.randint(2, 8))))
        source = nodes[0]
        if abstract_digests(source, nodes) is None:
            continue
        others = [n for n in nodes if n != source]
        if rng.random() < 0.5 and others:
            failed = rng.choice(others)
            churn = Churn(fail_at={failed: 10.0})
            hv = heartbeat_views(source, nodes, churn, rng)
            now = 10.0 + rng.uniform(0.0, churn.timeout + churn.period + churn.max_delay)
            live = hv.alive(now)
            views = {n: hv.view(n, now) for n in nodes}
        else:
            live = set(nodes)
            views = {n: set(nodes) - {n} for n in nodes}
        runs.append(record_run(source, nodes, live, views))
    return runs


def subtraction_targets(me: str, source: str, view: Iterable[str]) -> tuple[str, ...]:
    """MUTANT (a cost-only slip): Algorithms 1 and 2 with the distance computed as
    |digest_i - digest_j| instead of XOR (LBDD §3.2). Buckets still climb and slices still
    partition, so every live node receives exactly once with agreeing views: only the shape of
    the tree (its cost) differs from the paper's."""
    from pubsub_spec.reference.lbdd.algorithms import LocalBuckets

    def bucket(n: str) -> int:
        return 0 if n == source else max(1, abs(digest(n) - digest(source)).bit_length())

    mine = bucket(me)
    same = sorted(
        {me, *(p for p in set(view) | {source} if bucket(p) == mine)}, key=lambda n: (digest(n), n)
    )
    higher: dict[int, list[str]] = {}
    for p in set(view) | {source}:
        if p != me and bucket(p) > mine:
            higher.setdefault(bucket(p), []).append(p)
    local = LocalBuckets(
        mine,
        same.index(me),
        len(same),
        {b: tuple(sorted(ms, key=lambda n: (digest(n), n))) for b, ms in sorted(higher.items())},
    )
    return select_targets(local)


def validate_run(run: LbddRun, name: str = "TVLBDD") -> Validation | None:
    """Validate one run against LBDD.tla; None when the run does not fit the abstraction map."""
    dig = abstract_digests(run.source, run.nodes)
    if dig is None:
        return None
    module, cfg, n = lbdd_module(run, dig, name)
    return validate("lbdd", name, module, cfg, expect_states=n)
