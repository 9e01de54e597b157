---------------------------- MODULE MCScotRouting ----------------------------
(* The models checked in CI: path-3 x K3 (Fig. 7's SCOT, 9 brokers; CivOnTwoLinks:   *)
(* K1 x K4 = K4, so that case (i) has two free iLinks), every set of                 *)
(* subscribers, the host at the inner broker of cluster 0 (MCScotRouting*.cfg).      *)
EXTENDS ScotRouting
MCHost == <<IF NX >= 2 THEN 2 ELSE 1, 0>>
=============================================================================
