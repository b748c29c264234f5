//! Solves a built-in tier game and prints its totals, time and peak memory (for profiling).
//! `cargo run --release -p retrograde-games --example tiersolve -- quixo 4`
use retrograde_games::{connect4::Connect4, quixo::Quixo, tictactoe::TicTacToe};
use retrograde_tier::{solve, SolveOptions, Solved, TierGame};
use std::time::Instant;

fn run<G: TierGame>(g: &G) {
    let t = Instant::now();
    let s = solve(g, &SolveOptions::default()).unwrap();
    let st = s.stats();
    println!(
        "{}: start {:?}, positions {}, classes {}, states {}, win {} loss {} tie {} draw {}; solve {:.2} s, count {:.2} s, total {:.2} s",
        g.name(),
        s.start_value().unwrap(),
        st.positions,
        st.classes,
        st.states,
        st.win,
        st.loss,
        st.tie,
        st.draw,
        st.solve.as_secs_f64(),
        st.explore.as_secs_f64(),
        t.elapsed().as_secs_f64()
    );
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    println!(
        "{}",
        status.lines().find(|l| l.starts_with("VmHWM")).unwrap()
    );
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n = |i: usize| a[i].parse::<u32>().unwrap();
    match a[1].as_str() {
        "quixo" => run(&Quixo::new(n(2)).unwrap()),
        "connect4" => run(&Connect4::new(n(2), n(3)).unwrap()),
        "tictactoe" => run(&TicTacToe::new(n(2), n(3), n(4)).unwrap()),
        g => panic!("{g}?"),
    }
}
