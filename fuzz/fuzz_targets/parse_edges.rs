//! Parses arbitrary bytes as `edges` (Format::Edges): must never panic. A graph that comes out
//! is laid out when its builder is small (`GraphBuilder::vertex_count()`), its
//! CSR invariants are checked, and it is solved under each no-move rule with `verify` Ok.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrograde_graph::format::Format;

fuzz_target!(|data: &[u8]| {
    retrograde_fuzz::fuzz_format(data, Format::Edges);
});
