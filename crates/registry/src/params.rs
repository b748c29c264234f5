//! A game's parameters, declared once: what the command line offers and what a database
//! records.

use std::collections::BTreeMap;

/// What kind of value a parameter takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number in `min..=max`.
    Number {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// Comma-separated whole numbers, each in `min..=max`.
    Numbers {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// On or off (`--misere`).
    Flag,
    /// One of a few words.
    Choice(&'static [&'static str]),
    /// A file (or `-` for standard input) that the caller reads and hands over as bytes.
    Input,
    /// Free text (an octal code).
    Text,
}

/// One parameter of a game.
#[derive(Copy, Clone, Debug)]
pub struct Param {
    /// The name: `--width` on the command line, `width` in a database.
    pub name: &'static str,
    /// One sentence for `--help`.
    pub help: &'static str,
    /// What it takes.
    pub kind: Kind,
    /// The default, as typed (`None`: required, or off for a flag; [`OPTIONAL`]: absent
    /// unless given).
    pub default: Option<&'static str>,
    /// Given without a `--name` (a file, an octal code).
    pub positional: bool,
    /// A word for the value in help: `N`, `FILE`, `SET`.
    pub value_name: &'static str,
}

impl Param {
    /// A number with a default.
    pub const fn number(
        name: &'static str,
        help: &'static str,
        min: u64,
        max: u64,
        default: &'static str,
    ) -> Param {
        Param {
            name,
            help,
            kind: Kind::Number { min, max },
            default: Some(default),
            positional: false,
            value_name: "N",
        }
    }
}

/// The default of a parameter that may be left out, and then has no value (chess takes
/// an ending or `--up-to N`).
pub const OPTIONAL: Option<&str> = Some("");

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
    /// What is wrong, naming the parameter.
    pub fn set_text(&mut self, p: &Param, text: &str) -> Result<&mut Args, String> {
        let v = parse(p, text)?;
        Ok(self.set(p.name, v))
    }

    /// A number.
    ///
    /// # Errors
    /// When `name` was not given as a number.
    pub fn number(&self, name: &str) -> Result<u64, String> {
        match self.values.get(name) {
            Some(ArgValue::Number(n)) => Ok(*n),
            _ => Err(format!("--{name} is missing")),
        }
    }

    /// A number that fits `u32`.
    ///
    /// # Errors
    /// When missing or too big.
    pub fn u32(&self, name: &str) -> Result<u32, String> {
        let n = self.number(name)?;
        u32::try_from(n).map_err(|_| format!("--{name} {n} is too big"))
    }

    /// Numbers.
    ///
    /// # Errors
    /// When `name` was not given as numbers.
    pub fn numbers(&self, name: &str) -> Result<Vec<u64>, String> {
        match self.values.get(name) {
            Some(ArgValue::Numbers(n)) => Ok(n.clone()),
            _ => Err(format!("--{name} is missing")),
        }
    }

    /// A flag (off when not given).
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.values.get(name), Some(ArgValue::Flag(true)))
    }

    /// A word or text.
    ///
    /// # Errors
    /// When missing.
    pub fn text(&self, name: &str) -> Result<&str, String> {
        match self.values.get(name) {
            Some(ArgValue::Text(t)) => Ok(t),
            _ => Err(format!("{name} is missing")),
        }
    }

    /// A file's contents.
    ///
    /// # Errors
    /// When missing.
    pub fn input(&self, name: &str) -> Result<&Input, String> {
        match self.values.get(name) {
            Some(ArgValue::Input(i)) => Ok(i),
            _ => Err(format!("{name} is missing")),
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
    /// A value of the wrong kind, or an input parameter.
    pub fn from_json(params: &[Param], j: &serde_json::Value) -> Result<Args, String> {
        let mut a = Args::with_defaults(params)?;
        let Some(m) = j.as_object() else {
            return Err("the recorded parameters are not an object".into());
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
                    return Err(format!("{} was a file: give it again", p.name));
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
    pub fn with_defaults(params: &[Param]) -> Result<Args, String> {
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
/// What is wrong, naming the parameter.
pub fn parse(p: &Param, text: &str) -> Result<ArgValue, String> {
    let shown = |t: &str| -> String {
        let s: String = t.chars().take(40).collect();
        if t.chars().count() > 40 {
            format!("{s}…")
        } else {
            s
        }
    };
    let number = |t: &str, min: u64, max: u64| -> Result<u64, String> {
        let n: u64 = t.trim().parse().map_err(|_| {
            format!(
                "--{}: expected a whole number, found {:?}",
                p.name,
                shown(t)
            )
        })?;
        if n < min || n > max {
            return Err(format!(
                "--{}: {n} is out of range ({min} to {max})",
                p.name
            ));
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
            _ => Err(format!("--{}: expected true or false", p.name)),
        },
        Kind::Choice(words) => {
            if words.contains(&text) {
                Ok(ArgValue::Text(text.to_string()))
            } else {
                Err(format!(
                    "--{}: expected {}, found {:?}",
                    p.name,
                    words.join(", "),
                    shown(text)
                ))
            }
        }
        Kind::Text => Ok(ArgValue::Text(text.to_string())),
        Kind::Input => Err(format!("{}: a file is read by the caller", p.name)),
    }
}
