//! How solved tiers are kept: tier files ([`tierfile`]: header, checksummed blocks, index)
//! behind the [`Storage`](storage::Storage) trait ([`storage`]), the only way the engine
//! touches files.

pub(crate) mod cell;
pub(crate) mod cells;
pub mod graphdb;
pub mod identity;
pub(crate) mod meta;
pub mod storage;
pub mod tierfile;
