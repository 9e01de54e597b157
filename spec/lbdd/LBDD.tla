-------------------------------- MODULE LBDD --------------------------------
(***************************************************************************)
(* LBDD dissemination (LBDD §3.2–3.5): buckets by the XOR distance of *)
(* digests to the source's, Algorithm 1 (buckets from one's own view),     *)
(* Algorithm 2 (a contiguous slice floor(j m / k) .. floor((j+1) m / k) of *)
(* the next non-empty bucket), Algorithm 3 (views updated when a failure   *)
(* is detected by heartbeat, so views differ for a while). A payload is    *)
(* forwarded by each node on its first receipt to the targets of its own   *)
(* view. Digests are W = 3 bits wide here; they are distinct (ties are     *)
(* decision D-L4, tested in Python). The invariants follow the cases V1,   *)
(* V2, V4, V5 of docs/lbdd.md: OneWay and DepthBound whatever the views;   *)
(* Tree and SingleDelivery when the forwarding nodes agree on a view;      *)
(* Coverage when that view is the live set.                               *)
(* Reference: reference/lbdd/algorithms.py (bucket_no, bucket_construction,           *)
(* select_targets, path_update, disseminate).                              *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS N,             \* nodes 1..N, node 1 is the publisher
          Dig,           \* Dig[n]: the digest of node n, in 0..7, distinct
          MaxFail,       \* at most this many subscribers fail
          WithinBucket,  \* MUTANT: also forward to one's successor in one's own bucket
          Bug,           \* "none"; MUTANT "RepeatForward": a node forwards on every receipt
                         \* (no first-receipt rule; copies counted without a cap); MUTANT
                         \* "CountSource": the publisher counted as the first hop (paths one
                         \* hop longer: one step past DepthBound)
          SliceMode      \* "exact" (Algorithm 2 with integer bounds, decision D-L3); MUTANTS:
                         \* "ceil" rounds the upper bound up (slices overlap), "equal" gives
                         \* every node m \div k targets (the last ones are left out)

Node == 1..N
Src == 1
\* bucket m iff the XOR distance to the source's digest is in [2^(m-1), 2^m), i.e. m - 1 is the
\* highest bit in which the two digests differ (the source alone in bucket 0)
HighestDiff(a, b) == IF a \div 4 # b \div 4 THEN 3 ELSE IF a \div 2 # b \div 2 THEN 2
                     ELSE IF a # b THEN 1 ELSE 0
Bucket(n) == IF n = Src THEN 0 ELSE HighestDiff(Dig[n], Dig[Src])

InBucket(view, b) == {x \in view \cup {Src} : Bucket(x) = b}
Rank(x, S) == Cardinality({y \in S : Dig[y] < Dig[x]})

\* Algorithm 2 at node n with view V: the next non-empty bucket above n's own (a set of at most
\* one bucket), and n's slice of it
NextBucket(n, V) ==
    LET mine == Bucket(n)
        above == {b \in {Bucket(x) : x \in V} : b > mine}
    IN {b \in above : \A c \in above : b <= c}
Targets(n, V) ==
    LET own == InBucket(V \cup {n}, Bucket(n))
        k == Cardinality(own)
        j == Rank(n, own)
    IN UNION {LET T == InBucket(V, b)
                  m == Cardinality(T)
                  lo == (j * m) \div k
                  hi == CASE SliceMode = "ceil" -> ((j + 1) * m + k - 1) \div k
                          [] SliceMode = "equal" -> lo + m \div k
                          [] OTHER -> ((j + 1) * m) \div k
              IN {x \in T : LET r == Rank(x, T) IN lo <= r /\ r < hi}
              : b \in NextBucket(n, V)}
Succ(n, V) == LET own == InBucket(V \cup {n}, Bucket(n)) IN
              {x \in own : x # Src /\ n # Src /\ Rank(x, own) = Rank(n, own) + 1}
Chosen(n, V) == Targets(n, V) \cup (IF WithinBucket THEN Succ(n, V) ELSE {})

VARIABLES alive, view, got, forwarded, edges, started,
          hops,    \* hops[n]: the length of the path on which n first received
          used,    \* history: the views the forwarding nodes used
          late     \* history: a node failed while the payload was in flight
vars == <<alive, view, got, forwarded, edges, started, hops, used, late>>

Init ==
    /\ alive = Node
    /\ view = [n \in Node |-> Node]
    /\ got = [n \in Node |-> 0]
    /\ forwarded = {}
    /\ edges = {}
    /\ started = FALSE
    /\ used = {}
    /\ late = FALSE
    /\ hops = [n \in Node |-> 0]

Fail(f) ==
    /\ f # Src /\ f \in alive
    /\ Cardinality(Node \ alive) < MaxFail
    /\ alive' = alive \ {f}
    /\ late' = (late \/ started)
    /\ UNCHANGED <<view, got, forwarded, edges, started, hops, used>>

\* Algorithm 3: n's heartbeat for f times out; n removes f from its view
Detect(n, f) ==
    /\ n \in alive /\ f \notin alive /\ f \in view[n]
    /\ view' = [view EXCEPT ![n] = @ \ {f}]
    /\ UNCHANGED <<alive, got, forwarded, edges, started, hops, used, late>>

Start ==
    /\ ~started
    /\ started' = TRUE
    /\ got' = [got EXCEPT ![Src] = 1]
    /\ hops' = IF Bug = "CountSource" THEN [hops EXCEPT ![Src] = 1] ELSE hops
    /\ UNCHANGED <<alive, view, forwarded, edges, used, late>>

Forward(n) ==
    /\ started /\ n \in alive /\ got[n] >= 1 /\ (n \notin forwarded \/ Bug = "RepeatForward")
    /\ forwarded' = forwarded \cup {n}
    /\ used' = used \cup {view[n]}
    /\ LET T == Chosen(n, view[n]) IN
       /\ edges' = edges \cup {<<n, t>> : t \in T}
       /\ got' = [x \in Node |-> IF x \in T /\ x \in alive THEN (IF got[x] < 2 \/ Bug = "RepeatForward" THEN got[x] + 1 ELSE 2)
                                 ELSE got[x]]
       /\ hops' = [x \in Node |-> IF x \in T /\ x \in alive /\ got[x] = 0
                                  THEN (IF hops[n] < 7 THEN hops[n] + 1 ELSE 7) ELSE hops[x]]
    /\ UNCHANGED <<alive, view, started, late>>

Next == \/ \E f \in Node : Fail(f)
        \/ \E n, f \in Node : Detect(n, f)
        \/ Start
        \/ \E n \in Node : Forward(n)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK == /\ alive \subseteq Node /\ forwarded \subseteq Node /\ late \in BOOLEAN
          /\ \A v \in used : v \subseteq Node
          /\ \A n \in Node : hops[n] \in 0..7
          /\ \A n \in Node : view[n] \subseteq Node /\ got[n] \in 0..2

\* Theorem 1, one-way: every edge goes from a lower to a strictly higher bucket, whatever the
\* views (buckets depend on digests only), so no path has a cycle
OneWay == \A e \in edges : Bucket(e[2]) > Bucket(e[1])

\* Depth bound (LBDD §3.5.2): every hop climbs to a higher non-empty bucket, so no path has
\* more hops than there are non-empty buckets above the publisher's, whatever the views
NonEmptyAbove == Cardinality({Bucket(x) : x \in Node} \ {0})
DepthBound == LET k == NonEmptyAbove IN \A n \in Node : hops[n] <= k

Quiet == \A n \in alive : got[n] >= 1 => n \in forwarded

\* the forwarding nodes used one and the same view (V2, V5 of docs/lbdd.md), possibly a stale
\* one that still lists a failed node
Agreeing == Cardinality(used) <= 1

\* Theorem 1, tree (V2, V5): with agreeing views no edge enters the publisher and every node
\* has at most one parent, so (with OneWay) the paths form a tree rooted at the publisher
Tree == Agreeing => /\ \A e \in edges : e[2] # Src
                    /\ \A x \in Node : Cardinality({e \in edges : e[2] = x}) <= 1

\* ... and nobody receives twice: at most n copies for n subscribers
SingleDelivery == Agreeing => \A n \in Node : got[n] <= 1

\* Coverage (V5): when every forwarding node's view is the live set and nobody failed with the
\* payload in flight, once nobody has anything left to forward every live subscriber has
\* received (a failure detected everywhere before the payload left costs nothing): the slices
\* of Algorithm 2 partition each bucket
Coverage == (started /\ Quiet /\ used \subseteq {alive} /\ ~late) => \A n \in alive : got[n] = 1
=============================================================================
