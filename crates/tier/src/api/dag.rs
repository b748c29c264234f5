//! The DAG of a game's tiers below its roots, children before parents, with the checks the
//! engine relies on (no cycle, names fit a file name).

use crate::api::game::TierGame;
use crate::error::Error;
use std::collections::{HashMap, VecDeque};

/// The DAG of tiers below the roots.
pub(crate) struct Dag<T> {
    pub tiers: Vec<T>,
    pub names: Vec<String>,
    pub children: Vec<Vec<usize>>,
    pub parents: Vec<Vec<usize>>,
    /// Children before parents.
    pub order: Vec<usize>,
    pub roots: Vec<usize>,
}

impl<T: Copy + Eq + std::hash::Hash + std::fmt::Debug> Dag<T> {
    pub fn build<G: TierGame<Tier = T>>(game: &G) -> Result<Dag<T>, Error> {
        let mut index: HashMap<T, usize> = HashMap::new();
        let mut tiers = Vec::new();
        let mut children: Vec<Vec<usize>> = Vec::new();
        let mut todo = VecDeque::new();
        let roots_t = game.root_tiers();
        let mut roots = Vec::new();
        for t in roots_t {
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(t) {
                e.insert(tiers.len());
                roots.push(tiers.len());
                tiers.push(t);
                children.push(Vec::new());
                todo.push_back(t);
            }
        }
        let mut buf = Vec::new();
        while let Some(t) = todo.pop_front() {
            buf.clear();
            game.child_tiers(t, &mut buf);
            let k = index[&t];
            for &c in &buf {
                if c == t {
                    continue;
                }
                let ci = *index.entry(c).or_insert_with(|| {
                    tiers.push(c);
                    children.push(Vec::new());
                    todo.push_back(c);
                    tiers.len() - 1
                });
                if !children[k].contains(&ci) {
                    children[k].push(ci);
                }
            }
        }
        let n = tiers.len();
        let mut parents = vec![Vec::new(); n];
        for (k, cs) in children.iter().enumerate() {
            for &c in cs {
                parents[c].push(k);
            }
        }
        // Kahn: a tier is ready when its children are done.
        let mut left: Vec<usize> = children.iter().map(Vec::len).collect();
        let mut ready: VecDeque<usize> = (0..n).filter(|&k| left[k] == 0).collect();
        let mut order = Vec::with_capacity(n);
        while let Some(k) = ready.pop_front() {
            order.push(k);
            for &p in &parents[k] {
                left[p] -= 1;
                if left[p] == 0 {
                    ready.push_back(p);
                }
            }
        }
        if order.len() != n {
            let stuck = (0..n).find(|&k| left[k] > 0).expect("a tier left");
            return Err(Error::Game(format!(
                "the tiers form a cycle through tier {:?}",
                tiers[stuck]
            )));
        }
        let names: Vec<String> = tiers.iter().map(|&t| game.tier_name(t)).collect();
        for (i, name) in names.iter().enumerate() {
            if name.is_empty()
                || name.len() > 40
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            {
                return Err(Error::Game(format!(
                    "tier {:?} is named {name:?}: a tier name is 1 to 40 letters, digits, '-' or '_'",
                    tiers[i]
                )));
            }
        }
        let mut seen = HashMap::new();
        for (i, name) in names.iter().enumerate() {
            if let Some(j) = seen.insert(name.clone(), i) {
                return Err(Error::Game(format!(
                    "tiers {:?} and {:?} have the same name {name:?}",
                    tiers[j], tiers[i]
                )));
            }
        }
        Ok(Dag {
            tiers,
            names,
            children,
            parents,
            order,
            roots,
        })
    }
}
