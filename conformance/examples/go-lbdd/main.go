// An LBDD implementation over the conformance process protocol (conformance/PROTOCOL.md),
// in Go with the standard library only. It claims the system `lbdd` (protocol version 2,
// conformance/OBSERVATIONS.md): every event travels from its publisher node to the nodes of
// its matching subscribers along the LBDD tree (Li Kai, Wang Yun, Yin Yi, Yuan Feifei,
// "Load-balancing data distribution in publish/subscribe mode", J. Southeast Univ. 2014),
// each node choosing its own next hops from its own view (Algorithms 1 and 2, lbdd.go), and
// every hop is reported as an `obs` line. With a version-1 suite it reports nothing and is
// judged on its deliveries only.
//
//	go build -o /tmp/go-lbdd . && pubsub-spec verify --impl /tmp/go-lbdd --level protocol
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
	Protocol   int                   `json:"protocol"`
	Nodes      []string              `json:"nodes"`
	Seq        int64                 `json:"seq"`
	Op         string                `json:"op"`
	ID         string                `json:"id"`
	Node       string                `json:"node"`
	Subscriber string                `json:"subscriber"`
	Publisher  string                `json:"publisher"`
	Schema     string                `json:"schema"`
	Predicates map[string][2]float64 `json:"predicates"`
	Values     map[string]float64    `json:"values"`
	Mode       string                `json:"mode"` // "steps": PROTOCOL.md, "Steps"
	Semantics  struct {
		Matching string `json:"matching"`
	} `json:"semantics"`
}

type sub struct {
	schema string
	preds  map[string][2]float64
}

// node is one peer: its own view Pi of the live peers (LBDD §3.2; itself not included) and
// its own subscriptions. Nothing else is shared between nodes but the messages below.
type node struct {
	name string
	view map[string]bool
	subs map[string]sub
}

// eventDelivery is the one message type of the `lbdd` claim (conformance/OBSERVATIONS.md,
// "thesis and lbdd"): the event, the tree's root and the nodes it is for. A relaying node
// reads the members from it, as LBDD §3.1 reads a topic's subscribers.
type eventDelivery struct {
	from, to string
	event    string
	schema   string
	values   map[string]float64
	origin   string
	members  []string // sorted; the origin excluded
}

// obs is one observation line (protocol version 2, conformance/OBSERVATIONS.md).
type obs struct {
	Type   string         `json:"type"`
	Seq    int64          `json:"seq"`
	Kind   string         `json:"kind"`
	Name   string         `json:"name"`
	Node   string         `json:"node"`
	To     string         `json:"to,omitempty"`
	Event  string         `json:"event,omitempty"`
	Fields map[string]any `json:"fields,omitempty"`
}

type system struct {
	nodes   map[string]*node
	owner   map[string]string // subscription id -> its subscriber node
	strict  bool
	observe bool // the suite speaks protocol version 2: report observations
	enc     *json.Encoder
	seq     int64 // the op being applied
	star    bool  // GO_LBDD_FAULT=star: the fault shown in the README (not LBDD)
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	s := &system{nodes: map[string]*node{}, owner: map[string]string{}, enc: json.NewEncoder(out),
		star: os.Getenv("GO_LBDD_FAULT") == "star"}
	for in.Scan() {
		var m msg
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "go-lbdd: bad input line:", err)
			os.Exit(3)
		}
		switch m.Type {
		case "init":
			if m.Mode == "steps" { // the step vectors' dialogue (steps.go)
				serveSteps(in, out)
				return
			}
			s.strict = m.Semantics.Matching != "lenient"
			s.observe = m.Protocol >= 2
			for _, n := range m.Nodes {
				s.join(n)
			}
			ok := map[string]any{"type": "init_ok", "name": "go-lbdd",
				"features": []string{"strict", "lenient", "churn", "multi-schema"}}
			if s.observe {
				ok["protocol"] = 2
				ok["system"] = "lbdd"
			}
			s.enc.Encode(ok)
		case "op":
			s.seq = m.Seq
			s.apply(m)
			s.enc.Encode(map[string]any{"type": "ack", "seq": m.Seq})
		case "end":
			s.enc.Encode(map[string]any{"type": "end_ok"})
			out.Flush()
			return
		}
		out.Flush()
	}
}

func (s *system) apply(m msg) {
	switch m.Op {
	case "join":
		s.join(m.Node)
	case "leave", "fail":
		gone := append([]string(nil), m.Nodes...)
		if m.Node != "" {
			gone = append(gone, m.Node)
		}
		sort.Strings(gone)
		for _, n := range gone {
			s.remove(n)
		}
	case "subscribe":
		if n := s.nodes[m.Subscriber]; n != nil {
			n.subs[m.ID] = sub{m.Schema, m.Predicates}
			s.owner[m.ID] = m.Subscriber
		}
	case "unsubscribe":
		if n := s.nodes[s.owner[m.ID]]; n != nil {
			delete(n.subs, m.ID)
		}
		delete(s.owner, m.ID)
	case "publish":
		s.publish(m)
	}
}

// join: the joiner broadcasts itself to every node, which adds it to its view (LBDD §3.4,
// Algorithm 3 with path update, D-L6); it starts with every live node in its own view (D-L7).
func (s *system) join(name string) {
	n := &node{name: name, view: map[string]bool{}, subs: map[string]sub{}}
	for other, o := range s.nodes {
		pathUpdate(o.view, "", name)
		n.view[other] = true
	}
	s.nodes[name] = n
}

// remove: a leave or a failure takes the node's subscriptions with it (a failure is an
// unsubscription from every topic, LBDD §3.4). Every other node drops it from its view
// (Algorithm 3, D-L6). This program runs each op to quiescence before its ack: it takes the
// heartbeat timeout of a failure (D-L7) as expired at every node before the next op, so the
// views agree between ops (docs/lbdd.md, "Diverging views", V5).
func (s *system) remove(name string) {
	n := s.nodes[name]
	if n == nil {
		return
	}
	for id := range n.subs {
		delete(s.owner, id)
	}
	delete(s.nodes, name)
	for _, o := range s.nodes {
		pathUpdate(o.view, name, "")
	}
}

// publish: the publisher's node is the root (LBDD §3.5.1, Theorem 1: all paths form a tree
// rooted at the publisher). It finds the nodes holding a matching subscription by brute force
// over the subscription directory (under the `lbdd` claim how the subscribers are found is not
// judged: decision D-OBS-LBDD), then the event goes node to node, in order of sending.
func (s *system) publish(m msg) {
	origin := m.Publisher
	set := map[string]bool{}
	for id, at := range s.owner {
		n := s.nodes[at]
		if sb := n.subs[id]; sb.schema == m.Schema && matches(sb, m.Values, s.strict) {
			set[at] = true
		}
	}
	members := make([]string, 0, len(set))
	for n := range set {
		if n != origin {
			members = append(members, n)
		}
	}
	sort.Strings(members)
	if len(set) == 0 {
		return // no subscriber: no tree
	}
	root := eventDelivery{to: origin, event: m.ID, schema: m.Schema, values: m.Values,
		origin: origin, members: members}
	s.reportMatch(root)
	received := map[string]bool{}
	queue := []eventDelivery{root}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		at := s.nodes[d.to]
		if at == nil || received[d.to] {
			continue // a copy to a node that is gone is lost; a node relays only its first copy
		}
		received[d.to] = true
		s.deliverLocal(at, d)
		hops := at.nextHops(d)
		if s.star { // a deliberate fault: the root sends every copy itself (point to point,
			hops = nil // LBDD §4's baseline): right deliveries, not the LBDD tree
			if at.name == d.origin {
				hops = d.members
			}
		}
		for _, next := range hops {
			s.report(d, at.name, next)
			c := d
			c.from, c.to = at.name, next
			queue = append(queue, c)
		}
	}
}

// nextHops: Algorithms 1 and 2 at this node, over its own view restricted to the event's
// members (the subscribers of this event play the part of a topic's subscribers, LBDD §3.1).
func (n *node) nextHops(d eventDelivery) []string {
	view := make([]string, 0, len(d.members))
	for _, p := range d.members {
		if n.view[p] {
			view = append(view, p)
		}
	}
	return targets(n.name, d.origin, view)
}

// deliverLocal: the node matches the event against its own subscriptions.
func (s *system) deliverLocal(n *node, d eventDelivery) {
	ids := make([]string, 0)
	for id, sb := range n.subs {
		if sb.schema == d.schema && matches(sb, d.values, s.strict) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		s.enc.Encode(map[string]any{"type": "deliver", "event": d.event, "sub": id, "node": n.name})
	}
}

// reportMatch writes the state change `match`: the origin is the root of a tree of the event
// (conformance/OBSERVATIONS.md, "thesis and lbdd"; also when it is the only subscriber node
// and sends nothing).
func (s *system) reportMatch(d eventDelivery) {
	if !s.observe {
		return
	}
	s.enc.Encode(obs{Type: "obs", Seq: s.seq, Kind: "state", Name: "match", Node: d.origin,
		Event: d.event, Fields: map[string]any{"members": d.members, "strategy": "lbdd"}})
}

// report writes one EventDelivery send (conformance/OBSERVATIONS.md, "thesis and lbdd").
func (s *system) report(d eventDelivery, from, to string) {
	if !s.observe {
		return
	}
	s.enc.Encode(obs{Type: "obs", Seq: s.seq, Kind: "send", Name: "EventDelivery", Node: from,
		To: to, Event: d.event, Fields: map[string]any{"origin": d.origin, "members": d.members,
			"strategy": "lbdd"}})
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
