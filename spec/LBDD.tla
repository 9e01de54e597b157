-------------------------------- MODULE LBDD --------------------------------
(***************************************************************************)
(* LBDD dissemination (seed 003, §3.2–3.5): buckets by the XOR distance of *)
(* digests to the source's, Algorithm 1 (buckets from one's own view),     *)
(* Algorithm 2 (a contiguous slice floor(j m / k) .. floor((j+1) m / k) of *)
(* the next non-empty bucket), Algorithm 3 (views updated when a failure   *)
(* is detected by heartbeat, so views differ for a while). A payload is    *)
(* forwarded by each node on its first receipt to the targets of its own   *)
(* view. Digests are W = 3 bits wide here; they are distinct (ties are     *)
(* decision D-L4, tested in Python).                                       *)
(* Reference: reference/lbdd.py (bucket_no, bucket_construction,           *)
(* select_targets, path_update, disseminate).                              *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS N,             \* nodes 1..N, node 1 is the publisher
          Dig,           \* Dig[n]: the digest of node n, in 0..7, distinct
          MaxFail,       \* at most this many subscribers fail
          WithinBucket   \* MUTANT: also forward to one's successor in one's own bucket

Node == 1..N
Src == 1
Bit(x, i) == (x \div (IF i = 0 THEN 1 ELSE IF i = 1 THEN 2 ELSE 4)) % 2
Xor(a, b) == (IF Bit(a, 0) # Bit(b, 0) THEN 1 ELSE 0) + (IF Bit(a, 1) # Bit(b, 1) THEN 2 ELSE 0)
             + (IF Bit(a, 2) # Bit(b, 2) THEN 4 ELSE 0)
BitLen(d) == IF d = 0 THEN 0 ELSE IF d < 2 THEN 1 ELSE IF d < 4 THEN 2 ELSE 3
Bucket(n) == IF n = Src THEN 0 ELSE BitLen(Xor(Dig[n], Dig[Src]))

InBucket(view, b) == {x \in view \cup {Src} : Bucket(x) = b}
Rank(x, S) == Cardinality({y \in S : Dig[y] < Dig[x]})

\* Algorithm 2 at node n with view V
NextBucket(n, V) == {b \in 1..3 : b > Bucket(n) /\ InBucket(V, b) # {}
                                /\ \A c \in 1..3 : (c > Bucket(n) /\ c < b) => InBucket(V, c) = {}}
Targets(n, V) ==
    LET own == InBucket(V \cup {n}, Bucket(n))
        k == Cardinality(own)
        j == Rank(n, own)
    IN UNION {LET T == InBucket(V, b)
                  m == Cardinality(T)
              IN {x \in T : (j * m) \div k <= Rank(x, T) /\ Rank(x, T) < ((j + 1) * m) \div k}
              : b \in NextBucket(n, V)}
Succ(n, V) == LET own == InBucket(V \cup {n}, Bucket(n)) IN
              {x \in own : x # Src /\ n # Src /\ Rank(x, own) = Rank(n, own) + 1}
Chosen(n, V) == Targets(n, V) \cup (IF WithinBucket THEN Succ(n, V) ELSE {})

VARIABLES alive, view, got, forwarded, edges, started
vars == <<alive, view, got, forwarded, edges, started>>

Init ==
    /\ alive = Node
    /\ view = [n \in Node |-> Node]
    /\ got = [n \in Node |-> 0]
    /\ forwarded = {}
    /\ edges = {}
    /\ started = FALSE

Fail(f) ==
    /\ f # Src /\ f \in alive
    /\ Cardinality(Node \ alive) < MaxFail
    /\ alive' = alive \ {f}
    /\ UNCHANGED <<view, got, forwarded, edges, started>>

\* Algorithm 3: n's heartbeat for f times out; n removes f from its view
Detect(n, f) ==
    /\ n \in alive /\ f \notin alive /\ f \in view[n]
    /\ view' = [view EXCEPT ![n] = @ \ {f}]
    /\ UNCHANGED <<alive, got, forwarded, edges, started>>

Start ==
    /\ ~started
    /\ started' = TRUE
    /\ got' = [got EXCEPT ![Src] = 1]
    /\ UNCHANGED <<alive, view, forwarded, edges>>

Forward(n) ==
    /\ started /\ n \in alive /\ got[n] >= 1 /\ n \notin forwarded
    /\ forwarded' = forwarded \cup {n}
    /\ LET T == Chosen(n, view[n]) IN
       /\ edges' = edges \cup {<<n, t>> : t \in T}
       /\ got' = [x \in Node |-> IF x \in T /\ x \in alive THEN (IF got[x] < 2 THEN got[x] + 1 ELSE 2)
                                 ELSE got[x]]
    /\ UNCHANGED <<alive, view, started>>

Next == \/ \E f \in Node : Fail(f)
        \/ \E n, f \in Node : Detect(n, f)
        \/ Start
        \/ \E n \in Node : Forward(n)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK == /\ alive \subseteq Node /\ forwarded \subseteq Node
          /\ \A n \in Node : view[n] \subseteq Node /\ got[n] \in 0..2

\* Theorem 1, one-way: every edge goes from a lower to a strictly higher bucket, whatever the
\* views (buckets depend on digests only), so no path has a cycle
OneWay == \A e \in edges : Bucket(e[2]) > Bucket(e[1])

\* Depth bound: a path climbs at most one bucket per hop, so it has at most W + 1 = 4 nodes
DepthBound == \A e \in edges : Bucket(e[2]) <= 3

Agreed == \A n \in alive : view[n] = alive
Quiet == \A n \in alive : got[n] >= 1 => n \in forwarded

\* With agreeing views (no failure, or every failure detected everywhere before the payload
\* went out): each live subscriber receives exactly once — n copies for n subscribers
SingleDelivery == (Agreed /\ alive = Node) => \A n \in Node : got[n] <= 1
Coverage == (started /\ Quiet /\ alive = Node) => \A n \in Node : got[n] = 1
=============================================================================
