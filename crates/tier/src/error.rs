//! The engine's one error type.

use std::fmt;
use std::io;

/// Why a solve, or a lookup in a solution, failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// More memory than allowed would be needed.
    Memory {
        /// What needs it (a tier, or the whole solve).
        what: String,
        /// Bytes needed.
        needed: u64,
        /// The limit, in bytes.
        limit: u64,
    },
    /// A remoteness past what a value cell holds.
    Remoteness {
        /// The tier.
        tier: String,
        /// The largest remoteness a cell holds.
        max: u32,
    },
    /// A file could not be read or written.
    Io {
        /// The file, as the storage names it.
        file: String,
        /// What was being done: `read`, `write`, ….
        action: &'static str,
        /// The cause.
        source: io::Error,
    },
    /// A file is damaged, truncated, or belongs to something else.
    Damaged {
        /// The file, as the storage names it.
        file: String,
        /// What is wrong with it.
        message: String,
    },
    /// A file the database needs is missing.
    Missing {
        /// The file, as the storage names it.
        file: String,
    },
    /// The directory holds a database of another game (or of other parameters): it is
    /// neither read as this game's nor overwritten.
    Foreign {
        /// Its description, as the storage names it.
        file: String,
        /// The game it holds (`connect4 5x4`).
        holds: String,
        /// The game asked for.
        wanted: String,
    },
    /// Another process is writing the database directory (it holds its lock).
    Busy {
        /// The directory.
        dir: String,
        /// Who holds the lock: `process 1234 (retrograde game …)`.
        holder: String,
    },
    /// The game broke a promise of the API (an index out of range, a move into a tier that
    /// is not a child tier, …): a bug in the game.
    Game(String),
    /// This game cannot be solved this way (a limit of the engine).
    Unsupported(String),
    /// Another rank of a distributed solve sent a message that does not fit what was asked
    /// (a malformed or truncated buffer, a place past its share): a fault of that rank or of
    /// the transport, never a value.
    Exchange(String),
    /// The solve was cancelled.
    Interrupted,
}

impl Error {
    /// Whether the error is a damaged or missing database file, which solving again with
    /// resume repairs.
    pub fn is_damage(&self) -> bool {
        matches!(self, Error::Damaged { .. } | Error::Missing { .. })
    }

    pub(crate) fn io(file: String, action: &'static str, source: io::Error) -> Error {
        Error::Io {
            file,
            action,
            source,
        }
    }

    /// A damaged file: its name and what is wrong.
    pub fn damaged(file: String, message: impl Into<String>) -> Error {
        Error::Damaged {
            file,
            message: message.into(),
        }
    }
}

/// `12.3 GiB`, `4.0 MiB`.
pub fn human_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= (1u64 << 40) as f64 {
        format!("{:.1} TiB", b / (1u64 << 40) as f64)
    } else if b >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", b / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", b / (1u64 << 20) as f64)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Memory {
                what,
                needed,
                limit,
            } => write!(
                f,
                "{what} needs about {} of memory, over the limit of {}",
                human_bytes(*needed),
                human_bytes(*limit)
            ),
            Error::Remoteness { tier, max } => write!(
                f,
                "tier {tier}: a remoteness past {max} plies, more than a value cell holds"
            ),
            // The cause is part of the message: "No space left on device" is the answer.
            Error::Io {
                file,
                action,
                source,
            } => write!(f, "{file}: cannot {action}: {source}"),
            Error::Damaged { file, message } => {
                write!(f, "{file}: {message}: the database is damaged")
            }
            Error::Missing { file } => write!(f, "{file}: missing from the database"),
            Error::Foreign {
                file,
                holds,
                wanted,
            } => write!(
                f,
                "{file}: this directory holds a database of {holds:?}, not of {wanted:?}: use another directory (or remove this one)"
            ),
            Error::Busy { dir, holder } => write!(
                f,
                "{dir}: {holder} is writing this database: wait for it to finish, or use another directory"
            ),
            Error::Game(m) => write!(f, "the game broke the tier game API: {m}"),
            Error::Unsupported(m) => f.write_str(m),
            Error::Exchange(m) => write!(f, "a distributed solve went wrong: {m}"),
            Error::Interrupted => f.write_str("interrupted"),
        }
    }
}

/// The cause of an [`Error::Io`] is written in its message (callers format errors into
/// their own messages, which would drop a chained cause), so it is not also a `source()`:
/// printed with its chain, it would appear twice.
impl std::error::Error for Error {}
