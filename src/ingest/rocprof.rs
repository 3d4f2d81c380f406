//! rocprofv3 JSON (`rocprofv3 --output-format json`, `*_results.json[.gz]`).
//!
//! The file is one object, `{"rocprofiler-sdk-tool": [TOOL, ...]}`, one TOOL
//! per profiled process (spec formats.md §A.1). Records are typed, with integer
//! nanosecond times on the rocprofiler clock, so the document is deserialized
//! whole into structs that name only what we keep (serde skips the rest:
//! counters, code objects, PC samples).
//!
//! Each kernel dispatch, memory copy and API call becomes a Kineto-shaped
//! event (µs times, `device`/`stream`/`correlation` args, API calls linked to
//! their work by correlation id) and a row of the native tables with its
//! exact nanoseconds and rocprofv3's own fields.

use std::collections::HashMap;

use serde::Deserialize;

use super::kineto::decode::Event;
use super::native::{Agent, ApiCall, Dispatch, MemoryCopy, SourceFormat};
use super::trace::{EventKind, RawTrace};
use super::{source, IngestError, Problem};

#[derive(Deserialize)]
struct Document {
    #[serde(rename = "rocprofiler-sdk-tool")]
    tools: Vec<Tool>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Tool {
    metadata: Option<Metadata>,
    agents: Vec<AgentRecord>,
    kernel_symbols: Vec<Symbol>,
    strings: Option<NameTables>,
    buffer_records: BufferRecords,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Metadata {
    pid: Option<i64>,
    init_time: Option<i64>,
    fini_time: Option<i64>,
    node: Option<Node>,
    command: Option<serde_json::Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Node {
    hostname: Option<String>,
}

/// `{"handle": n}`: agents, queues and streams are named by opaque handles.
#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct Handle {
    handle: Option<u64>,
}

impl Handle {
    fn of(h: Option<Handle>) -> Option<i64> {
        h.and_then(|h| h.handle).map(|v| v as i64)
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct AgentRecord {
    id: Option<Handle>,
    #[serde(rename = "type")]
    kind: Option<i64>,
    node_id: Option<i64>,
    logical_node_id: Option<i64>,
    gpu_index: Option<i64>,
    name: Option<String>,
    product_name: Option<String>,
    cu_count: Option<i64>,
    simd_count: Option<i64>,
    wave_front_size: Option<i64>,
    max_engine_clk_fcompute: Option<i64>,
    num_xcc: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Symbol {
    kernel_id: Option<u64>,
    kernel_name: Option<String>,
    formatted_kernel_name: Option<String>,
    demangled_kernel_name: Option<String>,
    truncated_kernel_name: Option<String>,
    sgpr_count: Option<i64>,
    arch_vgpr_count: Option<i64>,
    accum_vgpr_count: Option<i64>,
    group_segment_size: Option<i64>,
    private_segment_size: Option<i64>,
}

/// `strings.buffer_records`: a record's `kind` indexes this list, its
/// `operation` that kind's `operations`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct NameTables {
    buffer_records: Vec<KindNames>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct KindNames {
    operations: Vec<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct BufferRecords {
    kernel_dispatch: Vec<DispatchRecord>,
    memory_copy: Vec<CopyRecord>,
    hip_api: Vec<ApiRecord>,
    hsa_api: Vec<ApiRecord>,
    rccl_api: Vec<ApiRecord>,
    marker_api: Vec<ApiRecord>,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct Correlation {
    internal: Option<u64>,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct Xyz {
    x: Option<i64>,
    y: Option<i64>,
    z: Option<i64>,
}

impl Xyz {
    fn axes(v: Option<Xyz>) -> [Option<i64>; 3] {
        v.map_or([None; 3], |v| [v.x, v.y, v.z])
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DispatchRecord {
    thread_id: Option<i64>,
    correlation_id: Option<Correlation>,
    start_timestamp: Option<i64>,
    end_timestamp: Option<i64>,
    dispatch_info: Option<DispatchInfo>,
    stream_id: Option<Handle>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DispatchInfo {
    agent_id: Option<Handle>,
    queue_id: Option<Handle>,
    kernel_id: Option<u64>,
    dispatch_id: Option<u64>,
    private_segment_size: Option<i64>,
    group_segment_size: Option<i64>,
    workgroup_size: Option<Xyz>,
    grid_size: Option<Xyz>,
    // Written by TraceLens's CSV converter (and so by rocprofv3 CSV).
    lds_block_size_v: Option<i64>,
    scratch_size: Option<i64>,
    arch_vgpr_count: Option<i64>,
    accum_vgpr_count: Option<i64>,
    sgpr_count: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CopyRecord {
    operation: Option<i64>,
    thread_id: Option<i64>,
    correlation_id: Option<Correlation>,
    start_timestamp: Option<i64>,
    end_timestamp: Option<i64>,
    src_agent_id: Option<Handle>,
    dst_agent_id: Option<Handle>,
    bytes: Option<i64>,
    stream_id: Option<Handle>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ApiRecord {
    kind: Option<i64>,
    operation: Option<i64>,
    thread_id: Option<i64>,
    correlation_id: Option<Correlation>,
    start_timestamp: Option<i64>,
    end_timestamp: Option<i64>,
}

/// Reads the rocprofv3 JSON file at `path`.
pub fn load(path: &str) -> Result<RawTrace, IngestError> {
    let fail = |problem| IngestError::new(path, problem);
    let bytes = source::read_all(path).map_err(fail)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(fail(Problem::EmptyFile));
    }
    let document: Document = serde_json::from_slice(&bytes).map_err(|e| {
        fail(Problem::Invalid(format!(
            "not a valid rocprofv3 JSON file: {}",
            one_line(&e)
        )))
    })?;
    drop(bytes);
    let mut trace = RawTrace::new(path);
    trace.hold_all_args = true;
    trace.native.format = SourceFormat::Rocprofv3;
    for tool in &document.tools {
        add_tool(&mut trace, tool).map_err(|m| fail(Problem::Invalid(m)))?;
    }
    trace.metadata = metadata(&document.tools);
    if trace.is_empty() {
        // A run that dispatched nothing is still a run: its timeline (all idle)
        // is a result. Without even metadata there is nothing to report.
        if document.tools.is_empty() {
            return Err(fail(Problem::Invalid(
                "rocprofiler-sdk-tool holds no process".into(),
            )));
        }
    }
    trace.shrink_to_fit();
    Ok(trace)
}

/// serde's message with its position, on one line.
fn one_line(e: &serde_json::Error) -> String {
    e.to_string().replace('\n', " ")
}

/// `trace_meta` rows: rocprofv3's metadata of the first process (as TraceLens
/// reads it), with `init_time`/`fini_time` spanning every process.
fn metadata(tools: &[Tool]) -> Vec<(String, String)> {
    let json = |v: serde_json::Value| v.to_string();
    let metas: Vec<&Metadata> = tools.iter().filter_map(|t| t.metadata.as_ref()).collect();
    let mut rows = vec![("processes".to_string(), tools.len().to_string())];
    if let Some(first) = metas.first() {
        if let Some(pid) = first.pid {
            rows.push(("pid".into(), pid.to_string()));
        }
        if let Some(host) = first.node.as_ref().and_then(|n| n.hostname.clone()) {
            rows.push(("hostname".into(), json(host.into())));
        }
        if let Some(command) = &first.command {
            rows.push(("command".into(), json(command.clone())));
        }
    }
    let init = metas.iter().filter_map(|m| m.init_time).min();
    let fini = metas.iter().filter_map(|m| m.fini_time).max();
    rows.push(("init_time".into(), init.unwrap_or(0).to_string()));
    rows.push(("fini_time".into(), fini.unwrap_or(0).to_string()));
    rows
}

/// The name tables of one process.
struct Names<'a> {
    symbols: HashMap<u64, &'a Symbol>,
    agents: HashMap<i64, &'a AgentRecord>,
    operations: &'a [KindNames],
}

impl Names<'_> {
    /// TraceLens's kernel name: the first non-empty of the truncated,
    /// formatted and mangled names; `unknown_kernel_<id>` for an unknown id.
    fn kernel_name(&self, id: Option<u64>) -> String {
        let symbol = id.and_then(|id| self.symbols.get(&id));
        let chosen = symbol.and_then(|s| {
            [
                &s.truncated_kernel_name,
                &s.formatted_kernel_name,
                &s.kernel_name,
            ]
            .into_iter()
            .flatten()
            .find(|n| !n.is_empty())
        });
        match chosen {
            Some(name) => name.clone(),
            None => format!(
                "unknown_kernel_{}",
                id.map_or("None".into(), |i| i.to_string())
            ),
        }
    }

    /// The full name: demangled with its template arguments.
    fn full_name(&self, id: Option<u64>) -> Option<String> {
        let s = self.symbols.get(&id?)?;
        [
            &s.formatted_kernel_name,
            &s.demangled_kernel_name,
            &s.kernel_name,
        ]
        .into_iter()
        .flatten()
        .find(|n| !n.is_empty())
        .cloned()
    }

    fn gpu_index(&self, agent: Option<i64>) -> Option<i64> {
        self.agents.get(&agent?)?.gpu_index.filter(|&i| i >= 0)
    }

    /// "Agent-N" as rocprofv3 prints agents elsewhere (logical node id), else
    /// the handle.
    fn agent_label(&self, agent: Option<i64>) -> Option<String> {
        let handle = agent?;
        Some(
            match self.agents.get(&handle).and_then(|a| a.logical_node_id) {
                Some(node) => format!("Agent-{node}"),
                None => handle.to_string(),
            },
        )
    }

    fn operation(&self, kind: Option<i64>, operation: Option<i64>) -> Option<&str> {
        let names = self.operations.get(usize::try_from(kind?).ok()?)?;
        Some(
            names
                .operations
                .get(usize::try_from(operation?).ok()?)?
                .as_str(),
        )
    }
}

fn add_tool(trace: &mut RawTrace, tool: &Tool) -> Result<(), String> {
    let names = Names {
        symbols: (tool.kernel_symbols.iter())
            .filter_map(|s| Some((s.kernel_id?, s)))
            .collect(),
        agents: (tool.agents.iter())
            .filter_map(|a| Some((Handle::of(a.id)?, a)))
            .collect(),
        operations: tool
            .strings
            .as_ref()
            .map_or(&[], |s| s.buffer_records.as_slice()),
    };
    let pid = tool.metadata.as_ref().and_then(|m| m.pid);
    add_agents(trace, tool);
    let records = &tool.buffer_records;
    for (i, record) in records.kernel_dispatch.iter().enumerate() {
        add_dispatch(trace, &names, record)
            .map_err(|m| format!("kernel_dispatch record {i}: {m}"))?;
    }
    for (i, record) in records.memory_copy.iter().enumerate() {
        add_copy(trace, &names, record).map_err(|m| format!("memory_copy record {i}: {m}"))?;
    }
    let domains = [
        ("hip_api", &records.hip_api),
        ("hsa_api", &records.hsa_api),
        ("rccl_api", &records.rccl_api),
        ("marker_api", &records.marker_api),
    ];
    for (domain, list) in domains {
        for (i, record) in list.iter().enumerate() {
            add_api_call(trace, &names, pid, domain, record)
                .map_err(|m| format!("{domain} record {i}: {m}"))?;
        }
    }
    Ok(())
}

fn add_agents(trace: &mut RawTrace, tool: &Tool) {
    for a in &tool.agents {
        trace.native.agents.push(Agent {
            handle: Handle::of(a.id),
            kind: a.kind.map(|k| match k {
                1 => "CPU".to_string(),
                2 => "GPU".to_string(),
                other => other.to_string(),
            }),
            node_id: a.node_id,
            logical_node_id: a.logical_node_id,
            gpu_index: a.gpu_index.filter(|&i| i >= 0),
            name: a.name.clone(),
            product_name: a.product_name.clone(),
            cu_count: a.cu_count,
            simd_count: a.simd_count,
            wave_front_size: a.wave_front_size,
            max_engine_clk_fcompute: a.max_engine_clk_fcompute,
            num_xcc: a.num_xcc,
        });
    }
}

/// A record's start and end, which every record must have.
fn span(start: Option<i64>, end: Option<i64>) -> Result<(i64, i64), String> {
    match (start, end) {
        (Some(s), Some(e)) => Ok((s, e)),
        (None, _) => Err("no start_timestamp".into()),
        (_, None) => Err("no end_timestamp".into()),
    }
}

/// One event in µs (f64 of the integer ns, as every consumer divides them).
fn timed_event<'a>(
    name: &'a str,
    cat: &'a str,
    pid: String,
    tid: String,
    (start, end): (i64, i64),
    args: &'a str,
) -> Event<'a> {
    Event {
        ph: Some("X".into()),
        cat: Some(cat.into()),
        name: Some(name.into()),
        pid: Some(pid.into()),
        tid: Some(tid.into()),
        ts: Some(start as f64 / 1000.0),
        dur: Some(end.wrapping_sub(start) as f64 / 1000.0),
        // rocprofv3 writes integer ns; TraceLens keeps them integers (its
        // minima, maxima and sums print as ints): trace_meta's integer_times.
        fractional_time: false,
        args: Some(args),
        ..Event::default()
    }
}

/// An event's args as JSON text: integer (or null) values, then integer
/// triples. Written directly, not through serde_json's `Value`: a rocprofv3
/// file has tens of thousands of records, and this runs once for each.
fn int_args(ints: &[(&str, Option<i64>)], triples: &[(&str, [i64; 3])]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(24 * (ints.len() + triples.len()) + 2);
    out.push('{');
    for (key, value) in ints {
        if out.len() > 1 {
            out.push(',');
        }
        let _ = match value {
            Some(v) => write!(out, "\"{key}\":{v}"),
            None => write!(out, "\"{key}\":null"),
        };
    }
    for (key, [x, y, z]) in triples {
        if out.len() > 1 {
            out.push(',');
        }
        let _ = write!(out, "\"{key}\":[{x},{y},{z}]");
    }
    out.push('}');
    out
}

/// Blocks per axis (Kineto's `grid`) from work-items and work-group size.
fn blocks(items: Option<i64>, group: Option<i64>) -> i64 {
    match (items.unwrap_or(1), group.unwrap_or(1)) {
        (i, g) if g > 0 => (i + g - 1) / g,
        (i, _) => i,
    }
}

fn add_dispatch(
    trace: &mut RawTrace,
    names: &Names,
    record: &DispatchRecord,
) -> Result<(), String> {
    let span = span(record.start_timestamp, record.end_timestamp)?;
    let default_info = DispatchInfo::default();
    let info = record.dispatch_info.as_ref().unwrap_or(&default_info);
    let agent = Handle::of(info.agent_id);
    let gpu = names.gpu_index(agent);
    let stream = Handle::of(record.stream_id);
    let corr = record
        .correlation_id
        .and_then(|c| c.internal)
        .map(|c| c as i64);
    let (grid, block) = (Xyz::axes(info.grid_size), Xyz::axes(info.workgroup_size));
    let device = gpu.or(agent);
    let grid_blocks = [0, 1, 2].map(|i| blocks(grid[i], block[i]));
    let block_items = block.map(|b| b.unwrap_or(1));
    let args = int_args(
        &[
            ("device", device),
            ("stream", stream),
            ("correlation", corr),
            ("queue", Handle::of(info.queue_id)),
            ("dispatch_id", info.dispatch_id.map(|v| v as i64)),
            ("kernel_id", info.kernel_id.map(|v| v as i64)),
        ],
        &[("grid", grid_blocks), ("block", block_items)],
    );
    let name = names.kernel_name(info.kernel_id);
    let device_text = device.map_or("GPU".into(), |d| d.to_string());
    let stream_text = stream.map_or("0".into(), |s| s.to_string());
    let mut event = timed_event(
        &name,
        "kernel_dispatch",
        device_text,
        stream_text,
        span,
        &args,
    );
    event.device = device;
    event.stream = stream;
    event.correlation = corr;
    let uid = trace.len() as u32;
    trace.push(EventKind::Kernel, &event, 0)?;
    let symbol = info.kernel_id.and_then(|id| names.symbols.get(&id));
    let product = |v: [Option<i64>; 3]| {
        v.iter()
            .try_fold(1i64, |acc, x| acc.checked_mul(x.unwrap_or(1)))
    };
    trace.native.dispatches.push(Dispatch {
        uid,
        name,
        name_full: names.full_name(info.kernel_id),
        agent: agent.map(|a| a.to_string()),
        gpu_index: gpu,
        queue_id: Handle::of(info.queue_id),
        stream_id: stream,
        kernel_id: info.kernel_id.map(|v| v as i64),
        dispatch_id: info.dispatch_id.map(|v| v as i64),
        corr_id: corr,
        thread_id: record.thread_id,
        begin_ns: Some(span.0),
        end_ns: Some(span.1),
        delta_ns: None,
        grid,
        block,
        grid_size: product(grid),
        workgroup_size: product(block),
        lds: (info.group_segment_size.or(info.lds_block_size_v))
            .or(symbol.and_then(|s| s.group_segment_size)),
        scratch: (info.private_segment_size.or(info.scratch_size))
            .or(symbol.and_then(|s| s.private_segment_size)),
        vgpr: info
            .arch_vgpr_count
            .or(symbol.and_then(|s| s.arch_vgpr_count)),
        accum_vgpr: info
            .accum_vgpr_count
            .or(symbol.and_then(|s| s.accum_vgpr_count)),
        sgpr: info.sgpr_count.or(symbol.and_then(|s| s.sgpr_count)),
        device_id: None,
        ..Dispatch::default()
    });
    Ok(())
}

/// rocprofv3's memory-copy operations (1..4), for files without name tables.
fn copy_name(operation: Option<i64>) -> &'static str {
    match operation {
        Some(1) => "MEMORY_COPY_HOST_TO_HOST",
        Some(2) => "MEMORY_COPY_HOST_TO_DEVICE",
        Some(3) => "MEMORY_COPY_DEVICE_TO_HOST",
        Some(4) => "MEMORY_COPY_DEVICE_TO_DEVICE",
        _ => "MEMORY_COPY",
    }
}

fn add_copy(trace: &mut RawTrace, names: &Names, record: &CopyRecord) -> Result<(), String> {
    let span = span(record.start_timestamp, record.end_timestamp)?;
    let (src, dst) = (
        Handle::of(record.src_agent_id),
        Handle::of(record.dst_agent_id),
    );
    // The GPU end of the copy (the destination for host-to-device).
    let device = names.gpu_index(dst).or(names.gpu_index(src)).or(dst);
    let stream = Handle::of(record.stream_id);
    let corr = record
        .correlation_id
        .and_then(|c| c.internal)
        .map(|c| c as i64);
    let args = int_args(
        &[
            ("device", device),
            ("stream", stream),
            ("correlation", corr),
            ("bytes", record.bytes),
        ],
        &[],
    );
    let name = copy_name(record.operation);
    let device_text = device.map_or("GPU".into(), |d| d.to_string());
    let stream_text = stream.map_or("0".into(), |s| s.to_string());
    let mut event = timed_event(name, "memory_copy", device_text, stream_text, span, &args);
    event.device = device;
    event.stream = stream;
    event.correlation = corr;
    let uid = trace.len() as u32;
    trace.push(EventKind::Memcpy, &event, 0)?;
    trace.native.memory_copies.push(MemoryCopy {
        uid,
        name: name.to_string(),
        begin_ns: Some(span.0),
        end_ns: Some(span.1),
        delta_ns: None,
        bytes: record.bytes,
        src_agent: names.agent_label(src),
        dst_agent: names.agent_label(dst),
        corr_id: corr,
        stream_id: stream,
        thread_id: record.thread_id,
    });
    Ok(())
}

fn add_api_call(
    trace: &mut RawTrace,
    names: &Names,
    pid: Option<i64>,
    domain: &str,
    record: &ApiRecord,
) -> Result<(), String> {
    let span = span(record.start_timestamp, record.end_timestamp)?;
    let corr = record
        .correlation_id
        .and_then(|c| c.internal)
        .map(|c| c as i64);
    let name = match names.operation(record.kind, record.operation) {
        Some(name) => name.to_string(),
        None => format!(
            "{domain} operation {}",
            record.operation.map_or("?".into(), |o| o.to_string())
        ),
    };
    let args = int_args(
        &[
            ("correlation", corr),
            ("kind", record.kind),
            ("operation", record.operation),
            ("tid", record.thread_id),
        ],
        &[],
    );
    let pid_text = pid.map_or("0".into(), |p| p.to_string());
    let tid_text = record.thread_id.map_or("0".into(), |t| t.to_string());
    let mut event = timed_event(&name, domain, pid_text, tid_text, span, &args);
    event.correlation = corr;
    let uid = trace.len() as u32;
    // HIP and RCCL calls launch GPU work (linked by correlation id); HSA calls
    // and markers nest under them like other host events.
    let kind = match domain {
        "hip_api" | "rccl_api" => EventKind::Runtime,
        "hsa_api" => EventKind::Driver,
        _ => EventKind::Other,
    };
    trace.push(kind, &event, 0)?;
    trace.native.api_calls.push(ApiCall {
        uid,
        domain: domain.to_string(),
        name,
        thread_id: record.thread_id,
        begin_ns: Some(span.0),
        end_ns: Some(span.1),
        delta_ns: None,
        corr_id: corr,
        kind: record.kind,
        operation: record.operation,
        device_id: None,
        agent: None,
        stream_id: None,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::int_args;

    #[test]
    fn args_are_json_objects_of_integers() {
        let text = int_args(
            &[("device", Some(1)), ("stream", None)],
            &[("grid", [4, 2, 1])],
        );
        assert_eq!(text, r#"{"device":1,"stream":null,"grid":[4,2,1]}"#);
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(value["grid"][1], 2);
        assert_eq!(int_args(&[], &[]), "{}");
    }
}
