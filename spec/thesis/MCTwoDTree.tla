---------------------------- MODULE MCTwoDTree -----------------------------
(* The model checked in CI: depth 2, capacity 1, two subscriptions on        *)
(* neighbouring cells (the root, then its child, then its grandchild are   *)
(* pushed to split; the grandchild sits at the depth cap), one event       *)
(* matching both, unsubscriptions that make merging possible.              *)
EXTENDS TwoDTree

MCPt == <<4, 5>>
MCRegion == <<{4, 5, 6}>>
MCRegion2 == <<{4, 5}>>     \* MCTwoDTreeFifo: the event matches exactly the two cells
\* MCTwoDTree_EarlyUpdate: depth 3 (16 cells), the same picture one level down: the jump back
\* from level 3 lands on level 1, above the split node's parent
MCPt3 == <<8, 9>>
MCRegion3 == <<{8, 9, 10}>>

(* Witnesses that the model reaches the situations the invariants are about *)
(* (tla --count-satisfying W...; counts in docs/tla.md).                    *)
\* the event is done, both subscriptions were active and both were delivered, after splits
WDeliveredAfterSplits ==
    \E e \in published : Done(e) /\ activeAt[e] = Subs /\ <<2, 2>> \in exists
                         /\ \A s \in Subs : dcount[<<e, s>>] = 1
\* a probe is held at a splitting node
WProbeHeld == \E n \in DOMAIN held : held[n] # {}
\* an insert is held at a splitting node
WInsertHeld == \E n \in DOMAIN heldIns : heldIns[n] # {}
\* a probe is addressed to a node that does not exist: it will jump back
WProbeJumpsBack == \E m \in msgs : m.t = "probe" /\ m.to \notin exists
\* an insert is addressed to a node that does not exist
WInsertJumpsBack == \E m \in msgs : m.t = "insert" /\ m.to \notin exists
\* an ancestor's table is stale (names an internal node) and no update is in flight: lost
WStaleForGood == /\ \E a \in exists : \E x \in lnrt[a] : x \in exists /\ lnrt[x] # {} /\ pending[x] = 0
                 /\ ~\E m \in msgs : m.t = "update"
\* a probe arrives at a node that has already processed its event: dedup
WDedup == \E m \in msgs : m.t = "probe" /\ m.to \in exists /\ m.e \in seen[m.to]
=============================================================================
