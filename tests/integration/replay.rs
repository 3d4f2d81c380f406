//! Replay IRs and packages: TraceLens's IR exactly under --tracelens-compat (every
//! reference of conformance/replay), the native IR's fixes, the SQL views, and
//! the packages (deterministic, IP-safe, a script that compiles; run with torch
//! when TRACESQL_TORCH_PYTHON names a Python that has it).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;
use tracesql::replay::json::{to_string, Json, Style};
use tracesql::replay::{build, Mode, OpEvent, Status};

use crate::util::{
    conformance_dir, engine_with, fixture, package_path, rows, tracesql, tracesql_ok,
};

const TRACES: [(&str, &str); 3] = [
    ("Falconsai_nsfw_image_detection__1016002", "traces/h100"),
    ("Qwen_Qwen1.5-0.5B-Chat__1016005", "traces/h100"),
    ("normalization_layer_test", "traces/normalization"),
];

/// A reference JSON file; Python's bare `-Infinity` (not JSON) becomes the
/// string "-Infinity".
fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text.replace(": -Infinity", ": \"-Infinity\""))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Our IR as the references hold it (non-finite floats as Python's names, as strings).
fn as_reference(ir: &Json) -> Value {
    let style = Style {
        indent: None,
        python_non_finite: true,
    };
    let text = to_string(ir, style).replace("-Infinity", "\"-Infinity\"");
    serde_json::from_str(&text).expect("our IR is JSON")
}

fn refs_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = TRACES
        .iter()
        .map(|(stem, _)| dir.join("replay").join(stem).join("refs.json"))
        .collect();
    files.push(dir.join("replay/synthetic/refs.json"));
    files
}

/// Every pick of conformance/replay (47 from traces, 13 synthetic): status,
/// error class and text, warnings, the schema matched and the IR, all
/// TraceLens's.
#[test]
fn compat_ir_equals_tracelens_on_every_reference_pick() {
    let Some(dir) = conformance_dir() else { return };
    let mut checked = 0;
    let mut wrong = Vec::new();
    for file in refs_files(&dir) {
        let refs = read_json(&file);
        for r in refs["refs"].as_array().expect("refs") {
            let pick = r["pick"].as_str().unwrap_or("?");
            let event = OpEvent::from_args(r["name"].as_str().expect("name"), &r["args"]);
            let out = build(&event, Mode::Compat);
            checked += 1;
            let want_ok = r["status"] == "ok";
            if (out.status == Status::Ok) != want_ok {
                wrong.push(format!(
                    "{pick}: status {:?}, TraceLens {}",
                    out.status, r["status"]
                ));
                continue;
            }
            let warnings: Vec<Value> = out
                .warnings
                .iter()
                .map(|w| Value::from(w.as_str()))
                .collect();
            if Value::from(warnings) != r["warnings"] {
                wrong.push(format!(
                    "{pick}: warnings {:?} vs {}",
                    out.warnings, r["warnings"]
                ));
            }
            if want_ok {
                if out.matched_schema.as_deref() != r["matched_schema"].as_str() {
                    wrong.push(format!("{pick}: schema {:?}", out.matched_schema));
                }
                if as_reference(out.ir.as_ref().expect("ir")) != r["repro_info"] {
                    wrong.push(format!("{pick}: IR differs"));
                }
            } else {
                if out.reason.as_deref() != r["error_class"].as_str() {
                    wrong.push(format!(
                        "{pick}: class {:?} vs {}",
                        out.reason, r["error_class"]
                    ));
                }
                if out.error.as_deref() != r["error"].as_str() {
                    wrong.push(format!("{pick}: error {:?} vs {}", out.error, r["error"]));
                }
            }
        }
    }
    assert_eq!(checked, 60, "the references hold 60 picks");
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// event_replay_ir.json, byte for byte: key order, float spelling, indent 4.
#[test]
fn compat_ir_file_is_byte_identical_to_tracelens() {
    let Some(dir) = conformance_dir() else { return };
    for (stem, _) in TRACES {
        let refs = read_json(&dir.join("replay").join(stem).join("refs.json"));
        let irs: Vec<Json> = refs["refs"]
            .as_array()
            .expect("refs")
            .iter()
            .filter(|r| r["status"] == "ok")
            .map(|r| {
                let event = OpEvent::from_args(r["name"].as_str().expect("name"), &r["args"]);
                build(&event, Mode::Compat).ir.expect("ok pick has an IR")
            })
            .collect();
        let ours = to_string(&Json::List(irs), Style::PYTHON_INDENT4);
        let theirs =
            std::fs::read_to_string(dir.join("replay").join(stem).join("event_replay_ir.json"))
                .expect("ref file");
        assert_eq!(ours, theirs.trim_end(), "{stem}");
    }
}

/// The picks' uids in our ops table carry the references' arguments, and the
/// replay_ir view (compat) gives every census signature TraceLens's status,
/// and every unified_perf_summary row (ex_uid) TraceLens's IR.
#[tokio::test]
async fn trace_uids_census_and_perf_report_rows_match_tracelens() {
    let Some(dir) = conformance_dir() else { return };
    for (stem, sub) in TRACES {
        let trace = dir.join(sub).join(format!("{stem}.json.gz"));
        let engine = engine_with(&[trace.to_str().expect("utf-8")]);
        engine.set_tracelens_compat(true);
        engine.register_views().await.expect("views");
        // Picks: the event at `uid` has the reference's arguments.
        let refs = read_json(&dir.join("replay").join(stem).join("refs.json"));
        for r in refs["refs"].as_array().expect("refs") {
            let uid = r["uid"].as_i64().expect("uid");
            let got = rows(&engine, &format!(
                "SELECT name, replay_ir(name, input_types_json, input_dims_json, input_strides_json, concrete_inputs_json, true)['ir_json'] FROM ops WHERE uid = {uid}"
            )).await;
            assert_eq!(got.len(), 1, "{stem} uid {uid}");
            assert_eq!(
                got[0][0],
                r["name"].as_str().expect("name"),
                "{stem} uid {uid}"
            );
            if r["status"] == "ok" {
                let ir: Value = serde_json::from_str(&got[0][1]).expect("ir json");
                assert_eq!(ir, r["repro_info"], "{stem} uid {uid}");
            }
        }
        // Census: one row per kernel-launching signature, keyed by ex_uid.
        let ours: BTreeMap<i64, (String, String, String)> = rows(
            &engine,
            "SELECT ex_uid, name, status, coalesce(reason, '') FROM replay_ir",
        )
        .await
        .into_iter()
        .map(|r| {
            (
                r[0].parse().expect("uid"),
                (r[1].clone(), r[2].clone(), r[3].clone()),
            )
        })
        .collect();
        let census = read_json(&dir.join("replay").join(stem).join("census.json"));
        for row in census["rows"].as_array().expect("rows") {
            let uid = row["ex_uid"].as_i64().expect("ex_uid");
            let (name, status, reason) = ours
                .get(&uid)
                .unwrap_or_else(|| panic!("{stem}: census signature at uid {uid} missing"));
            assert_eq!(
                name,
                row["name"].as_str().expect("name"),
                "{stem} uid {uid}"
            );
            assert_eq!(
                status,
                row["status"].as_str().expect("status"),
                "{stem} uid {uid}"
            );
            assert_eq!(
                reason,
                row["error_class"].as_str().unwrap_or(""),
                "{stem} uid {uid}"
            );
        }
        // unified_perf_summary rows: the IR of the row's ex_UID event.
        let report = read_json(
            &dir.join("replay")
                .join(stem)
                .join("from_unified_perf_summary.json"),
        );
        for row in report["rows"].as_array().expect("rows") {
            let uid = row["ex_uid"].as_i64().expect("ex_uid");
            let got = rows(&engine, &format!(
                "SELECT replay_ir(name, input_types_json, input_dims_json, input_strides_json, concrete_inputs_json, true)['status'], replay_ir(name, input_types_json, input_dims_json, input_strides_json, concrete_inputs_json, true)['ir_json'] FROM ops WHERE uid = {uid}"
            )).await;
            if row["name"]
                .as_str()
                .is_some_and(|n| n.ends_with("(Synthetic Op)"))
            {
                // A kernel without a launching op: TraceLens's row has no event to replay.
                assert!(
                    got.is_empty() && row["status"] == "refused",
                    "{stem} row uid {uid}"
                );
                continue;
            }
            assert_eq!(
                got[0][0],
                row["status"].as_str().expect("status"),
                "{stem} row uid {uid}"
            );
            if row["status"] == "ok" {
                let ir: Value = serde_json::from_str(&got[0][1]).expect("ir json");
                assert_eq!(ir, row["repro_info"], "{stem} row uid {uid}");
            }
        }
    }
}

/// What the native mode does with each synthetic case of TraceLens's bugs
/// (DIFFERENCES.md "Replay"): all 13 replayable, each with the fix asserted.
#[test]
fn native_ir_fixes_every_synthetic_case() {
    let Some(dir) = conformance_dir() else { return };
    let refs = read_json(&dir.join("replay/synthetic/refs.json"));
    let mut by_pick = BTreeMap::new();
    for r in refs["refs"].as_array().expect("refs") {
        let event = OpEvent::from_args(r["name"].as_str().expect("name"), &r["args"]);
        let out = build(&event, Mode::Native);
        assert_eq!(
            out.status,
            Status::Ok,
            "{}: {:?} {:?}",
            r["pick"],
            out.reason,
            out.error
        );
        let ir: Value =
            serde_json::from_str(&to_string(out.ir.as_ref().expect("ir"), Style::STRICT))
                .expect("strict JSON");
        by_pick.insert(
            r["pick"].as_str().expect("pick").to_string(),
            (ir, out.warnings),
        );
    }
    assert_eq!(by_pick.len(), 13);
    let arg = |pick: &str, name: &str| -> Value {
        let args = by_pick[pick].0["args"].as_array().expect("args").clone();
        args.into_iter()
            .find(|a| a["name"] == name)
            .unwrap_or_else(|| panic!("{pick}: no {name}"))
    };
    assert_eq!(arg("int_optional_with_value", "dim")["value"], 1);
    assert_eq!(
        arg("int64_tensor_trace_spelling", "indices")["tensor"]["dtype"],
        "int64"
    );
    assert_eq!(
        arg("int64_tensor_trace_spelling", "indices")["tensor"]["init"],
        "randint:100"
    );
    assert_eq!(
        arg("int64_tensor_long_spelling", "indices")["tensor"]["init"],
        "randint:100"
    );
    assert_eq!(
        arg("bool_mask_and_neg_inf", "mask")["tensor"]["init"],
        "zeros"
    );
    assert_eq!(arg("bool_mask_and_neg_inf", "value")["value"], "-inf");
    assert_eq!(by_pick["flash_fwd_current_arity"].0["schema_drift"], false);
    assert!(by_pick["missing_strides_key"]
        .1
        .iter()
        .any(|w| w.contains("strides not recorded")));
    assert_eq!(
        by_pick["scalar_overload_after_tensor_overload"].0["overload"],
        "aten::mul.Scalar"
    );
    assert_eq!(arg("uint8_tensor", "self")["tensor"]["dtype"], "uint8");
    assert_eq!(
        arg("fp8_tensor", "self")["tensor"]["dtype"],
        "float8_e4m3fn"
    );
    assert!(by_pick["optional_str_lost"]
        .1
        .iter()
        .any(|w| w.starts_with("rounding_mode:")));
    assert_eq!(
        arg("empty_list_non_optional", "dim")["value"],
        serde_json::json!([])
    );
    let broadcast = by_pick["broadcast_stride_zero_input"].0["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter(|a| a["tensor"]["broadcast"] == true)
        .count();
    assert_eq!(broadcast, 1);
    assert_eq!(arg("scalartype_given", "dtype")["value"], "float32");
}

/// SQL: coverage of the replay in both modes, arguments queryable.
#[tokio::test]
async fn replay_views_answer_coverage_and_argument_questions() {
    let Some(dir) = conformance_dir() else { return };
    let trace = dir.join("traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
    let path = trace.to_str().expect("utf-8");
    let coverage = |compat: bool| {
        let mut args = vec!["query"];
        if compat {
            args.insert(0, "--tracelens-compat");
        }
        let sql = "SELECT signatures, signatures_ok, replayable_pct, top_reasons FROM replay_coverage WHERE category = 'all'";
        args.extend([path, "--format", "csv", "-e", sql]);
        tracesql_ok(&args)
    };
    let native = coverage(false);
    let compat = coverage(true);
    let line = |csv: &str| csv.lines().nth(1).expect("one row").to_string();
    // Native: every signature replayable; TraceLens: 28 of 35, 85% of the time
    // (census.json: kernel_time_share_ok 0.8489 over External-id kernel sums).
    assert!(line(&native).starts_with("35,35,100"), "{native}");
    let compat_row = line(&compat);
    let cells: Vec<&str> = compat_row.splitn(4, ',').collect();
    assert_eq!(&cells[..2], ["35", "28"], "{compat}");
    let pct: f64 = cells[2].parse().expect("pct");
    assert!((pct - 84.89).abs() < 0.2, "{pct}");
    assert!(
        cells[3].contains("no_matching_schema") && cells[3].contains("tensor_list"),
        "{compat}"
    );
    // Column-major mat2 among the GEMMs, from replay_args.
    let engine = engine_with(&[path]);
    engine.register_views().await.expect("views");
    let gemms = rows(&engine, "SELECT name, shape, strides FROM replay_args WHERE arg_name = 'mat2' AND strides[1] = 1 ORDER BY ex_uid").await;
    assert!(!gemms.is_empty());
    for g in &gemms {
        assert!(
            g[0] == "aten::mm" || g[0] == "aten::addmm" || g[0] == "aten::bmm",
            "{g:?}"
        );
    }
    // Tensor lists take the trace's floating dtype: Qwen's cat joins bf16 halves.
    let ir = rows(
        &engine,
        "SELECT ir_json FROM replay_ir WHERE name = 'aten::cat' ORDER BY ex_uid LIMIT 1",
    )
    .await;
    assert!(ir[0][0].contains("\"dtype\": \"bfloat16\""), "{}", ir[0][0]);
    assert!(
        ir[0][0].contains("the trace's most common floating dtype"),
        "{}",
        ir[0][0]
    );
    let schemas = rows(
        &engine,
        "SELECT count(*), count(DISTINCT overload) FROM op_schemas() WHERE name = 'aten::addmm'",
    )
    .await;
    // addmm, .out, .dtype, .dtype_out: 5 + 6 + 6 + 7 arguments.
    assert_eq!(schemas[0], ["24", "4"]);
}

fn unzip(bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
    let mut out = BTreeMap::new();
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).expect("member");
        let mut data = Vec::new();
        file.read_to_end(&mut data).expect("read member");
        out.insert(file.name().to_string(), data);
    }
    out
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A package from a shipped fixture: deterministic bytes, a top-level folder,
/// a manifest that matches its members, a script that compiles, nothing of
/// the trace's stacks, modules or paths inside.
#[test]
fn packages_are_deterministic_self_describing_and_ip_safe() {
    let trace = fixture("basic_linear.json");
    let tmp = tempfile::tempdir().expect("tempdir");
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for out in [&a, &b] {
        let o = out.to_str().expect("utf-8");
        tracesql_ok(&[
            "replay",
            &trace,
            "--op",
            "aten::addmm",
            "--out",
            o,
            "--iters",
            "7",
        ]);
    }
    let zip_a =
        std::fs::read(a.join("replay_packages/aten_addmm_replay_package.zip")).expect("op package");
    let zip_b =
        std::fs::read(b.join("replay_packages/aten_addmm_replay_package.zip")).expect("op package");
    assert_eq!(zip_a, zip_b, "the same trace gives the same bytes");
    let members = unzip(&zip_a);
    let names: Vec<&str> = members.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "aten_addmm_replay_package/MANIFEST.json",
            "aten_addmm_replay_package/README.md",
            "aten_addmm_replay_package/replay.py",
            "aten_addmm_replay_package/replay_ir.json",
        ]
    );
    let manifest: Value =
        serde_json::from_slice(&members["aten_addmm_replay_package/MANIFEST.json"])
            .expect("manifest");
    for f in manifest["files"].as_array().expect("files") {
        let data = &members[&format!(
            "aten_addmm_replay_package/{}",
            f["path"].as_str().expect("path")
        )];
        assert_eq!(f["sha256"].as_str(), Some(sha256_hex(data).as_str()));
        assert_eq!(f["bytes"].as_u64(), Some(data.len() as u64));
    }
    let ir: Value = serde_json::from_slice(&members["aten_addmm_replay_package/replay_ir.json"])
        .expect("strict JSON");
    assert_eq!(ir["run_defaults"]["iters"], 7);
    assert_eq!(ir["trace"], "basic_linear.json");
    let entry = &ir["entries"][0];
    assert_eq!(entry["overload"], "aten::addmm.default");
    assert!(
        entry["traced"]["kernel_names"]
            .as_array()
            .is_some_and(|k| !k.is_empty()),
        "{entry}"
    );
    let readme =
        String::from_utf8_lossy(&members["aten_addmm_replay_package/README.md"]).to_string();
    assert!(
        readme.contains("unzip aten_addmm_replay_package.zip && cd aten_addmm_replay_package"),
        "{readme}"
    );
    // IP safety: no python frame, module or file path of the trace.
    let source: Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).expect("fixture")).expect("json");
    let mut secrets: Vec<String> = vec![std::path::Path::new(&trace)
        .parent()
        .expect("dir")
        .to_string_lossy()
        .into_owned()];
    for e in source["traceEvents"].as_array().expect("events") {
        if e["cat"] == "python_function" || e["cat"] == "user_annotation" {
            secrets.extend(e["name"].as_str().map(str::to_string));
        }
        for key in ["Call stack", "Module Hierarchy"] {
            secrets.extend(e["args"][key].as_str().map(str::to_string));
        }
    }
    assert!(
        secrets.len() > 1,
        "the fixture has python frames to look for"
    );
    for (name, data) in &members {
        let text = String::from_utf8_lossy(data);
        for s in &secrets {
            assert!(!text.contains(s.as_str()), "{name} holds {s:?}");
        }
    }
    // The script compiles.
    let script = a.join("replay.py");
    let compiled = std::process::Command::new("python3")
        .args(["-m", "py_compile"])
        .arg(&script)
        .status()
        .expect("python3");
    assert!(compiled.success());
}

/// Bad selections are one-line usage errors that write nothing.
#[test]
fn bad_selections_are_clear_errors() {
    let trace = fixture("basic_linear.json");
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("o");
    let o = out.to_str().expect("utf-8");
    // An analysis whose one recommendation is fast: nothing passes the thresholds.
    let quiet_dir = tmp.path().join("analysis");
    std::fs::create_dir_all(&quiet_dir).expect("dir");
    let rec = serde_json::json!([{"op_name": "aten::addmm", "ex_uid": 5, "time_us": 1e9, "efficiency_pct": 95.0}]);
    std::fs::write(quiet_dir.join("findings.json"), rec.to_string()).expect("write");
    let quiet = quiet_dir.to_str().expect("utf-8").to_string();
    for (args, needle) in [
        (vec!["--uid", "999999"], "no cpu_op has that uid"),
        (
            vec!["--op", "aten::no_such_op"],
            "no call of that op launched GPU work",
        ),
        (vec!["--findings", "/nonexistent"], "findings.json"),
        (
            vec!["--findings", &quiet],
            "no recommendation about an op takes more than 10% of the time",
        ),
    ] {
        let run = tracesql()
            .args(["replay", &trace, "--out", o])
            .args(&args)
            .run();
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
        assert!(!out.exists(), "nothing written");
    }
}

/// `--tracelens-compat` writes TraceLens's IR list beside the packages.
#[test]
fn compat_mode_writes_tracelens_ir_list() {
    let Some(dir) = conformance_dir() else { return };
    let trace = dir.join("traces/h100/Falconsai_nsfw_image_detection__1016002.json.gz");
    let tmp = tempfile::tempdir().expect("tempdir");
    let o = tmp.path().to_str().expect("utf-8");
    tracesql_ok(&[
        "--tracelens-compat",
        "replay",
        trace.to_str().expect("utf-8"),
        "--uid",
        "30",
        "--out",
        o,
    ]);
    let ours = std::fs::read_to_string(tmp.path().join("event_replay_ir.json")).expect("written");
    let refs = read_json(&dir.join("replay/Falconsai_nsfw_image_detection__1016002/refs.json"));
    let addmm = refs["refs"]
        .as_array()
        .expect("refs")
        .iter()
        .find(|r| r["uid"] == 30)
        .expect("uid 30");
    let ours: Value = serde_json::from_str(&ours).expect("json");
    assert_eq!(ours, Value::Array(vec![addmm["repro_info"].clone()]));
}

/// With torch (TRACESQL_TORCH_PYTHON=/path/to/python): every package of the
/// three traces binds on meta (CUDA-only ops skipped) and small ops run on CPU.
#[test]
fn packages_run_under_torch_when_available() {
    let Some(python) = std::env::var_os("TRACESQL_TORCH_PYTHON") else {
        eprintln!("skipped: set TRACESQL_TORCH_PYTHON to a Python with torch");
        return;
    };
    let Some(dir) = conformance_dir() else { return };
    for (stem, sub) in TRACES {
        let trace = dir.join(sub).join(format!("{stem}.json.gz"));
        let tmp = tempfile::tempdir().expect("tempdir");
        let o = tmp.path().to_str().expect("utf-8");
        tracesql_ok(&[
            "replay",
            trace.to_str().expect("utf-8"),
            "--all",
            "--out",
            o,
        ]);
        let run = |args: &[&str]| {
            let out = std::process::Command::new(&python)
                .arg(tmp.path().join("replay.py"))
                .args(args)
                .output()
                .expect("python");
            (
                out.status.success(),
                String::from_utf8_lossy(&out.stdout).to_string(),
            )
        };
        let (ok, text) = run(&["--dry-run"]);
        assert!(ok, "{stem}: {text}");
        let summary = text.lines().last().unwrap_or_default().to_string();
        assert!(summary.contains("failed 0"), "{stem}: {summary}");
        let (ok, text) = run(&[
            "--device", "cpu", "--iters", "2", "--warmup", "1", "--limit", "3",
        ]);
        assert!(ok, "{stem}: {text}");
        assert!(text.contains("median"), "{stem}: {text}");
    }
}

/// `analyze --replay`: every recommendation about an op group with a Path B
/// action links its signature's package, which exists and carries the traced
/// kernels; the appendix lists them; nothing else is packaged.
#[test]
fn analyze_replay_links_a_package_from_each_path_b_recommendation() {
    let Some(dir) = conformance_dir() else { return };
    let trace = dir.join("traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
    let tmp = tempfile::tempdir().expect("tempdir");
    let o = tmp.path().to_str().expect("utf-8");
    tracesql_ok(&[
        "analyze",
        trace.to_str().expect("utf-8"),
        "--platform",
        "H100",
        "--out",
        o,
        "--replay",
    ]);
    let recs: Value = serde_json::from_str(
        &std::fs::read_to_string(tmp.path().join("findings.json")).expect("findings"),
    )
    .expect("json");
    let report =
        std::fs::read_to_string(tmp.path().join("standalone_analysis.md")).expect("report");
    let mut linked = 0;
    for rec in recs.as_array().expect("recommendations") {
        let path_b = rec["reasons"]
            .as_array()
            .expect("reasons")
            .iter()
            .any(|r| r["action_b"].as_str().is_some_and(|a| !a.is_empty()));
        if !path_b || rec["op_name"].is_null() {
            continue;
        }
        linked += 1;
        // The package of the signature of the recommendation's example call.
        let ir: Value = serde_json::from_str(
            &std::fs::read_to_string(tmp.path().join("replay_packages/replay_ir.json"))
                .expect("ir"),
        )
        .expect("json");
        let entry = ir["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .find(|e| e["provenance"]["uid"] == rec["ex_uid"] && e["op_name"] == rec["op_name"])
            .unwrap_or_else(|| panic!("no package for {}", rec["subject"]));
        let link = format!("replay_packages/{}.zip", entry["id"].as_str().expect("id"));
        assert!(tmp.path().join(&link).is_file(), "{link}");
        assert!(
            report.contains(&format!(
                "**Replay package** (for the kernel team): [{link}]({link})"
            )),
            "{link}"
        );
        assert!(
            !entry["traced"]["kernel_names"]
                .as_array()
                .expect("names")
                .is_empty(),
            "{link}"
        );
    }
    assert!(linked >= 5, "{linked}");
    assert!(report.contains("### Replay artifacts"));
    // SDPA's kernels are launched by its flash-attention child: the package
    // still carries them, timed by the op's subtree.
    let sdpa = std::fs::read_dir(tmp.path().join("replay_packages"))
        .expect("dir")
        .flatten()
        .any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("aten__scaled_dot_product_flash_attention__")
        });
    assert!(sdpa);
}

/// The runner's results meet the trace in SQL: `replay_runs(path)` joined to
/// `replay_ir` by id (the id the packages are named by).
#[test]
fn replay_results_join_the_traced_times_by_id() {
    let trace = fixture("basic_linear.json");
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("all");
    tracesql_ok(&[
        "replay",
        &trace,
        "--all",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    let ids = tracesql_ok(&[
        "query",
        &trace,
        "--format",
        "csv",
        "-e",
        "SELECT id, traced_kernel_us_median FROM replay_ir WHERE status = 'ok' ORDER BY id",
    ]);
    let rows: Vec<(String, f64)> = ids
        .lines()
        .skip(1)
        .map(|l| {
            let (id, t) = l.split_once(',').expect("two cells");
            (id.to_string(), t.parse().expect("number"))
        })
        .collect();
    assert!(!rows.is_empty());
    for (id, _) in &rows {
        assert!(
            out.join("replay_packages")
                .join(format!("{id}.zip"))
                .is_file(),
            "{id}"
        );
    }
    // A results file as `replay.py --json` writes it: each op replayed at 2x its traced median.
    let results: Vec<Value> = rows
        .iter()
        .map(|(id, t)| serde_json::json!({"id": id, "op": "x", "status": "ok", "device": "cuda", "iters": 10, "median_us": 2.0 * t, "kernels": ["k"]}))
        .collect();
    let doc = serde_json::json!({"torch_version": "2.15.0", "device_name": "NVIDIA H100", "results": results});
    let path = tmp.path().join("results.json");
    std::fs::write(&path, doc.to_string()).expect("write");
    let sql = format!(
        "SELECT count(*) AS n, min(r.median_us / i.traced_kernel_us_median) AS lo, max(r.median_us / i.traced_kernel_us_median) AS hi, max(r.device_name) AS gpu \
         FROM replay_runs('{}') r JOIN replay_ir i ON i.id = r.id",
        path.display()
    );
    let joined = tracesql_ok(&["query", &trace, "--format", "csv", "-e", &sql]);
    assert_eq!(
        joined.lines().nth(1),
        Some(format!("{},2.0,2.0,NVIDIA H100", rows.len()).as_str()),
        "{joined}"
    );
    let bad = tracesql()
        .args([
            "query",
            &trace,
            "-e",
            "SELECT * FROM replay_runs('/nonexistent.json')",
        ])
        .run();
    assert!(
        !bad.success() && bad.stderr.contains("/nonexistent.json"),
        "{}",
        bad.stderr
    );
}

/// The runner binds an IR's arguments by name to the running torch's schema:
/// what the IR has and this torch lacks is dropped, what this torch has and the
/// IR lacks keeps its default (every later argument then goes by name). Found
/// on an H200 with torch 2.11: `_cudnn_attention_forward` gained `seqused_k`
/// and `block_table` in the 2.15 registry the IRs are built against.
#[test]
fn the_runner_binds_arguments_by_name_across_schema_drift() {
    let runner = package_path("replay/runner");
    let script = r#"
import sys, types
sys.path.insert(0, sys.argv[1])
import replay
A = lambda name, kw=False: types.SimpleNamespace(name=name, kwarg_only=kw)
arg = lambda name, value, kw=False: {"name": name, "kind": "int", "type": "int", "kw_only": kw, "value": value}
entry = {"op_name": "aten::f", "args": [arg("a", 1), arg("b", 2), arg("new", 3), arg("c", 4), arg("s", 5, True)]}
warned = []
same = types.SimpleNamespace(arguments=[A("a"), A("b"), A("new"), A("c"), A("s", True)])
print(replay.build_call(None, entry, "cpu", None, same, warned.append)[:2])
older = types.SimpleNamespace(arguments=[A("a"), A("b"), A("c"), A("s", True)])
print(replay.build_call(None, entry, "cpu", None, older, warned.append)[:2])
newer = types.SimpleNamespace(arguments=[A("a"), A("extra"), A("b"), A("new"), A("c"), A("s", True)])
print(replay.build_call(None, entry, "cpu", None, newer, warned.append)[:2])
print(replay.build_call(None, entry, "cpu", None, None, warned.append)[:2])
print(warned)
"#;
    let run = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&runner)
        .output()
        .expect("python3");
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "([1, 2, 3, 4], {'s': 5})",
            "([1, 2, 4], {'s': 5})",
            "([1], {'b': 2, 'new': 3, 'c': 4, 's': 5})",
            "([1, 2, 3, 4], {'s': 5})",
            "[\"aten::f: drops argument new: this torch's schema has none of that name\"]",
        ],
        "{out}"
    );
}

/// A real trace recorded on an H200 (fixtures/recorded/record_block.py): the
/// replay packages tracesql builds from it ran on that GPU
/// (fixtures/recorded/README.md), and these are the counts they started from.
#[test]
fn the_recorded_h200_trace_loads_and_replays_every_kernel_op() {
    let trace = package_path("fixtures/recorded/h200_block.json.gz");
    let trace = trace.to_str().expect("utf-8");
    let counts = tracesql_ok(&[
        "query",
        trace,
        "--format",
        "csv",
        "-e",
        "SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM kernels WHERE class = 'compute') AS kernels, \
         (SELECT platform FROM session_platform) AS platform, \
         (SELECT count(*) FROM replay_ir) AS signatures, (SELECT count(*) FROM replay_ir WHERE status = 'ok') AS replayable",
    ]);
    assert_eq!(
        counts.lines().nth(1),
        Some("1537,94,H200,44,43"),
        "{counts}"
    );
    let out = tempfile::tempdir().expect("tempdir");
    let dir = out.path().join("r");
    tracesql_ok(&[
        "replay",
        trace,
        "--all",
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    let ir = read_json(&dir.join("replay_ir.json"));
    assert_eq!(ir["entries"].as_array().expect("entries").len(), 44);
    assert_eq!(ir["platform"], "H200", "{}", ir["platform"]);
    let packages = std::fs::read_dir(dir.join("replay_packages"))
        .expect("packages")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".zip") && !n.ends_with("_replay_package.zip"))
        .count();
    assert_eq!(packages, 43);
}
