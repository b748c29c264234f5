//! Priority compression, apart from the reductions (`reduce.rs`) so that the solver's
//! driver uses it without importing them.

/// Priorities renumbered with the same winners: the distinct priorities, in increasing order,
/// become 0, 1, 2, ... with a new number only where the parity changes (priorities of one
/// parity with none of the other between them act alike: the largest recurring one has the
/// same parity either way). The levels alternate in parity, the lowest is 0 if the smallest
/// priority is even, else 1. Returns the new priorities and the number of levels (the
/// largest plus one; 0 for no vertices).
///
/// # Complexity
/// O(n + p) with p the largest priority when it is below 4n, else O(n log n).
///
/// # Example
/// ```
/// use retrograde_parity::reduce::compressed_priorities;
/// let (p, levels) = compressed_priorities(&[4, 7, 2, 9, 12, 3]);
/// // 2 and 3 differ in parity; 4 comes after 3; 7 and 9 are both odd with nothing even
/// // between them; 12 is even.
/// assert_eq!(p, [2, 3, 0, 3, 4, 1]);
/// assert_eq!(levels, 5);
/// ```
pub fn compressed_priorities(priority: &[u32]) -> (Vec<u32>, u32) {
    let Some(&max) = priority.iter().max() else {
        return (Vec::new(), 0);
    };
    let level_of = |distinct: &mut dyn Iterator<Item = u32>, map: &mut dyn FnMut(u32, u32)| {
        let mut level = 0u32;
        let mut last: Option<u32> = None;
        for p in distinct {
            level = match last {
                None => p & 1,
                Some(l) if (l ^ p) & 1 == 1 => level + 1,
                Some(_) => level,
            };
            map(p, level);
            last = Some(p);
        }
        level + 1
    };
    if (max as u64) < 4 * priority.len() as u64 + 64 {
        let mut table = vec![u32::MAX; max as usize + 1];
        for &p in priority {
            table[p as usize] = 0;
        }
        let present: Vec<u32> = (0..=max).filter(|&p| table[p as usize] == 0).collect();
        let levels = level_of(&mut present.into_iter(), &mut |p, l| table[p as usize] = l);
        (
            priority.iter().map(|&p| table[p as usize]).collect(),
            levels,
        )
    } else {
        let mut distinct = priority.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let mut levels_of = vec![0u32; distinct.len()];
        let mut k = 0;
        let levels = level_of(&mut distinct.iter().copied(), &mut |_, l| {
            levels_of[k] = l;
            k += 1;
        });
        let out = priority
            .iter()
            .map(|p| levels_of[distinct.binary_search(p).expect("every priority is listed")])
            .collect();
        (out, levels)
    }
}
