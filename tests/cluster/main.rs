//! `--features cluster`: a Ballista scheduler and two executors on 127.0.0.1
//! (ephemeral ports, stopped when the test ends and after ten minutes in any
//! case) run the catalog over an exported dataset of several traces, and must
//! give what a local run gives. Run with
//! `cargo test --features cluster --test cluster`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_tracesql");

/// One cluster at a time: two clusters of three servers each on a 2-core
/// machine starve each other's heartbeats and task launches.
static ONE_CLUSTER: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_cluster() -> std::sync::MutexGuard<'static, ()> {
    ONE_CLUSTER.lock().unwrap_or_else(|e| e.into_inner())
}

fn fixture(name: &str) -> String {
    format!("{}/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A scheduler and two executors, killed when dropped.
struct Cluster {
    url: String,
    scheduler: Child,
    executors: Vec<Child>,
    /// `--tls DIR` of every server, and of clients run by [`Cluster::run`].
    tls: Option<String>,
}

impl Cluster {
    /// A cluster whose scheduler gives up on a silent executor after 60 s:
    /// on a loaded two-core machine heartbeats can lag several seconds (the
    /// client computes the critical path's views in process meanwhile), and
    /// a scheduler that drops its executors leaves a query waiting.
    fn start() -> Cluster {
        Cluster::start_with(None, 60)
    }

    /// One that notices a killed executor after 6 s.
    fn start_impatient() -> Cluster {
        Cluster::start_with(None, 6)
    }

    /// A cluster whose servers run with `--tls tls` when given.
    fn start_with(tls: Option<&Path>, executor_timeout: u32) -> Cluster {
        let port = free_port();
        let url = format!("df://127.0.0.1:{port}");
        let tls = tls.map(|t| path(t).to_string());
        let tls_args: Vec<String> = match &tls {
            Some(dir) => vec!["--tls".into(), dir.clone()],
            None => Vec::new(),
        };
        let spawn = |args: &[String]| -> Child {
            Command::new(BIN)
                .args(&tls_args)
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start a cluster server")
        };
        let scheduler = spawn(&[
            "cluster".into(),
            "scheduler".into(),
            "--port".into(),
            port.to_string(),
            "--executor-timeout".into(),
            executor_timeout.to_string(),
            "--max-lifetime".into(),
            "1500".into(),
        ]);
        let executors = (0..2)
            .map(|_| {
                spawn(&[
                    "cluster".into(),
                    "executor".into(),
                    "--scheduler".into(),
                    url.clone(),
                    "--port".into(),
                    free_port().to_string(),
                    "--grpc-port".into(),
                    free_port().to_string(),
                    "--slots".into(),
                    "2".into(),
                    "--max-lifetime".into(),
                    "1500".into(),
                ])
            })
            .collect();
        Cluster {
            url,
            scheduler,
            executors,
            tls,
        }
    }

    /// Waits until a query over `dataset` runs (the executors registered).
    fn wait_ready(&self, dataset: &Path) {
        let start = Instant::now();
        loop {
            let out = self.run(&["query", path(dataset), "-e", "SELECT count(*) FROM kernels"]);
            if out.status.success() {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(90),
                "the cluster did not start: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_within(args, Duration::from_secs(300))
    }

    /// `run` with its own bound: the whole catalog over the dataset takes a
    /// few minutes on a cluster of a debug build, more on a loaded machine.
    fn run_within(&self, args: &[&str], limit: Duration) -> Output {
        let mut all = vec!["--cluster", self.url.as_str()];
        if let Some(tls) = &self.tls {
            all.extend(["--tls", tls.as_str()]);
        }
        all.extend_from_slice(args);
        run_bounded(&all, limit)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for child in self.executors.iter_mut().chain([&mut self.scheduler]) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Runs tracesql with `args`, killed after `limit`: a hang fails the test.
fn run_bounded(args: &[&str], limit: Duration) -> Output {
    let child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tracesql");
    finish_within(child, limit, args)
}

/// The output of `child`, read while it runs (a full pipe would stall it);
/// killed, and the test failed, past `limit`.
fn finish_within(child: Child, limit: Duration, what: &[&str]) -> Output {
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(output) => output.expect("output"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &id.to_string()]).status();
            panic!("tracesql {what:?} ran past {limit:?}");
        }
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp paths")
}

fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// `nccl_graph.json` as rank `rank` (its distributedInfo says rank 0).
fn rank_trace(dir: &Path, rank: u32) -> String {
    let text = std::fs::read_to_string(fixture("nccl_graph.json")).unwrap();
    let text = text.replacen("\"rank\": 0", &format!("\"rank\": {rank}"), 1);
    let file = dir.join(format!("rank{rank}.json"));
    std::fs::write(&file, text).unwrap();
    path(&file).to_string()
}

/// A dataset of several traces: fixtures, two ranks, and a real H100 trace when
/// ../shared is there.
fn dataset(dir: &Path) -> PathBuf {
    let data = dir.join("fleet");
    let mut traces = vec![
        fixture("basic_linear.json"),
        fixture("gpu_only.json"),
        rank_trace(dir, 0),
        rank_trace(dir, 1),
    ];
    let real = format!(
        "{}/../shared/conformance/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    if Path::new(&real).is_file() {
        traces.push(real);
    }
    let mut args = vec![
        "export",
        "--append",
        "--run",
        "r1",
        "--parquet",
        path(&data),
    ];
    args.extend(traces.iter().map(String::as_str));
    ok(run_bounded(&args, Duration::from_secs(300)), "export");
    data
}

fn csv_files(dir: &Path) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let name = p.strip_prefix(dir).unwrap().display().to_string();
                files.push((name, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    files.sort();
    files
}

/// The report queries of the catalog (kind report), by name.
fn report_names() -> Vec<String> {
    let listing = ok(
        run_bounded(&["queries"], Duration::from_secs(60)),
        "queries",
    );
    listing
        .lines()
        .filter(|l| l.contains("┆ report "))
        .filter_map(|l| l.trim_start_matches('│').split('┆').next())
        .map(|n| n.trim().to_string())
        .collect()
}

#[test]
fn the_catalog_runs_on_the_cluster_as_it_does_locally() {
    let _one = one_cluster();
    let dir = tempfile::tempdir().unwrap();
    let data = dataset(dir.path());
    let cluster = Cluster::start();
    cluster.wait_ready(&data);

    // Queries over every trace: tables, views, UDFs and aggregates.
    for sql in [
        "SELECT trace, rank, count(*) AS n, sum(dur) AS us FROM kernels GROUP BY trace, rank ORDER BY trace",
        "SELECT * FROM gpu_time_totals ORDER BY trace",
        "SELECT trace, name, count(*) AS n FROM ops GROUP BY trace, name ORDER BY trace, n DESC, name LIMIT 20",
        "SELECT trace, np_round(busy_time(ts, t_end), 3) AS busy FROM kernels GROUP BY trace ORDER BY trace",
        "SELECT count(*) AS n FROM events WHERE rank = 1",
        "SELECT trace_run(trace) AS run, count(*) AS n FROM kernels WHERE trace_run(trace) = 'r1' GROUP BY 1",
        "SELECT name FROM platforms ORDER BY name LIMIT 2",
        "SELECT trace, name FROM kernels ORDER BY trace, uid LIMIT 3",
    ] {
        let local = ok(
            run_bounded(&["query", path(&data), "--format", "csv", "-e", sql], Duration::from_secs(120)),
            sql,
        );
        let remote = ok(cluster.run(&["query", path(&data), "--format", "csv", "-e", sql]), sql);
        assert_eq!(local, remote, "{sql}");
        assert!(local.lines().count() > 1, "{sql}: {local}");
    }

    // Session state travels with the plan: --tracelens-compat, --set, and a
    // platform that only the client's --platforms file defines.
    let platforms = dir.path().join("platforms.csv");
    std::fs::write(
        &platforms,
        "name,memory_tb_s,matrix_bf16,source\nTESTGPU,1.5,100,test\n",
    )
    .unwrap();
    let sql = "SELECT tracelens_compat() AS compat, roofline_efficiency(2e12, 1e9, 10000.0, 'TESTGPU', 'matrix_bf16') AS eff FROM trace_meta LIMIT 1";
    let args = [
        "--tracelens-compat",
        "--platforms",
        path(&platforms),
        "query",
        path(&data),
        "--format",
        "csv",
        "-e",
        sql,
    ];
    let remote = ok(cluster.run(&args), "stateful functions");
    let local = ok(
        run_bounded(&args, Duration::from_secs(60)),
        "stateful functions locally",
    );
    assert_eq!(remote, local);
    assert!(remote.starts_with("compat,eff\ntrue,"), "{remote}");

    // Every report of the catalog for every trace, as CSV files.
    let reports = report_names();
    assert!(reports.len() >= 20, "{reports:?}");
    let only = reports.join(",");
    let (local_dir, remote_dir) = (dir.path().join("local"), dir.path().join("remote"));
    ok(
        run_bounded(
            &[
                "report",
                path(&data),
                "--recompute",
                "--only",
                &only,
                "--out",
                path(&local_dir),
            ],
            Duration::from_secs(300),
        ),
        "local reports",
    );
    ok(
        cluster.run_within(
            &[
                "report",
                path(&data),
                "--only",
                &only,
                "--out",
                path(&remote_dir),
            ],
            Duration::from_secs(900),
        ),
        "cluster reports",
    );
    let (local, remote) = (csv_files(&local_dir), csv_files(&remote_dir));
    assert!(local.len() >= 4 * 5, "{} files", local.len());
    assert_eq!(
        local.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        remote.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for ((name, a), (_, b)) in local.iter().zip(&remote) {
        assert_eq!(a, b, "{name} differs between the local run and the cluster");
    }

    // What needs the call trees in memory says so.
    let out = cluster.run(&[
        "query",
        path(&data),
        "-e",
        "SELECT * FROM call_stack(3, 'gpu_only')",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("call trees are not in memory"));

    // The analysis (rules over the reports' views) of a one-trace dataset.
    let one = dir.path().join("one");
    ok(
        run_bounded(
            &[
                "export",
                "--append",
                "--parquet",
                path(&one),
                &fixture("basic_linear.json"),
            ],
            Duration::from_secs(120),
        ),
        "export one",
    );
    let (local_dir, remote_dir) = (dir.path().join("an_local"), dir.path().join("an_remote"));
    ok(
        run_bounded(
            &["analyze", path(&one), "--out", path(&local_dir)],
            Duration::from_secs(120),
        ),
        "local analysis",
    );
    ok(
        cluster.run(&["analyze", path(&one), "--out", path(&remote_dir)]),
        "cluster analysis",
    );
    let (local, remote) = (csv_files(&local_dir), csv_files(&remote_dir));
    assert!(local.iter().any(|(n, _)| n == "findings.json"), "{local:?}");
    assert_eq!(local, remote, "the analysis differs on the cluster");
}

#[test]
fn an_executor_killed_mid_query_gives_an_error_or_the_right_answer() {
    let _one = one_cluster();
    let dir = tempfile::tempdir().unwrap();
    let data = dataset(dir.path());
    let mut cluster = Cluster::start_impatient();
    cluster.wait_ready(&data);
    let args = [
        "report",
        path(&data),
        "--only",
        "gpu_timeline,kernel_summary,ops_summary",
        "--format",
        "csv",
    ];
    // The right answer, from a local run (the catalog test holds the cluster
    // to it): a query on this impatient cluster before the kill could itself
    // fail when a loaded machine delays a heartbeat past 6 s.
    let expected = ok(run_bounded(&args, Duration::from_secs(300)), "local");
    let mut all = vec!["--cluster", cluster.url.as_str(), "--cluster-timeout", "60"];
    all.extend_from_slice(&args);
    let child = Command::new(BIN)
        .args(&all)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let victim = &mut cluster.executors[1];
    victim.kill().unwrap();
    victim.wait().unwrap();
    // Bounded by --cluster-timeout: an answer, right, or an error; never a hang.
    let out = finish_within(child, Duration::from_secs(120), &all);
    if out.status.success() {
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            expected,
            "a wrong answer"
        );
    } else {
        // The job failed, or --cluster-timeout gave up on it: one error line.
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("error: query failed") || stderr.contains("error: --cluster"),
            "{stderr}"
        );
    }
}

/// `tracesql cluster certs` into `dir/name`.
fn certs(dir: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    ok(
        run_bounded(
            &[
                "cluster",
                "certs",
                "--out",
                path(&out),
                "--host",
                "node-a.internal",
            ],
            Duration::from_secs(60),
        ),
        "cluster certs",
    );
    out
}

#[test]
fn with_tls_only_holders_of_the_cluster_certificates_get_in() {
    let _one = one_cluster();
    let dir = tempfile::tempdir().unwrap();
    let tls = certs(dir.path(), "tls");
    let stranger = certs(dir.path(), "other");
    let data = dir.path().join("ranks");
    let (r0, r1) = (rank_trace(dir.path(), 0), rank_trace(dir.path(), 1));
    let export = [
        "export",
        "--append",
        "--parquet",
        path(&data),
        &fixture("basic_linear.json"),
        &r0,
        &r1,
    ];
    ok(run_bounded(&export, Duration::from_secs(120)), "export");
    // Certificates are never overwritten: a second run would lock every node out.
    let twice = run_bounded(
        &["cluster", "certs", "--out", path(&tls)],
        Duration::from_secs(60),
    );
    assert_eq!(twice.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&twice.stderr).contains("already there"));
    let cluster = Cluster::start_with(Some(&tls), 60);
    cluster.wait_ready(&data);

    // Over TLS, the same answers as locally; the grouping crosses executors
    // (their Flight services, over TLS too).
    for sql in [
        "SELECT trace, rank, count(*) AS n, sum(dur) AS us FROM kernels GROUP BY trace, rank ORDER BY trace",
        "SELECT * FROM gpu_time_totals ORDER BY trace",
    ] {
        let args = ["query", path(&data), "--format", "csv", "-e", sql];
        let local = ok(run_bounded(&args, Duration::from_secs(120)), sql);
        let remote = ok(cluster.run(&args), sql);
        assert_eq!(local, remote, "{sql}");
        assert_eq!(local.lines().count(), 4, "{sql}: {local}");
    }
    let report = [
        "report",
        path(&data),
        "--only",
        "kernel_summary,ops_summary",
        "--format",
        "csv",
    ];
    let local = ok(
        run_bounded(&report, Duration::from_secs(120)),
        "local report",
    );
    let remote = ok(cluster.run(&report), "report over TLS");
    assert_eq!(local, remote);

    // A client without the certificates, or with another CA's, is refused at
    // once with one line saying why; the cluster stays up for the others.
    let sql = "SELECT count(*) FROM kernels";
    let refused = |tls: Option<&Path>| -> String {
        let mut args = Vec::new();
        if let Some(dir) = tls {
            args.extend(["--tls", path(dir)]);
        }
        args.extend([
            "--cluster",
            cluster.url.as_str(),
            "query",
            path(&data),
            "-e",
            sql,
        ]);
        // The client gives up within its connect (10 s) and probe (20 s)
        // bounds; the rest is a debug build starting on a loaded machine.
        let started = std::time::Instant::now();
        let out = run_bounded(&args, Duration::from_secs(60));
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        eprintln!("refused in {:?}: {stderr}", started.elapsed());
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        stderr
    };
    let plain = refused(None);
    assert!(
        plain.contains("give the client the same --tls DIR"),
        "{plain}"
    );
    let foreign = refused(Some(&stranger));
    assert!(foreign.contains("invalid peer certificate"), "{foreign}");
    // One that trusts the cluster's CA but shows a certificate of another:
    // the servers check the client's certificate too.
    let impostor = dir.path().join("impostor");
    std::fs::create_dir(&impostor).unwrap();
    std::fs::copy(tls.join("ca.pem"), impostor.join("ca.pem")).unwrap();
    for file in ["node.pem", "node.key"] {
        std::fs::copy(stranger.join(file), impostor.join(file)).unwrap();
    }
    let impostor = refused(Some(&impostor));
    assert!(
        impostor.contains("the scheduler refused the connection"),
        "{impostor}"
    );
    let count = ["query", path(&data), "--format", "csv", "-e", sql];
    let again = ok(cluster.run(&count), sql);
    assert_eq!(again, ok(run_bounded(&count, Duration::from_secs(60)), sql));

    // A server given no certificates, or half of them, does not start.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = run_bounded(
        &[
            "--tls",
            path(&empty),
            "cluster",
            "scheduler",
            "--port",
            &free_port().to_string(),
        ],
        Duration::from_secs(30),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("cannot read ca.pem"), "{stderr}");
}
