------------------------------ MODULE MCScribe ------------------------------
(* Six peers 1..6; peer 1 is not in the ring at first (the key's home is 2  *)
(* until 1 arrives and takes the root over); peers 4, 5, 6 may subscribe;   *)
(* one peer may fail; one publication.                                      *)
EXTENDS Scribe

(* Witnesses (tla --count-satisfying W...; counts in docs/tla.md).          *)
\* repaired after a failure, with members: the rebuilt tree reaches them
WRepairedAfterFailure == Repaired /\ fails = 1 /\ epoch = 1 /\ \E m \in alive : mem[m]
\* a failed peer was a forwarder of a member's branch (repair is needed)
WForwarderFailed == dirty /\ \E m \in alive : mem[m] /\ par[m] \in down
\* the root was handed over to an arriving peer, members in the tree
WHandover == 1 \in alive /\ inT[1] /\ par[2] = 1 /\ \E m \in alive : mem[m]
\* a JOIN absorbed by a peer already in the tree (routing stops)
WAbsorbed == \E x \in Peer : Cardinality(ch[x]) >= 2
\* a clean publication done with every member it had still a member and delivered
WDelivered == \E e \in published :
                  /\ clean[e] /\ Done(e) /\ Cardinality(activeAt[e]) >= 2
                  /\ \A m \in activeAt[e] : got[e][m] = 1
\* a clean publication whose copies are all processed
WCleanDone == \E e \in published : clean[e] /\ Done(e) /\ activeAt[e] # {}
=============================================================================
