------------------------------- MODULE MCLBDD -------------------------------
(* Seven nodes, digests 0..6 (buckets 1: one node, 2: two, 3: three); one    *)
(* subscriber may fail while the payload is in flight.                      *)
EXTENDS LBDD

MCDig == <<0, 1, 2, 3, 4, 5, 6>>
=============================================================================
