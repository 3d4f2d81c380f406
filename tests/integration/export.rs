//! Exports: the Parquet dataset (layout, metadata, redaction, reopening it in place
//! of the trace), the Excel workbook, and that a failed export leaves the previous
//! one as it was.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use calamine::{open_workbook, Data, Reader, Xlsx};
use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::Float64Type;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};

use tracesql::catalog::Catalog;
use tracesql::engine::Engine;
use tracesql::export::{export_parquet, ExportOptions};
use tracesql::load::{load_input, load_trace, LoadedTrace, Manifest, MARKER};
use tracesql::model::TABLES;
use tracesql::report::{run_reports, Sheet};

use crate::util::{self, files_under, fixture, snapshot, tracesql, tracesql_ok};

fn options(redact: bool) -> ExportOptions<'static> {
    ExportOptions {
        redact,
        before_write: None,
        prepare: None,
    }
}

async fn export(inputs: &[&str], dir: &Path, options: &ExportOptions<'_>) -> Manifest {
    let inputs: Vec<String> = inputs.iter().map(|s| s.to_string()).collect();
    let catalog = Catalog::builtin().expect("catalog");
    export_parquet(&inputs, dir, &catalog, options)
        .await
        .unwrap_or_else(|e| panic!("export to {}: {e}", dir.display()))
}

/// The tables of a trace by name.
fn tables(trace: &LoadedTrace) -> BTreeMap<&'static str, RecordBatch> {
    let tables = trace.full_tables().expect("events.args read back");
    let tables: BTreeMap<_, _> = tables.into_iter().collect();
    // ops' input lists are parsed for the export (not held by a load): one
    // for each JSON text, so that a round trip compares values, not NULLs.
    let ops = &tables["ops"];
    for (list, json) in [
        ("input_dims", "input_dims_json"),
        ("concrete_inputs", "concrete_inputs_json"),
    ] {
        let count = |c: &str| ops.num_rows() - ops.column_by_name(c).expect(c).null_count();
        assert_eq!(count(list), count(json), "{}: ops.{list}", trace.name);
    }
    tables
}

/// Every report of `trace`, computed single-threaded so that float sums add up
/// in the same order every time (parallel aggregation may differ in the last bit).
async fn reports(trace: LoadedTrace) -> Vec<Sheet> {
    let mut engine = Engine::new();
    engine
        .run_sql("SET datafusion.execution.target_partitions = 1")
        .await
        .expect("set partitions");
    engine.add(trace).expect("add");
    engine.register_views().await.expect("views");
    run_reports(&engine, None).await.expect("reports")
}

fn assert_same_tables(label: &str, json: &LoadedTrace, reopened: &LoadedTrace) {
    assert_eq!(json.name, reopened.name, "{label}: trace name");
    let (a, b) = (tables(json), tables(reopened));
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{label}: table names"
    );
    for (name, batch) in &a {
        let other = &b[name];
        assert_eq!(batch.schema(), other.schema(), "{label}: {name} schema");
        assert_eq!(batch.num_rows(), other.num_rows(), "{label}: {name} rows");
        assert!(
            batch == other,
            "{label}: table {name} differs after the round trip"
        );
    }
}

async fn assert_same_reports(label: &str, json: LoadedTrace, reopened: LoadedTrace) {
    let (a, b) = (reports(json).await, reports(reopened).await);
    let names = |s: &[Sheet]| s.iter().map(|s| s.query_name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "{label}: reports");
    assert!(!a.is_empty(), "{label}: no reports ran");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.header, y.header, "{label}: {} header", x.query_name);
        assert_eq!(x.rows(), y.rows(), "{label}: {} rows", x.query_name);
        if x.rows() == 0 {
            continue;
        }
        let schema = x.batches[0].schema();
        let xa = concat_batches(&schema, &x.batches).expect("concat");
        let ya = concat_batches(&schema, &y.batches).expect("concat");
        assert!(
            xa == ya,
            "{label}: report {} differs from the export",
            x.query_name
        );
    }
}

/// Export `trace` (unredacted), reopen it, and check every table and report.
async fn round_trip(label: &str, trace: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("export");
    export(&[trace], &out, &options(false)).await;
    let mut reopened = load_input(out.to_str().unwrap()).expect("reopen");
    assert_eq!(reopened.len(), 1);
    let reopened = reopened.pop().unwrap();
    let json = load_trace(trace).expect("load json");
    assert_same_tables(label, &json, &reopened);
    assert_same_reports(label, json, reopened).await;
}

#[tokio::test]
async fn fixtures_round_trip_every_table_and_report() {
    for name in ["basic_linear.json", "gpu_only.json", "nccl_graph.json"] {
        round_trip(name, &fixture(name)).await;
    }
}

#[tokio::test]
async fn conformance_traces_round_trip_every_table_and_report() {
    let Some(data) = util::conformance_dir() else {
        return;
    };
    // A CUDA trace with host ops, and a GPU-only ROCm trace (other report set).
    for id in [
        "h100/gaunernst_bert-small-uncased__1016001",
        "mi210/gpu_only_trace",
    ] {
        let trace = data.join("traces").join(format!("{id}.json.gz"));
        assert!(trace.is_file(), "{} missing", trace.display());
        round_trip(id, trace.to_str().unwrap()).await;
    }
}

#[tokio::test]
async fn several_traces_are_hive_partitions_and_reopen_side_by_side() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("run");
    let (a, b) = (fixture("basic_linear.json"), fixture("gpu_only.json"));
    // The same file twice gets a second name, as in a session.
    let manifest = export(&[&a, &b, &a], &out, &options(false)).await;
    assert!(manifest.partitioned);
    let names: Vec<&str> = manifest
        .traces
        .iter()
        .map(|t| t.info.name.as_str())
        .collect();
    assert_eq!(names, ["basic_linear", "gpu_only", "basic_linear#2"]);
    for name in &names {
        for table in TABLES {
            let file = out
                .join("tables")
                .join(table.name)
                .join(format!("trace={name}"))
                .join("part-0.parquet");
            assert!(file.is_file(), "{} missing", file.display());
        }
        let report = out
            .join("reports/gpu_timeline")
            .join(format!("trace={name}/part-0.parquet"));
        assert!(report.is_file(), "{} missing", report.display());
    }
    let reopened = load_input(out.to_str().unwrap()).expect("reopen");
    assert_eq!(reopened.len(), 3);
    let json = [
        load_trace(&a).unwrap(),
        load_trace(&b).unwrap(),
        load_trace(&a).unwrap().renamed("basic_linear#2").unwrap(),
    ];
    for (j, r) in json.iter().zip(&reopened) {
        assert_same_tables(&r.name, j, r);
    }
    // Queries over the reopened export see every trace.
    let output = tracesql()
        .args(["query", out.to_str().unwrap(), "--format", "csv", "-e"])
        .arg("SELECT trace, count(*) AS n FROM kernels GROUP BY trace ORDER BY trace")
        .run();
    assert!(output.success(), "{}", output.stderr);
    assert_eq!(
        output.stdout,
        "trace,n\nbasic_linear,5\nbasic_linear#2,5\ngpu_only,5\n"
    );
}

#[tokio::test]
async fn every_file_carries_its_provenance() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("export");
    let trace = fixture("basic_linear.json");
    let manifest = export(&[&trace], &out, &options(true)).await;
    let info = &manifest.traces[0].info;
    assert_eq!(info.source_sha256.len(), 64);
    assert_eq!(
        info.device,
        "Synthetic NVIDIA H100-class GPU (tracesql fixture)"
    );
    let marker: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join(MARKER)).unwrap()).unwrap();
    assert_eq!(marker["format"], "tracesql-export");

    let kv = |path: &Path| -> BTreeMap<String, String> {
        let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
        let meta = reader.metadata();
        // zstd, and statistics on every column chunk.
        for column in meta.row_group(0).columns() {
            let codec = column.compression().to_string();
            assert!(codec.starts_with("ZSTD"), "{}: {codec}", path.display());
            assert!(
                column.statistics().is_some(),
                "{}: no statistics",
                path.display()
            );
        }
        meta.file_metadata()
            .key_value_metadata()
            .into_iter()
            .flatten()
            .map(|kv| (kv.key.clone(), kv.value.clone().unwrap_or_default()))
            .collect()
    };
    let table = kv(&out.join("tables/kernels/part-0.parquet"));
    // `trace` is stored as plain text: DuckDB and pyarrow read the partition
    // directories (`trace=NAME`) as a string column of that name, and a dictionary
    // column in the files would not merge with it. Loaded, it is a dictionary again
    // (the round-trip tests compare the reopened tables, types included).
    let file = std::fs::File::open(out.join("tables/kernels/part-0.parquet")).unwrap();
    let stored =
        datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .schema()
            .clone();
    assert_eq!(
        stored.field_with_name("trace").unwrap().data_type(),
        &datafusion::arrow::datatypes::DataType::Utf8
    );
    assert_eq!(table["tracesql.version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        table["tracesql.schema_version"],
        tracesql::model::SCHEMA_VERSION.to_string()
    );
    assert_eq!(table["tracesql.table"], "kernels");
    assert_eq!(table["tracesql.source"], trace);
    assert_eq!(table["tracesql.source_sha256"], info.source_sha256);
    assert_eq!(table["tracesql.device"], info.device);
    assert_eq!(table["tracesql.platform"], info.platform);
    assert_eq!(table["tracesql.redacted"], "true");
    let report = kv(&out.join("reports/gpu_timeline/part-0.parquet"));
    assert_eq!(report["tracesql.query"], "gpu_timeline");
    assert_eq!(report["tracesql.query_version"], "1");
    assert_eq!(report["tracesql.sheet"], "gpu_timeline");
    assert_eq!(report["tracesql.source_sha256"], info.source_sha256);

    // The hash is of the file as stored.
    let expected = tracesql::load::sha256_file(Path::new(&trace)).unwrap();
    assert_eq!(info.source_sha256, expected);
}

/// A copy of a fixture whose top-level metadata carries secrets, as real traces'
/// environment listings do.
fn trace_with_secrets(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fixture("basic_linear.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    doc["metadata"] = serde_json::json!({
        "system": {"env": {"HF_TOKEN": "hf_PLANTED_SECRET_1", "HOME": "/root"}},
        "argv": ["python", "AWS_SECRET_ACCESS_KEY=PLANTED_SECRET_2"]
    });
    doc["api_key"] = serde_json::json!("PLANTED_SECRET_3");
    let path = dir.join("secret_trace.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

fn exported_meta(dir: &Path) -> String {
    let traces = load_input(dir.to_str().unwrap()).expect("reopen");
    let meta = &tables(&traces[0])["trace_meta"];
    let values = meta.column_by_name("value").unwrap().as_string::<i32>();
    (0..values.len())
        .map(|i| values.value(i).to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn secrets_are_redacted_unless_asked_not_to() {
    let dir = tempfile::tempdir().expect("temp dir");
    let trace = trace_with_secrets(dir.path());
    let redacted = dir.path().join("redacted");
    tracesql()
        .arg("export")
        .arg(&trace)
        .arg("--parquet")
        .arg(&redacted)
        .ok();
    let meta = exported_meta(&redacted);
    assert!(
        !meta.contains("PLANTED_SECRET"),
        "a secret was exported: {meta}"
    );
    assert!(
        meta.contains("<redacted>") && meta.contains("/root"),
        "{meta}"
    );
    // Nothing else (reports, manifest) carries it either.
    for entry in files_under(&redacted) {
        let bytes = std::fs::read(&entry).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("PLANTED_SECRET"),
            "{}",
            entry.display()
        );
    }

    // A dataset grown with --append redacts as an export does, in its
    // partitions and its manifest.
    let fleet = dir.path().join("fleet");
    tracesql()
        .args(["export", "--append", "--run", "r1", "--parquet"])
        .arg(&fleet)
        .arg(&trace)
        .ok();
    let meta = exported_meta(&fleet);
    assert!(
        meta.contains("<redacted>") && !meta.contains("PLANTED_SECRET"),
        "{meta}"
    );
    let files = files_under(&fleet);
    assert!(
        files.iter().any(|f| f.to_string_lossy().contains("run=r1")),
        "{files:?}"
    );
    for entry in files {
        let bytes = std::fs::read(&entry).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("PLANTED_SECRET"),
            "{}",
            entry.display()
        );
    }

    let kept = dir.path().join("kept");
    tracesql()
        .arg("export")
        .arg(&trace)
        .arg("--parquet")
        .arg(&kept)
        .arg("--no-redact")
        .ok();
    let meta = exported_meta(&kept);
    for n in 1..=3 {
        assert!(meta.contains(&format!("PLANTED_SECRET_{n}")), "{meta}");
    }

    let help = tracesql().args(["export", "--help"]).run();
    let help = help.stdout;
    assert!(
        help.contains("--no-redact") && help.contains("TOKEN"),
        "{help}"
    );
}

fn leftovers(parent: &Path) -> Vec<String> {
    std::fs::read_dir(parent)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

#[tokio::test]
async fn a_failed_export_leaves_the_previous_one_as_it_was() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("export");
    export(&[&fixture("basic_linear.json")], &out, &options(true)).await;
    let before = snapshot(&out);
    assert!(before.len() > 10);

    // Fail on the sixth data file, with others written or being written.
    let written = AtomicUsize::new(0);
    let fail_sixth = |path: &Path| -> io::Result<()> {
        if written.fetch_add(1, Ordering::SeqCst) == 5 {
            return Err(io::Error::other(format!(
                "injected failure at {}",
                path.display()
            )));
        }
        Ok(())
    };
    let failing = ExportOptions {
        redact: true,
        before_write: Some(&fail_sixth),
        prepare: None,
    };
    let inputs = vec![fixture("gpu_only.json")];
    let catalog = Catalog::builtin().unwrap();
    let err = export_parquet(&inputs, &out, &catalog, &failing)
        .await
        .expect_err("the injected failure stops the export");
    assert!(err.to_string().contains("injected failure"), "{err}");
    assert_eq!(before, snapshot(&out), "the previous export changed");
    assert_eq!(
        leftovers(dir.path()),
        Vec::<String>::new(),
        "temporary files left"
    );
    assert_eq!(
        load_input(out.to_str().unwrap()).unwrap()[0].name,
        "basic_linear"
    );

    // The same export, not failing, replaces it.
    export(&[&fixture("gpu_only.json")], &out, &options(true)).await;
    assert_eq!(
        load_input(out.to_str().unwrap()).unwrap()[0].name,
        "gpu_only"
    );
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

#[tokio::test]
async fn export_refuses_to_replace_what_is_not_an_export() {
    let dir = tempfile::tempdir().expect("temp dir");
    let precious = dir.path().join("precious");
    std::fs::create_dir(&precious).unwrap();
    std::fs::write(precious.join("notes.txt"), "keep me").unwrap();
    let inputs = vec![fixture("basic_linear.json")];
    let catalog = Catalog::builtin().unwrap();
    let err = export_parquet(&inputs, &precious, &catalog, &options(true))
        .await
        .expect_err("refused");
    assert!(err.to_string().contains("not a tracesql export"), "{err}");
    assert_eq!(
        std::fs::read_to_string(precious.join("notes.txt")).unwrap(),
        "keep me"
    );
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

#[test]
fn commands_take_an_export_directory_in_place_of_a_trace() {
    let dir = tempfile::tempdir().expect("temp dir");
    let trace = fixture("basic_linear.json");
    let out = dir.path().join("export");
    let run = tracesql_ok;
    run(&["export", &trace, "--parquet", out.to_str().unwrap()]);
    let sql = "SELECT op_name, count(*) AS n, sum(dur) AS us FROM kernels GROUP BY op_name ORDER BY op_name";
    assert_eq!(
        run(&["query", &trace, "--format", "csv", "-e", sql]),
        run(&["query", out.to_str().unwrap(), "--format", "csv", "-e", sql])
    );
    assert_eq!(
        run(&["report", &trace, "--format", "csv"]),
        run(&["report", out.to_str().unwrap(), "--format", "csv"])
    );
    let piped = tracesql()
        .args(["repl", out.to_str().unwrap()])
        .stdin("SELECT count(*) AS n FROM kernels;\n")
        .run();
    assert!(piped.success());
    assert!(piped.stdout.contains('5'));

    // A plain directory is not a trace.
    let output = tracesql()
        .args(["query", dir.path().to_str().unwrap(), "-e", "SELECT 1"])
        .run();
    assert_eq!(output.code, Some(2));
    let stderr = &output.stderr;
    assert!(stderr.contains("tracesql-export.json"), "{stderr}");
}

#[tokio::test]
async fn workbook_has_tracelens_sheets_with_numbers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let trace = fixture("basic_linear.json");
    let file = dir.path().join("perf_report.xlsx");
    tracesql()
        .args(["report", &trace, "--xlsx", file.to_str().unwrap()])
        .ok();
    let sheets = reports(load_trace(&trace).unwrap()).await;

    let mut book: Xlsx<_> = open_workbook(&file).expect("open workbook");
    let mut expected_names = vec!["about".to_string()];
    expected_names.extend(sheets.iter().map(|s| s.sheet.clone()));
    assert_eq!(book.sheet_names(), expected_names);

    let about = book.worksheet_range("about").unwrap();
    let about_text: Vec<String> = about
        .rows()
        .flat_map(|r| r.iter().map(|c| c.to_string()))
        .collect();
    for needle in [
        "basic_linear",
        "Synthetic NVIDIA H100-class GPU (tracesql fixture)",
        "gpu_timeline",
    ] {
        assert!(
            about_text.iter().any(|t| t == needle),
            "about lacks {needle}: {about_text:?}"
        );
    }
    assert!(about_text
        .iter()
        .any(|t| t.contains(env!("CARGO_PKG_VERSION"))));

    for sheet in &sheets {
        let range = book.worksheet_range(&sheet.sheet).unwrap();
        let rows: Vec<&[Data]> = range.rows().collect();
        let header: Vec<String> = rows[0].iter().map(|c| c.to_string()).collect();
        assert_eq!(header, sheet.header, "{} header", sheet.sheet);
        assert_eq!(rows.len() - 1, sheet.rows(), "{} rows", sheet.sheet);
    }

    // gpu_timeline: text in column 0, numbers stored as numbers in column 1 (equal
    // up to the order in which the CLI's parallel aggregation added them).
    let timeline = sheets.iter().find(|s| s.sheet == "gpu_timeline").unwrap();
    let batch = &timeline.batches[0];
    let types = batch.column(0).as_string::<i32>();
    let ms = batch.column(1).as_primitive::<Float64Type>();
    let range = book.worksheet_range("gpu_timeline").unwrap();
    for (i, row) in range.rows().skip(1).enumerate() {
        assert_eq!(row[0], Data::String(types.value(i).to_string()));
        let stored = match &row[1] {
            Data::Float(v) => *v,
            Data::Int(v) => *v as f64,
            other => panic!("{}: time ms stored as {other:?}", types.value(i)),
        };
        let expected = ms.value(i);
        assert!(
            (stored - expected).abs() <= 1e-9 * expected.abs().max(1.0),
            "{}: {stored} vs {expected}",
            types.value(i)
        );
    }
}

/// Every `<sheet>.csv` of a `report --out` directory, by file name.
fn csv_files(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .expect("report directory")
        .map(|entry| {
            let path = entry.expect("entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).expect("csv"))
        })
        .collect()
}

/// Two CSV texts with the same cells; numbers may differ in the last bits
/// (parallel sums add up in varying order), by 1e-9 relative at most.
fn assert_same_csv(label: &str, a: &str, b: &str) {
    let cells = |text: &str| -> Vec<Vec<String>> {
        csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(text.as_bytes())
            .records()
            .map(|r| {
                r.expect("a CSV record")
                    .iter()
                    .map(str::to_string)
                    .collect()
            })
            .collect()
    };
    let (a, b) = (cells(a), cells(b));
    assert_eq!(a.len(), b.len(), "{label}: rows");
    for (row, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x.len(), y.len(), "{label}: row {row} columns");
        for (p, q) in x.iter().zip(y) {
            let close = match (p.parse::<f64>(), q.parse::<f64>()) {
                (Ok(u), Ok(v)) => u == v || (u - v).abs() <= 1e-9 * u.abs().max(v.abs()),
                _ => p == q,
            };
            assert!(close, "{label}: row {row}: {p} vs {q}");
        }
    }
}

/// `report DIR` writes the same CSVs as `report TRACE`, whether it reuses the
/// reports the export stores or recomputes them from the exported tables.
fn assert_stored_reports_match(trace: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let export = dir.path().join("export");
    let export = export.to_str().unwrap();
    tracesql_ok(&["export", trace, "--parquet", export]);
    let out = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    tracesql_ok(&["report", trace, "--out", &out("from_trace")]);
    tracesql_ok(&["report", export, "--out", &out("stored")]);
    tracesql_ok(&["report", export, "--recompute", "--out", &out("recomputed")]);
    let expected = csv_files(Path::new(&out("from_trace")));
    assert!(expected.len() >= 5, "{trace}: {:?}", expected.keys());
    for other in ["stored", "recomputed"] {
        let got = csv_files(Path::new(&out(other)));
        assert_eq!(
            expected.keys().collect::<Vec<_>>(),
            got.keys().collect::<Vec<_>>(),
            "{trace}: {other} sheets"
        );
        for (name, text) in &expected {
            assert_same_csv(&format!("{trace}: {other} {name}"), text, &got[name]);
        }
    }
}

#[test]
fn report_from_an_export_matches_the_trace_stored_or_recomputed() {
    assert_stored_reports_match(&fixture("basic_linear.json"));
    if let Some(data) = util::conformance_dir() {
        let trace = data.join("traces/h100/gaunernst_bert-small-uncased__1016001.json.gz");
        assert_stored_reports_match(trace.to_str().unwrap());
    }
}

/// The stored reports are reused only while a session opened now would compute
/// the same: a changed query, platform or an export without a fingerprint
/// recompute them. (A stored sheet is swapped for another one's file, so the
/// output tells which path was taken.)
#[test]
fn stored_reports_are_reused_only_while_current() {
    let dir = tempfile::tempdir().expect("temp dir");
    let trace = fixture("basic_linear.json");
    let export = dir.path().join("export");
    let exp = export.to_str().unwrap();
    tracesql_ok(&["export", &trace, "--parquet", exp]);
    std::fs::copy(
        export.join("reports/kernel_summary/part-0.parquet"),
        export.join("reports/gpu_timeline/part-0.parquet"),
    )
    .expect("swap a stored report");
    let timeline = |extra: &[&str]| {
        let mut args = vec!["report", exp, "--only", "gpu_timeline", "--format", "csv"];
        args.extend_from_slice(extra);
        tracesql_ok(&args)
    };
    let header = |csv: &str| csv.lines().nth(1).unwrap_or_default().to_string();
    let computed = header(&tracesql_ok(&[
        "report",
        &trace,
        "--only",
        "gpu_timeline",
        "--format",
        "csv",
    ]));
    assert!(computed.starts_with("type,time ms"), "{computed}");
    let swapped = header(&tracesql_ok(&[
        "report",
        &trace,
        "--only",
        "kernel_summary",
        "--format",
        "csv",
    ]));
    assert_ne!(computed, swapped);

    // Current: the stored file is what is shown.
    assert_eq!(header(&timeline(&[])), swapped);
    // Asked to recompute, or a platform the export was not made with: computed.
    assert_eq!(header(&timeline(&["--recompute"])), computed);
    assert_eq!(header(&timeline(&["--platform", "MI300X"])), computed);
    // A user query the reports read (here: a view) changes the fingerprint.
    let queries = dir.path().join("queries");
    std::fs::create_dir(&queries).unwrap();
    let shipped = tracesql_ok(&["queries", "show", "linked_kernels"]);
    std::fs::write(
        queries.join("linked_kernels.sql"),
        format!(
            "-- name: linked_kernels\n-- version: 2\n-- kind: view\n\
             -- description: the shipped view, reformatted\n{shipped}\n"
        ),
    )
    .unwrap();
    let with_queries = tracesql_ok(&[
        "--queries",
        queries.to_str().unwrap(),
        "report",
        exp,
        "--only",
        "gpu_timeline",
        "--format",
        "csv",
    ]);
    assert_eq!(header(&with_queries), computed);
    // An export written before fingerprints were recorded: computed.
    let manifest_path = export.join(MARKER);
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    for trace in manifest["traces"].as_array_mut().unwrap() {
        trace.as_object_mut().unwrap().remove("reports_fingerprint");
    }
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    assert_eq!(header(&timeline(&[])), computed);
}
