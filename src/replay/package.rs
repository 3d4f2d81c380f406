//! A replay package: the IR, the runner script, a README and a manifest, as a
//! folder's worth of files and as one deterministic zip.
//!
//! Deterministic (sorted members, fixed timestamps and modes) so the same
//! trace gives the same bytes: a package can be diffed, hashed and cached.
//! The zip holds a top-level folder named after the package, so
//! `unzip P.zip && cd P && python3 replay.py` works as the README says.

use std::io::{Cursor, Write};

use sha2::{Digest, Sha256};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use super::json::{to_string, Json, Style};
use super::native::IR_VERSION;

/// The runner every package carries (`replay/runner/replay.py`).
pub const RUNNER: &str = include_str!("../../replay/runner/replay.py");

/// The IR file's name inside a package.
pub const IR_FILE: &str = "replay_ir.json";

/// One op's IR entry with what the trace says about it, ready to package.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The native IR (`native::build`'s `ir`), with `id`, provenance, count
    /// and traced times added by the caller.
    pub ir: Json,
    pub op_name: String,
    pub count: i64,
    pub traced_median_us: Option<f64>,
    pub assumptions: Vec<String>,
}

/// What every entry of a package shares.
#[derive(Debug, Clone)]
pub struct Header {
    /// The trace's file name (no directories: a path can name a user).
    pub trace: String,
    pub trace_sha256: String,
    pub platform: Option<String>,
    pub schema_catalog: String,
    /// Options the runner takes as its defaults (`device`, `iters`): an object.
    pub run_defaults: Json,
}

/// The IR document: a header and the entries.
pub fn ir_document(header: &Header, entries: &[Entry]) -> Json {
    Json::object([
        ("format", Json::str("tracesql-replay-ir")),
        ("ir_version", Json::int(IR_VERSION)),
        ("tracesql_version", Json::str(env!("CARGO_PKG_VERSION"))),
        ("schema_catalog", Json::str(&header.schema_catalog)),
        ("trace", Json::str(&header.trace)),
        ("trace_sha256", Json::str(&header.trace_sha256)),
        (
            "platform",
            header.platform.as_deref().map_or(Json::Null, Json::str),
        ),
        ("run_defaults", header.run_defaults.clone()),
        (
            "entries",
            Json::List(entries.iter().map(|e| e.ir.clone()).collect()),
        ),
    ])
}

/// The package's README: the exact commands, what the numbers mean, what is
/// not reproduced, and each op's assumptions.
pub fn readme(name: &str, header: &Header, entries: &[Entry]) -> String {
    let mut out = String::new();
    let line = |out: &mut String, s: &str| {
        out.push_str(s);
        out.push('\n');
    };
    line(&mut out, &format!("# Replay package `{name}`\n"));
    line(
        &mut out,
        &format!(
            "Made by tracesql {} from trace `{}` (sha256 {}){}, op schemas of {}.\n",
            env!("CARGO_PKG_VERSION"),
            header.trace,
            header.trace_sha256,
            header
                .platform
                .as_deref()
                .map(|p| format!(", recorded on {p}"))
                .unwrap_or_default(),
            header.schema_catalog
        ),
    );
    line(&mut out, "## Run\n");
    line(&mut out, "```sh");
    line(&mut out, &format!("unzip {name}.zip && cd {name}"));
    line(
        &mut out,
        "python3 replay.py                 # every op, on the GPU when torch sees one",
    );
    line(
        &mut out,
        "python3 replay.py --dry-run       # binding check on the meta device, no GPU needed",
    );
    line(&mut out, "python3 replay.py --profile --json results.json");
    line(&mut out, "```\n");
    line(
        &mut out,
        "Needs Python 3.9+ and torch. `python3 replay.py --help` lists the options \
         (`--device`, `--iters`, `--warmup`, `--only`, `--limit`, `--l2-flush`, `--list-dtype`).\n",
    );
    line(&mut out, "## What the numbers mean\n");
    line(
        &mut out,
        "Per op: min, median, p90 and mean time of one call over `--iters` timed calls after \
         `--warmup` untimed ones; CUDA events around each call on a GPU, the wall clock on CPU. \
         Inputs the op writes are restored before each call, outside the timed region. \
         `traced` is the median GPU time of the same calls in the trace: compare medians, \
         and check with `--profile` that the replay launches the traced kernels before \
         trusting a difference.\n",
    );
    line(&mut out, "## What is not reproduced\n");
    line(
        &mut out,
        "- Tensor values: inputs are random (normal for floats, zeros or bounded random \
         integers for indices). Kernels whose work depends on values (embedding lookups, \
         sorting, top-k, MoE routing, masks) may behave differently.\n\
         - The cache state and concurrency of the ops around the traced call.\n\
         - Whatever each op's assumptions below say the trace did not record.\n",
    );
    line(&mut out, "## Ops\n");
    line(
        &mut out,
        "| id | op | calls in trace | traced median µs | assumptions |",
    );
    line(&mut out, "|---|---|---|---|---|");
    for e in entries {
        let id = match e.ir.get("id") {
            Some(Json::Str(s)) => s.clone(),
            _ => String::new(),
        };
        let traced = e
            .traced_median_us
            .map(|t| format!("{t:.3}"))
            .unwrap_or_default();
        let assumptions = if e.assumptions.is_empty() {
            "none".to_string()
        } else {
            e.assumptions.join("<br>")
        };
        line(
            &mut out,
            &format!(
                "| {id} | `{}` | {} | {traced} | {assumptions} |",
                e.op_name, e.count
            ),
        );
    }
    line(&mut out, "\n## What this package holds\n");
    line(
        &mut out,
        "Op names, argument shapes, strides, dtypes and scalar values, traced kernel names and \
         times, the GPU name. No weights, activations, Python stacks, module names, file paths \
         or annotations. Shapes can still hint at a model's architecture (a vocabulary size, a \
         hidden size): share accordingly.",
    );
    out
}

/// The package's files, in zip order: (path inside the package, bytes).
pub fn files(name: &str, header: &Header, entries: &[Entry]) -> Vec<(String, Vec<u8>)> {
    let ir = to_string(&ir_document(header, entries), Style::STRICT) + "\n";
    let mut files = vec![
        (
            "README.md".to_string(),
            readme(name, header, entries).into_bytes(),
        ),
        (IR_FILE.to_string(), ir.into_bytes()),
        ("replay.py".to_string(), RUNNER.as_bytes().to_vec()),
    ];
    let manifest = Json::object([
        ("package", Json::str(name)),
        ("tracesql_version", Json::str(env!("CARGO_PKG_VERSION"))),
        (
            "files",
            Json::List(
                files
                    .iter()
                    .map(|(path, bytes)| {
                        Json::object([
                            ("path", Json::str(path)),
                            ("bytes", Json::int(bytes.len() as i64)),
                            ("sha256", Json::str(hex(&Sha256::digest(bytes)))),
                        ])
                    })
                    .collect(),
            ),
        ),
    ]);
    files.push((
        "MANIFEST.json".to_string(),
        (to_string(&manifest, Style::STRICT) + "\n").into_bytes(),
    ));
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// The files as a zip under the folder `name/`, byte for byte the same for
/// the same input.
pub fn zip(name: &str, files: &[(String, Vec<u8>)]) -> std::io::Result<Vec<u8>> {
    let mut writer = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .last_modified_time(DateTime::default())
        .unix_permissions(0o644);
    for (path, bytes) in files {
        writer
            .start_file(format!("{name}/{path}"), options)
            .map_err(std::io::Error::other)?;
        writer.write_all(bytes)?;
    }
    let cursor = writer.finish().map_err(std::io::Error::other)?;
    Ok(cursor.into_inner())
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
