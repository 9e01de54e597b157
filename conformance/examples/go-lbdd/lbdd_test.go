package main

import (
	"reflect"
	"testing"
)

// The paper's 12-PC test bed (LBDD §4.2), publisher 10.3.17.74 (docs/lbdd.md): the tree the
// Python reference gives, hop by hop, each node computing its targets from the same view.
func TestTheTestBedTree(t *testing.T) {
	source := "10.3.17.74"
	view := []string{"10.3.17.98", "10.3.17.184", "10.3.17.68", "10.3.17.234", "10.3.17.90",
		"10.3.17.64", "10.3.17.61", "10.3.17.72", "10.3.17.44", "10.3.17.88", "10.3.17.97"}
	want := map[string][]string{
		"10.3.17.74":  {"10.3.17.98", "10.3.17.64"},
		"10.3.17.98":  {"10.3.17.184"},
		"10.3.17.64":  {"10.3.17.61"},
		"10.3.17.184": {"10.3.17.68", "10.3.17.234", "10.3.17.90"},
		"10.3.17.61":  {"10.3.17.72", "10.3.17.44", "10.3.17.88", "10.3.17.97"},
	}
	for _, n := range append([]string{source}, view...) {
		got := targets(n, source, view)
		if len(got) == 0 && len(want[n]) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want[n]) {
			t.Errorf("targets(%s) = %v, want %v", n, got, want[n])
		}
	}
	if d := digest(source); d != 0x6a55a1ae {
		t.Errorf("digest(%s) = %08x, want 6a55a1ae", source, d)
	}
}

// D-L2: the slices of k nodes partition a target bucket of m, also when m < k.
func TestSlicesPartitionTheTargetBucket(t *testing.T) {
	for k := 1; k <= 7; k++ {
		for m := 0; m <= 9; m++ {
			next := 0
			for j := 0; j < k; j++ {
				lo, hi := sliceBounds(j, k, m)
				if lo != next || hi < lo {
					t.Fatalf("k=%d m=%d rank %d: [%d,%d) after %d", k, m, j, lo, hi, next)
				}
				next = hi
			}
			if next != m {
				t.Fatalf("k=%d m=%d: slices end at %d", k, m, next)
			}
		}
	}
}

// D-L1 and D-L4 on a real MD5 tie (10.0.81.124 / 10.0.170.82 share the digest e0322ef6): as
// members they get ranks by address; as source and member, the member is in bucket 1.
func TestDigestTies(t *testing.T) {
	a, b := "10.0.81.124", "10.0.170.82"
	if digest(a) != digest(b) {
		t.Fatal("not a digest tie")
	}
	if got := bucketNo(a, b); got != 1 {
		t.Errorf("bucketNo(tie) = %d, want 1", got)
	}
	lb := bucketConstruction(b, "10.9.9.9", []string{a})
	if lb.rank != 0 || lb.size != 2 {
		t.Errorf("rank %d size %d, want 0 and 2", lb.rank, lb.size)
	}
}

// D-L6: after a failure in a node's own bucket, it recomputes its rank and serves the failed
// node's slice (Algorithm 3 as printed would leave it unserved, erratum LBDD-E4).
func TestPathUpdateRecomputesFromTheWholeView(t *testing.T) {
	source := "10.3.17.74"
	view := map[string]bool{}
	for _, n := range []string{"10.3.17.98", "10.3.17.184", "10.3.17.68", "10.3.17.234",
		"10.3.17.90", "10.3.17.64", "10.3.17.61"} {
		view[n] = true
	}
	list := func() []string {
		out := []string{}
		for n := range view {
			out = append(out, n)
		}
		return out
	}
	before := targets("10.3.17.98", source, list())
	pathUpdate(view, "10.3.17.64", "")
	after := targets("10.3.17.98", source, list())
	if len(after) <= len(before) {
		t.Errorf("targets after the failure of its bucket peer: %v (before %v)", after, before)
	}
	pathUpdate(view, "", "10.3.17.64")
	if again := targets("10.3.17.98", source, list()); !reflect.DeepEqual(again, before) {
		t.Errorf("after the rejoin: %v, want %v", again, before)
	}
}
