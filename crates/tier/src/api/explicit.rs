//! A tier game as an explicit graph, for the graph engine: the independent oracle.
//!
//! Every position (every valid slot of every tier with a dense index, not only canonical
//! ones; every position reachable from the start with sorted keys) becomes a vertex, every
//! move an edge (a go-again edge when the move keeps the turn), every primitive value a
//! vertex label. [`retrograde_solve::solve`] on that graph must give every position the value
//! the tier engine gives it.

use crate::api::dag::Dag;
use crate::api::game::{keeps, visit, DenseIndex, LayoutVisitor, OrderedMoves, TierGame};
use crate::error::Error;
use retrograde_graph::{Graph, GraphBuilder};
use std::collections::HashMap;

/// A game's explicit graph and which position each vertex is.
#[derive(Debug)]
pub struct Explicit<P> {
    /// The graph.
    pub graph: Graph,
    /// `positions[v]` = the position of vertex `v`.
    pub positions: Vec<P>,
}

/// Builds the explicit graph of `game`, refusing more than `limit` positions.
///
/// # Errors
/// More positions than `limit`, or a game that breaks the API (a move to a position that is
/// not a position of a tier).
pub fn explicit_graph<G: TierGame>(game: &G, limit: usize) -> Result<Explicit<G::Position>, Error> {
    let dag = Dag::build(game)?;
    let mut ids: HashMap<G::Position, u32> = HashMap::new();
    let mut positions = Vec::new();
    let mut add =
        |p: G::Position, positions: &mut Vec<G::Position>| -> Result<(u32, bool), Error> {
            if let Some(&v) = ids.get(&p) {
                return Ok((v, false));
            }
            if positions.len() >= limit {
                return Err(too_many(limit));
            }
            let v = positions.len() as u32;
            ids.insert(p, v);
            positions.push(p);
            Ok((v, true))
        };
    for p in visit::<G, _>(Positions {
        game,
        dag: &dag,
        limit,
    })? {
        add(p, &mut positions)?;
    }
    let mut b = GraphBuilder::new();
    b.ensure_vertices(positions.len() as u64)
        .map_err(|e| Error::Unsupported(e.to_string()))?;
    let mut moves = Vec::new();
    for (u, p) in positions.iter().enumerate() {
        if let Some(prim) = game.primitive(p) {
            b.set_primitive(u as u32, prim);
            continue;
        }
        moves.clear();
        game.moves(p, &mut moves);
        for c in &moves {
            let Some(&v) = ids.get(c) else {
                return Err(Error::Game(format!(
                    "the move from {p:?} to {c:?} reaches a number of the index that is no position"
                )));
            };
            if keeps(game, p, c) {
                b.add_edge_again(u as u32, v);
            } else {
                b.add_edge(u as u32, v);
            }
        }
    }
    let graph = b.build().map_err(|e| Error::Unsupported(e.to_string()))?;
    Ok(Explicit { graph, positions })
}

/// Every position of a game: a dense index's numbers that are positions, or what the moves
/// reach from the start with sorted keys (the layout numbers no others).
struct Positions<'a, G: TierGame> {
    game: &'a G,
    dag: &'a Dag<G::Tier>,
    /// More positions than this is an error.
    limit: usize,
}

fn too_many(limit: usize) -> Error {
    Error::Unsupported(format!("more than {limit} positions for an explicit graph"))
}

impl<G: TierGame> LayoutVisitor<G> for Positions<'_, G> {
    type Out = Result<Vec<G::Position>, Error>;
    fn dense(self) -> Self::Out
    where
        G: DenseIndex,
    {
        let mut out = Vec::new();
        for &t in &self.dag.tiers {
            self.game
                .for_each_in(t, 0..self.game.tier_size(t), |_, p| out.extend(p));
            if out.len() > self.limit {
                return Err(too_many(self.limit));
            }
        }
        Ok(out)
    }
    fn sorted(self) -> Self::Out
    where
        G: OrderedMoves,
    {
        let game = self.game;
        let start = game
            .start()
            .ok_or_else(|| Error::Unsupported("sorted keys need a start".into()))?;
        let mut out = Vec::new();
        breadth_first(game, start, |p| {
            out.push(*p);
            match out.len() > self.limit {
                true => Err(too_many(self.limit)),
                false => Ok(true),
            }
        })?;
        Ok(out)
    }
}

/// Visits the positions reachable from `start` breadth first, each once: `visit(p)` says
/// whether to go on from `p` (its moves are followed unless the game is over there), or
/// stops the search with an error.
pub(crate) fn breadth_first<G: TierGame, E>(
    game: &G,
    start: G::Position,
    mut visit: impl FnMut(&G::Position) -> Result<bool, E>,
) -> Result<(), E> {
    let mut seen = std::collections::HashSet::from([start]);
    let mut todo = std::collections::VecDeque::from([start]);
    let mut moves = Vec::new();
    while let Some(p) = todo.pop_front() {
        if !visit(&p)? || game.primitive(&p).is_some() {
            continue;
        }
        moves.clear();
        game.moves(&p, &mut moves);
        for &c in &moves {
            if seen.insert(c) {
                todo.push_back(c);
            }
        }
    }
    Ok(())
}
