----------------------------- MODULE ScotRouting -----------------------------
(***************************************************************************)
(* OctopiA notification routing (OctopiA §VII) on a small SCOT G_A [] K_m *)
(* (§III-A, Eq. 1-2): G_A is the path 1 - 2 - ... - NX (an acyclic tree),  *)
(* clusters 0..M-1, broker <<x, i>>. aLinks join <<x, i>> and <<y, i>> for *)
(* |x - y| = 1; iLinks join <<x, i>> and <<x, j>> for i # j (region x).   *)
(* The subscribers (a set of brokers, chosen at Init) have broadcast their *)
(* subscriptions in their clusters (§VI), so a broker's PRT sends a copy   *)
(* on an aLink iff a subscriber of its cluster lies beyond it (RPF). The   *)
(* host's STC set (its CIV, §IV-C) is the set of other clusters with a     *)
(* subscriber (SNR, §VII-A: one copy per STC on the iLink, no content      *)
(* check). IDR (§VII-B): at every broker with target iLinks (the host and *)
(* CIV-N receivers, decision O-IDR-AT-CIV-N) any set of links may be      *)
(* overloaded (Eq. 10 abstracted to a nondeterministic choice, as by      *)
(* `forced_overload` in the reference); cases (i), (ii)/(iii), (iv) as in  *)
(* reference/octopia/routing.py `idr_copies` (A9: the least-loaded choice *)
(* is any choice here; A10: sending to k clears bit k).                    *)
(* Invariants: NoLoop (a broker receives a notification at most once, I3), *)
(* NoDuplicate (a subscriber is delivered at most once, I1), NothingMissed *)
(* (at quiescence every subscriber was delivered, I1).                     *)
(* Reference: reference/octopia/system.py `OctopiaSystem.route`, `copies`. *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS NX,        \* |V(G_A)|: the path 1..NX
          M,         \* m = |V(K_m)|: clusters 0..M-1
          Host,      \* the publisher's broker
          Mode,      \* "snr" or "idr"
          HostSubs,  \* whether the host's own clients may subscribe (FALSE: a smaller model)
          Bug        \* "none"; MUTANTS: "CivOnTwoLinks" (case (i): the CIV-N rides every free
                     \* iLink), "DropOverloaded" (case (i)/(iv): overloaded iLinks get no copy and
                     \* no CIV-N), "BackToSender" (RPF without the lastHop exclusion),
                     \* "DirectToSubscriber" (an aLink copy addressed to the subscriber's broker
                     \* beyond, not to the neighbour), "CivOfBrokers" (case (iv): the CIV-N names
                     \* the overloaded targets' brokers, not their clusters)

X == 1..NX
C == 0..(M - 1)
Broker == X \X C
Cap == 2  \* counters saturate here: enough to see a violation, keeps the state space finite

VARIABLES subs,      \* the subscribers' brokers
          msgs,      \* notifications in flight: [src, dst, civ]
          recv,      \* recv[b]: receptions at b (saturating at Cap)
          dlv,       \* dlv[b]: deliveries to b's subscriber (saturating at Cap)
          published
vars == <<subs, msgs, recv, dlv, published>>

\* the brokers of cluster i on y's side of the aLink x - y
Beyond(x, y) == IF y > x THEN {z \in X : z >= y} ELSE {z \in X : z <= y}
\* PRT at <<x, i>>: aLinks toward a subscriber of cluster i, never back to src (§VII-A, RPF)
ALinks(b, src) ==
    LET ys == {y \in X : (y = b[1] + 1 \/ y + 1 = b[1])
                         /\ (Bug = "BackToSender" \/ src # <<y, b[2]>>)
                         /\ \E z \in Beyond(b[1], y) : <<z, b[2]>> \in subs}
    IN IF Bug = "DirectToSubscriber"
       THEN {<<z, b[2]>> : z \in {z \in UNION {Beyond(b[1], y) : y \in ys} : <<z, b[2]>> \in subs}}
       ELSE {<<y, b[2]>> : y \in ys}
\* the host's STCs: the other clusters with a subscriber (CIB bits ON, §V-VI)
STC == {j \in C \ {Host[2]} : \E x \in X : <<x, j>> \in subs}

NoSrc == <<0, 0>>  \* the host's "lastHop" P: not a broker

SnrCopies(b, A, T) ==
    {[dst |-> a, civ |-> {}] : a \in A} \cup {[dst |-> <<b[1], j>>, civ |-> {}] : j \in T}

\* the copies (a set of [dst, civ]) b may send, having received with publication-context CIV
\* `civ` from src: SNR, or one IDR decision per choice of overloaded links
Choices(b, src, civ) ==
    LET A == ALinks(b, src)
        T == civ \ {b[2]}
        plain == {[dst |-> a, civ |-> {}] : a \in A}
    IN IF Mode = "snr" \/ T = {} THEN {SnrCopies(b, A, T)}
       ELSE UNION {
         LET freeT == T \ over
             freeA == A \ overA
         IN CASE over = {} -> {SnrCopies(b, A, T)}                   \* no target overloaded
              [] freeT # {} ->                                        \* case (i)
                   {plain \cup {[dst |-> <<b[1], j>>,
                                 civ |-> IF j = k \/ Bug = "CivOnTwoLinks"
                                         THEN (IF Bug = "DropOverloaded" THEN {} ELSE over)
                                         ELSE {}] : j \in freeT} : k \in freeT}
              [] freeA # {} ->                                        \* case (ii)/(iii)
                   {{[dst |-> a, civ |-> IF a = v THEN T ELSE {}] : a \in A} : v \in freeA}
              [] OTHER ->                                             \* case (iv)
                   {plain \cup {[dst |-> <<b[1], k>>,
                                 civ |-> CASE Bug = "DropOverloaded" -> {}
                                           [] Bug = "CivOfBrokers" -> {<<b[1], j>> : j \in T \ {k}}
                                           [] OTHER -> T \ {k}]}
                    : k \in T}
         : over \in SUBSET T, overA \in SUBSET A}

Route(b, src, civ, rest) ==
    \E cs \in Choices(b, src, civ) :
        msgs' = rest \cup {[src |-> b, dst |-> c.dst, civ |-> c.civ] : c \in cs}

Sat(n) == IF n < Cap THEN n + 1 ELSE Cap

Receive(b) ==
    /\ recv' = [recv EXCEPT ![b] = Sat(@)]
    /\ dlv' = IF b \in subs THEN [dlv EXCEPT ![b] = Sat(@)] ELSE dlv

Init ==
    /\ subs \in SUBSET (IF HostSubs THEN Broker ELSE Broker \ {Host})
    /\ msgs = {}
    /\ recv = [b \in Broker |-> 0]
    /\ dlv = [b \in Broker |-> 0]
    /\ published = FALSE

Publish ==
    /\ ~published
    /\ published' = TRUE
    /\ Receive(Host)
    /\ Route(Host, NoSrc, STC, {})
    /\ UNCHANGED subs

Deliver(m) ==
    /\ Receive(m.dst)
    /\ IF recv[m.dst] >= 1
       THEN msgs' = msgs \ {m}          \* a second reception: dropped (safety net, LOOP_GUARD)
       ELSE Route(m.dst, m.src, m.civ, msgs \ {m})
    /\ UNCHANGED <<subs, published>>

Next == Publish \/ \E m \in msgs : Deliver(m)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
TypeOK == /\ subs \subseteq Broker
          /\ \A b \in Broker : recv[b] \in 0..Cap /\ dlv[b] \in 0..Cap
          /\ \A m \in msgs : m.src \in Broker /\ m.dst \in Broker /\ m.civ \subseteq C
\* every copy travels on a link of the SCOT (Eq. 2)
OnLinks == \A m \in msgs : \/ m.src[2] = m.dst[2] /\ (m.src[1] = m.dst[1] + 1 \/ m.dst[1] = m.src[1] + 1)
                           \/ m.src[1] = m.dst[1] /\ m.src[2] # m.dst[2]
NoLoop == \A b \in Broker : recv[b] <= 1
NoDuplicate == \A b \in Broker : dlv[b] <= 1
NothingMissed == (published /\ msgs = {}) => \A b \in subs : dlv[b] = 1
=============================================================================
