//! The `tracesql` command line: parses arguments, calls the library, maps errors
//! to exit codes (2: bad input or usage, 1: query or output failure).

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tracesql::catalog::Catalog;
use tracesql::engine::session_catalog::{
    columns_batch, documented_columns, model_tables_listing, noted_columns, queries_batch,
};
use tracesql::engine::{Engine, SessionOptions};
use tracesql::export::append::{append_parquet, AppendOptions};
use tracesql::export::{export_parquet, stored_reports, ExportOptions};
use tracesql::load::reopen::is_directory;
use tracesql::load::{load_described, load_input, load_inputs, LoadedTrace, TraceInfo};
use tracesql::output::terminal::{
    print_batches, print_listing, write_rows, PrintFormat, PrintOptions,
};
use tracesql::report::{write_csv_dir, write_xlsx, Sheet};
use tracesql::Error;

#[derive(Parser)]
#[command(
    name = "tracesql",
    version,
    about = "Query PyTorch profiler (Kineto) traces with SQL",
    after_help = "Example:\n  tracesql query fixtures/basic_linear.json -e \"SELECT name, dur FROM kernels ORDER BY dur DESC LIMIT 5\"",
    arg_required_else_help = true
)]
struct Cli {
    /// Directory of extra .sql queries (reports, categories, views, rules); a file
    /// whose `-- name:` matches a shipped query replaces it.
    #[arg(long, global = true, value_name = "DIR")]
    queries: Option<std::path::PathBuf>,
    /// GPU platform for roofline columns (MI300X, H100, ...; see `SELECT * FROM
    /// platforms`); `none` for no platform (no roofline columns, no detection).
    /// Default: the GPU the trace's deviceProperties names, if known.
    #[arg(long, global = true, value_name = "NAME")]
    platform: Option<String>,
    /// CSV or TOML file of platforms to add or override (columns: name,
    /// memory_tb_s, matrix_bf16, vector_fp32, ..., intra_node_gb_s, inter_node_gb_s,
    /// source).
    #[arg(long, global = true, value_name = "FILE")]
    platforms: Option<std::path::PathBuf>,
    /// Reproduce TraceLens's numbers exactly: turn its behaviour back on wherever
    /// tracesql deliberately differs (GPU work linked by flow events only, its
    /// perf-model counting bugs, its empty-sheet files; see
    /// tests/conformance/DIFFERENCES.md). Queries read it as `tracelens_compat()`.
    #[arg(long, global = true)]
    tracelens_compat: bool,
    /// Read every input as this format instead of telling it from the
    /// content: kineto (PyTorch profiler JSON), rocprofv3 (rocprofv3 JSON),
    /// pftrace (Perfetto-style JSON, e.g. a rocprofv3 .pftrace through traceconv)
    /// or jax (JAX XPlane protobuf).
    #[arg(long, global = true, value_name = "FORMAT", value_parser = parse_format)]
    format_hint: Option<tracesql::ingest::SourceFormat>,
    /// A report option or parameter, NAME=VALUE (repeatable; --param is the
    /// same): what TraceLens's reports take as options, e.g.
    /// pftrace.include_nonlaunch_apis=true, and HTA's parameters, e.g.
    /// hta.compat=true. Queries read them as setting('NAME', default); a name
    /// no query reads is an error that lists the known ones. The prefix may be
    /// left out where the rest is unambiguous (instance=1 is hta.instance=1).
    #[arg(
        long = "set",
        visible_alias = "param",
        global = true,
        value_name = "NAME=VALUE",
        value_parser = parse_setting
    )]
    settings: Vec<(String, String)>,
    /// Run `query`, `report` and `analyze` over an export directory (a dataset) on the
    /// Ballista cluster whose scheduler is at df://HOST:PORT (see `tracesql
    /// cluster`); needs a tracesql built with `--features cluster`.
    #[arg(long, global = true, value_name = "df://HOST:PORT")]
    cluster: Option<String>,
    /// With --cluster: give up, with an error, when the command has not finished
    /// after this many seconds (a job whose executor died can wait forever).
    #[arg(
        long,
        global = true,
        value_name = "SECS",
        default_value_t = 3600,
        requires = "cluster"
    )]
    cluster_timeout: u64,
    /// Mutual TLS for --cluster and `tracesql cluster scheduler|executor`: DIR holds
    /// ca.pem, node.pem and node.key (`tracesql cluster certs` writes them); every
    /// connection is TLS and every peer must present a certificate from that CA.
    #[arg(long, global = true, value_name = "DIR")]
    tls: Option<String>,
    #[command(subcommand)]
    command: Option<Command>,
    /// Trace files to open in the REPL (`tracesql TRACE...` is `tracesql repl TRACE...`).
    traces: Vec<String>,
}

/// The servers of a cluster.
#[derive(Subcommand)]
enum ClusterRole {
    /// The scheduler: plans each query into stages and hands tasks to executors.
    Scheduler {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        #[arg(long, default_value_t = 50050)]
        port: u16,
        /// The host name executors and clients reach this scheduler at
        /// [default: the --bind address].
        #[arg(long, value_name = "HOST")]
        advertise: Option<String>,
        /// Allow a --bind address other than loopback (only peers with --tls
        /// certificates are let in when --tls is given; without it, anyone).
        #[arg(long)]
        expose: bool,
        /// Seconds an executor may miss heartbeats before its tasks run elsewhere.
        #[arg(long, value_name = "SECS", default_value_t = 30)]
        executor_timeout: u64,
        /// Stop after this many seconds (for tests and batch jobs).
        #[arg(long, value_name = "SECS")]
        max_lifetime: Option<u64>,
    },
    /// An executor: runs tasks, reading the dataset's files itself.
    Executor {
        /// The scheduler to serve.
        #[arg(
            long,
            value_name = "df://HOST:PORT",
            default_value = "df://127.0.0.1:50050"
        )]
        scheduler: String,
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        /// Arrow Flight port (results and shuffle data).
        #[arg(long, default_value_t = 50051)]
        port: u16,
        /// gRPC port (tasks from the scheduler).
        #[arg(long, default_value_t = 50052)]
        grpc_port: u16,
        /// The host name the scheduler and clients reach this executor at
        /// [default: the --bind address].
        #[arg(long, value_name = "HOST")]
        advertise: Option<String>,
        /// Tasks run at once [default: the cores].
        #[arg(long, value_name = "N")]
        slots: Option<usize>,
        /// Where shuffle files go [default: a temporary directory].
        #[arg(long, value_name = "DIR")]
        work_dir: Option<String>,
        /// Allow a --bind address other than loopback (only peers with --tls
        /// certificates are let in when --tls is given; without it, anyone).
        #[arg(long)]
        expose: bool,
        /// Stop after this many seconds (for tests and batch jobs).
        #[arg(long, value_name = "SECS")]
        max_lifetime: Option<u64>,
    },
    /// Writes a cluster's certificates for --tls: a new CA (ca.pem, ca.key) and
    /// one node certificate (node.pem, node.key) for the hosts named. Copy DIR
    /// without ca.key to every node and client.
    Certs {
        /// Directory to write into (created; existing certificates are kept).
        #[arg(long, value_name = "DIR")]
        out: String,
        /// A host name or IP address nodes are reached at (repeatable);
        /// localhost and 127.0.0.1 are always included.
        #[arg(long = "host", value_name = "HOST")]
        hosts: Vec<String>,
        /// Days the certificates stay valid.
        #[arg(long, default_value_t = 365)]
        days: u32,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Run SQL over one or more traces.
    #[command(
        after_help = "Examples:\n  tracesql query trace.json.gz -e \"SELECT cat, count(*) FROM events GROUP BY cat\"\n  tracesql query a.json b.json.gz -f top_kernels.sql --format csv\n  cat trace.json | tracesql query - -e \"SELECT * FROM trace_meta\""
    )]
    Query {
        /// Trace files (.json, .json.gz, .zip with one trace inside), directories
        /// written by `tracesql export --parquet` (read without parsing JSON), or - for stdin.
        /// A single export directory is read in place: only the files of the traces
        /// and ranks the query's filters leave, only the columns it uses.
        #[arg(required = true)]
        traces: Vec<String>,
        /// SQL to run (several statements may be separated by ';').
        #[arg(short = 'e', long = "execute", conflicts_with = "file")]
        sql: Option<String>,
        /// A file of SQL to run.
        #[arg(short = 'f', long = "file")]
        file: Option<String>,
        /// Output format: a table for reading (floats rounded, fitted to the
        /// terminal), or csv / json / md at full precision.
        #[arg(long, value_enum, default_value_t = PrintFormat::Table)]
        format: PrintFormat,
        /// Read an export directory into memory instead of in place (for the
        /// call-tree functions call_stack, ancestors, descendants, kernels_of).
        #[arg(long)]
        load: bool,
    },
    /// List the tables of the loaded traces and their row counts.
    #[command(after_help = "Example:\n  tracesql tables trace.json.gz")]
    Tables {
        /// Trace files or export directories, or - for stdin.
        #[arg(required = true)]
        traces: Vec<String>,
    },
    /// Run the report queries: a terminal summary, or one CSV per report with --out.
    #[command(
        after_help = "Examples:\n  tracesql report trace.json.gz\n  tracesql report trace.json.gz --out perf_report_csvs\n  tracesql report trace.json.gz --xlsx perf_report.xlsx\n  tracesql report trace_export --out perf_report_csvs   (an export directory, no JSON parse)\n  tracesql report trace.json.gz --only gpu_timeline,ops_summary --format md"
    )]
    Report {
        /// Trace files or export directories, or - for stdin. With several traces
        /// and --out, each trace gets its own subdirectory.
        #[arg(required = true)]
        traces: Vec<String>,
        /// Write DIR/<report>.csv for every report (each file written atomically).
        #[arg(long, value_name = "DIR")]
        out: Option<std::path::PathBuf>,
        /// Write an Excel workbook: an `about` sheet, then one sheet per report under
        /// TraceLens's sheet names. With several traces: FILE_<trace>.xlsx each.
        #[arg(long, value_name = "FILE")]
        xlsx: Option<std::path::PathBuf>,
        /// Only these reports (comma-separated names).
        #[arg(long, value_delimiter = ',')]
        only: Option<Vec<String>>,
        /// Terminal format when printing reports (with --only or without --out).
        #[arg(long, value_enum, default_value_t = PrintFormat::Table)]
        format: PrintFormat,
        /// With an export directory: run the reports over its tables even when the
        /// reports it stores are current (by default those are reused when they
        /// were made by this tracesql with the same queries and platform).
        #[arg(long)]
        recompute: bool,
    },
    /// Run the analyzer's rules and write a prioritized standalone analysis: the
    /// recommendations on the terminal, or the full report with --out.
    #[command(
        after_help = "Rules are the catalog's `-- kind: rule` queries (see `tracesql queries`); drop more\nrule files into --queries DIR and they run and rank like the shipped ones.\n\nWith --out DIR: standalone_analysis.md, findings.csv, findings.json and\ncategory_manifest.json, written all or none; with several traces, one\nsubdirectory per trace.\n\nExamples:\n  tracesql analyze trace.json.gz --platform H100\n  tracesql analyze trace.json.gz --platform MI300X --out analysis\n  tracesql analyze trace.json.gz --queries my_rules/ --out analysis"
    )]
    Analyze {
        /// Trace files or export directories, or - for stdin.
        #[arg(required = true)]
        traces: Vec<String>,
        /// Write the report files to DIR.
        #[arg(long, value_name = "DIR")]
        out: Option<std::path::PathBuf>,
        /// Comparative mode: compare the traces (the target, on --platform) with this
        /// reference (comma-separated for repeated runs) and write
        /// comparative_analysis.md, comparison_findings.csv and .json.
        #[arg(long, value_name = "REF")]
        reference: Option<String>,
        /// The reference's platform (default: detected from its trace).
        #[arg(long, value_name = "NAME", requires = "reference")]
        reference_platform: Option<String>,
        /// Also write DIR/replay_packages/: a replay package for each
        /// recommendation about an op group with a Path B (kernel) action,
        /// linked from it in the report (see `tracesql replay`).
        #[arg(long, requires = "out", conflicts_with = "reference")]
        replay: bool,
        /// Also write the report as one self-contained HTML file (charts:
        /// GPU timeline, roofline, top ops; the recommendations); with several
        /// traces, FILE_<trace>.html.
        #[arg(long, value_name = "FILE", conflicts_with = "reference")]
        html: Option<std::path::PathBuf>,
    },
    /// Replay packages: a traced op's call rebuilt from its recorded shapes,
    /// strides, dtypes and scalars (the replay IR), with a standalone script that
    /// times it (no torch needed here; the script needs torch).
    #[command(
        group(clap::ArgGroup::new("which").required(true).args(["uid", "op", "findings", "all"])),
        after_help = "Writes to DIR: replay_ir.json (every selected signature), replay.py (runs them all),\nREADME.md, and replay_packages/<op>__<hash>.zip per signature plus\nreplay_packages/<op>_replay_package.zip per op name (IR, script, README, MANIFEST.json).\nWith --tracelens-compat also event_replay_ir.json, TraceLens's IR list exactly.\n\nThe same IRs in SQL: replay_ir, replay_args, replay_coverage (tracesql schema replay_ir).\n\nExamples:\n  tracesql replay trace.json.gz --uid 30 --out replay\n  tracesql replay trace.json.gz --op aten::addmm --out replay\n  tracesql replay trace.json.gz --findings analysis/ --out analysis\n  cd replay && python3 replay.py --dry-run"
    )]
    Replay {
        /// Trace file or export directory, or - for stdin.
        trace: String,
        /// The op call with this uid (ops.uid, TraceLens's ex_UID) and every call
        /// with its signature.
        #[arg(long, value_name = "N")]
        uid: Option<i64>,
        /// Every distinct signature of this op (exact name, e.g. aten::addmm).
        #[arg(long, value_name = "NAME")]
        op: Option<String>,
        /// With --op: only the signature of this call.
        #[arg(long, value_name = "UID", requires = "op")]
        shape_of: Option<i64>,
        /// The op groups of an analysis (`tracesql analyze --out DIR`) above
        /// --min-share and below --max-efficiency.
        #[arg(long, value_name = "DIR")]
        findings: Option<std::path::PathBuf>,
        /// Every op signature that launched GPU work, largest GPU time first.
        #[arg(long)]
        all: bool,
        /// With --findings: least share of the ops' kernel time, %.
        #[arg(long, value_name = "PCT", default_value_t = 10.0)]
        min_share: f64,
        /// With --findings: highest roofline efficiency, %.
        #[arg(long, value_name = "PCT", default_value_t = 30.0)]
        max_efficiency: f64,
        /// Output directory.
        #[arg(long, value_name = "DIR", required = true)]
        out: std::path::PathBuf,
        /// The script's default device.
        #[arg(long, value_parser = ["cuda", "cpu", "meta"])]
        device: Option<String>,
        /// The script's default number of timed calls.
        #[arg(long, value_name = "N")]
        iters: Option<u32>,
    },
    /// Write every table and every report as a Parquet dataset for BI tools
    /// (DuckDB, pyarrow, Spark); tracesql reopens it in place of the trace.
    #[command(
        after_help = "Layout: DIR/tables/<table>/part-0.parquet and DIR/reports/<query>/part-0.parquet;\nwith several traces, Hive partitions DIR/tables/<table>/trace=<name>/part-0.parquet;\nwith --append, DIR/tables/<table>/run=<run>/rank=<rank>/trace=<name>/part-0.parquet (each level\nwhen known), added to what DIR holds.\nEach file carries tracesql/schema/query versions, the source file and its SHA-256 and\nthe device and platform as key-value metadata; DIR/tracesql-export.json lists the contents.\n\nRedaction: trace metadata often records the environment (API tokens and the like).\nValues whose key contains TOKEN, SECRET, KEY, PASSWORD, PASSWD, PASSPHRASE,\nCREDENTIAL, AUTH, PRIVATE or COOKIE (any case, at any depth, and NAME=value strings)\nare exported as \"<redacted>\" unless --no-redact is given.\n\nExamples:\n  tracesql export trace.json.gz --parquet trace_export\n  tracesql export rank*.json.gz --parquet run42\n  tracesql export --append --run run43 run43/rank*.json.gz --parquet fleet\n  tracesql export trace.json.gz --critical-path trace_critical_path.json --param hta.instance=1\n  tracesql report trace_export --out perf_report_csvs"
    )]
    Export {
        /// Trace files (or export directories), or - for stdin.
        #[arg(required = true)]
        traces: Vec<String>,
        /// The export directory; a previous export there is replaced only once the
        /// new one is complete.
        #[arg(long, value_name = "DIR", required_unless_present_any = ["counters", "critical_path"])]
        parquet: Option<std::path::PathBuf>,
        /// Write the trace back to OUT (.json, or .json.gz compressed) with
        /// HTA's counter tracks added: queue length per stream and memcpy /
        /// memset bandwidth (the query hta_trace_counters); Perfetto UI and
        /// chrome://tracing draw them under the GPU. One trace at a time.
        #[arg(long, value_name = "OUT", conflicts_with = "append")]
        counters: Option<std::path::PathBuf>,
        /// Write the trace (one trace file) with HTA's critical path overlaid to
        /// FILE (gzip if it ends in .gz): the path's events marked args.critical,
        /// its dependencies as flow arrows, other operators and kernels left out.
        /// The instance is --param hta.annotation=NAME / hta.instance=N (default
        /// the first ProfilerStep); see the critical_path report.
        #[arg(long, value_name = "FILE", conflicts_with = "append")]
        critical_path: Option<std::path::PathBuf>,
        /// Keep secret-looking values in the trace metadata (see below).
        #[arg(long)]
        no_redact: bool,
        /// Add the traces to the dataset at DIR (created if missing) as new
        /// partitions, run=/rank=/trace= where known, instead of replacing it;
        /// traces already there (same file SHA-256) are skipped.
        #[arg(long)]
        append: bool,
        /// With --append: the run the traces belong to (their run= partition).
        #[arg(long, value_name = "NAME", requires = "append")]
        run: Option<String>,
        /// With --append: traces loaded and exported at once [default: the cores].
        #[arg(long, value_name = "N", requires = "append", value_parser = clap::value_parser!(u16).range(1..))]
        jobs: Option<u16>,
        /// With --append: the memory the traces loading at once may use, estimated
        /// from their file sizes (e.g. 8G) [default: half the machine's memory].
        #[arg(long, value_name = "SIZE", requires = "append", value_parser = tracesql::export::append::parse_size)]
        memory_budget: Option<u64>,
    },
    /// List the query catalog, or print one query's SQL.
    #[command(after_help = "Examples:\n  tracesql queries\n  tracesql queries show ops_summary")]
    Queries {
        #[command(subcommand)]
        action: Option<QueriesAction>,
    },
    /// Interactive SQL over the traces: meta-commands (.help), completion, history;
    /// with standard input piped, runs its statements and exits 1 if one failed.
    #[command(
        after_help = "Examples:\n  tracesql repl trace.json.gz\n  tracesql trace.json.gz\n  echo \"SELECT count(*) FROM kernels;\" | tracesql repl trace.json.gz"
    )]
    Repl {
        /// Trace files (.json, .json.gz, .zip) or export directories; .load adds more.
        traces: Vec<String>,
    },
    /// The traces of all ranks of a distributed run: collective instances matched
    /// across ranks, skew, bandwidth, stragglers (TraceLens's multi-rank collective
    /// report).
    #[command(
        after_help = "TRACES are the ranks' trace files, directories of them, or patterns (rank*.json.gz).\nA trace's rank is its distributedInfo.rank, else the number --rank-regex finds in its\nfile name, else its position. The sheets are the catalog's `-- kind: collective`\nqueries (see `tracesql queries`); with -e, your own SQL over the session (views\ncollective_instances, straggler_ranking, rank_clock_offsets, ...).\n\nWith --tracelens-compat the sheets are TraceLens's: instances matched by order,\nraw clocks (see tests/conformance/DIFFERENCES.md).\n\nExamples:\n  tracesql collectives run/ --out coll\n  tracesql collectives 'run/rank*_trace.json.gz' --world-size 8 --gpus-per-node 8 --out coll\n  tracesql collectives run/ -e \"SELECT * FROM straggler_ranking\""
    )]
    Collectives {
        /// Rank traces: files, directories, or patterns with * and ?.
        #[arg(required = true)]
        traces: Vec<String>,
        /// World size of the run (default: distributedInfo.world_size, else the
        /// number of traces).
        #[arg(long, value_name = "N")]
        world_size: Option<i64>,
        /// Regex finding the rank in a file name, for traces without
        /// distributedInfo.rank: the group named `rank`, else group 1.
        #[arg(long, value_name = "REGEX")]
        rank_regex: Option<String>,
        /// GPUs per node (default: rank 0's number of deviceProperties).
        #[arg(long, value_name = "G")]
        gpus_per_node: Option<i64>,
        /// Write DIR/<sheet>.csv for every sheet (all or none).
        #[arg(long, value_name = "DIR")]
        out: Option<std::path::PathBuf>,
        /// Write an Excel workbook: an `about` sheet (the run's files), then one
        /// sheet per collective sheet.
        #[arg(long, value_name = "FILE")]
        xlsx: Option<std::path::PathBuf>,
        /// Only these sheets (comma-separated).
        #[arg(long, value_delimiter = ',')]
        only: Option<Vec<String>>,
        /// Also run the multi-rank analyzer rules (`-- scope: run`): straggler,
        /// skew share, bus bandwidth against the platform's link peak, exposed
        /// communication per rank. Printed, or DIR/analysis/ with --out.
        #[arg(long)]
        analyze: bool,
        /// Also write one self-contained HTML file: GPU time per rank, the
        /// rank × collective wait heatmap, the straggler table (and the run's
        /// analysis with --analyze).
        #[arg(long, value_name = "FILE", conflicts_with = "execute")]
        html: Option<std::path::PathBuf>,
        /// Run this SQL over the run's session instead of writing sheets.
        #[arg(
            short = 'e',
            long = "execute",
            value_name = "SQL",
            conflicts_with = "out"
        )]
        execute: Option<String>,
        /// Terminal format.
        #[arg(long, value_enum, default_value_t = PrintFormat::Table)]
        format: PrintFormat,
    },
    /// Compare two traces (or two sets of repeated runs): the GPU timeline side by
    /// side, the ops that changed most, and with --out the comparison sheets.
    #[command(
        after_help = "BASE and TARGET are each a trace, an export directory, a TraceLens report folder\n(<trace>_perf_report_csvs), or several of them comma-separated (repeated runs: each\nside is its mean run, or its time per profiler step when the sides profiled\ndifferent numbers of steps). Deltas are target - base.\n\nThe comparison is SQL: the views of `tracesql queries` of kind `comparison` over\nthe tables report_<sheet> (both sides' report rows, columns `side` and `run` first)\nand compare_runs; -e runs your own query over them.\n\nGates for CI: --fail-if runs SELECT * FROM comparison WHERE (PREDICATE); any\nmatching row prints, the JSON verdict is written (--verdict, or DIR/verdict.json\nwith --out) and the exit code is 3.\n\nWith --tracelens-compat and --out, DIR/compare_perf_reports/ holds the CSV files of\nTraceLens's compare_perf_reports_pytorch for the --sheets groups, and (a trace on\neach side) DIR/tracediff/ the files of its TraceDiff.\n\nExamples:\n  tracesql compare h100.json.gz mi300.json.gz --names h100 mi300\n  tracesql compare before.json.gz after.json.gz --out cmp\n  tracesql compare a1.json.gz,a2.json.gz b1.json.gz,b2.json.gz\n  tracesql compare main.json.gz pr.json.gz --fail-if \"level = 'op' AND category = 'GEMM' AND delta_pct > 5 AND delta_us > 50\"\n  tracesql compare a.json.gz b.json.gz -e \"SELECT * FROM compare_kernel_summary WHERE status = 'both'\"\n  tracesql --tracelens-compat compare a.json.gz b.json.gz --names a b --out cmp"
    )]
    Compare {
        /// The base side: one input, or several comma-separated.
        base: String,
        /// The target side, compared with the base.
        target: String,
        /// Labels of the two sides (TraceLens's tags; default each side's first trace name).
        #[arg(long, num_args = 2, value_names = ["BASE", "TARGET"])]
        names: Option<Vec<String>>,
        /// Write the comparison sheets as DIR/<sheet>.csv (and TraceLens's files
        /// under DIR/compare_perf_reports/ with --tracelens-compat).
        #[arg(long, value_name = "DIR")]
        out: Option<std::path::PathBuf>,
        /// Write the comparison sheets to an Excel workbook.
        #[arg(long, value_name = "FILE")]
        xlsx: Option<std::path::PathBuf>,
        /// Sheet groups to write: gpu_timeline, ops_summary, kernel_summary, ops_all,
        /// roofline, tracediff, all (TraceLens's names; under --tracelens-compat they
        /// choose its compare_perf_reports files too).
        #[arg(long, num_args = 1.., default_values_t = vec!["all".to_string()])]
        sheets: Vec<String>,
        /// Platform of the base side (default: --platform, or detected).
        #[arg(long, value_name = "NAME")]
        base_platform: Option<String>,
        /// Platform of the target side (default: --platform, or detected).
        #[arg(long, value_name = "NAME")]
        target_platform: Option<String>,
        /// Fail (exit 3) when SELECT * FROM comparison WHERE (PREDICATE) has rows.
        #[arg(long, value_name = "PREDICATE")]
        fail_if: Option<String>,
        /// Where the gate's JSON verdict goes (default DIR/verdict.json with --out).
        #[arg(long, value_name = "FILE", requires = "fail_if")]
        verdict: Option<std::path::PathBuf>,
        /// Run this SQL over the comparison instead of printing the summary.
        #[arg(short = 'e', long = "execute", conflicts_with = "repl")]
        sql: Option<String>,
        /// Open the REPL over the comparison (its views and report_<sheet> tables).
        #[arg(long)]
        repl: bool,
        /// Also write the comparison as one self-contained HTML file: both GPU
        /// timelines, the waterfall of where the difference went, the ops that
        /// changed most, a roofline per side.
        #[arg(long, value_name = "FILE")]
        html: Option<std::path::PathBuf>,
        /// Terminal format.
        #[arg(long, value_enum, default_value_t = PrintFormat::Table)]
        format: PrintFormat,
    },
    /// Describe the tables and their columns.
    #[command(after_help = "Examples:\n  tracesql schema\n  tracesql schema kernels")]
    Schema {
        /// One table to describe; all tables when omitted.
        table: Option<String>,
    },
    /// Serve the Model Context Protocol on stdin/stdout: tracesql as the trace
    /// engine of an AI agent (Claude Code, Cursor, Codex, ...).
    /// Run a Ballista scheduler or executor that knows tracesql's functions, for
    /// `--cluster` (a tracesql built with `--features cluster`).
    #[command(
        after_help = "Both listen on 127.0.0.1 unless --bind and --expose say otherwise. Ballista has no\nauthentication of its own: beyond one machine give every server and client --tls DIR\n(mutual TLS; `tracesql cluster certs` writes DIR), or keep the cluster on a private\nnetwork. Every node reads a dataset at the path the client gives: put it on storage\nall nodes mount.\n\nExamples:\n  tracesql cluster certs --out tls --host node1 --host node2\n  tracesql --tls tls cluster scheduler --port 50050\n  tracesql --tls tls cluster executor --scheduler df://127.0.0.1:50050 --port 50051 --grpc-port 50052\n  tracesql --tls tls --cluster df://127.0.0.1:50050 report fleet_dataset --out reports"
    )]
    Cluster {
        #[command(subcommand)]
        role: ClusterRole,
    },
    #[command(
        after_help = "Tools: open_trace, list_traces, list_tables, describe_table, sql, report, analyze,\ncompare, call_stack, kernels_of, collectives. Resources: the schema and each catalog\nquery's SQL. Prompts: standalone_analysis, comparative_analysis.\n\nSafe by default: SQL is one read-only statement (SELECT, WITH, EXPLAIN, SHOW) and\ncannot name files; traces are opened only under --root (symlinks resolved); each call\nhas a time limit and user SQL a memory bound; a failing call is a tool error.\n\nAn agent's configuration (e.g. .mcp.json):\n  {\"mcpServers\": {\"tracesql\": {\"command\": \"tracesql\", \"args\": [\"mcp\", \"--root\", \"/data/traces\"]}}}\n\nExamples:\n  tracesql mcp --root ~/traces\n  tracesql mcp --root . trace.json.gz --platform H100"
    )]
    Mcp {
        /// The directory the server may read traces from (default: the working directory).
        #[arg(long, default_value = ".")]
        root: std::path::PathBuf,
        /// Seconds one tool call may run before it is stopped.
        #[arg(long, default_value_t = 120)]
        call_timeout: u64,
        /// Memory (MiB) the sorts, joins and aggregations of one SQL call may hold.
        #[arg(long, default_value_t = 4096)]
        memory_limit_mb: usize,
        /// Rows of a table an answer shows unless the call asks for another limit.
        #[arg(long, default_value_t = 50)]
        rows: usize,
        /// Bytes (KiB) of one answer at most.
        #[arg(long, default_value_t = 48)]
        max_answer_kib: usize,
        /// Traces to open before serving (under --root).
        traces: Vec<String>,
    },
}

#[derive(Subcommand)]
enum QueriesAction {
    /// Print the SQL of one query.
    Show { name: String },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let timing = tracesql::timing::Phase::start("run");
    let outcome = run(cli);
    drop(timing);
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// One `--set NAME=VALUE`.
fn parse_setting(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.to_string()))
        }
        _ => Err(format!("expected NAME=VALUE, got '{text}'")),
    }
}

/// `--format-hint`'s value.
fn parse_format(name: &str) -> Result<tracesql::ingest::SourceFormat, String> {
    tracesql::ingest::SourceFormat::parse(name).ok_or_else(|| {
        let known: Vec<&str> = (tracesql::ingest::SourceFormat::ALL.iter())
            .map(|f| f.as_str())
            .collect();
        format!("unknown format '{name}' (known: {})", known.join(", "))
    })
}

fn run(cli: Cli) -> Result<(), Error> {
    if let Some(format) = cli.format_hint {
        tracesql::ingest::format::set_hint(format);
    }
    let catalog = match &cli.queries {
        Some(dir) => Catalog::with_user_dir(dir),
        None => Catalog::builtin(),
    }
    .map_err(|e| Error::Usage(e.to_string()))?;
    catalog
        .resolve_settings(cli.settings.iter().cloned())
        .map_err(Error::Usage)?;
    read_session_options(&cli)?;
    let command = cli.command.unwrap_or(Command::Repl { traces: cli.traces });
    match command {
        Command::Repl { traces } => {
            if !tracesql::repl::run(&traces, catalog, &apply_session_options)? {
                // Each failed statement has printed its error already.
                std::process::exit(1);
            }
            Ok(())
        }
        Command::Query {
            traces,
            sql,
            file,
            format,
            load,
        } => {
            let (sql, sql_file) = match (sql, file) {
                (Some(sql), _) => (sql, None),
                (None, Some(path)) => (
                    std::fs::read_to_string(&path)
                        .map_err(|e| Error::Usage(format!("{path}: cannot read SQL file: {e}")))?,
                    Some(path),
                ),
                (None, None) => return Err(Error::Usage("give the SQL with -e or -f".into())),
            };
            let engine = match (traces.as_slice(), cluster_url()) {
                (_, Some(url)) => cluster_engine(url, &cluster_dataset(&traces)?, None, &catalog)?,
                ([dir], None) if !load && tracesql::dataset::is_dataset(dir) => runtime()?
                    .block_on(Engine::over_dataset(&catalog, &apply_session_options, dir))?,
                _ => load_all(&traces, &catalog)?,
            };
            // A failing SQL file is named in the error, as bad input files are.
            query(&engine, &sql, format).map_err(|e| match (e, sql_file) {
                (Error::Query(msg), Some(path)) => Error::Query(format!("{path}: {msg}")),
                (e, _) => e,
            })
        }
        Command::Tables { traces } => {
            // A dataset's manifest has the counts: no file is read.
            if let [dir] = traces.as_slice() {
                if tracesql::dataset::is_dataset(dir) {
                    let dataset = tracesql::dataset::Dataset::open(dir)?;
                    let count = |table: &str| dataset.rows(table);
                    let listing = model_tables_listing(&count).map_err(Error::query)?;
                    return print_listing_stdout(&listing);
                }
            }
            // The counts come from the loaded tables themselves: listing them
            // needs no SQL session (whose setup alone pages in ~15 MB of code).
            let loaded = load_traces(&traces)?;
            let count = |table: &str| -> usize { loaded.iter().map(|t| t.row_count(table)).sum() };
            let listing = model_tables_listing(&count).map_err(Error::query)?;
            print_listing_stdout(&listing)
        }
        Command::Schema { table } => schema(&catalog, table.as_deref()),
        Command::Mcp {
            root,
            call_timeout,
            memory_limit_mb,
            rows,
            max_answer_kib,
            traces,
        } => {
            let limits = tracesql::mcp::answer::Limits {
                rows: rows.max(1),
                bytes: max_answer_kib.max(1) * 1024,
                ..Default::default()
            };
            let options = tracesql::mcp::ServeOptions {
                root: &root,
                traces: &traces,
                call_limit: std::time::Duration::from_secs(call_timeout.max(1)),
                memory_bytes: memory_limit_mb.max(1) * 1024 * 1024,
                limits,
            };
            tracesql::mcp::serve(catalog, std::sync::Arc::new(apply_session_options), options)
        }
        Command::Cluster { role } => serve(role),
        Command::Report {
            traces,
            out,
            xlsx,
            only,
            format,
            recompute,
        } => {
            let outputs = ReportOutputs {
                csv_dir: out.as_deref(),
                xlsx: xlsx.as_deref(),
            };
            let options = ReportOptions {
                only: only.as_deref(),
                format,
                recompute,
            };
            report(&traces, &catalog, outputs, options)
        }
        Command::Analyze {
            traces,
            out,
            reference: Some(reference),
            reference_platform,
            ..
        } => comparative(
            &traces,
            &reference,
            reference_platform,
            &catalog,
            out.as_deref(),
        ),
        Command::Analyze {
            traces,
            out,
            replay,
            html,
            ..
        } => analyze(
            &traces,
            &catalog,
            AnalyzeOutputs {
                dir: out.as_deref(),
                html: html.as_deref(),
                replay,
            },
        ),
        Command::Collectives {
            traces,
            world_size,
            rank_regex,
            gpus_per_node,
            out,
            xlsx,
            only,
            analyze,
            html,
            execute,
            format,
        } => {
            let options = tracesql::collectives::RankOptions {
                world_size,
                rank_regex,
                gpus_per_node,
            };
            let outputs = CollectiveOutputs {
                out: out.as_deref(),
                xlsx: xlsx.as_deref(),
                html: html.as_deref(),
                only: only.as_deref(),
                analyze,
                format,
            };
            collectives(&traces, &catalog, &options, outputs, execute.as_deref())
        }

        Command::Compare {
            base,
            target,
            names,
            out,
            xlsx,
            sheets,
            base_platform,
            target_platform,
            fail_if,
            verdict,
            sql,
            repl,
            html,
            format,
        } => {
            let request = CompareRequest {
                base: split_side(&base),
                target: split_side(&target),
                names,
                out,
                xlsx,
                sheets,
                platforms: [base_platform, target_platform],
                fail_if,
                verdict,
                sql,
                repl,
                html,
                format,
            };
            compare(request, &catalog)
        }
        Command::Replay {
            trace,
            uid,
            op,
            shape_of,
            findings,
            all,
            min_share,
            max_efficiency,
            out,
            device,
            iters,
        } => {
            let selection = match (uid, op, findings) {
                (Some(uid), _, _) => tracesql::reproduce::Selection::Uid(uid),
                (_, Some(name), _) => tracesql::reproduce::Selection::Op { name, shape_of },
                (_, _, Some(dir)) => tracesql::reproduce::Selection::Findings(read_findings(&dir)?),
                _ if all => tracesql::reproduce::Selection::All,
                _ => return Err(Error::Usage("give --uid, --op, --findings or --all".into())),
            };
            let filter = tracesql::reproduce::FindingFilter::Thresholds {
                min_share_pct: min_share,
                max_efficiency_pct: max_efficiency,
            };
            let defaults = tracesql::reproduce::RunDefaults { device, iters };
            replay(&trace, &catalog, &selection, filter, &defaults, &out)
        }
        Command::Export {
            traces,
            parquet,
            counters,
            no_redact,
            append,
            run,
            jobs,
            memory_budget,
            critical_path,
        } => {
            if let Some(out) = &counters {
                write_counters(&traces, out, &catalog)?;
            }
            if let Some(target) = &critical_path {
                export_critical_path(&traces, target, &catalog)?;
            }
            let Some(parquet) = parquet else {
                return Ok(());
            };
            let options = ExportOptions {
                redact: !no_redact,
                prepare: Some(&apply_session_options),
                ..ExportOptions::default()
            };
            if append {
                let defaults = AppendOptions::default();
                let append = AppendOptions {
                    run,
                    jobs: jobs.map_or(defaults.jobs, usize::from),
                    memory_budget: memory_budget.unwrap_or(defaults.memory_budget),
                };
                let traces = tracesql::collectives::resolve_inputs(&traces)?;
                let done = runtime()?.block_on(append_parquet(
                    &traces, &parquet, &catalog, &options, &append,
                ))?;
                for (path, why) in &done.skipped {
                    eprintln!("{path}: skipped, {why}");
                }
                eprintln!(
                    "{}: added {} traces ({} skipped); the dataset holds {}",
                    parquet.display(),
                    done.added.len(),
                    done.skipped.len(),
                    done.manifest.traces.len()
                );
                return Ok(());
            }
            let manifest =
                runtime()?.block_on(export_parquet(&traces, &parquet, &catalog, &options))?;
            for trace in &manifest.traces {
                eprintln!(
                    "{}: wrote {} tables and {} reports to {}",
                    trace.info.name,
                    trace.tables.len(),
                    trace.reports.len(),
                    parquet.display()
                );
            }
            Ok(())
        }
        Command::Queries { action: None } => {
            print_listing_stdout(&queries_batch(&catalog).map_err(Error::query)?)
        }
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

/// The options every session of a run gets (`--tracelens-compat`, `--set`,
/// `--platforms`, `--platform`), read once in `run`.
static SESSION_OPTIONS: std::sync::OnceLock<SessionOptions> = std::sync::OnceLock::new();

fn read_session_options(cli: &Cli) -> Result<(), Error> {
    let extra = match &cli.platforms {
        Some(path) => {
            tracesql::engine::platform::read_platforms_file(path).map_err(Error::Usage)?
        }
        None => Vec::new(),
    };
    let _ = CLUSTER.set(cli.cluster.clone());
    let _ = TLS_DIR.set(cli.tls.clone());
    if let Some(url) = &cli.cluster {
        give_up_after(
            url.clone(),
            std::time::Duration::from_secs(cli.cluster_timeout),
        );
    }
    let _ = SESSION_OPTIONS.set(SessionOptions {
        extra_platforms: extra,
        platform: cli.platform.clone(),
        tracelens_compat: cli.tracelens_compat,
        settings: cli.settings.iter().cloned().collect(),
    });
    Ok(())
}

/// Ends the process with an error once `limit` has passed: Ballista's client
/// waits on a job for as long as the scheduler keeps it, and a job whose
/// executor died may never end. Outputs are written under temporary names and
/// renamed into place, so an output is whole or absent.
fn give_up_after(url: String, limit: std::time::Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!(
            "error: --cluster {url}: no answer after {} s (--cluster-timeout); an executor may \
             have stopped: the scheduler's log says why",
            limit.as_secs()
        );
        std::process::exit(1);
    });
}

/// `--cluster`, when given.
static CLUSTER: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

fn cluster_url() -> Option<&'static str> {
    CLUSTER.get().and_then(|c| c.as_deref())
}

/// `--tls`, when given.
static TLS_DIR: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// The certificates of `--tls`, read (an error names the missing file).
#[cfg(feature = "cluster")]
fn cluster_tls() -> Result<Option<tracesql::cluster::tls::Tls>, Error> {
    match TLS_DIR.get().and_then(|d| d.as_deref()) {
        Some(dir) => tracesql::cluster::tls::Tls::read(dir).map(Some),
        None => Ok(None),
    }
}

const ONE_DATASET: &str =
    "--cluster runs over one export directory (a dataset): give exactly one, e.g. `tracesql export --append ... --parquet DIR`";

/// The dataset a `--cluster` command runs over: `traces` must be exactly one
/// export directory.
fn cluster_dataset(traces: &[String]) -> Result<tracesql::dataset::Dataset, Error> {
    match traces {
        [dir] if tracesql::dataset::is_dataset(dir) => Ok(tracesql::dataset::Dataset::open(dir)?),
        [dir] => Err(Error::Usage(format!("{dir}: {ONE_DATASET}"))),
        _ => Err(Error::Usage(ONE_DATASET.into())),
    }
}

/// A session over `dataset` (only its trace number `only`, when given) whose
/// queries run on the cluster at `url`.
#[cfg(feature = "cluster")]
fn cluster_engine(
    url: &str,
    dataset: &tracesql::dataset::Dataset,
    only: Option<usize>,
    catalog: &Catalog,
) -> Result<Engine, Error> {
    let mut dataset = dataset.clone();
    // A report session (one trace) plans each query in one partition, as a
    // local `report` does: the reports are the parallelism, and Ballista's
    // stages of a windowed query over several partitions lose an ordering the
    // window needs (perf sheets fail).
    let mut partitions = None;
    if let Some(index) = only {
        dataset = dataset.only(index);
        partitions = Some(1);
    }
    let tls = cluster_tls()?;
    runtime()?.block_on(tracesql::cluster::engine_over(
        url,
        catalog,
        &apply_session_options,
        dataset,
        partitions,
        tls.as_ref(),
    ))
}

#[cfg(not(feature = "cluster"))]
fn cluster_engine(
    _url: &str,
    _dataset: &tracesql::dataset::Dataset,
    _only: Option<usize>,
    _catalog: &Catalog,
) -> Result<Engine, Error> {
    Err(Error::Usage(NO_CLUSTER.into()))
}

#[cfg(not(feature = "cluster"))]
const NO_CLUSTER: &str = "this tracesql was built without the cluster: build it with `cargo build --release --features cluster`";

/// `tracesql cluster scheduler|executor`.
#[cfg(feature = "cluster")]
fn serve(role: ClusterRole) -> Result<(), Error> {
    use std::time::Duration;
    use tracesql::cluster::serve::{
        run_executor, run_scheduler, ExecutorOptions, SchedulerOptions,
    };
    let lifetime = |secs: Option<u64>| secs.map(Duration::from_secs);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Ballista's planner recurses deeply on large plans.
        .thread_stack_size(32 << 20)
        .build()
        .map_err(|e| Error::Output(format!("cannot start the runtime: {e}")))?;
    match role {
        ClusterRole::Scheduler {
            bind,
            port,
            advertise,
            expose,
            executor_timeout,
            max_lifetime,
        } => {
            check_exposure(&bind, expose)?;
            let options = SchedulerOptions {
                advertise: advertise.unwrap_or_else(|| bind.clone()),
                bind,
                port,
                executor_timeout: Duration::from_secs(executor_timeout),
                max_lifetime: lifetime(max_lifetime),
                tls: cluster_tls()?,
            };
            rt.block_on(run_scheduler(options))
        }
        ClusterRole::Executor {
            scheduler,
            bind,
            port,
            grpc_port,
            advertise,
            slots,
            work_dir,
            expose,
            max_lifetime,
        } => {
            check_exposure(&bind, expose)?;
            let (scheduler_host, scheduler_port) = tracesql::cluster::parse_url(&scheduler)?;
            let options = ExecutorOptions {
                scheduler_host,
                scheduler_port,
                advertise: advertise.unwrap_or_else(|| bind.clone()),
                bind,
                port,
                grpc_port,
                slots: slots
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
                work_dir,
                max_lifetime: lifetime(max_lifetime),
                tls: cluster_tls()?,
            };
            rt.block_on(run_executor(options))
        }
        ClusterRole::Certs { out, hosts, days } => {
            for file in tracesql::cluster::tls::write_certs(&out, &hosts, days)? {
                println!("{}", file.display());
            }
            eprintln!(
                "copy {out} without {} to every node and client, then give each --tls {out}",
                tracesql::cluster::tls::CA_KEY
            );
            Ok(())
        }
    }
}

#[cfg(not(feature = "cluster"))]
fn serve(_role: ClusterRole) -> Result<(), Error> {
    Err(Error::Usage(NO_CLUSTER.into()))
}

/// Refuses to listen beyond loopback unless `--expose` says so.
#[cfg_attr(not(feature = "cluster"), allow(dead_code))]
fn check_exposure(bind: &str, expose: bool) -> Result<(), Error> {
    let address: std::net::IpAddr = bind
        .parse()
        .map_err(|_| Error::Usage(format!("--bind {bind}: give an IP address")))?;
    if address.is_loopback() || expose {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "--bind {bind}: add --expose to listen beyond this machine, with --tls DIR so that only \
         peers holding the cluster's certificates get in (Ballista itself has no authentication)"
    )))
}

/// `export --critical-path`: the one trace of `traces` with its critical path
/// overlaid, written to `target`.
fn export_critical_path(
    traces: &[String],
    target: &std::path::Path,
    catalog: &Catalog,
) -> Result<(), Error> {
    let trace = one_trace_file(traces, "--critical-path")?;
    let engine = load_all(traces, catalog)?;
    let overlay = runtime()?.block_on(tracesql::export::critical_path::write_overlay(
        &engine, trace, target,
    ))?;
    eprintln!(
        "{}: {} events on the critical path, {} dependency arrows ({} events written)",
        target.display(),
        overlay.critical_events,
        overlay.flows,
        overlay.events
    );
    Ok(())
}

/// Applies the run's session options to a new session.
fn apply_session_options(engine: &Engine) -> Result<(), Error> {
    match SESSION_OPTIONS.get() {
        Some(options) => options.apply(engine),
        None => Ok(()),
    }
}

fn load_all(paths: &[String], catalog: &Catalog) -> Result<Engine, Error> {
    engine_with(load_traces(paths)?, catalog)
}

/// Every trace of `paths` (directories of traces and patterns expanded), read
/// and tabulated.
fn load_traces(paths: &[String]) -> Result<Vec<LoadedTrace>, Error> {
    let paths = &tracesql::collectives::resolve_inputs(paths)?;
    if paths.iter().filter(|p| p.as_str() == "-").count() > 1 {
        return Err(Error::Usage(
            "standard input (-) can be given only once".into(),
        ));
    }
    tracesql::collectives::ranks_from_names(load_inputs(paths)?, paths)
}

/// A session over `traces`, views registered.
fn engine_with(traces: Vec<LoadedTrace>, catalog: &Catalog) -> Result<Engine, Error> {
    let _timing = tracesql::timing::Phase::start("session");
    runtime()?.block_on(Engine::over(catalog, &apply_session_options, traces))
}

/// What `tracesql collectives` writes or prints.
struct CollectiveOutputs<'a> {
    out: Option<&'a std::path::Path>,
    xlsx: Option<&'a std::path::Path>,
    html: Option<&'a std::path::Path>,
    only: Option<&'a [String]>,
    analyze: bool,
    format: PrintFormat,
}

/// `tracesql collectives`: every rank's trace in one session, then the
/// collective sheets to DIR (and the run's analysis to DIR/analysis/), printed,
/// or the user's SQL. Everything is computed before any file is written.
fn collectives(
    inputs: &[String],
    catalog: &Catalog,
    options: &tracesql::collectives::RankOptions,
    outputs: CollectiveOutputs,
    execute: Option<&str>,
) -> Result<(), Error> {
    let files = tracesql::collectives::resolve_inputs(inputs)?;
    if let Some(sql) = execute {
        let traces = tracesql::collectives::assign_ranks(load_traces(&files)?, &files, options)?;
        return query(&engine_with(traces, catalog)?, sql, outputs.format);
    }
    let traces = tracesql::load::load_inputs_keeping(
        &files,
        &tracesql::collectives::keep_collective_tables,
    )?;
    let traces = tracesql::collectives::assign_ranks(traces, &files, options)?;
    let ranks = traces.len();
    let device = traces
        .first()
        .map(|t| tracesql::load::device_of(&t.tables))
        .unwrap_or_default();
    let engine = engine_with(traces, catalog)?;
    let rt = runtime()?;
    if !tracesql::collectives::has_collectives(&engine) {
        eprintln!("note: no collective kernel in the {ranks} traces: the sheets are empty");
    }
    let sheets = rt.block_on(tracesql::collectives::collective_sheets(
        &engine,
        outputs.only,
    ))?;
    let label = format!("{ranks} ranks");
    let analysis = match outputs.analyze {
        true => {
            let mut analysis = rt.block_on(tracesql::analyze::analyze_scope(
                &engine,
                tracesql::analyze::runner::Scope::Run,
            ))?;
            if outputs.out.is_some() {
                // DIR/analysis/charts/: the run's pictures beside its report.
                analysis.extra_figures =
                    rt.block_on(tracesql::collectives::pictures::figures(&engine))?;
            }
            Some(analysis)
        }
        false => None,
    };
    let page = match outputs.html {
        Some(_) => Some(rt.block_on(tracesql::collectives::pictures::page(
            &engine,
            &label,
            &sheets,
            |page| match &analysis {
                Some(analysis) => tracesql::analyze::pictures::run_section(page, analysis),
                None => Ok(()),
            },
        ))?),
        None => None,
    };
    if let (Some(file), Some(page)) = (outputs.html, &page) {
        write_html(file, page)?;
        eprintln!(
            "{label}: wrote {} ({} KiB)",
            file.display(),
            page.len() / 1024
        );
    }
    if let Some(file) = outputs.xlsx {
        // The about sheet names the run: its files, rank 0's GPU.
        let run = TraceInfo {
            name: format!("run of {ranks} ranks"),
            source: files.join(", "),
            source_sha256: String::new(),
            device,
            platform: engine.platform().unwrap_or_default(),
            redacted: false,
        };
        write_xlsx(file, &run, None, &sheets)?;
        eprintln!(
            "{label}: wrote {} sheets to {}",
            sheets.len() + 1,
            file.display()
        );
    }
    match outputs.out {
        Some(dir) => {
            write_csv_dir(dir, &sheets)?;
            eprintln!(
                "{label}: wrote {} sheets to {}",
                sheets.len(),
                dir.display()
            );
            if let Some(analysis) = &analysis {
                emit_analysis(&label, analysis, Some(&dir.join("analysis")))?;
            }
        }
        None => {
            if outputs.xlsx.is_none() && outputs.html.is_none() {
                print_sheets(
                    "collectives",
                    &sheets,
                    outputs.format,
                    outputs.only.is_none(),
                )?;
            }
            if let Some(analysis) = analysis.as_ref().filter(|_| outputs.html.is_none()) {
                emit_analysis(&label, analysis, None)?;
            }
        }
    }
    Ok(())
}

/// Where `report` writes files; printing to the terminal when neither is set.
#[derive(Clone, Copy)]
struct ReportOutputs<'a> {
    csv_dir: Option<&'a std::path::Path>,
    xlsx: Option<&'a std::path::Path>,
}

#[derive(Clone, Copy)]
struct ReportOptions<'a> {
    only: Option<&'a [String]>,
    format: PrintFormat,
    /// Never reuse the reports an export directory stores.
    recompute: bool,
}

fn report(
    traces: &[String],
    catalog: &Catalog,
    outputs: ReportOutputs,
    options: ReportOptions,
) -> Result<(), Error> {
    let traces = &tracesql::collectives::resolve_inputs(traces)?;
    let rt = runtime()?;
    let to_files = outputs.csv_dir.is_some() || outputs.xlsx.is_some();
    let summary: Vec<String> = ["gpu_timeline", "ops_summary"]
        .iter()
        .filter(|n| catalog.get(n).is_some())
        .map(|n| n.to_string())
        .collect();
    let selection = if to_files || options.only.is_some() {
        options.only
    } else {
        Some(summary.as_slice())
    };
    if let Some(url) = cluster_url() {
        return report_on_cluster(url, traces, catalog, selection, outputs, options);
    }
    for path in traces {
        if is_directory(path) && !options.recompute {
            let stored = stored_reports(path, catalog, selection, &apply_session_options)?;
            if let Some(stored) = stored {
                let several = traces.len() > 1 || stored.len() > 1;
                for (info, sheets) in stored {
                    let done = Reported {
                        name: &info.name,
                        info: Some(&info),
                        // The platform the stored reports were made with.
                        platform: Some(info.platform.as_str()).filter(|p| !p.is_empty()),
                        sheets: &sheets,
                        several,
                    };
                    emit_reports(done, outputs, options)?;
                }
                continue;
            }
        }
        // An export directory may hold several traces; the workbook's about sheet
        // needs each one's provenance.
        let timing = tracesql::timing::Phase::start(&format!("load {path}"));
        let loaded: Vec<(LoadedTrace, Option<TraceInfo>)> = if outputs.xlsx.is_some() {
            let described = load_described(path)?;
            described.into_iter().map(|(t, i)| (t, Some(i))).collect()
        } else {
            load_input(path)?.into_iter().map(|t| (t, None)).collect()
        };
        drop(timing);
        let several = traces.len() > 1 || loaded.len() > 1;
        for (trace, info) in loaded {
            // Reports are per trace: each trace gets a session of its own.
            let engine = engine_with(vec![trace], catalog)?;
            let session = ReportSession {
                info: info.as_ref(),
                several,
                selection,
            };
            report_session(&rt, &engine, session, outputs, options)?;
        }
    }
    Ok(())
}

/// `report --cluster`: each trace of the dataset at `dir` in a session of its
/// own, its queries run on the cluster at `url`.
fn report_on_cluster(
    url: &str,
    traces: &[String],
    catalog: &Catalog,
    selection: Option<&[String]>,
    outputs: ReportOutputs,
    options: ReportOptions,
) -> Result<(), Error> {
    let dataset = cluster_dataset(traces)?;
    let rt = runtime()?;
    let several = dataset.manifest.traces.len() > 1;
    for (index, trace) in dataset.manifest.traces.iter().enumerate() {
        let engine = cluster_engine(url, &dataset, Some(index), catalog)?;
        let session = ReportSession {
            info: Some(&trace.info),
            several,
            selection,
        };
        report_session(&rt, &engine, session, outputs, options)?;
    }
    Ok(())
}

/// One trace's report session: what is reported and how.
struct ReportSession<'a> {
    info: Option<&'a TraceInfo>,
    several: bool,
    selection: Option<&'a [String]>,
}

/// Runs the selected reports in `engine` (one trace) and writes or prints them.
fn report_session(
    rt: &tokio::runtime::Runtime,
    engine: &Engine,
    session: ReportSession,
    outputs: ReportOutputs,
    options: ReportOptions,
) -> Result<(), Error> {
    let name = engine.trace_names().first().cloned().unwrap_or_default();
    let (sheets, health) = rt.block_on(tracesql::report::run_reports_and_health(
        engine,
        session.selection,
    ))?;
    for (trace, line) in health.unwrap_or_default() {
        eprintln!("{trace}: {line}");
    }
    eprintln!("{name}: platform {}", engine.platform_line());
    let platform = engine.platform_line();
    let done = Reported {
        name: &name,
        info: session.info,
        platform: Some(&platform),
        sheets: &sheets,
        several: session.several,
    };
    emit_reports(done, outputs, options)
}

/// One trace's reports, computed or read from an export.
struct Reported<'a> {
    name: &'a str,
    /// Provenance (for the workbook's about sheet), when the output needs it.
    info: Option<&'a TraceInfo>,
    platform: Option<&'a str>,
    sheets: &'a [Sheet],
    /// Several traces in this run: each gets its own directory / workbook.
    several: bool,
}

/// Writes one trace's reports where `outputs` say, or prints them.
fn emit_reports(
    done: Reported,
    outputs: ReportOutputs,
    options: ReportOptions,
) -> Result<(), Error> {
    let name = done.name;
    let _timing = tracesql::timing::Phase::start("write reports");
    if let Some(dir) = outputs.csv_dir {
        let dir = if done.several {
            dir.join(name)
        } else {
            dir.to_path_buf()
        };
        write_csv_dir(&dir, done.sheets)?;
        eprintln!(
            "{name}: wrote {} reports to {}",
            done.sheets.len(),
            dir.display()
        );
    }
    if let (Some(file), Some(info)) = (outputs.xlsx, done.info) {
        let file = if done.several {
            per_trace_file(file, name)
        } else {
            file.to_path_buf()
        };
        write_xlsx(&file, info, done.platform, done.sheets)?;
        eprintln!(
            "{name}: wrote {} sheets to {}",
            done.sheets.len() + 1,
            file.display()
        );
    }
    if outputs.csv_dir.is_none() && outputs.xlsx.is_none() {
        print_sheets(name, done.sheets, options.format, options.only.is_none())?;
    }
    Ok(())
}

/// `out/perf_report.xlsx` → `out/perf_report_<trace>.xlsx`.
fn per_trace_file(file: &std::path::Path, trace: &str) -> std::path::PathBuf {
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    let ext = file
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    file.with_file_name(format!("{stem}_{trace}{ext}"))
}

/// Prints sheets to stdout; `top_only` keeps the first rows of long sheets.
fn print_sheets(
    trace: &str,
    sheets: &[Sheet],
    format: PrintFormat,
    top_only: bool,
) -> Result<(), Error> {
    const TOP_ROWS: usize = 10;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let io = |e: std::io::Error| Error::Output(e.to_string());
    let options = PrintOptions::command(format);
    let limit = if top_only { TOP_ROWS } else { usize::MAX };
    for sheet in sheets {
        writeln!(out, "== {trace}: {} ({} rows)", sheet.sheet, sheet.rows()).map_err(io)?;
        let schema = sheet.schema();
        let shown =
            write_rows(&mut out, &schema, &sheet.batches, limit, true, &options).map_err(io)?;
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

/// Where `tracesql analyze` writes.
struct AnalyzeOutputs<'a> {
    dir: Option<&'a std::path::Path>,
    html: Option<&'a std::path::Path>,
    replay: bool,
}

/// `tracesql analyze`: one session per trace; with `--out`, the report files
/// (in a subdirectory per trace when there are several), with `--html` the
/// one-file report.
fn analyze(traces: &[String], catalog: &Catalog, outputs: AnalyzeOutputs) -> Result<(), Error> {
    let (out_dir, replay) = (outputs.dir, outputs.replay);
    let rt = runtime()?;
    let sessions = analysis_sessions(traces, catalog, replay)?;
    let several = sessions.len() > 1;
    let dir_of = |name: &str| {
        out_dir.map(|dir| {
            if several {
                dir.join(name)
            } else {
                dir.to_path_buf()
            }
        })
    };
    // Every trace is analyzed (and its packages built) before any file is
    // written: a failure leaves none.
    let mut analyses = Vec::new();
    for (engine, source) in sessions {
        let mut analysis = rt.block_on(tracesql::analyze::analyze(&engine))?;
        let packages = match dir_of(&analysis.trace) {
            Some(dir) if replay => {
                let findings = tracesql::analyze::render::table_json(&analysis.recommendations)?;
                let prepared = rt.block_on(tracesql::reproduce::prepare_packages(
                    &engine,
                    &tracesql::reproduce::Source { path: source },
                    &tracesql::reproduce::Selection::Findings(findings),
                    tracesql::reproduce::FindingFilter::PathB,
                    &tracesql::reproduce::RunDefaults::default(),
                    tracesql::reproduce::Layout::beside_analysis(&dir),
                ))?;
                analysis.replay_packages = prepared.links.clone();
                Some(prepared)
            }
            _ => None,
        };
        analyses.push((analysis, packages));
    }
    let mut pages = Vec::new();
    if let Some(file) = outputs.html {
        for (analysis, _) in &analyses {
            let file = match several {
                true => per_trace_file(file, &analysis.trace),
                false => file.to_path_buf(),
            };
            pages.push((file, tracesql::analyze::pictures::html(analysis)?));
        }
    }
    for (file, page) in pages {
        write_html(&file, &page)?;
        eprintln!("wrote {} ({} KiB)", file.display(), page.len() / 1024);
    }
    if outputs.html.is_some() && out_dir.is_none() {
        return Ok(());
    }
    for (analysis, packages) in analyses {
        let name = &analysis.trace;
        emit_analysis(name, &analysis, dir_of(name).as_deref())?;
        if let Some(prepared) = packages.filter(|p| !p.packaged.is_empty()) {
            let count = prepared
                .packaged
                .iter()
                .filter(|p| p.package.is_some())
                .count();
            let top = prepared.layout.top.clone();
            prepared.commit()?;
            eprintln!("{name}: {count} replay packages in {}", top.display());
        }
    }
    Ok(())
}

/// The rows of an analysis's findings.json.
/// One session per trace to analyze, with the file it came from (the replay
/// packages' provenance); on the cluster (`--cluster`), each trace of the
/// dataset in a cluster session of its own.
fn analysis_sessions(
    traces: &[String],
    catalog: &Catalog,
    replay: bool,
) -> Result<Vec<(Engine, String)>, Error> {
    if let Some(url) = cluster_url() {
        if replay {
            return Err(Error::Usage(
                "--replay needs the call trees in memory: analyze without --cluster".into(),
            ));
        }
        let dataset = cluster_dataset(traces)?;
        return dataset
            .manifest
            .traces
            .iter()
            .enumerate()
            .map(|(i, t)| {
                Ok((
                    cluster_engine(url, &dataset, Some(i), catalog)?,
                    t.info.source.clone(),
                ))
            })
            .collect();
    }
    let loaded = load_traces(traces)?;
    // The file each trace came from (when every argument is one trace file).
    let resolved = tracesql::collectives::resolve_inputs(traces)?;
    let sources: Vec<String> = if resolved.len() == loaded.len() {
        resolved
    } else {
        loaded.iter().map(|t| t.name.clone()).collect()
    };
    loaded
        .into_iter()
        .zip(sources)
        .map(|(trace, source)| Ok((engine_with(vec![trace], catalog)?, source)))
        .collect()
}

fn read_findings(dir: &std::path::Path) -> Result<Vec<serde_json::Value>, Error> {
    let path = dir.join("findings.json");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::Usage(format!(
            "{}: {e} (write it with `tracesql analyze TRACE --out DIR`)",
            path.display()
        ))
    })?;
    match serde_json::from_str(&text) {
        Ok(serde_json::Value::Array(rows)) => Ok(rows),
        Ok(_) => Err(Error::Usage(format!(
            "{}: not a list of findings",
            path.display()
        ))),
        Err(e) => Err(Error::Usage(format!("{}: {e}", path.display()))),
    }
}

/// `tracesql replay`: the selected ops' packages in `out`, and a line per
/// signature on stdout.
fn replay(
    trace: &str,
    catalog: &Catalog,
    selection: &tracesql::reproduce::Selection,
    filter: tracesql::reproduce::FindingFilter,
    defaults: &tracesql::reproduce::RunDefaults,
    out: &std::path::Path,
) -> Result<(), Error> {
    let rt = runtime()?;
    let engine = engine_with(load_traces(&[trace.to_string()])?, catalog)?;
    let source = tracesql::reproduce::Source {
        path: trace.to_string(),
    };
    let written = rt.block_on(tracesql::reproduce::write_packages(
        &engine, &source, selection, filter, defaults, out,
    ))?;
    print_packaged(&written);
    Ok(())
}

fn print_packaged(written: &tracesql::reproduce::Prepared) {
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header([
        "id",
        "op",
        "ex_uid",
        "calls",
        "traced median µs",
        "status",
        "package",
    ]);
    for p in &written.packaged {
        table.add_row([
            p.id.clone(),
            p.op_name.clone(),
            p.ex_uid.to_string(),
            p.count.to_string(),
            p.traced_median_us
                .map(|t| format!("{t:.3}"))
                .unwrap_or_default(),
            match &p.reason {
                Some(reason) => format!("{} ({reason})", p.status),
                None => p.status.clone(),
            },
            p.package.clone().unwrap_or_default(),
        ]);
    }
    println!("{table}");
    let ok = written
        .packaged
        .iter()
        .filter(|p| p.package.is_some())
        .count();
    eprintln!(
        "{} signatures, {ok} packaged; wrote {}/replay_ir.json, replay.py, README.md and replay_packages/",
        written.packaged.len(),
        written.layout.top.display()
    );
}

/// One analysis: its files in `dir` (with a line on stderr naming `label`), or
/// the terminal summary.
fn emit_analysis(
    label: &str,
    analysis: &tracesql::analyze::Analysis,
    dir: Option<&std::path::Path>,
) -> Result<(), Error> {
    match dir {
        Some(dir) => {
            tracesql::analyze::render::write_dir(dir, analysis)?;
            eprintln!(
                "{label}: {} findings ({} recommendations) from {} rules; wrote {} to {}",
                analysis.findings.rows(),
                analysis.recommendations.rows(),
                analysis.rules.len(),
                tracesql::analyze::render::OUT_FILES.join(", "),
                dir.display()
            );
        }
        None => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            tracesql::analyze::render::terminal(&mut out, analysis)
                .and_then(|()| out.flush())
                .map_err(|e| Error::Output(e.to_string()))?;
        }
    }
    Ok(())
}

/// Writes an HTML report atomically.
fn write_html(file: &std::path::Path, page: &str) -> Result<(), Error> {
    tracesql::output::atomic::write_file(file, |out| out.write_all(page.as_bytes()))
        .map_err(|e| Error::Output(format!("{}: {e}", file.display())))
}

/// The one trace file an `export` flag that rewrites a trace reads (it reads
/// the file again to copy it: not standard input, a directory or a dataset).
fn one_trace_file<'a>(traces: &'a [String], flag: &str) -> Result<&'a str, Error> {
    let [trace] = traces else {
        return Err(Error::Usage(format!(
            "{flag} writes one trace file back; {} were given",
            traces.len()
        )));
    };
    if trace == "-" || tracesql::dataset::is_dataset(trace) || std::path::Path::new(trace).is_dir()
    {
        return Err(Error::Usage(format!(
            "{flag} rewrites the trace file itself: {trace} is not one"
        )));
    }
    Ok(trace)
}

/// `export --counters OUT`: the one trace written back with HTA's counter
/// tracks (tracesql::export::overlay).
fn write_counters(
    traces: &[String],
    out: &std::path::Path,
    catalog: &Catalog,
) -> Result<(), Error> {
    let trace = one_trace_file(traces, "--counters")?;
    let engine = load_all(traces, catalog)?;
    let events = runtime()?.block_on(tracesql::export::overlay::counter_events(&engine))?;
    let written = tracesql::export::overlay::write_trace_with(trace, out, &events)?;
    eprintln!(
        "{trace}: wrote {} with {} counter events ({written} events in all)",
        out.display(),
        events.len()
    );
    Ok(())
}

fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Output(format!("cannot start the query runtime: {e}")))
}

fn query(engine: &Engine, sql: &str, format: PrintFormat) -> Result<(), Error> {
    let results = runtime()?
        .block_on(engine.run_sql_with_schemas(sql))
        .map_err(Error::query)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let options = PrintOptions::command(format);
    for (schema, batches) in &results {
        if schema.fields().is_empty() {
            // A statement without rows to show (SET, CREATE VIEW, ...); a
            // SELECT without rows still shows its columns (a CSV header).
            continue;
        }
        print_batches(&mut out, schema, batches, None, &options)
            .map_err(|e| Error::Output(e.to_string()))?;
    }
    out.flush().map_err(|e| Error::Output(e.to_string()))
}

/// `tracesql schema [TABLE]`: the columns of one table, view or function, or of
/// every table of the trace model, from the session's `tracesql_columns`.
fn schema(catalog: &Catalog, table: Option<&str>) -> Result<(), Error> {
    let listing = match table {
        Some(name)
            if catalog
                .get(&name.to_ascii_lowercase())
                .is_some_and(|q| !q.kind.is_view()) =>
        {
            report_columns(catalog, &name.to_ascii_lowercase())?
        }
        Some(name) => {
            // A view is described from its planned schema: that needs a session.
            let engine = Engine::with_catalog(catalog.clone());
            let name = name.to_ascii_lowercase();
            runtime()?
                .block_on(engine.columns_listing(Some(&name)))
                .map_err(|_| {
                    Error::Usage(format!(
                        "unknown table '{name}' (see `tracesql tables` or SELECT * FROM tracesql_tables)"
                    ))
                })?
        }
        None => {
            let model = tracesql::model::TABLES.iter().map(|t| t.name);
            let rows = model
                .filter_map(documented_columns)
                .flatten()
                .collect::<Vec<_>>();
            columns_batch(&rows).map_err(Error::query)?
        }
    };
    print_listing_stdout(&listing)
}

/// `schema REPORT`: a report's columns, typed by running it over no trace,
/// with the notes of its `Columns:` block (HTA's reports, TraceLens's sheets).
fn report_columns(
    catalog: &Catalog,
    name: &str,
) -> Result<datafusion::arrow::record_batch::RecordBatch, Error> {
    let query = catalog
        .get(name)
        .ok_or_else(|| Error::Usage(format!("unknown report '{name}'")))?;
    let engine = Engine::with_catalog(catalog.clone());
    let results = runtime()?
        .block_on(engine.run_sql_with_schemas(&query.sql))
        .map_err(|e| Error::Query(format!("{name}: {}", tracesql::one_line(&e.to_string()))))?;
    let Some((schema, _)) = results.last() else {
        return Err(Error::Query(format!("{name}: the report returns nothing")));
    };
    let rows = noted_columns(name, schema, Some(query), &query.description, catalog);
    columns_batch(&rows).map_err(Error::query)
}

/// Prints a listing (every row, no footer) as a table for reading.
fn print_listing_stdout(batch: &datafusion::arrow::record_batch::RecordBatch) -> Result<(), Error> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    print_listing(&mut out, batch, &PrintOptions::command(PrintFormat::Table))
        .and_then(|()| out.flush())
        .map_err(|e| Error::Output(e.to_string()))
}

/// `compare`'s arguments.
struct CompareRequest {
    base: Vec<String>,
    target: Vec<String>,
    names: Option<Vec<String>>,
    out: Option<std::path::PathBuf>,
    xlsx: Option<std::path::PathBuf>,
    sheets: Vec<String>,
    /// Per side: base, target.
    platforms: [Option<String>; 2],
    fail_if: Option<String>,
    verdict: Option<std::path::PathBuf>,
    sql: Option<String>,
    repl: bool,
    html: Option<std::path::PathBuf>,
    format: PrintFormat,
}

/// `a.json,b.json` → both paths (a side of repeated runs).
fn split_side(arg: &str) -> Vec<String> {
    arg.split(',')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// The two labels: `--names`, else the inputs' names, else base / target.
fn compare_labels(request: &CompareRequest) -> Result<[String; 2], Error> {
    use tracesql::compare::report_diff::check_tag;
    if let Some(names) = &request.names {
        for name in names {
            check_tag(name).map_err(Error::Usage)?;
        }
        if names[0] == names[1] {
            return Err(Error::Usage(format!(
                "--names: the two labels are both '{}'",
                names[0]
            )));
        }
        return Ok([names[0].clone(), names[1].clone()]);
    }
    let derived = [
        tracesql::compare::default_label(&request.base),
        tracesql::compare::default_label(&request.target),
    ];
    let usable = derived.iter().all(|l| check_tag(l).is_ok()) && derived[0] != derived[1];
    Ok(if usable {
        derived
    } else {
        ["base".to_string(), "target".to_string()]
    })
}

fn compare(request: CompareRequest, catalog: &Catalog) -> Result<(), Error> {
    if request.base.is_empty() || request.target.is_empty() {
        return Err(Error::Usage(
            "compare needs a base and a target input".into(),
        ));
    }
    for group in &request.sheets {
        if !tracesql::compare::report_diff::SHEET_GROUPS.contains(&group.as_str()) {
            return Err(Error::Usage(format!(
                "--sheets: unknown group '{group}' (one of {})",
                tracesql::compare::report_diff::SHEET_GROUPS.join(", ")
            )));
        }
    }
    let labels = compare_labels(&request)?;
    let rt = runtime()?;
    let sides = [request.base.as_slice(), request.target.as_slice()];
    let compat = SESSION_OPTIONS.get().is_some_and(|o| o.tracelens_compat);
    // TraceDiff needs a trace on each side (a report folder has no call tree).
    let trees = !sides
        .iter()
        .flat_map(|s| s.iter())
        .any(|p| tracesql::compare::is_report_folder(p));
    let platforms = request.platforms.clone();
    let reading = tracesql::compare::Reading {
        all_reports: compat,
        tree: trees,
        tree_args: compat && trees && request.out.is_some(),
    };
    let (comparison, engine) = read_comparison(&rt, catalog, &labels, sides, platforms, reading)?;
    let sheets = rt.block_on(tracesql::compare::comparison_sheets(
        &engine,
        &request.sheets,
    ))?;
    let gate = match &request.fail_if {
        Some(predicate) => Some(rt.block_on(tracesql::compare::gate(&engine, predicate))?),
        None => None,
    };
    let verdict_text = gate.as_ref().map(|g| {
        let mut text = serde_json::to_string_pretty(&g.verdict(&comparison)).unwrap_or_default();
        text.push('\n');
        text
    });
    let page = match &request.html {
        Some(_) => Some(rt.block_on(tracesql::compare::pictures::html(&engine, &labels))?),
        None => None,
    };
    if let Some(dir) = &request.out {
        let tracelens = if compat {
            let (files, notes) = comparison.tracelens_report_diff(&request.sheets)?;
            for line in notes.lines {
                eprintln!("compare_perf_reports: {line}");
            }
            Some(files)
        } else {
            None
        };
        let tracediff = match compat && trees {
            true => Some(comparison.tracelens_tracediff()?),
            false => None,
        };
        // The verdict goes into DIR unless --verdict names its own file.
        let verdict_in_dir = verdict_text
            .as_deref()
            .filter(|_| request.verdict.is_none());
        write_compare_dir(
            dir,
            &sheets,
            tracelens.as_deref(),
            tracediff.as_deref(),
            verdict_in_dir,
        )?;
        let extra = match (compat, trees) {
            (true, true) => " and compare_perf_reports/, tracediff/",
            (true, false) => " and compare_perf_reports/",
            _ => "",
        };
        eprintln!(
            "{} vs {}: wrote {} comparison sheets{extra} to {}",
            labels[0],
            labels[1],
            sheets.len(),
            dir.display()
        );
    }
    if let Some(file) = &request.xlsx {
        let about = [
            (
                "base",
                comparison
                    .base
                    .runs
                    .iter()
                    .map(|r| r.source.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            (
                "target",
                comparison
                    .target
                    .runs
                    .iter()
                    .map(|r| r.source.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
            ("labels", labels.join(" vs ")),
            ("tool", format!("tracesql {}", env!("CARGO_PKG_VERSION"))),
        ]
        .map(|(k, v)| (k.to_string(), v));
        tracesql::output::xlsx::write_workbook(file, &about, &sheets)
            .map_err(|e| Error::Output(format!("{}: {e}", file.display())))?;
        eprintln!("wrote {} sheets to {}", sheets.len() + 1, file.display());
    }
    if let (Some(file), Some(page)) = (&request.html, &page) {
        write_html(file, page)?;
        eprintln!("wrote {} ({} KiB)", file.display(), page.len() / 1024);
    }
    if let Some(sql) = &request.sql {
        query(&engine, sql, request.format)?;
    } else if request.repl {
        // The gate (if any) is judged after the session ends.
        if !tracesql::repl::run_engine(engine)? {
            std::process::exit(1);
        }
    } else if request.out.is_none() && request.xlsx.is_none() && request.html.is_none() {
        print_compare_summary(&labels, &sheets, request.format)?;
    }
    if let (Some(file), Some(text)) = (&request.verdict, &verdict_text) {
        tracesql::output::atomic::write_file(file, |out| out.write_all(text.as_bytes()))
            .map_err(|e| Error::Output(format!("{}: {e}", file.display())))?;
    }
    match gate {
        Some(gate) if gate.failed() => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            let io = |e: std::io::Error| Error::Output(e.to_string());
            writeln!(out, "== gate: rows matching {}", gate.predicate).map_err(io)?;
            let schema = gate.rows.schema();
            let options = PrintOptions::command(request.format);
            write_rows(
                &mut out,
                &schema,
                &gate.rows.batches,
                usize::MAX,
                true,
                &options,
            )
            .map_err(io)?;
            out.flush().map_err(io)?;
            Err(Error::GateFailed(format!(
                "{} rows of `comparison` match {}",
                gate.rows.rows(),
                gate.predicate
            )))
        }
        Some(gate) => {
            eprintln!(
                "gate passed: no row of `comparison` matches {}",
                gate.predicate
            );
            Ok(())
        }
        None => Ok(()),
    }
}

/// Reads both sides (each run's reports in a session of its own, with the
/// side's platform) and opens the comparison session over them.
fn read_comparison(
    rt: &tokio::runtime::Runtime,
    catalog: &Catalog,
    labels: &[String; 2],
    paths: [&[String]; 2],
    platforms: [Option<String>; 2],
    reading: tracesql::compare::Reading,
) -> Result<(tracesql::compare::Comparison, Engine), Error> {
    use tracesql::compare::{read_side, Comparison, Role};
    let side_options = |platform: Option<String>| {
        move |engine: &Engine| -> Result<(), Error> {
            apply_session_options(engine)?;
            if let Some(name) = &platform {
                engine.choose_platform(name)?;
            }
            Ok(())
        }
    };
    let [base_platform, target_platform] = platforms;
    let (base_prepare, target_prepare) =
        (side_options(base_platform), side_options(target_platform));
    // The two sides load and run their reports side by side.
    let comparison = rt.block_on(async {
        let base = read_side(
            &labels[0],
            Role::Base,
            paths[0],
            catalog,
            &base_prepare,
            reading,
        );
        let target = read_side(
            &labels[1],
            Role::Target,
            paths[1],
            catalog,
            &target_prepare,
            reading,
        );
        let (base, target) = tokio::join!(base, target);
        Ok::<_, Error>(Comparison {
            base: base?,
            target: target?,
        })
    })?;
    let engine = rt.block_on(comparison.session(catalog, &apply_session_options))?;
    Ok((comparison, engine))
}

/// `analyze TARGET --reference REF`: the comparative analysis, printed or
/// written to `out_dir`.
fn comparative(
    targets: &[String],
    reference: &str,
    reference_platform: Option<String>,
    catalog: &Catalog,
    out_dir: Option<&std::path::Path>,
) -> Result<(), Error> {
    use tracesql::compare::comparative;
    let reference = split_side(reference);
    if reference.is_empty() {
        return Err(Error::Usage("--reference needs a trace".into()));
    }
    let request_labels = [
        tracesql::compare::default_label(&reference),
        tracesql::compare::default_label(targets),
    ];
    let labels =
        if request_labels[0] != request_labels[1] && request_labels.iter().all(|l| !l.is_empty()) {
            request_labels
        } else {
            ["reference".to_string(), "target".to_string()]
        };
    let target_platform = SESSION_OPTIONS.get().and_then(|o| o.platform.clone());
    let rt = runtime()?;
    let (comparison, engine) = read_comparison(
        &rt,
        catalog,
        &labels,
        [reference.as_slice(), targets],
        [reference_platform, target_platform],
        tracesql::compare::Reading::default(),
    )?;
    let analysis = rt.block_on(comparative::comparative(&engine, &comparison))?;
    match out_dir {
        Some(dir) => {
            let analysis = rt.block_on(comparative::with_charts(&engine, analysis))?;
            comparative::write_dir(dir, &analysis)?;
            eprintln!(
                "{} vs {}: {} findings; wrote {} to {}",
                labels[0],
                labels[1],
                analysis.findings.rows(),
                comparative::OUT_FILES.join(", "),
                dir.display()
            );
        }
        None => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            comparative::markdown(&mut out, &analysis)
                .and_then(|()| out.flush())
                .map_err(|e| Error::Output(e.to_string()))?;
        }
    }
    Ok(())
}

/// Writes the comparison sheets, TraceLens's files and the verdict into `dir`,
/// all or none.
fn write_compare_dir(
    dir: &std::path::Path,
    sheets: &[Sheet],
    tracelens: Option<&[tracesql::compare::report_diff::Output]>,
    tracediff: Option<&[(String, String)]>,
    verdict: Option<&str>,
) -> Result<(), Error> {
    use tracesql::output::{atomic::Staged, report_csv};
    let fail = |path: &std::path::Path, e: std::io::Error| {
        Error::Output(format!("{}: {e}", path.display()))
    };
    std::fs::create_dir_all(dir).map_err(|e| fail(dir, e))?;
    let mut staged = Staged::new();
    for sheet in sheets {
        let path = dir.join(format!("{}.csv", sheet.sheet));
        staged
            .stage(&path, |out| {
                report_csv::write_csv(out, &sheet.header, &sheet.batches)
            })
            .map_err(|e| fail(&path, e))?;
    }
    if let Some(files) = tracelens {
        let sub = dir.join("compare_perf_reports");
        std::fs::create_dir_all(&sub).map_err(|e| fail(&sub, e))?;
        for file in files {
            let path = sub.join(format!("{}.csv", file.name));
            let text = file.frame.to_csv();
            staged
                .stage(&path, |out| out.write_all(text.as_bytes()))
                .map_err(|e| fail(&path, e))?;
        }
    }
    if let Some(files) = tracediff {
        let sub = dir.join("tracediff");
        std::fs::create_dir_all(&sub).map_err(|e| fail(&sub, e))?;
        for (name, text) in files {
            let path = sub.join(name);
            staged
                .stage(&path, |out| out.write_all(text.as_bytes()))
                .map_err(|e| fail(&path, e))?;
        }
    }
    if let Some(text) = verdict {
        let path = dir.join("verdict.json");
        staged
            .stage(&path, |out| out.write_all(text.as_bytes()))
            .map_err(|e| fail(&path, e))?;
    }
    staged.commit().map_err(|e| fail(dir, e))
}

/// The terminal summary: comparability, the timeline, the ops that changed most.
fn print_compare_summary(
    labels: &[String; 2],
    sheets: &[Sheet],
    format: PrintFormat,
) -> Result<(), Error> {
    const TOP_OPS: usize = 15;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let io = |e: std::io::Error| Error::Output(e.to_string());
    let options = PrintOptions::command(format);
    writeln!(
        out,
        "== {} (base) vs {} (target); deltas are target - base",
        labels[0], labels[1]
    )
    .map_err(io)?;
    for (name, limit) in [
        ("comparability", usize::MAX),
        ("compare_gpu_timeline", usize::MAX),
        ("compare_ops_summary", TOP_OPS),
    ] {
        let Some(sheet) = sheets.iter().find(|s| s.sheet == name) else {
            continue;
        };
        writeln!(out, "== {name} ({} rows)", sheet.rows()).map_err(io)?;
        let shown = write_rows(
            &mut out,
            &sheet.schema(),
            &sheet.batches,
            limit,
            true,
            &options,
        )
        .map_err(io)?;
        if shown < sheet.rows() {
            writeln!(
                out,
                "... {} more rows (use --out DIR for every sheet)",
                sheet.rows() - shown
            )
            .map_err(io)?;
        }
        writeln!(out).map_err(io)?;
    }
    out.flush().map_err(io)
}
