------------------------------ MODULE TwoDTree ------------------------------
(***************************************************************************)
(* The distributed, growth-only 2d-tree of the thesis (§3.2.1–3.2.2,        *)
(* Programs 3.1–3.3) with the race fix of the reference (erratum E4,       *)
(* decision D-SPLIT in docs/thesis.md).                             *)
(*                                                                         *)
(* A tree node is <<level, index>>; its zone is the cells p of the finest  *)
(* grid with p \div 2^(R - level) = index (the alternation of x and y      *)
(* splits is irrelevant to the protocol and abstracted into one order).    *)
(* Subscriptions are installed by insert messages sent to a guessed level  *)
(* (RndLeafProbe): they jump back to level l/2 at nodes that do not exist, *)
(* are held at splitting nodes, and travel down through the routing        *)
(* tables to the leaf holding the point. Leaves store the points and       *)
(* split when their load exceeds Cap;                                       *)
(* a split hands the points to the children by TransferSub messages;       *)
(* LeafNodeUpdateMessages climb to the root and may be lost or reordered;  *)
(* publication probes are sent to a guessed level, jump back to level l/2  *)
(* at nodes that do not exist, are deduplicated per event, and are         *)
(* forwarded through LeafNodeRoutingTables. Messages form a set: any order *)
(* of delivery is explored.                                                *)
(*                                                                         *)
(* Program 3.1 as written (Hold = Fifo = FALSE, EarlyUpdate = TRUE): the   *)
(* split node becomes internal at once and sends its LeafUpdate at once.   *)
(* The reference (Hold = TRUE, EarlyUpdate = FALSE): the node is           *)
(* `splitting` until both children confirm their creation, holds probes    *)
(* and inserts meanwhile, and only then sends the update; no channel is    *)
(* assumed FIFO. Fifo = TRUE, Hold = FALSE: the node is internal at once   *)
(* and forwards at once, relying on FIFO channels (a message from a node   *)
(* to its child is not received before the TransferSub sent earlier on    *)
(* the same channel); the update still waits for the confirmations.        *)
(* Inherit: TransferSub carries the set of events already processed.       *)
(* Reference: reference/thesis/system.py (_split, _on_transfer_sub,               *)
(* _on_child_created, _on_leaf_update, _on_probe_pub), reference/thesis/lnrt.py.  *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS D,        \* maximum depth of the tree
          Cap,      \* capacity of every leaf
          Pt,       \* Pt[s]: the cell of subscription s, for s in 1..Len
          Region,   \* Region[e]: the cells an event e matches
          NSubs, NEvents,
          Hold,         \* a splitting node holds probes and inserts (reference, D-SPLIT)
          EarlyUpdate,  \* LeafUpdate sent at the split (Program 3.1), not after confirmation
          Fifo,         \* per-channel FIFO: no forward overtakes the TransferSub before it
          Inherit,      \* TransferSub carries the parent's set of processed events
          NoCap,        \* MUTANT: no maximum depth
          Merge,        \* MUTANT: sibling leaves below capacity merge back
          Bug           \* "none"; MUTANTS: "KeepSplitRecord" a LeafUpdate adds the children
                        \* and keeps the split node's record; "JumpBackNoShift" the jump back
                        \* keeps the index of level l at level l/2

R == D + 1                              \* the grid is fine enough to split below D
Subs == 1..NSubs
Events == 1..NEvents
Pow2(k) == IF k = 0 THEN 1 ELSE IF k = 1 THEN 2 ELSE IF k = 2 THEN 4 ELSE IF k = 3 THEN 8
           ELSE 16
NodesAt(lv) == {<<lv, i>> : i \in 0..(Pow2(lv) - 1)}
AllNodes == UNION {NodesAt(lv) : lv \in 0..R}
Root == <<0, 0>>
Contains(n, p) == p \div Pow2(R - n[1]) = n[2]
Overlaps(n, e) == \E p \in Region[e] : Contains(n, p)
Kids(n) == {<<n[1] + 1, 2 * n[2]>>, <<n[1] + 1, 2 * n[2] + 1>>}
Parent(n) == <<n[1] - 1, n[2] \div 2>>
JumpBack(n) == IF Bug = "JumpBackNoShift" THEN <<n[1] \div 2, n[2]>>
               ELSE <<n[1] \div 2, n[2] \div Pow2(n[1] - n[1] \div 2)>>
Min2(a, b) == IF a < b THEN a ELSE b

NoNode == <<R + 1, 0>>                  \* the sender of a message not sent by a tree node
\* the sender of a message from n to r: it matters only to the FIFO rule, only between a node
\* and its child
Fwd(n, r) == IF Fifo /\ r \in Kids(n) THEN n ELSE NoNode
Msg(t, to, from, e, subs, sn) == [t |-> t, to |-> to, from |-> from, e |-> e, subs |-> subs, seen |-> sn]
Probe(n, e) == Msg("probe", n, NoNode, e, {}, {})

VARIABLES exists, lnrt, store, seen, pending, held, msgs,
          installed, published, activeAt, dcount, ever, inflight, heldIns
vars == <<exists, lnrt, store, seen, pending, held, msgs,
          installed, published, activeAt, dcount, ever, inflight, heldIns>>

Leaf(n) == n \in exists /\ lnrt[n] = {}

\* FIFO (Fifo = TRUE): a message from n to its child is not received while the TransferSub n
\* sent earlier to that child is in flight. Only this pair of messages is ordered, so the
\* model allows every behaviour of fully FIFO channels and more.
FifoOK(m) == ~Fifo \/ ~\E t \in msgs : t.t = "transfer" /\ t.to = m.to /\ t.from = m.from

Init ==
    /\ exists = {Root}
    /\ lnrt = [n \in AllNodes |-> {}]
    /\ store = [n \in AllNodes |-> {}]
    /\ seen = [n \in AllNodes |-> {}]
    /\ pending = [n \in AllNodes |-> 0]
    /\ held = [n \in AllNodes |-> {}]
    /\ msgs = {}
    /\ installed = {}
    /\ published = {}
    /\ activeAt = [e \in Events |-> {}]
    /\ dcount = [p \in Events \X Subs |-> 0]
    /\ ever = {Root}
    /\ inflight = {}
    /\ heldIns = [n \in AllNodes |-> {}]

\* Installation (RndLeafProbe, Program 3.2): the probe goes to the node of a guessed level lv
\* whose zone holds the point, jumps back to level lv/2 where that node does not exist, and
\* travels down through the routing tables while nodes split; a splitting node holds it
\* (D-SPLIT). The guess is 0 or D: with D = 2 a guess of 2 that jumps back passes through
\* level 1 (with every guess 0..D the model has 70,225 states, 42 s, and holds too). The
\* ProbeSub and its InsertSub are one message here: the reference's InsertSub follows the
\* tree down in the same way when the leaf found has split since. A subscription counts as
\* installed once stored, as in the reference (decision D-OPS).
Install(s) ==
    /\ s \notin installed /\ s \notin inflight
    /\ ~\E m \in msgs : m.t = "insert" /\ m.e = s
    /\ \E lv \in {0, D} :
        msgs' = msgs \cup {Msg("insert", <<lv, Pt[s] \div Pow2(R - lv)>>, NoNode, s, {}, {})}
    /\ inflight' = inflight \cup {s}
    /\ UNCHANGED <<exists, lnrt, store, seen, pending, held, installed, published, activeAt,
                   dcount, ever, heldIns>>

RecvInsert(m) ==
    /\ m.t = "insert" /\ FifoOK(m)
    /\ LET n == m.to
           s == m.e
       IN IF n \notin exists
          THEN /\ msgs' = (msgs \ {m}) \cup {Msg("insert", JumpBack(n), NoNode, s, {}, {})}
               /\ UNCHANGED <<store, installed, inflight, heldIns>>
          ELSE IF Hold /\ pending[n] > 0
          THEN /\ heldIns' = [heldIns EXCEPT ![n] = @ \cup {s}]
               /\ msgs' = msgs \ {m}
               /\ UNCHANGED <<store, installed, inflight>>
          ELSE IF Leaf(n)
          THEN /\ store' = [store EXCEPT ![n] = @ \cup {s}]
               /\ installed' = installed \cup {s}
               /\ inflight' = inflight \ {s}
               /\ msgs' = msgs \ {m}
               /\ UNCHANGED heldIns
          ELSE /\ msgs' = (msgs \ {m}) \cup
                          {Msg("insert", r, Fwd(n, r), s, {}, {}) : r \in {q \in lnrt[n] : Contains(q, Pt[s])}}
               /\ UNCHANGED <<store, installed, inflight, heldIns>>
    /\ UNCHANGED <<exists, lnrt, seen, pending, held, published, activeAt, dcount, ever>>

\* Unsubscription waits until no publication is in flight (decision D-OPS), then removes the
\* point from the leaf that holds it.
Unsubscribe(s) ==
    /\ s \in installed
    /\ ~\E m \in msgs : m.t \in {"probe", "insert"}
    /\ \A n \in DOMAIN held : held[n] = {} /\ heldIns[n] = {}     \* DOMAIN held = AllNodes
    /\ \E n \in exists :
        /\ Leaf(n) /\ s \in store[n]
        /\ store' = [store EXCEPT ![n] = @ \ {s}]
    /\ installed' = installed \ {s}
    /\ UNCHANGED <<exists, lnrt, seen, pending, held, msgs, published, activeAt, dcount, ever, inflight, heldIns>>

Split(n) ==
    /\ Leaf(n) /\ pending[n] = 0
    /\ Cardinality(store[n]) > Cap
    /\ n[1] < R /\ (n[1] < D \/ NoCap)
    /\ lnrt' = [lnrt EXCEPT ![n] = Kids(n)]
    /\ store' = [store EXCEPT ![n] = {}]
    /\ LET transfers == {Msg("transfer", c, n, 0, {s \in store[n] : Contains(c, Pt[s])},
                             IF Inherit THEN seen[n] ELSE {}) : c \in Kids(n)}
           update == IF EarlyUpdate /\ n # Root THEN {Msg("update", Parent(n), n, 0, {}, {})} ELSE {}
       IN msgs' = msgs \cup transfers \cup update
    /\ pending' = [pending EXCEPT ![n] = IF EarlyUpdate THEN 0 ELSE 2]
    /\ UNCHANGED <<exists, seen, held, installed, published, activeAt, dcount, ever, inflight, heldIns>>

RecvTransfer(m) ==
    /\ m.t = "transfer"
    /\ exists' = exists \cup {m.to}
    /\ ever' = ever \cup {m.to}
    /\ store' = [store EXCEPT ![m.to] = m.subs]
    /\ seen' = [seen EXCEPT ![m.to] = m.seen]
    /\ msgs' = (msgs \ {m}) \cup
               (IF EarlyUpdate THEN {} ELSE {Msg("created", m.from, m.to, 0, {}, {})})
    /\ UNCHANGED <<lnrt, pending, held, installed, published, activeAt, dcount, inflight, heldIns>>

RecvCreated(m) ==
    /\ m.t = "created"
    /\ LET n == m.to
           done == pending[n] = 1
       IN /\ pending' = [pending EXCEPT ![n] = @ - 1]
          /\ held' = IF done THEN [held EXCEPT ![n] = {}] ELSE held
          /\ heldIns' = IF done THEN [heldIns EXCEPT ![n] = {}] ELSE heldIns
          /\ msgs' = (msgs \ {m})
                     \cup (IF done /\ n # Root THEN {Msg("update", Parent(n), n, 0, {}, {})} ELSE {})
                     \cup (IF done THEN {Probe(n, e) : e \in held[n]} ELSE {})
                     \cup (IF done THEN {Msg("insert", n, NoNode, s, {}, {}) : s \in heldIns[n]}
                           ELSE {})
    /\ UNCHANGED <<exists, lnrt, store, seen, installed, published, activeAt, dcount, ever,
                   inflight>>

\* LeafNodeUpdateMessage: replace the record of the split node by its children, or ignore the
\* update when the table does not hold that record (decision D-LNRT); forward to the parent.
RecvUpdate(m) ==
    /\ m.t = "update"
    /\ LET a == m.to
           x == m.from
       IN /\ lnrt' = IF Bug = "KeepSplitRecord" /\ x \in lnrt[a]
                    THEN [lnrt EXCEPT ![a] = @ \cup Kids(x)]
                    ELSE IF x \in lnrt[a] THEN [lnrt EXCEPT ![a] = (@ \ {x}) \cup Kids(x)] ELSE lnrt
          /\ msgs' = (msgs \ {m}) \cup
                     (IF a # Root THEN {Msg("update", Parent(a), x, 0, {}, {})} ELSE {})
    /\ UNCHANGED <<exists, store, seen, pending, held, installed, published, activeAt, dcount, ever, inflight, heldIns>>

LoseUpdate(m) ==
    /\ m.t = "update"
    /\ msgs' = msgs \ {m}
    /\ UNCHANGED <<exists, lnrt, store, seen, pending, held, installed, published, activeAt,
                   dcount, ever, inflight, heldIns>>

RecvProbe(m) ==
    /\ m.t = "probe" /\ FifoOK(m)
    /\ LET n == m.to
           e == m.e
           hits == {s \in store[n] : s \in activeAt[e] /\ Pt[s] \in Region[e]}
       IN IF n \notin exists
          THEN \* guessing too far: jump back to level l/2 (Program 3.3, line 53)
               /\ msgs' = (msgs \ {m}) \cup {Probe(JumpBack(n), e)}
               /\ UNCHANGED <<seen, held, dcount>>
          ELSE IF Hold /\ pending[n] > 0
          THEN /\ held' = [held EXCEPT ![n] = @ \cup {e}]
               /\ msgs' = msgs \ {m}
               /\ UNCHANGED <<seen, dcount>>
          ELSE IF e \in seen[n]
          THEN /\ msgs' = msgs \ {m}     \* dedup per event (§3.4.1)
               /\ UNCHANGED <<seen, held, dcount>>
          ELSE /\ seen' = [seen EXCEPT ![n] = @ \cup {e}]
               /\ UNCHANGED held
               /\ IF Leaf(n)
                  THEN /\ dcount' = [p \in DOMAIN dcount |->
                                       IF p[1] = e /\ p[2] \in hits
                                       THEN Min2(2, dcount[p] + 1) ELSE dcount[p]]
                       /\ msgs' = msgs \ {m}
                  ELSE /\ msgs' = (msgs \ {m}) \cup
                                  {Msg("probe", r, Fwd(n, r), e, {}, {}) : r \in {q \in lnrt[n] : Overlaps(q, e)}}
                       /\ UNCHANGED dcount
    /\ UNCHANGED <<exists, lnrt, store, pending, installed, published, activeAt, ever, inflight, heldIns>>

\* RndRegionProbe with p = 0 above a guessed level L: every node of level L overlapping the
\* target area, whether it exists or not (Program 3.3).
Publish(e) ==
    /\ e \notin published
    /\ published' = published \cup {e}
    /\ activeAt' = [activeAt EXCEPT ![e] = installed]
    /\ \E lv \in 0..D :
        msgs' = msgs \cup {Probe(n, e) : n \in {q \in NodesAt(lv) : Overlaps(q, e)}}
    /\ UNCHANGED <<exists, lnrt, store, seen, pending, held, installed, dcount, ever, inflight, heldIns>>

\* MUTANT (Merge = TRUE): leaves merged back below capacity, which §3.2.2 rules out.
MergeLeaves(n) ==
    /\ Merge
    /\ n \in exists /\ lnrt[n] = Kids(n) /\ pending[n] = 0
    /\ \A c \in Kids(n) : Leaf(c) /\ pending[c] = 0
    /\ Cardinality(UNION {store[c] : c \in Kids(n)}) < Cap      \* below capacity, as the Python mutant
    /\ store' = [store EXCEPT ![n] = UNION {store[c] : c \in Kids(n)}]
    /\ lnrt' = [lnrt EXCEPT ![n] = {}]
    /\ exists' = exists \ Kids(n)
    /\ UNCHANGED <<seen, pending, held, msgs, installed, published, activeAt, dcount, ever, inflight, heldIns>>

Next ==
    \/ \E s \in Subs : Install(s) \/ Unsubscribe(s)
    \/ \E n \in exists : Split(n) \/ MergeLeaves(n)
    \/ \E e \in Events : Publish(e)
    \/ \E m \in msgs : RecvTransfer(m) \/ RecvCreated(m) \/ RecvUpdate(m) \/ LoseUpdate(m)
                       \/ RecvProbe(m) \/ RecvInsert(m)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
IsNode(n) == n[1] \in 0..R /\ n[2] \in 0..(Pow2(n[1]) - 1)

TypeOK ==
    /\ \A n \in exists : IsNode(n)
    /\ installed \subseteq Subs /\ published \subseteq Events
    /\ \A m \in msgs : IsNode(m.to)
    /\ \A n \in DOMAIN lnrt : (\A r \in lnrt[n] : IsNode(r)) /\ store[n] \subseteq Subs

Done(e) == /\ ~\E m \in msgs : m.t = "probe" /\ m.e = e
           /\ \A n \in DOMAIN held : e \notin held[n]

\* every subscription active when e was published and matching e is delivered once e's
\* probes are all processed
NoMissedMatch ==
    \A e \in published : Done(e) =>
        \A s \in activeAt[e] : Pt[s] \in Region[e] => dcount[<<e, s>>] >= 1

SingleDelivery == \A p \in Events \X Subs : dcount[p] <= 1

BoundedDepth == \A n \in exists : n[1] <= D

GrowthOnly == ever \subseteq exists

\* decision D-LNRT: once a node's split is confirmed, its routing table names existing nodes only
\* and their zones partition the node's zone (so a probe is never sent to a missing node)
Zone(n) == {p \in 0..(Pow2(R) - 1) : Contains(n, p)}
LnrtSound ==
    \A n \in exists : (pending[n] = 0 /\ lnrt[n] # {}) =>
        /\ lnrt[n] \subseteq exists
        /\ \A p \in Zone(n) : Cardinality({r \in lnrt[n] : Contains(r, p)}) = 1
=============================================================================
