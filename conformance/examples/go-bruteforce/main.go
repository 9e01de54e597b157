// A correct outside implementation of the conformance protocol (conformance/PROTOCOL.md), in
// Go with the standard library only: it keeps the active subscriptions and matches every
// published event against all of them (brute force). It shows the protocol is language-neutral.
//
//	go build -o /tmp/bruteforce . && pubsub-spec verify --impl /tmp/bruteforce
//
// With PUBSUB_CLAIM=thesis (or another system of conformance/OBSERVATIONS.md) it claims that
// system in init_ok but reports no observation: it passes the delivery level and deviates at
// the protocol level (`verify --level protocol`).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

type msg struct {
	Type       string                `json:"type"`
	Seq        int64                 `json:"seq"`
	Op         string                `json:"op"`
	ID         string                `json:"id"`
	Node       string                `json:"node"`
	Nodes      []string              `json:"nodes"`
	Subscriber string                `json:"subscriber"`
	Schema     string                `json:"schema"`
	Predicates map[string][2]float64 `json:"predicates"`
	Values     map[string]float64    `json:"values"`
	Semantics  struct {
		Matching string `json:"matching"`
	} `json:"semantics"`
}

type sub struct {
	subscriber, schema string
	preds              map[string][2]float64
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	subs := map[string]sub{}
	strict := true
	for in.Scan() {
		var m msg
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "bruteforce: bad input line:", err)
			os.Exit(3)
		}
		switch m.Type {
		case "init":
			strict = m.Semantics.Matching != "lenient"
			ok := map[string]any{"type": "init_ok", "features": []string{"strict", "lenient", "churn", "multi-schema"}, "name": "go-bruteforce"}
			// PUBSUB_CLAIM=<system>: claim a protocol (process protocol version 2) while
			// reporting no observation of it; the protocol level must answer `deviates`.
			if claim := os.Getenv("PUBSUB_CLAIM"); claim != "" {
				ok["protocol"] = 2
				ok["system"] = claim
			}
			enc.Encode(ok)
		case "op":
			switch m.Op {
			case "subscribe":
				subs[m.ID] = sub{m.Subscriber, m.Schema, m.Predicates}
			case "unsubscribe":
				delete(subs, m.ID)
			case "leave", "fail":
				gone := map[string]bool{m.Node: true}
				for _, n := range m.Nodes {
					gone[n] = true
				}
				for id, s := range subs {
					if gone[s.subscriber] {
						delete(subs, id)
					}
				}
			case "publish":
				ids := make([]string, 0)
				for id, s := range subs {
					if s.schema == m.Schema && matches(s, m.Values, strict) {
						ids = append(ids, id)
					}
				}
				sort.Strings(ids)
				for _, id := range ids {
					enc.Encode(map[string]any{"type": "deliver", "event": m.ID, "sub": id})
				}
			}
			enc.Encode(map[string]any{"type": "ack", "seq": m.Seq})
		case "end":
			enc.Encode(map[string]any{"type": "end_ok"})
			out.Flush()
			return
		}
		out.Flush()
	}
}

func matches(s sub, values map[string]float64, strict bool) bool {
	for attr, r := range s.preds {
		v, ok := values[attr]
		if !ok {
			if strict {
				return false
			}
			continue
		}
		if v < r[0] || v > r[1] {
			return false
		}
	}
	return true
}
