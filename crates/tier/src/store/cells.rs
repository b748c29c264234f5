//! A tier's value cells in a values file: every slot, in order (a hole of a dense index, a
//! number that is no position or not a canonical one, as zero bytes), one byte each when
//! every value fits, else two. So a value is read from its block at its number, without
//! asking the game which numbers hold positions. A rank's share of a tier is such a file
//! over its places (in place order).

use crate::error::Error;
use crate::store::cell::Cell;
use crate::store::storage::Storage;
use crate::store::tierfile::{self, Codec, Header, Reader};
use rayon::prelude::*;

/// One stored cell (its bytes) of the file `name`.
#[inline]
pub(crate) fn stored_cell<C: Cell>(raw: &[u8], name: &str) -> Result<C, Error> {
    C::from_stored(raw).ok_or_else(|| {
        Error::damaged(
            name.to_string(),
            format!("a stored value is not a value of {}-byte cells", C::BYTES),
        )
    })
}

/// Stored cells of one width into cells. Every stored form of one or two bytes is looked
/// up in a table made once for the file (two-byte ones only for files of at least
/// [`Decode::TABLE_FROM`] cells, where the table's 65,536 entries cost less than decoding
/// each cell: decoding each was a fifth of a chess ending's time when its children were
/// read back from disk); wider ones are decoded one by one.
pub(crate) struct Decode<C> {
    width: usize,
    table: Vec<Option<C>>,
}

impl<C: Cell> Decode<C> {
    /// The least number of cells for which a file of two-byte cells gets a table.
    pub(crate) const TABLE_FROM: u64 = 1 << 18;

    /// The decoder of a file of `count` cells of `width` bytes each.
    pub(crate) fn new(width: usize, count: u64) -> Self {
        let table = match width {
            1 => (0..=u8::MAX).map(|b| C::from_stored(&[b])).collect(),
            2 if count >= Self::TABLE_FROM => (0..=u16::MAX)
                .map(|v| C::from_stored(&v.to_le_bytes()))
                .collect(),
            _ => Vec::new(),
        };
        Decode { width, table }
    }

    /// Decodes the stored cells `raw` of file `name` into `dst` (as many): an error when
    /// one is no cell.
    pub(crate) fn block(&self, raw: &[u8], dst: &mut [C], name: &str) -> Result<(), Error> {
        let e = self.width;
        let mut ok = true;
        match (e, self.table.is_empty()) {
            (1, false) => {
                for (d, &b) in dst.iter_mut().zip(raw) {
                    let c = self.table[usize::from(b)];
                    ok &= c.is_some();
                    *d = c.unwrap_or(C::UNDECIDED);
                }
            }
            (2, false) => {
                for (d, b) in dst.iter_mut().zip(raw.chunks_exact(2)) {
                    let c = self.table[usize::from(u16::from_le_bytes([b[0], b[1]]))];
                    ok &= c.is_some();
                    *d = c.unwrap_or(C::UNDECIDED);
                }
            }
            _ => {
                for (d, c) in dst.iter_mut().zip(raw.chunks_exact(e)) {
                    *d = stored_cell(c, name)?;
                }
            }
        }
        if ok {
            Ok(())
        } else {
            // The first bad one, named as a cell decoded on its own names it.
            raw.chunks_exact(e)
                .try_for_each(|c| stored_cell::<C>(c, name).map(|_| ()))
        }
    }
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

/// Writes cells (by place) to `file`, every one (a hole as zero bytes), one byte each when
/// all fit.
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
    let per = tierfile::VALUE_BLOCK_ELEMS as usize;
    tierfile::write_values(
        storage,
        file,
        &header,
        cells.len() as u64,
        tierfile::VALUE_BLOCK_ELEMS,
        codec,
        &|b, out| {
            let block = &cells[b * per..((b + 1) * per).min(cells.len())];
            for &c in block {
                c.push_stored(out, width);
            }
            block.len() as u64
        },
    )
}

/// Opens the values file of `count` places, its header, index and length checked.
fn open_cells(st: &dyn Storage, file: &str, header: &Header, count: u64) -> Result<Reader, Error> {
    let r = Reader::open(st, file, header)?;
    if r.count() != count {
        return Err(Error::damaged(
            r.name().to_string(),
            format!("covers {} places, the tier has {count} here", r.count()),
        ));
    }
    Ok(r)
}

/// Checks what [`load_cells`] checks (header, index, length and every block's checksum)
/// without decoding the cells.
///
/// # Errors
/// As [`load_cells`].
pub(crate) fn check_cells(
    st: &dyn Storage,
    file: &str,
    header: &Header,
    count: u64,
) -> Result<(), Error> {
    open_cells(st, file, header, count)?.check_blocks(st)
}

/// [`load_cells`] of a file that must keep every block (a sorted tier's, a rank's share):
/// a compact one is an error.
pub(crate) fn load_whole_cells<C: Cell>(
    st: &dyn Storage,
    file: &str,
    header: &Header,
    count: u64,
) -> Result<Vec<C>, Error> {
    let (cells, left_out) = load_cells(st, file, header, count)?;
    if !left_out.is_empty() {
        return Err(Error::damaged(
            st.describe(file),
            "leaves blocks out (a compact file), where every block is kept".to_string(),
        ));
    }
    Ok(cells)
}

/// Reads the cells of `count` places back from `file` (a rank's share of a tier, or all
/// of it), one per place ([`Cell::UNDECIDED`] for holes), and the numbers a compact file
/// leaves out (empty for a whole file; [`Cell::UNDECIDED`] there, for the caller to
/// derive). Every block read is checked.
///
/// # Errors
/// A missing or damaged file, or one of another tier, game or dealing (its header).
pub(crate) fn load_cells<C: Cell>(
    st: &dyn Storage,
    file: &str,
    header: &Header,
    count: u64,
) -> Result<(Vec<C>, std::ops::Range<u64>), Error> {
    let r = open_cells(st, file, header, count)?;
    let per = r.block_elems() as u64;
    let mut out = vec![C::UNDECIDED; count as usize];
    let left_out = r.derived();
    let decode = Decode::<C>::new(r.elem() as usize, count);
    out.par_chunks_mut(per.max(1) as usize)
        .enumerate()
        .try_for_each(|(b, dst)| -> Result<(), Error> {
            if left_out.contains(&b) {
                return Ok(());
            }
            let raw = r.block(st, b)?;
            let e = r.elem() as usize;
            if raw.len() != dst.len() * e {
                return Err(Error::damaged(
                    r.name().to_string(),
                    format!(
                        "block {b} holds {} values, not {}",
                        raw.len() / e,
                        dst.len()
                    ),
                ));
            }
            decode.block(&raw, dst, r.name())
        })?;
    let numbers = left_out.start as u64 * per..(left_out.end as u64 * per).min(count);
    Ok((out, numbers))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::meta::header;
    use crate::store::storage::MemStorage;
    use crate::store::tierfile::Kind;
    use retrograde_solve::Value;

    /// A values file of 10 numbers in blocks of 4 whose block 1 gets `bad(block)` as its
    /// cells, every block checksummed as written (so only the reader's own checks see it).
    fn written(bad: &(dyn Fn(&mut Vec<u8>) -> u64 + Sync)) -> (MemStorage, Header) {
        let st = MemStorage::new();
        let h = header("g", "t", Kind::Values, 1);
        let win = <u8 as Cell>::encode(Value::Win(1)).unwrap();
        tierfile::write_values(&st, "t.values", &h, 10, 4, Codec::Raw, &|b, out| {
            if b == 1 {
                return bad(out);
            }
            let n = if b == 2 { 2 } else { 4 };
            out.extend(std::iter::repeat_n(win, n));
            n as u64
        })
        .unwrap();
        (st, h)
    }

    /// The table of [`Decode`] gives every stored form of one and two bytes the cell (or
    /// the error) that decoding it on its own gives, in a block of its own and in a block
    /// of every form.
    #[test]
    fn decoding_by_table_equals_decoding_each_cell() {
        fn check<C: Cell + std::fmt::Debug>(width: usize) {
            let table = Decode::<C>::new(width, Decode::<C>::TABLE_FROM);
            assert!(!table.table.is_empty());
            let each = Decode::<C> {
                width,
                table: Vec::new(),
            };
            let forms: Vec<Vec<u8>> = match width {
                1 => (0..=u8::MAX).map(|b| vec![b]).collect(),
                _ => (0..=u16::MAX).map(|v| v.to_le_bytes().to_vec()).collect(),
            };
            let mut good = Vec::new();
            for raw in &forms {
                let (mut a, mut b) = ([C::DRAW], [C::DRAW]);
                let x = table.block(raw, &mut a, "f").map(|_| a[0]);
                let y = each.block(raw, &mut b, "f").map(|_| b[0]);
                match (&x, &y) {
                    (Ok(x), Ok(y)) => assert_eq!(x, y, "{raw:?}"),
                    (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string()),
                    _ => panic!("{raw:?}: {x:?} against {y:?}"),
                }
                if x.is_ok() {
                    good.extend_from_slice(raw);
                }
            }
            assert!(good.len() / width > 3, "few stored forms are cells");
            let n = good.len() / width;
            let (mut a, mut b) = (vec![C::DRAW; n], vec![C::DRAW; n]);
            table.block(&good, &mut a, "f").unwrap();
            each.block(&good, &mut b, "f").unwrap();
            assert_eq!(a, b);
            // One foreign form among them: the same error, naming the file.
            let bad = forms.iter().find(|r| C::from_stored(r).is_none()).unwrap();
            good[width..2 * width].copy_from_slice(bad);
            let x = table.block(&good, &mut a, "f.values").unwrap_err();
            let y = each.block(&good, &mut b, "f.values").unwrap_err();
            assert_eq!(x.to_string(), y.to_string());
            assert!(x.to_string().contains("f.values"), "{x}");
        }
        check::<u8>(1);
        check::<u8>(2);
        check::<u16>(1);
        check::<u16>(2);
        // Small two-byte files decode cell by cell.
        assert!(Decode::<u16>::new(2, 1000).table.is_empty());
    }

    #[test]
    fn cells_and_holes_read_back_at_their_places() {
        let (st, h) = written(&|out| {
            let win = <u8 as Cell>::encode(Value::Win(1)).unwrap();
            out.extend([0, win, 0, 0]);
            4
        });
        let cells = load_whole_cells::<u16>(&st, "t.values", &h, 10).unwrap();
        let holes: Vec<usize> = (0..10).filter(|&i| cells[i] == u16::UNDECIDED).collect();
        assert_eq!(holes, [4, 6, 7]);
        assert_eq!(cells[5].decode(), Some(Value::Win(1)));
    }

    #[test]
    fn a_block_of_the_wrong_length_or_with_a_foreign_byte_is_an_error_naming_the_file() {
        let (st, h) = written(&|out| {
            out.extend([0, 0, 0]);
            3
        });
        let e = load_whole_cells::<u16>(&st, "t.values", &h, 10).unwrap_err();
        assert!(e.to_string().contains("t.values"), "{e}");
        assert!(
            e.to_string().contains("block 1 holds 3 values, not 4"),
            "{e}"
        );
        // Byte 2 is a cell's hole mark in memory, never a stored cell.
        let (st, h) = written(&|out| {
            out.extend([0, 2, 0, 0]);
            4
        });
        let e = load_whole_cells::<u16>(&st, "t.values", &h, 10).unwrap_err();
        assert!(e.to_string().contains("t.values"), "{e}");
        assert!(e.to_string().contains("not a value"), "{e}");
        // A file of another length than the tier's.
        let e = load_whole_cells::<u16>(&st, "t.values", &h, 11).unwrap_err();
        assert!(e.to_string().contains("covers 10 places"), "{e}");
    }
}
