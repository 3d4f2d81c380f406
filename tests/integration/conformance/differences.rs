//! The expected differences of tests/conformance/differences.csv (format in
//! DIFFERENCES.md): cells where we deliberately differ from TraceLens.

use std::path::Path;

use crate::conformance::compare::Mismatch;

#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    /// 1-based line in the file, for messages.
    pub line: usize,
    pub trace: String,
    pub sheet: String,
    pub row_key: String,
    pub column: String,
    pub reason: String,
}

pub const HEADER: [&str; 5] = ["trace", "sheet", "row_key", "column", "reason"];

fn field_matches(pattern: &str, value: &str) -> bool {
    pattern == "*" || pattern == value
}

impl Expected {
    pub fn covers_sheet(&self, trace: &str, sheet: &str) -> bool {
        field_matches(&self.trace, trace) && field_matches(&self.sheet, sheet)
    }

    pub fn matches(&self, trace: &str, sheet: &str, m: &Mismatch) -> bool {
        self.covers_sheet(trace, sheet)
            && field_matches(&self.row_key, &m.row_key)
            && field_matches(&self.column, &m.column)
    }
}

/// Parses the file: one entry per line (fields may be quoted, but hold no
/// newline); blank lines and lines starting with `#` are skipped.
pub fn parse(text: &str) -> Result<Vec<Expected>, String> {
    let mut header_seen = false;
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() || raw.starts_with('#') {
            continue;
        }
        let record = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(raw.as_bytes())
            .records()
            .next()
            .transpose()
            .map_err(|e| format!("line {line}: {e}"))?
            .unwrap_or_default();
        let fields: Vec<&str> = record.iter().collect();
        if !header_seen {
            if fields != HEADER {
                return Err(format!(
                    "line {line}: the header must be {:?}, found {raw:?}",
                    HEADER.join(",")
                ));
            }
            header_seen = true;
            continue;
        }
        if fields.len() != HEADER.len() {
            return Err(format!(
                "line {line}: {} fields, expected {}",
                fields.len(),
                HEADER.len()
            ));
        }
        let e = Expected {
            line,
            trace: fields[0].to_string(),
            sheet: fields[1].to_string(),
            row_key: fields[2].to_string(),
            column: fields[3].to_string(),
            reason: fields[4].to_string(),
        };
        if e.trace.is_empty() || e.sheet.is_empty() || e.row_key.is_empty() || e.column.is_empty() {
            return Err(format!(
                "line {line}: trace, sheet, row_key and column must not be empty"
            ));
        }
        if e.reason.trim().is_empty() {
            return Err(format!("line {line}: give a reason"));
        }
        out.push(e);
    }
    if !header_seen {
        return Err(format!("no header line {:?}", HEADER.join(",")));
    }
    Ok(out)
}

pub fn load(path: &Path) -> Result<Vec<Expected>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// One CSV line for differences.csv describing a mismatch (reason to be filled in).
pub fn csv_line(trace: &str, sheet: &str, m: &Mismatch) -> String {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    w.write_record([trace, sheet, &m.row_key, &m.column, "TODO: why we differ"])
        .unwrap();
    String::from_utf8(w.into_inner().unwrap())
        .unwrap()
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mismatch(row_key: &str, column: &str) -> Mismatch {
        Mismatch {
            row_key: row_key.into(),
            column: column.into(),
            ours: "1".into(),
            reference: "2".into(),
            detail: None,
        }
    }

    #[test]
    fn parse_and_match() {
        let text = "trace,sheet,row_key,column,reason\n\
                    # a comment\n\
                    h100/x,ops_summary,\"aten::add | a,b\",Count,TraceLens counts twice\n\
                    *,gpu_timeline,*,percent,rounding\n";
        let list = parse(text).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].row_key, "aten::add | a,b");
        assert_eq!(list[0].line, 3);
        assert!(list[0].matches(
            "h100/x",
            "ops_summary",
            &mismatch("aten::add | a,b", "Count")
        ));
        assert!(!list[0].matches(
            "h100/y",
            "ops_summary",
            &mismatch("aten::add | a,b", "Count")
        ));
        assert!(!list[0].matches("h100/x", "ops_summary", &mismatch("aten::add", "Count")));
        assert!(list[1].matches("mi210/z", "gpu_timeline", &mismatch("idle_time", "percent")));
        assert!(!list[1].matches("mi210/z", "gpu_timeline", &mismatch("idle_time", "time ms")));
    }

    #[test]
    fn round_trip_of_suggested_lines() {
        let m = mismatch("aten::add | \"q\" | (1, 2)", "Count");
        let line = csv_line("h100/x", "ops_summary", &m);
        let list = parse(&format!("{}\n{line}\n", HEADER.join(","))).unwrap();
        assert!(list[0].matches("h100/x", "ops_summary", &m));
    }

    #[test]
    fn rejects_bad_files() {
        assert!(parse("trace,sheet,row,column,reason\n").is_err());
        assert!(parse("trace,sheet,row_key,column,reason\nh100/x,ops_summary,k,c,\n").is_err());
        assert!(parse("trace,sheet,row_key,column,reason\nh100/x,ops_summary,k,c\n").is_err());
    }

    #[test]
    fn the_checked_in_list_parses() {
        load(&crate::conformance::own_path("differences.csv")).unwrap();
    }
}
