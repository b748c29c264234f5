//! Random small tier games for property tests: dense ones (loops inside tiers, exits to
//! several child tiers, holes, primitives of every kind, go-again moves, an optional
//! symmetry) and sorted-key ones (ordered slots, merging children).

#![allow(dead_code)]

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use retrograde_graph::Primitive;
use retrograde_tier::*;
use std::collections::HashSet;

/// A position: (tier, slot).
pub type Pos = (u8, u16);

/// The rules of a random dense game, shared by the wrappers that choose its capabilities.
#[derive(Clone, Debug)]
pub struct Rules {
    /// Slots per tier.
    pub sizes: Vec<u16>,
    /// Child tiers of each tier (smaller numbers).
    pub children: Vec<Vec<u8>>,
    /// Whether a slot is a position.
    pub valid: Vec<Vec<bool>>,
    /// Moves of each position.
    pub moves: Vec<Vec<Vec<Pos>>>,
    pub primitive: Vec<Vec<Option<Primitive>>>,
    /// Moves that keep the turn.
    pub again: HashSet<(Pos, Pos)>,
    /// The symmetry: an involution of each tier's slots (identity without symmetry).
    pub sigma: Vec<Vec<u16>>,
    pub no_move: Primitive,
    pub start: Option<Pos>,
}

impl Rules {
    /// A random game; `symmetric` makes it invariant under an involution of the slots.
    pub fn random(seed: u64, symmetric: bool, go_again: bool) -> Rules {
        let mut rng = SmallRng::seed_from_u64(seed);
        let ntiers = rng.gen_range(1..=5usize);
        let mut sizes = Vec::new();
        let mut children = Vec::new();
        let mut valid = Vec::new();
        let mut sigma = Vec::new();
        for t in 0..ntiers {
            let size = rng.gen_range(1..=10u16);
            sizes.push(size);
            let mut ch: Vec<u8> = (0..t as u8).filter(|_| rng.gen_bool(0.6)).collect();
            if t > 0 && ch.is_empty() && rng.gen_bool(0.7) {
                ch.push(rng.gen_range(0..t as u8));
            }
            children.push(ch);
            // An involution: pair up some slots.
            let mut s: Vec<u16> = (0..size).collect();
            if symmetric {
                let mut order: Vec<u16> = (0..size).collect();
                for i in (1..order.len()).rev() {
                    order.swap(i, rng.gen_range(0..=i));
                }
                for pair in order.chunks(2) {
                    if pair.len() == 2 && rng.gen_bool(0.7) {
                        s[pair[0] as usize] = pair[1];
                        s[pair[1] as usize] = pair[0];
                    }
                }
            }
            // Holes, closed under the symmetry.
            let mut v = vec![true; size as usize];
            for i in 0..size as usize {
                if rng.gen_bool(0.15) {
                    v[i] = false;
                    v[s[i] as usize] = false;
                }
            }
            if !v.iter().any(|&x| x) {
                v[0] = true;
                v[s[0] as usize] = true;
            }
            valid.push(v);
            sigma.push(s);
        }
        let sig = |sigma: &Vec<Vec<u16>>, p: Pos| (p.0, sigma[p.0 as usize][p.1 as usize]);
        let positions_of = |t: usize, valid: &Vec<Vec<bool>>| -> Vec<Pos> {
            (0..sizes[t])
                .filter(|&i| valid[t][i as usize])
                .map(|i| (t as u8, i))
                .collect()
        };
        let mut moves: Vec<Vec<Vec<Pos>>> = sizes
            .iter()
            .map(|&s| vec![Vec::new(); s as usize])
            .collect();
        let mut primitive: Vec<Vec<Option<Primitive>>> =
            sizes.iter().map(|&s| vec![None; s as usize]).collect();
        let mut again = HashSet::new();
        let prims = [Primitive::Win, Primitive::Loss, Primitive::Tie];
        for t in 0..ntiers {
            for i in 0..sizes[t] {
                let p = (t as u8, i);
                let q = sig(&sigma, p);
                if !valid[t][i as usize] || q < p {
                    continue; // a hole, or done through its twin
                }
                let prim = rng.gen_bool(0.12).then(|| prims[rng.gen_range(0..3)]);
                primitive[t][i as usize] = prim;
                primitive[t][q.1 as usize] = prim;
                if prim.is_some() {
                    continue;
                }
                let mut targets: Vec<Pos> = positions_of(t, &valid);
                for &c in &children[t] {
                    targets.extend(positions_of(c as usize, &valid));
                }
                let k = rng.gen_range(0..=4usize);
                let mut ms: Vec<Pos> = (0..k)
                    .map(|_| targets[rng.gen_range(0..targets.len())])
                    .collect();
                if q == p {
                    // A fixed point: its moves must be closed under the symmetry.
                    let twins: Vec<Pos> = ms.iter().map(|&c| sig(&sigma, c)).collect();
                    ms.extend(twins);
                }
                for &c in &ms {
                    if go_again && rng.gen_bool(0.3) {
                        again.insert((p, c));
                        again.insert((q, sig(&sigma, c)));
                    }
                }
                let twin_moves: Vec<Pos> = ms.iter().map(|&c| sig(&sigma, c)).collect();
                moves[t][i as usize] = ms;
                if q != p {
                    moves[t][q.1 as usize] = twin_moves;
                }
            }
        }
        // Keep-turn marks must agree on twin moves of a fixed point: make the set closed.
        let closed: Vec<(Pos, Pos)> = again
            .iter()
            .map(|&(a, b)| (sig(&sigma, a), sig(&sigma, b)))
            .collect();
        again.extend(closed);
        let no_move = prims[rng.gen_range(0..3)];
        let no_move = if rng.gen_bool(0.6) {
            Primitive::Loss
        } else {
            no_move
        };
        let top = ntiers - 1;
        let start = if rng.gen_bool(0.8) {
            positions_of(top, &valid).first().copied()
        } else {
            None
        };
        Rules {
            sizes,
            children,
            valid,
            moves,
            primitive,
            again,
            sigma,
            no_move,
            start,
        }
    }

    fn parents(&self, p: &Pos) -> Vec<Pos> {
        let t = p.0 as usize;
        let mut out = Vec::new();
        for i in 0..self.sizes[t] {
            for c in &self.moves[t][i as usize] {
                if c == p {
                    out.push((t as u8, i));
                }
            }
        }
        out
    }
}

macro_rules! wrapper {
    ($name:ident, $parents:ty, $sym:ty, $turn:ty) => {
        #[derive(Debug)]
        pub struct $name(pub Rules);

        impl TierGame for $name {
            type Position = Pos;
            type Tier = u8;
            type Layout = Dense;
            type Parents = $parents;
            type Symmetry = $sym;
            type Turn = $turn;
            type Score = Unscored;

            fn name(&self) -> String {
                "random".into()
            }
            fn start(&self) -> Option<Pos> {
                self.0.start
            }
            fn root_tiers(&self) -> Vec<u8> {
                vec![self.0.sizes.len() as u8 - 1]
            }
            fn tier(&self, p: &Pos) -> u8 {
                p.0
            }
            fn child_tiers(&self, t: u8, out: &mut Vec<u8>) {
                out.extend(&self.0.children[t as usize]);
            }
            fn tier_name(&self, t: u8) -> String {
                format!("t{t}")
            }
            fn primitive(&self, p: &Pos) -> Option<Primitive> {
                self.0.primitive[p.0 as usize][p.1 as usize]
            }
            fn moves(&self, p: &Pos, out: &mut Vec<Pos>) {
                out.extend(&self.0.moves[p.0 as usize][p.1 as usize]);
            }
            fn no_move(&self) -> Primitive {
                self.0.no_move
            }
        }

        impl DenseIndex for $name {
            fn tier_size(&self, t: u8) -> u64 {
                u64::from(self.0.sizes[t as usize])
            }
            fn rank(&self, p: &Pos) -> u64 {
                u64::from(p.1)
            }
            fn unrank(&self, t: u8, i: u64) -> Option<Pos> {
                self.0.valid[t as usize][i as usize].then_some((t, i as u16))
            }
        }

        impl UnmoveGame for $name {
            fn unmoves(&self, p: &Pos, out: &mut Vec<Pos>) {
                out.extend(self.0.parents(p));
            }
        }

        impl SymmetricGame for $name {
            fn symmetry_count(&self) -> usize {
                2
            }
            fn apply_symmetry(&self, p: &Pos, g: usize) -> Pos {
                if g == 0 {
                    *p
                } else {
                    (p.0, self.0.sigma[p.0 as usize][p.1 as usize])
                }
            }
        }

        impl GoAgainGame for $name {
            fn keeps_turn(&self, from: &Pos, to: &Pos) -> bool {
                self.0.again.contains(&(*from, *to))
            }
        }
    };
}

wrapper!(Plain, ReverseEdges, NoSymmetry, Alternate);
wrapper!(PlainUnmoves, Unmoves, NoSymmetry, Alternate);
wrapper!(Again, ReverseEdges, NoSymmetry, GoAgain);
wrapper!(AgainUnmoves, Unmoves, NoSymmetry, GoAgain);
wrapper!(Sym, Unmoves, Symmetries, Alternate);
wrapper!(SymEdges, ReverseEdges, Symmetries, Alternate);
wrapper!(SymAgain, Unmoves, Symmetries, GoAgain);

/// A random sorted-key game: positions are numbers, tier = depth; slot `s` adds
/// `weights[s]` (strictly increasing in the key), legal when a hash allows it, so children
/// of different parents meet.
#[derive(Debug)]
pub struct Sorted {
    pub weights: Vec<u64>,
    pub depth: u8,
    pub seed: u64,
    pub offset: u64,
    pub go_again: bool,
    /// How the game breaks the API, to test that the engine says so.
    pub broken: Broken,
}

/// A way for a sorted game to break the API.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Broken {
    /// It keeps it.
    No,
    /// The children through a slot are not increasing in the key.
    Unordered,
    /// Its keys need more bits than it says.
    PastBits,
}

impl Sorted {
    pub fn random(seed: u64, wide: bool, go_again: bool) -> Sorted {
        let mut rng = SmallRng::seed_from_u64(seed);
        let slots = rng.gen_range(1..=5usize);
        let mut weights: Vec<u64> = (0..slots).map(|_| rng.gen_range(1..=6u64)).collect();
        weights.sort_unstable();
        weights.dedup();
        Sorted {
            weights,
            depth: rng.gen_range(1..=7u8),
            seed,
            offset: if wide { 1 << 40 } else { 0 },
            go_again,
            broken: Broken::No,
        }
    }

    fn hash(&self, a: u64, b: u64) -> u64 {
        let mut x = a
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(b.wrapping_mul(0xc2b2_ae3d_27d4_eb4f))
            ^ self.seed;
        x ^= x >> 31;
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x ^ (x >> 29)
    }
}

/// (depth, value).
pub type SPos = (u8, u64);

impl TierGame for Sorted {
    type Position = SPos;
    type Tier = u8;
    type Layout = SortedKeys;
    type Parents = ReverseEdges;
    type Symmetry = NoSymmetry;
    type Turn = GoAgain;
    type Score = Unscored;

    fn name(&self) -> String {
        "random sorted".into()
    }
    fn start(&self) -> Option<SPos> {
        Some((0, self.offset))
    }
    fn tier(&self, p: &SPos) -> u8 {
        p.0
    }
    fn child_tiers(&self, t: u8, out: &mut Vec<u8>) {
        if t < self.depth {
            out.push(t + 1);
        }
    }
    fn tier_name(&self, t: u8) -> String {
        format!("d{t}")
    }
    fn primitive(&self, p: &SPos) -> Option<Primitive> {
        match self.hash(p.1, 1000 + u64::from(p.0)) % 13 {
            0 => Some(Primitive::Win),
            1 => Some(Primitive::Loss),
            2 => Some(Primitive::Tie),
            _ => None,
        }
    }
    fn moves(&self, p: &SPos, out: &mut Vec<SPos>) {
        out.extend((0..self.weights.len()).filter_map(|s| self.slot_child(p, s)));
    }
    fn remoteness_bound(&self) -> Option<u32> {
        Some(u32::from(self.depth))
    }
}

impl OrderedMoves for Sorted {
    fn key(&self, p: &SPos) -> u64 {
        p.1
    }
    fn key_position(&self, t: u8, k: u64) -> SPos {
        (t, k)
    }
    fn key_bits(&self, _: u8) -> u32 {
        if self.broken == Broken::PastBits {
            3
        } else if self.offset > 0 {
            64
        } else {
            32
        }
    }
    fn slots(&self) -> usize {
        self.weights.len()
    }
    fn slot_child(&self, p: &SPos, s: usize) -> Option<SPos> {
        let key = match self.broken {
            // Decreasing in the key, from its fourth value on.
            Broken::Unordered if p.1 >= self.offset + 3 => {
                self.offset + 1000 - (p.1 - self.offset).min(1000) + self.weights[s]
            }
            _ => p.1 + self.weights[s],
        };
        (p.0 < self.depth && self.hash(p.1, s as u64) % 4 != 0).then_some((p.0 + 1, key))
    }
}

impl GoAgainGame for Sorted {
    fn keeps_turn(&self, from: &SPos, to: &SPos) -> bool {
        self.go_again && self.hash(from.1 ^ to.1, 77) % 3 == 0
    }
}
