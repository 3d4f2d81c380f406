//! The `tracesql` command line: parses arguments, calls the library, maps errors
//! to exit codes (2: bad input or usage, 1: query or output failure).

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use datafusion::arrow::record_batch::RecordBatch;
use tracesql::catalog::Catalog;
use tracesql::engine::{load_trace, Engine};
use tracesql::model::{table_doc, TABLES};
use tracesql::output::report_csv::{write_csv, write_markdown};
use tracesql::output::{write_batches, Format};
use tracesql::report::{run_reports, write_csv_dir, Sheet};
use tracesql::Error;

#[derive(Parser)]
#[command(
    name = "tracesql",
    version,
    about = "Query PyTorch profiler (Kineto) traces with SQL",
    after_help = "Example:\n  tracesql query fixtures/basic_linear.json -e \"SELECT name, dur FROM kernels ORDER BY dur DESC LIMIT 5\""
)]
struct Cli {
    /// Directory of extra .sql queries (reports, categories, views, rules); a file
    /// whose `-- name:` matches a shipped query replaces it.
    #[arg(long, global = true, value_name = "DIR")]
    queries: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run SQL over one or more traces.
    #[command(
        after_help = "Examples:\n  tracesql query trace.json.gz -e \"SELECT cat, count(*) FROM events GROUP BY cat\"\n  tracesql query a.json b.json.gz -f top_kernels.sql --format csv\n  cat trace.json | tracesql query - -e \"SELECT * FROM trace_meta\""
    )]
    Query {
        /// Trace files (.json, .json.gz, .zip with one trace inside) or - for stdin.
        #[arg(required = true)]
        traces: Vec<String>,
        /// SQL to run (several statements may be separated by ';').
        #[arg(short = 'e', long = "execute", conflicts_with = "file")]
        sql: Option<String>,
        /// A file of SQL to run.
        #[arg(short = 'f', long = "file")]
        file: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// List the tables of the loaded traces and their row counts.
    #[command(after_help = "Example:\n  tracesql tables trace.json.gz")]
    Tables {
        /// Trace files, or - for stdin.
        #[arg(required = true)]
        traces: Vec<String>,
    },
    /// Run the report queries: a terminal summary, or one CSV per report with --out.
    #[command(
        after_help = "Examples:\n  tracesql report trace.json.gz\n  tracesql report trace.json.gz --out perf_report_csvs\n  tracesql report trace.json.gz --only gpu_timeline,ops_summary --format md"
    )]
    Report {
        /// Trace files, or - for stdin. With several traces and --out, each trace
        /// gets its own subdirectory.
        #[arg(required = true)]
        traces: Vec<String>,
        /// Write DIR/<report>.csv for every report (each file written atomically).
        #[arg(long, value_name = "DIR")]
        out: Option<std::path::PathBuf>,
        /// Only these reports (comma-separated names).
        #[arg(long, value_delimiter = ',')]
        only: Option<Vec<String>>,
        /// Terminal format when printing reports (with --only or without --out).
        #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
        format: ReportFormat,
    },
    /// List the query catalog, or print one query's SQL.
    #[command(after_help = "Examples:\n  tracesql queries\n  tracesql queries show ops_summary")]
    Queries {
        #[command(subcommand)]
        action: Option<QueriesAction>,
    },
    /// Describe the tables and their columns.
    #[command(after_help = "Examples:\n  tracesql schema\n  tracesql schema kernels")]
    Schema {
        /// One table to describe; all tables when omitted.
        table: Option<String>,
    },
}

#[derive(Subcommand)]
enum QueriesAction {
    /// Print the SQL of one query.
    Show { name: String },
}

/// How `report` prints to the terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ReportFormat {
    Table,
    Csv,
    Md,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

fn run(cli: Cli) -> Result<(), Error> {
    let catalog = match &cli.queries {
        Some(dir) => Catalog::with_user_dir(dir),
        None => Catalog::builtin(),
    }
    .map_err(|e| Error::Usage(e.to_string()))?;
    match cli.command {
        Command::Query {
            traces,
            sql,
            file,
            format,
        } => {
            let sql = match (sql, file) {
                (Some(sql), _) => sql,
                (None, Some(path)) => std::fs::read_to_string(&path)
                    .map_err(|e| Error::Usage(format!("{path}: cannot read SQL file: {e}")))?,
                (None, None) => return Err(Error::Usage("give the SQL with -e or -f".into())),
            };
            let engine = load_all(&traces, &catalog)?;
            query(&engine, &sql, format)
        }
        Command::Tables { traces } => {
            let engine = load_all(&traces, &catalog)?;
            let rows: Vec<[String; 3]> = TABLES
                .iter()
                .map(|t| {
                    [
                        t.name.to_string(),
                        engine.row_count(t.name).to_string(),
                        t.doc.to_string(),
                    ]
                })
                .collect();
            print_rows(&["table", "rows", "description"], rows)
        }
        Command::Schema { table } => schema(table.as_deref()),
        Command::Report {
            traces,
            out,
            only,
            format,
        } => report(&traces, &catalog, out.as_deref(), only.as_deref(), format),
        Command::Queries { action: None } => list_queries(&catalog),
        Command::Queries {
            action: Some(QueriesAction::Show { name }),
        } => {
            let query = catalog.get(&name).ok_or_else(|| {
                Error::Usage(format!("unknown query '{name}' (see `tracesql queries`)"))
            })?;
            print!("{}", query.sql);
            Ok(())
        }
    }
}

fn load_all(paths: &[String], catalog: &Catalog) -> Result<Engine, Error> {
    if paths.iter().filter(|p| p.as_str() == "-").count() > 1 {
        return Err(Error::Usage(
            "standard input (-) can be given only once".into(),
        ));
    }
    let mut engine = Engine::with_catalog(catalog.clone());
    for path in paths {
        let trace = load_trace(path)?;
        engine.add(trace).map_err(Error::query)?;
    }
    runtime()?
        .block_on(engine.register_views())
        .map_err(Error::query)?;
    Ok(engine)
}

fn report(
    traces: &[String],
    catalog: &Catalog,
    out: Option<&std::path::Path>,
    only: Option<&[String]>,
    format: ReportFormat,
) -> Result<(), Error> {
    let rt = runtime()?;
    for path in traces {
        // Reports are per trace: each trace gets a session of its own.
        let engine = load_all(std::slice::from_ref(path), catalog)?;
        let name = engine.trace_names().first().cloned().unwrap_or_default();
        let summary: Vec<String> = ["gpu_timeline", "ops_summary"]
            .iter()
            .filter(|n| catalog.get(n).is_some())
            .map(|n| n.to_string())
            .collect();
        let selection = match (out, only) {
            (None, None) => Some(summary.as_slice()),
            _ => only,
        };
        let sheets = rt.block_on(run_reports(&engine, selection))?;
        match out {
            Some(dir) => {
                let dir = if traces.len() > 1 {
                    dir.join(&name)
                } else {
                    dir.to_path_buf()
                };
                write_csv_dir(&dir, &sheets)?;
                eprintln!(
                    "{name}: wrote {} reports to {}",
                    sheets.len(),
                    dir.display()
                );
            }
            None => print_sheets(&name, &sheets, format, only.is_none())?,
        }
    }
    Ok(())
}

/// Prints sheets to stdout; `top_only` keeps the first rows of long sheets.
fn print_sheets(
    trace: &str,
    sheets: &[Sheet],
    format: ReportFormat,
    top_only: bool,
) -> Result<(), Error> {
    const TOP_ROWS: usize = 10;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let io = |e: std::io::Error| Error::Output(e.to_string());
    for sheet in sheets {
        let batches = if top_only {
            head(&sheet.batches, TOP_ROWS)
        } else {
            sheet.batches.clone()
        };
        let shown: usize = batches.iter().map(|b| b.num_rows()).sum();
        writeln!(out, "== {trace}: {} ({} rows)", sheet.sheet, sheet.rows()).map_err(io)?;
        match format {
            ReportFormat::Table => write_batches(&mut out, &batches, Format::Table)
                .map_err(|e| Error::Output(e.to_string()))?,
            ReportFormat::Csv => write_csv(&mut out, &sheet.header, &batches).map_err(io)?,
            ReportFormat::Md => write_markdown(&mut out, &sheet.header, &batches).map_err(io)?,
        }
        if shown < sheet.rows() {
            let more = sheet.rows() - shown;
            writeln!(
                out,
                "... {more} more rows (use --out DIR for the full report)"
            )
            .map_err(io)?;
        }
        writeln!(out).map_err(io)?;
    }
    Ok(())
}

/// The first `n` rows of `batches`.
fn head(batches: &[RecordBatch], n: usize) -> Vec<RecordBatch> {
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

fn list_queries(catalog: &Catalog) -> Result<(), Error> {
    let rows: Vec<[String; 4]> = catalog
        .iter()
        .map(|q| {
            [
                q.name.clone(),
                q.kind.as_str().to_string(),
                q.version.to_string(),
                q.description.clone(),
            ]
        })
        .collect();
    print_rows(&["name", "kind", "version", "description"], rows)
}

fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Output(format!("cannot start the query runtime: {e}")))
}

fn query(engine: &Engine, sql: &str, format: Format) -> Result<(), Error> {
    let results = runtime()?
        .block_on(engine.run_sql(sql))
        .map_err(Error::query)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for batches in &results {
        write_batches(&mut out, batches, format).map_err(|e| Error::Output(e.to_string()))?;
    }
    out.flush().map_err(|e| Error::Output(e.to_string()))
}

fn schema(table: Option<&str>) -> Result<(), Error> {
    let docs = match table {
        Some(name) => vec![table_doc(name).ok_or_else(|| {
            let known: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
            Error::Usage(format!(
                "unknown table '{name}'; tables are: {}",
                known.join(", ")
            ))
        })?],
        None => TABLES.to_vec(),
    };
    let mut out = String::new();
    for doc in docs {
        out.push_str(&format!("{}: {}\n", doc.name, doc.doc));
        for c in doc.columns {
            out.push_str(&format!(
                "  {:<22} {:<14} {}\n",
                c.name,
                c.ty.data_type().to_string(),
                c.doc
            ));
        }
        out.push('\n');
    }
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| Error::Output(e.to_string()))
}

fn print_rows<const N: usize>(header: &[&str; N], rows: Vec<[String; N]>) -> Result<(), Error> {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(header.to_vec());
    for row in rows {
        table.add_row(row.to_vec());
    }
    println!("{table}");
    Ok(())
}
