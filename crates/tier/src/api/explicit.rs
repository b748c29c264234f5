//! A tier game as an explicit graph, for the graph engine: the independent oracle.
//!
//! Every position (every valid slot of every tier with a dense index, not only canonical
//! ones; every position reachable from the start with sorted keys) becomes a vertex, every
//! move an edge (a go-again edge when the move keeps the turn), every primitive value a
//! vertex label. [`retrograde_solve::solve`] on that graph must give every position the value
//! the tier engine gives it.

use crate::api::game::{keeps, Layout, LayoutKind, TierGame};
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
    let dag = crate::engine::Dag::build(game)?;
    let mut ids: HashMap<G::Position, u32> = HashMap::new();
    let mut positions = Vec::new();
    let mut add =
        |p: G::Position, positions: &mut Vec<G::Position>| -> Result<(u32, bool), Error> {
            if let Some(&v) = ids.get(&p) {
                return Ok((v, false));
            }
            if positions.len() >= limit {
                return Err(Error::Unsupported(format!(
                    "more than {limit} positions for an explicit graph"
                )));
            }
            let v = positions.len() as u32;
            ids.insert(p, v);
            positions.push(p);
            Ok((v, true))
        };
    match <G::Layout as Layout<G>>::KIND {
        LayoutKind::Dense => {
            for &t in &dag.tiers {
                for i in 0..<G::Layout as Layout<G>>::tier_size(game, t) {
                    if let Some(p) = <G::Layout as Layout<G>>::unrank(game, t, i) {
                        add(p, &mut positions)?;
                    }
                }
            }
        }
        LayoutKind::SortedKeys => {
            let start = game
                .start()
                .ok_or_else(|| Error::Unsupported("sorted keys need a start".into()))?;
            add(start, &mut positions)?;
            let mut next = 0;
            let mut moves = Vec::new();
            while next < positions.len() {
                let p = positions[next];
                next += 1;
                if game.primitive(&p).is_some() {
                    continue;
                }
                moves.clear();
                game.moves(&p, &mut moves);
                for &c in &moves {
                    add(c, &mut positions)?;
                }
            }
        }
    }
    let dense = <G::Layout as Layout<G>>::KIND == LayoutKind::Dense;
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
                debug_assert!(dense);
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
