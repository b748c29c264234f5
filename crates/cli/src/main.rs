//! The `retrograde` command: argument parsing, printing and glue over the library crates.

mod cli;
mod cmd;
mod flags;
mod games;
mod input;
mod mem;
#[cfg(feature = "mpi")]
mod mpi;
mod output;
mod progress;

use clap::Parser;
use retrograde_solve::exchange::{Exchange, Solo};
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Instant;

/// The most worker threads `--threads` may ask for.
const MAX_THREADS: usize = 256;

#[global_allocator]
static ALLOC: retrograde_mem::Guard = retrograde_mem::Guard(mem::fail);

fn main() -> ExitCode {
    mem::one_arena();
    let started = Instant::now();
    let cli = cli::Cli::parse();
    progress::set_quiet(cli.quiet);
    mem::init(cli.memory);
    if let Some(n) = cli.threads {
        if n == 0 {
            eprintln!("retrograde: --threads must be at least 1");
            return ExitCode::from(2);
        }
        // Each thread reserves a stack, and starting thousands takes minutes for no gain.
        if n > MAX_THREADS {
            eprintln!("retrograde: --threads {n} is more than {MAX_THREADS}, the most this program starts (the answer is the same for every N; the machine has {} cores)", std::thread::available_parallelism().map_or(1, |c| c.get()));
            return ExitCode::from(2);
        }
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
        {
            eprintln!("retrograde: cannot start {n} threads: {e}");
            return ExitCode::from(2);
        }
    }
    // Under an MPI launcher (with the `mpi` feature), this process is one rank of a job.
    #[cfg(feature = "mpi")]
    let world = if mpi::launched() {
        match mpi::Mpi::init() {
            Ok(m) => Some(m),
            Err(e) => {
                eprintln!("retrograde: cannot start MPI: {e}");
                return ExitCode::from(2);
            }
        }
    } else {
        None
    };
    // One process is the one rank of its own exchange.
    #[cfg(feature = "mpi")]
    let ex: &dyn Exchange = match &world {
        Some(w) => w,
        None => &Solo,
    };
    #[cfg(not(feature = "mpi"))]
    let ex: &dyn Exchange = &Solo;
    // Rank 0 prints; the other ranks compute.
    let rank = ex.rank();
    if rank != 0 {
        progress::set_quiet(true);
    }
    let stdout = io::stdout();
    let mut out: Box<dyn Write> = if rank == 0 {
        Box::new(io::BufWriter::with_capacity(1 << 16, Tagged(stdout.lock())))
    } else {
        Box::new(io::sink())
    };
    let result = match &cli.command {
        cli::Command::Game(a) => cmd::game::run(a, ex, started, &mut out),
        cli::Command::Solve(a) => cmd::solve::run(a, ex, cli.verbose, started, &mut out),
        _ if ex.size() > 1 => Err(anyhow::anyhow!(
            "only `game` (tier games) and `solve` run across MPI ranks: run this command without mpirun"
        )),
        cli::Command::Verify(a) => cmd::verify::run(a, &mut out),
        cli::Command::Grundy(a) => cmd::grundy::run(a, cli.verbose, started, &mut out),
        cli::Command::Sum(a) => cmd::sum::run(a, started, &mut out),
        cli::Command::Play(a) => cmd::play::run(a, &mut out),
        cli::Command::Query(a) => cmd::query::run(a, &mut out),
        cli::Command::Serve(a) => cmd::serve::run(a, &mut out),
        cli::Command::Parity(a) => cmd::parity::run(a, cli.verbose, started, &mut out),
        cli::Command::VerifyParity(a) => cmd::verify_parity::run(a, &mut out),
    };
    let result = result.and_then(|status| {
        out.flush()?;
        Ok(status)
    });
    #[cfg(feature = "mpi")]
    if let (true, Some(w)) = (cli.verbose, &world) {
        let (t, n) = w.waited();
        eprintln!(
            "retrograde (rank {rank} of {}): {:.3} s in {n} collectives (waiting included), {} bytes sent",
            w.size(),
            t.as_secs_f64(),
            w.bytes_sent()
        );
    }
    // An error every rank met alike (a bad line in the graph file, found together): rank 0
    // prints it as one process does, and every rank ends normally with status 2.
    let agreed = matches!(&result, Err(e) if e.downcast_ref::<input::Agreed>().is_some());
    #[cfg(feature = "mpi")]
    if let (Err(e), Some(w), false) = (&result, &world, agreed) {
        // The other ranks may be waiting for this one: end the whole job.
        eprintln!("retrograde (rank {rank} of {}): {e:#}", w.size());
        w.abort(2);
    }
    match result {
        Ok(cmd::Status::Success) => ExitCode::SUCCESS,
        Ok(cmd::Status::Negative) => ExitCode::from(1),
        Err(e) => {
            // A closed pipe (`retrograde solve big.txt | head`) is not an error.
            if e.chain().any(|c| {
                c.downcast_ref::<io::Error>()
                    .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            if rank == 0 || !agreed {
                eprintln!("retrograde: {e:#}");
            }
            ExitCode::from(2)
        }
    }
}

/// Standard output whose errors say so (`cannot write to standard output: No space left on
/// device`), keeping their kind (a closed pipe is still recognised).
struct Tagged<W>(W);

impl<W: Write> Write for Tagged<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(tag)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(tag)
    }
}

fn tag(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("cannot write to standard output: {e}"))
}
