//! A game's parameters' values: what the command line, Python and a database's description
//! give, read against the parameters a game declares ([`Param`], in its [`About`]).
//!
//! [`About`]: retrograde_games::about::About

use std::collections::BTreeMap;

pub use retrograde_games::about::{Kind, Param, OPTIONAL};

/// A file's bytes and the name to use in messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// The name (`map.txt`, `<stdin>`).
    pub name: String,
    /// The contents.
    pub bytes: Vec<u8>,
}

/// A parameter's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgValue {
    /// A number.
    Number(u64),
    /// Numbers.
    Numbers(Vec<u64>),
    /// A flag.
    Flag(bool),
    /// A word or text.
    Text(String),
    /// A file's contents.
    Input(Input),
}

/// The values of a game's parameters, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Args {
    values: BTreeMap<String, ArgValue>,
}

impl Args {
    /// No values.
    pub fn new() -> Args {
        Args::default()
    }

    /// Sets a value.
    pub fn set(&mut self, name: &str, v: ArgValue) -> &mut Args {
        self.values.insert(name.to_string(), v);
        self
    }

    /// Reads `text` as the value of `p`, checking its kind and range.
    ///
    /// # Errors
    /// What is wrong, naming the parameter (see [`parse`]).
    pub fn set_text(&mut self, p: &Param, text: &str) -> Result<&mut Args, ArgError> {
        let v = parse(p, text)?;
        Ok(self.set(p.name, v))
    }

    /// A number.
    ///
    /// # Errors
    /// [`ArgError::Missing`] when `name` was not given as a number.
    pub fn number(&self, name: &str) -> Result<u64, ArgError> {
        match self.values.get(name) {
            Some(ArgValue::Number(n)) => Ok(*n),
            _ => Err(ArgError::missing_option(name)),
        }
    }

    /// A number that fits `u32`.
    ///
    /// # Errors
    /// [`ArgError::Missing`], or [`ArgError::TooBig`] past `u32::MAX`.
    pub fn u32(&self, name: &str) -> Result<u32, ArgError> {
        let n = self.number(name)?;
        u32::try_from(n).map_err(|_| ArgError::TooBig {
            name: name.into(),
            value: n,
        })
    }

    /// Numbers.
    ///
    /// # Errors
    /// [`ArgError::Missing`] when `name` was not given as numbers.
    pub fn numbers(&self, name: &str) -> Result<Vec<u64>, ArgError> {
        match self.values.get(name) {
            Some(ArgValue::Numbers(n)) => Ok(n.clone()),
            _ => Err(ArgError::missing_option(name)),
        }
    }

    /// A flag (off when not given).
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.values.get(name), Some(ArgValue::Flag(true)))
    }

    /// A word or text.
    ///
    /// # Errors
    /// [`ArgError::Missing`].
    pub fn text(&self, name: &str) -> Result<&str, ArgError> {
        match self.values.get(name) {
            Some(ArgValue::Text(t)) => Ok(t),
            _ => Err(ArgError::missing_value(name)),
        }
    }

    /// A file's contents.
    ///
    /// # Errors
    /// [`ArgError::Missing`].
    pub fn input(&self, name: &str) -> Result<&Input, ArgError> {
        match self.values.get(name) {
            Some(ArgValue::Input(i)) => Ok(i),
            _ => Err(ArgError::missing_value(name)),
        }
    }

    /// The values as JSON (inputs by name only), to record in a database.
    pub fn to_json(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for (k, v) in &self.values {
            let j = match v {
                ArgValue::Number(n) => serde_json::json!(n),
                ArgValue::Numbers(n) => serde_json::json!(n),
                ArgValue::Flag(b) => serde_json::json!(b),
                ArgValue::Text(t) => serde_json::json!(t),
                ArgValue::Input(i) => serde_json::json!(i.name),
            };
            m.insert(k.clone(), j);
        }
        serde_json::Value::Object(m)
    }

    /// Values recorded with [`Args::to_json`], read back for `params` (inputs cannot be).
    ///
    /// # Errors
    /// A value of the wrong kind ([`parse`]'s errors), [`ArgError::NotAnObject`], or
    /// [`ArgError::RecordedFile`] for an input parameter.
    pub fn from_json(params: &[Param], j: &serde_json::Value) -> Result<Args, ArgError> {
        let mut a = Args::with_defaults(params)?;
        let Some(m) = j.as_object() else {
            return Err(ArgError::NotAnObject);
        };
        for p in params {
            let Some(v) = m.get(p.name) else { continue };
            let text = match (p.kind, v) {
                (Kind::Flag, serde_json::Value::Bool(b)) => {
                    a.set(p.name, ArgValue::Flag(*b));
                    continue;
                }
                (Kind::Numbers { .. }, serde_json::Value::Array(items)) => items
                    .iter()
                    .map(|i| i.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                (Kind::Input, _) => {
                    return Err(ArgError::RecordedFile {
                        name: p.name.into(),
                    });
                }
                (_, serde_json::Value::String(s)) => s.clone(),
                (_, other) => other.to_string(),
            };
            a.set_text(p, &text)?;
        }
        Ok(a)
    }

    /// The defaults of `params`.
    ///
    /// # Errors
    /// A default that does not parse (a bug in the declaration).
    pub fn with_defaults(params: &[Param]) -> Result<Args, ArgError> {
        let mut a = Args::new();
        for p in params {
            match (p.kind, p.default) {
                (Kind::Flag, _) => {
                    a.set(p.name, ArgValue::Flag(false));
                }
                (_, OPTIONAL) => {}
                (_, Some(d)) => {
                    a.set_text(p, d)?;
                }
                _ => {}
            }
        }
        Ok(a)
    }
}

/// Reads `text` as a value of `p`.
///
/// # Errors
/// What is wrong, naming the parameter: [`ArgError::NotANumber`], [`ArgError::OutOfRange`],
/// [`ArgError::NotAFlag`], [`ArgError::NotAChoice`], or [`ArgError::Input`] for a file
/// (which the caller reads).
pub fn parse(p: &Param, text: &str) -> Result<ArgValue, ArgError> {
    let number = |t: &str, min: u64, max: u64| -> Result<u64, ArgError> {
        let n: u64 = t.trim().parse().map_err(|_| ArgError::NotANumber {
            name: p.name.into(),
            found: t.into(),
        })?;
        if n < min || n > max {
            return Err(ArgError::OutOfRange {
                name: p.name.into(),
                value: n,
                min,
                max,
            });
        }
        Ok(n)
    };
    match p.kind {
        Kind::Number { min, max } => number(text, min, max).map(ArgValue::Number),
        Kind::Numbers { min, max } => text
            .split(',')
            .map(|t| number(t, min, max))
            .collect::<Result<Vec<_>, _>>()
            .map(ArgValue::Numbers),
        Kind::Flag => match text {
            "true" | "yes" | "1" | "" => Ok(ArgValue::Flag(true)),
            "false" | "no" | "0" => Ok(ArgValue::Flag(false)),
            _ => Err(ArgError::NotAFlag {
                name: p.name.into(),
            }),
        },
        Kind::Choice(words) => {
            if words.contains(&text) {
                Ok(ArgValue::Text(text.to_string()))
            } else {
                Err(ArgError::NotAChoice {
                    name: p.name.into(),
                    choices: words,
                    found: text.into(),
                })
            }
        }
        Kind::Text => Ok(ArgValue::Text(text.to_string())),
        Kind::Input => Err(ArgError::Input {
            name: p.name.into(),
        }),
    }
}

/// Why a parameter's value is refused or missing. `Display` names the parameter as the
/// command line does (`--width: 99 is out of range (1 to 16)`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgError {
    /// Text that is no whole number.
    NotANumber {
        /// The parameter.
        name: String,
        /// The text given (a message shows its first 40 characters).
        found: String,
    },
    /// A number outside the parameter's range.
    OutOfRange {
        /// The parameter.
        name: String,
        /// The number given.
        value: u64,
        /// The smallest allowed.
        min: u64,
        /// The largest allowed.
        max: u64,
    },
    /// A flag's value other than true or false.
    NotAFlag {
        /// The parameter.
        name: String,
    },
    /// A word that is none of the choices.
    NotAChoice {
        /// The parameter.
        name: String,
        /// The words allowed.
        choices: &'static [&'static str],
        /// The text given (a message shows its first 40 characters).
        found: String,
    },
    /// A file given as text: the caller reads files and sets their bytes.
    Input {
        /// The parameter.
        name: String,
    },
    /// A value asked for and not given (or not of the kind asked for).
    Missing {
        /// The parameter.
        name: String,
        /// Whether the message names it as an option (`--take is missing`: numbers) or
        /// bare (`file is missing`: texts and files, often given without `--`).
        option: bool,
    },
    /// A number past what the game takes (`u32`).
    TooBig {
        /// The parameter.
        name: String,
        /// The number given.
        value: u64,
    },
    /// Recorded parameters that are not a JSON object.
    NotAnObject,
    /// A recorded parameter that was a file, which a database does not keep.
    RecordedFile {
        /// The parameter.
        name: String,
    },
}

impl ArgError {
    fn missing_option(name: &str) -> ArgError {
        ArgError::Missing {
            name: name.into(),
            option: true,
        }
    }

    fn missing_value(name: &str) -> ArgError {
        ArgError::Missing {
            name: name.into(),
            option: false,
        }
    }

    /// The parameter it is about, if one.
    pub fn name(&self) -> Option<&str> {
        match self {
            ArgError::NotANumber { name, .. }
            | ArgError::OutOfRange { name, .. }
            | ArgError::NotAFlag { name }
            | ArgError::NotAChoice { name, .. }
            | ArgError::Input { name }
            | ArgError::Missing { name, .. }
            | ArgError::TooBig { name, .. }
            | ArgError::RecordedFile { name } => Some(name),
            ArgError::NotAnObject => None,
        }
    }
}

/// At most 40 characters of `t`, with `…` when cut.
fn shown(t: &str) -> String {
    let s: String = t.chars().take(40).collect();
    if t.chars().count() > 40 {
        format!("{s}…")
    } else {
        s
    }
}

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArgError::NotANumber { name, found } => write!(
                f,
                "--{name}: expected a whole number, found {:?}",
                shown(found)
            ),
            ArgError::OutOfRange {
                name,
                value,
                min,
                max,
            } => write!(f, "--{name}: {value} is out of range ({min} to {max})"),
            ArgError::NotAFlag { name } => write!(f, "--{name}: expected true or false"),
            ArgError::NotAChoice {
                name,
                choices,
                found,
            } => write!(
                f,
                "--{name}: expected {}, found {:?}",
                choices.join(", "),
                shown(found)
            ),
            ArgError::Input { name } => write!(f, "{name}: a file is read by the caller"),
            ArgError::Missing { name, option: true } => write!(f, "--{name} is missing"),
            ArgError::Missing {
                name,
                option: false,
            } => write!(f, "{name} is missing"),
            ArgError::TooBig { name, value } => write!(f, "--{name} {value} is too big"),
            ArgError::NotAnObject => f.write_str("the recorded parameters are not an object"),
            ArgError::RecordedFile { name } => write!(f, "{name} was a file: give it again"),
        }
    }
}

impl std::error::Error for ArgError {}

#[cfg(test)]
mod tests {
    use super::*;

    const WIDTH: Param = Param::number("width", "Columns.", 1, 16, "7");

    #[test]
    fn a_number_out_of_range_names_its_parameter() {
        let e = parse(&WIDTH, "99").unwrap_err();
        assert_eq!(
            e,
            ArgError::OutOfRange {
                name: "width".into(),
                value: 99,
                min: 1,
                max: 16
            }
        );
        assert_eq!(e.name(), Some("width"));
        assert_eq!(e.to_string(), "--width: 99 is out of range (1 to 16)");
        assert_eq!(parse(&WIDTH, " 9 "), Ok(ArgValue::Number(9)));
    }

    #[test]
    fn long_text_is_cut_in_the_message_but_kept_in_the_error() {
        let long = "x".repeat(50);
        let e = parse(&WIDTH, &long).unwrap_err();
        assert!(matches!(&e, ArgError::NotANumber { found, .. } if *found == long));
        assert_eq!(
            e.to_string(),
            format!(
                "--width: expected a whole number, found \"{}…\"",
                "x".repeat(40)
            )
        );
        let method = Param {
            kind: Kind::Choice(&["memo", "minimax"]),
            ..WIDTH
        };
        assert_eq!(
            parse(&method, "fast").unwrap_err().to_string(),
            "--width: expected memo, minimax, found \"fast\""
        );
    }

    #[test]
    fn accessors_say_what_is_missing_or_too_big() {
        let mut a = Args::new();
        a.set("count", ArgValue::Number(1 << 40));
        let e = a.u32("count").unwrap_err();
        assert_eq!(
            e,
            ArgError::TooBig {
                name: "count".into(),
                value: 1 << 40
            }
        );
        assert_eq!(e.to_string(), "--count 1099511627776 is too big");
        assert_eq!(
            a.number("take").unwrap_err().to_string(),
            "--take is missing"
        );
        assert_eq!(a.text("file").unwrap_err().to_string(), "file is missing");
        assert_eq!(
            Args::from_json(&[WIDTH], &serde_json::json!([1])).unwrap_err(),
            ArgError::NotAnObject
        );
    }
}
