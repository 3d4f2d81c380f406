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

use datafusion::arrow::record_batch::RecordBatch;
use serde_json::Value;

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

/// Which recommendations of an analysis get a package.
#[derive(Debug, Clone, Copy)]
pub enum FindingFilter {
    /// The analysis workflow's Path B criteria (`replay --findings`):
    /// more than `min_share_pct` of the kernel time of all launching ops and
    /// below `max_efficiency_pct` of peak (recommendations without an
    /// efficiency are left out).
    Thresholds {
        min_share_pct: f64,
        max_efficiency_pct: f64,
    },
    /// Every recommendation about an op group that has a Path B (kernel)
    /// action (`analyze --replay`).
    PathB,
}

impl Default for FindingFilter {
    fn default() -> Self {
        FindingFilter::Thresholds {
            min_share_pct: 10.0,
            max_efficiency_pct: 30.0,
        }
    }
}

impl FindingFilter {
    fn keeps(&self, f: &Value, total_us: f64) -> bool {
        match *self {
            FindingFilter::Thresholds {
                min_share_pct,
                max_efficiency_pct,
            } => {
                let time = f["time_us"].as_f64().unwrap_or(0.0);
                let share = if total_us > 0.0 {
                    100.0 * time / total_us
                } else {
                    0.0
                };
                let slow = f["efficiency_pct"]
                    .as_f64()
                    .is_some_and(|e| e < max_efficiency_pct);
                share > min_share_pct && slow
            }
            FindingFilter::PathB => {
                let has_action = |r: &Value| r["action_b"].as_str().is_some_and(|a| !a.is_empty());
                let reasons = f["reasons"].as_array();
                let path_b = reasons.map_or(has_action(f), |rs| rs.iter().any(has_action));
                path_b && !f["op_name"].is_null()
            }
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
    crate::output::json_rows(&batches)
        .map_err(|e| Error::Output(format!("replay selection as JSON: {e}")))
}

fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The four argument lists that, with the name, make a signature.
const ARG_LISTS: [&str; 4] = [
    "input_types_json",
    "input_dims_json",
    "input_strides_json",
    "concrete_inputs_json",
];

/// One row per signature of the ops with GPU work below them that `filter`
/// (over `ops o`) keeps: the signature, its first call (uid, ts, pid, tid),
/// its calls' count and GPU time, and the names of the kernels below them.
/// An op that launched kernels itself is timed by those
/// (`direct_kernel_time`); one whose kernels a child launched (SDPA above
/// flash attention) by its subtree's. One query for every signature: the
/// kernel closure (`kernel_ancestors`) is read once.
fn signatures_sql(filter: &str) -> String {
    let lists: Vec<String> = ARG_LISTS
        .iter()
        .map(|c| format!("CAST(o.{c} AS VARCHAR) AS {c}"))
        .collect();
    let same: Vec<String> = ARG_LISTS
        .iter()
        .map(|c| format!("(n.{c} IS NOT DISTINCT FROM s.{c})"))
        .collect();
    format!(
        "WITH calls AS (
           SELECT o.uid, o.name, o.ts, o.pid, o.tid, {lists},
                  CASE WHEN o.direct_kernel_count > 0 THEN o.direct_kernel_time
                       ELSE o.subtree_kernel_time END AS t
           FROM ops o WHERE o.subtree_kernel_count > 0 AND ({filter})),
         signatures AS (
           SELECT name, {cols}, min(uid) AS ex_uid, count(*) AS count,
                  first_value(ts ORDER BY uid) AS ex_ts,
                  first_value(CAST(pid AS VARCHAR) ORDER BY uid) AS ex_pid,
                  first_value(CAST(tid AS VARCHAR) ORDER BY uid) AS ex_tid,
                  sum(t) AS traced_kernel_us_total, median(t) AS traced_kernel_us_median,
                  min(t) AS traced_kernel_us_min, max(t) AS traced_kernel_us_max
           FROM calls GROUP BY name, {cols}),
         names AS (
           SELECT c.name, {c_cols}, array_sort(array_agg(DISTINCT k.name)) AS kernel_names
           FROM calls c
           JOIN kernel_ancestors a ON a.ancestor_uid = c.uid
           JOIN kernels k ON k.uid = a.kernel_uid
           GROUP BY c.name, {c_cols})
         SELECT s.*, n.kernel_names
         FROM signatures s
         LEFT JOIN names n ON n.name = s.name AND {same}
         ORDER BY traced_kernel_us_total DESC, ex_uid",
        lists = lists.join(", "),
        cols = ARG_LISTS.join(", "),
        c_cols = ARG_LISTS.map(|c| format!("c.{c}")).join(", "),
        same = same.join(" AND ")
    )
}

/// The signatures of each of `uids`' calls.
async fn signatures_of_uids(engine: &Engine, uids: &[i64]) -> Result<Vec<Value>, Error> {
    if uids.is_empty() {
        return Ok(Vec::new());
    }
    let list: Vec<String> = uids.iter().map(i64::to_string).collect();
    let same: Vec<String> = ARG_LISTS
        .iter()
        .map(|c| format!("(CAST(p.{c} AS VARCHAR) IS NOT DISTINCT FROM CAST(o.{c} AS VARCHAR))"))
        .collect();
    let filter = format!(
        "EXISTS (SELECT 1 FROM ops p WHERE p.uid IN ({}) AND p.name = o.name AND {})",
        list.join(", "),
        same.join(" AND ")
    );
    rows(engine, &signatures_sql(&filter)).await
}

/// The signatures `selection` names.
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
            let found = rows(
                engine,
                &signatures_sql(&format!("o.name = {}", quoted(name))),
            )
            .await?;
            if found.is_empty() {
                return Err(Error::Usage(format!(
                    "--op {name}: no call of that op launched GPU work in the trace (names are exact: see `SELECT DISTINCT name FROM replay_ir`)"
                )));
            }
            Ok(found)
        }
        // Ops that launched kernels themselves: their parents' time is theirs.
        Selection::All => rows(engine, &signatures_sql("o.direct_kernel_count > 0")).await,
        Selection::Findings(findings) => {
            // The kernel time of all launching ops (replay_ir's total), without
            // building every signature's IR to sum it.
            let total: f64 = rows(engine, "SELECT sum(direct_kernel_time) AS t FROM ops")
                .await?
                .first()
                .and_then(|r| r["t"].as_f64())
                .unwrap_or(0.0);
            let mut found = Vec::new();
            for uid in finding_uids(findings, total, filter) {
                for mut row in signatures_of_uids(engine, &[uid]).await? {
                    row["requested_uid"] = Value::from(uid);
                    found.push(row);
                }
            }
            if let (
                true,
                FindingFilter::Thresholds {
                    min_share_pct,
                    max_efficiency_pct,
                },
            ) = (found.is_empty(), filter)
            {
                return Err(Error::Usage(format!(
                    "--findings: no recommendation about an op takes more than {min_share_pct}% of the time at under {max_efficiency_pct}% of peak (change --min-share / --max-efficiency)"
                )));
            }
            Ok(found)
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
        None => format!(
            "--uid {uid}: no cpu_op has that uid (see ops.uid, or ex_UID in the perf reports)"
        ),
        Some(row) => format!(
            "--uid {uid}: no GPU work ran below {}, so there is nothing to time",
            row["name"].as_str().unwrap_or("the op")
        ),
    })
}

/// The example uid of every recommendation (findings.json) about an op group
/// that passes `filter`, in the recommendations' order. Rows of the older
/// one-row-per-rule layout name their first evidence uid instead.
fn finding_uids(findings: &[Value], total_us: f64, filter: FindingFilter) -> Vec<i64> {
    let mut uids = Vec::new();
    for f in findings.iter().filter(|f| filter.keeps(f, total_us)) {
        let first_evidence = || {
            f["evidence_uids"]
                .as_array()
                .and_then(|u| u.first())
                .and_then(Value::as_i64)
        };
        if let Some(uid) = f["ex_uid"].as_i64().or_else(first_evidence) {
            if !uids.contains(&uid) {
                uids.push(uid);
            }
        }
    }
    uids
}

/// The signature's event, with the trace's tensor-list dtype (view
/// `replay_list_dtype`) that `prepare_packages` put in the row.
fn event_of(row: &Value) -> OpEvent {
    let mut event = OpEvent::from_json_texts(
        row["name"].as_str().unwrap_or_default(),
        row["input_types_json"].as_str(),
        row["input_dims_json"].as_str(),
        row["input_strides_json"].as_str(),
        row["concrete_inputs_json"].as_str(),
    );
    event.list_dtype_hint = row["list_dtype"].as_str().map(str::to_string);
    event
}

/// `<safe op name>__<8 hex of the signature's hash>`: stable for the same
/// signature in any trace.
pub fn signature_id(row: &Value) -> String {
    let lists = ARG_LISTS.map(|c| row[c].as_str());
    replay::signature_id(row["name"].as_str().unwrap_or("op"), lists)
}

/// The names of the kernels below the signature's calls (for the replay's
/// `--profile` check), as the signatures query gives them.
fn kernel_names(row: &Value) -> Json {
    let names = row["kernel_names"].as_array().into_iter().flatten();
    Json::List(names.filter_map(Value::as_str).map(Json::str).collect())
}

/// The native IR entry of a selected row (`id` its signature id), with
/// provenance, count and traced times.
fn entry_of(row: &Value, id: &str) -> (Entry, replay::Outcome) {
    let outcome = replay::build(&event_of(row), Mode::Native);
    let ex_uid = row["ex_uid"].as_i64().unwrap_or(-1);
    let median = row["traced_kernel_us_median"].as_f64();
    let number = |col: &str| row[col].as_f64().map_or(Json::Null, Json::Float);
    let text = |col: &str| row[col].as_str().map_or(Json::Null, Json::str);
    let traced = Json::object([
        ("kernel_us_median", number("traced_kernel_us_median")),
        ("kernel_us_min", number("traced_kernel_us_min")),
        ("kernel_us_max", number("traced_kernel_us_max")),
        ("kernel_us_total", number("traced_kernel_us_total")),
        ("kernel_names", kernel_names(row)),
    ]);
    let mut ir = Json::object([("id", Json::str(id))]);
    if let Some(Json::Object(pairs)) = &outcome.ir {
        for (k, v) in pairs {
            ir.push(k, v.clone());
        }
    }
    ir.push(
        "provenance",
        Json::object([
            ("uid", Json::int(ex_uid)),
            ("ts", number("ex_ts")),
            ("pid", text("ex_pid")),
            ("tid", text("ex_tid")),
        ]),
    );
    ir.push("count", Json::int(row["count"].as_i64().unwrap_or(0)));
    ir.push("traced", traced);
    let entry = Entry {
        ir,
        op_name: row["name"].as_str().unwrap_or_default().to_string(),
        count: row["count"].as_i64().unwrap_or(0),
        traced_median_us: median,
        assumptions: outcome.warnings.clone(),
    };
    (entry, outcome)
}

fn sha256_of_file(path: &str) -> String {
    if path == "-" {
        return "unknown (standard input)".into();
    }
    crate::load::sha256_file(Path::new(path)).unwrap_or_else(|_| "unknown".into())
}

/// Where the files go: the IR, runner and README in `top`, the zips in
/// `packages` (`replay`: DIR and DIR/replay_packages; `analyze --replay`:
/// both DIR/replay_packages).
#[derive(Debug, Clone)]
pub struct Layout {
    pub top: PathBuf,
    pub packages: PathBuf,
}

impl Layout {
    /// `tracesql replay --out DIR`.
    pub fn replay(out: &Path) -> Layout {
        Layout {
            top: out.to_path_buf(),
            packages: out.join("replay_packages"),
        }
    }

    /// Beside an analysis in `dir`.
    pub fn beside_analysis(dir: &Path) -> Layout {
        let packages = dir.join("replay_packages");
        Layout {
            top: packages.clone(),
            packages,
        }
    }
}

/// A replay run's files, built and not yet written: [`Prepared::commit`]
/// writes them all or none.
pub struct Prepared {
    pub packaged: Vec<Packaged>,
    /// For a findings selection: each recommendation's example uid → its
    /// signature's package, relative to the layout's parent of `packages`.
    pub links: BTreeMap<i64, String>,
    pub layout: Layout,
    files: Vec<(PathBuf, Vec<u8>)>,
}

impl Prepared {
    /// Writes every file (directories created), atomically per file and
    /// renamed in only once all are written.
    pub fn commit(&self) -> Result<(), Error> {
        commit(&self.layout, &self.files)
    }
}

/// [`prepare_packages`] and commit: `tracesql replay`.
pub async fn write_packages(
    engine: &Engine,
    source: &Source,
    selection: &Selection,
    filter: FindingFilter,
    defaults: &RunDefaults,
    out: &Path,
) -> Result<Prepared, Error> {
    let prepared = prepare_packages(
        engine,
        source,
        selection,
        filter,
        defaults,
        Layout::replay(out),
    )
    .await?;
    prepared.commit()?;
    Ok(prepared)
}

/// Packages `selection`'s ops: `replay_ir.json`, `replay.py` and `README.md`
/// for all of them, `<id>.zip` per signature and `<op>_replay_package.zip`
/// per op name; with `--tracelens-compat`, also TraceLens's
/// `event_replay_ir.json`.
pub async fn prepare_packages(
    engine: &Engine,
    source: &Source,
    selection: &Selection,
    filter: FindingFilter,
    defaults: &RunDefaults,
    layout: Layout,
) -> Result<Prepared, Error> {
    let mut selected = select(engine, selection, filter).await?;
    let list_dtype = rows(engine, "SELECT dtype FROM replay_list_dtype").await?;
    if let Some(dtype) = list_dtype.first().map(|r| r["dtype"].clone()) {
        for row in &mut selected {
            row["list_dtype"] = dtype.clone();
        }
    }
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
    let mut entries: Vec<(Entry, bool)> = Vec::new();
    let mut packaged: Vec<Packaged> = Vec::new();
    let mut links = BTreeMap::new();
    let mut compat_irs = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for row in &selected {
        let id = signature_id(row);
        if let Some(uid) = row["requested_uid"].as_i64() {
            links.insert(uid, format!("replay_packages/{id}.zip"));
        }
        // A signature two recommendations share is packaged once.
        if !seen.insert(id.clone()) {
            continue;
        }
        let (entry, outcome) = entry_of(row, &id);
        let ok = outcome.status == replay::Status::Ok;
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
            if let Some(ir) = replay::build(&event_of(row), Mode::Compat).ir {
                compat_irs.push(ir);
            }
        }
        entries.push((entry, ok));
    }
    links.retain(|_, path| {
        packaged
            .iter()
            .any(|p| p.package.as_deref() == Some(path.as_str()))
    });
    let top = &layout.top;
    let all: Vec<Entry> = entries.iter().map(|(e, _)| e.clone()).collect();
    let document = package::ir_document(&header, &all);
    let mut files: Vec<(PathBuf, Vec<u8>)> = vec![
        (
            top.join(package::IR_FILE),
            (to_string(&document, Style::STRICT) + "\n").into_bytes(),
        ),
        (top.join("replay.py"), package::RUNNER.as_bytes().to_vec()),
        (
            top.join("README.md"),
            package::readme("replay", &header, &all).into_bytes(),
        ),
    ];
    if engine.tracelens_compat() {
        let text = to_string(&Json::List(compat_irs), Style::PYTHON_INDENT4);
        files.push((top.join("event_replay_ir.json"), text.into_bytes()));
    }
    let mut by_op: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    for ((entry, ok), p) in entries.iter().zip(&packaged) {
        if !ok {
            continue;
        }
        let zip = zip_of(&p.id, &header, std::slice::from_ref(entry))?;
        files.push((layout.packages.join(format!("{}.zip", p.id)), zip));
        by_op
            .entry(entry.op_name.clone())
            .or_default()
            .push(entry.clone());
    }
    for (op, op_entries) in &by_op {
        let name = format!("{}_replay_package", replay::safe_name(op));
        files.push((
            layout.packages.join(format!("{name}.zip")),
            zip_of(&name, &header, op_entries)?,
        ));
    }
    Ok(Prepared {
        packaged,
        links,
        layout,
        files,
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

fn commit(layout: &Layout, files: &[(PathBuf, Vec<u8>)]) -> Result<(), Error> {
    for dir in [&layout.top, &layout.packages] {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::Output(format!("{}: cannot create directory: {e}", dir.display()))
        })?;
    }
    let mut staged = atomic::Staged::new();
    for (path, bytes) in files {
        staged
            .stage(path, |w: &mut dyn Write| w.write_all(bytes))
            .map_err(|e| Error::Output(format!("{}: {e}", path.display())))?;
    }
    staged
        .commit()
        .map_err(|e| Error::Output(format!("{}: {e}", layout.top.display())))
}
