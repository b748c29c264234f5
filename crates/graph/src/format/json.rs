//! The JSON graph format.
//!
//! ```json
//! {
//!   "vertices": 4,
//!   "edges": [[0, 1], [1, 2, "again"], [2, 3]],
//!   "terminal": [[3, "tie"]],
//!   "owners": [0, 1, 1, 0],
//!   "names": ["start", "", "", "end"],
//!   "start": 0
//! }
//! ```
//! Every field is optional. `edges` lists moves `[u, v]`, or `[u, v, "again"]` for a go-again
//! move; `terminal` lists `[vertex, "win"|"loss"|"tie"]`; `scores` lists `[vertex, S]`
//! (the vertex is terminal, worth the integer S, `-(2^63-1) <= S <= 2^63-1`, to the player to
//! move there; a graph with a score is scored, and a vertex has a terminal value or a score,
//! not both); `owners` (one 0/1 per vertex, from
//! vertex 0) makes the graph an arena; `names` gives labels from vertex 0 (`""` or `null` for
//! none). Unknown fields are errors, so a typo is never silently ignored.
//!
//! ```
//! use retrograde_graph::format::{json, ParseOptions};
//! let g = json::parse(br#"{"edges": [[0, 1], [1, 2, "again"]]}"#, &ParseOptions::default()).unwrap();
//! assert_eq!(g.edge_count(), 2);
//! let e = json::parse(br#"{"edges": [[0, -1]]}"#, &ParseOptions::default()).unwrap_err();
//! assert_eq!(e.line, Some(1));
//! ```

use super::{ParseError, ParseOptions};
use crate::{Graph, GraphBuilder, Primitive, MAX_VERTEX_ID};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;

/// A vertex id, checked while reading so that the error carries the line.
struct Vid(u32);

impl<'de> Deserialize<'de> for Vid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Vid;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a vertex id (an integer from 0 to {MAX_VERTEX_ID})")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vid, E> {
                if v > MAX_VERTEX_ID {
                    Err(E::custom(format!(
                        "vertex id {v} is too large (ids must be at most {MAX_VERTEX_ID})"
                    )))
                } else {
                    Ok(Vid(v as u32))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vid, E> {
                if v < 0 {
                    Err(E::custom(format!("vertex id {v} is negative")))
                } else {
                    self.visit_u64(v as u64)
                }
            }
        }
        d.deserialize_u64(V)
    }
}

struct Edge(u32, u32, bool);

impl<'de> Deserialize<'de> for Edge {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Edge;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an edge [u, v] or [u, v, \"again\"]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Edge, A::Error> {
                let u: Vid = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let v: Vid = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(1, &self))?;
                let again = match seq.next_element::<String>()? {
                    None => false,
                    Some(s) if s == "again" => true,
                    Some(s) => {
                        return Err(de::Error::custom(format!(
                            "expected \"again\" as an edge's third element, found {s:?}"
                        )))
                    }
                };
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(4, &self));
                }
                Ok(Edge(u.0, v.0, again))
            }
        }
        d.deserialize_seq(V)
    }
}

struct Label(Primitive);

impl<'de> Deserialize<'de> for Label {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map(Label).map_err(de::Error::custom)
    }
}

/// The `terminal` list; a vertex listed twice with different values is an error.
struct Terminals(Vec<(Vid, Label)>);

impl<'de> Deserialize<'de> for Terminals {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Terminals;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of [vertex, \"win\"|\"loss\"|\"tie\"]")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Terminals, A::Error> {
                let mut out: Vec<(Vid, Label)> = Vec::new();
                let mut seen = std::collections::HashMap::new();
                while let Some((v, l)) = seq.next_element::<(Vid, Label)>()? {
                    match seen.get(&v.0) {
                        Some(&(i, p)) if p != l.0 => {
                            return Err(de::Error::custom(format!(
                                "terminal: vertex {} is {} here (entry {}) but {} in entry {i}",
                                v.0,
                                l.0,
                                out.len(),
                                p
                            )))
                        }
                        Some(_) => {}
                        None => {
                            seen.insert(v.0, (out.len(), l.0));
                        }
                    }
                    out.push((v, l));
                }
                Ok(Terminals(out))
            }
        }
        d.deserialize_seq(V)
    }
}

/// The `names` list; the same name on two vertices is an error.
struct Names(Vec<Option<String>>);

impl<'de> Deserialize<'de> for Names {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Names;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of names (strings, or null for none)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Names, A::Error> {
                let mut out: Vec<Option<String>> = Vec::new();
                let mut seen = std::collections::HashMap::new();
                while let Some(name) = seq.next_element::<Option<String>>()? {
                    if let Some(n) = name.as_deref().filter(|n| !n.is_empty()) {
                        if let Some(first) = seen.insert(n.to_string(), out.len()) {
                            return Err(de::Error::custom(format!(
                                "names: {} is the name of vertex {first} and of vertex {}; names must be unique",
                                super::show(n.as_bytes()),
                                out.len()
                            )));
                        }
                    }
                    out.push(name);
                }
                Ok(Names(out))
            }
        }
        d.deserialize_seq(V)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonGraph {
    #[serde(default)]
    vertices: Option<u64>,
    #[serde(default)]
    edges: Vec<Edge>,
    #[serde(default)]
    terminal: Option<Terminals>,
    #[serde(default)]
    scores: Option<Vec<(Vid, i64)>>,
    #[serde(default)]
    owners: Option<Vec<u8>>,
    #[serde(default)]
    names: Option<Names>,
    #[serde(default)]
    start: Option<Vid>,
}

/// Parses a JSON graph.
///
/// # Errors
/// A [`ParseError`] with the line of the offending value.
pub fn parse(bytes: &[u8], opts: &ParseOptions) -> Result<Graph, ParseError> {
    Ok(parse_builder(bytes, opts)?.build()?)
}

/// Like [`parse`], but returns the filled builder before the layout.
///
/// # Errors
/// As [`parse`].
pub fn parse_builder(bytes: &[u8], opts: &ParseOptions) -> Result<GraphBuilder, ParseError> {
    let g: JsonGraph = serde_json::from_slice(bytes).map_err(|e| {
        let text = e.to_string();
        let message = match text.rfind(" at line ") {
            Some(i) => format!("{} (column {})", &text[..i], e.column()),
            None => text,
        };
        ParseError {
            line: (e.line() > 0).then_some(e.line() as u64),
            message,
        }
    })?;
    let mut b = GraphBuilder::with_capacity(g.edges.len());
    for Edge(u, v, again) in g.edges {
        if again {
            b.add_edge_again(u, v);
        } else {
            b.add_edge(u, v);
        }
    }
    let terminal = g.terminal.map(|t| t.0).unwrap_or_default();
    if g.scores.as_ref().is_some_and(|s| !s.is_empty()) {
        if let Some(e) = opts.scores_refused(None) {
            return Err(e);
        }
    }
    let mut scored = std::collections::HashMap::new();
    for (i, (v, score)) in g.scores.into_iter().flatten().enumerate() {
        match scored.insert(v.0, (i, score)) {
            Some((j, before)) if before != score => {
                return Err(ParseError::whole(format!(
                    "scores: vertex {} is worth {score} here (entry {i}) but {before} in entry {j}",
                    v.0
                )))
            }
            _ => {}
        }
        b.set_score(v.0, score)
            .map_err(|e| ParseError::whole(format!("scores: entry {i}: {e}")))?;
    }
    for (v, Label(p)) in terminal {
        if let Some(&(i, _)) = scored.get(&v.0) {
            return Err(ParseError::whole(format!(
                "vertex {} has both a terminal value and a score (scores entry {i}); a vertex has one or the other",
                v.0
            )));
        }
        b.set_primitive(v.0, p);
    }
    let count = |len: usize| u32::try_from(len).map_err(|_| ParseError::whole("too many entries"));
    if let Some(owners) = g.owners {
        let len = count(owners.len())?;
        for (v, o) in (0..len).zip(owners) {
            b.set_owner(v, o as u64)?;
        }
    }
    let names = g.names.map(|n| n.0).unwrap_or_default();
    let len = count(names.len())?;
    for (v, name) in (0..len).zip(names) {
        if let Some(name) = name.filter(|s| !s.is_empty()) {
            b.set_name(v, name);
        }
    }
    if let Some(s) = g.start {
        b.set_start(s.0);
    }
    if let Some(n) = g.vertices {
        b.ensure_vertices(n)?;
    }
    if let Some(n) = opts.vertices {
        b.ensure_vertices(n)?;
    }
    Ok(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Graph, ParseError> {
        parse(s.as_bytes(), &ParseOptions::default())
    }

    #[test]
    fn full_example() {
        let g = p(
            r#"{"vertices": 4, "edges": [[0,1],[1,2,"again"],[2,3]], "terminal": [[3,"tie"]],
                     "names": ["start", null, "", "end"], "start": 0}"#,
        )
        .unwrap();
        assert_eq!(g.vertex_count(), 4);
        assert_eq!(g.primitive(3), Some(Primitive::Tie));
        assert_eq!(g.name(0), Some("start"));
        assert_eq!(g.name(1), None);
        assert_eq!(g.start(), Some(0));
        let g = p(r#"{"edges": [[0,1]], "owners": [0, 1]}"#).unwrap();
        assert!(g.is_arena());
    }

    #[test]
    fn scores() {
        let g =
            p(r#"{"edges": [[0,1],[1,2]], "scores": [[2, -9223372036854775807], [1, 5], [1, 5]]}"#)
                .unwrap();
        assert!(g.is_scored());
        assert_eq!(
            (g.score(0), g.score(1), g.score(2)),
            (None, Some(5), Some(-i64::MAX))
        );
        assert!(!p(r#"{"scores": []}"#).unwrap().is_scored());
        let e = |s: &str| p(s).unwrap_err().to_string();
        assert!(e(r#"{"scores": [[1, -9223372036854775808]]}"#).contains("a score must lie in"));
        assert!(e(r#"{"scores": [[1, 9223372036854775808]]}"#).starts_with("1: "));
        assert!(e(r#"{"scores": [[1, 1e9]]}"#).starts_with("1: "));
        assert!(e(r#"{"scores": [[1, 2], [1, 3]]}"#).contains("vertex 1 is worth 3 here"));
        assert!(e(r#"{"scores": [[1, 2]], "terminal": [[1, "win"]]}"#)
            .contains("both a terminal value and a score"));
    }

    #[test]
    fn errors() {
        let e = p("{\n\"edges\": [[0, 1],\n [2]]}").unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("an edge [u, v]"), "{e}");
        assert!(p(r#"{"edges": [[0, 4294967295]]}"#)
            .unwrap_err()
            .message
            .contains("too large"));
        assert!(p(r#"{"edges": [[0, 1, "twice"]]}"#)
            .unwrap_err()
            .message
            .contains("again"));
        assert!(p(r#"{"edgez": []}"#)
            .unwrap_err()
            .message
            .contains("unknown field"));
        assert!(p(r#"{"terminal": [[0, "maybe"]]}"#)
            .unwrap_err()
            .message
            .contains("win, loss or tie"));
        assert!(p(r#"{"owners": [3]}"#)
            .unwrap_err()
            .message
            .contains("0 or 1"));
        assert!(p("").is_err());
        assert!(p("[1,2]").is_err());
    }
}
