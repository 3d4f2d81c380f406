//! Printing results for a person: the one path for `query`, `report`'s summary,
//! the listings (`tables`, `schema`, `queries`) and everything the REPL shows,
//! so formats, row limits and the table's look are the same everywhere.
//!
//! The table format is for reading, not for copying numbers: it fits the
//! terminal's width, rounds floating-point cells (see [`display_float`]) and
//! elides the middle of long cells (kernel names keep their start and end).
//! CSV, JSON and every file written keep full precision.

use std::fmt;
use std::io::{self, Write};
use std::str::FromStr;
use std::time::Duration;

use comfy_table::{presets, ContentArrangement, Table};
use datafusion::arrow::datatypes::Schema;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};

use comfy_table::{Cell, CellAlignment};
use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{DataType, Float32Type, Float64Type};

use super::report_csv::write_markdown;
use super::{write_batches, Format};

/// How results print (`--format`, `.format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PrintFormat {
    /// A boxed table fitted to the terminal width.
    Table,
    /// CSV with a header row, every row.
    Csv,
    /// A JSON array of row objects, every row.
    Json,
    /// A GitHub Markdown table.
    Md,
}

impl PrintFormat {
    pub const ALL: [PrintFormat; 4] = [
        PrintFormat::Table,
        PrintFormat::Csv,
        PrintFormat::Json,
        PrintFormat::Md,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PrintFormat::Table => "table",
            PrintFormat::Csv => "csv",
            PrintFormat::Json => "json",
            PrintFormat::Md => "md",
        }
    }

    /// Formats for people: limited to `.maxrows` and followed by a row count.
    fn for_people(self) -> bool {
        matches!(self, PrintFormat::Table | PrintFormat::Md)
    }
}

impl fmt::Display for PrintFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PrintFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PrintFormat::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown format '{s}'; use one of table, csv, json, md"))
    }
}

/// The session's printing settings.
#[derive(Debug, Clone)]
pub struct PrintOptions {
    pub format: PrintFormat,
    /// Rows shown by the table and md formats; 0 shows all.
    pub maxrows: usize,
    /// Print how long each statement took.
    pub timer: bool,
    /// Fit tables to the terminal's width (measured at each print, so a resized
    /// window is followed); off when output is not a terminal.
    pub fit_terminal: bool,
    /// Whether the output goes to a person at a terminal (footers for csv/json).
    pub interactive: bool,
}

impl PrintOptions {
    /// The REPL's settings: 40 rows, timed and fitted at a terminal.
    pub fn new(interactive: bool) -> Self {
        PrintOptions {
            format: PrintFormat::Table,
            maxrows: 40,
            timer: interactive,
            fit_terminal: interactive,
            interactive,
        }
    }

    /// A one-shot command's settings (`query`, `report`, listings): every row,
    /// no timer, fitted to the terminal when stdout is one.
    pub fn command(format: PrintFormat) -> Self {
        let terminal = std::io::IsTerminal::is_terminal(&std::io::stdout());
        PrintOptions {
            format,
            maxrows: 0,
            timer: false,
            fit_terminal: terminal,
            interactive: false,
        }
    }
}

/// Width of the terminal on stdout: its size, else `$COLUMNS`, else 100.
pub fn terminal_width() -> u16 {
    let columns = || {
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.trim().parse::<u16>().ok())
            .filter(|&c| c > 0)
    };
    let measured = Table::new().width().filter(|&w| w > 0);
    measured.or_else(columns).unwrap_or(100)
}

/// Longest cell text the table format shows; longer values lose their middle to
/// `…` (`.format csv` prints them whole).
const MAX_CELL_CHARS: usize = 100;

/// Prints one result: the rows, a "more rows" footer when cut, and the row count
/// (with the time when the timer is on).
pub fn print_batches(
    out: &mut dyn Write,
    schema: &Schema,
    batches: &[RecordBatch],
    elapsed: Option<Duration>,
    options: &PrintOptions,
) -> io::Result<()> {
    let total: usize = batches.iter().map(|b| b.num_rows()).sum();
    let people = options.format.for_people();
    let limit = if people && options.maxrows > 0 {
        options.maxrows
    } else {
        usize::MAX
    };
    let shown = write_rows(out, schema, batches, limit, true, options)?;
    if !people && !options.interactive {
        return Ok(());
    }
    if shown < total {
        writeln!(out, "… {} more rows (set .maxrows)", total - shown)?;
    }
    let rows = format!("{total} row{}", if total == 1 { "" } else { "s" });
    match elapsed.filter(|_| options.timer) {
        Some(t) => writeln!(out, "{rows} ({:.3} s)", t.as_secs_f64()),
        None => writeln!(out, "{rows}"),
    }
}

/// Prints a listing (`.help`, `.tables`, ...): every row, no footer.
pub fn print_listing(
    out: &mut dyn Write,
    batch: &RecordBatch,
    options: &PrintOptions,
) -> io::Result<()> {
    write_rows(
        out,
        &batch.schema(),
        std::slice::from_ref(batch),
        usize::MAX,
        false,
        options,
    )?;
    Ok(())
}

/// Writes up to `limit` rows in the options' format; returns how many.
/// `shorten` cuts long cells in the table format (query results, not listings).
pub fn write_rows(
    out: &mut dyn Write,
    schema: &Schema,
    batches: &[RecordBatch],
    limit: usize,
    shorten: bool,
    options: &PrintOptions,
) -> io::Result<usize> {
    let total: usize = batches.iter().map(|b| b.num_rows()).sum();
    let shown = head(batches, limit);
    let shown_rows: usize = shown.iter().map(|b| b.num_rows()).sum();
    let header: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let arrow = |e: datafusion::arrow::error::ArrowError| io::Error::other(e.to_string());
    match options.format {
        PrintFormat::Table => {
            if !header.is_empty() {
                writeln!(
                    out,
                    "{}",
                    table(
                        &header,
                        &shown,
                        options.fit_terminal.then(terminal_width),
                        shorten
                    )
                    .map_err(arrow)?
                )?;
            }
        }
        PrintFormat::Md => write_markdown(out, &header, &shown)?,
        PrintFormat::Csv => {
            if total == 0 {
                writeln!(out, "{}", header.join(","))?;
            } else {
                let flat = shown
                    .iter()
                    .map(nested_as_text)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(arrow)?;
                write_batches(out, &flat, Format::Csv).map_err(arrow)?;
            }
        }
        PrintFormat::Json => {
            if total == 0 {
                writeln!(out, "[]")?;
            } else {
                write_batches(out, &shown, Format::Json).map_err(arrow)?;
            }
        }
    }
    Ok(shown_rows)
}

/// `batch` with its list, struct and map columns as text (`[1, 2]`, `{a: 1}`),
/// as the table format shows them: CSV has no nested values, and the Arrow CSV
/// writer refuses them.
fn nested_as_text(
    batch: &RecordBatch,
) -> Result<RecordBatch, datafusion::arrow::error::ArrowError> {
    use datafusion::arrow::array::{Array, ArrayRef, StringBuilder};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
    let nested = |t: &DataType| t.is_nested();
    if !batch
        .schema()
        .fields()
        .iter()
        .any(|f| nested(f.data_type()))
    {
        return Ok(batch.clone());
    }
    let options = FormatOptions::default();
    let mut fields = Vec::new();
    let mut columns: Vec<ArrayRef> = Vec::new();
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        if !nested(field.data_type()) {
            fields.push(field.as_ref().clone());
            columns.push(column.clone());
            continue;
        }
        let formatter = ArrayFormatter::try_new(column.as_ref(), &options)?;
        let mut text = StringBuilder::new();
        for row in 0..column.len() {
            if column.is_null(row) {
                text.append_null();
            } else {
                text.append_value(formatter.value(row).to_string());
            }
        }
        fields.push(Field::new(field.name(), DataType::Utf8, true));
        columns.push(std::sync::Arc::new(text.finish()));
    }
    RecordBatch::try_new(std::sync::Arc::new(Schema::new(fields)), columns)
}

/// The first `n` rows of `batches`.
pub fn head(batches: &[RecordBatch], n: usize) -> Vec<RecordBatch> {
    let mut left = n;
    let mut out = Vec::new();
    for b in batches {
        if left == 0 {
            break;
        }
        let take = left.min(b.num_rows());
        out.push(b.slice(0, take));
        left -= take;
    }
    out
}

fn table(
    header: &[String],
    batches: &[RecordBatch],
    width: Option<u16>,
    shorten_cells: bool,
) -> Result<Table, datafusion::arrow::error::ArrowError> {
    let mut table = Table::new();
    table.load_preset(presets::UTF8_FULL_CONDENSED);
    match width {
        Some(w) => {
            table.set_content_arrangement(ContentArrangement::Dynamic);
            table.set_width(w);
        }
        None => {
            table.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    table.set_header(header.to_vec());
    let options = FormatOptions::default().with_null("NULL");
    for batch in batches {
        let formatters = batch
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
            .collect::<Result<Vec<_>, _>>()?;
        for row in 0..batch.num_rows() {
            let cells = batch.columns().iter().zip(&formatters).map(|(column, f)| {
                let text = display_float_cell(column.as_ref(), row)
                    .unwrap_or_else(|| f.value(row).to_string());
                let text = if shorten_cells { shorten(text) } else { text };
                let cell = Cell::new(text);
                if column.data_type().is_numeric() {
                    cell.set_alignment(CellAlignment::Right)
                } else {
                    cell
                }
            });
            table.add_row(cells.collect::<Vec<_>>());
        }
    }
    Ok(table)
}

/// A floating-point cell as [`display_float`] shows it; None for other types
/// and NULLs (the formatter's text is used).
fn display_float_cell(column: &dyn Array, row: usize) -> Option<String> {
    if column.is_null(row) {
        return None;
    }
    match column.data_type() {
        DataType::Float64 => Some(display_float(
            column.as_primitive::<Float64Type>().value(row),
        )),
        DataType::Float32 => Some(display_float(
            column.as_primitive::<Float32Type>().value(row) as f64,
        )),
        _ => None,
    }
}

/// A float rounded for reading: 4 decimals from 1 up (`29.74316796875` →
/// `29.7432`), 4 significant digits below 1 (`0.000123456` → `0.0001235`),
/// trailing zeros dropped; non-finite values as Rust writes them.
pub fn display_float(value: f64) -> String {
    if !value.is_finite() || value == 0.0 {
        return value.to_string();
    }
    let magnitude = value.abs();
    let decimals = if magnitude >= 1.0 {
        4
    } else {
        // Digits after the point to keep 4 significant ones.
        (3 - magnitude.log10().floor() as i32).clamp(4, 17) as usize
    };
    let text = format!("{value:.decimals$}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

/// `text` cut to [`MAX_CELL_CHARS`] by replacing its middle with `…`: a
/// kernel name keeps its family at the start and its template tail at the end.
fn shorten(text: String) -> String {
    shorten_to(text, MAX_CELL_CHARS)
}

/// One cell as a person (or a model) reads it: floats by [`display_float`],
/// NULL as an empty cell; long text is the caller's to cut ([`shorten_to`]).
pub fn reading_cell(column: &dyn Array, row: usize) -> String {
    if column.is_null(row) {
        return String::new();
    }
    display_float_cell(column, row).unwrap_or_else(|| {
        ArrayFormatter::try_new(column, &FormatOptions::default())
            .map(|f| f.value(row).to_string())
            .unwrap_or_default()
    })
}

/// `text` cut to `max_chars` (at least 3) by replacing its middle with `…`.
pub fn shorten_to(text: String, max_chars: usize) -> String {
    let max_chars = max_chars.max(3);
    let chars = text.chars().count();
    if chars <= max_chars {
        return text;
    }
    let keep = max_chars - 1;
    let (front, back) = (keep - keep / 2, keep / 2);
    let mut short: String = text.chars().take(front).collect();
    short.push('…');
    short.extend(text.chars().skip(chars - back));
    short
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::Int64Array;
    use datafusion::arrow::datatypes::{DataType, Field};
    use std::sync::Arc;

    fn numbers(n: i64) -> (Schema, RecordBatch) {
        let schema = Schema::new(vec![Field::new("n", DataType::Int64, true)]);
        let batch = RecordBatch::try_new(
            Arc::new(schema.clone()),
            vec![Arc::new(Int64Array::from_iter_values(0..n))],
        )
        .expect("batch");
        (schema, batch)
    }

    fn render(n: i64, options: &PrintOptions) -> String {
        let (schema, batch) = numbers(n);
        let mut out = Vec::new();
        print_batches(
            &mut out,
            &schema,
            &[batch],
            Some(Duration::from_millis(5)),
            options,
        )
        .expect("print");
        String::from_utf8(out).expect("utf8")
    }

    #[test]
    fn long_results_are_cut_with_a_footer() {
        let mut options = PrintOptions::new(false);
        options.maxrows = 3;
        let text = render(10, &options);
        assert!(text.contains("… 7 more rows (set .maxrows)"), "{text}");
        assert!(text.ends_with("10 rows\n"), "{text}");
        assert!(!text.contains("│ 3 "), "{text}");
    }

    #[test]
    fn timer_adds_the_time() {
        let mut options = PrintOptions::new(false);
        options.timer = true;
        assert!(render(1, &options).ends_with("1 row (0.005 s)\n"));
    }

    #[test]
    fn csv_is_whole_and_bare_when_piped() {
        let mut options = PrintOptions::new(false);
        options.format = PrintFormat::Csv;
        options.maxrows = 2;
        assert_eq!(render(3, &options), "n\n0\n1\n2\n");
    }

    #[test]
    fn formats_parse_by_name() {
        assert_eq!("MD".parse::<PrintFormat>(), Ok(PrintFormat::Md));
        assert!("xml".parse::<PrintFormat>().is_err());
    }

    #[test]
    fn tables_fit_the_width() {
        let schema = Schema::new(vec![
            Field::new("name", DataType::Utf8, true),
            Field::new("doc", DataType::Utf8, true),
        ]);
        let words = "a rather long description ".repeat(6);
        let batch = RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(datafusion::arrow::array::StringArray::from(vec![
                    "kernels";
                    3
                ])),
                Arc::new(datafusion::arrow::array::StringArray::from(vec![
                    words
                        .as_str(
                        );
                    3
                ])),
            ],
        )
        .expect("batch");
        let text = table(&["name".into(), "doc".into()], &[batch], Some(60), false)
            .expect("table")
            .to_string();
        assert!(text.lines().count() > 6, "long cells wrap:\n{text}");
        for line in text.lines() {
            assert!(line.chars().count() <= 60, "{line}");
        }
    }

    #[test]
    fn long_cells_lose_their_middle() {
        let long = format!("void gemm_kernel<{}>(Params)", "x".repeat(300));
        let short = shorten(long);
        assert_eq!(short.chars().count(), MAX_CELL_CHARS);
        assert!(short.starts_with("void gemm_kernel<xx"), "{short}");
        assert!(short.ends_with("xx>(Params)"), "{short}");
        assert_eq!(short.matches('…').count(), 1);
    }

    #[test]
    fn floats_are_rounded_for_reading() {
        assert_eq!(display_float(29.74316796875), "29.7432");
        assert_eq!(display_float(1234567.0), "1234567");
        assert_eq!(display_float(0.5), "0.5");
        assert_eq!(display_float(0.000123456), "0.0001235");
        assert_eq!(display_float(-2.00004), "-2");
        assert_eq!(display_float(0.0), "0");
        assert_eq!(display_float(f64::NAN), "NaN");
        assert_eq!(display_float(f64::INFINITY), "inf");
    }

    #[test]
    fn tables_round_floats_and_align_numbers_right() {
        let schema = Schema::new(vec![
            Field::new("name", DataType::Utf8, true),
            Field::new("us", DataType::Float64, true),
        ]);
        let batch = RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(datafusion::arrow::array::StringArray::from(vec!["a", "b"])),
                Arc::new(datafusion::arrow::array::Float64Array::from(vec![
                    Some(29.74316796875),
                    Some(3.5),
                ])),
            ],
        )
        .expect("batch");
        let text = table(&["name".into(), "us".into()], &[batch], None, true)
            .expect("table")
            .to_string();
        assert!(text.contains("┆ 29.7432 │"), "{text}");
        assert!(text.contains("┆     3.5 │"), "{text}");
    }
}
