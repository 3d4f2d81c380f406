//! `tracesql replay` and `analyze --replay`: ops of a loaded trace → replay
//! packages on disk.
//!
//! Which ops: one call by uid, every distinct call of an op name (or the one
//! shaped like a given uid), or the op groups an analysis found slow. The IRs
//! come from the `replay_ir` view (so what SQL shows is what is packaged);
//! this module adds provenance and the traced kernels, and writes the files
//! through [`crate::replay::package`], atomically.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use datafusion::arrow::json::writer::{JsonArray, WriterBuilder};
use datafusion::arrow::record_batch::RecordBatch;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::engine::Engine;
use crate::output::atomic;
use crate::replay::json::{to_string, Json, Style};
use crate::replay::package::{self, Entry, Header};
use crate::replay::{self, Mode, OpEvent};
use crate::Error;

/// Which ops to package.
#[derive(Debug, Clone)]
pub enum Selection {
    /// The op call with this uid (and every call with its signature).
    Uid(i64),
    /// Every distinct signature of this op name (exact), or only the one of
    /// `shape_of`'s call.
    Op { name: String, shape_of: Option<i64> },
    /// The op groups of an analysis's findings (findings.json rows).
    Findings(Vec<Value>),
    /// Every signature of replay_ir, largest GPU time first.
    All,
}

/// The thresholds of the findings selection: the analysis workflow's Path B
/// ("more than 10% of the time, below 30% of peak").
#[derive(Debug, Clone, Copy)]
pub struct FindingFilter {
    /// Least share of the kernel time of all launching ops, %.
    pub min_share_pct: f64,
    /// Highest roofline efficiency, %; findings without one are left out.
    pub max_efficiency_pct: f64,
}

impl Default for FindingFilter {
    fn default() -> Self {
        FindingFilter {
            min_share_pct: 10.0,
            max_efficiency_pct: 30.0,
        }
    }
}

/// What the trace file is, for the packages' provenance.
#[derive(Debug, Clone)]
pub struct Source {
    /// The file's path as given (only its file name is written).
    pub path: String,
}

/// Defaults written into the IR document that the runner uses.
#[derive(Debug, Clone, Default)]
pub struct RunDefaults {
    pub device: Option<String>,
    pub iters: Option<u32>,
}

/// One selected signature, its IR and package.
#[derive(Debug, Clone)]
pub struct Packaged {
    pub id: String,
    pub op_name: String,
    pub ex_uid: i64,
    pub count: i64,
    pub status: String,
    pub reason: Option<String>,
    /// `replay_packages/<id>.zip`, relative to the output directory; None when refused.
    pub package: Option<String>,
    /// `replay_packages/<op>_replay_package.zip` of its op name.
    pub op_package: Option<String>,
    pub traced_median_us: Option<f64>,
}

/// The rows of `sql`'s result as JSON objects.
async fn rows(engine: &Engine, sql: &str) -> Result<Vec<Value>, Error> {
    let results = engine.run_sql(sql).await.map_err(Error::query)?;
    let batches: Vec<RecordBatch> = results.into_iter().flatten().collect();
    let mut buffer = Vec::new();
    {
        let mut writer = WriterBuilder::new()
            .with_explicit_nulls(true)
            .build::<_, JsonArray>(&mut buffer);
        let refs: Vec<&RecordBatch> = batches.iter().collect();
        writer
            .write_batches(&refs)
            .and_then(|()| writer.finish())
            .map_err(|e| Error::Output(format!("replay selection as JSON: {e}")))?;
    }
    if buffer.is_empty() {
        return Ok(Vec::new());
    }
    match serde_json::from_slice(&buffer) {
        Ok(Value::Array(rows)) => Ok(rows),
        _ => Ok(Vec::new()),
    }
}

fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

const SIGNATURE_COLUMNS: &str = "r.trace, r.ex_uid, r.name, r.count, r.status, r.reason, \
     r.traced_kernel_us_total, r.traced_kernel_us_median, r.traced_kernel_us_min, \
     r.traced_kernel_us_max, r.input_types_json, r.input_dims_json, r.input_strides_json, \
     r.concrete_inputs_json";

/// The replay_ir rows of the signature of each of `uids`' calls.
async fn signatures_of_uids(engine: &Engine, uids: &[i64]) -> Result<Vec<Value>, Error> {
    if uids.is_empty() {
        return Ok(Vec::new());
    }
    let list: Vec<String> = uids.iter().map(i64::to_string).collect();
    let sql = format!(
        "SELECT DISTINCT {SIGNATURE_COLUMNS} FROM replay_ir r JOIN ops o \
           ON o.name = r.name \
          AND (CAST(o.input_types_json AS VARCHAR) IS NOT DISTINCT FROM CAST(r.input_types_json AS VARCHAR)) \
          AND (CAST(o.input_dims_json AS VARCHAR) IS NOT DISTINCT FROM CAST(r.input_dims_json AS VARCHAR)) \
          AND (CAST(o.input_strides_json AS VARCHAR) IS NOT DISTINCT FROM CAST(r.input_strides_json AS VARCHAR)) \
          AND (CAST(o.concrete_inputs_json AS VARCHAR) IS NOT DISTINCT FROM CAST(r.concrete_inputs_json AS VARCHAR)) \
         WHERE o.uid IN ({}) ORDER BY r.traced_kernel_us_total DESC, r.ex_uid",
        list.join(", ")
    );
    rows(engine, &sql).await
}

/// The replay_ir rows `selection` names.
async fn select(
    engine: &Engine,
    selection: &Selection,
    filter: FindingFilter,
) -> Result<Vec<Value>, Error> {
    match selection {
        Selection::Uid(uid) => {
            let found = signatures_of_uids(engine, &[*uid]).await?;
            if found.is_empty() {
                return Err(Error::Usage(no_op_at(engine, *uid).await?));
            }
            Ok(found)
        }
        Selection::Op {
            name,
            shape_of: Some(uid),
        } => {
            let found: Vec<Value> = signatures_of_uids(engine, &[*uid])
                .await?
                .into_iter()
                .filter(|r| r["name"].as_str() == Some(name))
                .collect();
            if found.is_empty() {
                return Err(Error::Usage(format!(
                    "--shape-of {uid}: no call of {name} with GPU work has that uid"
                )));
            }
            Ok(found)
        }
        Selection::Op {
            name,
            shape_of: None,
        } => {
            let sql = format!(
                "SELECT {SIGNATURE_COLUMNS} FROM replay_ir r WHERE r.name = {} \
                 ORDER BY r.traced_kernel_us_total DESC, r.ex_uid",
                quoted(name)
            );
            let found = rows(engine, &sql).await?;
            if found.is_empty() {
                return Err(Error::Usage(format!(
                    "--op {name}: no call of that op launched GPU work in the trace (names are exact: see `SELECT DISTINCT name FROM replay_ir`)"
                )));
            }
            Ok(found)
        }
        Selection::All => {
            let sql = format!(
                "SELECT {SIGNATURE_COLUMNS} FROM replay_ir r ORDER BY r.traced_kernel_us_total DESC, r.ex_uid"
            );
            rows(engine, &sql).await
        }
        Selection::Findings(findings) => {
            let total: f64 = rows(
                engine,
                "SELECT sum(traced_kernel_us_total) AS t FROM replay_ir",
            )
            .await?
            .first()
            .and_then(|r| r["t"].as_f64())
            .unwrap_or(0.0);
            let uids = finding_uids(findings, total, filter);
            signatures_of_uids(engine, &uids).await
        }
    }
}

/// Why `uid` has nothing to replay.
async fn no_op_at(engine: &Engine, uid: i64) -> Result<String, Error> {
    let found = rows(
        engine,
        &format!("SELECT name, direct_kernel_count FROM ops WHERE uid = {uid}"),
    )
    .await?;
    Ok(match found.first() {
        None => format!("--uid {uid}: no cpu_op has that uid (see ops.uid, or ex_UID in the perf reports)"),
        Some(row) => format!(
            "--uid {uid}: {} launched no GPU work itself, so there is nothing to time (replay the op below it that launches the kernels)",
            row["name"].as_str().unwrap_or("the op")
        ),
    })
}

/// The first evidence uid of every finding about an op group that passes
/// `filter`, largest time first (the findings' own order).
fn finding_uids(findings: &[Value], total_us: f64, filter: FindingFilter) -> Vec<i64> {
    let mut uids = Vec::new();
    for f in findings {
        let time = f["time_us"].as_f64().unwrap_or(0.0);
        let share = if total_us > 0.0 {
            100.0 * time / total_us
        } else {
            0.0
        };
        let efficient = f["efficiency_pct"]
            .as_f64()
            .is_none_or(|e| e >= filter.max_efficiency_pct);
        if share <= filter.min_share_pct || efficient {
            continue;
        }
        if let Some(uid) = f["evidence_uids"]
            .as_array()
            .and_then(|u| u.first())
            .and_then(Value::as_i64)
        {
            if !uids.contains(&uid) {
                uids.push(uid);
            }
        }
    }
    uids
}

/// The kernel names each of the signature's calls launched (for the replay's
/// `--profile` check).
async fn kernel_names(engine: &Engine, row: &Value) -> Result<Vec<String>, Error> {
    let eq = |col: &str| match row[col].as_str() {
        Some(text) => format!("o.{col} = {}", quoted(text)),
        None => format!("o.{col} IS NULL"),
    };
    let sql = format!(
        "SELECT DISTINCT k.name FROM kernels k JOIN ops o ON k.op_uid = o.uid \
         WHERE o.name = {} AND {} AND {} AND {} AND {} ORDER BY k.name",
        quoted(row["name"].as_str().unwrap_or_default()),
        eq("input_types_json"),
        eq("input_dims_json"),
        eq("input_strides_json"),
        eq("concrete_inputs_json")
    );
    Ok(rows(engine, &sql)
        .await?
        .iter()
        .filter_map(|r| r["name"].as_str().map(str::to_string))
        .collect())
}

/// Where the signature's first call ran: ts, pid, tid.
async fn call_site(engine: &Engine, uid: i64) -> Result<Json, Error> {
    let found = rows(
        engine,
        &format!("SELECT ts, pid, tid FROM ops WHERE uid = {uid}"),
    )
    .await?;
    let row = found.first().cloned().unwrap_or(Value::Null);
    Ok(Json::object([
        ("uid", Json::int(uid)),
        ("ts", row["ts"].as_f64().map_or(Json::Null, Json::Float)),
        ("pid", row["pid"].as_str().map_or(Json::Null, Json::str)),
        ("tid", row["tid"].as_str().map_or(Json::Null, Json::str)),
    ]))
}

fn event_of(row: &Value) -> OpEvent {
    OpEvent::from_json_texts(
        row["name"].as_str().unwrap_or_default(),
        row["input_types_json"].as_str(),
        row["input_dims_json"].as_str(),
        row["input_strides_json"].as_str(),
        row["concrete_inputs_json"].as_str(),
    )
}

/// `<safe op name>__<8 hex of the signature's hash>`: stable for the same
/// signature in any trace.
pub fn signature_id(row: &Value) -> String {
    let mut hash = Sha256::new();
    for col in [
        "name",
        "input_types_json",
        "input_dims_json",
        "input_strides_json",
        "concrete_inputs_json",
    ] {
        hash.update(row[col].as_str().unwrap_or("\u{0}").as_bytes());
        hash.update([0xff]);
    }
    let digest = package::hex(&hash.finalize());
    format!(
        "{}__{}",
        replay::safe_name(row["name"].as_str().unwrap_or("op")),
        &digest[..8]
    )
}

/// The native IR entry of a selected row, with id, provenance, count and
/// traced times.
async fn entry_of(engine: &Engine, row: &Value) -> Result<(Entry, replay::Outcome), Error> {
    let outcome = replay::build(&event_of(row), Mode::Native);
    let id = signature_id(row);
    let ex_uid = row["ex_uid"].as_i64().unwrap_or(-1);
    let median = row["traced_kernel_us_median"].as_f64();
    let number = |col: &str| row[col].as_f64().map_or(Json::Null, Json::Float);
    let traced = Json::object([
        ("kernel_us_median", number("traced_kernel_us_median")),
        ("kernel_us_min", number("traced_kernel_us_min")),
        ("kernel_us_max", number("traced_kernel_us_max")),
        ("kernel_us_total", number("traced_kernel_us_total")),
        (
            "kernel_names",
            Json::List(
                kernel_names(engine, row)
                    .await?
                    .into_iter()
                    .map(Json::Str)
                    .collect(),
            ),
        ),
    ]);
    let mut ir = Json::object([("id", Json::str(&id))]);
    if let Some(Json::Object(pairs)) = &outcome.ir {
        for (k, v) in pairs {
            ir.push(k, v.clone());
        }
    }
    ir.push("provenance", call_site(engine, ex_uid).await?);
    ir.push("count", Json::int(row["count"].as_i64().unwrap_or(0)));
    ir.push("traced", traced);
    let entry = Entry {
        ir,
        op_name: row["name"].as_str().unwrap_or_default().to_string(),
        count: row["count"].as_i64().unwrap_or(0),
        traced_median_us: median,
        assumptions: outcome.warnings.clone(),
    };
    Ok((entry, outcome))
}

fn sha256_of_file(path: &str) -> String {
    if path == "-" {
        return "unknown (standard input)".into();
    }
    crate::load::sha256_file(Path::new(path)).unwrap_or_else(|_| "unknown".into())
}

/// Everything a replay run writes, staged before any file is renamed in.
pub struct Written {
    pub packaged: Vec<Packaged>,
    pub dir: PathBuf,
}

/// Packages `selection`'s ops into `out` (created if needed):
/// `replay_ir.json`, `replay.py` and `README.md` for all of them,
/// `replay_packages/<id>.zip` per signature and `<op>_replay_package.zip` per
/// op name; with `compat`, also TraceLens's `event_replay_ir.json`.
pub async fn write_packages(
    engine: &Engine,
    source: &Source,
    selection: &Selection,
    filter: FindingFilter,
    defaults: &RunDefaults,
    out: &Path,
) -> Result<Written, Error> {
    let selected = select(engine, selection, filter).await?;
    let header = Header {
        trace: Path::new(&source.path)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| source.path.clone()),
        trace_sha256: sha256_of_file(&source.path),
        platform: engine.platform(),
        schema_catalog: replay::catalog::shipped().version.clone(),
        run_defaults: run_defaults(defaults),
    };
    let mut entries = Vec::new();
    let mut packaged = Vec::new();
    let mut compat_irs = Vec::new();
    for row in &selected {
        let (entry, outcome) = entry_of(engine, row).await?;
        let ok = outcome.status == replay::Status::Ok;
        let id = signature_id(row);
        packaged.push(Packaged {
            id: id.clone(),
            op_name: entry.op_name.clone(),
            ex_uid: row["ex_uid"].as_i64().unwrap_or(-1),
            count: entry.count,
            status: outcome.status.as_str().to_string(),
            reason: outcome.reason.clone(),
            package: ok.then(|| format!("replay_packages/{id}.zip")),
            op_package: ok.then(|| {
                format!(
                    "replay_packages/{}_replay_package.zip",
                    replay::safe_name(&entry.op_name)
                )
            }),
            traced_median_us: entry.traced_median_us,
        });
        if engine.tracelens_compat() {
            let compat = replay::build(&event_of(row), Mode::Compat);
            if let Some(ir) = compat.ir {
                compat_irs.push(ir);
            }
        }
        entries.push((entry, ok));
    }
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let all: Vec<Entry> = entries.iter().map(|(e, _)| e.clone()).collect();
    let document = package::ir_document(&header, &all);
    files.push((
        out.join(package::IR_FILE),
        (to_string(&document, Style::STRICT) + "\n").into_bytes(),
    ));
    files.push((out.join("replay.py"), package::RUNNER.as_bytes().to_vec()));
    files.push((
        out.join("README.md"),
        package::readme("replay", &header, &all).into_bytes(),
    ));
    if engine.tracelens_compat() {
        let text = to_string(&Json::List(compat_irs), Style::PYTHON_INDENT4);
        files.push((out.join("event_replay_ir.json"), text.into_bytes()));
    }
    let packages = out.join("replay_packages");
    let mut by_op: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    for ((entry, ok), p) in entries.iter().zip(&packaged) {
        if !ok {
            continue;
        }
        files.push((
            packages.join(format!("{}.zip", p.id)),
            zip_of(&p.id, &header, std::slice::from_ref(entry))?,
        ));
        by_op
            .entry(entry.op_name.clone())
            .or_default()
            .push(entry.clone());
    }
    for (op, op_entries) in &by_op {
        let name = format!("{}_replay_package", replay::safe_name(op));
        files.push((
            packages.join(format!("{name}.zip")),
            zip_of(&name, &header, op_entries)?,
        ));
    }
    commit(out, files)?;
    Ok(Written {
        packaged,
        dir: out.to_path_buf(),
    })
}

fn run_defaults(defaults: &RunDefaults) -> Json {
    let mut run = Json::object([]);
    if let Some(device) = &defaults.device {
        run.push("device", Json::str(device));
    }
    if let Some(iters) = defaults.iters {
        run.push("iters", Json::int(i64::from(iters)));
    }
    run
}

fn zip_of(name: &str, header: &Header, entries: &[Entry]) -> Result<Vec<u8>, Error> {
    let files = package::files(name, header, entries);
    package::zip(name, &files).map_err(|e| Error::Output(format!("{name}.zip: {e}")))
}

fn commit(out: &Path, files: Vec<(PathBuf, Vec<u8>)>) -> Result<(), Error> {
    let dir_err = |dir: &Path, e: std::io::Error| {
        Error::Output(format!("{}: cannot create directory: {e}", dir.display()))
    };
    std::fs::create_dir_all(out.join("replay_packages")).map_err(|e| dir_err(out, e))?;
    let mut staged = atomic::Staged::new();
    for (path, bytes) in files {
        staged
            .stage(&path, |w: &mut dyn Write| w.write_all(&bytes))
            .map_err(|e| Error::Output(format!("{}: {e}", path.display())))?;
    }
    staged
        .commit()
        .map_err(|e| Error::Output(format!("{}: {e}", out.display())))
}
