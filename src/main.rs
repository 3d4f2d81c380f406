//! The `tracesql` command line: parses arguments, calls the library, maps errors
//! to exit codes (2: bad input or usage, 1: query or output failure).

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tracesql::engine::{load_trace, Engine};
use tracesql::model::{table_doc, TABLES};
use tracesql::output::{write_batches, Format};
use tracesql::Error;

#[derive(Parser)]
#[command(
    name = "tracesql",
    version,
    about = "Query PyTorch profiler (Kineto) traces with SQL",
    after_help = "Example:\n  tracesql query fixtures/basic_linear.json -e \"SELECT name, dur FROM kernels ORDER BY dur DESC LIMIT 5\""
)]
struct Cli {
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
    /// Describe the tables and their columns.
    #[command(after_help = "Examples:\n  tracesql schema\n  tracesql schema kernels")]
    Schema {
        /// One table to describe; all tables when omitted.
        table: Option<String>,
    },
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
            let engine = load_all(&traces)?;
            query(&engine, &sql, format)
        }
        Command::Tables { traces } => {
            let engine = load_all(&traces)?;
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
    }
}

fn load_all(paths: &[String]) -> Result<Engine, Error> {
    if paths.iter().filter(|p| p.as_str() == "-").count() > 1 {
        return Err(Error::Usage(
            "standard input (-) can be given only once".into(),
        ));
    }
    let mut engine = Engine::new();
    for path in paths {
        let trace = load_trace(path)?;
        engine.add(trace).map_err(Error::query)?;
    }
    Ok(engine)
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
