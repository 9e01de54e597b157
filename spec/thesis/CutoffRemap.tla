---------------------------- MODULE CutoffRemap ----------------------------
(***************************************************************************)
(* Cut-off-line remapping (thesis §3.5, decision D-SEG of                   *)
(* docs/thesis.md). A range [l, u] wider than the cut-off C becomes *)
(* segments [l + i*H, l + (i+1)*H), the last one [l + (n-1)*H, u] closed;  *)
(* each segment is a stored point (lo_i, hi_i). An event value v searches *)
(* the target area below the cut-off line, x in [v-C, v], y in [v, v+C],   *)
(* and a point found there delivers iff v lies in its segment.             *)
(* The state is one choice of (l, u, v, C, H); Next keeps it, so the model *)
(* checker enumerates every choice in the domain.                         *)
(* Reference: reference/thesis/cutoff.py, reference/thesis/space.py (target_area),       *)
(* reference/thesis/system.py (_match_and_deliver).                              *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets

CONSTANTS MaxV,       \* the domain is 0..MaxV
          MaxC,       \* cut-offs C range over 2..MaxC, H over 1..C-1
          ClosedAll,  \* TRUE: the mutant with every segment closed (erratum E3)
          Bug         \* "none"; MUTANTS (one invariant each, spec/manifest.json):
                      \* "FloorSegments" n = floor((u-l)/h), the last segment runs to u;
                      \* "OpenLast" the last segment half-open too; "UnclippedLast" the last
                      \* segment ends at l + n*h, not u; "UnorderedRange" u < l accepted;
                      \* "FitsOffByOne" a range one longer than c still taken as one segment;
                      \* boundary mutants, each one step past a bound: "OpenFirst" the first
                      \* segment open at l; "FirstBeforeStart" it starts at l - 1;
                      \* "LastPastEnd" the last segment ends at u + 1; "RangeOffByOne"
                      \* u = l - 1 accepted

VARIABLES l, u, v, c, h
vars == <<l, u, v, c, h>>

Max(a, b) == IF a > b THEN a ELSE b
Min(a, b) == IF a < b THEN a ELSE b

\* number of segments: 1 if the range fits under the line, else ceil((u-l)/h)
NSeg == IF u - l <= c \/ (Bug = "FitsOffByOne" /\ u - l = c + 1) THEN 1
        ELSE IF Bug = "FloorSegments" THEN (u - l) \div h
        ELSE (u - l + h - 1) \div h
Seg == 0..(NSeg - 1)
SegLo(i) == IF Bug = "FirstBeforeStart" /\ i = 0 THEN Max(0, l - 1)
            ELSE IF NSeg = 1 THEN l ELSE l + i * h
SegHi(i) == IF i = NSeg - 1
            THEN (IF Bug = "UnclippedLast" /\ NSeg > 1 THEN l + NSeg * h
                  ELSE IF Bug = "LastPastEnd" THEN u + 1 ELSE u)
            ELSE l + (i + 1) * h
Closed(i) == ClosedAll \/ (i = NSeg - 1 /\ Bug # "OpenLast")

InSegment(i) == /\ IF Bug = "OpenFirst" /\ i = 0 THEN SegLo(i) < v ELSE SegLo(i) <= v
                /\ (v < SegHi(i) \/ (Closed(i) /\ v <= SegHi(i)))
InTargetArea(i) ==
    /\ Max(0, v - c) <= SegLo(i) /\ SegLo(i) <= v
    /\ v <= SegHi(i) /\ SegHi(i) <= Min(MaxV, v + c)
Delivers(i) == InTargetArea(i) /\ InSegment(i)
Delivering == {i \in Seg : Delivers(i)}

Init ==
    /\ l \in 0..MaxV
    /\ u \in (IF Bug = "UnorderedRange" THEN 0
             ELSE IF Bug = "RangeOffByOne" THEN Max(0, l - 1) ELSE l)..MaxV
    /\ v \in 0..MaxV
    /\ c \in 2..MaxC
    /\ h \in 1..(c - 1)

Next == UNCHANGED vars

Spec == Init /\ [][Next]_vars

TypeOK ==
    /\ l \in 0..MaxV /\ u \in 0..MaxV /\ v \in 0..MaxV
    /\ c \in 2..MaxC /\ h \in 1..(c - 1) /\ l <= u

\* every stored point lies on or below the cut-off line: nothing is lost by the band
BelowCutoff == \A i \in Seg : SegHi(i) - SegLo(i) <= c

SingleDelivery == Cardinality(Delivering) <= 1

NoMiss == (l <= v /\ v <= u) => Delivering # {}

NoSpurious == ~(l <= v /\ v <= u) => Delivering = {}
=============================================================================
