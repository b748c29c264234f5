//! Building a [`Graph`] from edges and annotations.

use crate::{BitSet, Graph, Primitive, TurnRule, VertexId, MAX_VERTEX_ID, MAX_VERTICES, NO_SCORE};
use rayon::prelude::*;
use std::fmt;

/// Why a graph could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// A vertex id does not fit the `u32` id space.
    VertexIdTooLarge {
        /// The offending id.
        id: u64,
    },
    /// More vertices were asked for than ids exist.
    TooManyVertices {
        /// The requested count.
        count: u64,
    },
    /// Go-again edges and owners were both given; an arena decides turns by owners alone.
    GoAgainInArena,
    /// A vertex with more moves than a `u32` counter holds.
    TooManyMoves {
        /// The vertex.
        vertex: u32,
    },
    /// A score of `i64::MIN`, which cannot be negated (scores lie in `-(2^63-1)..=2^63-1`).
    ScoreOutOfRange {
        /// The vertex.
        vertex: u32,
    },
    /// Successor lists that are not a layout of a graph (see [`Graph::from_successors`]).
    BadLayout {
        /// What is wrong.
        reason: String,
    },
    /// An owner other than 0 or 1.
    BadOwner {
        /// The vertex.
        vertex: u32,
        /// The owner given.
        owner: u64,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::VertexIdTooLarge { id } => write!(
                f,
                "vertex id {id} is too large (ids must be at most {MAX_VERTEX_ID})"
            ),
            BuildError::TooManyVertices { count } => write!(
                f,
                "{count} vertices is too many (at most {MAX_VERTICES})"
            ),
            BuildError::GoAgainInArena => f.write_str(
                "go-again edges cannot be combined with owners: in an arena the owners decide who moves",
            ),
            BuildError::TooManyMoves { vertex } => write!(
                f,
                "vertex {vertex} has {} or more moves, more than supported",
                u32::MAX
            ),
            BuildError::ScoreOutOfRange { vertex } => write!(
                f,
                "vertex {vertex}: a score must lie in -{max}..={max}",
                max = i64::MAX
            ),
            BuildError::BadLayout { reason } => write!(f, "not a graph layout: {reason}"),
            BuildError::BadOwner { vertex, owner } => {
                write!(f, "vertex {vertex}: owner must be 0 or 1, found {owner}")
            }
        }
    }
}

impl std::error::Error for BuildError {}

/// Checks that `id` is a valid vertex id and converts it.
///
/// # Errors
/// [`BuildError::VertexIdTooLarge`] when `id > MAX_VERTEX_ID`.
pub fn checked_id(id: u64) -> Result<VertexId, BuildError> {
    if id > MAX_VERTEX_ID {
        Err(BuildError::VertexIdTooLarge { id })
    } else {
        Ok(id as VertexId)
    }
}

/// The labels of a [`GraphBuilder`], without its edges ([`GraphBuilder::into_labels`]), in
/// the order given (a later label of a vertex overrides an earlier one).
#[derive(Clone, Debug, Default)]
pub struct Labels {
    /// The vertex count so far (largest id mentioned + 1, or more).
    pub vertices: u64,
    /// Primitive labels.
    pub primitive: Vec<(u32, Primitive)>,
    /// Scores (non-empty makes the graph scored).
    pub scores: Vec<(u32, i64)>,
    /// Owners (true: player 1); non-empty makes the graph an arena.
    pub owner: Vec<(u32, bool)>,
    /// Names.
    pub names: Vec<(u32, String)>,
    /// The start vertex.
    pub start: Option<u32>,
}

/// Collects edges and annotations, then lays them out as a [`Graph`].
///
/// The vertex count is the largest id mentioned plus one, or more with
/// [`GraphBuilder::ensure_vertices`].
///
/// # Example
/// ```
/// use retrograde_graph::{GraphBuilder, Primitive};
/// let mut b = GraphBuilder::new();
/// b.add_edge(0, 1);
/// b.add_edge_again(1, 2); // the same player moves again after 1 -> 2
/// b.set_primitive(2, Primitive::Tie);
/// b.ensure_vertices(4);
/// let g = b.build().unwrap();
/// assert_eq!(g.vertex_count(), 4);
/// assert_eq!(g.primitive(2), Some(Primitive::Tie));
/// ```
#[derive(Clone, Debug, Default)]
pub struct GraphBuilder {
    /// Edges in the order given, kept as the chunks they arrived in (parsers hand over one
    /// vector per chunk, so nothing is copied into one big vector).
    edges: Vec<Vec<(u32, u32)>>,
    edge_count: usize,
    again: Option<BitSet>,
    n: u64,
    primitive: Vec<(u32, Primitive)>,
    scores: Vec<(u32, i64)>,
    owner: Vec<(u32, bool)>,
    names: Vec<(u32, String)>,
    start: Option<u32>,
}

impl GraphBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty builder with room for `edges` edges.
    pub fn with_capacity(edges: usize) -> Self {
        GraphBuilder {
            edges: vec![Vec::with_capacity(edges)],
            ..Self::default()
        }
    }

    fn touch(&mut self, v: u32) {
        self.n = self.n.max(v as u64 + 1);
    }

    /// Adds a move `u -> v` that passes the turn.
    pub fn add_edge(&mut self, u: VertexId, v: VertexId) {
        self.touch(u.max(v));
        if self.edges.is_empty() {
            self.edges.push(Vec::new());
        }
        self.edges
            .last_mut()
            .expect("one chunk exists")
            .push((u, v));
        self.edge_count += 1;
    }

    /// Adds a move `u -> v` after which the same player moves again.
    pub fn add_edge_again(&mut self, u: VertexId, v: VertexId) {
        let i = self.edge_count;
        self.add_edge(u, v);
        self.mark_again(i);
    }

    /// Flags the edge with index `i` (counting from 0 in the order added) as go-again.
    ///
    /// # Panics
    /// When no such edge was added.
    pub fn mark_again(&mut self, i: usize) {
        assert!(i < self.edge_count, "edge {i} does not exist");
        let bits = self.again.get_or_insert_with(BitSet::default);
        bits.grow(i + 1);
        bits.set(i, true);
    }

    /// Appends a chunk of turn-passing edges, with the largest id among them (`None` when
    /// the chunk is empty). Parsers use this; the vector is kept, not copied.
    pub fn push_chunk(&mut self, edges: Vec<(u32, u32)>, max_id: Option<u32>) {
        if let Some(m) = max_id {
            self.touch(m);
        }
        self.edge_count += edges.len();
        self.edges.push(edges);
        // Later single edges go to a fresh chunk so that the order stays as given.
        self.edges.push(Vec::new());
    }

    /// Makes the graph have at least `n` vertices.
    ///
    /// # Errors
    /// [`BuildError::TooManyVertices`] past [`MAX_VERTICES`].
    pub fn ensure_vertices(&mut self, n: u64) -> Result<(), BuildError> {
        if n > MAX_VERTICES {
            return Err(BuildError::TooManyVertices { count: n });
        }
        self.n = self.n.max(n);
        Ok(())
    }

    /// Fixes the result at `v` (it becomes terminal; its moves are kept but not played).
    pub fn set_primitive(&mut self, v: VertexId, p: Primitive) {
        self.touch(v);
        self.primitive.push((v, p));
    }

    /// Makes `v` terminal, worth `score` to the player to move there (its moves are kept but
    /// not played), and the graph scored: see [`Graph::score`].
    ///
    /// # Errors
    /// [`BuildError::ScoreOutOfRange`] for `i64::MIN`, the one score that cannot be negated.
    pub fn set_score(&mut self, v: VertexId, score: i64) -> Result<(), BuildError> {
        if score == NO_SCORE {
            return Err(BuildError::ScoreOutOfRange { vertex: v });
        }
        self.touch(v);
        self.scores.push((v, score));
        Ok(())
    }

    /// Makes the graph an arena and gives `v` an owner (0 or 1; unnamed vertices belong to 0).
    ///
    /// # Errors
    /// [`BuildError::BadOwner`] for any other owner.
    pub fn set_owner(&mut self, v: VertexId, owner: u64) -> Result<(), BuildError> {
        if owner > 1 {
            return Err(BuildError::BadOwner { vertex: v, owner });
        }
        self.touch(v);
        self.owner.push((v, owner == 1));
        Ok(())
    }

    /// Names `v`.
    pub fn set_name(&mut self, v: VertexId, name: impl Into<String>) {
        self.touch(v);
        self.names.push((v, name.into()));
    }

    /// Marks `v` as the start position.
    pub fn set_start(&mut self, v: VertexId) {
        self.touch(v);
        self.start = Some(v);
    }

    /// Number of vertices the graph would have if built now.
    pub fn vertex_count(&self) -> u64 {
        self.n
    }

    /// Number of edges added so far.
    pub fn edge_count(&self) -> usize {
        self.edge_count
    }

    /// Takes the labels given so far (and the vertex count), dropping the edges: for a caller
    /// that lays the moves out itself (each rank of a distributed solve keeps its share).
    pub fn into_labels(self) -> Labels {
        Labels {
            vertices: self.n,
            primitive: self.primitive,
            scores: self.scores,
            owner: self.owner,
            names: self.names,
            start: self.start,
        }
    }

    /// Lays the graph out. Time O(n + m); peak extra memory 4 bytes per edge plus
    /// 16 bytes per vertex beyond the builder's own 8 bytes per edge.
    ///
    /// # Errors
    /// [`BuildError::GoAgainInArena`] when both go-again edges and owners were given.
    pub fn build(self) -> Result<Graph, BuildError> {
        let GraphBuilder {
            edges,
            edge_count: m,
            again,
            n,
            primitive,
            scores,
            owner,
            names,
            start,
        } = self;
        if again.is_some() && !owner.is_empty() {
            return Err(BuildError::GoAgainInArena);
        }
        if n > MAX_VERTICES {
            return Err(BuildError::TooManyVertices { count: n });
        }
        let n = n as usize;

        let (fwd_off, fwd, rev_off, rev, fwd_again, rev_again) = match again {
            None => {
                let parts = part_count(m);
                // Reverse first (predecessors in file order), then forward from the reverse
                // walked in target order: successor lists come out sorted, with no sort.
                // One grouping buffer serves both (fresh pages cost time to fault).
                let mut temp = Vec::new();
                let rev_parts = chunk_parts(edges, m, parts);
                let (rev_off, rev) = group(n, m, rev_parts, &mut temp);
                let fwd_parts = csr_parts(&rev_off, &rev, parts);
                let (fwd_off, fwd) = group(n, m, fwd_parts, &mut temp);
                (fwd_off, fwd, rev_off, rev, None, None)
            }
            Some(again) => {
                let (fwd_off, fwd, rev_off, rev, fa, ra) = layout_simple(n, m, edges, &again);
                (fwd_off, fwd, rev_off, rev, Some(fa), Some(ra))
            }
        };
        if let Some(u) = (0..n).find(|&u| fwd_off[u + 1] - fwd_off[u] >= u32::MAX as u64) {
            return Err(BuildError::TooManyMoves { vertex: u as u32 });
        }

        let turn = if !owner.is_empty() {
            let mut bits = BitSet::new(n);
            for (v, o) in owner {
                bits.set(v as usize, o);
            }
            TurnRule::Arena { owner: bits }
        } else if let (Some(forward), Some(reverse)) = (fwd_again, rev_again) {
            TurnRule::GoAgain { forward, reverse }
        } else {
            TurnRule::Alternate
        };
        let primitive = (!primitive.is_empty()).then(|| {
            let mut p = vec![None; n];
            for (v, x) in primitive {
                p[v as usize] = Some(x);
            }
            p
        });
        let scores = (!scores.is_empty()).then(|| crate::Scores::new(n, scores));
        let names = (!names.is_empty()).then(|| {
            let mut p = vec![String::new(); n];
            for (v, x) in names {
                p[v as usize] = x;
            }
            p
        });
        Ok(Graph {
            n: n as u32,
            fwd_off,
            fwd,
            rev_off,
            rev,
            turn,
            primitive,
            scores,
            names,
            start,
        })
    }
}

impl Graph {
    /// A graph laid out from its successor lists, already grouped by vertex: the moves of
    /// `u` are `targets[offsets[u]..offsets[u + 1]]`, in any order (each list is sorted here;
    /// parallel moves are kept). With `owner` (a bit per vertex, set for player 1) the graph
    /// is an arena, else every move passes the turn. This is what a reader of a format that
    /// lists each vertex's moves together (a parity game's) builds, without the edge pairs
    /// [`GraphBuilder`] collects. Predecessors come in the order of their sources' ids.
    ///
    /// # Errors
    /// [`BuildError::BadLayout`] when `offsets` is empty, does not start at 0, decreases, or
    /// does not end at `targets.len()`, when a target is not a vertex, or when `owner` has not
    /// a bit per vertex; [`BuildError::TooManyVertices`] and [`BuildError::TooManyMoves`] past
    /// the limits of [`GraphBuilder::build`].
    ///
    /// # Complexity
    /// O(n + m) time besides sorting each list; 8 bytes per edge and 8 per vertex beyond the
    /// inputs, which become the forward lists.
    ///
    /// # Example
    /// ```
    /// use retrograde_graph::{BitSet, Graph};
    /// let mut owner = BitSet::new(3);
    /// owner.set(1, true);
    /// let g = Graph::from_successors(vec![0, 2, 3, 4], vec![2, 1, 2, 0], Some(owner)).unwrap();
    /// assert_eq!(g.successors(0), &[1, 2]);
    /// assert_eq!(g.predecessors(2), &[0, 1]);
    /// assert_eq!(g.owner(1), 1);
    /// ```
    pub fn from_successors(
        offsets: Vec<u64>,
        mut targets: Vec<u32>,
        owner: Option<BitSet>,
    ) -> Result<Graph, BuildError> {
        let bad = |reason: String| Err(BuildError::BadLayout { reason });
        let Some(n) = offsets.len().checked_sub(1) else {
            return bad("no offsets (a graph of n vertices has n + 1)".into());
        };
        if n as u64 > MAX_VERTICES {
            return Err(BuildError::TooManyVertices { count: n as u64 });
        }
        let m = targets.len();
        if offsets[0] != 0 || offsets[n] != m as u64 {
            return bad(format!(
                "the offsets run from {} to {}, not from 0 to the {m} targets",
                offsets[0], offsets[n]
            ));
        }
        if let Some(u) = (0..n).find(|&u| offsets[u] > offsets[u + 1]) {
            return bad(format!("the offsets decrease after vertex {u}"));
        }
        if let Some(u) = (0..n).find(|&u| offsets[u + 1] - offsets[u] >= u32::MAX as u64) {
            return Err(BuildError::TooManyMoves { vertex: u as u32 });
        }
        if let Some(&t) = targets.iter().find(|&&t| t as usize >= n) {
            return bad(format!("target {t} is not one of the {n} vertices"));
        }
        if let Some(o) = &owner {
            if o.len() != n {
                return bad(format!("{} owners for {n} vertices", o.len()));
            }
        }
        for u in 0..n {
            let list = &mut targets[offsets[u] as usize..offsets[u + 1] as usize];
            if !list.is_sorted() {
                list.sort_unstable();
            }
        }
        // Reverse lists: a counting sort on the target, sources in increasing order.
        let mut rev_off = vec![0u64; n + 1];
        for &v in &targets {
            rev_off[v as usize + 1] += 1;
        }
        for i in 0..n {
            rev_off[i + 1] += rev_off[i];
        }
        let mut rev = vec![0u32; m];
        let mut next: Vec<u64> = rev_off[..n].to_vec();
        for u in 0..n {
            for &v in &targets[offsets[u] as usize..offsets[u + 1] as usize] {
                let slot = &mut next[v as usize];
                rev[*slot as usize] = u as u32;
                *slot += 1;
            }
        }
        Ok(Graph {
            n: n as u32,
            fwd_off: offsets,
            fwd: targets,
            rev_off,
            rev,
            turn: match owner {
                Some(owner) => TurnRule::Arena { owner },
                None => TurnRule::Alternate,
            },
            primitive: None,
            scores: None,
            names: None,
            start: None,
        })
    }
}

/// The plain layout: two stable counting sorts (reverse from the edges, forward from the
/// reverse), sequential. It is the readable
/// reference for [`group`] (tests check they agree) and handles go-again flags.
#[allow(clippy::type_complexity)]
#[allow(clippy::needless_range_loop)] // index loops mirror the CSR definitions
fn layout_simple(
    n: usize,
    m: usize,
    edges: Vec<Vec<(u32, u32)>>,
    again: &BitSet,
) -> (Vec<u64>, Vec<u32>, Vec<u64>, Vec<u32>, BitSet, BitSet) {
    // Reverse CSR: a stable counting sort on the target, so predecessors keep file order.
    let mut rev_off = vec![0u64; n + 1];
    for &(_, v) in edges.iter().flatten() {
        rev_off[v as usize + 1] += 1;
    }
    for i in 0..n {
        rev_off[i + 1] += rev_off[i];
    }
    let mut rev = vec![0u32; m];
    let mut rev_again = BitSet::new(m);
    let mut next: Vec<u64> = rev_off[..n].to_vec();
    for (i, &(u, v)) in edges.iter().flatten().enumerate() {
        let slot = &mut next[v as usize];
        rev[*slot as usize] = u;
        if i < again.len() && again.get(i) {
            rev_again.set(*slot as usize, true);
        }
        *slot += 1;
    }
    drop(edges);

    // Forward CSR from the reverse, walked by target: successors come out sorted.
    let mut fwd_off = vec![0u64; n + 1];
    for &u in &rev {
        fwd_off[u as usize + 1] += 1;
    }
    for i in 0..n {
        fwd_off[i + 1] += fwd_off[i];
    }
    let mut fwd = vec![0u32; m];
    let mut fwd_again = BitSet::new(m);
    next.copy_from_slice(&fwd_off[..n]);
    for v in 0..n {
        for e in rev_off[v] as usize..rev_off[v + 1] as usize {
            let u = rev[e] as usize;
            let slot = next[u] as usize;
            fwd[slot] = v as u32;
            if rev_again.get(e) {
                fwd_again.set(slot, true);
            }
            next[u] += 1;
        }
    }
    (fwd_off, fwd, rev_off, rev, fwd_again, rev_again)
}

/// A run of (key, value) pairs, one of several that together make the whole sequence; it can
/// be walked twice: once to count, once (the last time) to place.
trait Part: Send + Sync {
    fn walk(&self, f: impl FnMut(u32, u32));
    /// The last walk; it may free memory as it goes.
    fn walk_last(self, f: impl FnMut(u32, u32))
    where
        Self: Sized,
    {
        self.walk(f)
    }
}

/// Some of the builder's edge chunks, walked as (target, source): the layout groups them by
/// target into the reverse CSR. The last walk frees each chunk once placed, so the chunks and
/// the grouped copy are never both whole in memory.
struct Chunks(Vec<Vec<(u32, u32)>>);

impl Part for Chunks {
    fn walk(&self, mut f: impl FnMut(u32, u32)) {
        for &(u, v) in self.0.iter().flatten() {
            f(v, u);
        }
    }

    fn walk_last(self, mut f: impl FnMut(u32, u32)) {
        for chunk in self.0 {
            for &(u, v) in &chunk {
                f(v, u);
            }
        }
    }
}

/// The entries of rows `lo..hi` of a CSR, as (entry, row), in row order: a reverse CSR's
/// rows are targets and its entries sources, so this yields (source, target) by target.
#[derive(Copy, Clone)]
struct Reversed<'a> {
    off: &'a [u64],
    targets: &'a [u32],
    lo: usize,
    hi: usize,
}

impl Part for Reversed<'_> {
    fn walk(&self, mut f: impl FnMut(u32, u32)) {
        for u in self.lo..self.hi {
            for &v in &self.targets[self.off[u] as usize..self.off[u + 1] as usize] {
                f(v, u as u32);
            }
        }
    }
}

/// How many parts to cut the pairs into: a few per thread, or one for small inputs.
fn part_count(m: usize) -> usize {
    if m < (1 << 20) {
        1
    } else {
        4 * rayon::current_num_threads()
    }
}

/// Cuts the chunk list into about `parts` runs of consecutive chunks with similar sizes.
fn chunk_parts(chunks: Vec<Vec<(u32, u32)>>, m: usize, parts: usize) -> Vec<Chunks> {
    let target = m.div_ceil(parts.max(1)).max(1);
    let empty = || Chunks(Vec::new());
    let mut out = vec![empty()];
    let mut size = 0;
    for c in chunks {
        if size >= target {
            out.push(empty());
            size = 0;
        }
        size += c.len();
        out.last_mut().expect("one part exists").0.push(c);
    }
    out
}

/// Cuts a CSR's rows into about `parts` ranges with similar entry counts.
fn csr_parts<'a>(off: &'a [u64], targets: &'a [u32], parts: usize) -> Vec<Reversed<'a>> {
    let n = off.len() - 1;
    let m = targets.len() as u64;
    let mut out = Vec::new();
    let mut lo = 0;
    for p in 1..=parts.max(1) {
        let hi = if p == parts.max(1) {
            n
        } else {
            off.partition_point(|&o| o < m * p as u64 / parts as u64)
                .min(n)
                .max(lo)
        };
        out.push(Reversed {
            off,
            targets,
            lo,
            hi,
        });
        lo = hi;
    }
    out
}

/// At most this many buckets, so that the scatter writes few enough streams to stay cached.
const MAX_BUCKETS: usize = 1024;

/// Groups pairs by key into CSR (offsets with `n + 1` entries, values), keeping the given
/// order within each key.
///
/// A radix grouping in three passes, each parallel: count pairs per bucket of keys (per part),
/// scatter them bucket by bucket into a buffer (each part writes its own slice of each bucket,
/// so the order is the sequential one), then a counting sort inside each bucket, whose few
/// thousand keys keep the offsets and output in cache. Random writes over the whole output,
/// which dominate a plain counting sort on big graphs, never happen.
/// `temp` is scratch space (any contents), grown to `m` pairs and left for the next call.
fn group<P: Part>(
    n: usize,
    m: usize,
    parts: Vec<P>,
    temp: &mut Vec<(u32, u32)>,
) -> (Vec<u64>, Vec<u32>) {
    let mut shift = 0;
    while n.div_ceil(1 << shift) > MAX_BUCKETS {
        shift += 1;
    }
    let buckets = n.div_ceil(1 << shift).max(1);

    // Pass 1: a histogram of buckets per part.
    let hist: Vec<Vec<usize>> = parts
        .par_iter()
        .map(|p| {
            let mut h = vec![0usize; buckets];
            p.walk(|k, _| h[(k >> shift) as usize] += 1);
            h
        })
        .collect();
    let mut start = vec![0u64; buckets + 1];
    for b in 0..buckets {
        start[b + 1] = start[b] + hist.iter().map(|h| h[b] as u64).sum::<u64>();
    }

    // Pass 2: scatter. Bucket b holds part 0's pairs, then part 1's, ...
    if temp.len() < m {
        *temp = vec![(0u32, 0u32); m];
    }
    {
        let mut slices: Vec<Vec<&mut [(u32, u32)]>> = (0..parts.len())
            .map(|_| Vec::with_capacity(buckets))
            .collect();
        let mut rest = &mut temp[..];
        for b in 0..buckets {
            for (p, h) in hist.iter().enumerate() {
                let (here, after) = rest.split_at_mut(h[b]);
                slices[p].push(here);
                rest = after;
            }
        }
        parts
            .into_par_iter()
            .zip(slices)
            .for_each(|(part, mut out)| {
                let mut at = vec![0usize; buckets];
                part.walk_last(|k, v| {
                    let b = (k >> shift) as usize;
                    out[b][at[b]] = (k, v);
                    at[b] += 1;
                });
            });
    }

    // Pass 3: a counting sort inside each bucket.
    let mut off = vec![0u64; n + 1];
    let mut out = vec![0u32; m];
    let mut jobs = Vec::with_capacity(buckets);
    let (mut off_rest, mut out_rest) = (&mut off[1..], &mut out[..]);
    for b in 0..buckets {
        let lo = b << shift;
        let hi = ((b + 1) << shift).min(n);
        let (o, orest) = off_rest.split_at_mut(hi - lo);
        let len = (start[b + 1] - start[b]) as usize;
        let (e, erest) = out_rest.split_at_mut(len);
        off_rest = orest;
        out_rest = erest;
        jobs.push((
            lo,
            o,
            e,
            &temp[start[b] as usize..start[b + 1] as usize],
            start[b],
        ));
    }
    jobs.into_par_iter()
        .for_each(|(lo, offs, outs, items, base)| {
            let mut at = vec![0u64; offs.len()];
            for &(k, _) in items {
                at[k as usize - lo] += 1;
            }
            let mut run = 0u64;
            for (i, c) in at.iter_mut().enumerate() {
                let d = *c;
                *c = run;
                run += d;
                offs[i] = base + run;
            }
            for &(k, v) in items {
                let c = &mut at[k as usize - lo];
                outs[*c as usize] = v;
                *c += 1;
            }
        });
    (off, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csr_invariants_hold() {
        let mut b = GraphBuilder::new();
        b.add_edge(2, 0);
        b.add_edge(0, 1);
        b.add_edge_again(0, 1);
        b.add_edge(1, 1);
        b.add_edge(0, 2);
        let g = b.build().unwrap();
        assert_eq!(g.vertex_count(), 3);
        assert_eq!(g.edge_count(), 5);
        assert_eq!(g.successors(0), &[1, 1, 2]);
        assert_eq!(g.successors(2), &[0]);
        assert_eq!(g.successors(1), &[1]);
        assert_eq!(g.predecessors(1), &[0, 0, 1]);
        assert_eq!(g.predecessors(0), &[2]);
        let r = g.successor_range(0);
        let flags: Vec<bool> = r
            .map(|e| g.forward_keeps_turn(e, 0, g.forward_targets()[e]))
            .collect();
        assert_eq!(flags, [false, true, false]);
        let r = g.predecessor_range(1);
        let flags: Vec<bool> = r
            .map(|e| g.reverse_keeps_turn(e, g.reverse_sources()[e], 1))
            .collect();
        assert_eq!(flags, [false, true, false]);
    }

    proptest::proptest! {
        #[test]
        fn grouped_layout_equals_the_simple_one(
            n in 1usize..3000,
            raw in proptest::collection::vec((0u32..3000, 0u32..3000), 0..6000),
        ) {
            let edges: Vec<(u32, u32)> =
                raw.iter().map(|&(u, v)| (u % n as u32, v % n as u32)).collect();
            let m = edges.len();
            // Several chunks, as a parser hands them over.
            let chunks: Vec<Vec<(u32, u32)>> = edges.chunks(97).map(<[_]>::to_vec).collect();
            // Several parts, to exercise the parallel passes on small inputs too.
            let mut temp = Vec::new();
            let (ro, r) = group(n, m, chunk_parts(chunks.clone(), m, 5), &mut temp);
            let (fo, f) = group(n, m, csr_parts(&ro, &r, 7), &mut temp);
            let (sfo, sf, sro, sr, _, _) = layout_simple(n, m, chunks, &BitSet::new(0));
            proptest::prop_assert_eq!((fo, f, ro, r), (sfo, sf, sro, sr));
        }
    }

    #[test]
    fn id_limits_are_checked() {
        assert!(checked_id(MAX_VERTEX_ID).is_ok());
        assert_eq!(
            checked_id(u32::MAX as u64),
            Err(BuildError::VertexIdTooLarge {
                id: u32::MAX as u64
            })
        );
        let mut b = GraphBuilder::new();
        assert!(b.ensure_vertices(MAX_VERTICES + 1).is_err());
    }

    #[test]
    fn arena_and_go_again_conflict() {
        let mut b = GraphBuilder::new();
        b.add_edge_again(0, 1);
        b.set_owner(1, 1).unwrap();
        assert_eq!(b.build().unwrap_err(), BuildError::GoAgainInArena);
        assert!(GraphBuilder::new().set_owner(0, 2).is_err());
    }
}
