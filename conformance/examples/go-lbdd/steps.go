// The step vectors of LBDD (docs/steps.md, "lbdd"; conformance/PROTOCOL.md, "Steps"): one
// handler of one node per step, answered from this program's own LBDD functions (lbdd.go).
//
//	pubsub-spec verify --steps --impl /tmp/go-lbdd
package main

import (
	"bufio"
	"encoding/json"
	"sort"
)

type stepRequest struct {
	Type  string         `json:"type"`
	ID    string         `json:"id"`
	Pre   stepState      `json:"pre"`
	Input map[string]any `json:"input"`
}

type stepState struct {
	Node struct {
		Name    string          `json:"name"`
		View    []string        `json:"view"`
		Buckets json.RawMessage `json:"buckets"` // null, or Algorithm 1's result for a source
	} `json:"node"`
}

// serveSteps answers `step` lines until `end`: the LBDD handlers EventDelivery (Algorithms 1
// and 2 over the view restricted to the tree's members, LBDD §3.1-§3.3), buckets (Algorithm 1,
// §3.2) and path_update (Algorithm 3, §3.4, decision D-L6).
func serveSteps(in *bufio.Scanner, out *bufio.Writer) {
	enc := json.NewEncoder(out)
	enc.Encode(map[string]any{"type": "init_ok", "name": "go-lbdd", "features": []string{},
		"steps": map[string][]string{"lbdd": {"EventDelivery", "buckets", "path_update"}}})
	out.Flush()
	for in.Scan() {
		var req stepRequest
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			return
		}
		if req.Type == "end" {
			enc.Encode(map[string]any{"type": "end_ok"})
			out.Flush()
			return
		}
		if req.Type != "step" {
			continue
		}
		reply := step(req)
		reply["type"], reply["id"] = "step_ok", req.ID
		enc.Encode(reply)
		out.Flush()
	}
}

func names(v any) []string {
	out := []string{}
	list, _ := v.([]any)
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func encodeBuckets(source string, lb localBuckets) map[string]any {
	nos := make([]int, 0, len(lb.higher))
	for m := range lb.higher {
		nos = append(nos, m)
	}
	sort.Ints(nos)
	higher := []any{}
	for _, m := range nos {
		higher = append(higher, []any{m, lb.higher[m]})
	}
	return map[string]any{"source": source, "self": lb.selfNo, "rank": lb.rank,
		"size": lb.size, "higher": higher}
}

func step(req stepRequest) map[string]any {
	name, view := req.Pre.Node.Name, req.Pre.Node.View
	if view == nil {
		view = []string{}
	}
	var buckets any = req.Pre.Node.Buckets
	if len(req.Pre.Node.Buckets) == 0 {
		buckets = nil
	}
	post := func(view []string, buckets any) map[string]any {
		sort.Strings(view)
		return map[string]any{"post": map[string]any{
			"node":      map[string]any{"name": name, "view": view, "buckets": buckets},
			"delivered": []any{}}, "sends": []any{}}
	}
	in := req.Input
	kind, _ := in["type"].(string)
	if kind == "" {
		kind, _ = in["op"].(string)
	}
	switch kind {
	case "EventDelivery":
		origin, _ := in["origin"].(string)
		members := names(in["members"])
		member := false
		for i, m := range members {
			if m == origin || (i > 0 && members[i-1] >= m) {
				return map[string]any{"invalid": "members must be sorted, unique and without the origin"}
			}
			member = member || m == name
		}
		if name != origin && !member {
			return map[string]any{"invalid": "a copy for a node that is not a member of the tree"}
		}
		known := map[string]bool{}
		for _, p := range view {
			known[p] = true
		}
		restricted := []string{}
		for _, m := range members {
			if known[m] {
				restricted = append(restricted, m)
			}
		}
		reply := post(view, buckets)
		sends := []any{}
		treeID, ok := in["tree_id"].(string)
		if !ok {
			treeID = ""
		}
		for _, to := range selectTargets(bucketConstruction(name, origin, restricted)) {
			sends = append(sends, map[string]any{"kind": "send", "name": "EventDelivery",
				"node": name, "to": to, "event": in["event"], "fields": map[string]any{
					"origin": origin, "members": members, "tree_id": treeID,
					"strategy": "lbdd", "route": "direct", "message": in}})
		}
		reply["sends"] = sends
		return reply
	case "buckets":
		source, _ := in["source"].(string)
		return post(view, encodeBuckets(source, bucketConstruction(name, source, view)))
	case "path_update":
		failed, _ := in["failed"].(string)
		joined, _ := in["joined"].(string)
		if failed == name {
			return map[string]any{"invalid": "a node does not detect its own failure"}
		}
		set := map[string]bool{}
		for _, p := range view {
			set[p] = true
		}
		pathUpdate(set, failed, joined)
		delete(set, name)
		next := []string{}
		for p := range set {
			next = append(next, p)
		}
		sort.Strings(next)
		if buckets != nil {
			var old struct {
				Source string `json:"source"`
			}
			if err := json.Unmarshal(req.Pre.Node.Buckets, &old); err == nil && string(req.Pre.Node.Buckets) != "null" {
				buckets = encodeBuckets(old.Source, bucketConstruction(name, old.Source, next))
			}
		}
		return post(next, buckets)
	}
	return map[string]any{"invalid": "not an LBDD handler: " + kind}
}
