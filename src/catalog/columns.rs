//! The `Columns:` block of a query's header comment, in the spirit of
//! Perfetto's SQL standard library: a `-- Columns:` line, then one
//! `--   name: what it is, unit` line per column, a continuation indented
//! further. A name with spaces or colons is double-quoted (`--   "Kernel Time
//! (µs)_sum": ...`); `view.*` stands for the columns of that view, documented
//! in its own file. `tracesql_columns` and `tracesql schema VIEW` show these
//! docs; a catalog test checks each block names exactly the columns returned.

use super::{Catalog, Query};

/// One documented column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnNote {
    /// The column's name, or `view.*` for another view's columns.
    pub name: String,
    /// What it is, continuation lines joined with spaces.
    pub doc: String,
}

impl Query {
    /// The query's `Columns:` block, in order; None when it has none. A line in
    /// the block that is not `name: text` is an error naming it.
    pub fn column_notes(&self) -> Option<Result<Vec<ColumnNote>, String>> {
        parse_columns_block(&self.sql)
    }
}

/// [`Query::column_notes`] of SQL text.
pub fn parse_columns_block(sql: &str) -> Option<Result<Vec<ColumnNote>, String>> {
    let mut lines = sql.lines().map(str::trim_end);
    lines.find(|l| *l == "-- Columns:")?;
    let mut notes: Vec<ColumnNote> = Vec::new();
    for line in lines {
        let Some(entry) = line.strip_prefix("--   ") else {
            break;
        };
        if let Some(more) = entry.strip_prefix(' ') {
            match notes.last_mut() {
                Some(last) => {
                    last.doc.push(' ');
                    last.doc.push_str(more.trim());
                }
                None => return Some(Err(format!("`{line}`: a continuation before any column"))),
            }
            continue;
        }
        let parsed = match entry.strip_prefix('"') {
            Some(quoted) => quoted.split_once("\":"),
            None => entry.split_once(": ").or_else(|| entry.split_once(':')),
        };
        let Some((name, doc)) = parsed else {
            return Some(Err(format!("`{line}`: expected `--   name: text`")));
        };
        notes.push(ColumnNote {
            name: name.to_string(),
            doc: doc.trim().to_string(),
        });
    }
    Some(Ok(notes))
}

/// The notes of `query` with each `view.*` replaced by that view's own notes
/// (recursively) for the columns in `returned` it does not list itself: a query
/// selecting `* EXCLUDE (...)` from a view returns a subset of the view's
/// columns, in its order. Unknown views and unparsable blocks give nothing.
pub fn expanded_notes(query: &Query, returned: &[String], catalog: &Catalog) -> Vec<ColumnNote> {
    let Some(Ok(notes)) = query.column_notes() else {
        return Vec::new();
    };
    let own: Vec<&str> = notes.iter().map(|n| n.name.as_str()).collect();
    let mut out = Vec::new();
    for note in &notes {
        let Some(view) = note.name.strip_suffix(".*") else {
            out.push(note.clone());
            continue;
        };
        let Some(theirs) = catalog.get(view) else {
            continue;
        };
        for column in expanded_notes(theirs, returned, catalog) {
            if returned.contains(&column.name) && !own.contains(&column.name.as_str()) {
                out.push(column);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(sql: &str) -> Option<Vec<String>> {
        parse_columns_block(sql).map(|r| {
            r.expect("parses")
                .into_iter()
                .map(|n| n.name)
                .collect::<Vec<_>>()
        })
    }

    #[test]
    fn reads_quoted_names_and_joins_continuations() {
        let sql = "-- name: x\n--\n-- Columns:\n--   trace: the trace\n\
                   --   \"Kernel Time (µs)_sum\": summed, µs\n--     more text: not a column\n\
                   --   perf_summary.*: its columns\n-- after the block\nSELECT 1";
        assert_eq!(
            names(sql),
            Some(vec![
                "trace".to_string(),
                "Kernel Time (µs)_sum".to_string(),
                "perf_summary.*".to_string()
            ])
        );
        let notes = parse_columns_block(sql).expect("a block").expect("parses");
        assert_eq!(notes[1].doc, "summed, µs more text: not a column");
        assert_eq!(names("-- name: x\nSELECT 1"), None);
    }

    #[test]
    fn a_line_without_a_name_is_an_error() {
        let e = parse_columns_block("-- Columns:\n--   just words\nSELECT 1")
            .expect("a block")
            .expect_err("no name");
        assert!(e.contains("expected `--   name: text`"), "{e}");
    }
}
