------------------------------- MODULE Scribe -------------------------------
(***************************************************************************)
(* One Scribe group (Castro et al., IEEE JSAC 2002) as Tam, Azimi and      *)
(* Jacobsen use it (Tam et al. §3.3): the tree of one key, rooted at the     *)
(* key's home, under member join and leave, peer arrival and peer failure. *)
(* Peers have positive ids, the key is 0: the home is the smallest live id. Pastry  *)
(* routing is abstracted to a prefix-like route that strictly approaches   *)
(* the key: the next hop of p is the largest live q <= p \div 2, else the  *)
(* home, so routes of different peers merge (6 -> 3 -> 1, 5 -> 2 -> 1).    *)
(* Messages travel on per-channel FIFO queues (Scribe runs over TCP; the   *)
(* reference schedules a pair's hops with one fixed latency). A            *)
(* publication enters at the root (the route to the root is one step; the  *)
(* reference counts its hops, decision T11) and goes down every tree edge. *)
(* Repair is the reference's (decision T12): on a failure the group is     *)
(* rebuilt, its surviving members re-joining along the current routes; a   *)
(* rebuild starts a new epoch and older messages are dropped (the          *)
(* reference needs no epoch: D-OPS lets everything in flight finish before *)
(* a failure). A peer arriving as the key's new home takes the root over   *)
(* and the old root becomes its child (T12).                               *)
(* Reference: reference/overlay/scribe.py (join, _on_join, leave, _prune,  *)
(* _on_leave, _multicast, peer_joined, peers_removed, check).              *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS Peer,       \* the peers' ids (positive); the key is 0
          Late,       \* peers that are not in the ring at first and may arrive
          Cand,       \* peers that may subscribe (each joins the group at most once)
          Fallible,   \* peers that may fail
          MaxFail,    \* at most this many peers fail
          Pubs,       \* publications 1..Pubs
          Repair,     \* "rebuild" (decision T12); MUTANT "none": a failed peer's state vanishes
          Fifo,       \* per-channel FIFO; MUTANT FALSE: any message of a channel may overtake
          Discard,    \* a rebuild discards the old tree's messages in flight (an epoch check);
                      \* MUTANT FALSE: they are received and forwarded in the new tree
          Bug         \* "none"; MUTANTS: "MembersOnlyForward" a forwarder that is not a member
                      \* drops a multicast; "HandoverSwap" the arriving home takes the old
                      \* root's parent (the key, 0) as its child instead of the old root

Pub == 1..Pubs
Home(A) == CHOOSE h \in A : \A x \in A : h <= x
NextHop(p, A) == LET lower == {q \in A : q <= p \div 2}
                 IN IF lower = {} THEN Home(A) ELSE CHOOSE q \in lower : \A x \in lower : x <= q

VARIABLES alive,     \* live peers
          down,      \* peers that have failed (names are never reused)
          inT,       \* inT[p]: p holds state for the group (root, forwarder or member)
          par,       \* par[p]: p's parent, 0 at the root
          ch,        \* ch[p]: p's children table
          mem,       \* mem[p]: p is a member (subscribed)
          subd,      \* peers that have subscribed (once each)
          msgs,      \* messages in flight: [t, s (sender), d (receiver), e, ep, k]
          epoch,     \* rebuilds so far
          dirty,     \* a failure not yet repaired
          fails,     \* failures so far
          got,       \* got[e][p]: deliveries of publication e at p (capped at 2)
          published, \* publications made
          activeAt,  \* activeAt[e]: the members when e was published
          clean      \* clean[e]: e was published on a repaired tree and no peer failed since
vars == <<alive, down, inT, par, ch, mem, subd, msgs, epoch, dirty, fails, got, published,
          activeAt, clean>>

\* a control message (JOIN, LEAVE) carries its place k on its channel: per-channel FIFO (Scribe
\* runs over TCP; the reference gives a pair of peers one fixed latency)
Ctl(C, p) == {m \in C : m.t # "mc" /\ m.s = p[1] /\ m.d = p[2]}
NextK(C, p) == IF Ctl(C, p) = {} THEN 1
               ELSE 1 + CHOOSE k \in {m.k : m \in Ctl(C, p)} : \A m \in Ctl(C, p) : m.k <= k
\* send a control message of type t from p to its parent q (none when q = 0, at the root)
Tell(C, t, p, q) == IF q = 0 THEN C
                    ELSE C \cup {[t |-> t, s |-> p, d |-> q, e |-> 0, ep |-> epoch,
                                  k |-> NextK(C, <<p, q>>)]}
\* send publication e from p down to every peer of T
Down(C, e, p, T) == C \cup {[t |-> "mc", s |-> p, d |-> c, e |-> e, ep |-> epoch, k |-> 0] : c \in T}

\* nothing that changes the tree is in flight and every failure has been repaired
Repaired == /\ ~dirty
            /\ \A m \in msgs : m.t = "mc" \/ m.d \notin alive

Init ==
    /\ alive = Peer \ Late
    /\ down = {}
    /\ inT = [p \in Peer |-> FALSE]
    /\ par = [p \in Peer |-> 0]
    /\ ch = [p \in Peer |-> {}]
    /\ mem = [p \in Peer |-> FALSE]
    /\ subd = {}
    /\ msgs = {}
    /\ epoch = 0
    /\ dirty = FALSE
    /\ fails = 0
    /\ got = [e \in Pub |-> [p \in Peer |-> 0]]
    /\ published = {}
    /\ activeAt = [e \in Pub |-> {}]
    /\ clean = [e \in Pub |-> FALSE]

\* Scribe §2.2.1, scribe.py::join: a member joins; the home creates the group as its root
Subscribe(p) ==
    /\ p \in Cand /\ p \in alive /\ p \notin subd
    /\ subd' = subd \cup {p}
    /\ mem' = [mem EXCEPT ![p] = TRUE]
    /\ IF inT[p] \/ p = Home(alive)
       THEN /\ inT' = [inT EXCEPT ![p] = TRUE]
            /\ UNCHANGED <<par, msgs>>
       ELSE LET nh == NextHop(p, alive) IN
            /\ inT' = [inT EXCEPT ![p] = TRUE]
            /\ par' = [par EXCEPT ![p] = nh]
            /\ msgs' = Tell(msgs, "join", p, nh)
    /\ UNCHANGED <<alive, down, ch, epoch, dirty, fails, got, published, activeAt, clean>>

\* Scribe §2.2.2, scribe.py::leave/_prune: the member flag goes; a childless non-member is pruned
\* and tells its parent
Unsubscribe(p) ==
    /\ p \in alive /\ mem[p]
    /\ mem' = [mem EXCEPT ![p] = FALSE]
    /\ IF ch[p] = {}
       THEN /\ inT' = [inT EXCEPT ![p] = FALSE]
            /\ par' = [par EXCEPT ![p] = 0]
            /\ msgs' = Tell(msgs, "leave", p, par[p])
       ELSE UNCHANGED <<inT, par, msgs>>
    /\ UNCHANGED <<alive, down, ch, subd, epoch, dirty, fails, got, published, activeAt, clean>>

\* the publication is processed at the home (root): delivered there if a member, sent down the tree
Publish(e) ==
    /\ e \notin published
    /\ LET r == Home(alive) IN
       /\ published' = published \cup {e}
       /\ activeAt' = [activeAt EXCEPT ![e] = {m \in alive : mem[m]}]
       /\ clean' = [clean EXCEPT ![e] = Repaired]
       /\ got' = IF inT[r] /\ mem[r] THEN [got EXCEPT ![e][r] = 1] ELSE got
       /\ msgs' = IF inT[r] THEN Down(msgs, e, r, ch[r]) ELSE msgs
    /\ UNCHANGED <<alive, down, inT, par, ch, mem, subd, epoch, dirty, fails>>

\* m may be received: under FIFO a control message only when first on its channel
Can(m) == m \in msgs /\ (m.t = "mc" \/ ~Fifo \/ \A o \in Ctl(msgs, <<m.s, m.d>>) : m.k <= o.k)
\* ... it is for a live peer and of the current epoch
Live(m) == m.d \in alive /\ (~Discard \/ m.ep = epoch)
RecvFrame == UNCHANGED <<alive, down, mem, subd, epoch, dirty, fails, published, activeAt, clean>>

\* to a failed peer, or from before a rebuild: dropped
RecvDrop(m) ==
    /\ Can(m) /\ ~Live(m)
    /\ msgs' = msgs \ {m}
    /\ UNCHANGED <<inT, par, ch, got>> /\ RecvFrame

\* the first peer already in the tree absorbs a JOIN: routing stops (Tam et al. §3.3)
RecvJoinAbsorb(m) ==
    /\ Can(m) /\ Live(m) /\ m.t = "join"
    /\ inT[m.d]
    /\ ch' = [ch EXCEPT ![m.d] = @ \cup {m.s}]
    /\ msgs' = msgs \ {m}
    /\ UNCHANGED <<inT, par, got>> /\ RecvFrame

\* the home, not yet in the tree, becomes the root (scribe.py::_on_join)
RecvJoinRoot(m) ==
    /\ Can(m) /\ Live(m) /\ m.t = "join"
    /\ ~inT[m.d] /\ m.d = Home(alive)
    /\ inT' = [inT EXCEPT ![m.d] = TRUE]
    /\ ch' = [ch EXCEPT ![m.d] = {m.s}]
    /\ par' = [par EXCEPT ![m.d] = 0]
    /\ msgs' = msgs \ {m}
    /\ UNCHANGED got /\ RecvFrame

\* a peer on the route, not in the tree, becomes a forwarder and passes the JOIN on (Scribe §2.2.1)
RecvJoinForward(m) ==
    /\ Can(m) /\ Live(m) /\ m.t = "join"
    /\ m.d # Home(alive) /\ ~inT[m.d]
    /\ LET q == m.d
           nh == NextHop(q, alive)
       IN /\ inT' = [inT EXCEPT ![q] = TRUE]
          /\ par' = [par EXCEPT ![q] = nh]
          /\ ch' = [ch EXCEPT ![q] = @ \cup {m.s}]
          /\ msgs' = Tell(msgs \ {m}, "join", q, nh)
    /\ UNCHANGED got /\ RecvFrame

\* the child goes; a childless non-member prunes itself and tells its parent (Scribe §2.2.2)
RecvLeave(m) ==
    /\ Can(m) /\ Live(m) /\ m.t = "leave"
    /\ LET q == m.d
           prune == inT[q] /\ ch[q] \ {m.s} = {} /\ ~mem[q]
       IN /\ ch' = [ch EXCEPT ![q] = @ \ {m.s}]
          /\ inT' = [inT EXCEPT ![q] = @ /\ ~prune]
          /\ par' = [par EXCEPT ![q] = IF prune THEN 0 ELSE @]
          /\ msgs' = Tell(msgs \ {m}, "leave", q, IF prune THEN par[q] ELSE 0)
    /\ UNCHANGED got /\ RecvFrame

\* multicast: delivered at a member, sent down every tree edge (Tam et al. §3.3,
\* scribe.py::_multicast); a peer not in the tree drops it
RecvMc(m) ==
    /\ Can(m) /\ Live(m) /\ m.t = "mc"
    /\ LET q == m.d IN
       /\ got' = IF inT[q] /\ mem[q]
                 THEN [got EXCEPT ![m.e][q] = IF @ < 2 THEN @ + 1 ELSE 2] ELSE got
       /\ msgs' = IF inT[q] /\ (mem[q] \/ Bug # "MembersOnlyForward")
                  THEN Down(msgs \ {m}, m.e, q, ch[q]) ELSE msgs \ {m}
    /\ UNCHANGED <<inT, par, ch>> /\ RecvFrame

Recv(m) == \/ RecvDrop(m) \/ RecvJoinAbsorb(m) \/ RecvJoinRoot(m)
           \/ RecvJoinForward(m) \/ RecvLeave(m) \/ RecvMc(m)

\* a peer arrives; where it is the key's new home, the old root hands the root over and becomes
\* its child (decision T12, scribe.py::peer_joined)
Arrive(n) ==
    /\ n \in Late /\ n \notin alive /\ n \notin down
    /\ alive' = alive \cup {n}
    /\ LET r == Home(alive) IN
       IF n = Home(alive') /\ inT[r] /\ par[r] = 0
       THEN /\ inT' = [inT EXCEPT ![n] = TRUE]
            /\ ch' = [ch EXCEPT ![n] = {IF Bug = "HandoverSwap" THEN par[r] ELSE r}]
            /\ par' = [par EXCEPT ![r] = n]
       ELSE UNCHANGED <<inT, ch, par>>
    /\ UNCHANGED <<down, mem, subd, msgs, epoch, dirty, fails, got, published, activeAt, clean>>

\* a peer fails; its state is gone, its subscription ends (D-CHURN)
Fail(f) ==
    /\ f \in alive /\ f \in Fallible /\ fails < MaxFail /\ Cardinality(alive) > 1
    /\ alive' = alive \ {f}
    /\ down' = down \cup {f}
    /\ fails' = fails + 1
    /\ dirty' = TRUE
    /\ inT' = [inT EXCEPT ![f] = FALSE]
    /\ par' = [par EXCEPT ![f] = 0]
    /\ ch' = [ch EXCEPT ![f] = {}]
    /\ mem' = [mem EXCEPT ![f] = FALSE]
    /\ clean' = [e \in Pub |-> FALSE]
    /\ msgs' = {m \in msgs : m.d # f}  \* lost: their receipt would do nothing
    /\ UNCHANGED <<subd, epoch, got, published, activeAt>>

\* the failure is detected: the group is rebuilt (decision T12, scribe.py::peers_removed): all
\* state goes, every surviving member re-joins along the current routes, the home as the root
RebuildTree ==
    /\ dirty
    /\ dirty' = FALSE
    /\ IF Repair = "rebuild"
       THEN LET M == {m \in alive : mem[m]}
                h == Home(alive)
            IN /\ epoch' = epoch + 1
               /\ inT' = [p \in Peer |-> p \in M]
               /\ par' = [p \in Peer |-> IF p \in M /\ p # h THEN NextHop(p, alive) ELSE 0]
               /\ ch' = [p \in Peer |-> {}]
               \* the messages of the old tree are discarded (an epoch check, at once)
               /\ msgs' = (IF Discard THEN {} ELSE msgs)
                          \cup {[t |-> "join", s |-> m, d |-> NextHop(m, alive), e |-> 0,
                                 ep |-> epoch + 1, k |-> 1] : m \in M \ {h}}
       ELSE UNCHANGED <<epoch, inT, par, ch, msgs>>
    /\ UNCHANGED <<alive, down, mem, subd, fails, got, published, activeAt, clean>>

Next == \/ \E p \in Peer : Subscribe(p) \/ Unsubscribe(p) \/ Arrive(p) \/ Fail(p)
        \/ \E e \in Pub : Publish(e)
        \/ \E m \in msgs : Recv(m)
        \/ RebuildTree

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK == /\ alive \subseteq Peer /\ down \subseteq Peer /\ subd \subseteq Cand
          /\ \A p \in Peer : inT[p] \in BOOLEAN /\ par[p] \in Peer \cup {0} /\ ch[p] \subseteq Peer
          /\ \A e \in Pub : \A p \in Peer : got[e][p] \in 0..2

Root == {r \in alive : r = Home(alive) /\ inT[r] /\ par[r] = 0}
Step(S) == S \cup {x \in alive : inT[x] /\ par[x] \in S /\ x \in ch[par[x]]}
\* the peers reached from the root along mirrored parent/child links (N <= 7 steps)
Reach == Step(Step(Step(Step(Step(Step(Step(Root)))))))

\* Tam et al. §3.3 with decision T12: once repaired, every member reaches the root at the key's
\* home along mirrored links
ReachableFromRoot == Repaired => \A m \in alive : mem[m] => m \in Reach

\* ... and the tree is well formed (scribe.py::check): every peer in it is alive and reached
\* from the root, every child link is mirrored, every leaf is a member (pruned)
WellFormed == Repaired => \A x \in Peer : inT[x] =>
                  /\ x \in Reach
                  /\ \A c \in ch[x] : inT[c] /\ par[c] = x
                  /\ ch[x] = {} => mem[x]

\* no member receives a publication twice (whatever the failures)
SingleDelivery == \A e \in Pub : \A p \in Peer : got[e][p] <= 1

\* a publication made on a repaired tree, with no failure since, reaches every member it had
\* that is still a member once its copies are all processed
Done(e) == \A m \in msgs : m.e # e
NoMiss == \A e \in published : (clean[e] /\ Done(e)) =>
              \A m \in activeAt[e] : (m \in alive /\ mem[m]) => got[e][m] = 1
=============================================================================
