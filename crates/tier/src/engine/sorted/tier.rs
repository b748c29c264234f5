//! Solving one sorted tier, children first: a tier's values come from its one child tier
//! by one merge-join per slot, in parallel over runs of parents.
//!
//! A parent's child through a slot is looked up in the child tier: when this rank owns it
//! (always, for one process), by a cursor that walks forward in its share (the children of
//! a slot come out sorted: no search); otherwise the child's key joins the request list for
//! its owner. Ranks work in rounds of at most [`ROUND_PARENTS`] parents each (all ranks run
//! the same number; one process runs one): one all-to-all sends the round's requests
//! (`K::BYTES` a key, in the order met), the owners answer each list in order (a cursor
//! again, restarted by a binary search where the list starts a new slot's run), a second
//! brings the values back (1 byte each, 2 with remoteness above 63), and each parent takes
//! its best child value, as when the child is here. Requests are not deduplicated (two
//! parents of one child ask twice: at most one key and one value per move).
//!
//! A run of parents whose children are all here is finished at once, so one process holds
//! its per-parent work for one run at a time.

use super::keys::{get_keys, seek, Key};
use super::place::{garbled, trade, KeyPlacement};
use super::{chunk, round_parents, terminal};
use crate::api::game::{keeps, OrderedMoves, Symmetry};
use crate::engine::dense::{cell_at, push_cell};
use crate::engine::SolveOptions;
use crate::error::Error;
use crate::stats::Stats;
use crate::store::cell::Cell;
use rayon::prelude::*;
use retrograde_graph::Primitive;
use retrograde_solve::exchange::Exchange;
use retrograde_solve::Value;

/// Parents a rank solves per round, at most (ranks only).
pub(crate) const ROUND_PARENTS: usize = 1 << 20;

/// The solved child tier of a tier: its tier, this rank's share (keys and values), and who
/// owns the rest.
pub(crate) struct Below<'a, G: OrderedMoves, K, C, P> {
    pub tier: G::Tier,
    pub keys: &'a [K],
    pub vals: &'a [C],
    pub owners: &'a P,
}

/// A run of parents, between its requests and the answers.
struct Task {
    prims: Vec<Option<Primitive>>,
    moves: Vec<u8>,
    canon: Vec<bool>,
    /// The best child value of each parent so far, by [`Value::rank`] plus one (0: none).
    best: Vec<u64>,
    /// Per rank, the keys asked of it, and for each the parent (`i << 1 | keeps turn`).
    asked: Vec<Vec<u8>>,
    waiting: Vec<Vec<u32>>,
}

/// The first pass over a round's runs: the runs waiting for values from other ranks (by
/// their number in the round), and the totals of the others, finished at once.
#[derive(Default)]
struct Pass {
    waiting: Vec<(usize, Task)>,
    stats: Stats,
}

/// This rank's share of tier `t` solved: its values (in key order), its totals, and a bit
/// per key set for the canonical ones. Every rank calls it for the same tier.
pub(crate) fn solve_tier<G: OrderedMoves, C: Cell<V = Value>, K: Key, P: KeyPlacement>(
    game: &G,
    t: G::Tier,
    keys: &[K],
    below: Option<&Below<'_, G, K, C, P>>,
    ex: &dyn Exchange,
    opts: &SolveOptions,
) -> Result<(Vec<C>, Stats, Vec<u64>), Error> {
    let (me, kk) = (ex.rank(), ex.size());
    // Runs of a multiple of 64 parents, so that each run's canonical bits fill whole words.
    let chunk = chunk();
    let round = if P::ALONE {
        keys.len().max(1)
    } else {
        round_parents()
    };
    let mut rounds = [keys.len().div_ceil(round) as u64];
    // Exchanges only when some child is on another rank (the same at every rank).
    let talk = below.is_some() && !P::ALONE;
    if talk {
        ex.max(&mut rounds);
    }
    // The cells and bits are written in place: collecting each run's and concatenating
    // them held the tier's values twice (a third of a gigabyte at Connect-4 6x5's biggest).
    let mut cells = vec![C::default(); keys.len()];
    let mut bits = vec![0u64; keys.len().div_ceil(64)];
    let mut stats = Stats::default();
    for r in 0..rounds[0] as usize {
        let lo = (r * round).min(keys.len());
        let hi = (lo + round).min(keys.len());
        let (out, canon) = (&mut cells[lo..hi], &mut bits[lo / 64..hi.div_ceil(64)]);
        let mut pass = keys[lo..hi]
            .par_chunks(chunk)
            .zip(out.par_chunks_mut(chunk))
            .zip(canon.par_chunks_mut(chunk / 64))
            .enumerate()
            .map(|(i, ((pk, out), canon))| {
                let x = first_pass::<G, C, K, P>(game, t, pk, below, me, kk)?;
                Ok(match x.waiting.iter().all(Vec::is_empty) {
                    true => Pass {
                        waiting: Vec::new(),
                        stats: finish(game, t, &x, out, canon)?,
                    },
                    false => Pass {
                        waiting: vec![(i, x)],
                        stats: Stats::default(),
                    },
                })
            })
            .try_reduce(Pass::default, |mut a, b| {
                a.waiting.extend(b.waiting);
                a.stats.merge(&b.stats);
                Ok(a)
            })?;
        stats.merge(&pass.stats);
        if !talk {
            continue;
        }
        pass.waiting.sort_unstable_by_key(|w| w.0);
        let b = below.expect("talk");
        ask::<G, C, K, P>(&mut pass.waiting, b, t, ex, opts)?;
        let mut runs: Vec<Option<Task>> = (0..(hi - lo).div_ceil(chunk)).map(|_| None).collect();
        for (i, x) in pass.waiting {
            runs[i] = Some(x);
        }
        let s = runs
            .into_par_iter()
            .zip(out.par_chunks_mut(chunk))
            .zip(canon.par_chunks_mut(chunk / 64))
            .map(|((run, out), canon)| match run {
                Some(x) => finish(game, t, &x, out, canon),
                None => Ok(Stats::default()),
            })
            .try_reduce(Stats::default, |mut a, b| {
                a.merge(&b);
                Ok(a)
            })?;
        stats.merge(&s);
    }
    Ok((cells, stats, bits))
}

/// Sends the waiting runs' requests to the children's owners, answers theirs, and takes
/// the values that come back.
fn ask<G: OrderedMoves, C: Cell<V = Value>, K: Key, P: KeyPlacement>(
    runs: &mut [(usize, Task)],
    b: &Below<'_, G, K, C, P>,
    t: G::Tier,
    ex: &dyn Exchange,
    opts: &SolveOptions,
) -> Result<(), Error> {
    let kk = ex.size();
    let send: Vec<Vec<u8>> = (0..kk)
        .map(|d| {
            let mut v = Vec::new();
            for (_, x) in runs.iter_mut() {
                v.append(&mut x.asked[d]);
            }
            v
        })
        .collect();
    let got = trade::<P>(ex, send, opts)?;
    let answers: Vec<Vec<u8>> = got
        .par_iter()
        .map(|req| answer::<C, K>(b.keys, b.vals, req))
        .collect::<Result<_, _>>()?;
    drop(got);
    let back = ex.all_to_all(answers);
    // Each run's answers start where the earlier runs' end.
    let mut at = vec![0usize; kk];
    let mut starts = Vec::with_capacity(runs.len());
    for (_, x) in runs.iter() {
        starts.push(at.clone());
        for (d, w) in x.waiting.iter().enumerate() {
            at[d] += w.len() * C::BYTES;
        }
    }
    for (d, b) in back.iter().enumerate() {
        if b.len() != at[d] {
            return Err(garbled("list of values"));
        }
    }
    runs.par_iter_mut()
        .zip(starts)
        .try_for_each(|((_, x), st)| -> Result<(), Error> {
            for (d, w) in x.waiting.iter().enumerate() {
                let cells = &back[d][st[d]..st[d] + w.len() * C::BYTES];
                for (n, &pi) in w.iter().enumerate() {
                    let v = cell_at::<C>(cells, n)
                        .decode()
                        .ok_or_else(|| Error::Game(format!("a child of tier {t:?} has no value")))?
                        .through(pi & 1 == 1);
                    let i = (pi >> 1) as usize;
                    x.best[i] = x.best[i].max(v.rank() + 1);
                }
            }
            Ok(())
        })
}

/// A run's parents: their primitive values, moves, canonical bits, the best value of the
/// children this rank owns, and the requests for the others.
fn first_pass<G: OrderedMoves, C: Cell<V = Value>, K: Key, P: KeyPlacement>(
    game: &G,
    t: G::Tier,
    pk: &[K],
    below: Option<&Below<'_, G, K, C, P>>,
    me: usize,
    kk: usize,
) -> Result<Task, Error> {
    let pos: Vec<G::Position> = pk
        .iter()
        .map(|k| game.key_position(t, k.to_u64()))
        .collect();
    let prims: Vec<Option<Primitive>> = pos.iter().map(|p| game.primitive(p)).collect();
    let flags: Vec<u16> = pos
        .iter()
        .zip(&prims)
        .map(|(p, prim)| {
            if prim.is_some() {
                0
            } else {
                game.slot_flags(p)
            }
        })
        .collect();
    let canon = pos
        .iter()
        .map(|p| <G::Symmetry as Symmetry<G>>::is_canonical(game, p))
        .collect();
    let mut best: Vec<u64> = vec![0; pk.len()];
    let mut asked = vec![Vec::new(); kk];
    let mut waiting = vec![Vec::new(); kk];
    let Some(b) = below else {
        if flags.iter().any(|&f| f != 0) {
            return Err(Error::Game(format!(
                "a position of tier {t:?} has moves, but the tier has no child tier"
            )));
        }
        return Ok(Task {
            prims,
            moves: vec![0; pk.len()],
            canon,
            best,
            asked,
            waiting,
        });
    };
    for s in 0..game.slots() {
        let bit = 1u16 << s;
        // The cursor in this rank's share of the child tier (children come sorted).
        let mut j = 0usize;
        for i in (0..pk.len()).filter(|&i| flags[i] & bit != 0) {
            let c = game.slot_child(&pos[i], s).ok_or_else(|| {
                Error::Game(format!(
                    "slot {s} of {:?} has no move though flagged",
                    pos[i]
                ))
            })?;
            if game.tier(&c) != b.tier {
                return Err(Error::Game(format!(
                    "slot {s} of {:?} leads out of tier {:?}",
                    pos[i], b.tier
                )));
            }
            let ck = game.key(&c);
            let kp = keeps(game, &pos[i], &c);
            let d = b.owners.owner(ck);
            if P::ALONE || d == me {
                j = seek(b.keys, j, ck);
                if j == b.keys.len() || b.keys[j].to_u64() != ck {
                    return Err(Error::Game(format!(
                        "the child {c:?} of {:?} is missing from its tier (slots not increasing in the key?)",
                        pos[i]
                    )));
                }
                let v = b.vals[j]
                    .decode()
                    .ok_or_else(|| Error::Game(format!("the child {c:?} has no value")))?
                    .through(kp);
                best[i] = best[i].max(v.rank() + 1);
            } else {
                asked[d].extend_from_slice(&ck.to_le_bytes()[..K::BYTES as usize]);
                waiting[d].push((i as u32) << 1 | u32::from(kp));
            }
        }
    }
    Ok(Task {
        prims,
        moves: flags.iter().map(|f| f.count_ones() as u8).collect(),
        canon,
        best,
        asked,
        waiting,
    })
}

/// A run's values (into `out`) and canonical bits (into `canon`), and its totals.
fn finish<G: OrderedMoves, C: Cell<V = Value>>(
    game: &G,
    t: G::Tier,
    x: &Task,
    out: &mut [C],
    canon: &mut [u64],
) -> Result<Stats, Error> {
    let mut st = Stats::default();
    for (i, cell) in out.iter_mut().enumerate() {
        let v = match (x.prims[i], x.best[i]) {
            (Some(prim), _) => terminal(prim),
            (None, 0) => terminal(game.no_move()),
            (None, b) => Value::from_rank(b - 1),
        };
        *cell = C::encode(v).ok_or_else(|| Error::Remoteness {
            tier: format!("{t:?}"),
            max: C::MAX_REMOTENESS,
        })?;
        st.count(v);
        st.moves += u64::from(x.moves[i]);
        if x.canon[i] {
            st.classes += 1;
            canon[i / 64] |= 1 << (i % 64);
        }
    }
    st.positions = out.len() as u64;
    st.states = st.positions;
    Ok(st)
}

/// The values (`C::BYTES` each) of the keys another rank asked for, in its order: runs of
/// increasing keys, each found by a cursor in this rank's share.
fn answer<C: Cell<V = Value>, K: Key>(
    keys: &[K],
    vals: &[C],
    req: &[u8],
) -> Result<Vec<u8>, Error> {
    let w = K::BYTES as usize;
    if req.len() % w != 0 {
        return Err(garbled("list of keys"));
    }
    let parts: Vec<Vec<u8>> = req
        .par_chunks(chunk() * w)
        .map(|part| -> Result<Vec<u8>, Error> {
            let mut out = Vec::with_capacity(part.len() / w * C::BYTES);
            let mut j = 0usize;
            let mut prev = 0u64;
            for (n, k) in get_keys::<K>(part).enumerate() {
                let k = k.to_u64();
                j = if n == 0 || k < prev {
                    keys.partition_point(|x| x.to_u64() < k)
                } else {
                    seek(keys, j, k)
                };
                prev = k;
                if j == keys.len() || keys[j].to_u64() != k {
                    return Err(Error::Game(format!(
                        "a rank asked for the value of key {k}, which is not in its share of the child tier (slots not increasing in the key?)"
                    )));
                }
                push_cell(&mut out, vals[j]);
            }
            Ok(out)
        })
        .collect::<Result<_, _>>()?;
    Ok(parts.concat())
}
