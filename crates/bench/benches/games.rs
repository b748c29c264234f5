//! `cargo bench -p retrograde-bench --bench games`: the built-in games' solvers at 1 and 2
//! threads (see `retrograde_bench::games`). Prints a table; `harness = false`.

fn main() {
    retrograde_bench::games::main();
}
