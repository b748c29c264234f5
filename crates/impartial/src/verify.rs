//! An independent local check of generalized Sprague-Grundy values against their graph.
//!
//! It shares no code with the algorithms: it checks the defining conditions A, B and C (see
//! the [`crate::grundy()`] docs) vertex by vertex, with the computed counters as the witness for
//! B, and that every set `K` holds exactly the finite values of the successors. Since the
//! function is unique (Fraenkel and Yesha), values that pass are the right ones.

use crate::grundy::{normal_play, Grundy};
use crate::value::{mex, Sg};
use retrograde_graph::Graph;
/// The first inconsistency found (the engine's verifier's type: a vertex and a message).
pub use retrograde_solve::Violation;

/// Checks `s` against `g`.
///
/// # Errors
/// The first [`Violation`], by vertex id (also when `g` is not a normal-play impartial graph).
///
/// # Complexity
/// O(n + m log m).
///
/// ```
/// use retrograde_graph::format::{parse, Format, ParseOptions};
/// use retrograde_impartial::{grundy, verify};
/// let g = parse(b"0 1\n1 0\n1 2\n", Format::Edges, &ParseOptions::default()).unwrap();
/// verify(&g, &grundy(&g).unwrap()).unwrap();
/// ```
pub fn verify(g: &Graph, s: &Grundy) -> Result<(), Violation> {
    let g = normal_play(g).map_err(|e| Violation {
        vertex: 0,
        message: e.to_string(),
    })?;
    let g = g.as_ref();
    let n = g.vertex_count();
    let fail = |v: u32, message: String| Err(Violation { vertex: v, message });
    if s.len() != n {
        return fail(
            0,
            format!(
                "the values cover {} vertices but the graph has {n}",
                s.len()
            ),
        );
    }
    // For each vertex, its successors' finite values with the least counter of each, sorted
    // by value: `table[off[v]..off[v + 1]]`.
    let mut off = Vec::with_capacity(n + 1);
    let mut table: Vec<(u32, u32)> = Vec::new();
    off.push(0);
    for v in 0..n as u32 {
        let from = table.len();
        table.extend(
            g.successors(v)
                .iter()
                .filter_map(|&w| Some((s.value(w).finite()?, s.counter(w).unwrap_or(u32::MAX)))),
        );
        table[from..].sort_unstable();
        let mut kept = from;
        for i in from..table.len() {
            if i == from || table[i].0 != table[kept - 1].0 {
                table[kept] = table[i];
                kept += 1;
            }
        }
        table.truncate(kept);
        off.push(table.len());
    }
    let least = |v: u32| &table[off[v as usize]..off[v as usize + 1]];
    for u in 0..n as u32 {
        let finite: Vec<u32> = least(u).iter().map(|x| x.0).collect();
        let b = mex(finite.iter().copied());
        match s.value(u) {
            Sg::Finite(value) => {
                if value != b {
                    return fail(
                        u,
                        format!("value {value}, but the mex of its successors' values is {b}"),
                    );
                }
                let Some(c) = s.counter(u) else {
                    return fail(u, format!("finite value {value} without a counter"));
                };
                for &v in g.successors(u) {
                    if s.value(v).finite().is_some_and(|x| x < value) {
                        continue;
                    }
                    let back = least(v);
                    let ok = back
                        .binary_search_by_key(&value, |x| x.0)
                        .is_ok_and(|i| back[i].1 < c);
                    if !ok {
                        return fail(
                            u,
                            format!(
                                "value {value} (counter {c}), but the move to {v} (value {}) cannot be reversed to a successor of value {value} with a smaller counter",
                                s.value(v)
                            ),
                        );
                    }
                }
            }
            Sg::Infinite(k) => {
                if s.counter(u).is_some() {
                    return fail(u, "an infinite value with a counter".into());
                }
                if k != finite.as_slice() {
                    return fail(
                        u,
                        format!(
                            "value {}, but its successors' finite values are {:?}",
                            s.value(u),
                            finite
                        ),
                    );
                }
                let escape = g.successors(u).iter().any(|&v| match s.value(v) {
                    Sg::Infinite(l) => l.binary_search(&b).is_err(),
                    Sg::Finite(_) => false,
                });
                if !escape {
                    return fail(
                        u,
                        format!(
                            "value {}, but no successor has an infinite value without {b} (the mex), so the value should be finite",
                            s.value(u)
                        ),
                    );
                }
            }
        }
    }
    Ok(())
}
