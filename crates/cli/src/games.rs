//! The built-in games on the command line: one clap subcommand per registry entry, made
//! from the entry's parameters (so `game`, `play` and the help all read the one
//! description in `retrograde-registry`). A game's subcommand takes only the flags that
//! game accepts: `--db` and `--resume` for tier games, `--query` for those with a start,
//! `--dump` for those that can list every position.

use crate::flags::{
    CompactFlag, DumpFlag, GraphPlay, PlayTierArgs, QueryFlag, TierArgs, GRAPH_ABOUT,
    GRAPH_EXAMPLES,
};
use crate::input;
use anyhow::{anyhow, Result};
use clap::{Arg, ArgAction, ArgMatches, Args as _, Command, FromArgMatches, Subcommand};
use retrograde_registry::{entries, entry, ArgValue, Args, Entry, Input, Kind, Param, OPTIONAL};
use std::io::Read;
use std::path::{Path, PathBuf};

/// A built-in game and the values given for its parameters (files not read yet).
#[derive(Clone, Debug)]
pub struct GameChoice {
    /// The game.
    pub entry: &'static Entry,
    /// Every parameter's value (defaults included), files still as paths.
    values: Vec<(&'static Param, Raw)>,
}

#[derive(Clone, Debug)]
enum Raw {
    Number(u64),
    Numbers(Vec<u64>),
    Flag(bool),
    Text(String),
    File(PathBuf),
}

/// The clap command of one entry.
pub fn command(e: &'static Entry, verb: &str) -> Command {
    let mut examples = String::from("Examples:\n");
    for x in e.examples {
        examples.push_str(&format!("  retrograde {verb} {x}\n"));
    }
    let mut c = Command::new(e.name)
        .about(e.about)
        .long_about(e.help)
        .after_help(examples);
    let mut position = 1;
    for p in e.params {
        let mut a = Arg::new(p.name).help(p.help);
        if p.positional {
            a = a.index(position).value_name(p.value_name);
            position += 1;
        } else {
            a = a.long(p.name).value_name(p.value_name);
        }
        a = match p.kind {
            Kind::Number { min, max } => a.value_parser(clap::value_parser!(u64).range(min..=max)),
            Kind::Numbers { min, max } => a
                .value_parser(clap::value_parser!(u64).range(min..=max))
                .value_delimiter(',')
                .num_args(1..),
            Kind::Flag => a.action(ArgAction::SetTrue),
            Kind::Choice(words) => a.value_parser(clap::builder::PossibleValuesParser::new(words)),
            Kind::Input => a.value_parser(clap::value_parser!(PathBuf)),
            Kind::Text => a.allow_hyphen_values(true),
        };
        match p.default {
            OPTIONAL => {}
            Some(d) if p.kind != Kind::Flag => a = a.default_value(d),
            None if p.kind != Kind::Flag => a = a.required(true),
            _ => {}
        }
        c = c.arg(a);
    }
    c
}

impl GameChoice {
    /// Reads the values of `e`'s parameters from its matches.
    fn from_matches(e: &'static Entry, m: &ArgMatches) -> GameChoice {
        let mut values = Vec::new();
        for p in e.params {
            let raw = match p.kind {
                Kind::Number { .. } => m.get_one::<u64>(p.name).copied().map(Raw::Number),
                Kind::Numbers { .. } => m
                    .get_many::<u64>(p.name)
                    .map(|v| Raw::Numbers(v.copied().collect())),
                Kind::Flag => Some(Raw::Flag(m.get_flag(p.name))),
                Kind::Choice(_) | Kind::Text => m.get_one::<String>(p.name).cloned().map(Raw::Text),
                Kind::Input => m.get_one::<PathBuf>(p.name).cloned().map(Raw::File),
            };
            if let Some(r) = raw {
                values.push((p, r));
            }
        }
        GameChoice { entry: e, values }
    }

    /// The values, files read (standard input for `-`, unless `stdin_taken`).
    ///
    /// # Errors
    /// A file that cannot be read (named), or standard input when it carries moves.
    pub fn args(&self, stdin_taken: bool) -> Result<Args> {
        let mut a = Args::new();
        for (p, r) in &self.values {
            let v = match r {
                Raw::Number(n) => ArgValue::Number(*n),
                Raw::Numbers(n) => ArgValue::Numbers(n.clone()),
                Raw::Flag(b) => ArgValue::Flag(*b),
                Raw::Text(t) => ArgValue::Text(t.clone()),
                Raw::File(path) => {
                    if stdin_taken && path == Path::new("-") {
                        anyhow::bail!(
                            "play reads your moves from standard input: give the {} as a file, not -",
                            p.value_name.to_lowercase()
                        );
                    }
                    let name = input::display_name(Some(path));
                    let mut bytes = Vec::new();
                    // Read whole, but never past the memory limit (standard input can be
                    // endless).
                    let cap = crate::mem::limit_bytes().unwrap_or(u64::MAX - 1);
                    input::open(Some(path))?
                        .take(cap + 1)
                        .read_to_end(&mut bytes)
                        .map_err(|e| anyhow!("{name}: cannot read: {e}"))?;
                    if let (true, Some(l)) = (bytes.len() as u64 > cap, crate::mem::limit()) {
                        anyhow::bail!(
                            "{name}: more than {} of input, over the memory limit of {l}",
                            crate::mem::human(cap)
                        );
                    }
                    ArgValue::Input(Input { name, bytes })
                }
            };
            a.set(p.name, v);
        }
        Ok(a)
    }
}

/// `retrograde game NAME ...`: every registry entry, with the flags it takes (the
/// defaults for those it does not).
#[derive(Clone, Debug)]
pub struct GameCommand {
    /// The game and its parameters.
    pub choice: GameChoice,
    /// `--db`, `--resume` (tier games).
    pub tiers: TierArgs,
    /// `--query` (tier games with a start).
    pub query: Option<Vec<String>>,
    /// `--dump`.
    pub dump: bool,
}

/// The clap command of `game NAME`: the entry's parameters and the flags it takes.
fn game_command(e: &'static Entry) -> Command {
    let mut c = command(e, "game");
    if e.tiered {
        c = TierArgs::augment_args(c);
        if e.compacts() {
            c = CompactFlag::augment_args(c);
        }
        if e.start {
            c = QueryFlag::augment_args(c);
        }
    }
    if e.dump {
        c = DumpFlag::augment_args(c);
    }
    // A flattened struct's doc comment becomes the command's about: the entry's wins.
    c.about(e.about).long_about(e.help)
}

impl FromArgMatches for GameCommand {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let (name, sub) = m
            .subcommand()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::MissingSubcommand))?;
        let e = entry(name)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidSubcommand))?;
        let mut tiers = match e.tiered {
            true => TierArgs::from_arg_matches(sub)?,
            false => TierArgs::default(),
        };
        tiers.compact = e.tiered && e.compacts() && CompactFlag::from_arg_matches(sub)?.compact;
        let query = match e.tiered && e.start {
            true => QueryFlag::from_arg_matches(sub)?.query,
            false => None,
        };
        let dump = e.dump && DumpFlag::from_arg_matches(sub)?.dump;
        Ok(GameCommand {
            choice: GameChoice::from_matches(e, sub),
            tiers,
            query,
            dump,
        })
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Subcommand for GameCommand {
    fn augment_subcommands(mut cmd: Command) -> Command {
        for e in entries() {
            cmd = cmd.subcommand(game_command(e));
        }
        cmd
    }
    fn augment_subcommands_for_update(cmd: Command) -> Command {
        Self::augment_subcommands(cmd)
    }
    fn has_subcommand(name: &str) -> bool {
        entry(name).is_some()
    }
}

/// `retrograde play NAME ...`: a graph file, or a playable registry entry.
#[derive(Clone, Debug)]
pub enum PlayCommand {
    /// A graph file.
    Graph(GraphPlay),
    /// A built-in game, and (tier games) the database and position to play from.
    Game(GameChoice, PlayTierArgs),
}

impl FromArgMatches for PlayCommand {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let (name, sub) = m
            .subcommand()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::MissingSubcommand))?;
        if name == "graph" {
            return Ok(PlayCommand::Graph(GraphPlay::from_arg_matches(sub)?));
        }
        let e = entry(name)
            .filter(|e| e.moves.is_some())
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidSubcommand))?;
        let tiers = match e.tiered {
            true => PlayTierArgs::from_arg_matches(sub)?,
            false => PlayTierArgs::default(),
        };
        Ok(PlayCommand::Game(GameChoice::from_matches(e, sub), tiers))
    }
    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Subcommand for PlayCommand {
    fn augment_subcommands(mut cmd: Command) -> Command {
        // A flattened struct's doc comment becomes the command's about: set ours after.
        cmd = cmd.subcommand(
            <GraphPlay as clap::Args>::augment_args(Command::new("graph"))
                .about("Any game graph file (the formats of `retrograde solve`)")
                .long_about(GRAPH_ABOUT)
                .after_help(GRAPH_EXAMPLES),
        );
        for e in entries().iter().filter(|e| e.moves.is_some()) {
            let moves = e.moves.unwrap_or_default();
            // The game's first example, played (from a position, for a game without a start).
            let first = e.examples.first().copied().unwrap_or(e.name);
            let from = if e.start { "" } else { " --position POSITION" };
            let mut c = command(e, "play");
            if e.tiered {
                c = PlayTierArgs::augment_args(c);
            }
            cmd = cmd.subcommand(
                c.about(format!("{} (moves: {moves})", e.about))
                    .long_about(e.help)
                    .after_help(format!(
                        "Moves: {moves}.\n\nExamples:\n  retrograde play {first}{from}\n  retrograde play {first}{from} --side second",
                    )),
            );
        }
        cmd
    }
    fn augment_subcommands_for_update(cmd: Command) -> Command {
        Self::augment_subcommands(cmd)
    }
    fn has_subcommand(name: &str) -> bool {
        name == "graph" || entry(name).is_some_and(|e| e.moves.is_some())
    }
}
