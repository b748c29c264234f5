//! The scores of a scored graph, kept compactly: a score for a few vertices out of many.

/// Which vertices have a score, and their scores: one bit per vertex, a count of the set bits
/// before each 64-bit word, and the scores in vertex order. About 1.6 bits per vertex plus 8
/// bytes per score, and a look-up reads a word, a count and (where the bit is set) a score
/// that lies beside its neighbours' (the scores of vertices read in order are read in order).
///
/// # Invariants
/// `has` has one bit per vertex; `before[w]` is the number of bits set in `has[..w]` (one
/// entry per word); `values[i]` is the score of the `i`-th vertex with its bit set.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scores {
    has: Vec<u64>,
    before: Vec<u32>,
    values: Vec<i64>,
}

impl Scores {
    /// The scores of `n` vertices from `(vertex, score)` pairs (a later score of a vertex
    /// replaces an earlier one); every vertex `< n`.
    pub(crate) fn new(n: usize, scores: Vec<(u32, i64)>) -> Scores {
        let mut has = vec![0u64; n.div_ceil(64)];
        for &(v, _) in &scores {
            has[v as usize / 64] |= 1 << (v % 64);
        }
        let mut before = Vec::with_capacity(has.len());
        let mut count = 0u32;
        for w in &has {
            before.push(count);
            count += w.count_ones();
        }
        let mut values = vec![0i64; count as usize];
        for (v, x) in scores {
            values[Self::slot(&has, &before, v)] = x;
        }
        Scores {
            has,
            before,
            values,
        }
    }

    /// Where the score of `v` (whose bit is set) is kept.
    #[inline]
    fn slot(has: &[u64], before: &[u32], v: u32) -> usize {
        let (w, b) = (v as usize / 64, v % 64);
        before[w] as usize + (has[w] & ((1u64 << b) - 1)).count_ones() as usize
    }

    /// The score of `v`, if it has one.
    #[inline]
    pub(crate) fn get(&self, v: u32) -> Option<i64> {
        let w = self.has[v as usize / 64];
        if w >> (v % 64) & 1 == 0 {
            return None;
        }
        Some(self.values[Self::slot(&self.has, &self.before, v)])
    }

    /// Bytes of heap memory held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.has.capacity() * 8 + self.before.capacity() * 4 + self.values.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_found_where_given_and_nowhere_else() {
        let given = [
            (0, 5),
            (63, -1),
            (64, 7),
            (130, i64::MAX),
            (64, 8),
            (199, -i64::MAX),
        ];
        let s = Scores::new(200, given.to_vec());
        for v in 0..200u32 {
            let want = given.iter().rev().find(|g| g.0 == v).map(|g| g.1);
            assert_eq!(s.get(v), want, "vertex {v}");
        }
        assert_eq!(s.values.len(), 5);
    }
}
