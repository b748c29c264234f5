//! The backward propagation at the heart of retrograde analysis, and the attractor built on
//! it.
//!
//! Retrograde analysis decides a vertex from its moves' targets: the player to move wins as
//! soon as one move reaches a position lost for the opponent, and loses once every move has
//! been found to reach a position the opponent wins (a counter of moves not yet known to
//! lose, counted down). [`spread`] is that loop, written once: a FIFO queue of decided
//! vertices, each one's predecessors visited through the reverse edges, with what a move does
//! to its source left to a [`Step`]. The solver's wins and losses (`retro.rs`) are one step;
//! the attractor below is another.
//!
//! # Attractors
//! In an *arena* every vertex has an owner, the player who moves there. The attractor of
//! player `p` to a set `T` within a subgame `S` is the set of vertices of `S` from which `p`
//! can force the play into `T` while it stays in `S`: it is `T`, and every vertex of `S` owned
//! by `p` with a move into the attractor, and every vertex of `S` owned by the opponent all
//! of whose moves within `S` lead into it (a vertex without moves in `S` joins only as a
//! target: the propagation, which starts from the set, never reaches it; in the subgames of
//! parity algorithms every vertex has a move). It is the retrograde solve of the reachability
//! game "`p` wins on reaching `T`", restricted to `S`: `p`'s vertices win through one move,
//! the opponent's lose when their counter of escapes reaches zero. It is the building block
//! of every parity game algorithm (Zielonka's, priority promotion, the quasi-polynomial
//! ones), each of which calls it many times, on subgames that shrink and grow again.
//!
//! [`Attractor`] computes it in time linear in the edges it looks at: the targets' and the
//! attracted vertices' incoming edges, and the outgoing edges of the opponent's vertices it
//! counts. A subgame is whatever the caller keeps (a bit set, a region number per vertex):
//! the [`Subgame`] trait asks it only whether a vertex may still join, and tells it who
//! joined, and through which move. The counters are the attractor's own, numbered by the run
//! so that a run never clears them: the escapes of an opponent's vertex are counted when
//! the attractor first reaches it in a run (its moves to open vertices, and to vertices that
//! joined in this run, each of which counts down once as it leaves the queue).
//!
//! # Example
//! ```
//! use retrograde_graph::{BitSet, GraphBuilder};
//! use retrograde_solve::attract::{Attractor, Subgame, NONE};
//!
//! // 0 -> 1 -> 2 -> 2, and 1 -> 3 -> 0; vertex 1 belongs to player 1, the others to player 0.
//! let mut b = GraphBuilder::new();
//! for (u, v) in [(0, 1), (1, 2), (2, 2), (1, 3), (3, 0)] {
//!     b.add_edge(u, v);
//! }
//! for v in 0..4 {
//!     b.set_owner(v, u64::from(v == 1)).unwrap();
//! }
//! let g = b.build().unwrap();
//!
//! /// The whole game is the subgame; the set is a bit per vertex, the strategy a move each.
//! struct Set { set: BitSet, via: Vec<u32> }
//! impl Subgame for Set {
//!     fn open(&self, v: u32) -> bool { !self.set.get(v as usize) }
//!     fn in_set(&self, v: u32) -> bool { self.set.get(v as usize) }
//!     fn join(&mut self, v: u32, via: u32) {
//!         self.set.set(v as usize, true);
//!         self.via[v as usize] = via;
//!     }
//! }
//! let mut sub = Set { set: BitSet::new(4), via: vec![NONE; 4] };
//! let mut attr = Attractor::new(4);
//! attr.start();
//! attr.add(2, &mut sub); // player 0 wants to reach vertex 2
//! attr.attract(&g, 0, &mut sub);
//! // Player 1 at vertex 1 can escape to 3, so nobody is forced to 2 but 2 itself.
//! assert_eq!(attr.joined(), &[2]);
//! attr.start();
//! attr.add(3, &mut sub);
//! attr.attract(&g, 0, &mut sub);
//! // Now 1 has no move left outside the set {2, 3}; then 0 moves to 1.
//! assert_eq!(attr.joined(), &[3, 1, 0]);
//! assert_eq!(sub.via[0], 1);
//! assert_eq!(sub.via[1], NONE); // forced
//! ```

use crate::hint::prefetch;
use retrograde_graph::{BitSet, Graph, TurnRule};

/// No vertex: the move of a vertex that joined an attractor because it was forced (its owner
/// is the opponent), or of a target.
pub const NONE: u32 = u32::MAX;

/// One kind of backward propagation: what the move `u -> v` does to `u` once `v` is decided.
pub(crate) trait Step {
    /// What a step needs to know of the decided vertex `v`, read once when it leaves the
    /// queue.
    type Decided: Copy;
    /// Reads what `v` was decided to be.
    fn decided(&self, v: u32) -> Self::Decided;
    /// The move `u -> v` (reverse edge `e`) leads to `v`, decided as `d`; true when this
    /// decides `u` (which [`spread`] then queues).
    fn step(&mut self, e: usize, u: u32, v: u32, d: Self::Decided) -> bool;
    /// A hint that `v`'s state is read soon.
    fn prefetch(&self, v: u32);
}

/// Spreads decisions backwards from `queue[head..]` in FIFO order, the vertices they decide
/// appended to `queue`; returns the reverse edges looked at. The queue is known ahead, so
/// memory is fetched ahead in three stages: offsets, then predecessor lists and the decided
/// vertex's state, then the predecessors' states.
#[inline(always)]
pub(crate) fn spread<S: Step>(g: &Graph, s: &mut S, queue: &mut Vec<u32>, mut head: usize) -> u64 {
    let rev = g.reverse_sources();
    let rev_off = g.reverse_offsets();
    let mut scanned = 0;
    while head < queue.len() {
        if let Some(&w) = queue.get(head + 32) {
            prefetch(rev_off, w as usize);
        }
        if let Some(&w) = queue.get(head + 16) {
            prefetch(rev, rev_off[w as usize] as usize);
            s.prefetch(w);
        }
        if let Some(&w) = queue.get(head + 8) {
            for &u in g.predecessors(w) {
                s.prefetch(u);
            }
        }
        let v = queue[head];
        head += 1;
        let d = s.decided(v);
        let range = g.predecessor_range(v);
        scanned += range.len() as u64;
        let first = range.start;
        // Over the slice, so that the loop has no bounds check.
        for (k, &u) in rev[range].iter().enumerate() {
            if s.step(first + k, u, v, d) {
                queue.push(u);
            }
        }
    }
    scanned
}

/// A subgame and a set growing in it, as an [`Attractor`] sees them. The caller keeps both
/// in whatever form suits its algorithm.
pub trait Subgame {
    /// `v` is in the subgame and not in the set: it may still join.
    fn open(&self, v: u32) -> bool;
    /// `v` is in the set (a target, or a vertex that joined). Only [`Attractor::try_join`]
    /// asks.
    fn in_set(&self, v: u32) -> bool;
    /// A move to `v` lets the opponent stay out of the set: `v` is in the subgame and not in
    /// the set. By default exactly the open vertices; a caller whose subgame holds vertices
    /// that can never join (won by the opponent already, say) says so here, so that the
    /// opponent's moves to them count as escapes.
    #[inline(always)]
    fn escape(&self, v: u32) -> bool {
        self.open(v)
    }
    /// Whether a move to `v` is still to count down for the opponent's vertex it leaves: `v`
    /// is an escape ([`Subgame::escape`]), or joined in this run. `None` (the default): the
    /// attractor tells the vertices that joined in this run by its own stamps. A subgame that
    /// can tell them apart itself (say by a number only this run writes) answers here, which
    /// saves a look-up per move counted.
    #[inline(always)]
    fn counts(&self, v: u32) -> Option<bool> {
        let _ = v;
        None
    }
    /// `v` joins the set: through the move to `via` when its owner is the attracting player,
    /// or forced ([`NONE`]; also for targets added with [`Attractor::add`]). Afterwards
    /// [`Subgame::open`] must say false for `v`.
    fn join(&mut self, v: u32, via: u32);
    /// A hint that `v`'s entry is read soon (a prefetch); by default nothing.
    #[inline(always)]
    fn prefetch(&self, v: u32) {
        let _ = v;
    }
}

/// The attractor's own state: a queue and a counter per vertex, reused from run to run.
///
/// A run is [`Attractor::start`], targets added with [`Attractor::add`] (or [`Attractor::seed`]
/// for vertices already in the set, or vertices tried one by one with
/// [`Attractor::try_join`]), then [`Attractor::attract`]; afterwards [`Attractor::joined`]
/// lists every vertex queued in the run, in order. More targets may be added and attracted
/// again in the same run: [`Attractor::attract`] goes on from where it stopped.
///
/// # Memory
/// 12 bytes per vertex: a counter and the number of the run it belongs to (8), and the
/// queue (4, at most).
#[derive(Clone, Debug, Default)]
pub struct Attractor {
    /// Per vertex: the run's stamp in the high 32 bits (`2 * run`: the counter is this run's;
    /// `2 * run + 1`: the vertex joined in this run), the counter in the low 32.
    cells: Vec<u64>,
    queue: Vec<u32>,
    /// How much of the queue this run has attracted from.
    head: usize,
    run: u32,
}

/// The outcome of counting one more move into the set from an opponent's vertex.
impl Attractor {
    /// The state for a graph of `n` vertices.
    pub fn new(n: usize) -> Self {
        Attractor {
            cells: retrograde_graph::huge::zeroed(n),
            queue: Vec::new(),
            head: 0,
            run: 0,
        }
    }

    /// Starts a run: no vertex has joined and every counter is stale.
    pub fn start(&mut self) {
        self.queue.clear();
        self.head = 0;
        if self.run >= (u32::MAX >> 1) - 1 {
            // Stamps would wrap: clear them (once every 2^31 runs).
            self.cells.iter_mut().for_each(|c| *c = 0);
            self.run = 0;
        }
        self.run += 1;
    }

    #[inline(always)]
    fn counted_stamp(&self) -> u64 {
        (2 * self.run as u64) << 32
    }

    #[inline(always)]
    fn joined_stamp(&self) -> u64 {
        (2 * self.run as u64 + 1) << 32
    }

    /// Did `v` join in this run?
    #[inline(always)]
    pub fn has_joined(&self, v: u32) -> bool {
        self.cells[v as usize] >> 32 == 2 * self.run as u64 + 1
    }

    #[inline(always)]
    fn mark_joined(&mut self, v: u32) {
        self.cells[v as usize] = self.joined_stamp();
        self.queue.push(v);
    }

    /// Adds a target: `v` joins the set (forced, [`NONE`]) and will attract its predecessors.
    /// The caller makes sure `v` is open.
    pub fn add<S: Subgame + ?Sized>(&mut self, v: u32, sub: &mut S) {
        sub.join(v, NONE);
        self.mark_joined(v);
    }

    /// Queues `v`, which is in the set already (the caller put it there), so that it attracts
    /// its predecessors in this run; [`Subgame::join`] is not called.
    pub fn seed(&mut self, v: u32) {
        self.mark_joined(v);
    }

    /// Tries an open vertex `u` of the subgame by its moves, for `player`: it joins when its
    /// owner is `player` and one of its moves is in the set (the first such move in the
    /// graph's order is its move), or when its owner is the opponent and its moves lead into
    /// the set and none to an open vertex. True when it joined. A way to start a run from a set that
    /// is larger than the vertices that may join it: try the few candidates instead of adding
    /// the whole set as targets.
    pub fn try_join<S: Subgame + ?Sized>(
        &mut self,
        g: &Graph,
        player: u8,
        u: u32,
        sub: &mut S,
    ) -> bool {
        if g.owner(u) == player {
            match g.successors(u).iter().find(|&&w| sub.in_set(w)) {
                Some(&w) => {
                    sub.join(u, w);
                    self.mark_joined(u);
                    true
                }
                None => false,
            }
        } else {
            let count = self.escapes(g, u, sub);
            // Without a move into the set (no move in the subgame at all) it does not join.
            if count == 0 && g.successors(u).iter().any(|&w| sub.in_set(w)) {
                sub.join(u, NONE);
                self.mark_joined(u);
                true
            } else {
                self.cells[u as usize] = self.counted_stamp() | count as u64;
                false
            }
        }
    }

    /// The moves of `u` not yet known to lead into the set: escapes ([`Subgame::escape`]),
    /// and moves to vertices that joined in this run (each counts down when it leaves the
    /// queue).
    #[inline(always)]
    fn escapes<S: Subgame + ?Sized>(&self, g: &Graph, u: u32, sub: &S) -> u32 {
        let mut c = 0u32;
        for &w in g.successors(u) {
            let counts = match sub.counts(w) {
                Some(k) => k,
                None => self.has_joined(w) || sub.escape(w),
            };
            c += counts as u32;
        }
        c
    }

    /// Attracts for `player`: every open vertex of the subgame from which `player` forces the
    /// play into the set joins it ([`Subgame::join`] says through which move). Time: the
    /// incoming edges of the vertices that joined in this run, plus the outgoing edges of the
    /// opponent's vertices the run reaches (counted once each).
    pub fn attract<S: Subgame + ?Sized>(&mut self, g: &Graph, player: u8, sub: &mut S) {
        let head = self.head;
        let mut queue = std::mem::take(&mut self.queue);
        match g.turn_rule() {
            TurnRule::Arena { owner } => {
                let mut step = Attract {
                    g,
                    owner: Some(owner),
                    player: player == 1,
                    attr: self,
                    sub,
                };
                spread(g, &mut step, &mut queue, head);
            }
            _ => {
                let mut step = Attract {
                    g,
                    owner: None,
                    player: player == 1,
                    attr: self,
                    sub,
                };
                spread(g, &mut step, &mut queue, head);
            }
        }
        self.head = queue.len();
        self.queue = queue;
    }

    /// Every vertex that joined in this run, in the order it joined (targets and tried
    /// vertices where they were added).
    pub fn joined(&self) -> &[u32] {
        &self.queue
    }

    /// Bytes of heap memory held.
    pub fn heap_bytes(&self) -> usize {
        self.cells.capacity() * 8 + self.queue.capacity() * 4
    }
}

/// The attractor as a [`Step`] of the one propagation loop.
struct Attract<'a, S: ?Sized> {
    g: &'a Graph,
    /// The arena's owners (`None`: every vertex is player 0's).
    owner: Option<&'a BitSet>,
    player: bool,
    attr: &'a mut Attractor,
    sub: &'a mut S,
}

impl<S: Subgame + ?Sized> Step for Attract<'_, S> {
    type Decided = ();

    #[inline(always)]
    fn decided(&self, _: u32) {}

    #[inline(always)]
    fn step(&mut self, _: usize, u: u32, v: u32, _: ()) -> bool {
        if !self.sub.open(u) {
            return false;
        }
        let owner = self.owner.is_some_and(|o| o.get(u as usize));
        if owner == self.player {
            self.sub.join(u, v);
            self.attr.cells[u as usize] = self.attr.joined_stamp();
            return true;
        }
        let cell = self.attr.cells[u as usize];
        let left = if cell >> 32 == 2 * self.attr.run as u64 {
            (cell as u32).wrapping_sub(1)
        } else {
            // First reached in this run: every move to an open vertex, or to one that joined
            // (`v` among them), is still to count down.
            self.attr.escapes(self.g, u, &*self.sub) - 1
        };
        if left == 0 {
            self.sub.join(u, NONE);
            self.attr.cells[u as usize] = self.attr.joined_stamp();
            true
        } else {
            self.attr.cells[u as usize] = self.attr.counted_stamp() | left as u64;
            false
        }
    }

    #[inline(always)]
    fn prefetch(&self, v: u32) {
        prefetch(&self.attr.cells, v as usize);
        self.sub.prefetch(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use retrograde_graph::GraphBuilder;

    /// A subgame as a bit set (`inside`), the set as another, and vertices of the subgame
    /// that never join (`blocked`: the opponent's moves to them are escapes).
    struct Bits {
        inside: Vec<bool>,
        blocked: Vec<bool>,
        set: Vec<bool>,
        via: Vec<u32>,
        /// With `Some`, the subgame tells the vertices that joined in this run itself
        /// ([`Subgame::counts`]).
        joined_now: Option<Vec<bool>>,
    }

    impl Subgame for Bits {
        fn open(&self, v: u32) -> bool {
            self.inside[v as usize] && !self.set[v as usize] && !self.blocked[v as usize]
        }
        fn escape(&self, v: u32) -> bool {
            self.inside[v as usize] && !self.set[v as usize]
        }
        fn in_set(&self, v: u32) -> bool {
            self.set[v as usize]
        }
        fn counts(&self, v: u32) -> Option<bool> {
            let j = self.joined_now.as_ref()?;
            Some(self.escape(v) || j[v as usize])
        }
        fn join(&mut self, v: u32, via: u32) {
            assert!(self.open(v), "{v} joined twice or from outside the subgame");
            self.set[v as usize] = true;
            self.via[v as usize] = via;
            if let Some(j) = &mut self.joined_now {
                j[v as usize] = true;
            }
        }
    }

    /// The attractor by its definition: add vertices until nothing changes.
    fn naive(
        g: &Graph,
        player: u8,
        inside: &[bool],
        blocked: &[bool],
        target: &[bool],
    ) -> Vec<bool> {
        let n = g.vertex_count();
        let mut set: Vec<bool> = (0..n)
            .map(|v| inside[v] && target[v] && !blocked[v])
            .collect();
        loop {
            let mut changed = false;
            for u in 0..n as u32 {
                if !inside[u as usize] || set[u as usize] || blocked[u as usize] {
                    continue;
                }
                let moves: Vec<u32> = g
                    .successors(u)
                    .iter()
                    .copied()
                    .filter(|&w| inside[w as usize])
                    .collect();
                // A vertex without moves in the subgame joins only as a target.
                let joins = if g.owner(u) == player {
                    moves.iter().any(|&w| set[w as usize])
                } else {
                    !moves.is_empty() && moves.iter().all(|&w| set[w as usize])
                };
                if joins {
                    set[u as usize] = true;
                    changed = true;
                }
            }
            if !changed {
                return set;
            }
        }
    }

    fn arena(n: u32, edges: &[(u32, u32)], owners: &[bool]) -> Graph {
        let mut b = GraphBuilder::new();
        for &(u, v) in edges {
            b.add_edge(u % n, v % n);
        }
        b.ensure_vertices(n as u64).unwrap();
        for v in 0..n {
            b.set_owner(v, owners[v as usize] as u64).unwrap();
        }
        b.build().unwrap()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

        /// Attractors on random subgames equal the fixpoint of their definition, run after run
        /// on one `Attractor` (stale counters of earlier runs must not leak), with a winning
        /// move for every vertex of the attracting player that joined.
        #[test]
        fn attractor_is_the_least_fixpoint(
            n in 1u32..30,
            edges in prop::collection::vec((0u32..30, 0u32..30), 0..90),
            owners in prop::collection::vec(any::<bool>(), 30),
            runs in prop::collection::vec(
                (prop::collection::vec(any::<bool>(), 30), prop::collection::vec(0u8..8, 30), any::<bool>(), 0u8..3, any::<bool>()),
                1..4),
        ) {
            let g = arena(n, &edges, &owners);
            let mut attr = Attractor::new(n as usize);
            for (inside, kind, player, mode, own_counts) in runs {
                let player = player as u8;
                let inside: Vec<bool> = inside[..n as usize].to_vec();
                let target: Vec<bool> = kind[..n as usize].iter().map(|&t| t <= 1).collect();
                let blocked: Vec<bool> = kind[..n as usize].iter().map(|&t| t == 7).collect();
                let expect = naive(&g, player, &inside, &blocked, &target);
                let mut sub = Bits {
                    inside: inside.clone(),
                    blocked: blocked.clone(),
                    set: vec![false; n as usize],
                    via: vec![NONE; n as usize],
                    // Seeded targets join without `join`: the subgame's own count is for the
                    // other modes.
                    joined_now: (own_counts && mode != 2).then(|| vec![false; n as usize]),
                };
                attr.start();
                let targets: Vec<u32> = (0..n)
                    .filter(|&v| inside[v as usize] && target[v as usize] && !blocked[v as usize])
                    .collect();
                let tried = mode == 1;
                match mode {
                    0 => targets.iter().for_each(|&v| attr.add(v, &mut sub)),
                    1 => {
                        // The targets are in the set without being queued; every other
                        // vertex is tried by its moves.
                        targets.iter().for_each(|&v| sub.set[v as usize] = true);
                        for v in 0..n {
                            if sub.open(v) {
                                attr.try_join(&g, player, v, &mut sub);
                            }
                        }
                    }
                    _ => {
                        // The targets are put in the set by the caller, then seeded.
                        for &v in &targets {
                            sub.set[v as usize] = true;
                            attr.seed(v);
                        }
                    }
                }
                attr.attract(&g, player, &mut sub);
                prop_assert_eq!(&sub.set, &expect);
                for &v in attr.joined() {
                    prop_assert!(expect[v as usize] && inside[v as usize]);
                }
                let queued = attr.joined().len();
                let fresh = (0..n as usize)
                    .filter(|&v| expect[v] && !(tried && target[v]))
                    .count();
                prop_assert!(mode != 1 || attr.joined().iter().all(|&v| !target[v as usize]));
                prop_assert_eq!(queued, fresh);
                for u in 0..n {
                    let via = sub.via[u as usize];
                    if sub.set[u as usize] && !target[u as usize] {
                        if g.owner(u) == player {
                            prop_assert!(via != NONE && g.successors(u).contains(&via) && sub.set[via as usize]);
                        } else {
                            prop_assert_eq!(via, NONE);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn runs_wrap_their_stamps() {
        let g = arena(3, &[(0, 1), (1, 2), (0, 2)], &[true, false, false]);
        let mut attr = Attractor::new(3);
        attr.run = (u32::MAX >> 1) - 3;
        for _ in 0..6 {
            let mut sub = Bits {
                inside: vec![true; 3],
                blocked: vec![false; 3],
                set: vec![false; 3],
                via: vec![NONE; 3],
                joined_now: None,
            };
            attr.start();
            attr.add(2, &mut sub);
            attr.attract(&g, 0, &mut sub);
            // 1 is player 0's (moves to 2); 0 is player 1's, all of whose moves lead in.
            assert_eq!(sub.set, [true, true, true]);
            assert_eq!(attr.joined(), &[2, 1, 0]);
        }
        assert!(attr.run < 10);
    }
}
