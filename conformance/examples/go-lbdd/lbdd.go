// The LBDD algorithms (Li Kai, Wang Yun, Yin Yi, Yuan Feifei, "Load-balancing data
// distribution in publish/subscribe mode", Journal of Southeast University 2014, §3), as one
// node runs them on its own view. The decisions D-L1..D-L7 are the repository's
// (docs/lbdd.md); reference/lbdd/algorithms.py is the same protocol in Python.
package main

import (
	"crypto/md5"
	"encoding/binary"
	"math/bits"
	"sort"
)

// digest is the highest 32 bits of MD5 of the node's address (LBDD §3.2).
func digest(address string) uint32 {
	sum := md5.Sum([]byte(address))
	return binary.BigEndian.Uint32(sum[:4])
}

// bucketNo: bucket m iff the XOR distance of the digests lies in [2^(m-1), 2^m) (LBDD §3.2);
// the source alone is in bucket 0; a digest tie with the source is bucket 1 (D-L4).
func bucketNo(source, node string) int {
	if node == source {
		return 0
	}
	m := bits.Len32(digest(source) ^ digest(node))
	if m < 1 {
		return 1 // D-L4
	}
	return m
}

// before orders the nodes of one bucket by (digest, address) (D-L1: Algorithm 1's rank,
// with the address breaking digest ties).
func before(a, b string) bool {
	da, db := digest(a), digest(b)
	if da != db {
		return da < db
	}
	return a < b // byte order of UTF-8 = code point order, as the Python reference sorts
}

// localBuckets is what Algorithm 1 computes at one node from its view Pi.
type localBuckets struct {
	selfNo int              // its own bucket (SelfNo)
	rank   int              // its rank in its own bucket, 0-based (D-L1)
	size   int              // members of its own bucket, itself included
	higher map[int][]string // bucket -> ordered members, only buckets above selfNo
}

// bucketConstruction is Algorithm 1 (LBDD §3.2): from its view, a node computes its bucket,
// its rank in it and the buckets above it (a lower node is never a next hop).
func bucketConstruction(me, source string, view []string) localBuckets {
	selfNo := bucketNo(source, me)
	same := []string{me}
	higher := map[int][]string{}
	seen := map[string]bool{me: true}
	for _, peer := range append([]string{source}, view...) {
		if seen[peer] {
			continue
		}
		seen[peer] = true
		b := bucketNo(source, peer)
		if b == selfNo {
			same = append(same, peer)
		} else if b > selfNo { // LBDD §3.2: only farther buckets are candidates
			higher[b] = append(higher[b], peer)
		}
	}
	sort.Slice(same, func(i, j int) bool { return before(same[i], same[j]) })
	rank := 0
	for i, n := range same {
		if n == me {
			rank = i
		}
	}
	for b := range higher {
		ms := higher[b]
		sort.Slice(ms, func(i, j int) bool { return before(ms[i], ms[j]) })
	}
	return localBuckets{selfNo, rank, len(same), higher}
}

// sliceBounds: the node of rank j among k takes target ranks [j*m/k, (j+1)*m/k) (Algorithm 2,
// LBDD §3.3, with the integer bounds of D-L2: contiguous slices that partition the bucket).
func sliceBounds(rank, ownSize, targetSize int) (int, int) {
	return rank * targetSize / ownSize, (rank + 1) * targetSize / ownSize
}

// selectTargets is Algorithm 2 (LBDD §3.3): this node's slice of the next NON-EMPTY bucket
// above its own (D-L3); a node in the highest non-empty bucket is a leaf.
func selectTargets(local localBuckets) []string {
	next := -1
	for b := range local.higher {
		if next < 0 || b < next {
			next = b
		}
	}
	if next < 0 {
		return nil
	}
	target := local.higher[next]
	lo, hi := sliceBounds(local.rank, local.size, len(target))
	return append([]string(nil), target[lo:hi]...)
}

// targets runs Algorithms 1 and 2 at node me for a payload from source.
func targets(me, source string, view []string) []string {
	return selectTargets(bucketConstruction(me, source, view))
}

// pathUpdate is Algorithm 3 (LBDD §3.4) as decided by D-L6: a node that detects a failure
// (heartbeat timeout; a failure is an unsubscription from every topic) or learns of a join
// (the joiner's broadcast) changes its view Pi; its buckets and targets are then recomputed
// from the whole new view by Algorithms 1 and 2, whatever bucket the changed node is in (the
// printed algorithm only deletes a failed peer of a higher bucket: erratum LBDD-E4).
func pathUpdate(view map[string]bool, failed, joined string) {
	if failed != "" {
		delete(view, failed)
	}
	if joined != "" {
		view[joined] = true
	}
}
