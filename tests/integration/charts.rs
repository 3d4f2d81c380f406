//! Pictures: `analyze --out` (SVG beside the Markdown) and `--html`, `compare
//! --html`, `collectives --html`. Each SVG is parsed as XML and its marks and
//! labels counted against the rows of the catalog query the chart draws, run
//! separately; sums the charts show (the waterfall, the wait heatmap) are
//! checked against independent queries; the HTML is checked self-contained
//! and small, and rendered in headless Chromium (skipped with a message when
//! Chromium is not installed: `.ci/run` installs Debian's `chromium`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use quick_xml::events::Event;

use crate::util::{self, tracesql, tracesql_ok};

/// What an SVG document holds: elements counted by `name.class`, and whether
/// every mark carries its hover text.
#[derive(Debug, Default)]
struct SvgCounts {
    by_class: BTreeMap<String, usize>,
    /// Texts of the `label` class, in document order.
    labels: Vec<String>,
    marks_without_title: usize,
}

impl SvgCounts {
    fn get(&self, key: &str) -> usize {
        self.by_class.get(key).copied().unwrap_or(0)
    }

    fn marks(&self) -> usize {
        self.get("rect.mark") + self.get("circle.mark")
    }
}

/// Parses one SVG document (panics on malformed XML).
fn parse_svg(text: &str) -> SvgCounts {
    let mut reader = quick_xml::Reader::from_str(text);
    let mut counts = SvgCounts::default();
    // (element, class) of the open elements.
    let mut open: Vec<(String, String)> = Vec::new();
    let mut saw_title_in_mark = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                let (name, class) = name_and_class(&e);
                if name == "title" && open.last().is_some_and(|(_, c)| c == "mark") {
                    saw_title_in_mark = true;
                }
                *counts
                    .by_class
                    .entry(format!("{name}.{class}"))
                    .or_default() += 1;
                if class == "mark" {
                    saw_title_in_mark = false;
                }
                if class == "label" {
                    counts.labels.push(String::new());
                }
                open.push((name, class));
            }
            Ok(Event::Empty(e)) => {
                let (name, class) = name_and_class(&e);
                if class == "mark" {
                    counts.marks_without_title += 1;
                }
                *counts
                    .by_class
                    .entry(format!("{name}.{class}"))
                    .or_default() += 1;
            }
            Ok(Event::Text(t)) => {
                if open.last().is_some_and(|(_, c)| c == "label") {
                    if let Some(label) = counts.labels.last_mut() {
                        label.push_str(&t);
                    }
                }
            }
            Ok(Event::GeneralRef(r)) => {
                if open.last().is_some_and(|(_, c)| c == "label") {
                    if let Some(label) = counts.labels.last_mut() {
                        label.push_str(&format!("&{};", &*r));
                    }
                }
            }
            Ok(Event::End(_)) => {
                if let Some((_, class)) = open.pop() {
                    if class == "mark" && !saw_title_in_mark {
                        counts.marks_without_title += 1;
                    }
                }
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("not well-formed SVG at {}: {e}", reader.buffer_position()),
        }
    }
    assert!(open.is_empty(), "unclosed elements: {open:?}");
    counts
}

fn name_and_class(e: &quick_xml::events::BytesStart) -> (String, String) {
    let name = e.name().as_ref().to_string();
    let class = e
        .try_get_attribute("class")
        .ok()
        .flatten()
        .map(|a| a.value.into_owned())
        .unwrap_or_default();
    (name, class)
}

/// The SVG documents inline in an HTML page, in order.
fn inline_svgs(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<svg ") {
        let end = rest[start..].find("</svg>").expect("closed svg") + start + "</svg>".len();
        out.push(&rest[start..end]);
        rest = &rest[end..];
    }
    out
}

/// Rows of `sql` over `args` (trace and options) as CSV records.
fn csv_rows(args: &[&str], sql: &str) -> Vec<BTreeMap<String, String>> {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--format", "csv", "-e", sql]);
    let out = tracesql_ok(&all);
    let mut reader = csv::Reader::from_reader(out.as_bytes());
    let header = reader.headers().expect("header").clone();
    reader
        .records()
        .map(|r| {
            let r = r.expect("record");
            header
                .iter()
                .map(String::from)
                .zip(r.iter().map(String::from))
                .collect()
        })
        .collect()
}

fn count(args: &[&str], sql: &str) -> usize {
    let rows = csv_rows(args, sql);
    rows[0]
        .values()
        .next()
        .expect("one column")
        .parse()
        .expect("a count")
}

fn f(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column} = {:?}", row[column]))
}

/// A self-contained page: no script, no external stylesheet, image or font,
/// no address but the SVG namespace.
fn assert_self_contained(html: &str) {
    for banned in ["<script", "<link", "<img", "<iframe", "@import", "url("] {
        assert!(!html.contains(banned), "the page has {banned}");
    }
    let addresses = html.matches("http").count();
    let namespaces = html.matches("http://www.w3.org/2000/svg").count();
    assert_eq!(
        addresses, namespaces,
        "only the SVG namespace is an address"
    );
    assert!(html.starts_with("<!DOCTYPE html>"));
}

fn bert_h100() -> Option<String> {
    let dir = util::conformance_dir()?;
    let path = dir.join("traces/h100/gaunernst_bert-small-uncased__1016001.json.gz");
    Some(path.to_string_lossy().into_owned())
}

#[test]
fn analyze_draws_what_the_chart_queries_return() {
    let Some(trace) = bert_h100() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("analysis");
    let html = dir.path().join("report.html");
    tracesql()
        .args(["analyze", &trace, "--platform", "H100", "--out"])
        .arg(&out)
        .arg("--html")
        .arg(&html)
        .ok();
    let session = ["query", trace.as_str(), "--platform", "H100"];
    // The GPU timeline: one segment per chart_gpu_timeline row.
    let timeline = std::fs::read_to_string(out.join("charts/gpu_timeline.svg")).expect("svg");
    let segments = csv_rows(&session, "SELECT * FROM chart_gpu_timeline");
    assert_eq!(segments.len(), 4);
    let total: f64 = segments.iter().map(|r| f(r, "pct")).sum();
    assert!(
        (total - 100.0).abs() < 1e-6,
        "segments cover the span: {total}"
    );
    let svg = parse_svg(&timeline);
    assert_eq!(svg.marks(), 4);
    assert_eq!(svg.marks_without_title, 0);
    // The roofline: one point per chart_roofline row, one labelled roof per
    // chart_roofs row.
    let roofline =
        parse_svg(&std::fs::read_to_string(out.join("charts/roofline.svg")).expect("svg"));
    let points = count(&session, "SELECT count(*) FROM chart_roofline");
    let modelled = count(
        &session,
        "SELECT count(*) FROM analyze_ops WHERE flops_per_byte > 0 AND tflops_per_s > 0",
    );
    assert!(
        points > 3 && points == modelled,
        "{points} points, {modelled} groups"
    );
    assert_eq!(roofline.get("circle.mark"), points);
    let roofs = count(&session, "SELECT count(*) FROM chart_roofs");
    assert_eq!(roofs, 3, "memory, matrix_bf16 and vector_bf16 on H100");
    assert_eq!(roofline.get("text.roof"), roofs);
    // Top ops: a bar and a label per top_ops row.
    let top = parse_svg(&std::fs::read_to_string(out.join("charts/top_ops.svg")).expect("svg"));
    let rows = csv_rows(&session, "SELECT * FROM top_ops");
    assert_eq!(top.marks(), rows.len());
    assert_eq!(top.labels.len(), rows.len());
    assert!(
        top.labels[0].starts_with(&rows[0]["Operation"]),
        "{:?}",
        top.labels
    );
    // The Markdown links each chart; each link resolves.
    let md = std::fs::read_to_string(out.join("standalone_analysis.md")).expect("md");
    for file in ["gpu_timeline.svg", "roofline.svg", "top_ops.svg"] {
        assert!(md.contains(&format!("](charts/{file})")), "{file} linked");
    }
    // The page: the three charts inline, a row per recommendation.
    let page = std::fs::read_to_string(&html).expect("html");
    assert_self_contained(&page);
    let svgs = inline_svgs(&page);
    assert_eq!(svgs.len(), 3);
    assert_eq!(parse_svg(svgs[1]).get("circle.mark"), points);
    let findings: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(out.join("findings.json")).expect("json"))
            .expect("findings");
    let priority_rows = ["critical", "high", "medium", "low"]
        .iter()
        .map(|p| page.matches(&format!("<tr class=\"{p}\">")).count())
        .sum::<usize>();
    assert!(!findings.is_empty());
    assert_eq!(priority_rows, findings.len());
}

/// A trace written here with more op groups than the roofline shows.
fn many_gemm_shapes(dir: &Path, groups: usize) -> String {
    let mut events = Vec::new();
    for i in 0..groups {
        let (m, ts) = (16 + i as i64, 1000.0 + i as f64 * 20.0);
        let id = i as i64 + 1;
        events.push(serde_json::json!({
            "ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
            "ts": ts, "dur": 10.0,
            "args": {"External id": id, "Input Dims": [[m, 256], [256, 512]],
                     "Input type": ["float", "float"], "Input Strides": [[256, 1], [512, 1]],
                     "Concrete Inputs": ["", ""]}
        }));
        events.push(serde_json::json!({
            "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
            "ts": ts + 1.0, "dur": 2.0, "args": {"External id": id, "correlation": id}
        }));
        events.push(serde_json::json!({
            "ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7,
            "ts": ts + 4.0, "dur": 5.0 + (i % 7) as f64,
            "args": {"External id": id, "correlation": id, "device": 0, "stream": 7}
        }));
    }
    util::write_trace(dir, "many_shapes.json", serde_json::Value::Array(events))
}

/// However many op groups, the roofline draws at most 300 points (the ones
/// with the most time), and the page stays small.
#[test]
fn roofline_caps_its_points_on_a_large_trace() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = many_gemm_shapes(dir.path(), 420);
    let session = ["query", trace.as_str(), "--platform", "H100"];
    assert_eq!(
        count(
            &session,
            "SELECT count(*) FROM analyze_ops WHERE flops_per_byte > 0"
        ),
        420
    );
    assert_eq!(count(&session, "SELECT count(*) FROM chart_roofline"), 300);
    // The points kept are the largest: none left out has more time.
    let kept_min = csv_rows(&session, "SELECT min(time_us) AS t FROM chart_roofline");
    let all = csv_rows(
        &session,
        "SELECT time_us FROM analyze_ops ORDER BY time_us DESC LIMIT 1 OFFSET 300",
    );
    assert!(f(&all[0], "time_us") <= f(&kept_min[0], "t"));
    let html = dir.path().join("r.html");
    tracesql()
        .args(["analyze", &trace, "--platform", "H100", "--html"])
        .arg(&html)
        .ok();
    let page = std::fs::read_to_string(&html).expect("html");
    assert_self_contained(&page);
    let svgs = inline_svgs(&page);
    assert_eq!(parse_svg(svgs[1]).get("circle.mark"), 300);
    assert!(page.len() < 2 << 20, "{} bytes", page.len());
}

/// A fixture of this repository (no shared data): charts without a platform
/// draw points but no roofs, and say so.
#[test]
fn analyze_charts_without_platform() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = util::fixture("basic_linear.json");
    tracesql()
        .args(["--platform", "none", "analyze", &trace, "--out"])
        .arg(dir.path())
        .ok();
    let svg = std::fs::read_to_string(dir.path().join("charts/roofline.svg")).expect("svg");
    let counts = parse_svg(&svg);
    assert!(counts.get("circle.mark") >= 1);
    assert_eq!(counts.get("text.roof"), 0);
    assert!(svg.contains("No platform set or detected"));
    let bars =
        parse_svg(&std::fs::read_to_string(dir.path().join("charts/top_ops.svg")).expect("svg"));
    assert_eq!(
        bars.marks(),
        count(
            &["--platform", "none", "query", &trace],
            "SELECT count(*) FROM top_ops"
        )
    );
}

/// The largest shared trace's page stays well under 2 MB.
#[test]
fn html_stays_small_on_the_largest_shared_trace() {
    let Some(dir) = util::conformance_dir() else {
        return;
    };
    let trace = dir.join("traces/h100/google_owlv2-large-patch14-ensemble__1016001.json.gz");
    let out = tempfile::tempdir().expect("tempdir");
    let html = out.path().join("owl.html");
    tracesql()
        .arg("analyze")
        .arg(&trace)
        .arg("--html")
        .arg(&html)
        .ok();
    let page = std::fs::read_to_string(&html).expect("html");
    assert!(page.len() < 2 << 20, "{} bytes", page.len());
    assert_self_contained(&page);
    for svg in inline_svgs(&page) {
        assert!(parse_svg(svg).marks() <= 300);
    }
}

#[test]
fn compare_waterfall_adds_up_to_the_target_span() {
    let Some(dir) = util::conformance_dir() else {
        return;
    };
    let base = dir.join("traces/h100/gaunernst_bert-small-uncased__1016001.json.gz");
    let target = dir.join("traces/mi300/gaunernst_bert-small-uncased__1016001.json.gz");
    let (base, target) = (base.to_string_lossy(), target.to_string_lossy());
    let session = [
        "compare",
        base.as_ref(),
        target.as_ref(),
        "--names",
        "h100",
        "mi300",
    ];
    let steps = csv_rows(&session, "SELECT * FROM chart_compare_waterfall");
    let timeline = csv_rows(
        &session,
        "SELECT type, base_ms, target_ms FROM compare_gpu_timeline WHERE type = 'total_time'",
    );
    let (base_ms, target_ms) = (f(&timeline[0], "base_ms"), f(&timeline[0], "target_ms"));
    assert_eq!(steps[0]["step"], "base GPU span");
    assert!((f(&steps[0], "value_ms") - base_ms).abs() < 1e-9);
    let last = steps.last().expect("steps");
    assert_eq!(last["step"], "target GPU span");
    let changes: f64 = steps[1..steps.len() - 1]
        .iter()
        .map(|r| f(r, "value_ms"))
        .sum();
    assert!(
        (base_ms + changes - target_ms).abs() < 1e-9 * target_ms.max(1.0),
        "{base_ms} + {changes} != {target_ms}"
    );
    assert!((f(&steps[steps.len() - 2], "running_ms") - target_ms).abs() < 1e-9);
    // The GEMM change is the categories' own delta.
    let gemm = csv_rows(
        &session,
        "SELECT delta_us FROM compare_ops_by_category WHERE category = 'GEMM'",
    );
    let step = steps
        .iter()
        .find(|r| r["step"] == "GEMM kernels")
        .expect("GEMM step");
    assert!((f(step, "value_ms") * 1e3 - f(&gemm[0], "delta_us")).abs() < 1e-6);

    let out = tempfile::tempdir().expect("tempdir");
    let html = out.path().join("cmp.html");
    let mut args: Vec<&str> = session.to_vec();
    let html_arg = html.to_string_lossy().into_owned();
    args.extend(["--html", &html_arg]);
    tracesql_ok(&args);
    let page = std::fs::read_to_string(&html).expect("html");
    assert_self_contained(&page);
    let svgs = inline_svgs(&page);
    // Timelines, waterfall, changed ops, a roofline per side.
    assert_eq!(svgs.len(), 5, "{}", svgs.len());
    assert_eq!(parse_svg(svgs[0]).marks(), 8, "4 segments per side");
    assert_eq!(parse_svg(svgs[1]).marks(), steps.len());
    let per_side = csv_rows(
        &session,
        "SELECT side, count(*) AS n FROM chart_compare_roofline GROUP BY side ORDER BY side",
    );
    assert_eq!(
        parse_svg(svgs[3]).get("circle.mark"),
        f(&per_side[0], "n") as usize
    );
    assert_eq!(
        parse_svg(svgs[4]).get("circle.mark"),
        f(&per_side[1], "n") as usize
    );
    assert!(page.contains("mi300 on MI300X") && page.contains("h100 on H100"));
}

#[test]
fn collectives_heatmap_holds_each_ranks_wait() {
    let Some(dir) = util::conformance_dir() else {
        return;
    };
    let traces = dir.join("collectives/dlrm8_param/traces");
    let traces = traces.to_string_lossy();
    let session = ["collectives", traces.as_ref()];
    let cells = csv_rows(&session, "SELECT * FROM chart_rank_wait");
    let waits = csv_rows(
        &session,
        "SELECT rank, sum(wait_time) / 1e3 AS ms FROM collective_instances GROUP BY rank ORDER BY rank",
    );
    assert_eq!(waits.len(), 8);
    for rank in &waits {
        let drawn: f64 = cells
            .iter()
            .filter(|c| c["rank"] == rank["rank"])
            .map(|c| f(c, "wait_ms"))
            .sum();
        assert!(
            (drawn - f(rank, "ms")).abs() < 1e-9,
            "rank {}",
            rank["rank"]
        );
    }
    let out = tempfile::tempdir().expect("tempdir");
    let html = out.path().join("coll.html");
    tracesql()
        .args(["collectives", traces.as_ref(), "--analyze", "--html"])
        .arg(&html)
        .ok();
    let page = std::fs::read_to_string(&html).expect("html");
    assert_self_contained(&page);
    let svgs = inline_svgs(&page);
    assert_eq!(svgs.len(), 2);
    let timeline = parse_svg(svgs[0]);
    assert_eq!(timeline.marks(), 8 * 4);
    assert_eq!(
        timeline.labels,
        (0..8).map(|r| format!("rank {r}")).collect::<Vec<_>>()
    );
    assert_eq!(parse_svg(svgs[1]).marks(), cells.len());
    assert!(page.contains("Run analysis: recommendations"));
    // With --out, the same two charts beside the run's analysis, linked.
    let dir = out.path().join("coll");
    tracesql()
        .args(["collectives", traces.as_ref(), "--analyze", "--out"])
        .arg(&dir)
        .ok();
    let md = std::fs::read_to_string(dir.join("analysis/standalone_analysis.md")).expect("md");
    for file in ["rank_timeline.svg", "rank_wait.svg"] {
        assert!(md.contains(&format!("](charts/{file})")), "{file} linked");
        let svg = std::fs::read_to_string(dir.join("analysis/charts").join(file)).expect("svg");
        assert!(parse_svg(&svg).marks() > 0);
    }
}

/// Debian's Chromium, if installed.
fn chromium() -> Option<PathBuf> {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    if found.is_none() {
        eprintln!("skipped: Chromium is not installed (apt-get install chromium; .ci/run does)");
    }
    found
}

/// Renders `page` headless: the screenshot (RGBA rows) and the console
/// messages the page logged.
fn render(chromium: &Path, page: &Path, shot: &Path) -> (png::OutputInfo, Vec<u8>, Vec<String>) {
    let profile = tempfile::tempdir().expect("profile dir");
    let url = format!("file://{}", page.display());
    let run = util::Cmd::program(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1200,1600",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(url)
        .run();
    assert!(run.success(), "chromium failed: {}", run.stderr);
    let console: Vec<String> = run
        .stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(String::from)
        .collect();
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(shot).expect("screenshot written"),
    ));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut pixels).expect("a frame");
    pixels.truncate(info.buffer_size());
    (info, pixels, console)
}

#[test]
fn html_renders_in_chromium() {
    let Some(trace) = bert_h100() else { return };
    let Some(chromium) = chromium() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let html = dir.path().join("report.html");
    tracesql()
        .args(["analyze", &trace, "--platform", "H100", "--html"])
        .arg(&html)
        .ok();
    let (info, pixels, console) = render(&chromium, &html, &dir.path().join("shot.png"));
    assert!(console.is_empty(), "console messages: {console:?}");
    assert_eq!(info.width, 1200);
    let channels = info.line_size / info.width as usize;
    assert!(channels >= 3, "{:?}", info.color_type);
    let px: Vec<&[u8]> = pixels.chunks(channels).collect();
    let non_white = px.iter().filter(|p| p[..3] != [255, 255, 255]).count();
    assert!(
        non_white * 20 > px.len(),
        "mostly blank: {non_white} of {} pixels drawn",
        px.len()
    );
    // The GPU timeline's computation segment (#3b75af) was drawn: the
    // inline SVG rendered, not only the text.
    let blue = px.iter().filter(|p| p[..3] == [0x3b, 0x75, 0xaf]).count();
    assert!(blue > 200, "{blue} computation-blue pixels");

    // The console check can fail: a page that logs is caught.
    let noisy = dir.path().join("noisy.html");
    std::fs::write(&noisy, "<p>x</p><script>console.error('boom')</script>").expect("write");
    let (_, _, console) = render(&chromium, &noisy, &dir.path().join("noisy.png"));
    assert!(console.iter().any(|l| l.contains("boom")), "{console:?}");
}
