//! A correct outside implementation of the conformance protocol (conformance/PROTOCOL.md) in
//! Rust with the standard library only: it keeps the active subscriptions and matches every
//! published event against all of them (brute force), like the Go example. A small JSON reader
//! is included so that the example builds with no network and no crate.
//!
//!   cargo build --release && pubsub-spec verify --impl target/release/pubsub-bruteforce
//!
//! With PUBSUB_CLAIM=thesis (or another system of conformance/OBSERVATIONS.md) it claims that
//! system in init_ok but reports no observation: it passes the delivery level and deviates at
//! the protocol level (`verify --level protocol`).

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufWriter, Write};

mod json;
use json::Value;

/// A subscription: its subscriber, schema and predicates (closed intervals, FORMAT.md).
struct Sub {
    subscriber: String,
    schema: String,
    preds: Vec<(String, f64, f64)>,
}

/// The observable contract (docs/design.md#contract in the repository): every predicate lo <= v <= hi holds; an attribute the
/// event lacks fails the predicate when matching is `strict` and is ignored when `lenient`.
fn matches(sub: &Sub, values: &BTreeMap<String, f64>, strict: bool) -> bool {
    sub.preds.iter().all(|(attr, lo, hi)| match values.get(attr) {
        Some(v) => *lo <= *v && *v <= *hi,
        None => !strict,
    })
}

fn line(out: &mut impl Write, fields: &[(&str, String)]) -> io::Result<()> {
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("{}:{}", json::quote(k), v)).collect();
    writeln!(out, "{{{}}}", body.join(","))
}

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut out = BufWriter::new(io::stdout().lock());
    // BTreeMap: deliveries come out in subscription-id order, run after run.
    let mut subs: BTreeMap<String, Sub> = BTreeMap::new();
    let mut strict = true;
    for text in stdin.lock().lines() {
        let text = text?;
        if text.trim().is_empty() {
            continue;
        }
        let m = match json::parse(&text) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("rust-bruteforce: bad input line: {e}");
                std::process::exit(3);
            }
        };
        match m.str("type") {
            "init" => {
                strict = m.get("semantics").map(|s| s.str("matching")) != Some("lenient");
                let features = ["strict", "lenient", "churn", "multi-schema"]
                    .iter()
                    .map(|f| json::quote(f))
                    .collect::<Vec<_>>()
                    .join(",");
                let mut fields = vec![
                    ("type", json::quote("init_ok")),
                    ("features", format!("[{features}]")),
                    ("name", json::quote("rust-bruteforce")),
                ];
                // PUBSUB_CLAIM=<system>: claim a protocol (process protocol version 2) while
                // reporting no observation of it; the protocol level must answer `deviates`.
                if let Ok(claim) = std::env::var("PUBSUB_CLAIM") {
                    if !claim.is_empty() {
                        fields.push(("protocol", "2".to_string()));
                        fields.push(("system", json::quote(&claim)));
                    }
                }
                line(&mut out, &fields)?;
            }
            "op" => {
                match m.str("op") {
                    "subscribe" => {
                        let preds = m
                            .get("predicates")
                            .map(|p| p.entries())
                            .unwrap_or_default()
                            .iter()
                            .map(|(a, r)| (a.clone(), r.at(0).num(), r.at(1).num()))
                            .collect();
                        let sub = Sub {
                            subscriber: m.str("subscriber").to_string(),
                            schema: m.str("schema").to_string(),
                            preds,
                        };
                        subs.insert(m.str("id").to_string(), sub);
                    }
                    "unsubscribe" => {
                        subs.remove(m.str("id"));
                    }
                    "leave" | "fail" => {
                        // a subscriber that leaves or fails takes its subscriptions with it
                        let mut gone: Vec<String> = vec![m.str("node").to_string()];
                        if let Some(Value::Arr(nodes)) = m.get("nodes") {
                            gone.extend(nodes.iter().filter_map(|n| n.as_str().map(String::from)));
                        }
                        subs.retain(|_, s| !gone.contains(&s.subscriber));
                    }
                    "publish" => {
                        let values: BTreeMap<String, f64> = m
                            .get("values")
                            .map(|v| v.entries())
                            .unwrap_or_default()
                            .iter()
                            .map(|(a, v)| (a.clone(), v.num()))
                            .collect();
                        let schema = m.str("schema");
                        for (id, s) in &subs {
                            if s.schema == schema && matches(s, &values, strict) {
                                line(&mut out, &[
                                    ("type", json::quote("deliver")),
                                    ("event", json::quote(m.str("id"))),
                                    ("sub", json::quote(id)),
                                ])?;
                            }
                        }
                    }
                    _ => {} // join: nothing to do for a brute-force matcher
                }
                // seq is echoed as it came (its literal), exact up to 2^53 - 1 and beyond
                let seq = m.get("seq").map(|s| s.literal()).unwrap_or_else(|| "null".into());
                line(&mut out, &[("type", json::quote("ack")), ("seq", seq)])?;
            }
            "end" => {
                line(&mut out, &[("type", json::quote("end_ok"))])?;
                out.flush()?;
                return Ok(());
            }
            _ => {} // unknown message types are ignored (PROTOCOL.md)
        }
        out.flush()?;
    }
    out.flush()
}
