//! The solved values of every vertex.

use crate::dgraph::DistGraph;
use crate::error::Error;
use crate::exchange::Exchange;
use crate::value::{Outcome, Scored, Value};
use retrograde_graph::{Graph, VertexId};

/// "No vertex", in the remoteness and best-move arrays.
pub(crate) const NONE: u32 = u32::MAX;

/// Outcome, remoteness and best move for every vertex of a graph, and the score of every
/// vertex of a scored graph.
///
/// Stored as flat arrays (1 + 4 + 4 bytes per vertex, and 8 more for a score).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    pub(crate) outcome: Vec<u8>,
    pub(crate) remoteness: Vec<u32>,
    pub(crate) best: Vec<u32>,
    /// The score of every vertex of a scored graph (0 for ties and draws); empty for an
    /// unscored graph, whose scores are +1, -1 and 0 by the outcome.
    pub(crate) score: Vec<i64>,
}

/// Totals over a solution.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Positions won by the player to move.
    pub win: u64,
    /// Positions lost by the player to move.
    pub loss: u64,
    /// Positions that end level.
    pub tie: u64,
    /// Positions that never end.
    pub draw: u64,
    /// The largest remoteness of any win, loss or tie; `None` when there is none.
    pub max_remoteness: Option<u32>,
    /// The largest remoteness of a win.
    pub longest_win: Option<u32>,
    /// The largest remoteness of a loss.
    pub longest_loss: Option<u32>,
}

impl Solution {
    /// Builds a solution from per-vertex values and best moves (for example read back from a
    /// file, to check it with [`crate::verify`]).
    ///
    /// # Errors
    /// [`Error::Lengths`] when the two lists differ in length.
    pub fn from_values(values: &[Value], best: &[Option<VertexId>]) -> Result<Solution, Error> {
        let scored: Vec<Scored> = values.iter().map(|&v| Scored::from(v)).collect();
        let mut s = Solution::from_scored(&scored, best)?;
        // An unscored graph's solution keeps no scores (its values are +1/-1/0 by outcome).
        s.score = Vec::new();
        Ok(s)
    }

    /// Builds the solution of a scored graph from per-vertex values with scores and best
    /// moves (for example read back from a file, to check it with [`crate::verify`]).
    ///
    /// # Errors
    /// [`Error::Lengths`] when the two lists differ in length.
    pub fn from_scored(values: &[Scored], best: &[Option<VertexId>]) -> Result<Solution, Error> {
        if values.len() != best.len() {
            return Err(Error::Lengths {
                values: values.len(),
                best: best.len(),
            });
        }
        Ok(Solution {
            outcome: values.iter().map(|v| v.outcome() as u8).collect(),
            remoteness: values
                .iter()
                .map(|v| v.remoteness.unwrap_or(NONE))
                .collect(),
            best: best.iter().map(|b| b.unwrap_or(NONE)).collect(),
            score: values.iter().map(|v| v.score).collect(),
        })
    }

    /// True for the solution of a scored graph with a vertex: [`Solution::scored`] says by
    /// how much.
    pub fn is_scored(&self) -> bool {
        !self.score.is_empty()
    }

    /// The value with its score at `v`: in an unscored graph the outcome as +1, -1 or 0.
    ///
    /// # Example
    /// ```
    /// use retrograde_graph::GraphBuilder;
    /// use retrograde_solve::{solve, Rules, Scored};
    /// // 0 chooses between 1 (worth 5 to the opponent) and 2, which moves to 3 (worth -2 to
    /// // the player there, so 2 wins by 2): 0 loses by 2 rather than by 5, in 2 plies.
    /// let mut b = GraphBuilder::new();
    /// for (u, v) in [(0, 1), (0, 2), (2, 3)] {
    ///     b.add_edge(u, v);
    /// }
    /// b.set_score(1, 5).unwrap();
    /// b.set_score(3, -2).unwrap();
    /// let s = solve(&b.build().unwrap(), &Rules::default());
    /// assert_eq!(s.scored(0), Scored::new(-2, Some(2)));
    /// assert_eq!(s.scored(0).to_string(), "loss by 2 in 2");
    /// assert_eq!(s.scored(2).to_string(), "win by 2 in 1");
    /// assert_eq!(s.best_move(0), Some(2));
    /// ```
    #[inline]
    pub fn scored(&self, v: VertexId) -> Scored {
        let value = self.value(v);
        // Only a win or loss has a score other than 0 (which saves a read for the others).
        match value.outcome() {
            Outcome::Win | Outcome::Loss if !self.score.is_empty() => {
                let r = self.remoteness[v as usize];
                Scored::new(self.score[v as usize], (r != NONE).then_some(r))
            }
            _ => Scored::from(value),
        }
    }

    /// The score of every vertex of a scored graph (0 for ties and draws); empty for an
    /// unscored graph.
    pub fn scores(&self) -> &[i64] {
        &self.score
    }

    /// The three arrays, taken apart without copying: outcome codes (`Outcome as u8`),
    /// remoteness (`u32::MAX` for draws) and best moves (`u32::MAX` where there is none;
    /// empty when best moves were not computed). For bindings that hand them on as arrays.
    pub fn into_parts(self) -> (Vec<u8>, Vec<u32>, Vec<u32>) {
        (self.outcome, self.remoteness, self.best)
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.outcome.len()
    }

    /// True for the solution of an empty graph.
    pub fn is_empty(&self) -> bool {
        self.outcome.is_empty()
    }

    /// The outcome at `v`, for the player to move.
    #[inline]
    pub fn outcome(&self, v: VertexId) -> Outcome {
        Outcome::from_code(self.outcome[v as usize])
    }

    /// The value (outcome and remoteness) at `v`.
    #[inline]
    pub fn value(&self, v: VertexId) -> Value {
        Value::new(self.outcome(v), self.remoteness[v as usize])
    }

    /// The remoteness at `v`; `None` for a draw.
    pub fn remoteness(&self, v: VertexId) -> Option<u32> {
        self.value(v).remoteness()
    }

    /// A successor that realizes the value of `v`; `None` at a terminal (and everywhere when
    /// best moves were not computed: see [`Solution::has_best_moves`]).
    #[inline]
    pub fn best_move(&self, v: VertexId) -> Option<VertexId> {
        self.best.get(v as usize).copied().filter(|&b| b != NONE)
    }

    /// False for a solution made with `SolveOptions { best_moves: false }` (values only).
    pub fn has_best_moves(&self) -> bool {
        self.best.len() == self.outcome.len()
    }

    /// In an arena, the player (0 or 1) who wins from `v`; `None` for a tie or draw. In a
    /// graph without owners, 0 is the player to move at `v`.
    pub fn winner(&self, g: &Graph, v: VertexId) -> Option<u8> {
        match self.outcome(v) {
            Outcome::Win => Some(g.owner(v)),
            Outcome::Loss => Some(1 - g.owner(v)),
            _ => None,
        }
    }

    /// Totals per outcome and the longest remoteness.
    pub fn counts(&self) -> Counts {
        let mut c = Counts::default();
        for (&o, &r) in self.outcome.iter().zip(&self.remoteness) {
            let slot = match Outcome::from_code(o) {
                Outcome::Win => {
                    c.win += 1;
                    c.longest_win = c.longest_win.max(Some(r));
                    true
                }
                Outcome::Loss => {
                    c.loss += 1;
                    c.longest_loss = c.longest_loss.max(Some(r));
                    true
                }
                Outcome::Tie => {
                    c.tie += 1;
                    true
                }
                Outcome::Draw => {
                    c.draw += 1;
                    false
                }
            };
            if slot {
                c.max_remoteness = c.max_remoteness.max(Some(r));
            }
        }
        c
    }

    /// The totals over every rank's part of a solution (a collective; every rank gets them;
    /// one process's [`Solution::counts`] with [`Solo`](crate::exchange::Solo)).
    pub fn counts_across(&self, ex: &dyn Exchange) -> Counts {
        let c = self.counts();
        let mut sums = [c.win, c.loss, c.tie, c.draw];
        ex.sum(&mut sums);
        let some = |x: Option<u32>| x.map_or(0, |r| u64::from(r) + 1);
        let mut maxes = [
            some(c.max_remoteness),
            some(c.longest_win),
            some(c.longest_loss),
        ];
        ex.max(&mut maxes);
        let back = |x: u64| x.checked_sub(1).map(|r| r as u32);
        Counts {
            win: sums[0],
            loss: sums[1],
            tie: sums[2],
            draw: sums[3],
            max_remoteness: back(maxes[0]),
            longest_win: back(maxes[1]),
            longest_loss: back(maxes[2]),
        }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.outcome.capacity()
            + self.remoteness.capacity() * 4
            + self.best.capacity() * 4
            + self.score.capacity() * 8
    }
}

/// One rank's part of a solution, by vertex id: the values (and best moves) of the vertices
/// of its [`DistGraph`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistSolution {
    lo: u32,
    part: Solution,
}

impl DistSolution {
    /// The solution `part` of the vertices `g` holds, by place (as
    /// [`solve_share`](crate::solve_share) gives it).
    ///
    /// # Errors
    /// [`Error::Part`] when `part` is not one value per vertex held.
    pub fn new(g: &DistGraph, part: Solution) -> Result<DistSolution, Error> {
        if part.len() != g.range().len() {
            return Err(Error::Part {
                part: part.len(),
                held: g.range().len(),
            });
        }
        Ok(DistSolution {
            lo: g.range().start,
            part,
        })
    }

    /// The part, by place, given back.
    pub fn into_part(self) -> Solution {
        self.part
    }

    /// The value of an owned vertex.
    pub fn value(&self, v: u32) -> Value {
        self.part.value(v - self.lo)
    }

    /// The value with its score of an owned vertex.
    pub fn scored(&self, v: u32) -> Scored {
        self.part.scored(v - self.lo)
    }

    /// The best move from an owned vertex (`None` at a terminal, or without best moves).
    pub fn best_move(&self, v: u32) -> Option<u32> {
        self.part.best_move(v - self.lo)
    }
}
