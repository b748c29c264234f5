//! `cargo bench -p retrograde-bench --bench serve`: query latency (warm and cold) and
//! `retrograde serve` under load (see `retrograde_bench::serve`). Prints a table.

fn main() {
    retrograde_bench::serve::main();
}
