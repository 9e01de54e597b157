---------------------------- MODULE LiveTwoDTree ----------------------------
(* Liveness of the 2d-tree's split: under weak fairness of the    *)
(* receipt of TransferSub and of its confirmation, every split is eventually *)
(* confirmed (the node's `pending` returns to 0, its held probes and inserts *)
(* are replayed and its LeafUpdate is sent). The reference's constants       *)
(* (Hold, no EarlyUpdate, no FIFO, Inherit); depth 1, capacity 1, three      *)
(* subscriptions over the root's two halves, no event (with one event the    *)
(* model has 2,622 states and takes 7 s, and holds too): the root splits     *)
(* once, a third insert may be held meanwhile (WInsertHeld). Checked by      *)
(* tla-checker --check-liveness (properties/                                 *)
(* liveness.py; docs/tla.md, "Liveness").                                    *)
EXTENDS TwoDTree

LivePt == <<0, 2, 1>>
LiveRegion == <<>>
RecvSomeTransfer == \E m \in msgs : m.t = "transfer" /\ RecvTransfer(m)
RecvSomeCreated == \E m \in msgs : m.t = "created" /\ RecvCreated(m)
LiveSpec == Spec /\ WF_vars(RecvSomeTransfer) /\ WF_vars(RecvSomeCreated)
\* MUTANT (LiveTwoDTree_NoCreatedFairness): confirmations may stay in flight for ever
LiveSpecNoCreated == Spec /\ WF_vars(RecvSomeTransfer)
SplitConfirmed == \A n \in AllNodes : (pending[n] > 0) ~> (pending[n] = 0)
\* reachable (install 1 and 2, split, install 3 at level 0): an insert held at the splitting
\* root, replayed once both children confirm
WInsertHeld == \E n \in DOMAIN heldIns : heldIns[n] # {}
\* Delivery (LiveTwoDTreeDelivery.cfg): two subscriptions in the root's two halves and one
\* event matching both; every receipt of a probe and of an insert is fair as well
LivePt2 == <<0, 2>>
LiveRegion2 == <<{0, 2}>>
RecvSomeProbe == \E m \in msgs : m.t = "probe" /\ RecvProbe(m)
RecvSomeInsert == \E m \in msgs : m.t = "insert" /\ RecvInsert(m)
LiveSpecAll == LiveSpec /\ WF_vars(RecvSomeProbe) /\ WF_vars(RecvSomeInsert)
\* MUTANT (LiveTwoDTreeDelivery_NoProbeFairness): probes may stay in flight for ever
LiveSpecNoProbe == LiveSpec /\ WF_vars(RecvSomeInsert)
EventuallyDelivered ==
    \A e \in Events : \A s \in Subs :
        (e \in published /\ s \in activeAt[e] /\ Pt[s] \in Region[e]) ~> (dcount[<<e, s>>] >= 1)
=============================================================================
