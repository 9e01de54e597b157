--------------------------- MODULE MCKyraRouting ----------------------------
(* Five servers in two cliques, keys 0..5, T = 2 routing trees (the layout  *)
(* of Fig. 4 in miniature; docs/tla.md draws it):                          *)
(*   clique A = {1, 2}:    Z1 = 0..2, Z2 = 3..5                             *)
(*   clique B = {3, 4, 5}: Z3 = 0..1, Z4 = 2..3, Z5 = 4..5                  *)
(*   Y1 = 0..2: members {1, 3, 4}, MST 1 - 4 - 3                             *)
(*   Y2 = 3..5: members {2, 4, 5}, MST 5 - 2 - 4                             *)
(* s1 at server 3 on keys {1, 2} (proxies 3 and 4), s2 at server 2 on key   *)
(* {2} (proxy 1); s2 may be unsubscribed; e1 published at 1 with key 1      *)
(* (matches s1:                                                             *)
(* route 1 -> 4 -> 3 through relay 4, another proxy of s1), e2 published at *)
(* 5 with key 2 (matches both: 5 -> 4, proxy of s1, which notifies 3 and    *)
(* routes to 1, proxy of s2, which notifies 2).                            *)
EXTENDS KyraRouting

MCServers == 1..5
MCKeys == 0..5
MCClique == <<{1, 2}, {1, 2}, {3, 4, 5}, {3, 4, 5}, {3, 4, 5}>>
MCZone == <<{0, 1, 2}, {3, 4, 5}, {0, 1}, {2, 3}, {4, 5}>>
MCY == <<{0, 1, 2}, {3, 4, 5}>>
MCAdj == << <<{4}, {}, {4}, {1, 3}, {}>>,
            <<{}, {4, 5}, {}, {2}, {2}>> >>
MCOrig == <<3, 2>>
MCExt == <<{1, 2}, {2}>>
MCPub == <<1, 5>>
MCKey == <<1, 2>>

(* Witnesses that the race happens (tla --count-satisfying W...; counts in docs/tla.md). *)
\* an event is routed while a SubPropagate of a started subscription is in flight
WRace == /\ \E m \in msgs : m.t \in {"zone", "route"}
         /\ \E m \in msgs : m.t = "prop"
\* a subscription started but not installed at the publication was delivered all the same
WMayDelivered == \E e \in published : \E s \in subAt[e] \ activeAt[e] : dcount[<<e, s>>] = 1
\* ... or not: the event is done and it was not (a MAY delivery, not a miss)
WMayMissed == \E e \in published : EventDone(e) /\
                 \E s \in subAt[e] \ activeAt[e] : Match(s, e) /\ dcount[<<e, s>>] = 0
\* both events done, delivered to every matching subscription installed before
WAllDelivered == /\ published = Events /\ \A e \in Events : EventDone(e)
                 /\ \A e \in Events : activeAt[e] = Subs
                 /\ \A e \in Events : \A s \in Subs : Match(s, e) => dcount[<<e, s>>] = 1
\* a publication after an unsubscription
WAfterUnsub == \E e \in published : unsubbed # {} /\ unsubbed \cap subAt[e] = {}
=============================================================================
