//! rustyline glue: Enter runs a statement only once it ends with `;`, Tab
//! completes keywords, tables, columns, query names and meta-commands.

use std::borrow::Cow;

use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};

use super::command::Command;
use crate::output::terminal::PrintFormat;

/// SQL words offered by completion (DataFusion's dialect; not every keyword).
const KEYWORDS: &[&str] = &[
    "ALL",
    "AND",
    "AS",
    "ASC",
    "AVG",
    "BETWEEN",
    "BY",
    "CASE",
    "CAST",
    "COALESCE",
    "COUNT",
    "CREATE",
    "CROSS",
    "DESC",
    "DESCRIBE",
    "DISTINCT",
    "DROP",
    "ELSE",
    "END",
    "EXCEPT",
    "EXISTS",
    "EXPLAIN",
    "FALSE",
    "FILTER",
    "FIRST",
    "FROM",
    "FULL",
    "GROUP",
    "HAVING",
    "IN",
    "INNER",
    "INTERSECT",
    "INTERVAL",
    "IS",
    "JOIN",
    "LAST",
    "LEFT",
    "LIKE",
    "ILIKE",
    "LIMIT",
    "MAX",
    "MIN",
    "NOT",
    "NULL",
    "NULLS",
    "OFFSET",
    "ON",
    "OR",
    "ORDER",
    "OUTER",
    "OVER",
    "PARTITION",
    "REPLACE",
    "RIGHT",
    "SELECT",
    "SHOW",
    "SUM",
    "TABLE",
    "TABLES",
    "THEN",
    "TRUE",
    "UNION",
    "USING",
    "VALUES",
    "VIEW",
    "WHEN",
    "WHERE",
    "WINDOW",
    "WITH",
];

/// Names the session knows, refreshed after each input.
#[derive(Debug, Default, Clone)]
pub struct Names {
    /// Tables, views and table functions.
    pub tables: Vec<String>,
    /// Column names of every table and view.
    pub columns: Vec<String>,
    /// Catalog query names.
    pub queries: Vec<String>,
}

/// The REPL's rustyline helper.
pub struct ReplHelper {
    names: Names,
    files: FilenameCompleter,
}

impl ReplHelper {
    pub fn new(names: Names) -> Self {
        ReplHelper {
            names,
            files: FilenameCompleter::new(),
        }
    }

    pub fn set_names(&mut self, names: Names) {
        self.names = names;
    }

    /// Candidates for the word ending at `pos`: `(start of the word, candidates)`.
    pub fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        let before = &line[..pos];
        let start = before
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '.'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let word = &before[start..];
        let trimmed = before.trim_start();
        if trimmed.starts_with('.') {
            return (start, self.command_candidates(trimmed, word));
        }
        // In SQL a dot separates a qualifier from a column: complete after it.
        let (start, word) = match word.rfind('.') {
            Some(i) => (start + i + 1, &word[i + 1..]),
            None => (start, word),
        };
        if word.is_empty() {
            return (start, Vec::new());
        }
        let lower = word.to_ascii_lowercase();
        let upper_case = word.chars().all(|c| !c.is_lowercase());
        let mut out: Vec<String> = Vec::new();
        for k in KEYWORDS {
            if k.to_ascii_lowercase().starts_with(&lower) {
                out.push(if upper_case {
                    k.to_string()
                } else {
                    k.to_ascii_lowercase()
                });
            }
        }
        for name in self
            .names
            .tables
            .iter()
            .chain(&self.names.columns)
            .chain(&self.names.queries)
        {
            if name.to_ascii_lowercase().starts_with(&lower) {
                out.push(name.clone());
            }
        }
        out.sort();
        out.dedup();
        (start, out)
    }

    /// Completion of a meta-command line (`trimmed` starts with `.`).
    fn command_candidates(&self, trimmed: &str, word: &str) -> Vec<String> {
        let first_word = !trimmed.contains(char::is_whitespace);
        let starts = |w: &&str| w.starts_with(word);
        if first_word {
            return Command::all_names()
                .into_iter()
                .filter(|n| n.starts_with(&word.to_ascii_lowercase()))
                .map(String::from)
                .collect();
        }
        let command = trimmed
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let pick = |words: Vec<&str>| -> Vec<String> {
            words.into_iter().filter(starts).map(String::from).collect()
        };
        match command.as_str() {
            ".schema" => pick(self.names.tables.iter().map(String::as_str).collect()),
            ".run" => pick(self.names.queries.iter().map(String::as_str).collect()),
            ".format" => pick(PrintFormat::ALL.iter().map(|f| f.name()).collect()),
            ".timer" => pick(vec!["on", "off"]),
            ".maxrows" => pick(vec!["all"]),
            _ => Vec::new(),
        }
    }

    fn completes_files(line: &str) -> bool {
        let command = line.split_whitespace().next().unwrap_or_default();
        [".load", ".read", ".export", ".output"].contains(&command.to_ascii_lowercase().as_str())
    }
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        if Self::completes_files(line.trim_start()) && line[..pos].contains(char::is_whitespace) {
            return self.files.complete(line, pos, ctx);
        }
        let (start, words) = self.candidates(line, pos);
        let pairs = words
            .into_iter()
            .map(|w| Pair {
                display: w.clone(),
                replacement: w,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {
    fn highlight_prompt<'b, 's: 'b, 'p: 'b>(
        &'s self,
        prompt: &'p str,
        _default: bool,
    ) -> Cow<'b, str> {
        Cow::Borrowed(prompt)
    }
}

impl Validator for ReplHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        let input = ctx.input();
        let trimmed = input.trim();
        if trimmed.is_empty() || trimmed.starts_with('.') || statement_complete(input) {
            Ok(ValidationResult::Valid(None))
        } else {
            Ok(ValidationResult::Incomplete)
        }
    }
}

impl Helper for ReplHelper {}

/// Whether `sql` ends with a `;` outside quotes and comments (only whitespace
/// and comments after it).
pub fn statement_complete(sql: &str) -> bool {
    let chars: Vec<char> = sql.chars().collect();
    let mut i = 0;
    let mut last_code: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '\'' | '"' | '`' => {
                // A quoted string or identifier; a doubled quote escapes itself.
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return false,
                        Some(&q) if q == c => {
                            if chars.get(i + 1) == Some(&c) {
                                i += 2;
                                continue;
                            }
                            break;
                        }
                        Some(_) => i += 1,
                    }
                }
                last_code = Some(c);
            }
            '-' if next == Some('-') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                if i >= chars.len() {
                    return false;
                }
                i += 1;
            }
            c if c.is_whitespace() => {}
            c => last_code = Some(c),
        }
        i += 1;
    }
    last_code == Some(';')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper() -> ReplHelper {
        ReplHelper::new(Names {
            tables: vec!["kernels".into(), "tree_edges".into(), "ancestors".into()],
            columns: vec!["kind".into(), "launch_uid".into()],
            queries: vec!["ops_summary".into(), "kernel_summary".into()],
        })
    }

    #[test]
    fn statements_end_with_a_semicolon_outside_quotes_and_comments() {
        assert!(statement_complete("SELECT 1;"));
        assert!(statement_complete("SELECT 1;  -- done\n"));
        assert!(statement_complete("SELECT\n  ';' AS s;"));
        assert!(statement_complete("SELECT 'it''s';"));
        assert!(!statement_complete("SELECT 1"));
        assert!(!statement_complete("SELECT ';'"));
        assert!(!statement_complete("SELECT 1 -- ;"));
        assert!(!statement_complete("SELECT 1 /* ; */"));
        assert!(!statement_complete("SELECT 'open;"));
    }

    #[test]
    fn completes_sql_names_and_keywords() {
        let h = helper();
        assert_eq!(
            h.candidates("SELECT * FROM tree_", 19),
            (14, vec!["tree_edges".to_string()])
        );
        let (_, sel) = h.candidates("SEL", 3);
        assert_eq!(sel, vec!["SELECT"]);
        let (_, kin) = h.candidates("select k", 8);
        assert_eq!(kin, vec!["kernel_summary", "kernels", "kind"]);
        let (start, qualified) = h.candidates("SELECT k.launch", 15);
        assert_eq!((start, qualified), (9, vec!["launch_uid".to_string()]));
        assert!(h.candidates("SELECT ", 7).1.is_empty());
    }

    #[test]
    fn completes_meta_commands_and_their_arguments() {
        let h = helper();
        assert_eq!(h.candidates(".sch", 4), (0, vec![".schema".to_string()]));
        assert_eq!(h.candidates(".ex", 3).1, vec![".export", ".exit"]);
        assert_eq!(
            h.candidates(".run ops", 8),
            (5, vec!["ops_summary".to_string()])
        );
        assert_eq!(h.candidates(".format j", 9).1, vec!["json"]);
        assert_eq!(h.candidates(".schema tree", 12).1, vec!["tree_edges"]);
    }
}
