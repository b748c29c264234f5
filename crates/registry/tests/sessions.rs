//! A play session's start ([`Answer::session`]): a side, a start position, a game played
//! from its start only or from a position only; every refusal is a typed [`QueryError`]
//! whose message says what was expected.

use retrograde_registry::{entry, Answer, Args, Built, QueryError, Unanswered};
use retrograde_solve::exchange::Solo;
use retrograde_tier::SolveOptions;

/// The registry's game of `args`, solved in memory.
fn solved(game: &str, args: serde_json::Value) -> (Box<dyn Built>, SolveOptions) {
    let e = entry(game).expect("a built-in game");
    let built = e
        .build(&Args::from_json(e.params, &args).expect("parameters"))
        .expect("a game");
    (built, SolveOptions::default())
}

fn refusal(answer: &dyn Answer, side: &str, from: Option<&str>) -> QueryError {
    match answer.session(side, from) {
        Ok(_) => panic!("session of side {side:?} from {from:?} started"),
        Err(e) => e,
    }
}

#[test]
fn a_side_that_names_no_side_is_refused_with_the_names() {
    let (built, opts) = solved("tictactoe", serde_json::json!({}));
    let answer = built.solve(&opts, &Solo).unwrap().answer;
    let e = refusal(&*answer, "purple", None);
    let QueryError::Side(side) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(side.found, "purple");
    assert!(
        e.to_string().starts_with("--side: expected first, second"),
        "{e}"
    );
    // Both sides, by number and by name, start.
    for side in ["1", "2", "first", "second"] {
        assert!(answer.session(side, None).is_ok(), "{side}");
    }
}

#[test]
fn a_start_position_is_read_by_the_game_s_notation() {
    let (built, opts) = solved("tictactoe", serde_json::json!({}));
    let answer = built.solve(&opts, &Solo).unwrap().answer;
    let e = refusal(&*answer, "1", Some("xx"));
    assert!(matches!(e, QueryError::Position { .. }), "{e:?}");
    assert!(e.to_string().contains("expected"), "{e}");
    // Two lines of three: play stops at the first, and the notation says so.
    let e = refusal(&*answer, "1", Some("xxx/ooo/..."));
    assert!(matches!(e, QueryError::Position { .. }), "{e:?}");
    assert!(e.to_string().contains("ended"), "{e}");
    let (_, intro) = answer.session("1", Some("x../.o./...")).unwrap();
    assert!(!intro.is_empty());
}

#[test]
fn games_played_from_their_start_only_or_from_a_position_only_say_so() {
    let (built, opts) = solved("pebbles", serde_json::json!({}));
    let answer = built.solve(&opts, &Solo).unwrap().answer;
    let e = refusal(&*answer, "1", Some("5"));
    assert!(
        matches!(e, QueryError::Unanswered(Unanswered::FromStartOnly)),
        "{e:?}"
    );
    assert!(answer.session("1", None).is_ok());

    let (built, opts) = solved("chess", serde_json::json!({ "material": "KQvK" }));
    let answer = built.solve(&opts, &Solo).unwrap().answer;
    let e = refusal(&*answer, "white", None);
    assert!(
        matches!(e, QueryError::Unanswered(Unanswered::NoStartPosition)),
        "{e:?}"
    );
    assert!(e.to_string().contains("--position"), "{e}");
    let fen = "8/8/8/4k3/8/8/8/4KQ2 w - - 0 1";
    assert!(answer.session("white", Some(fen)).is_ok());
}

/// A refusal's message holds its cause's once: a report of the chain of causes (as
/// `anyhow`'s `{:#}` prints it) does not repeat it.
#[test]
fn a_message_does_not_repeat_its_cause() {
    fn chain(e: &dyn std::error::Error) -> String {
        let mut text = e.to_string();
        let mut at = e.source();
        while let Some(cause) = at {
            text = format!("{text}: {cause}");
            at = cause.source();
        }
        text
    }
    let (built, opts) = solved("chess", serde_json::json!({ "material": "KQvK" }));
    let answer = built.solve(&opts, &Solo).unwrap().answer;
    let e = refusal(&*answer, "white", Some("8/8/8/4k3/8/8/8/4KQ2 w KQ - 0 1"));
    assert!(matches!(e, QueryError::Position { .. }), "{e:?}");
    assert_eq!(chain(&e), e.to_string());
    let e = QueryError::Lookup(retrograde_tier::Error::damaged(
        "t.values".into(),
        "a bad block",
    ));
    assert_eq!(chain(&e), e.to_string());
    assert_eq!(e.to_string().matches("a bad block").count(), 1, "{e}");
}
