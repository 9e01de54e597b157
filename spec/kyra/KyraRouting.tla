---------------------------- MODULE KyraRouting ----------------------------
(***************************************************************************)
(* Kyra's event routing (Cao & Singh, INFOCOM 2004, §II.A, §III) with       *)
(* subscription propagation racing publications (decision K-D12 in         *)
(* docs/kyra.md).                                                          *)
(*                                                                         *)
(* The content space is reduced to the keys of the partition attribute     *)
(* (decision K-D1): a subscription is its extent Ext[s], a set of keys     *)
(* (K-D4, K-D6), and matches an event e iff Key[e] \in Ext[s]. Servers are *)
(* grouped into cliques (§III.A); the zones Zone[z] of a clique's members  *)
(* partition the keys (local partition, §III); the tree zones Y[t]         *)
(* partition them too (global partition); a server is a member of every    *)
(* tree whose zone overlaps its own, and Adj[t] is tree t's MST over its   *)
(* members (§III.A; the MST itself is checked in Python, here it is given).*)
(*                                                                         *)
(* - Subscribe: the original server moves s to every clique member whose  *)
(*   zone overlaps it (SubMove, §III "subscription movement"); the proxy z *)
(*   stores s and broadcasts the entry s \cap Z_z \cap Y_t on each tree t  *)
(*   where it is not empty (SubPropagate, K-D4); every server records the  *)
(*   entry under the direction it came from and passes it on (§II.A).     *)
(* - Publish: the publisher sends e to the member of its clique whose zone *)
(*   covers Key[e] (EventToZone, §III), which routes it on the tree whose  *)
(*   zone covers Key[e]: a server reached delivers as proxy only if its    *)
(*   zone covers Key[e], then forwards e toward every neighbour with an    *)
(*   admitting entry, never back (EventRoute, §II.A). The proxy notifies   *)
(*   each original server (Notify, K-D5); none when it is the original.    *)
(* - A subscription is installed once every SubMove and SubPropagate it    *)
(*   caused has arrived (K-D12); an event must reach the subscriptions     *)
(*   installed before its publication, may reach those started before it, *)
(*   and must not reach the others (the seq rule of K-D12, docs/design.md#active *)
(*   "Active"). Unsubscription happens at quiescence, as the driver does.  *)
(*                                                                         *)
(* Messages form a set (every message carries its sender, so two distinct  *)
(* sends never merge): any order of delivery is explored.                  *)
(* ZoneCheck = FALSE (mutant): a relay that is another proxy of the        *)
(* subscription delivers too. EarlyInstall = TRUE (mutant): a subscribe    *)
(* completes when its SubMoves arrive, not waiting for its SubPropagates.  *)
(* Reference: reference/kyra/system.py (subscribe, _on_sub_move,           *)
(* _on_propagate, publish, _route), reference/kyra/filters.py,             *)
(* reference/kyra/base.py (installed, active_for, deliver).                *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS Servers,      \* the servers (brokers)
          Keys,         \* the keys of the partition attribute
          Clique,       \* Clique[n]: the members of n's clique (n included)
          Zone,         \* Zone[n]: n's zone in its clique's local partition
          NTrees,       \* T, the number of routing trees
          Y,            \* Y[t]: tree t's zone in the global partition
          Adj,          \* Adj[t][n]: n's neighbours on tree t
          Orig, Ext,    \* subscription s: original server, extent (keys)
          Pub, Key,     \* event e: publishing server, key
          NSubs, NEvents,
          Unsubs,       \* the subscriptions that may be unsubscribed (at quiescence)
          ZoneCheck,    \* a proxy delivers only when its zone covers the key (K-D4)
          EarlyInstall, \* MUTANT: installed once stored at the proxies
          Bug           \* "none"; MUTANTS: "NoSeqCheck" a proxy delivers to every stored
                        \* matching subscription, started before the publication or not;
                        \* "NoRelay" a server records an entry but does not pass it on;
                        \* "NoProxyField" the proxy's first SubPropagate leaves its proxy unset

Trees == 1..NTrees
Subs == 1..NSubs
Events == 1..NEvents

Members(t) == {n \in Servers : Zone[n] \cap Y[t] # {}}           \* §III: trees one joins
Proxies(s) == {z \in Clique[Orig[s]] : Ext[s] \cap Zone[z] # {}}  \* §III: movement
Entry(s, z, t) == Ext[s] \cap Zone[z] \cap Y[t]                    \* K-D4: s \cap Z_z \cap Y_t
Match(s, e) == Key[e] \in Ext[s]
CoveringServer(n, k) == CHOOSE z \in Clique[n] : k \in Zone[z]
CoveringTree(k) == CHOOSE t \in Trees : k \in Y[t]
None == 0                                                          \* no server
Min2(a, b) == IF a < b THEN a ELSE b

\* t: SubMove "move", SubPropagate "prop", EventToZone "zone", EventRoute "route",
\* Notify "notify"; p: the proxy of a propagated entry; subs: the ids a Notify carries
Msg(t, from, to, tree, s, p, e, subs) ==
    [t |-> t, from |-> from, to |-> to, tree |-> tree, s |-> s, p |-> p, e |-> e, subs |-> subs]

VARIABLES started, unsubbed, proxy, tab, msgs, published, subAt, activeAt, dcount
vars == <<started, unsubbed, proxy, tab, msgs, published, subAt, activeAt, dcount>>

\* the constants are a Kyra layout: zones and tree zones partition the keys, trees are
\* undirected, span exactly their members, and have |members| - 1 edges
LayoutOK ==
    /\ \A n \in Servers : n \in Clique[n] /\ \A z \in Clique[n] : Clique[z] = Clique[n]
    /\ \A n \in Servers : \A k \in Keys : Cardinality({z \in Clique[n] : k \in Zone[z]}) = 1
    /\ \A k \in Keys : Cardinality({t \in Trees : k \in Y[t]}) = 1
    /\ \A t \in Trees : \A n \in Servers :
        /\ Adj[t][n] \subseteq Members(t)
        /\ n \notin Members(t) => Adj[t][n] = {}
        /\ \A x \in Adj[t][n] : n \in Adj[t][x]
    /\ \A t \in Trees : 2 * (Cardinality(Members(t)) - 1) =
                        Cardinality({q \in Servers \X Servers : q[2] \in Adj[t][q[1]]})
ASSUME LayoutOK

\* K-D12: installed when nothing it caused is in flight (EarlyInstall: SubMoves only)
Installed(s) ==
    /\ s \in started /\ s \notin unsubbed
    /\ ~\E m \in msgs : m.s = s /\ (m.t = "move" \/ (m.t = "prop" /\ ~EarlyInstall))

Init ==
    /\ LayoutOK           \* (tla-checker does not check ASSUME: a bad layout has no state)
    /\ started = {}
    /\ unsubbed = {}
    /\ proxy = [n \in Servers |-> {}]
    /\ tab = [t \in Trees |-> [n \in Servers |-> {}]]   \* entries <<direction, s, proxy>>
    /\ msgs = {}
    /\ published = {}
    /\ subAt = [e \in Events |-> {}]
    /\ activeAt = [e \in Events |-> {}]
    /\ dcount = [q \in Events \X Subs |-> 0]

\* §III subscription movement: to every clique member whose zone overlaps s
Subscribe(s) ==
    /\ s \notin started
    /\ started' = started \cup {s}
    /\ msgs' = msgs \cup {Msg("move", Orig[s], z, 0, s, 0, 0, {}) : z \in Proxies(s)}
    /\ UNCHANGED <<unsubbed, proxy, tab, published, subAt, activeAt, dcount>>

\* the proxy stores s \cap Z_z and broadcasts its non-empty entries on the trees it joins
RecvMove(m) ==
    /\ m.t = "move"
    /\ LET z == m.to
           s == m.s
       IN /\ proxy' = [proxy EXCEPT ![z] = @ \cup {s}]
          /\ msgs' = (msgs \ {m}) \cup
                {Msg("prop", z, n, t, s, IF Bug = "NoProxyField" THEN None ELSE z, 0, {}) :
                    <<t, n>> \in {q \in Trees \X Servers :
                                    Entry(s, z, q[1]) # {} /\ q[2] \in Adj[q[1]][z]}}
    /\ UNCHANGED <<started, unsubbed, tab, published, subAt, activeAt, dcount>>

\* §II.A: record the entry under the direction it came from, pass it on (never back)
RecvProp(m) ==
    /\ m.t = "prop"
    /\ tab' = [tab EXCEPT ![m.tree][m.to] = @ \cup {<<m.from, m.s, m.p>>}]
    /\ msgs' = (msgs \ {m}) \cup
               {Msg("prop", m.to, n, m.tree, m.s, m.p, 0, {}) :
                   n \in IF Bug = "NoRelay" THEN {} ELSE Adj[m.tree][m.to] \ {m.from}}
    /\ UNCHANGED <<started, unsubbed, proxy, published, subAt, activeAt, dcount>>

\* §III: to the member of the publisher's clique whose zone covers the key
Publish(e) ==
    /\ e \notin published
    /\ published' = published \cup {e}
    /\ subAt' = [subAt EXCEPT ![e] = started \ unsubbed]            \* seq < publish seq
    /\ activeAt' = [activeAt EXCEPT ![e] = {s \in Subs : Installed(s)}]
    /\ msgs' = msgs \cup {Msg("zone", Pub[e], CoveringServer(Pub[e], Key[e]),
                              CoveringTree(Key[e]), 0, 0, e, {})}
    /\ UNCHANGED <<started, unsubbed, proxy, tab, dcount>>

Admits(en, e, t) == Key[e] \in Entry(en[2], en[3], t)

\* §III + §II.A at server y on tree t: deliver as proxy if y's zone covers the key, notify
\* the other original servers (K-D5), forward toward admitting directions except `came`.
Route(m) ==
    /\ m.t \in {"zone", "route"}
    /\ LET y == m.to
           t == m.tree
           e == m.e
           came == IF m.t = "zone" THEN None ELSE m.from
           covers == ~ZoneCheck \/ Key[e] \in Zone[y]
           seqOK(s) == Bug = "NoSeqCheck" \/ s \in subAt[e]           \* K-D12 seq rule
           hits == IF covers THEN {s \in proxy[y] : Match(s, e) /\ seqOK(s)} ELSE {}
           here == {s \in hits : Orig[s] = y /\ s \notin unsubbed}
           nexts == {n \in Adj[t][y] \ {came} : \E en \in tab[t][y] : en[1] = n /\ Admits(en, e, t)}
       IN /\ dcount' = [q \in DOMAIN dcount |->
                          IF q[1] = e /\ q[2] \in here THEN Min2(2, dcount[q] + 1) ELSE dcount[q]]
          /\ msgs' = (msgs \ {m})
                     \cup {Msg("notify", y, o, 0, 0, 0, e, {s \in hits : Orig[s] = o}) :
                             o \in {Orig[s] : s \in hits} \ {y}}
                     \cup {Msg("route", y, n, t, 0, 0, e, {}) : n \in nexts}
    /\ UNCHANGED <<started, unsubbed, proxy, tab, published, subAt, activeAt>>

\* the last leg: the original server delivers what is still subscribed
RecvNotify(m) ==
    /\ m.t = "notify"
    /\ dcount' = [q \in DOMAIN dcount |->
                    IF q[1] = m.e /\ q[2] \in m.subs /\ q[2] \notin unsubbed
                    THEN Min2(2, dcount[q] + 1) ELSE dcount[q]]
    /\ msgs' = msgs \ {m}
    /\ UNCHANGED <<started, unsubbed, proxy, tab, published, subAt, activeAt>>

\* at quiescence (the driver's rule): the proxies and every table forget s
Unsubscribe(s) ==
    /\ s \in Unsubs /\ s \in started /\ s \notin unsubbed
    /\ msgs = {}
    /\ unsubbed' = unsubbed \cup {s}
    /\ proxy' = [n \in Servers |-> proxy[n] \ {s}]
    /\ tab' = [t \in Trees |-> [n \in Servers |-> {en \in tab[t][n] : en[2] # s}]]
    /\ UNCHANGED <<started, msgs, published, subAt, activeAt, dcount>>

Next ==
    \/ \E s \in Subs : Subscribe(s) \/ Unsubscribe(s)
    \/ \E e \in Events : Publish(e)
    \/ \E m \in msgs : RecvMove(m) \/ RecvProp(m) \/ Route(m) \/ RecvNotify(m)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK ==
    /\ started \subseteq Subs /\ unsubbed \subseteq started /\ published \subseteq Events
    /\ \A n \in Servers : proxy[n] \subseteq Subs
    /\ \A t \in Trees : \A n \in Servers : tab[t][n] \subseteq Servers \X Subs \X Servers
    /\ \A q \in DOMAIN dcount : dcount[q] \in 0..2


EventDone(e) == ~\E m \in msgs : m.e = e

\* no (event, subscription) pair is delivered twice
NoDuplicate == \A q \in Events \X Subs : dcount[q] <= 1

\* once an event's messages are all processed, every subscription installed before its
\* publication and matching it has been delivered
NothingMissed ==
    \A e \in published : EventDone(e) =>
        \A s \in activeAt[e] : Match(s, e) => dcount[<<e, s>>] >= 1

\* only matching subscriptions started (and not unsubscribed) before the publication
NoSpurious ==
    \A q \in Events \X Subs : dcount[q] >= 1 => Match(q[2], q[1]) /\ q[2] \in subAt[q[1]]

\* at quiescence every live subscription's entries are recorded at every other member of each
\* tree where they are not empty (what NothingMissed rests on)
TablesComplete ==
    msgs = {} =>
        \A s \in started \ unsubbed : \A z \in Proxies(s) : \A t \in Trees :
            (Entry(s, z, t) # {} /\ z \in Members(t)) =>
                \A n \in Members(t) \ {z} : \E d \in Adj[t][n] : <<d, s, z>> \in tab[t][n]
=============================================================================
