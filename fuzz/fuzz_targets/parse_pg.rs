//! Reads arbitrary bytes as a parity game in PGSolver's format (and as gzip or bzip2 data):
//! must never panic; a small game that reads is solved by every algorithm and the solutions
//! must agree and pass the verifier (see `fuzz_parity`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    retrograde_fuzz::fuzz_parity(data);
});
