//! One module per subcommand; each `run` returns the exit status.

pub mod db;
pub mod game;
pub mod grundy;
pub mod parity;
pub mod play;
pub mod query;
pub mod serve;
pub mod solve;
pub mod sum;
pub mod verify;
pub mod verify_parity;

/// What a command says about its answer.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Done, the answer is positive (exit 0).
    Success,
    /// Done, the answer is negative, e.g. a wrong solution (exit 1).
    Negative,
}
