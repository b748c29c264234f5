//! Damages one file of a small tic-tac-toe database (byte edits and truncation from the
//! input) and opens and queries it: must never panic, and every answer that comes out must be
//! the undamaged one (a damaged database is an error, never a wrong value).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    retrograde_fuzz::fuzz_database(data);
});
