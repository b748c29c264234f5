//! The communication a distributed solve needs, without naming MPI.
//!
//! A distributed solve runs as `size()` cooperating *ranks*, each calling the same
//! collective operations in the same order (an SPMD program). [`Exchange`] is the handful
//! of collectives the solvers use: a personalised all-to-all of byte buffers (MPI's
//! `alltoallv`), sums and maxima of `u64` vectors (`allreduce`), a gather to rank 0 and a
//! broadcast from it. Three implementations:
//! - [`Solo`]: one process is the whole job (every collective is the identity);
//! - [`local_ranks`]: `k` ranks as threads of one process, for tests of the distributed
//!   code without MPI;
//! - the MPI one, in the CLI (`crates/cli/src/mpi.rs`, behind its `mpi` feature).
//!
//! Collectives never fail here: a transport that loses a rank ends the job (MPI's default
//! error handler aborts every rank), so no rank ever computes on with missing data.
//! Callers must call them from one thread per rank (the one that owns the value).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex};

/// The collectives of a distributed solve. See the [module docs](self).
pub trait Exchange {
    /// This rank's number, `0..size()`.
    fn rank(&self) -> usize;

    /// The number of ranks.
    fn size(&self) -> usize;

    /// Sends `send[d]` to rank `d` (`send.len() == size()`), and returns what every rank
    /// sent to this one, by source rank.
    fn all_to_all(&self, send: Vec<Vec<u8>>) -> Vec<Vec<u8>>;

    /// [`all_to_all`](Exchange::all_to_all) and the maximum of every rank's `flag`, in one
    /// step (a level of a solve ends with both: its updates, and whether any rank has work
    /// left). Transports override it to save a round trip.
    fn all_to_all_max(&self, send: Vec<Vec<u8>>, flag: u64) -> (Vec<Vec<u8>>, u64) {
        let mut f = [flag];
        self.max(&mut f);
        (self.all_to_all(send), f[0])
    }

    /// Element-wise sum over every rank's `v` (all of the same length), left in `v`.
    fn sum(&self, v: &mut [u64]);

    /// Element-wise maximum over every rank's `v`, left in `v`.
    fn max(&self, v: &mut [u64]);

    /// Every rank's `bytes`, by rank, at rank 0 (`None` elsewhere).
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>>;

    /// Rank 0's `bytes`, at every rank.
    fn broadcast(&self, bytes: &mut Vec<u8>);

    /// Bytes this rank has sent to other ranks so far (not counting what it keeps).
    fn bytes_sent(&self) -> u64;

    /// Whether `b` holds on every rank.
    fn all(&self, b: bool) -> bool {
        let mut v = [u64::from(!b)];
        self.max(&mut v);
        v[0] == 0
    }

    /// Whether `b` holds on some rank.
    fn any(&self, b: bool) -> bool {
        let mut v = [u64::from(b)];
        self.max(&mut v);
        v[0] == 1
    }
}

/// One process is the whole job.
#[derive(Copy, Clone, Debug, Default)]
pub struct Solo;

impl Exchange for Solo {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn all_to_all(&self, send: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        assert_eq!(send.len(), 1, "one buffer per rank");
        send
    }
    fn sum(&self, _: &mut [u64]) {}
    fn max(&self, _: &mut [u64]) {}
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        Some(vec![bytes.to_vec()])
    }
    fn broadcast(&self, _: &mut Vec<u8>) {}
    fn bytes_sent(&self) -> u64 {
        0
    }
}

/// A barrier that a failed rank breaks: the others, waiting or arriving later, panic
/// instead of waiting forever (as MPI's abort ends every rank of a job).
struct Gate {
    k: usize,
    /// (ranks arrived in this round, round, broken).
    state: Mutex<(usize, u64, bool)>,
    turn: Condvar,
}

impl Gate {
    fn new(k: usize) -> Gate {
        Gate {
            k,
            state: Mutex::new((0, 0, false)),
            turn: Condvar::new(),
        }
    }

    fn wait(&self) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let round = s.1;
        s.0 += 1;
        if s.0 == self.k {
            *s = (0, round + 1, s.2);
            self.turn.notify_all();
        }
        while s.1 == round && !s.2 {
            s = self.turn.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        if s.2 {
            drop(s);
            panic!("another rank failed");
        }
    }

    fn break_it(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).2 = true;
        self.turn.notify_all();
    }
}

/// The mailbox `k` thread ranks share.
struct Board {
    barrier: Gate,
    /// `slots[from][to]`.
    slots: Mutex<Vec<Vec<Vec<u8>>>>,
    /// Per rank, its vector for a reduction.
    words: Mutex<Vec<Vec<u64>>>,
}

/// One of `k` ranks that are threads of one process (see [`local_ranks`]).
pub struct LocalRank {
    rank: usize,
    board: Arc<Board>,
    /// Atomic so that a rank can run a solve inside a rayon pool of its own (the pool's
    /// thread then makes the collective calls).
    sent: AtomicU64,
}

impl std::fmt::Debug for LocalRank {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LocalRank({} of {})", self.rank, self.size())
    }
}

/// `k` ranks to run on `k` threads of this process, one each: the distributed solvers'
/// code paths, tested without MPI. Every rank must make the same collective calls in the
/// same order, or the threads wait forever (as MPI ranks would).
///
/// # Panics
/// If `k` is 0.
pub fn local_ranks(k: usize) -> Vec<LocalRank> {
    assert!(k > 0, "at least one rank");
    let board = Arc::new(Board {
        barrier: Gate::new(k),
        slots: Mutex::new(vec![vec![Vec::new(); k]; k]),
        words: Mutex::new(vec![Vec::new(); k]),
    });
    (0..k)
        .map(|rank| LocalRank {
            rank,
            board: board.clone(),
            sent: AtomicU64::new(0),
        })
        .collect()
}

impl LocalRank {
    fn reduce(&self, v: &mut [u64], f: fn(u64, u64) -> u64) {
        let b = &self.board;
        b.words.lock().unwrap_or_else(|e| e.into_inner())[self.rank] = v.to_vec();
        b.barrier.wait();
        {
            let w = b.words.lock().unwrap_or_else(|e| e.into_inner());
            for (i, x) in v.iter_mut().enumerate() {
                *x = w.iter().map(|r| r[i]).reduce(f).expect("a rank");
            }
        }
        b.barrier.wait();
    }
}

impl Exchange for LocalRank {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.board
            .slots
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }
    fn all_to_all(&self, send: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let b = &self.board;
        let k = self.size();
        assert_eq!(send.len(), k, "one buffer per rank");
        let out: u64 = send
            .iter()
            .enumerate()
            .filter(|&(d, _)| d != self.rank)
            .map(|(_, s)| s.len() as u64)
            .sum();
        self.sent.fetch_add(out, Relaxed);
        b.slots.lock().unwrap_or_else(|e| e.into_inner())[self.rank] = send;
        b.barrier.wait();
        let got = {
            let mut s = b.slots.lock().unwrap_or_else(|e| e.into_inner());
            (0..k)
                .map(|from| std::mem::take(&mut s[from][self.rank]))
                .collect()
        };
        b.barrier.wait();
        got
    }
    fn sum(&self, v: &mut [u64]) {
        self.reduce(v, |a, b| a + b);
    }
    fn max(&self, v: &mut [u64]) {
        self.reduce(v, u64::max);
    }
    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        let k = self.size();
        let mut send = vec![Vec::new(); k];
        send[0] = bytes.to_vec();
        let got = self.all_to_all(send);
        (self.rank == 0).then_some(got)
    }
    fn broadcast(&self, bytes: &mut Vec<u8>) {
        let k = self.size();
        let send = if self.rank == 0 {
            vec![bytes.clone(); k]
        } else {
            vec![Vec::new(); k]
        };
        let mut got = self.all_to_all(send);
        *bytes = std::mem::take(&mut got[0]);
    }
    fn bytes_sent(&self) -> u64 {
        self.sent.load(Relaxed)
    }
}

/// Runs `f` on `k` thread ranks and returns their results by rank (for tests).
///
/// # Panics
/// If a rank panics: the others then panic at their next collective rather than wait for
/// it forever.
pub fn run_local<T: Send>(k: usize, f: impl Fn(&LocalRank) -> T + Sync) -> Vec<T> {
    let ranks = local_ranks(k);
    std::thread::scope(|s| {
        let hs: Vec<_> = ranks
            .into_iter()
            .map(|r| {
                let f = &f;
                s.spawn(move || {
                    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&r))) {
                        Ok(t) => t,
                        Err(e) => {
                            r.board.barrier.break_it();
                            std::panic::resume_unwind(e)
                        }
                    }
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| h.join().expect("a rank panicked"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_ranks_exchange_and_reduce() {
        let out = run_local(3, |r| {
            let k = r.size();
            let send: Vec<Vec<u8>> = (0..k).map(|d| vec![r.rank() as u8; d + 1]).collect();
            let got = r.all_to_all(send);
            let mut s = [r.rank() as u64, 1];
            r.sum(&mut s);
            let mut m = [r.rank() as u64];
            r.max(&mut m);
            let mut b = if r.rank() == 0 { vec![7, 8] } else { vec![] };
            r.broadcast(&mut b);
            let g = r.gather(&[r.rank() as u8]);
            (got, s, m, b, g, r.all(r.rank() < 3), r.any(r.rank() == 2))
        });
        for (rank, (got, s, m, b, g, all, any)) in out.into_iter().enumerate() {
            for (from, buf) in got.iter().enumerate() {
                assert_eq!(buf, &vec![from as u8; rank + 1]);
            }
            assert_eq!(s, [3, 3]);
            assert_eq!(m, [2]);
            assert_eq!(b, vec![7, 8]);
            assert_eq!(g.is_some(), rank == 0);
            if let Some(g) = g {
                assert_eq!(g, vec![vec![0], vec![1], vec![2]]);
            }
            assert!(all && any);
        }
    }

    #[test]
    fn a_failed_rank_fails_the_others_instead_of_hanging_them() {
        for k in [2, 3, 4] {
            let r = std::panic::catch_unwind(|| {
                run_local(k, |ex| {
                    if ex.rank() == k - 1 {
                        panic!("rank {} fails", ex.rank());
                    }
                    let mut v = [1u64];
                    ex.sum(&mut v);
                    ex.all_to_all(vec![Vec::new(); k])
                })
            });
            assert!(r.is_err(), "{k} ranks");
        }
        // And the ranks still work when none fails.
        assert_eq!(
            run_local(3, |ex| {
                let mut v = [1u64];
                ex.sum(&mut v);
                v[0]
            }),
            vec![3; 3]
        );
    }
}
