//! (being written: see the open games issue)
