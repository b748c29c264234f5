//! Sorted lists of places kept small: each a list of LEB128 varints, the gaps between
//! consecutive places, cut into pieces at every [`SPAN`] places so that the part of a list
//! that falls in one stretch of the tier is read without the rest.
//!
//! The class cells' solve (`classes.rs`) keeps in them the lists that wait for their level
//! (seeds, phantoms, the positions decided at init) and its level log (each level's
//! positions, from which the values are made at the end). A list made in place order takes
//! about a byte a place where places are a few dozen apart, two where they are thousands
//! apart, against four in a `Vec<u32>`.

use rayon::prelude::*;

/// A list is cut into pieces at multiples of `2^SPAN_BITS` places.
pub(crate) const SPAN_BITS: u32 = 18;
/// Places per span: 16 blocks of a values file, so that a batch of 64 blocks written at a
/// time is four spans, made side by side.
pub(crate) const SPAN: u64 = 1 << SPAN_BITS;

/// Places per part when a big sorted list is packed in parallel.
const PART: usize = 1 << 16;

/// A sorted list of distinct places (`u32`), packed.
#[derive(Debug, Default, Clone)]
pub(crate) struct Packed {
    /// The varints: in each piece, the first place's distance from its span's start, then
    /// each place's distance from the one before.
    bytes: Vec<u8>,
    /// The pieces: (span, where its varints start in `bytes`), in order. Consecutive pieces
    /// may share a span (lists appended).
    pieces: Vec<(u32, usize)>,
    /// The last place, if any.
    last: Option<u32>,
    /// Places in all.
    len: u64,
}

impl Packed {
    /// Appends `l`, which must come after every place in the list.
    ///
    /// # Panics
    /// When it does not (the callers make their lists in place order).
    #[inline]
    pub(crate) fn push(&mut self, l: u32) {
        let span = l >> SPAN_BITS;
        let from = match self.last {
            Some(last) if last >> SPAN_BITS == span => {
                assert!(l > last, "places packed in order: {l} after {last}");
                last
            }
            last => {
                assert!(last.is_none_or(|x| l > x), "places packed in order");
                self.pieces.push((span, self.bytes.len()));
                span << SPAN_BITS
            }
        };
        put_varint(&mut self.bytes, l - from);
        self.last = Some(l);
        self.len += 1;
    }

    /// The list of `places` (sorted, distinct), packed in parallel parts when it is long.
    pub(crate) fn from_sorted(places: &[u32]) -> Packed {
        if places.len() <= PART {
            let mut p = Packed::default();
            places.iter().for_each(|&l| p.push(l));
            return p;
        }
        let parts: Vec<Packed> = places
            .par_chunks(PART)
            .map(|c| {
                let mut p = Packed::default();
                c.iter().for_each(|&l| p.push(l));
                p
            })
            .collect();
        let mut whole = Packed {
            bytes: Vec::with_capacity(parts.iter().map(|p| p.bytes.len()).sum()),
            pieces: Vec::with_capacity(parts.iter().map(|p| p.pieces.len()).sum()),
            ..Packed::default()
        };
        for p in parts {
            whole.append(p);
        }
        whole
    }

    /// Appends `other`, whose first place must come after this list's last.
    ///
    /// # Panics
    /// When it does not.
    pub(crate) fn append(&mut self, other: Packed) {
        let Some(last) = other.last else {
            return;
        };
        if let (Some(a), Some(&(span, _))) = (self.last, other.pieces.first()) {
            assert!(
                span > a >> SPAN_BITS || other.first() > Some(a),
                "lists appended in order"
            );
        }
        let at = self.bytes.len();
        self.pieces
            .extend(other.pieces.iter().map(|&(s, o)| (s, o + at)));
        self.bytes.extend_from_slice(&other.bytes);
        self.last = Some(last);
        self.len += other.len;
    }

    /// The first place, if any.
    fn first(&self) -> Option<u32> {
        let &(span, at) = self.pieces.first()?;
        Some((span << SPAN_BITS) + read_varint(&self.bytes, &mut { at }))
    }

    /// Places in the list.
    #[cfg(test)]
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Whether the list is empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every place, in order.
    pub(crate) fn to_vec(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len as usize);
        for k in 0..self.pieces.len() {
            self.piece(k, |l| out.push(l));
        }
        out
    }

    /// Calls `f` with each place of span `span`, in order.
    pub(crate) fn each_in_span(&self, span: u32, mut f: impl FnMut(u32)) {
        let first = self.pieces.partition_point(|&(s, _)| s < span);
        for k in first..self.pieces.len() {
            if self.pieces[k].0 != span {
                break;
            }
            self.piece(k, &mut f);
        }
    }

    /// Calls `f` with each place of piece `k`.
    #[inline]
    fn piece(&self, k: usize, mut f: impl FnMut(u32)) {
        let (span, mut at) = self.pieces[k];
        let end = self.pieces.get(k + 1).map_or(self.bytes.len(), |p| p.1);
        let mut l = span << SPAN_BITS;
        while at < end {
            l += read_varint(&self.bytes, &mut at);
            f(l);
        }
    }
}

/// Appends `x` as a LEB128 varint (7 bits a byte, the high bit set on all but the last).
#[inline]
fn put_varint(out: &mut Vec<u8>, mut x: u32) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// The varint at `*at`, moving `*at` past it (the lists are ours: never malformed).
#[inline]
fn read_varint(b: &[u8], at: &mut usize) -> u32 {
    let mut x = 0u32;
    let mut shift = 0;
    loop {
        let byte = b[*at];
        *at += 1;
        x |= u32::from(byte & 0x7F) << shift;
        if byte < 0x80 {
            return x;
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A sorted list of distinct places from random gaps (`wide`: gaps up to spans apart).
    fn places(gaps: &[u32], wide: bool) -> Vec<u32> {
        let mut l = 0u32;
        let mut out = Vec::new();
        for (k, &g) in gaps.iter().enumerate() {
            let g = if wide && k % 7 == 3 { g << 14 } else { g };
            l = match (k, l.checked_add(g.max(1))) {
                (0, _) => g,
                (_, Some(x)) => x,
                (_, None) => break,
            };
            out.push(l);
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A packed list gives back its places, whole and span by span, however it was made
        /// (pushed one by one, packed in parallel parts, or appended in pieces).
        #[test]
        fn packed_lists_give_back_their_places(
            gaps in proptest::collection::vec(0u32..3000, 0..3000),
            wide: bool,
            cut in 0usize..3000,
        ) {
            let v = places(&gaps, wide);
            let mut pushed = Packed::default();
            v.iter().for_each(|&l| pushed.push(l));
            let cut = cut.min(v.len());
            let mut appended = Packed::from_sorted(&v[..cut]);
            appended.append(Packed::from_sorted(&v[cut..]));
            for p in [&pushed, &Packed::from_sorted(&v), &appended] {
                prop_assert_eq!(p.len(), v.len() as u64);
                prop_assert_eq!(p.to_vec(), v.clone());
                let spans = v.last().map_or(0, |&l| (l >> SPAN_BITS) + 2);
                let mut by_span = Vec::new();
                for s in 0..spans {
                    p.each_in_span(s, |l| {
                        assert_eq!(l >> SPAN_BITS, s);
                        by_span.push(l);
                    });
                }
                prop_assert_eq!(&by_span, &v);
            }
        }
    }

    #[test]
    fn long_lists_pack_in_parallel_parts_and_small_gaps_take_a_byte() {
        // Every third place of 600,000: parts of 65,536, spans of 262,144.
        let v: Vec<u32> = (0..200_000u32).map(|i| 3 * i + 1).collect();
        let p = Packed::from_sorted(&v);
        assert_eq!(p.to_vec(), v);
        // A byte a place, and a few more where a part starts inside a span.
        let parts = v.len().div_ceil(PART);
        assert!(p.bytes.len() <= v.len() + 2 * parts, "{}", p.bytes.len());
        // The last places of u32.
        let top = [u32::MAX - 2, u32::MAX - 1, u32::MAX];
        assert_eq!(Packed::from_sorted(&top).to_vec(), top);
    }

    #[test]
    #[should_panic(expected = "in order")]
    fn a_place_out_of_order_is_refused() {
        let mut p = Packed::default();
        p.push(5);
        p.push(5);
    }
}
