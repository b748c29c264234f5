//! What a solver sees of a graph: the vertices it holds, the moves from and into them, and
//! who holds the others. A whole [`Graph`] is the share of one process (placement
//! [`Whole`]); a rank's [`DistGraph`](crate::DistGraph) is the share of one of `K` ranks
//! (placement [`Ranges`](crate::place::Ranges)). The level engine, the best-move pass and
//! the check are written once over this trait.
//!
//! Held vertices are named by their *place* (`0..len()`: for a whole graph, the vertex id
//! itself); moves name their other end by its global id, and [`Share::held`] says whether
//! that end is held here, and where.

use crate::cell::LOW;
use crate::error::{places, Error};
use crate::exchange::Exchange;
use crate::place::{Placement, Whole};
use crate::{Rules, Scored, Value};
use retrograde_graph::{Graph, Primitive, TurnRule};

/// A share of a graph: see the [module docs](self).
///
/// # Invariants
/// `forward_offsets()` and `reverse_offsets()` have `len() + 1` entries, start at 0 and end
/// at the numbers of forward and reverse entries held; the turn rule's go-again bits are
/// indexed like those entries, an arena's owner bits by place.
pub trait Share: Sync {
    /// Who holds which vertex.
    type Place: Placement;

    /// Who holds which vertex (every rank's share has the same).
    fn placement(&self) -> Self::Place;

    /// The number of vertices held.
    fn len(&self) -> usize;

    /// Whether no vertex is held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The place of vertex `v` if this share holds it (for a whole graph, always `v`).
    fn held(&self, v: u32) -> Option<u32>;

    /// The global id of the vertex at place `l`.
    fn global(&self, l: u32) -> u32;

    /// The number of vertices of the whole graph.
    fn vertex_count(&self) -> usize;

    /// The number of edges of the whole graph.
    fn edge_count(&self) -> u64;

    /// Where the moves of each held vertex start in [`Share::forward_targets`], by place.
    fn forward_offsets(&self) -> &[u64];

    /// The targets of the held vertices' moves (global ids); sorted per vertex in a whole
    /// graph, in no particular order in a rank's share.
    fn forward_targets(&self) -> &[u32];

    /// Where the moves into each held vertex start in [`Share::reverse_sources`], by place.
    fn reverse_offsets(&self) -> &[u64];

    /// The sources of the moves into the held vertices (global ids).
    fn reverse_sources(&self) -> &[u32];

    /// Who moves next after each move.
    fn turn_rule(&self) -> &TurnRule;

    /// The primitive label of the vertex at place `l`.
    fn primitive_at(&self, l: u32) -> Option<Primitive>;

    /// The score of the vertex at place `l`, if it has one (it is then terminal).
    fn score_at(&self, l: u32) -> Option<i64>;

    /// Whether the graph is scored (some vertex, held here or not, has a score): its values
    /// then say by how much ([`Scored`]).
    fn is_scored(&self) -> bool;

    /// The name of the vertex at place `l`, if it has one.
    fn name_at(&self, l: u32) -> Option<&str>;

    /// Whether some vertex (held here or not) has a name.
    fn has_names(&self) -> bool;

    /// The start vertex, if the file gave one.
    fn start(&self) -> Option<u32>;

    /// Bytes of the moves held (offsets, entries and turn bits: the bulk of a share).
    fn heap_bytes(&self) -> usize {
        let turn = match self.turn_rule() {
            TurnRule::Alternate => 0,
            TurnRule::GoAgain { forward, reverse } => forward.heap_bytes() + reverse.heap_bytes(),
            TurnRule::Arena { owner } => owner.heap_bytes(),
        };
        let (fo, ro) = (self.forward_offsets(), self.reverse_offsets());
        8 * (fo.len() + ro.len()) + 4 * (fo[fo.len() - 1] + ro[ro.len() - 1]) as usize + turn
    }

    /// The whole graph, when this share is all of it: the sequential engine
    /// (`Engine::Sequential`) needs one.
    fn whole(&self) -> Option<&Graph> {
        None
    }

    /// Whether vertices have owners (an arena).
    fn is_arena(&self) -> bool {
        matches!(self.turn_rule(), TurnRule::Arena { .. })
    }

    /// The player (0 or 1) who moves at place `l`: its owner in an arena, else 0.
    #[inline]
    fn owner_at(&self, l: u32) -> u8 {
        match self.turn_rule() {
            TurnRule::Arena { owner } => u8::from(owner.get(l as usize)),
            _ => 0,
        }
    }

    /// The number of moves from place `l`.
    #[inline]
    fn out_degree_at(&self, l: u32) -> u64 {
        let off = self.forward_offsets();
        off[l as usize + 1] - off[l as usize]
    }

    /// Whether the level engine's packed cells hold this share: remoteness is below the
    /// number of vertices, and counters are out-degrees.
    fn fits_packed(&self) -> bool {
        let off = self.forward_offsets();
        self.vertex_count() <= LOW as usize
            && (self.forward_targets().len() <= LOW as usize
                || off.windows(2).all(|w| w[1] - w[0] <= u64::from(LOW)))
    }
}

/// The value the rules fix at place `l` (a score, a primitive label, or the no-move rule at
/// a dead end), if any, as a score: a label is worth +1, -1 or 0 (in an unscored graph this
/// is [`Value`]'s order, see [`Scored`]). Such a vertex is terminal: it has no best move.
#[inline]
pub(crate) fn terminal<G: Share + ?Sized>(g: &G, rules: &Rules, l: u32) -> Option<Scored> {
    if let Some(s) = g.score_at(l) {
        return Some(Scored::new(s, Some(0)));
    }
    let p = g
        .primitive_at(l)
        .or_else(|| (g.out_degree_at(l) == 0).then_some(rules.no_move))?;
    Some(Scored::from(match p {
        Primitive::Win => Value::Win(0),
        Primitive::Loss => Value::Loss(0),
        Primitive::Tie => Value::Tie(0),
    }))
}

/// Asks the holders of other ranks' vertices about them, in one collective: this rank asks
/// rank `r` about `asks[r]` (places at `r`), and answers the questions it gets with
/// `answer(place, reply)`, which appends the bytes of one answer. With `size`, every answer
/// has that many bytes, and each holder's reply is checked to hold one per question;
/// without, the caller reads the replies. Returns the replies by holder.
///
/// # Errors
/// [`Error::Message`] (naming `step`) for a question that is not a place held here, or a
/// reply of another length.
pub fn ask_holders<G: Share + ?Sized>(
    g: &G,
    ex: &dyn Exchange,
    step: &'static str,
    asks: &[Vec<u32>],
    size: Option<usize>,
    mut answer: impl FnMut(u32, &mut Vec<u8>),
) -> Result<Vec<Vec<u8>>, Error> {
    let send = asks
        .iter()
        .map(|a| a.iter().flat_map(|x| x.to_le_bytes()).collect())
        .collect();
    let mut replies = Vec::with_capacity(asks.len());
    for (from, b) in ex.all_to_all(send).iter().enumerate() {
        let mut reply = Vec::with_capacity(b.len() / 4 * size.unwrap_or(4));
        places(b, from, step, g.len(), |l, _| answer(l, &mut reply))?;
        replies.push(reply);
    }
    let got = ex.all_to_all(replies);
    for (from, (b, a)) in got.iter().zip(asks).enumerate() {
        match size {
            Some(size) if b.len() != size * a.len() => {
                return Err(Error::Message {
                    step,
                    from,
                    problem: format!("{} bytes for {} answers of {size} bytes", b.len(), a.len()),
                })
            }
            _ => {}
        }
    }
    Ok(got)
}

/// What one holder was asked ([`ask_about`]): the vertices (global ids, in the order of
/// their places there) and its reply.
pub type Asked = (Vec<u32>, Vec<u8>);

/// [`ask_holders`] about vertices `vs` (global ids, in any order, repeats and all) that
/// other ranks hold: each is asked of its holder once. Returns, by holder, the vertices
/// asked of it (in the order of their places there) and its reply.
///
/// # Errors
/// As [`ask_holders`].
pub fn ask_about<G: Share + ?Sized>(
    g: &G,
    ex: &dyn Exchange,
    step: &'static str,
    vs: impl IntoIterator<Item = u32>,
    size: Option<usize>,
    answer: impl FnMut(u32, &mut Vec<u8>),
) -> Result<Vec<Asked>, Error> {
    let place = g.placement();
    let mut asks: Vec<Vec<u32>> = vec![Vec::new(); ex.size()];
    for v in vs {
        let (o, l) = place.place(u64::from(v));
        asks[o].push(l as u32);
    }
    for a in &mut asks {
        a.sort_unstable();
        a.dedup();
    }
    let got = ask_holders(g, ex, step, &asks, size, answer)?;
    let global = |(o, a): (usize, Vec<u32>)| -> Vec<u32> {
        let at = |l: u32| place.global(o, u64::from(l)) as u32;
        a.into_iter().map(at).collect()
    };
    Ok(asks.into_iter().enumerate().map(global).zip(got).collect())
}

/// A whole graph is the one share of one process.
impl Share for Graph {
    type Place = Whole;

    fn placement(&self) -> Whole {
        Whole::new(self.vertex_count() as u64)
    }
    fn len(&self) -> usize {
        self.vertex_count()
    }
    #[inline]
    fn held(&self, v: u32) -> Option<u32> {
        Some(v)
    }
    #[inline]
    fn global(&self, l: u32) -> u32 {
        l
    }
    fn vertex_count(&self) -> usize {
        Graph::vertex_count(self)
    }
    fn edge_count(&self) -> u64 {
        Graph::edge_count(self) as u64
    }
    #[inline]
    fn forward_offsets(&self) -> &[u64] {
        Graph::forward_offsets(self)
    }
    #[inline]
    fn forward_targets(&self) -> &[u32] {
        Graph::forward_targets(self)
    }
    #[inline]
    fn reverse_offsets(&self) -> &[u64] {
        Graph::reverse_offsets(self)
    }
    #[inline]
    fn reverse_sources(&self) -> &[u32] {
        Graph::reverse_sources(self)
    }
    #[inline]
    fn turn_rule(&self) -> &TurnRule {
        Graph::turn_rule(self)
    }
    #[inline]
    fn primitive_at(&self, l: u32) -> Option<Primitive> {
        self.primitive(l)
    }
    #[inline]
    fn score_at(&self, l: u32) -> Option<i64> {
        self.score(l)
    }
    fn is_scored(&self) -> bool {
        Graph::is_scored(self)
    }
    fn name_at(&self, l: u32) -> Option<&str> {
        self.name(l)
    }
    fn has_names(&self) -> bool {
        Graph::has_names(self)
    }
    fn start(&self) -> Option<u32> {
        Graph::start(self)
    }
    fn whole(&self) -> Option<&Graph> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{forged, random_graph};
    use crate::DistGraph;

    /// Every rank asks about every vertex it does not hold (repeats and all), and each
    /// holder answers with the vertex's global id: the replies name the vertices asked.
    #[test]
    fn asked_vertices_are_answered_by_their_holders() {
        let g = random_graph(9);
        for k in 1..=4 {
            crate::exchange::run_local(k, |ex| {
                let share = DistGraph::from_graph(&g, ex).unwrap();
                let n = g.vertex_count() as u32;
                let others = (0..n).chain(0..n).filter(|&v| share.held(v).is_none());
                let got = ask_about(&share, ex, "a test", others, Some(4), |l, r| {
                    r.extend_from_slice(&share.global(l).to_le_bytes())
                })
                .unwrap();
                let mut all = Vec::new();
                for (vs, reply) in got {
                    let ids: Vec<u32> = reply
                        .chunks_exact(4)
                        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                        .collect();
                    assert_eq!(ids, vs);
                    all.extend(vs);
                }
                all.sort_unstable();
                let want: Vec<u32> = (0..n).filter(|&v| share.held(v).is_none()).collect();
                assert_eq!(all, want, "{k} ranks");
            });
        }
    }

    /// A question past the vertices held, or a reply of another length than one answer per
    /// question, is an error naming the step and the rank, never a panic or a short answer.
    #[test]
    fn malformed_questions_and_replies_are_errors() {
        let g = random_graph(5);
        let asks = vec![vec![], vec![0]];
        // Rank 1's question and its reply are both these 4 bytes: place 0, then 4 bytes
        // for one answer of 1.
        let ex = forged(vec![0; 4]);
        let share = DistGraph::from_graph(&g, &ex).unwrap();
        let e = ask_holders(&share, &ex, "a test", &asks, Some(1), |_, r| r.push(7)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a malformed message from rank 1 (a test): 4 bytes for 1 answers of 1 bytes"
        );
        // Without a size the caller reads the replies.
        let got = ask_holders(&share, &ex, "a test", &asks, None, |_, r| r.push(7)).unwrap();
        assert_eq!(got, vec![Vec::<u8>::new(), vec![0; 4]]);
        // A place this rank does not hold.
        let past = (share.len() as u32).to_le_bytes().to_vec();
        let ex = forged(past);
        let e = ask_holders(&share, &ex, "a test", &asks, Some(1), |_, r| r.push(7)).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("a malformed message from rank 1 (a test): vertex place"),
            "{e}"
        );
    }
}
