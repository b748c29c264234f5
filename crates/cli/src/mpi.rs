//! [`Exchange`] over MPI: the transport of the distributed solvers when the program runs
//! under `mpirun` or `srun`.
//!
//! Only the thread that called [`Mpi::init`] talks to MPI (the `Funneled` threading level):
//! the solvers' worker threads compute, the main thread exchanges. Messages are byte
//! buffers; MPI counts are `i32`, so an all-to-all goes in rounds of at most [`ROUND_BYTES`]
//! bytes from a rank, as many rounds as the largest sender needs. Errors are MPI's default:
//! a failed or lost rank ends the whole job.
//!
//! Compiled only with the `mpi` feature, which needs an MPI library to build (Debian:
//! `libopenmpi-dev`, with `libclang-dev` for the bindings).

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;
use retrograde_solve::exchange::Exchange;
use std::cell::Cell;

/// Bytes a rank sends in one round of an all-to-all, at most (to all ranks together).
pub const ROUND_BYTES: usize = 1 << 30;

/// Whether this process was started by an MPI launcher (`mpirun`, `mpiexec`, `srun`): only
/// then does the program initialise MPI; started alone, it is one rank without MPI.
pub fn launched() -> bool {
    [
        "OMPI_COMM_WORLD_SIZE",
        "PMIX_RANK",
        "PMI_RANK",
        "PMI_SIZE",
        "MPI_LOCALNRANKS",
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some())
}

/// The job's ranks: `MPI_COMM_WORLD`. Dropping it finalises MPI.
pub struct Mpi {
    world: SimpleCommunicator,
    sent: Cell<u64>,
    /// Time spent in collectives (waiting for the others included), and their number.
    waited: Cell<std::time::Duration>,
    calls: Cell<u64>,
    // Dropped last: finalises MPI.
    _universe: mpi::environment::Universe,
}

impl std::fmt::Debug for Mpi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mpi(rank {} of {})", self.rank(), self.size())
    }
}

impl Mpi {
    /// Initialises MPI (once per process).
    ///
    /// # Errors
    /// MPI already initialised, or without the `Funneled` threading level.
    pub fn init() -> Result<Mpi, String> {
        let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Funneled)
            .ok_or("MPI was initialised already")?;
        if threading < mpi::Threading::Funneled {
            return Err(format!(
                "the MPI library offers threading level {threading:?}, the solver needs Funneled"
            ));
        }
        let world = universe.world();
        Ok(Mpi {
            world,
            sent: Cell::new(0),
            waited: Cell::new(std::time::Duration::ZERO),
            calls: Cell::new(0),
            _universe: universe,
        })
    }

    /// Ends every rank of the job with `code` (after an error on some ranks, so that none
    /// waits forever for the others).
    pub fn abort(&self, code: i32) -> ! {
        self.world.abort(code)
    }

    /// Time spent in collectives so far (waiting for the other ranks included), and their
    /// number.
    pub fn waited(&self) -> (std::time::Duration, u64) {
        (self.waited.get(), self.calls.get())
    }

    fn timed<T>(&self, f: impl FnOnce() -> T) -> T {
        let t = std::time::Instant::now();
        let out = f();
        self.waited.set(self.waited.get() + t.elapsed());
        self.calls.set(self.calls.get() + 1);
        out
    }

    /// `v` reduced by `op` over every rank, element by element, into every rank's `v`.
    fn all_reduce(&self, v: &mut [u64], op: SystemOperation) {
        let mine = v.to_vec();
        self.timed(|| {
            mpi::request::scope(|scope| {
                patient(
                    self.world
                        .immediate_all_reduce_into(scope, &mine[..], v, op),
                )
            })
        });
    }

    /// One `alltoallv` of byte pieces whose sizes both sides know; what rank `d` sent is
    /// appended to `into[d]`. A lone piece to send is sent from where it is, and a lone
    /// piece to receive lands in its buffer at once (at K = 2, every exchange): no copy
    /// through a joined buffer on either side.
    fn round(&self, send: &[&[u8]], rcounts: &[Count], into: &mut [Vec<u8>]) {
        let counts: Vec<Count> = send.iter().map(|s| s.len() as Count).collect();
        let displs = |c: &[Count]| -> Vec<Count> {
            c.iter()
                .scan(0, |acc, &x| {
                    let d = *acc;
                    *acc += x;
                    Some(d)
                })
                .collect()
        };
        let lone = |c: &[Count]| {
            let mut some = c.iter().enumerate().filter(|&(_, &n)| n > 0);
            match (some.next(), some.next()) {
                (Some((d, _)), None) => Some(d),
                _ => None,
            }
        };
        // Never an empty buffer: its dangling address, 1, is OpenMPI's MPI_IN_PLACE.
        let joined: Vec<u8>;
        let (flat, sdispls): (&[u8], Vec<Count>) = match lone(&counts) {
            Some(d) => (send[d], vec![0; counts.len()]),
            None => {
                let mut j = send.concat();
                j.push(0);
                joined = j;
                (&joined[..], displs(&counts))
            }
        };
        let out = Partition::new(flat, &counts[..], &sdispls[..]);
        if let Some(src) = lone(rcounts) {
            let g = &mut into[src];
            let (at, c) = (g.len(), rcounts[src] as usize);
            g.resize(at + c, 0);
            let rdispls = vec![0; rcounts.len()];
            let mut to = PartitionMut::new(&mut g[at..], rcounts, &rdispls[..]);
            self.timed(|| self.world.all_to_all_varcount_into(&out, &mut to));
            return;
        }
        let total: usize = rcounts.iter().map(|&c| c as usize).sum();
        let mut recv = vec![0u8; total + 1];
        {
            let rdispls = displs(rcounts);
            let mut to = PartitionMut::new(&mut recv[..], rcounts, &rdispls[..]);
            self.timed(|| self.world.all_to_all_varcount_into(&out, &mut to));
        }
        let mut at = 0;
        for (g, &c) in into.iter_mut().zip(rcounts) {
            g.extend_from_slice(&recv[at..at + c as usize]);
            at += c as usize;
        }
    }
}

/// Waits for a collective that starts a step, where a rank waits for the slowest one:
/// tests it, briefly spinning, then yielding the core between tests for up to [`YIELDING`],
/// then sleeping between tests (50 us, doubling up to 1 ms). MPI's own wait spins, and on
/// a node with more ranks or other work than cores, a spinning rank takes the core from the
/// ranks it waits for; a yield gives it to them, and returns at once when nobody wants it.
/// (Sleeping from the start made a waiting rank oversleep every short wait: Quixo 4x4 at 2
/// ranks spent 0.42 s a rank in collectives, 0.18 s with the yields, and ran 2% faster.)
fn patient<'a, R: ?Sized, S: mpi::request::Scope<'a>>(mut req: mpi::request::Request<'a, R, S>) {
    let mut nap = std::time::Duration::from_micros(50);
    let started = std::time::Instant::now();
    for spin in 0u32.. {
        match req.test() {
            Ok(_) => return,
            Err(r) => req = r,
        }
        if spin < 64 {
            std::hint::spin_loop();
        } else if started.elapsed() < YIELDING {
            std::thread::yield_now();
        } else {
            std::thread::sleep(nap);
            nap = (nap * 2).min(std::time::Duration::from_millis(1));
        }
    }
}

/// How long [`patient`] yields before it sleeps.
const YIELDING: std::time::Duration = std::time::Duration::from_millis(10);

impl Exchange for Mpi {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn all_to_all(&self, send: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        self.all_to_all_max(send, 0).0
    }

    fn all_to_all_max(&self, send: Vec<Vec<u8>>, flag: u64) -> (Vec<Vec<u8>>, u64) {
        let k = self.size();
        assert_eq!(send.len(), k, "one buffer per rank");
        let me = self.rank();
        let out: u64 = send
            .iter()
            .enumerate()
            .filter(|&(d, _)| d != me)
            .map(|(_, s)| s.len() as u64)
            .sum();
        self.sent.set(self.sent.get() + out);
        // One step tells every rank what comes to it, every rank's flag, and the largest
        // buffer anyone sends, hence how many rounds of at most `cap` bytes a pair all ranks
        // run alike.
        let biggest = send.iter().map(Vec::len).max().unwrap_or(0) as u64;
        let head: Vec<u64> = send
            .iter()
            .flat_map(|s| [s.len() as u64, flag, biggest])
            .collect();
        let mut got_head = vec![0u64; 3 * k];
        self.timed(|| {
            mpi::request::scope(|scope| {
                patient(
                    self.world
                        .immediate_all_to_all_into(scope, &head[..], &mut got_head[..]),
                )
            })
        });
        let sizes: Vec<u64> = got_head.chunks_exact(3).map(|h| h[0]).collect();
        let flag = got_head.chunks_exact(3).map(|h| h[1]).max().unwrap_or(0);
        let biggest = got_head.chunks_exact(3).map(|h| h[2]).max().unwrap_or(0);
        let cap = (ROUND_BYTES / k).max(1) as u64;
        let rounds = biggest.div_ceil(cap);
        let mut got: Vec<Vec<u8>> = sizes
            .iter()
            .map(|&n| Vec::with_capacity(n as usize))
            .collect();
        for i in 0..rounds {
            let piece = |n: u64| (n.saturating_sub(i * cap)).min(cap);
            let pieces: Vec<&[u8]> = send
                .iter()
                .map(|s| {
                    let a = ((i * cap) as usize).min(s.len());
                    &s[a..a + piece(s.len() as u64) as usize]
                })
                .collect();
            let rcounts: Vec<Count> = sizes.iter().map(|&n| piece(n) as Count).collect();
            self.round(&pieces, &rcounts, &mut got);
        }
        (got, flag)
    }

    fn sum(&self, v: &mut [u64]) {
        self.all_reduce(v, SystemOperation::sum());
    }

    fn max(&self, v: &mut [u64]) {
        self.all_reduce(v, SystemOperation::max());
    }

    fn gather(&self, bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
        let k = self.size();
        let mut send = vec![Vec::new(); k];
        send[0] = bytes.to_vec();
        let got = self.all_to_all(send);
        (self.rank() == 0).then_some(got)
    }

    fn broadcast(&self, bytes: &mut Vec<u8>) {
        let root = self.world.process_at_rank(0);
        let mut len = bytes.len() as u64;
        root.broadcast_into(&mut len);
        bytes.resize(len as usize, 0);
        // In pieces: MPI counts are i32.
        for piece in bytes.chunks_mut(ROUND_BYTES) {
            root.broadcast_into(piece);
        }
    }

    fn bytes_sent(&self) -> u64 {
        self.sent.get()
    }
}
