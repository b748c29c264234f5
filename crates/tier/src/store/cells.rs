//! A tier's value cells in a values file: only the slots that hold a position are stored
//! (the canonical positions of a dense index; every key with sorted keys), one byte each
//! when every value fits, else two. A rank's share of a tier is such a file over its places
//! (whole runs of slots, in place order).

use crate::api::game::{visit, DenseIndex, LayoutVisitor, OrderedMoves, Symmetry, TierGame};
use crate::error::Error;
use crate::store::cell::Cell;
use crate::store::storage::Storage;
use crate::store::tierfile::{self, Codec, Header, Reader};
use rayon::prelude::*;
use retrograde_solve::place::Placement;

/// Which numbers of a tier hold a stored value: every one with sorted keys; with a dense
/// index, the positions that are canonical. Calls `f(number, stored)` for `range` in order.
pub(crate) fn stored_slots<G: TierGame>(
    game: &G,
    t: G::Tier,
    range: std::ops::Range<u64>,
    f: impl FnMut(u64, bool),
) {
    struct Stored<'a, G: TierGame, F> {
        game: &'a G,
        t: G::Tier,
        range: std::ops::Range<u64>,
        f: F,
    }
    impl<G: TierGame, F: FnMut(u64, bool)> LayoutVisitor<G> for Stored<'_, G, F> {
        type Out = ();
        fn dense(mut self)
        where
            G: DenseIndex,
        {
            let game = self.game;
            game.for_each_in(self.t, self.range, |i, p| {
                let canonical =
                    p.is_some_and(|p| <G::Symmetry as Symmetry<G>>::is_canonical(game, &p));
                (self.f)(i, canonical)
            });
        }
        fn sorted(mut self)
        where
            G: OrderedMoves,
        {
            self.range.for_each(|i| (self.f)(i, true));
        }
    }
    visit::<G, _>(Stored { game, t, range, f })
}

/// Decodes stored cells of a file (`elem` bytes each) into cells of width `C`.
pub(crate) fn decode_cells<C: Cell>(raw: &[u8], elem: u32, name: &str) -> Result<Vec<C>, Error> {
    if !matches!(elem, 1 | 2 | 4) || raw.len() % elem as usize != 0 {
        return Err(Error::damaged(
            name.to_string(),
            format!("{} bytes of {elem}-byte values", raw.len()),
        ));
    }
    raw.chunks_exact(elem as usize)
        .map(|c| {
            C::from_stored(c).ok_or_else(|| {
                Error::damaged(
                    name.to_string(),
                    format!("a stored value is not a value of {}-byte cells", C::BYTES),
                )
            })
        })
        .collect()
}

/// Fills `dst`, the cells of numbers `lo..` of tier `t`, from a block's stored cells.
pub(crate) fn expand_block<G: TierGame, C: Cell>(
    game: &G,
    t: G::Tier,
    lo: u64,
    stored: &[C],
    dst: &mut [C],
    name: &str,
) -> Result<(), Error> {
    let mut next = 0usize;
    let mut ok = true;
    stored_slots(game, t, lo..lo + dst.len() as u64, |i, here| {
        if here {
            match stored.get(next) {
                Some(&c) => dst[(i - lo) as usize] = c,
                None => ok = false,
            }
            next += 1;
        }
    });
    if !ok || next != stored.len() {
        return Err(Error::damaged(
            name.to_string(),
            format!(
                "a block of {} values where the game has {next} positions",
                stored.len()
            ),
        ));
    }
    Ok(())
}

/// The bytes of a stored cell of `cells`: the narrowest that holds every value among them.
pub(crate) fn stored_width<C: Cell>(cells: &[C]) -> u32 {
    match C::BYTES {
        2 => cells
            .par_iter()
            .map(|c| {
                if *c == C::UNDECIDED {
                    1
                } else {
                    c.stored_width()
                }
            })
            .max()
            .unwrap_or(1),
        b => b as u32,
    }
}

/// Writes cells (by place) to `file`: only those holding a value, one byte each when all
/// fit.
pub(crate) fn store_cells<C: Cell>(
    storage: &dyn Storage,
    file: &str,
    header: &Header,
    cells: &[C],
    codec: Codec,
) -> Result<(), Error> {
    let width = stored_width(cells);
    let header = Header {
        elem: width,
        ..header.clone()
    };
    let per = tierfile::BLOCK_ELEMS as usize;
    tierfile::write_values(
        storage,
        file,
        &header,
        cells.len() as u64,
        tierfile::BLOCK_ELEMS,
        codec,
        &|b, out| {
            let mut n = 0;
            for &c in &cells[b * per..((b + 1) * per).min(cells.len())] {
                if c == C::UNDECIDED {
                    continue;
                }
                n += 1;
                c.push_stored(out, width);
            }
            n
        },
    )
}

/// Reads rank `me`'s cells of tier `t` (all of them with one process) back from `file`,
/// one per place (0 for holes).
///
/// # Errors
/// A missing or damaged file, or one of another tier, game or dealing (its header).
pub(crate) fn load_cells<G: TierGame, C: Cell, P: Placement>(
    st: &dyn Storage,
    game: &G,
    t: G::Tier,
    file: &str,
    header: &Header,
    part: P,
    me: usize,
) -> Result<Vec<C>, Error> {
    let r = Reader::open(st, file, header)?;
    let n = part.len(me);
    if r.count() != n {
        return Err(Error::damaged(
            r.name().to_string(),
            format!("covers {} places, the tier has {n} here", r.count()),
        ));
    }
    let per = r.block_elems() as u64;
    let mut out = vec![C::UNDECIDED; n as usize];
    out.par_chunks_mut(per.max(1) as usize)
        .enumerate()
        .try_for_each(|(b, dst)| -> Result<(), Error> {
            let raw = r.block(st, b)?;
            let stored = decode_cells::<C>(&raw, r.elem(), r.name())?;
            let lo = b as u64 * per;
            let mut next = 0usize;
            let mut ok = true;
            part.runs(me, lo, lo + dst.len() as u64, |l0, g| {
                let g0 = g.start;
                stored_slots(game, t, g, |i, here| {
                    if here {
                        match stored.get(next) {
                            Some(&c) => dst[(l0 + i - g0 - lo) as usize] = c,
                            None => ok = false,
                        }
                        next += 1;
                    }
                });
            });
            if !ok || next != stored.len() {
                return Err(Error::damaged(
                    r.name().to_string(),
                    format!(
                        "a block of {} values where the game has {next} positions",
                        stored.len()
                    ),
                ));
            }
            Ok(())
        })?;
    Ok(out)
}
