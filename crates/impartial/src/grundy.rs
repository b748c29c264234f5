//! Sprague-Grundy values of every vertex of a graph: the plain mex recursion on acyclic
//! graphs, and the generalized (loopy) function of Smith and of Fraenkel and Yesha on graphs
//! with cycles.
//!
//! # The generalized Sprague-Grundy function
//! Each vertex `u` gets a value `γ(u)`, either a finite `n` or `∞(K)` with `K` the set of
//! finite values among `u`'s successors, and each finite vertex a *counter* `c(u)`, such that
//! (Fraenkel and Yesha 1986):
//! - **A.** if `γ(u) = n` is finite, `n` is the mex of the finite values of `u`'s successors;
//! - **B.** if `γ(u) = n` is finite and a successor `v` has `γ(v) > n` or `γ(v) = ∞`, then `v`
//!   has a successor `w` with `γ(w) = n` and `c(w) < c(u)` (a move that raises the value can
//!   be reversed, with progress);
//! - **C.** if `γ(u) = ∞(K)`, some successor `v` has `γ(v) = ∞(L)` with `mex K ∉ L`.
//!
//! The function exists and is unique on every finite graph. On an acyclic graph it is the
//! ordinary Sprague-Grundy function (no value is infinite).
//!
//! # Algorithms
//! **Acyclic** (tried first, O(n + m)): vertices are taken sinks first (Kahn's algorithm on
//! out-degrees, through the reverse edges); each gets the mex of its successors. If some
//! vertex is never freed, the graph has a cycle and the staged algorithm runs instead.
//!
//! **Staged** (Fraenkel and Yesha's algorithm), O((V + 1)(n + m)) for a largest finite value
//! `V`: stage `i = 0, 1, 2, …` labels `i` among the still unlabeled vertices by a retrograde
//! computation much like the engine's win/loss propagation, where "labeled `i`" plays the role
//! of a loss and "has a successor labeled `i`" the role of a win. Only the *relevant*
//! successors count: those unlabeled or labeled `∞` (a successor with a finite label, which is
//! below `i`, never stops a vertex from taking `i`). An unlabeled vertex is labeled `i` when it
//! has no successor labeled `i` and every relevant successor has one; this spreads through a
//! FIFO queue with one counter of relevant successors per vertex. At the end of the stage,
//! every unlabeled vertex without a successor labeled `i` is labeled `∞` (it can never take a
//! finite value: that would need a successor labeled `i`), and the others go on to stage
//! `i + 1`. Each stage costs O(unlabeled vertices + edges into marked vertices); a vertex
//! labeled finite has its in-edges scanned once in total.
//!
//! # Counters
//! The counter of a vertex of value `n` is its *remoteness within stage `n`*, in plies:
//! `c(u) = 0` when no successor has a larger or infinite value, and otherwise
//! `c(u) = 2 + max over successors v with γ(v) > n of (min over w ∈ F(v) with γ(w) = n of c(w))`.
//! The FIFO order of the stage computes exactly this (as the engine's queue computes exact
//! remoteness), and it satisfies B with `c(w) ≤ c(u) - 2`. For value 0 it equals the engine's
//! remoteness of the loss. The acyclic algorithm computes the same counters directly from the
//! formula (sinks first), so both algorithms give identical results.
//!
//! # Memory
//! Acyclic: 24 bytes per vertex plus 4 bytes per unit of value (the sum of all values, at most
//! the number of edges) for the counter tables. Staged: 32 bytes per vertex. The result keeps
//! 8 bytes per vertex plus the distinct sets `K`.

use crate::value::Sg;
use retrograde_graph::{Graph, GraphBuilder, Primitive, TurnRule, VertexId};
use retrograde_solve::Outcome;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

/// In `Grundy::values`: the bit that marks an infinite value (the low bits index its set K).
const INF_BIT: u32 = 1 << 31;
/// "No counter", for infinite values.
const NONE: u32 = u32::MAX;

/// Why the values could not be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GrundyError {
    /// The graph has go-again moves: after such a move the same player moves again, which the
    /// Sprague-Grundy theory of alternating play does not cover.
    GoAgain,
    /// The graph is an arena (vertices have owners): the players have different moves, so the
    /// game is not impartial.
    Arena,
    /// A vertex carries a terminal label other than `loss`.
    Terminal {
        /// The vertex.
        vertex: VertexId,
        /// Its label.
        label: Primitive,
    },
    /// A vertex has a score (the graph is scored): impartial values have none.
    Scored {
        /// The smallest vertex with a score.
        vertex: VertexId,
        /// Its score.
        score: i64,
    },
    /// A finite value would not fit in 31 bits (needs more than 2^31 vertices).
    TooLarge,
    /// Building a derived graph failed.
    Build(String),
}

impl fmt::Display for GrundyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GrundyError::GoAgain => f.write_str(
                "the graph has go-again moves; Sprague-Grundy values need every move to pass the turn",
            ),
            GrundyError::Arena => f.write_str(
                "the graph is an arena (vertices have owners); Sprague-Grundy values need an impartial game, where both players have the same moves",
            ),
            GrundyError::Terminal { vertex, label } => write!(
                f,
                "vertex {vertex} is labeled terminal {label}; Sprague-Grundy values use normal play, where a position without moves loses (only `terminal V loss` is accepted)"
            ),
            GrundyError::Scored { vertex, score } => write!(
                f,
                "vertex {vertex} has a score ({score}); Sprague-Grundy values have no scores: an impartial game ends when the player to move has no move, and that player loses"
            ),
            GrundyError::TooLarge => f.write_str("a Grundy value does not fit in 31 bits"),
            GrundyError::Build(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for GrundyError {}

/// Which algorithm [`grundy_with`] uses.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// The O(n + m) mex recursion when the graph is acyclic, else the staged algorithm.
    #[default]
    Auto,
    /// Always the staged algorithm (the same results; for tests and comparisons).
    Staged,
}

/// The generalized Sprague-Grundy value and counter of every vertex of a graph.
///
/// Stored as two flat arrays (4 + 4 bytes per vertex) plus the distinct sets `K`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grundy {
    /// A finite value, or `INF_BIT | id` of its set in `kset`.
    values: Vec<u32>,
    /// The counter of a finite value, `NONE` for an infinite one.
    counters: Vec<u32>,
    /// Set `id` is `kdata[koff[id]..koff[id + 1]]`.
    koff: Vec<usize>,
    kdata: Vec<u32>,
    acyclic: bool,
}

/// Totals over the values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// `finite[n]` = vertices of value `n`.
    pub finite: Vec<u64>,
    /// Vertices of value `∞(K)` with `0 ∈ K` (wins).
    pub infinite_win: u64,
    /// Vertices of value `∞(K)` with `0 ∉ K` (draws).
    pub infinite_draw: u64,
    /// The largest counter.
    pub max_counter: Option<u32>,
}

impl Counts {
    /// Vertices of value 0 (losses for the player to move).
    pub fn loss(&self) -> u64 {
        self.finite.first().copied().unwrap_or(0)
    }

    /// Wins for the player to move: finite values above 0, and `∞(K)` with `0 ∈ K`.
    pub fn win(&self) -> u64 {
        self.finite.iter().skip(1).sum::<u64>() + self.infinite_win
    }

    /// Draws: `∞(K)` with `0 ∉ K`.
    pub fn draw(&self) -> u64 {
        self.infinite_draw
    }

    /// Vertices with an infinite value.
    pub fn infinite(&self) -> u64 {
        self.infinite_win + self.infinite_draw
    }
}

impl Grundy {
    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True for the values of an empty graph.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value of `v`.
    ///
    /// # Panics
    /// When `v` is not a vertex.
    #[inline]
    pub fn value(&self, v: VertexId) -> Sg<'_> {
        let x = self.values[v as usize];
        if x & INF_BIT == 0 {
            Sg::Finite(x)
        } else {
            let id = (x & !INF_BIT) as usize;
            Sg::Infinite(&self.kdata[self.koff[id]..self.koff[id + 1]])
        }
    }

    /// The counter of `v` when its value is finite (see the module docs), else `None`.
    #[inline]
    pub fn counter(&self, v: VertexId) -> Option<u32> {
        let c = self.counters[v as usize];
        (c != NONE).then_some(c)
    }

    /// The outcome at `v` for the player to move, in the game alone (see [`Sg::outcome`]).
    pub fn outcome(&self, v: VertexId) -> Outcome {
        self.value(v).outcome()
    }

    /// True when the graph had no cycle (every value is finite and the plain mex recursion
    /// computed them).
    pub fn is_acyclic(&self) -> bool {
        self.acyclic
    }

    /// The largest finite value, if any vertex has one.
    pub fn max_finite(&self) -> Option<u32> {
        self.values
            .iter()
            .filter(|&&x| x & INF_BIT == 0)
            .max()
            .copied()
    }

    /// Totals by value.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for v in 0..self.len() as u32 {
            match self.value(v) {
                Sg::Finite(n) => {
                    let n = n as usize;
                    if c.finite.len() <= n {
                        c.finite.resize(n + 1, 0);
                    }
                    c.finite[n] += 1;
                    c.max_counter = c.max_counter.max(self.counter(v));
                }
                Sg::Infinite(k) if k.first() == Some(&0) => c.infinite_win += 1,
                Sg::Infinite(_) => c.infinite_draw += 1,
            }
        }
        c
    }
}

/// Computes the generalized Sprague-Grundy value and counter of every vertex of `g`, under
/// normal play (a position without moves loses).
///
/// Every move must pass the turn (no go-again moves, no owners). A vertex labeled `terminal
/// V loss` counts as a position without moves (its moves are ignored, as the engine does).
///
/// # Errors
/// [`GrundyError`] for go-again moves, an arena, a `win`/`tie` terminal label, or a score.
///
/// # Complexity
/// O(n + m) on an acyclic graph; otherwise O((V + 1)(n + m)) for the largest finite value
/// `V`. Memory: see the module docs.
///
/// # Example
/// ```
/// use retrograde_graph::format::{parse, Format, ParseOptions};
/// use retrograde_impartial::{grundy, Sg};
/// use retrograde_solve::Outcome;
///
/// // 0 -> 1 -> 2 (a dead end), and 3 <-> 4 with 4 -> 2.
/// let g = parse(b"0 1\n1 2\n3 4\n4 3\n4 2\n", Format::Edges, &ParseOptions::default()).unwrap();
/// let s = grundy(&g).unwrap();
/// assert_eq!(s.value(2), Sg::Finite(0));
/// assert_eq!(s.value(0), Sg::Finite(0));
/// assert_eq!(s.value(4), Sg::Finite(1));
/// // 3's only move is to 4 (value 1), and 4 cannot move back to a 0: 3 is worth 0.
/// assert_eq!(s.value(3), Sg::Finite(0));
/// assert!(!s.is_acyclic());
///
/// // A self-loop beside a move to a dead end: the player to move wins (move to 2), but the
/// // position is no nim-heap: its value is ∞{0}.
/// let g = parse(b"0 0\n0 1\n", Format::Edges, &ParseOptions::default()).unwrap();
/// let s = grundy(&g).unwrap();
/// assert_eq!(s.value(0).to_string(), "inf{0}");
/// assert_eq!(s.outcome(0), Outcome::Win);
/// ```
pub fn grundy(g: &Graph) -> Result<Grundy, GrundyError> {
    grundy_with(g, Method::Auto)
}

/// [`grundy`] with a choice of algorithm.
///
/// # Errors
/// As [`grundy`].
pub fn grundy_with(g: &Graph, method: Method) -> Result<Grundy, GrundyError> {
    let g = normal_play(g)?;
    let g = g.as_ref();
    if method == Method::Auto {
        if let Some((values, counters)) = acyclic(g)? {
            return Ok(Grundy {
                values,
                counters,
                koff: vec![0],
                kdata: Vec::new(),
                acyclic: true,
            });
        }
    }
    let (labels, counters) = staged(g)?;
    // Auto came here because of a cycle; a forced staged run may have been given a DAG.
    let acyclic =
        method == Method::Staged && labels.iter().all(|&x| x & INF_BIT == 0) && is_acyclic(g);
    Ok(with_sets(g, labels, counters, acyclic))
}

/// The graph as the theory sees it: checks the turn rule, labels and scores, and drops the moves of
/// vertices labeled `terminal loss` (the rules end the game there).
pub(crate) fn normal_play(g: &Graph) -> Result<Cow<'_, Graph>, GrundyError> {
    match g.turn_rule() {
        TurnRule::Alternate => {}
        TurnRule::GoAgain { forward, .. } => {
            if (0..g.edge_count()).any(|e| forward.get(e)) {
                return Err(GrundyError::GoAgain);
            }
        }
        TurnRule::Arena { .. } => return Err(GrundyError::Arena),
    }
    if g.is_scored() {
        let n = g.vertex_count() as u32;
        let scored = (0..n).find_map(|v| Some((v, g.score(v)?)));
        let (vertex, score) = scored.expect("a scored graph has a score");
        return Err(GrundyError::Scored { vertex, score });
    }
    if !g.has_primitives() {
        return Ok(Cow::Borrowed(g));
    }
    let n = g.vertex_count() as u32;
    let mut cut = false;
    for v in 0..n {
        match g.primitive(v) {
            None => {}
            Some(Primitive::Loss) => cut |= g.out_degree(v) > 0,
            Some(label) => return Err(GrundyError::Terminal { vertex: v, label }),
        }
    }
    if !cut {
        return Ok(Cow::Borrowed(g));
    }
    let mut b = GraphBuilder::with_capacity(g.edge_count());
    for u in (0..n).filter(|&u| g.primitive(u).is_none()) {
        for &v in g.successors(u) {
            b.add_edge(u, v);
        }
    }
    b.ensure_vertices(n as u64)
        .map_err(|e| GrundyError::Build(e.to_string()))?;
    b.build()
        .map(Cow::Owned)
        .map_err(|e| GrundyError::Build(e.to_string()))
}

/// True when `g` has no directed cycle (Kahn's algorithm).
fn is_acyclic(g: &Graph) -> bool {
    let n = g.vertex_count();
    let mut left: Vec<u32> = (0..n as u32).map(|u| g.out_degree(u) as u32).collect();
    let mut todo: Vec<u32> = (0..n as u32).filter(|&u| left[u as usize] == 0).collect();
    let mut done = 0usize;
    while let Some(v) = todo.pop() {
        done += 1;
        for &p in g.predecessors(v) {
            left[p as usize] -= 1;
            if left[p as usize] == 0 {
                todo.push(p);
            }
        }
    }
    done == n
}

/// The mex recursion, sinks first; `None` when the graph has a cycle. Returns values and
/// counters (see the module docs for the counter formula).
#[allow(clippy::type_complexity)]
fn acyclic(g: &Graph) -> Result<Option<(Vec<u32>, Vec<u32>)>, GrundyError> {
    let n = g.vertex_count();
    // `left[u]`: successors not yet valued while `u` waits; once `u` is valued, its counter.
    let mut left: Vec<u32> = (0..n as u32).map(|u| g.out_degree(u) as u32).collect();
    let mut order: Vec<u32> = Vec::with_capacity(n);
    order.extend((0..n as u32).filter(|&u| left[u as usize] == 0));
    let mut values = vec![0u32; n];
    // Counter tables: for a vertex `v` of value `k`, `table[start[v] + j]` for `j < k` is the
    // least counter among `v`'s successors of value `j` (every `j < k` occurs, by the mex).
    let mut start: Vec<u64> = vec![0; n];
    let mut table: Vec<u32> = Vec::new();
    // Scratch, indexed by value: `seen[x] == u + 1` when `u` has a successor of value `x`.
    let mut seen: Vec<u32> = Vec::new();
    let mut best: Vec<u32> = Vec::new();
    let mut head = 0;
    while head < order.len() {
        let u = order[head];
        head += 1;
        let succ = g.successors(u);
        if seen.len() <= succ.len() {
            seen.resize(succ.len() + 1, 0);
            best.resize(succ.len() + 1, 0);
        }
        let mark = u + 1; // ids stop below u32::MAX, so marks are never 0
        for &w in succ {
            let x = values[w as usize] as usize;
            // The mex of d values is at most d: larger values cannot matter.
            if x <= succ.len() {
                let c = left[w as usize];
                if seen[x] != mark {
                    seen[x] = mark;
                    best[x] = c;
                } else if c < best[x] {
                    best[x] = c;
                }
            }
        }
        let mex = (0..=succ.len()).find(|&x| seen[x] != mark).unwrap_or(0);
        if mex as u64 >= INF_BIT as u64 {
            return Err(GrundyError::TooLarge);
        }
        values[u as usize] = mex as u32;
        start[u as usize] = table.len() as u64;
        table.extend_from_slice(&best[..mex]);
        let mut counter = 0u32;
        for &v in succ {
            let k = values[v as usize] as usize;
            if k > mex {
                let c = table[start[v as usize] as usize + mex];
                counter = counter.max(c.saturating_add(2));
            }
        }
        left[u as usize] = counter;
        for &p in g.predecessors(u) {
            left[p as usize] -= 1;
            if left[p as usize] == 0 {
                order.push(p);
            }
        }
    }
    if order.len() < n {
        return Ok(None);
    }
    Ok(Some((values, left)))
}

/// Fraenkel and Yesha's staged algorithm. Returns labels (finite, or `INF_BIT` for infinite;
/// sets not yet attached) and counters (`NONE` for infinite).
fn staged(g: &Graph) -> Result<(Vec<u32>, Vec<u32>), GrundyError> {
    const OPEN: u32 = u32::MAX;
    let n = g.vertex_count();
    let mut label = vec![OPEN; n];
    // Relevant successors (open or infinite), one per edge; lowered when a successor gets a
    // finite label.
    let mut relevant: Vec<u32> = (0..n as u32).map(|u| g.out_degree(u) as u32).collect();
    // Relevant successors not yet known to have a successor labeled with this stage's value.
    let mut count = vec![0u32; n];
    // `marked[v] == stage + 1`: v has a successor labeled `stage` (so v cannot take it).
    let mut marked = vec![0u32; n];
    // For a labeled vertex its counter; for a marked one, while the stage runs, the plies to
    // reach a vertex labeled with the stage's value (1 + the least counter among them).
    let mut rem = vec![0u32; n];
    let mut open: Vec<u32> = (0..n as u32).collect();
    let mut next: Vec<u32> = Vec::new();
    let mut queue: Vec<u32> = Vec::new();
    let mut stage = 0u32;
    while !open.is_empty() {
        if stage >= INF_BIT {
            return Err(GrundyError::TooLarge);
        }
        let stamp = stage + 1;
        queue.clear();
        for &u in &open {
            let u = u as usize;
            count[u] = relevant[u];
            if count[u] == 0 {
                // Every successor has a finite label: 0..stage-1 all occur (u survived every
                // earlier stage by having a successor of that value), so its mex is `stage`.
                label[u] = stage;
                rem[u] = 0;
                queue.push(u as u32);
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head];
            head += 1;
            for &p in g.predecessors(v) {
                let pi = p as usize;
                let lp = label[pi];
                if lp == OPEN {
                    relevant[pi] -= 1;
                }
                if (lp == OPEN || lp == INF_BIT) && marked[pi] != stamp {
                    marked[pi] = stamp;
                    let reach = rem[v as usize].saturating_add(1);
                    rem[pi] = reach;
                    for &q in g.predecessors(p) {
                        let qi = q as usize;
                        if label[qi] == OPEN && marked[qi] != stamp {
                            count[qi] -= 1;
                            if count[qi] == 0 {
                                label[qi] = stage;
                                rem[qi] = reach.saturating_add(1);
                                queue.push(q);
                            }
                        }
                    }
                }
            }
        }
        next.clear();
        for &u in &open {
            let ui = u as usize;
            if label[ui] == OPEN {
                if marked[ui] == stamp {
                    next.push(u);
                } else {
                    label[ui] = INF_BIT;
                }
            }
        }
        std::mem::swap(&mut open, &mut next);
        stage += 1;
    }
    drop((relevant, count, marked, open, next, queue));
    for (r, &l) in rem.iter_mut().zip(&label) {
        if l == INF_BIT {
            *r = NONE;
        }
    }
    Ok((label, rem))
}

/// Attaches to every infinite vertex its set K (the finite values of its successors),
/// storing each distinct set once.
fn with_sets(g: &Graph, mut values: Vec<u32>, counters: Vec<u32>, acyclic: bool) -> Grundy {
    let mut ids: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut koff = vec![0usize];
    let mut kdata = Vec::new();
    let mut k = Vec::new();
    for u in 0..values.len() {
        if values[u] != INF_BIT {
            continue;
        }
        k.clear();
        k.extend(
            g.successors(u as u32)
                .iter()
                .map(|&v| values[v as usize])
                .filter(|&x| x & INF_BIT == 0),
        );
        k.sort_unstable();
        k.dedup();
        let id = *ids.entry(k.clone()).or_insert_with(|| {
            kdata.extend_from_slice(&k);
            koff.push(kdata.len());
            (koff.len() - 2) as u32
        });
        values[u] = INF_BIT | id;
    }
    Grundy {
        values,
        counters,
        koff,
        kdata,
        acyclic,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retrograde_graph::format::{parse, Format, ParseOptions};

    fn graph(text: &str) -> Graph {
        parse(text.as_bytes(), Format::Rg, &ParseOptions::default()).unwrap()
    }

    fn show(s: &Grundy) -> Vec<String> {
        (0..s.len() as u32)
            .map(|v| match s.counter(v) {
                Some(c) => format!("{}/{c}", s.value(v)),
                None => s.value(v).to_string(),
            })
            .collect()
    }

    #[test]
    fn pebbles_take_one_or_two() {
        let mut text = String::new();
        for v in 1..=10 {
            text.push_str(&format!("{v} {}\n", v - 1));
            if v >= 2 {
                text.push_str(&format!("{v} {}\n", v - 2));
            }
        }
        let g = graph(&text);
        for method in [Method::Auto, Method::Staged] {
            let s = grundy_with(&g, method).unwrap();
            for v in 0..=10u32 {
                assert_eq!(s.value(v), Sg::Finite(v % 3), "{method:?} {v}");
            }
            assert!(s.is_acyclic());
            // Value 0 at 3k: the counter is the engine's loss remoteness 2k.
            assert_eq!(s.counter(9), Some(6));
        }
    }

    #[test]
    fn loopy_values() {
        // 0 <-> 1, 1 -> 2 (dead end): 1 wins by moving to 2, so 0 (whose only move is to 1)
        // is lost: 0 has value 0, and 1 is 1 (its successors are 0 and 2, both 0... so mex 1).
        let s = grundy(&graph("0 1\n1 0\n1 2\n")).unwrap();
        assert_eq!(show(&s), ["0/2", "1/0", "0/0"]);
        // A two-cycle with no exit: both draw, K empty.
        let s = grundy(&graph("0 1\n1 0\n")).unwrap();
        assert_eq!(show(&s), ["inf{}", "inf{}"]);
        // A self-loop with an exit to a dead end.
        let s = grundy(&graph("0 0\n0 1\n")).unwrap();
        assert_eq!(show(&s), ["inf{0}", "0/0"]);
        // Smith's example shape: u -> a (0), u -> v, v -> u, v -> b where b has value 1.
        // u: successors a (0) and v. v: successors u and b (1).
        let s = grundy(&graph("0 1\n0 2\n2 0\n2 3\n3 4\n")).unwrap();
        // 4 dead end = 0, 3 -> 4 = 1, 1 dead end = 0. Stage 0: 1, 4 labeled 0; 0 and 3 marked;
        // 2's relevant successors are 0 and 3, both marked: 2 gets 0. Stage 1: 0 -> 1 (0), 2
        // (0): all finite, so 0 gets 1 (and 3 gets 1).
        assert_eq!(show(&s), ["1/0", "0/0", "0/2", "1/0", "0/0"]);
    }

    #[test]
    fn rejects_what_is_not_impartial_normal_play() {
        let e = grundy(&graph("0 1 again\n")).unwrap_err();
        assert_eq!(e, GrundyError::GoAgain);
        assert_eq!(
            grundy(&graph("owner 1 1\n0 1\n")).unwrap_err(),
            GrundyError::Arena
        );
        assert_eq!(
            grundy(&graph("0 1\nterminal 1 tie\n")).unwrap_err(),
            GrundyError::Terminal {
                vertex: 1,
                label: Primitive::Tie
            }
        );
        // `terminal loss` cuts the vertex's moves: 1 is a dead end, so 0 is worth 1.
        let s = grundy(&graph("0 1\n1 2\n2 1\nterminal 1 loss\n")).unwrap();
        assert_eq!(show(&s), ["1/0", "0/0", "1/0"]);
        // A score has no Grundy value, whatever its sign (the smallest scored vertex named).
        for (text, vertex, score) in [
            ("0 2\n2 3\nscore 2 -1\n", 2, -1),
            ("0 1\nscore 3 5\nscore 1 0\n", 1, 0),
        ] {
            let e = grundy(&graph(text)).unwrap_err();
            assert_eq!(e, GrundyError::Scored { vertex, score }, "{text}");
        }
    }

    #[test]
    fn empty_and_long() {
        let s = grundy(&graph("")).unwrap();
        assert!(s.is_empty());
        assert_eq!(s.max_finite(), None);
        // A long path, then a long cycle: no recursion.
        let n = 200_000u32;
        let mut b = GraphBuilder::new();
        for v in 1..n {
            b.add_edge(v, v - 1);
        }
        let g = b.build().unwrap();
        let s = grundy(&g).unwrap();
        assert_eq!(s.value(n - 1), Sg::Finite((n - 1) % 2));
        let mut b = GraphBuilder::new();
        for v in 0..n {
            b.add_edge(v, (v + 1) % n);
        }
        let s = grundy(&b.build().unwrap()).unwrap();
        assert_eq!(s.counts().infinite_draw, n as u64);
    }
}
