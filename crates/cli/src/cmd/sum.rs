//! `retrograde sum`: several impartial games played together (a disjunctive sum).

use super::Status;
use crate::cli::{SumArgs, SumOutput};
use crate::flags::{FormatArg, GraphArgs, NoMove};
use crate::{input, output};
use anyhow::{anyhow, bail, Result};
use retrograde_graph::Graph;
use retrograde_impartial::{grundy, play_sum, sum, Grundy, HeapGame, HeapMove, Opt, Play, Sg};
use retrograde_solve::Outcome;
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::rc::Rc;
use std::time::Instant;

/// The largest heap a built-in component may have (its nim-sequence is computed up to it).
const MAX_HEAP: u32 = 1_000_000;

/// What a component argument names.
enum Spec {
    Graph {
        path: String,
        vertex: Option<String>,
    },
    Heap {
        game: HeapGame,
        heap: u32,
    },
}

/// A component, solved.
enum Component {
    Graph {
        file: String,
        graph: Rc<(Graph, Grundy)>,
        start: u32,
    },
    Heap {
        game: HeapGame,
        heap: u32,
        values: Rc<Vec<u32>>,
    },
}

impl Component {
    fn value(&self) -> Sg<'_> {
        match self {
            Component::Graph { graph, start, .. } => graph.1.value(*start),
            Component::Heap { heap, values, .. } => Sg::Finite(values[*heap as usize]),
        }
    }

    /// The moves, by the value they lead to (in the order `describe` numbers them).
    fn options(&self) -> Vec<Opt<'_>> {
        match self {
            Component::Graph { graph, start, .. } => graph
                .0
                .successors(*start)
                .iter()
                .map(|&w| Opt {
                    value: graph.1.value(w),
                    counter: graph.1.counter(w),
                })
                .collect(),
            Component::Heap { game, heap, values } => game
                .moves(*heap)
                .map(|m| Opt {
                    value: Sg::Finite(m.value(values)),
                    counter: None,
                })
                .collect(),
        }
    }

    /// `graph.rg, vertex 5 (name)` or `octal game 0.77 (Kayles), heap of 10`.
    fn what(&self) -> String {
        match self {
            Component::Graph { file, graph, start } => {
                format!("{file}, vertex {}", output::label(&graph.0, *start))
            }
            Component::Heap { game, heap, .. } => format!("{}, heap of {heap}", game.name()),
        }
    }
}

/// The move `option` of a component, for people and for JSON.
enum Chosen {
    Vertex { from: u32, to: u32, text: String },
    Heap(HeapMove),
}

fn chosen(c: &Component, option: usize) -> Chosen {
    match c {
        Component::Graph { graph, start, .. } => {
            let to = graph.0.successors(*start)[option];
            Chosen::Vertex {
                from: *start,
                to,
                text: format!(
                    "move from vertex {} to vertex {}",
                    output::label(&graph.0, *start),
                    output::label(&graph.0, to)
                ),
            }
        }
        Component::Heap { game, heap, .. } => Chosen::Heap(
            game.moves(*heap)
                .nth(option)
                .expect("the option exists: play_sum chose it"),
        ),
    }
}

pub fn run(args: &SumArgs, started: Instant, out: &mut impl Write) -> Result<Status> {
    let specs: Vec<Spec> = args
        .components
        .iter()
        .map(|a| parse(a).map_err(|e| anyhow!("component {a:?}: {e}")))
        .collect::<Result<_>>()?;
    let components = solve(&args.components, specs)?;

    let values: Vec<Sg> = components.iter().map(Component::value).collect();
    let options: Vec<Vec<Opt>> = components.iter().map(Component::options).collect();
    let (total, play) = play_sum(&values, &options);
    let outcome = total.outcome();
    let after = |component: usize, option: usize| {
        sum(values.iter().enumerate().map(|(i, &v)| {
            if i == component {
                options[i][option].value
            } else {
                v
            }
        }))
    };
    // (a winning move?, component, option)
    let chosen_move = match play {
        Play::Win { component, option } => Some((true, component, option)),
        Play::Draw { component, option } => Some((false, component, option)),
        Play::Loss => None,
    };
    let seconds = started.elapsed().as_secs_f64();
    match args.output {
        SumOutput::Text => {
            let width = args.components.iter().map(|a| a.len()).max().unwrap_or(0);
            for (i, (arg, c)) in args.components.iter().zip(&components).enumerate() {
                writeln!(
                    out,
                    "{:>3}  {arg:<width$}  value {:<8}  {}",
                    i + 1,
                    c.value().to_string(),
                    c.what()
                )?;
            }
            let meaning = match outcome {
                Outcome::Win => "a win for the player to move",
                Outcome::Loss => "a loss for the player to move",
                _ => "a draw: neither player can force a win",
            };
            writeln!(out, "sum: {total}, {meaning}")?;
            match chosen_move {
                Some((wins, component, option)) => {
                    let text = match chosen(&components[component], option) {
                        Chosen::Vertex { text, .. } => text,
                        Chosen::Heap(m) => m.to_string(),
                    };
                    let (kind, left_meaning) = if wins {
                        ("winning move", "a loss for the opponent")
                    } else {
                        ("drawing move", "still a draw")
                    };
                    writeln!(
                        out,
                        "{kind}: in component {} ({}), {text}; the sum becomes {}, {left_meaning}",
                        component + 1,
                        args.components[component],
                        after(component, option)
                    )?;
                }
                None if options.iter().all(Vec::is_empty) => {
                    writeln!(out, "no move: the player to move has lost")?
                }
                None => writeln!(
                    out,
                    "every move loses: each one leaves the opponent a sum they win"
                )?,
            }
            writeln!(out, "time {seconds:.3} s")?;
        }
        SumOutput::Json => {
            let parts: Vec<serde_json::Value> = args
                .components
                .iter()
                .zip(&components)
                .map(|(arg, c)| {
                    serde_json::json!({
                        "component": arg,
                        "game": c.what(),
                        "value": c.value().to_string(),
                    })
                })
                .collect();
            let chosen_json = chosen_move.map(|(wins, component, option)| {
                let mut m = serde_json::json!({
                    "kind": if wins { "win" } else { "draw" },
                    "component": component + 1,
                });
                let o = m.as_object_mut().expect("an object");
                match chosen(&components[component], option) {
                    Chosen::Vertex { from, to, text } => {
                        o.insert("from".into(), from.into());
                        o.insert("to".into(), to.into());
                        o.insert("description".into(), text.into());
                    }
                    Chosen::Heap(m) => {
                        o.insert("take".into(), m.take.into());
                        o.insert("leaves".into(), serde_json::json!(m.leaves.heaps()));
                        o.insert("description".into(), m.to_string().into());
                    }
                }
                o.insert(
                    "value_after".into(),
                    after(component, option).to_string().into(),
                );
                m
            });
            let doc = serde_json::json!({
                "components": parts,
                "value": total.to_string(),
                "outcome": outcome.to_string(),
                "move": chosen_json,
                "seconds": (seconds * 1e6).round() / 1e6,
            });
            serde_json::to_writer(&mut *out, &doc)?;
            writeln!(out)?;
        }
    }
    Ok(Status::Success)
}

/// Reads a component argument (see `retrograde sum --help`).
fn parse(arg: &str) -> Result<Spec> {
    let heap = |text: &str| -> Result<u32> {
        let n: u32 = text
            .parse()
            .map_err(|_| anyhow!("expected a heap size (a number of tokens), found {text:?}"))?;
        if n > MAX_HEAP {
            bail!("a heap of {n} is too large (at most {MAX_HEAP})");
        }
        Ok(n)
    };
    let usage = [
        ("nim", "nim:N, like nim:7"),
        ("take", "take:S:N, like take:1,3,4:17"),
        ("octal", "octal:CODE:N, like octal:0.77:10"),
        ("grundy-game", "grundy-game:N, like grundy-game:10"),
    ];
    if let Some((_, form)) = usage.iter().find(|u| u.0 == arg) {
        if !Path::new(arg).is_file() {
            bail!("expected {form}");
        }
    }
    let (keyword, rest) = arg.split_once(':').unwrap_or((arg, ""));
    match keyword {
        "nim" => {
            return Ok(Spec::Heap {
                game: HeapGame::nim(),
                heap: heap(rest)?,
            })
        }
        "grundy-game" => {
            return Ok(Spec::Heap {
                game: HeapGame::grundy_game(),
                heap: heap(rest)?,
            })
        }
        "take" => {
            let (set, n) = rest
                .rsplit_once(':')
                .ok_or_else(|| anyhow!("expected take:S:N, like take:1,3,4:17"))?;
            let set: Vec<u32> = set
                .split(',')
                .map(|t| {
                    t.trim()
                        .parse()
                        .map_err(|_| anyhow!("expected amounts to take, like 1,3,4, found {t:?}"))
                })
                .collect::<Result<_>>()?;
            let game = HeapGame::subtraction(&set).map_err(|e| anyhow!(e))?;
            return Ok(Spec::Heap {
                game,
                heap: heap(n)?,
            });
        }
        "octal" => {
            let (code, n) = rest
                .rsplit_once(':')
                .ok_or_else(|| anyhow!("expected octal:CODE:N, like octal:0.77:10"))?;
            let game = HeapGame::octal(code).map_err(|e| anyhow!(e))?;
            return Ok(Spec::Heap {
                game,
                heap: heap(n)?,
            });
        }
        _ => {}
    }
    // A graph file: the whole argument if it is a file, else FILE:V split at the last colon
    // whose left side exists (names may hold colons), else at the last colon.
    if Path::new(arg).is_file() {
        return Ok(Spec::Graph {
            path: arg.into(),
            vertex: None,
        });
    }
    let colons: Vec<usize> = arg.match_indices(':').map(|(i, _)| i).collect();
    let split = colons
        .iter()
        .rev()
        .find(|&&i| Path::new(&arg[..i]).exists())
        .or(colons.last());
    Ok(match split {
        Some(&i) => Spec::Graph {
            path: arg[..i].into(),
            vertex: Some(arg[i + 1..].into()),
        },
        None => Spec::Graph {
            path: arg.into(),
            vertex: None,
        },
    })
}

/// Loads and solves every component: each graph file once, each heap game's sequence once
/// (up to its largest heap).
fn solve(args: &[String], specs: Vec<Spec>) -> Result<Vec<Component>> {
    let mut graphs: HashMap<String, Rc<(Graph, Grundy)>> = HashMap::new();
    let mut largest: Vec<(HeapGame, u32)> = Vec::new();
    for spec in &specs {
        if let Spec::Heap { game, heap } = spec {
            match largest.iter_mut().find(|(g, _)| g == game) {
                Some((_, h)) => *h = (*h).max(*heap),
                None => largest.push((game.clone(), *heap)),
            }
        }
    }
    let sequences: Vec<(HeapGame, Rc<Vec<u32>>)> = largest
        .into_iter()
        .map(|(g, h)| {
            let values = Rc::new(g.nim_sequence(h as usize + 1));
            (g, values)
        })
        .collect();
    let graph_args = GraphArgs {
        format: FormatArg::Auto,
        vertices: None,
        no_move: NoMove::Loss,
    };
    let mut out = Vec::new();
    for (arg, spec) in args.iter().zip(specs) {
        out.push(match spec {
            Spec::Heap { game, heap } => {
                let values = sequences
                    .iter()
                    .find(|(g, _)| *g == game)
                    .map(|(_, v)| Rc::clone(v))
                    .expect("every heap game was computed");
                Component::Heap { game, heap, values }
            }
            Spec::Graph { path, vertex } => {
                let solved = match graphs.get(&path) {
                    Some(s) => Rc::clone(s),
                    None => {
                        let loaded = input::load_refusing_scores(
                            Some(Path::new(&path)),
                            &graph_args,
                            Some(super::grundy::NO_SCORES),
                        )?;
                        let values = grundy(&loaded.graph)
                            .map_err(|e| anyhow!("{}: {e}", loaded.name))?;
                        let s = Rc::new((loaded.graph, values));
                        graphs.insert(path.clone(), Rc::clone(&s));
                        s
                    }
                };
                let file = input::display_name(Some(Path::new(&path)));
                let start = match &vertex {
                    Some(v) => input::vertex(&solved.0, v)
                        .map_err(|e| anyhow!("component {arg:?}: {file}: {e}"))?,
                    None => solved.0.start().ok_or_else(|| {
                        anyhow!(
                            "component {arg:?}: {file} has no start line; name the start vertex as {arg}:V"
                        )
                    })?,
                };
                Component::Graph {
                    file,
                    graph: solved,
                    start,
                }
            }
        });
    }
    Ok(out)
}
