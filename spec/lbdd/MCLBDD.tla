------------------------------- MODULE MCLBDD -------------------------------
(* Seven nodes, digests 0..6 (buckets 1: one node, 2: two, 3: three); one    *)
(* subscriber may fail while the payload is in flight.                      *)
EXTENDS LBDD

MCDig == <<0, 1, 2, 3, 4, 5, 6>>

(* Witnesses (tla --count-satisfying W...; counts in docs/tla.md).          *)
\* a subscriber failed, every view lost it before the payload left, all live nodes received
WCoverAfterFailure == started /\ Quiet /\ used = {alive} /\ alive # Node /\ \A n \in alive : got[n] = 1
\* agreeing views that still list the failed node: once, but its subtree is missed (V2)
WStaleAgreeingMiss == started /\ Quiet /\ Agreeing /\ \E n \in alive : got[n] = 0
\* with views that disagree, a node receives twice (V4: why SingleDelivery assumes Agreeing)
WDisagreeDuplicate == \E n \in Node : got[n] = 2
\* views that disagree, no failure in flight: a live node is missed all the same (V4)
WDisagreeMiss == started /\ Quiet /\ ~Agreeing /\ ~late /\ \E n \in alive : got[n] = 0
\* a path of three hops: publisher, buckets 1, 2, 3
WDepth3 == \E n \in Node : hops[n] = 3
=============================================================================
