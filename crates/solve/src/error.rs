//! The errors of this crate's fallible functions, as one type.

use std::fmt;

/// What went wrong in a solve, a check or a graph's division among ranks.
///
/// One process meets only [`Error::Lengths`] (building a [`crate::Solution`] from parts);
/// ranks also meet the others, every rank alike except for [`Error::Message`], which the rank
/// that received the message reports (the transport then ends the job: an MPI rank that
/// returns an error aborts the others).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A rank would own 2^31 vertices or more (places travel with a spare bit).
    RankTooLarge {
        /// The graph's vertices.
        vertices: u64,
        /// The ranks.
        ranks: usize,
    },
    /// The graph does not fit the level engine's packed cells (a vertex with 2^30 moves or
    /// more, or 2^30 vertices or more): one process then solves it with the sequential
    /// engine, but ranks cannot.
    TooLarge,
    /// A message from another rank that does not hold what the step expects.
    Message {
        /// The step that received it.
        step: &'static str,
        /// The rank that sent it.
        from: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// A rank's part of a solution that is not one value per vertex of its share.
    Part {
        /// The values in the part.
        part: usize,
        /// The vertices of the share.
        held: usize,
    },
    /// A solution built from lists of different lengths.
    Lengths {
        /// The values given.
        values: usize,
        /// The best moves given.
        best: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::RankTooLarge { vertices, ranks } => write!(
                f,
                "{vertices} vertices over {ranks} ranks: a rank would own 2^31 or more; use more ranks"
            ),
            Error::TooLarge => f.write_str(
                "the graph has a vertex with 2^30 moves or more, or 2^30 vertices or more: it is not solved across ranks",
            ),
            Error::Message {
                step,
                from,
                problem,
            } => write!(f, "a malformed message from rank {from} ({step}): {problem}"),
            Error::Part { part, held } => {
                write!(f, "a part of {part} values for a share of {held} vertices")
            }
            Error::Lengths { values, best } => {
                write!(f, "{values} values but {best} best moves")
            }
        }
    }
}

impl std::error::Error for Error {}

/// The places in the words of a message from rank `from` in `step` (the top bit of each is
/// a flag, returned beside it), each checked to be below `held`, the vertices this rank holds.
///
/// # Errors
/// [`Error::Message`] for a length that is not a whole number of words, or a place past
/// `held`.
pub(crate) fn places(
    bytes: &[u8],
    from: usize,
    step: &'static str,
    held: usize,
    mut each: impl FnMut(u32, bool),
) -> Result<(), Error> {
    if bytes.len() % 4 != 0 {
        return Err(Error::Message {
            step,
            from,
            problem: format!("{} bytes, not a whole number of 4-byte words", bytes.len()),
        });
    }
    for c in bytes.chunks_exact(4) {
        let x = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let place = x & !(1 << 31);
        if place as usize >= held {
            return Err(Error::Message {
                step,
                from,
                problem: format!("vertex place {place}, but this rank holds {held} vertices"),
            });
        }
        each(place, x >> 31 == 1);
    }
    Ok(())
}
