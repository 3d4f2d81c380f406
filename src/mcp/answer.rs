//! Answers sized for a model: Markdown tables with a row limit that says what
//! it left out, numbers rounded for reading, long names cut in the middle, and
//! a hard cap on the bytes of any answer.
//!
//! A model pays for every token it reads and copies numbers it sees: 17
//! significant digits or a 2 KB kernel template help neither. The full value
//! is always one `sql` call away, and each cut says how to get it.

use datafusion::arrow::datatypes::Schema;
use datafusion::arrow::record_batch::RecordBatch;

use crate::output::report_csv::write_markdown_with;
use crate::output::terminal::{head, reading_cell, shorten_to};
use crate::output::Sheet;

/// How much one answer may hold.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Rows of a table shown when the call names no limit.
    pub rows: usize,
    /// The most rows a call may ask for.
    pub max_rows: usize,
    /// Characters of one cell before its middle is cut.
    pub cell_chars: usize,
    /// Bytes of one answer, whatever it holds.
    pub bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            rows: 50,
            max_rows: 1000,
            cell_chars: 80,
            bytes: 48 * 1024,
        }
    }
}

/// `rows` of a table (`total` in all) as Markdown: the rows kept are the first
/// `shown` of `batches`, followed by a line that gives the count and, when rows
/// or cells were cut, how to see the rest.
pub fn table(schema: &Schema, batches: &[RecordBatch], total: usize, limits: &Limits) -> String {
    let header: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    if header.is_empty() {
        return "(no columns)\n".into();
    }
    let shown = head(batches, limits.rows);
    let shown_rows: usize = shown.iter().map(|b| b.num_rows()).sum();
    let cut_cells = std::cell::Cell::new(false);
    let cell = |column: &dyn datafusion::arrow::array::Array, row: usize| {
        let whole = reading_cell(column, row);
        let text = shorten_to(whole.clone(), limits.cell_chars);
        if text != whole {
            cut_cells.set(true);
        }
        text
    };
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write_markdown_with(&mut out, &header, &shown, &cell);
    let mut text = String::from_utf8_lossy(&out).into_owned();
    text.push_str(&match (shown_rows, total) {
        (_, 0) => "(0 rows)".to_string(),
        (s, t) if s == t => format!("({t} row{})", plural(t)),
        (s, t) => format!(
            "({s} of {t} rows shown; ask with a higher `limit`, a WHERE or an ORDER BY for others)"
        ),
    });
    if cut_cells.get() {
        text.push_str(&format!(
            " Texts over {} characters are cut in the middle (…); select the column alone, or use length()/substr(), for the whole value.",
            limits.cell_chars
        ));
    }
    text.push('\n');
    text
}

/// One batch (a listing) as a table.
pub fn batch_table(batch: &RecordBatch, limits: &Limits) -> String {
    table(
        &batch.schema(),
        std::slice::from_ref(batch),
        batch.num_rows(),
        limits,
    )
}

/// A report or view sheet as a titled table.
pub fn sheet(title: &str, sheet: &Sheet, limits: &Limits) -> String {
    format!(
        "### {title}\n\n{}",
        table(&sheet.schema(), &sheet.batches, sheet.rows(), limits)
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `text` within `max_bytes`: cut at a line end, with a last line saying so.
pub fn capped(text: String, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text;
    }
    const NOTE_ROOM: usize = 160;
    let mut end = max_bytes.saturating_sub(NOTE_ROOM);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').map_or(end, |at| at + 1);
    format!(
        "{}\n[answer cut at {end} of {} bytes: ask for fewer rows or columns]\n",
        &text[..end],
        text.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Float64Array, Int64Array, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field};
    use std::sync::Arc;

    fn batch(n: usize) -> RecordBatch {
        let schema = Schema::new(vec![
            Field::new("name", DataType::Utf8, true),
            Field::new("dur", DataType::Float64, true),
            Field::new("calls", DataType::Int64, true),
        ]);
        let names: Vec<Option<String>> = (0..n)
            .map(|i| match i {
                0 => Some(format!("void gemm<{}>|x", "T".repeat(200))),
                1 => None,
                _ => Some(format!("k{i}")),
            })
            .collect();
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(StringArray::from(names)),
                Arc::new(Float64Array::from_iter_values(
                    (0..n).map(|i| 1234.567891234 / (i + 1) as f64),
                )),
                Arc::new(Int64Array::from_iter_values(0..n as i64)),
            ],
        )
        .unwrap()
    }

    #[test]
    fn a_table_keeps_its_limit_rounds_cuts_and_says_so() {
        let b = batch(120);
        let limits = Limits {
            rows: 3,
            ..Limits::default()
        };
        let text = table(&b.schema(), std::slice::from_ref(&b), 120, &limits);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "| name | dur | calls |");
        assert_eq!(lines.len(), 2 + 3 + 1, "{text}");
        // Rounded to 4 decimals; `|` escaped; NULL empty; the middle cut.
        assert!(lines[2].contains("| 1234.5679 | 0 |"), "{}", lines[2]);
        assert!(
            lines[2].contains('…') && lines[2].contains("\\|x"),
            "{}",
            lines[2]
        );
        assert!(lines[2].chars().count() < 130, "{}", lines[2]);
        assert!(lines[3].starts_with("|  | 617.2839 |"), "{}", lines[3]);
        assert!(
            lines[5].starts_with("(3 of 120 rows shown;"),
            "{}",
            lines[5]
        );
        assert!(lines[5].contains("cut in the middle"), "{}", lines[5]);
        let all = table(&b.schema(), &[b.slice(2, 4)], 4, &limits);
        assert!(all.ends_with("(3 of 4 rows shown; ask with a higher `limit`, a WHERE or an ORDER BY for others)\n"), "{all}");
        let exact = table(&b.schema(), &[b.slice(2, 1)], 1, &limits);
        assert!(
            exact.ends_with("| k2 | 411.5226 | 2 |\n(1 row)\n"),
            "{exact}"
        );
        let empty = table(&b.schema(), &[], 0, &limits);
        assert!(empty.ends_with("|---|---|---|\n(0 rows)\n"), "{empty}");
    }

    #[test]
    fn answers_are_capped_at_a_line_end() {
        let text: String = (0..1000).map(|i| format!("line {i}\n")).collect();
        let cut = capped(text.clone(), 1000);
        assert!(cut.len() <= 1000, "{}", cut.len());
        assert!(cut.ends_with("bytes: ask for fewer rows or columns]\n"));
        assert!(cut.contains(&format!("of {} bytes", text.len())));
        let kept = cut.lines().filter(|l| l.starts_with("line ")).count();
        assert!(kept > 50, "{kept}");
        assert!(cut.lines().take(kept).all(|l| l.starts_with("line ")));
        assert_eq!(capped("short\n".into(), 1000), "short\n");
        // A multi-byte character at the cut is not split.
        let wide = "é".repeat(2000);
        assert!(capped(wide, 1001).starts_with("éé"));
    }
}
