//! Meta-commands: one enum, parsed with `FromStr`; `.help` and completion are
//! generated from it, so a command documented is a command that exists.

use std::str::FromStr;
use std::sync::Arc;

use datafusion::arrow::array::StringArray;
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::record_batch::RecordBatch;

use crate::output::terminal::PrintFormat;

/// A line starting with `.`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Help,
    Tables,
    Schema(Option<String>),
    Load { path: String, name: Option<String> },
    Run { name: String, args: Vec<String> },
    Queries,
    Platform(Option<String>),
    Format(Option<PrintFormat>),
    MaxRows(Option<usize>),
    Timer(Option<bool>),
    Export(String),
    Read(String),
    Quit,
}

impl Command {
    /// One of every command, in `.help` order.
    pub fn every() -> [Command; 13] {
        [
            Command::Help,
            Command::Tables,
            Command::Schema(None),
            Command::Load {
                path: String::new(),
                name: None,
            },
            Command::Run {
                name: String::new(),
                args: Vec::new(),
            },
            Command::Queries,
            Command::Platform(None),
            Command::Format(None),
            Command::MaxRows(None),
            Command::Timer(None),
            Command::Export(String::new()),
            Command::Read(String::new()),
            Command::Quit,
        ]
    }

    /// The names that call it; the first is the one `.help` shows.
    pub fn names(&self) -> &'static [&'static str] {
        match self {
            Command::Help => &[".help"],
            Command::Tables => &[".tables"],
            Command::Schema(_) => &[".schema"],
            Command::Load { .. } => &[".load"],
            Command::Run { .. } => &[".run"],
            Command::Queries => &[".queries"],
            Command::Platform(_) => &[".platform"],
            Command::Format(_) => &[".format"],
            Command::MaxRows(_) => &[".maxrows"],
            Command::Timer(_) => &[".timer"],
            Command::Export(_) => &[".export", ".output"],
            Command::Read(_) => &[".read"],
            Command::Quit => &[".quit", ".exit"],
        }
    }

    /// `(usage, description)` for `.help`.
    pub fn usage(&self) -> (&'static str, &'static str) {
        match self {
            Command::Help => (".help", "This list, and the drill-down functions."),
            Command::Tables => (".tables", "Tables, views, categories and functions, with row counts of the tables."),
            Command::Schema(_) => (".schema [TABLE]", "Columns of TABLE (a table, view or drill-down function) with their meaning; all tables when omitted."),
            Command::Load { .. } => (".load PATH [AS NAME]", "Load another trace (or a `tracesql export --parquet` directory) beside the others; NAME sets its `trace` column (default: the file name)."),
            Command::Run { .. } => (".run QUERY [KEY=VALUE ...]", "Run a report, rule, category or view of the catalog by name; KEY=VALUE binds its $KEY parameters (.platform sets $platform) or sets a report option for this run (instance=1 for hta.instance; SET hta.instance = 1 sets it for the session)."),
            Command::Queries => (".queries", "The query catalog: name, kind, version, parameters, description."),
            Command::Platform(_) => (".platform [NAME|none]", "Set (or show) the GPU platform perf reports and roofline columns use (peak FLOPS, bandwidth; see the platforms table). Same as SET platform = 'NAME'."),
            Command::Format(_) => (".format [table|csv|json|md]", "Set (or show) how results print; csv and json print every row and every full value."),
            Command::MaxRows(_) => (".maxrows [N|all]", "Set (or show) how many rows the table and md formats show."),
            Command::Timer(_) => (".timer [on|off]", "Print (or not) each statement's run time."),
            Command::Export(_) => (".export FILE", "Write the last result to FILE: .csv, .parquet, .json or .md by extension (alias .output)."),
            Command::Read(_) => (".read FILE", "Run the statements and meta-commands in FILE."),
            Command::Quit => (".quit", "Leave (also .exit or Ctrl-D)."),
        }
    }

    /// Every name, aliases included, for completion.
    pub fn all_names() -> Vec<&'static str> {
        Command::every()
            .iter()
            .flat_map(|c| c.names().iter().copied())
            .collect()
    }
}

/// The `.help` table: one row per command.
pub fn help_batch() -> RecordBatch {
    let rows: Vec<(&str, &str)> = Command::every().iter().map(Command::usage).collect();
    let schema = Schema::new(vec![
        Field::new("command", DataType::Utf8, false),
        Field::new("description", DataType::Utf8, false),
    ]);
    let usage = StringArray::from_iter_values(rows.iter().map(|r| r.0));
    let description = StringArray::from_iter_values(rows.iter().map(|r| r.1));
    // Two non-null text columns matching the schema cannot fail.
    RecordBatch::try_new(
        Arc::new(schema),
        vec![Arc::new(usage), Arc::new(description)],
    )
    .unwrap_or_else(|e| panic!("help table: {e}"))
}

impl FromStr for Command {
    type Err = String;

    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let words = split_words(line.trim())?;
        let Some((name, args)) = words.split_first() else {
            return Err("empty command; .help lists the commands".into());
        };
        let name = name.to_ascii_lowercase();
        let Some(kind) = Command::every()
            .into_iter()
            .find(|c| c.names().contains(&name.as_str()))
        else {
            return Err(format!("unknown command {name}; .help lists the commands"));
        };
        let usage = || format!("usage: {}", kind.usage().0);
        let at_most = |n: usize| {
            if args.len() > n {
                Err(usage())
            } else {
                Ok(())
            }
        };
        let one = |args: &[String]| match args {
            [one] => Ok(one.clone()),
            _ => Err(usage()),
        };
        let command = match kind {
            Command::Help => at_most(0).map(|_| Command::Help)?,
            Command::Tables => at_most(0).map(|_| Command::Tables)?,
            Command::Queries => at_most(0).map(|_| Command::Queries)?,
            Command::Quit => at_most(0).map(|_| Command::Quit)?,
            Command::Schema(_) => {
                at_most(1)?;
                Command::Schema(args.first().cloned())
            }
            Command::Load { .. } => match args {
                [path] => Command::Load {
                    path: path.clone(),
                    name: None,
                },
                [path, as_, name] if as_.eq_ignore_ascii_case("as") => Command::Load {
                    path: path.clone(),
                    name: Some(name.clone()),
                },
                _ => return Err(usage()),
            },
            Command::Run { .. } => match args.split_first() {
                Some((name, rest)) => Command::Run {
                    name: name.clone(),
                    args: rest.to_vec(),
                },
                None => return Err(usage()),
            },
            Command::Platform(_) => {
                at_most(1)?;
                Command::Platform(args.first().cloned())
            }
            Command::Format(_) => {
                at_most(1)?;
                Command::Format(args.first().map(|f| f.parse()).transpose()?)
            }
            Command::MaxRows(_) => {
                at_most(1)?;
                let parse = |n: &String| {
                    if n.eq_ignore_ascii_case("all") {
                        Ok(0)
                    } else {
                        n.parse::<usize>()
                            .map_err(|_| format!("'{n}' is not a row count; {}", usage()))
                    }
                };
                Command::MaxRows(args.first().map(parse).transpose()?)
            }
            Command::Timer(_) => {
                at_most(1)?;
                let parse = |v: &String| match v.to_ascii_lowercase().as_str() {
                    "on" => Ok(true),
                    "off" => Ok(false),
                    _ => Err(usage()),
                };
                Command::Timer(args.first().map(parse).transpose()?)
            }
            Command::Export(_) => Command::Export(one(args)?),
            Command::Read(_) => Command::Read(one(args)?),
        };
        Ok(command)
    }
}

/// Splits a command line into words; '…' and "…" group words with spaces.
pub fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if let Some(q) = quote {
        return Err(format!("unclosed {q} quote"));
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_each_command() {
        let cases = [
            (".help", Command::Help),
            (".TABLES", Command::Tables),
            (".schema kernels", Command::Schema(Some("kernels".into()))),
            (".schema", Command::Schema(None)),
            (
                ".load 'my trace.json' AS rank1",
                Command::Load {
                    path: "my trace.json".into(),
                    name: Some("rank1".into()),
                },
            ),
            (
                ".run ops_summary platform=MI300X",
                Command::Run {
                    name: "ops_summary".into(),
                    args: vec!["platform=MI300X".into()],
                },
            ),
            (".platform MI300X", Command::Platform(Some("MI300X".into()))),
            (".format md", Command::Format(Some(PrintFormat::Md))),
            (".maxrows 5", Command::MaxRows(Some(5))),
            (".maxrows all", Command::MaxRows(Some(0))),
            (".timer off", Command::Timer(Some(false))),
            (".output out.csv", Command::Export("out.csv".into())),
            (".export out.parquet", Command::Export("out.parquet".into())),
            (".read q.sql", Command::Read("q.sql".into())),
            (".exit", Command::Quit),
        ];
        for (line, want) in cases {
            assert_eq!(line.parse::<Command>(), Ok(want), "{line}");
        }
    }

    #[test]
    fn bad_commands_say_what_to_do() {
        let err = |line: &str| line.parse::<Command>().expect_err(line);
        assert_eq!(
            err(".nope"),
            "unknown command .nope; .help lists the commands"
        );
        assert_eq!(err(".load"), "usage: .load PATH [AS NAME]");
        assert_eq!(err(".load a b"), "usage: .load PATH [AS NAME]");
        assert_eq!(err(".timer maybe"), "usage: .timer [on|off]");
        assert!(err(".maxrows many").contains("not a row count"));
        assert!(err(".format xml").contains("unknown format"));
        assert_eq!(err(".read 'x"), "unclosed ' quote");
    }

    #[test]
    fn help_lists_every_command() {
        let help = help_batch();
        assert_eq!(help.num_rows(), Command::every().len());
        for name in Command::all_names() {
            let text = format!("{:?}", help.column(0)) + &format!("{:?}", help.column(1));
            assert!(text.contains(name), "{name} missing from .help");
        }
    }
}
