//! Shared checks for the fuzz targets in `fuzz_targets/`.
//!
//! Every target parses arbitrary bytes (which must never panic), and when a graph comes out
//! and is small, checks its CSR invariants and solves it under each no-move rule, asserting
//! that `retrograde_solve::verify` accepts the solution.

use retrograde_graph::format::{detect, parse_builder, Format, ParseOptions};
use retrograde_graph::{Graph, GraphBuilder, Primitive, VertexId};
use retrograde_solve::{solve, verify, Rules};

/// Graphs larger than this are parsed but not solved.
pub const MAX_SOLVE_VERTICES: usize = 10_000;
/// Graphs with more edges than this are parsed but not solved.
pub const MAX_SOLVE_EDGES: usize = 100_000;
/// Builders with more vertices than this are not laid out.
///
/// `build()` allocates O(n) for `n` = largest id + 1 (or a `vertices N` count): a line like
/// `4294967294 0` or `vertices 4000000000` parses fine, but laying it out needs tens of GiB and
/// would make the fuzzer run out of memory. So the builder's size is checked first, with
/// `GraphBuilder::vertex_count()`.
pub const MAX_BUILD_VERTICES: u64 = 100_000;
/// Builders with more edges than this are not laid out.
pub const MAX_BUILD_EDGES: usize = 100_000;

/// True when laying `b` out is cheap enough for fuzzing.
pub fn small(b: &GraphBuilder) -> bool {
    b.vertex_count() <= MAX_BUILD_VERTICES && b.edge_count() <= MAX_BUILD_EDGES
}

/// Lays `b` out unless it would be too large (see [`MAX_BUILD_VERTICES`]).
pub fn build_if_small(b: GraphBuilder) -> Option<Graph> {
    if !small(&b) {
        return None;
    }
    let n = b.vertex_count();
    let m = b.edge_count();
    // A build error (go-again edges in an arena, ...) is a fine outcome.
    let g = b.build().ok()?;
    assert_eq!(g.vertex_count() as u64, n, "builder's vertex_count() differs from the graph's");
    assert_eq!(g.edge_count(), m, "builder's edge_count() differs from the graph's");
    Some(g)
}

/// The whole target body for one format: parse, and check whatever comes out.
pub fn fuzz_format(data: &[u8], format: Format) {
    // Never panics, whatever the bytes.
    let _ = detect(data);
    let opts = ParseOptions::default();
    let Ok(b) = parse_builder(data, format, &opts) else {
        return;
    };
    let Some(g) = build_if_small(b) else {
        return;
    };
    check_graph(&g);
    solve_and_verify(&g);

    // `ParseOptions::vertices` only adds isolated vertices.
    if g.vertex_count() < MAX_SOLVE_VERTICES {
        let extra = (data.len() % 7) as u64;
        let want = g.vertex_count() as u64 + extra;
        let opts = ParseOptions {
            vertices: Some(want),
            ..ParseOptions::default()
        };
        let b = parse_builder(data, format, &opts).expect("parsed without the option");
        let h = b.build().expect("built without the option");
        assert_eq!(h.vertex_count() as u64, want);
        let (sg, sh) = (Shape::of(&g), Shape::of(&h));
        assert_eq!(sg.succ[..], sh.succ[..sg.succ.len()]);
        assert!(sh.succ[sg.succ.len()..].iter().all(Vec::is_empty));
        check_graph(&h);
        solve_and_verify(&h);
    }
}

/// Solves `g` under each no-move rule and asserts that `verify` accepts the solution.
pub fn solve_and_verify(g: &Graph) {
    if g.vertex_count() > MAX_SOLVE_VERTICES || g.edge_count() > MAX_SOLVE_EDGES {
        return;
    }
    for no_move in [Primitive::Win, Primitive::Loss, Primitive::Tie] {
        let rules = Rules { no_move };
        let s = solve(g, &rules);
        assert_eq!(s.len(), g.vertex_count());
        if let Err(e) = verify(g, &rules, &s) {
            panic!("verify failed under no_move = {no_move}: {e}\ngraph: {g:?}\nsolution: {s:?}");
        }
    }
}

/// Checks the documented CSR invariants of `g`: ids in range, successors sorted, and the
/// reverse edges exactly the forward ones turned around, with the same turn flags.
pub fn check_graph(g: &Graph) {
    let n = g.vertex_count();
    assert_eq!(g.forward_targets().len(), g.edge_count());
    assert_eq!(g.reverse_sources().len(), g.edge_count());
    let mut fwd: Vec<(u32, u32, bool)> = Vec::with_capacity(g.edge_count());
    let mut rev: Vec<(u32, u32, bool)> = Vec::with_capacity(g.edge_count());
    let mut degree_sum = 0;
    for u in 0..n as VertexId {
        let r = g.successor_range(u);
        assert_eq!(g.successors(u), &g.forward_targets()[r.clone()]);
        let succ = g.successors(u);
        assert!(succ.windows(2).all(|w| w[0] <= w[1]), "successors unsorted");
        assert_eq!(g.out_degree(u), r.len());
        degree_sum += r.len();
        for e in r {
            let v = g.forward_targets()[e];
            assert!((v as usize) < n, "successor {v} of {u} out of range");
            fwd.push((u, v, g.forward_keeps_turn(e, u, v)));
        }
        let preds = g.predecessors(u);
        let r = g.predecessor_range(u);
        assert_eq!(preds, &g.reverse_sources()[r.clone()]);
        for e in r {
            let p = g.reverse_sources()[e];
            assert!((p as usize) < n, "predecessor {p} of {u} out of range");
            rev.push((p, u, g.reverse_keeps_turn(e, p, u)));
        }
        assert!(g.owner(u) <= 1);
        let _ = (g.primitive(u), g.name(u));
    }
    assert_eq!(degree_sum, g.edge_count());
    fwd.sort_unstable();
    rev.sort_unstable();
    assert_eq!(fwd, rev, "reverse edges are not the forward edges turned around");
    if let Some(s) = g.start() {
        assert!((s as usize) < n, "start {s} out of range");
    }
}

/// Everything observable about a graph, for comparing two parses.
#[derive(Debug, PartialEq, Eq)]
pub struct Shape {
    /// Successors of each vertex in order, with their go-again / same-owner flag.
    pub succ: Vec<Vec<(VertexId, bool)>>,
    /// Primitive label per vertex.
    pub primitive: Vec<Option<Primitive>>,
    /// Name per vertex.
    pub names: Vec<Option<String>>,
    /// Owner per vertex.
    pub owners: Vec<u8>,
    /// Arena or not.
    pub arena: bool,
    /// Start vertex.
    pub start: Option<VertexId>,
    /// Edge count.
    pub edges: usize,
}

impl Shape {
    /// Reads everything out of `g`.
    pub fn of(g: &Graph) -> Shape {
        let n = g.vertex_count() as VertexId;
        Shape {
            succ: (0..n)
                .map(|u| {
                    g.successor_range(u)
                        .map(|e| {
                            let v = g.forward_targets()[e];
                            (v, g.forward_keeps_turn(e, u, v))
                        })
                        .collect()
                })
                .collect(),
            primitive: (0..n).map(|v| g.primitive(v)).collect(),
            names: (0..n).map(|v| g.name(v).map(str::to_owned)).collect(),
            owners: (0..n).map(|v| g.owner(v)).collect(),
            arena: g.is_arena(),
            start: g.start(),
            edges: g.edge_count(),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Game inputs and database files.

/// The memory the game targets may explore with (a fuzzer's process is small).
const GAME_MEMORY: u64 = 64 << 20;

/// A police-thief map: parse (never panics); solve a small one.
pub fn fuzz_police(data: &[u8]) {
    retrograde_games::set_memory_limit(Some(GAME_MEMORY));
    let Ok(map) = retrograde_games::police::Map::parse(data) else {
        return;
    };
    let (rows, cols) = map.size();
    if rows * cols <= 64 {
        if let Ok(s) = map.solve() {
            let _ = s.verdict();
        }
    }
}

/// An IOI Score instance: parse (never panics); solve a small one, whose winner is 1 or 2.
pub fn fuzz_scores(data: &[u8]) {
    retrograde_games::set_memory_limit(Some(GAME_MEMORY));
    let Ok(inst) = retrograde_games::scores::parse(data) else {
        return;
    };
    if inst.positions() <= 12 {
        if let Ok(s) = inst.solve() {
            assert!(matches!(s.winner(), 1 | 2));
        }
    }
}

/// Great Game cases: parse (never panics); the three methods agree on small cases.
pub fn fuzz_great_game(data: &[u8]) {
    use retrograde_games::great_game::{parse, try_solve, Method};
    retrograde_games::set_memory_limit(Some(GAME_MEMORY));
    let Ok(cases) = parse(data) else {
        return;
    };
    for case in cases.iter().filter(|c| c.n() <= 60) {
        let fast = try_solve(case, Method::Minimax).expect("minimax needs no table");
        for m in [Method::Memo, Method::Product] {
            if let Ok(w) = try_solve(case, m) {
                assert_eq!(w, fast, "{m:?} disagrees with minimax");
            }
        }
    }
}

/// The files of a solved tic-tac-toe database, and its answers to [`QUERIES`].
struct Base {
    files: Vec<(String, Vec<u8>)>,
    answers: Vec<String>,
}

/// Positions asked of the database: several tiers, symmetric twins.
const QUERIES: &[&str] = &["", "b2", "a1", "b2,a1", "a1,b2,c3", "a1,a2,b1,b2"];

fn base() -> &'static Base {
    static BASE: std::sync::OnceLock<Base> = std::sync::OnceLock::new();
    BASE.get_or_init(|| {
        let mem = std::sync::Arc::new(retrograde_tier::MemStorage::new());
        let storage: std::sync::Arc<dyn retrograde_tier::Storage> = mem.clone();
        let e = retrograde_registry::entry("tictactoe").expect("tictactoe");
        let args = retrograde_registry::Args::with_defaults(e.params).expect("defaults");
        let built = (e.build)(&args).expect("tictactoe 3x3");
        let mut opts = retrograde_tier::SolveOptions::default();
        opts.storage = Some(storage.clone());
        drop(built.solve(&opts).expect("solve"));
        let files = mem
            .names()
            .into_iter()
            .map(|n| {
                let b = mem.get(&n).expect("listed");
                (n, b)
            })
            .collect();
        let answers = answers(storage).expect("the undamaged database answers");
        Base { files, answers }
    })
}

/// Opens the database in `storage` and answers [`QUERIES`].
fn answers(storage: std::sync::Arc<dyn retrograde_tier::Storage>) -> Result<Vec<String>, String> {
    use retrograde_registry::{database, Database, Query};
    let Database::Game(built) = database(storage.clone()).map_err(|e| e.to_string())? else {
        return Err("not a game database".into());
    };
    let answer = built
        .open(storage)
        .map_err(|e| e.to_string())?
        .ok_or("no finished database")?;
    let mut out = Vec::new();
    for q in QUERIES {
        let moves = q.split(',').filter(|m| !m.is_empty()).map(str::to_string).collect();
        let a = answer.query(&Query::Moves(moves)).map_err(|e| e.to_string())?;
        out.push(format!("{} {} {:?}", a.position, a.value, a.moves));
    }
    Ok(out)
}

/// Damages one file of the base database as `data` says (byte 0: which file, and whether
/// to cut it short; then (offset, xor) triples) and checks that opening and querying it
/// either fails or gives exactly the undamaged answers.
pub fn fuzz_database(data: &[u8]) {
    let base = base();
    let Some((&first, edits)) = data.split_first() else {
        return;
    };
    let mem = retrograde_tier::MemStorage::new();
    let which = usize::from(first & 0x7f) % base.files.len();
    for (i, (name, bytes)) in base.files.iter().enumerate() {
        let mut b = bytes.clone();
        if i == which {
            for e in edits.chunks_exact(3) {
                if !b.is_empty() {
                    let at = usize::from(u16::from_le_bytes([e[0], e[1]])) % b.len();
                    b[at] ^= e[2];
                }
            }
            if first & 0x80 != 0 && !b.is_empty() {
                let keep = edits.len() % b.len();
                b.truncate(keep);
            }
        }
        mem.put(name, b);
    }
    if let Ok(got) = answers(std::sync::Arc::new(mem)) {
        assert_eq!(got, base.answers, "a damaged database gave a different answer");
    }
}

/// A solution CSV for `verify`: arbitrary bytes read as the solution of a small arena (the
/// reader must never panic); what reads back is verified (which must never panic either),
/// and the true solution, written as `solve --output csv` writes it, reads back and verifies.
pub fn fuzz_verify_csv(data: &[u8]) {
    use retrograde_graph::format::{parse, Format, ParseOptions};
    let g = parse(
        b"owner 0 0\nowner 1 1\nowner 2 0\n0 1\n1 0\n1 2\n2 3\n",
        Format::Rg,
        &ParseOptions::default(),
    )
    .expect("a valid graph");
    let rules = retrograde_solve::Rules::default();
    if let Ok((s, _)) = retrograde_solve::csv::read_csv(data, &g) {
        let _ = retrograde_solve::verify(&g, &rules, &s);
    }
    let s = retrograde_solve::solve(&g, &rules);
    let mut csv = String::from("vertex,outcome,remoteness,best_move,owner,winner\n");
    for v in 0..g.vertex_count() as u32 {
        let r = s.remoteness(v).map_or(String::new(), |r| r.to_string());
        let b = s.best_move(v).map_or(String::new(), |b| b.to_string());
        let w = s.winner(&g, v).map_or(String::new(), |w| w.to_string());
        csv.push_str(&format!("{v},{},{r},{b},{},{w}\n", s.outcome(v), g.owner(v)));
    }
    let (back, wrong) = retrograde_solve::csv::read_csv(csv.as_bytes(), &g).expect("reads back");
    assert!(wrong.is_none(), "{wrong:?}");
    retrograde_solve::verify(&g, &rules, &back).expect("the true solution verifies");
}

/// Play commands: arbitrary lines typed into a session of the pebble game (10 pebbles, take
/// 1 or 2; the engine moves second) never panic, every reply is whole lines, and the session
/// ends only on `quit` (or `exit`, `q`).
pub fn fuzz_play(data: &[u8]) {
    let game = retrograde_games::pebbles::Pebbles::new(10, vec![1, 2]).expect("a valid game");
    let solved = game.solve(false).expect("solves");
    let Ok((mut session, intro)) = retrograde_games::play::Session::new(&solved, 0) else {
        panic!("a session of a solved game starts");
    };
    assert!(intro.ends_with('\n'));
    for line in String::from_utf8_lossy(data).split('\n').take(200) {
        let reply = session.command(line).expect("no file behind this game");
        assert!(reply.text.is_empty() || reply.text.ends_with('\n'), "{reply:?}");
        if reply.done {
            let word = line.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
            assert!(["quit", "exit", "q"].contains(&word.as_str()), "{line:?} ended the session");
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    /// The game and database targets on a few inputs, so that `cargo test` here catches a
    /// broken target without a fuzzer.
    #[test]
    fn targets_run() {
        super::fuzz_police(b"1 4\nP.TE\n");
        super::fuzz_police(b"2 2\nPT\n..\nextra\n");
        super::fuzz_scores(b"4\n0 0 1 0\n1 0 0 0\n0 1 0 1\n0 1 0 0\n1 2 1 2\n1 2 3 4\n");
        super::fuzz_great_game(b"1\n7 9\n1 2\n1 2\n2 3\n3 4\n4 5\n5 6\n6 7\n1 5\n3 5\n4 6\n");
        super::fuzz_database(&[]);
        super::fuzz_play(b"1\nundo\nhint\ntake 2\n\xff\xfe\n2\nmoves\nshow\nhelp\nquit\n");
        super::fuzz_play(b"take 3\n\n   \nundo\nundo\n");
        super::fuzz_verify_csv(b"vertex,outcome,remoteness,best_move,owner,winner\n0,win,1,1,0,0\n");
        super::fuzz_verify_csv(b"\xef\xbb\xbfvertex,outcome\n9,x,,,,\n");
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..400u32 {
            let mut data = vec![(i % 256) as u8];
            for _ in 0..(i % 4) * 3 + 3 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                data.push(x as u8);
            }
            super::fuzz_database(&data);
        }
    }
}

/// A parity game from arbitrary bytes (decompressed first when they are gzip or bzip2, at
/// most 1 MiB of text): parsing and reading them as a solution never panic; a game of at
/// most 2000 vertices is solved by every algorithm, with and without preprocessing, and the
/// winners must agree and every solution pass the verifier; written out, it reads back the
/// same.
pub fn fuzz_parity(data: &[u8]) {
    use retrograde_parity::{pg, solve_with, verify, Algorithm, Claim, Options};
    let Ok(text) = retrograde_parity::decompress(data, Some(1 << 20)) else {
        return;
    };
    let _ = pg::parse_solution(&text, 16);
    let Ok(game) = pg::parse_game(&text) else {
        return;
    };
    if game.vertex_count() > 2000 || game.edge_count() > 20_000 {
        return;
    }
    let mut winners = None;
    for algorithm in Algorithm::ALL {
        for preprocess in [true, false] {
            let opts = Options {
                algorithm,
                preprocess,
                scc: preprocess,
            };
            let (s, _) = solve_with(&game, &opts);
            assert_eq!(verify(&game, &Claim::from(&s)), Ok(()), "{opts:?}");
            match &winners {
                None => winners = Some(s.winners().to_vec()),
                Some(w) => assert_eq!(w.as_slice(), s.winners(), "{opts:?}"),
            }
        }
    }
    let mut out = Vec::new();
    if pg::write_game(&game, &mut out).is_ok() {
        let again = pg::parse_game(&out).expect("a written game reads back");
        assert_eq!(again.priorities(), game.priorities());
        assert_eq!(again.edge_count(), game.edge_count());
    }
}
