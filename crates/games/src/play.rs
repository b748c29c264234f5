//! Playing a solved game against perfect play: the [`Playable`] trait and the [`Session`]
//! state machine. No I/O: a session takes one command line at a time and returns the text to
//! print, so a terminal loop, a test or a script can drive it alike.
//!
//! A game becomes playable by implementing [`Playable`]: its start, its moves (each with a
//! label the human types), the value of any position for the player to move (from whatever
//! solver it has), and a picture of a position. The built-ins are in the submodules: any
//! solved graph ([`PlayGraph`]), pebbles and the policeman and the thief (on their
//! [`GameSolution`](crate::GameSolution)s), and every tier game with a notation
//! ([`TierPlay`]: connect4, quixo, tic-tac-toe, teeko, …).
//!
//! Whose turn it is is tracked by the session, not asked of the game: a pebble count or a
//! graph vertex does not say who is to move (go-again moves keep the turn), so each [`Move`]
//! says whether it keeps the turn, and [`Playable::first_side`] who starts.
//!
//! # Example
//! ```
//! use retrograde_games::pebbles::Pebbles;
//! use retrograde_games::play::Session;
//!
//! let game = Pebbles::new(10, vec![1, 2]).unwrap();
//! let solved = game.solve(false).unwrap();
//! // The human plays the first side; the engine answers at once.
//! let (mut session, intro) = Session::new(&solved, 0).unwrap();
//! assert!(intro.contains("The first player to move (you): win in 7"));
//! let reply = session.command("take 2").unwrap(); // a mistake: 8 is a win for the engine
//! assert!(reply.text.contains("You play take 2: loss in 6"));
//! assert!(reply.text.contains("The second player (engine) plays take 2: win in 5"));
//! assert_eq!(*session.position(), 6);
//! let reply = session.command("undo").unwrap();
//! assert_eq!(*session.position(), 10);
//! assert!(!reply.done && session.command("quit").unwrap().done);
//! ```

mod graph;
mod pebbles;
mod police;
mod tier;

pub use graph::{PlayGraph, PlayGraphError};
pub use tier::TierPlay;

use retrograde_solve::{Scored, Value};
use retrograde_tier::Error;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::hash::Hash;

/// One legal move, as the human sees and types it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move<P> {
    /// What the human types, shown in move lists: `b2`, `take 2`, `7`, `ne`.
    pub label: String,
    /// Other inputs that also select this move (a vertex's name, `2` for `take 2`).
    pub aliases: Vec<String>,
    /// Shown after the label in move lists (a vertex's name); may be empty.
    pub note: String,
    /// The position after the move.
    pub to: P,
    /// Whether the same side moves again after this move (a go-again move, or a move
    /// between two vertices of the same owner in an arena).
    pub keeps_turn: bool,
    /// The points the mover collects by this move (games with scores; 0 otherwise).
    pub reward: i64,
}

impl<P> Move<P> {
    /// A move labelled `label` to `to` that passes the turn.
    pub fn new(label: impl Into<String>, to: P) -> Move<P> {
        Move {
            label: label.into(),
            aliases: Vec::new(),
            note: String::new(),
            to,
            keeps_turn: false,
            reward: 0,
        }
    }

    /// Set the points the mover collects by this move (games with scores).
    pub fn reward(mut self, reward: i64) -> Move<P> {
        self.reward = reward;
        self
    }

    /// Also accept `alias` for this move.
    pub fn alias(mut self, alias: impl Into<String>) -> Move<P> {
        self.aliases.push(alias.into());
        self
    }

    /// Show `note` after the label.
    pub fn note(mut self, note: impl Into<String>) -> Move<P> {
        self.note = note.into();
        self
    }

    /// Set whether the same side moves again after this move.
    pub fn keeps_turn(mut self, keeps: bool) -> Move<P> {
        self.keeps_turn = keeps;
        self
    }

    /// `label (note)`, or the label alone.
    pub fn shown(&self) -> String {
        if self.note.is_empty() {
            self.label.clone()
        } else {
            format!("{} ({})", self.label, self.note)
        }
    }
}

/// A solved game that a human can play against the engine.
///
/// Required methods first: the start, the moves, the value, the picture. Provided ones give
/// the sides' names (default "the first player" and "the second player"), who moves first (default
/// side 0) and a title line.
///
/// The values must be consistent with the moves, as a solver gives them: the value of a
/// move, [`Value::through`] its `keeps_turn`, of the position it leads to, and the best of
/// those is the position's value. A position without moves is over; its value says who won.
pub trait Playable {
    /// A position. Equality is used to spot repeated positions (endless play).
    type Position: Clone + Eq + Hash;

    /// The position play starts from.
    fn start(&self) -> Self::Position;

    /// The legal moves at `p`, in a fixed order (the engine breaks ties between equally
    /// good moves by this order); empty when the game is over at `p`. Labels must be
    /// distinct.
    ///
    /// # Errors
    /// Moves that cannot be read (a damaged database).
    fn moves(&self, p: &Self::Position) -> Result<Vec<Move<Self::Position>>, Error>;

    /// The value of `p` for the player to move there.
    ///
    /// # Errors
    /// A value that cannot be read (a damaged or missing database file).
    fn value(&self, p: &Self::Position) -> Result<Value, Error>;

    /// A picture of `p`, one or more lines (a board, or `vertex 7 (name)`), without the
    /// value or the side to move (the session adds those).
    fn render(&self, p: &Self::Position) -> String;

    /// The two sides' names, side 0 first, as they read inside a sentence: `["X", "O"]`,
    /// `["the policeman", "the thief"]`. (Default: the first and the second player.)
    fn side_names(&self) -> [String; 2] {
        ["the first player".into(), "the second player".into()]
    }

    /// The side (0 or 1) that moves at the start.
    fn first_side(&self) -> usize {
        0
    }

    /// A few lines (without a final newline) that name the game and its rules, shown when
    /// play starts.
    fn title(&self) -> String {
        String::new()
    }

    /// The value of `p` with its score, for games with scores (then the session shows
    /// margins, plays by them and keeps the points collected; a move's value is this,
    /// [`Scored::through_with`] its `keeps_turn` and `reward`). Default: none.
    ///
    /// # Errors
    /// A value that cannot be read.
    fn scored(&self, p: &Self::Position) -> Result<Option<Scored>, Error> {
        let _ = p;
        Ok(None)
    }
}

/// A value as play shows and orders it: a plain one, or one with a score.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PlayValue {
    /// Win, loss, tie or draw with remoteness.
    Plain(Value),
    /// With a score: `win by 3 in 11`.
    Scored(Scored),
}

impl PlayValue {
    fn scored(self) -> Scored {
        match self {
            PlayValue::Plain(v) => Scored::from(v),
            PlayValue::Scored(s) => s,
        }
    }
}

impl Ord for PlayValue {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        match (self, other) {
            (PlayValue::Plain(a), PlayValue::Plain(b)) => a.cmp(b),
            _ => self.scored().cmp(&other.scored()),
        }
    }
}

impl PartialOrd for PlayValue {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for PlayValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayValue::Plain(v) => v.fmt(f),
            PlayValue::Scored(s) => s.fmt(f),
        }
    }
}

/// Moves with their values as play shows them, best first.
pub type RankedPlay<P> = Vec<(Move<P>, PlayValue)>;

/// The moves at `p` with their values as play shows them (with scores for games that have
/// them), best first; equally good moves keep the order of [`Playable::moves`].
///
/// # Errors
/// A value that cannot be read.
pub fn ranked_play<G: Playable + ?Sized>(
    game: &G,
    p: &G::Position,
) -> Result<RankedPlay<G::Position>, Error> {
    let mut ranked = Vec::new();
    for m in game.moves(p)? {
        let v = match game.scored(&m.to)? {
            Some(s) => PlayValue::Scored(s.through_with(m.keeps_turn, m.reward)),
            None => PlayValue::Plain(game.value(&m.to)?.through(m.keeps_turn)),
        };
        ranked.push((m, v));
    }
    ranked.sort_by_key(|m| std::cmp::Reverse(m.1));
    Ok(ranked)
}

/// Moves with their values for the mover, best first.
pub type Ranked<P> = Vec<(Move<P>, Value)>;

/// A reference to a playable game is one.
impl<P: Playable + ?Sized> Playable for &P {
    type Position = P::Position;
    fn start(&self) -> Self::Position {
        (**self).start()
    }
    fn moves(&self, p: &Self::Position) -> Result<Vec<Move<Self::Position>>, Error> {
        (**self).moves(p)
    }
    fn value(&self, p: &Self::Position) -> Result<Value, Error> {
        (**self).value(p)
    }
    fn render(&self, p: &Self::Position) -> String {
        (**self).render(p)
    }
    fn side_names(&self) -> [String; 2] {
        (**self).side_names()
    }
    fn first_side(&self) -> usize {
        (**self).first_side()
    }
    fn title(&self) -> String {
        (**self).title()
    }
    fn scored(&self, p: &Self::Position) -> Result<Option<Scored>, Error> {
        (**self).scored(p)
    }
}

/// The moves at `p` with their values for the mover (the value the position gets if that
/// move is played), best first; equally good moves keep the order of [`Playable::moves`].
///
/// # Errors
/// A value that cannot be read.
pub fn ranked_moves<G: Playable + ?Sized>(
    game: &G,
    p: &G::Position,
) -> Result<Ranked<G::Position>, Error> {
    let mut ranked = Vec::new();
    for m in game.moves(p)? {
        let v = game.value(&m.to)?.through(m.keeps_turn);
        ranked.push((m, v));
    }
    // A stable sort: ties keep the game's order.
    ranked.sort_by_key(|m| std::cmp::Reverse(m.1));
    Ok(ranked)
}

/// Finds which side `text` names: `first`/`1` (the side that moves first), `second`/`2`,
/// or a side's name (case-insensitive, with or without "the": `O`, `thief`, `player 1`).
///
/// # Errors
/// [`SideError`], whose message lists what is accepted.
pub fn parse_side<G: Playable + ?Sized>(game: &G, text: &str) -> Result<usize, SideError> {
    let first = game.first_side() & 1;
    let t = normalize(text);
    let names = game.side_names();
    match t.as_str() {
        "first" | "1" => return Ok(first),
        "second" | "2" => return Ok(1 - first),
        _ => {}
    }
    let bare = |s: &str| {
        let s = normalize(s);
        s.strip_prefix("the ").map(str::to_string).unwrap_or(s)
    };
    if let Some(i) = names.iter().position(|n| bare(n) == bare(&t)) {
        return Ok(i);
    }
    Err(SideError {
        found: text.into(),
        names: [first, 1 - first].map(|i| names[i].trim_start_matches("the ").to_string()),
    })
}

/// Text that names no side of a game ([`parse_side`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideError {
    /// The text given.
    pub found: String,
    /// The names of the side that moves first and of the other (without a leading "the").
    pub names: [String; 2],
}

impl std::fmt::Display for SideError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "expected first, second, 1, 2, {:?} or {:?}, found {:?}",
            self.names[0], self.names[1], self.found
        )
    }
}

impl std::error::Error for SideError {}

/// `s` with its first letter in upper case, to start a sentence with a side's name.
fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Lowercase, with runs of whitespace made single spaces.
fn normalize(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// What a command produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// Text to print (whole lines, each ending in a newline; may be empty).
    pub text: String,
    /// True when the session is finished (the human quit).
    pub done: bool,
}

/// One position of the game's history.
#[derive(Clone, Debug)]
struct Step<P> {
    pos: P,
    /// The side to move there.
    side: usize,
    /// Points collected so far, the first side's minus the second's (games with scores).
    collected: i64,
}

/// Why the game is over.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum End {
    /// The position has no moves.
    Terminal,
    /// The engine's side would move forever without the human moving (a position repeated
    /// while it moved alone): a draw.
    EngineLoop,
}

const HELP: &str = "\
Type a move as it is listed (b2, take 2, 7, ne, ...; letter case does not matter), or:
  moves   list the legal moves, best first, with their values
  show    show the position again
  hint    the engine's best move for you
  undo    take back your last move and the engine's replies
  help    this text
  quit    leave the game (so does the end of the input)
Values are for the player to move with perfect play from both sides, in plies (single
moves): \"win in 3\" wins in 3 plies, \"loss in 8\" loses in 8 at the latest, \"tie in 2\"
ends level, \"draw\" never ends. A move's value is what the position is worth after it
for the side that plays it.
";

/// A game in progress between a human and the engine, driven one command line at a time.
///
/// The engine plays the other side perfectly: at each of its turns it plays the first of
/// [`ranked_moves`] (the best value; among equally good moves, the first in the game's
/// order), and keeps moving until it is the human's turn or the game is over. History is a
/// stack of positions, so `undo` goes back to the human's previous turn.
///
/// Draws: play goes on while the human moves (a repeated position is pointed out, not
/// ended, since the human may still change course). If the engine's side would move forever
/// on its own (a position repeats while the human has no turn, as in an arena cycle owned by
/// the engine), the game ends there as a draw.
pub struct Session<G: Playable> {
    game: G,
    human: usize,
    names: [String; 2],
    history: Vec<Step<G::Position>>,
    end: Option<End>,
}

impl<G: Playable> Session<G> {
    /// Starts a game in which the human plays `human` (0 or 1; see [`parse_side`]). Returns
    /// the session and the opening text: the title, who plays what, the engine's moves if
    /// it moves first, and the position.
    ///
    /// # Errors
    /// A value that cannot be read.
    ///
    /// # Panics
    /// When `human` is neither 0 nor 1.
    pub fn new(game: G, human: usize) -> Result<(Session<G>, String), Error> {
        assert!(human < 2, "a side is 0 or 1, not {human}");
        let names = game.side_names();
        let history = vec![Step {
            pos: game.start(),
            side: game.first_side() & 1,
            collected: 0,
        }];
        let title = game.title();
        let mut s = Session {
            game,
            human,
            names,
            history,
            end: None,
        };
        let mut text = String::new();
        if !title.is_empty() {
            text.push_str(&title);
            text.push('\n');
        }
        let first = if s.history[0].side == human {
            "you move first"
        } else {
            "the engine moves first"
        };
        let _ = writeln!(
            text,
            "You are {}; the engine is {} ({first}). Type a move, or help.",
            s.names[human],
            s.names[1 - human]
        );
        s.settle(&mut text)?;
        Ok((s, text))
    }

    /// The current position.
    pub fn position(&self) -> &G::Position {
        &self.current().pos
    }

    /// The side (0 or 1) to move at the current position.
    pub fn side_to_move(&self) -> usize {
        self.current().side
    }

    /// The human's side.
    pub fn human(&self) -> usize {
        self.human
    }

    /// True when the game is over (it can still be undone).
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// Moves played so far (plies).
    pub fn plies(&self) -> usize {
        self.history.len() - 1
    }

    /// The prompt to show before reading a command: `your move> `, or
    /// `(game over: undo or quit)> `.
    pub fn prompt(&self) -> String {
        if self.is_over() {
            "(game over: undo or quit)> ".into()
        } else {
            "your move> ".into()
        }
    }

    /// Handles one command line: a move label, `hint`, `undo`, `moves`, `show`, `help` or
    /// `quit` (also `exit`, `q`, `?`). Blank lines and lines starting with `#` do nothing.
    /// Commands take precedence over move labels and aliases that spell the same word.
    ///
    /// # Errors
    /// A value that cannot be read: the session cannot go on.
    pub fn command(&mut self, line: &str) -> Result<Reply, Error> {
        let input = normalize(line);
        let mut text = String::new();
        let reply = |text: String| Ok(Reply { text, done: false });
        match input.as_str() {
            "" => return reply(text),
            _ if input.starts_with('#') => return reply(text),
            "quit" | "exit" | "q" => {
                return Ok(Reply {
                    text: "Bye.\n".into(),
                    done: true,
                })
            }
            "help" | "?" => return reply(HELP.into()),
            "show" | "board" => {
                self.show(&mut text)?;
                return reply(text);
            }
            "moves" => {
                if self.is_over() {
                    text.push_str("The game is over: no moves (undo or quit).\n");
                } else {
                    self.list_moves(&mut text)?;
                }
                return reply(text);
            }
            "hint" => {
                match self.is_over() {
                    true => text.push_str("The game is over: no hint (undo or quit).\n"),
                    false => {
                        let ranked = ranked_play(&self.game, self.position())?;
                        let (best, value) = &ranked[0];
                        let _ = writeln!(text, "Hint: play {} ({value}).", best.label);
                    }
                }
                return reply(text);
            }
            "undo" => {
                self.undo(&mut text)?;
                return reply(text);
            }
            _ => {}
        }
        if self.is_over() {
            let _ = writeln!(
                text,
                "The game is over: {line:?} cannot be played (undo to take back a move, or quit).",
                line = line.trim()
            );
            return reply(text);
        }
        let ranked = ranked_play(&self.game, self.position())?;
        let found = ranked
            .iter()
            .position(|(m, _)| normalize(&m.label) == input)
            .or_else(|| {
                ranked
                    .iter()
                    .position(|(m, _)| m.aliases.iter().any(|a| normalize(a) == input))
            });
        let Some(i) = found else {
            let labels = ranked.iter().map(|(m, _)| m.label.as_str());
            let _ = writeln!(
                text,
                "{:?} is not a legal move here. Legal moves: {}. Type help for the commands.",
                line.trim(),
                retrograde_tier::notation::listed(labels, ", ")
            );
            return reply(text);
        };
        let (m, value) = &ranked[i];
        let (best, best_value) = &ranked[0];
        let _ = write!(text, "You play {}: {value}", m.shown());
        if value < best_value {
            let _ = write!(text, " (best was {}: {best_value})", best.label);
        }
        text.push_str(".\n");
        self.play(m);
        self.settle(&mut text)?;
        reply(text)
    }

    /// What to print when the input ends: the session is over.
    pub fn end_of_input(&mut self) -> String {
        if self.is_over() || self.plies() == 0 {
            "End of input. Bye.\n".into()
        } else {
            "End of input: the game is left unfinished. Bye.\n".into()
        }
    }

    fn current(&self) -> &Step<G::Position> {
        self.history.last().expect("the history holds the start")
    }

    /// Plays `m` from the current position.
    fn play(&mut self, m: &Move<G::Position>) {
        let side = self.side_to_move();
        let sign = if side == 0 { 1 } else { -1 };
        let collected = self.current().collected + sign * m.reward;
        let side = if m.keeps_turn { side } else { 1 - side };
        self.history.push(Step {
            pos: m.to.clone(),
            side,
            collected,
        });
    }

    /// After a human move (or at the start): the engine moves until it is the human's turn
    /// or the game is over; then the position (or the result) is shown.
    fn settle(&mut self, text: &mut String) -> Result<(), Error> {
        // The positions the engine has moved from since the human's last move.
        let mut run: HashSet<(G::Position, usize)> = HashSet::new();
        loop {
            if self.game.moves(self.position())?.is_empty() {
                self.end = Some(End::Terminal);
                break;
            }
            if self.side_to_move() == self.human {
                break;
            }
            // While the engine moves alone, a repeated position means it would go on forever.
            let now = self.current();
            if !run.insert((now.pos.clone(), now.side)) {
                self.end = Some(End::EngineLoop);
                break;
            }
            let ranked = ranked_play(&self.game, self.position())?;
            let (m, value) = &ranked[0];
            let _ = writeln!(
                text,
                "{} (engine) plays {}: {value}.",
                cap(&self.names[1 - self.human]),
                m.shown()
            );
            self.play(m);
        }
        if self.end.is_none() {
            let now = self.current();
            let n = self.history.len() - 1;
            if self.history[..n]
                .iter()
                .any(|s| s.side == now.side && s.pos == now.pos)
            {
                let _ = write!(text, "This position has occurred before");
                if self.game.value(&now.pos)? == Value::Draw {
                    text.push_str(
                        ": with perfect play the game never ends (a draw). Play on, or quit",
                    );
                }
                text.push_str(".\n");
            }
        }
        self.show(text)
    }

    /// The position, its value for the side to move and the ranked moves; or the result.
    fn show(&self, text: &mut String) -> Result<(), Error> {
        let now = self.current();
        let picture = self.game.render(&now.pos);
        text.push_str(&picture);
        if !picture.ends_with('\n') {
            text.push('\n');
        }
        let value = self.game.value(&now.pos)?;
        let scored = self.game.scored(&now.pos)?;
        let shown = scored.map_or(PlayValue::Plain(value), PlayValue::Scored);
        let mover = &self.names[now.side];
        match self.end {
            Some(End::Terminal) if scored.is_some() => {
                // The points collected and what the end gives the mover, for the first side.
                let end = scored.map_or(0, |s| s.score);
                let total = now.collected + if now.side == 0 { end } else { -end };
                let _ = match total.signum() {
                    0 => writeln!(text, "Game over: a tie."),
                    sign => {
                        let w = usize::from(sign < 0);
                        let you = if w == self.human {
                            "You win!"
                        } else {
                            "You lose."
                        };
                        writeln!(
                            text,
                            "Game over: {} wins by {}. {you}",
                            self.names[w],
                            total.unsigned_abs()
                        )
                    }
                };
                self.after_end(text);
            }
            Some(End::Terminal) => {
                let verdict = match value {
                    Value::Win(_) => Some(now.side),
                    Value::Loss(_) => Some(1 - now.side),
                    _ => None,
                };
                let _ = match verdict {
                    Some(w) if w == self.human => {
                        writeln!(text, "Game over: {} wins. You win!", self.names[w])
                    }
                    Some(w) => writeln!(text, "Game over: {} wins. You lose.", self.names[w]),
                    None if value == Value::Draw => writeln!(text, "Game over: a draw."),
                    None => writeln!(text, "Game over: a tie."),
                };
                self.after_end(text);
            }
            Some(End::EngineLoop) => {
                let _ = writeln!(
                    text,
                    "Game over: a draw. {} (engine) would move forever without your turn coming (this position repeated).",
                    cap(mover)
                );
                self.after_end(text);
            }
            None => {
                let who = if now.side == self.human {
                    "you"
                } else {
                    "engine"
                };
                let _ = writeln!(text, "{} to move ({who}): {shown}", cap(mover));
                self.list_moves(text)?;
            }
        }
        Ok(())
    }

    /// What the human can do once the game is over.
    fn after_end(&self, text: &mut String) {
        text.push_str(match self.undo_target() {
            Some(_) => "Type undo to take back your last move, or quit.\n",
            None => "Type quit to leave.\n",
        });
    }

    /// The index in the history of the human's previous turn, if there is one.
    fn undo_target(&self) -> Option<usize> {
        let last = self.history.len() - 1;
        (0..last)
            .rev()
            .find(|&i| self.history[i].side == self.human)
    }

    /// The ranked moves of the current position, one a line.
    fn list_moves(&self, text: &mut String) -> Result<(), Error> {
        let now = self.current();
        let ranked = ranked_play(&self.game, &now.pos)?;
        let _ = writeln!(
            text,
            "Moves, best first (the value for {} after the move):",
            self.names[now.side]
        );
        let width = ranked
            .iter()
            .map(|(m, _)| m.shown().chars().count())
            .max()
            .unwrap_or(0);
        for (m, v) in &ranked {
            let shown = m.shown();
            let pad = width - shown.chars().count();
            let _ = write!(text, "  {shown}{:pad$}  {v}", "");
            if m.keeps_turn {
                let _ = write!(text, " ({} moves again)", self.names[now.side]);
            }
            text.push('\n');
        }
        Ok(())
    }

    /// Goes back to the human's previous turn.
    fn undo(&mut self, text: &mut String) -> Result<(), Error> {
        let last = self.history.len() - 1;
        match self.undo_target() {
            None => text.push_str("Nothing to undo: you have not moved yet.\n"),
            Some(i) => {
                let _ = writeln!(
                    text,
                    "Undone: back {} {}.",
                    last - i,
                    if last - i == 1 { "ply" } else { "plies" }
                );
                self.history.truncate(i + 1);
                self.end = None;
                self.show(text)?;
            }
        }
        Ok(())
    }
}

/// A [`Session`] of any game, behind one object-safe interface (for callers that pick the
/// game at run time).
pub trait DynSession {
    /// See [`Session::command`].
    ///
    /// # Errors
    /// A value that cannot be read.
    fn command(&mut self, line: &str) -> Result<Reply, Error>;
    /// See [`Session::prompt`].
    fn prompt(&self) -> String;
    /// See [`Session::end_of_input`].
    fn end_of_input(&mut self) -> String;
}

impl<G: Playable> DynSession for Session<G> {
    fn command(&mut self, line: &str) -> Result<Reply, Error> {
        Session::command(self, line)
    }
    fn prompt(&self) -> String {
        Session::prompt(self)
    }
    fn end_of_input(&mut self) -> String {
        Session::end_of_input(self)
    }
}

/// Starts a session of `game` with the human on the side `side` names (see [`parse_side`]).
///
/// # Errors
/// A side that names no side (the message lists what is accepted), or a value that cannot
/// be read.
pub fn start_session<'g, G: Playable + 'g>(
    game: G,
    side: &str,
) -> Result<(Box<dyn DynSession + 'g>, String), StartError> {
    let human = parse_side(&game, side).map_err(StartError::Side)?;
    let (s, intro) = Session::new(game, human).map_err(StartError::Lookup)?;
    Ok((Box::new(s), intro))
}

/// Why a session does not start ([`start_session`]).
#[derive(Debug)]
pub enum StartError {
    /// The side asked names no side of the game: `--side: expected ...`.
    Side(SideError),
    /// The start's value cannot be read (a damaged database: the caller knows how to
    /// repair it, see [`Error::is_damage`]).
    Lookup(Error),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Side(e) => write!(f, "--side: {e}"),
            StartError::Lookup(e) => e.fmt(f),
        }
    }
}

/// The message holds the cause's: no `source`, so that a chain does not say it twice.
impl std::error::Error for StartError {}

#[cfg(test)]
mod tests;
