//! Times the load of one trace, phase by phase, without the SQL engine:
//! `cargo run --release --example load -- TRACE [RUNS]`.
//!
//! Prints, per run, decompress+parse (`ingest::load`), linking (`tree::link`) and
//! table building (`model::build_tables`), and at the end the process's peak RSS.

use std::time::Instant;

use tracesql::{ingest, load, model, tree};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: load TRACE [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(1);
    for _ in 0..runs {
        let start = Instant::now();
        let raw = match ingest::load(&path) {
            Ok(raw) => raw,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        };
        let parsed = start.elapsed();
        let links = tree::link(&raw);
        let linked = start.elapsed();
        let events = raw.len();
        let tables = match model::build_tables(raw, links, &load::trace_name(&path)) {
            Ok((tables, _args_in_file)) => tables,
            Err(e) => {
                eprintln!("error: cannot build tables: {e}");
                std::process::exit(1);
            }
        };
        let built = start.elapsed();
        let rows: usize = tables.iter().map(|(_, b)| b.num_rows()).sum();
        println!(
            "{events} events, {rows} table rows: parse {:.3} s, link {:.3} s, tables {:.3} s, total {:.3} s",
            parsed.as_secs_f64(),
            (linked - parsed).as_secs_f64(),
            (built - linked).as_secs_f64(),
            built.as_secs_f64(),
        );
    }
    if let Ok(status) = std::fs::read_to_string("/proc/self/status") {
        if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM")) {
            println!("peak RSS: {}", line.trim_start_matches("VmHWM:").trim());
        }
    }
}
