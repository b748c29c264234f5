//! `cargo bench -p retrograde-bench --bench scores`: a scored random graph against the same
//! graph's win/loss/draw solve (see `retrograde_bench::scores`). Prints a table.

fn main() {
    retrograde_bench::scores::main();
}
