---------------------------- MODULE LiveLBDD   -----------------------------
(* Liveness of LBDD dissemination: with no failure, under weak   *)
(* fairness of Start and of every node's Forward, every node eventually     *)
(* receives the payload. Seven nodes, digests 0..6.                         *)
EXTENDS LBDD

MCDig == <<0, 1, 2, 3, 4, 5, 6>>
LiveSpec == Spec /\ WF_vars(Start) /\ \A n \in Node : WF_vars(Forward(n))
EventuallyDelivered == \A n \in Node : <>(got[n] >= 1)
=============================================================================
