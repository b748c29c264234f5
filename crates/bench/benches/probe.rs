//! `cargo bench -p retrograde-bench --bench probe`: chess tablebase probe latency, warm and
//! cold (see `retrograde_bench::probe`). Prints a table.

fn main() {
    retrograde_bench::probe::main();
}
