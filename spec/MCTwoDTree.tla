---------------------------- MODULE MCTwoDTree -----------------------------
(* The model checked in CI: depth 2, capacity 1, two subscriptions on        *)
(* neighbouring cells (the root, then its child, then its grandchild are   *)
(* pushed to split; the grandchild sits at the depth cap), one event       *)
(* matching both, unsubscriptions that make merging possible.              *)
EXTENDS TwoDTree

MCPt == <<4, 5>>
MCRegion == <<{4, 5, 6}>>
=============================================================================
