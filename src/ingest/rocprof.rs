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

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::mpsc;
use std::thread::ScopedJoinHandle;

use serde::Deserialize;

use super::kineto::decode::Event;
use super::native::{Agent, ApiCall, Dispatch, MemoryCopy, SourceFormat, Text};
use super::trace::{EventKind, FxMap, RawTrace};
use super::{source, IngestError, Problem};

mod split;
mod stream;

#[derive(Deserialize)]
struct Document<'a> {
    #[serde(rename = "rocprofiler-sdk-tool", borrow)]
    tools: Vec<Tool<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Tool<'a> {
    metadata: Option<Metadata>,
    agents: Vec<AgentRecord>,
    #[serde(borrow)]
    kernel_symbols: Vec<Symbol<'a>>,
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

/// A string borrowed from the document unless it holds escapes: kernel
/// symbols are half of a rocprofv3 file (four names of up to a kilobyte each),
/// and only the few dispatched kernels' names are kept.
#[derive(Default)]
struct Str<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Str<'a>, D::Error> {
        struct Visitor<'a>(std::marker::PhantomData<&'a str>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visitor<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Str<'a>, E> {
                Ok(Str(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(Visitor(std::marker::PhantomData))
    }
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Symbol<'a> {
    kernel_id: Option<u64>,
    #[serde(borrow)]
    kernel_name: Option<Str<'a>>,
    #[serde(borrow)]
    formatted_kernel_name: Option<Str<'a>>,
    #[serde(borrow)]
    demangled_kernel_name: Option<Str<'a>>,
    #[serde(borrow)]
    truncated_kernel_name: Option<Str<'a>>,
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
///
/// Three threads besides the inflating one: the first process's symbols
/// deserialize as soon as the scan has cut them out, while the rest of the
/// file is read; then the document deserializes on one thread while this one
/// turns its records into events ([`stream`]). Whenever that path may not
/// give what one serde pass over the whole file gives, the whole is read.
pub fn load(path: &str) -> Result<RawTrace, IngestError> {
    let fail = |problem| IngestError::new(path, problem);
    match read_in_parts(path).map_err(fail)? {
        Parts::Blank => Err(fail(Problem::EmptyFile)),
        Parts::Streamed(applied) => applied.map_err(|m| fail(Problem::Invalid(m))),
        Parts::Whole(document) => crate::timing::timed("  whole", || whole(path, &document)),
    }
}

/// What reading a file in its two parts gave.
enum Parts {
    /// Nothing but whitespace.
    Blank,
    /// The trace, or its first bad record, from [`streamed`].
    Streamed(Result<RawTrace, String>),
    /// The parts do not give what one serde pass gives: the document as it
    /// was, to be read whole.
    Whole(Vec<u8>),
}

/// Reads `path` with its first process's symbols cut out: they deserialize
/// on their own thread from the moment the scan has them, while the rest is
/// inflated, and then the document's records are applied as they
/// deserialize ([`streamed`]).
fn read_in_parts(path: &str) -> Result<Parts, Problem> {
    let read = crate::timing::Phase::start("  read");
    let mut reader = split::Reader::open(path)?;
    let mut cut = reader.cut_buffer();
    let was_cut = reader.read_symbols(&mut cut)?;
    let cut = cut;
    std::thread::scope(|scope| {
        let symbols = was_cut.then(|| scope.spawn(|| deserialize::<Vec<Symbol>>(&cut).ok()));
        let split = reader.finish(&cut)?;
        drop(read);
        if split.is_blank() {
            return Ok(Parts::Blank);
        }
        let streamed = crate::timing::timed("  deserialize + records", || {
            streamed(path, &split, symbols)
        });
        Ok(match streamed {
            Some(applied) => Parts::Streamed(applied),
            None => Parts::Whole(split.whole(&cut)),
        })
    })
}

/// The load of `path`, and one derived serde pass over the same bytes (the
/// reference the load's faster path must equal), each as everything it
/// builds or its error's text: for the fuzz target and the tests.
pub fn load_both_ways(path: &str) -> [Result<String, String>; 2] {
    let loaded = load(path);
    let whole = match source::read_all(path) {
        Err(problem) => Err(IngestError::new(path, problem)),
        Ok(bytes) if split::is_blank(&bytes) => Err(IngestError::new(path, Problem::EmptyFile)),
        Ok(bytes) => whole(path, &bytes),
    };
    [loaded, whole].map(|outcome| {
        (outcome.map(|trace| super::dump::everything(&trace))).map_err(|e| e.to_string())
    })
}

/// The trace from the document's parts: its records applied here while
/// another thread reads them, the cut-out symbols (`symbols`, still being
/// read) given to their process. None when the document or the symbols do
/// not deserialize this way: the whole is then read, for serde's error or
/// its reading of an unusual document.
fn streamed<'a, 'c: 'a>(
    path: &str,
    split: &'a split::Split,
    mut symbols: Option<ScopedJoinHandle<'_, Option<Vec<Symbol<'c>>>>>,
) -> Option<Result<RawTrace, String>> {
    let text = std::str::from_utf8(source::without_byte_order_mark(&split.doc)).ok()?;
    let cut_tool = split.symbols.map(|c| c.tool);
    let (parts_out, parts) = mpsc::sync_channel(2);
    let (spent, spent_in) = mpsc::channel();
    std::thread::scope(|scope| {
        let reading = scope.spawn(move || {
            let sink = stream::Sink {
                parts: &parts_out,
                spent: &spent_in,
            };
            stream::deserialize(text, &sink).is_ok()
        });
        let mut apply = Apply::new(path);
        // Once stopped, nothing more is applied, but the document is still
        // read to its end, since its own error comes first.
        let mut stopped = None;
        for part in parts {
            if stopped.is_some() {
                continue;
            }
            let mut symbols_of_tool = |own: Vec<Symbol<'a>>| {
                if cut_tool == Some(apply.tools()) {
                    joined(&mut symbols).ok_or(Stop::SymbolsUnread)
                } else {
                    Ok(own)
                }
            };
            let applied = match part {
                stream::Part::Head { agents, symbols } => {
                    symbols_of_tool(symbols).map(|symbols| apply.head(agents, symbols))
                }
                stream::Part::Dispatches(mut batch) => {
                    let applied = apply.dispatches(&batch).map_err(Stop::Record);
                    batch.clear();
                    let _ = spent.send(batch);
                    applied
                }
                stream::Part::Tool { rest, headed } => {
                    let mut rest = *rest;
                    let own = std::mem::take(&mut rest.kernel_symbols);
                    if headed {
                        apply.rest(rest).map_err(Stop::Record)
                    } else {
                        symbols_of_tool(own)
                            .and_then(|symbols| apply.tool(rest, symbols).map_err(Stop::Record))
                    }
                }
            };
            stopped = applied.err();
        }
        if !reading.join().unwrap_or(false) {
            return None;
        }
        match stopped {
            None => Some(apply.finish()),
            // Applying stopped before the cut-out symbols were given to their
            // process (a later one, or this one's records first). They are
            // part of the document: where they do not deserialize, serde's
            // error there comes before any record's, so the whole is read.
            Some(Stop::Record(_)) if symbols.is_some() && joined(&mut symbols).is_none() => None,
            Some(Stop::Record(message)) => Some(Err(message)),
            Some(Stop::SymbolsUnread) => None,
        }
    })
}

/// The cut-out symbols, joined once: None when they did not deserialize, or
/// were taken already.
fn joined<'c>(
    symbols: &mut Option<ScopedJoinHandle<'_, Option<Vec<Symbol<'c>>>>>,
) -> Option<Vec<Symbol<'c>>> {
    symbols.take()?.join().ok()?
}

/// Why [`streamed`] stopped applying before the end of the document.
enum Stop {
    /// A record that makes no event (the load's error, if the document reads).
    Record(String),
    /// The cut-out symbols did not deserialize: the whole is read instead.
    SymbolsUnread,
}

/// The trace from the document `bytes` read whole with the derived code, or
/// the load's error: serde's, else the first record's.
fn whole(path: &str, bytes: &[u8]) -> Result<RawTrace, IngestError> {
    let fail = |problem| IngestError::new(path, problem);
    let document: Document = deserialize(source::without_byte_order_mark(bytes)).map_err(|e| {
        fail(Problem::Invalid(format!(
            "not a valid rocprofv3 JSON file: {}",
            one_line(&e)
        )))
    })?;
    let mut apply = Apply::new(path);
    let applied = (document.tools.into_iter()).try_for_each(|mut tool| {
        let symbols = std::mem::take(&mut tool.kernel_symbols);
        apply.tool(tool, symbols)
    });
    applied
        .and_then(|()| apply.finish())
        .map_err(|message| fail(Problem::Invalid(message)))
}

/// One JSON value from `bytes`: read as text where the bytes are UTF-8 (checked
/// once here, not string by string), else as bytes (serde's error).
fn deserialize<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Result<T, serde_json::Error> {
    match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str(text),
        Err(_) => serde_json::from_slice(bytes),
    }
}

/// serde's message with its position, on one line.
fn one_line(e: &serde_json::Error) -> String {
    e.to_string().replace('\n', " ")
}

/// Turns a document's processes into the trace in file order: for each, its
/// agents, its dispatches, then its memory copies and API calls (the order
/// of the events' uids).
struct Apply<'a> {
    trace: RawTrace,
    /// The names of the process being applied, from its head.
    names: Option<Names<'a>>,
    /// Its dispatch records applied so far (for errors).
    dispatched: usize,
    /// The metadata of each process applied.
    metadata: Vec<Option<Metadata>>,
    /// Scratch text for the args of one event.
    args: String,
}

impl<'a> Apply<'a> {
    fn new(path: &str) -> Apply<'a> {
        let mut trace = RawTrace::new(path);
        trace.hold_all_args = true;
        trace.native.format = SourceFormat::Rocprofv3;
        Apply {
            trace,
            names: None,
            dispatched: 0,
            metadata: Vec::new(),
            args: String::new(),
        }
    }

    /// Processes applied whole so far: the index of the one being applied.
    fn tools(&self) -> usize {
        self.metadata.len()
    }

    /// Starts a process: its agents and kernel symbols.
    fn head(&mut self, agents: Vec<AgentRecord>, symbols: Vec<Symbol<'a>>) {
        add_agents(&mut self.trace, &agents);
        self.names = Some(Names::new(agents, symbols));
        self.dispatched = 0;
    }

    /// The process's next dispatch records.
    fn dispatches(&mut self, records: &[DispatchRecord]) -> Result<(), String> {
        let Some(names) = &mut self.names else {
            return Err("kernel dispatches before their process".into());
        };
        for record in records {
            add_dispatch(&mut self.trace, names, record, &mut self.args)
                .map_err(|m| format!("kernel_dispatch record {}: {m}", self.dispatched))?;
            self.dispatched += 1;
        }
        Ok(())
    }

    /// A process read whole, `symbols` its kernel symbols.
    fn tool(&mut self, mut tool: Tool<'a>, symbols: Vec<Symbol<'a>>) -> Result<(), String> {
        self.head(std::mem::take(&mut tool.agents), symbols);
        let dispatches = std::mem::take(&mut tool.buffer_records.kernel_dispatch);
        self.dispatches(&dispatches)?;
        self.rest(tool)
    }

    /// Ends a process: its memory copies and API calls.
    fn rest(&mut self, tool: Tool<'a>) -> Result<(), String> {
        let Some(mut names) = self.names.take() else {
            return Err("a process without its head".into());
        };
        names.operations = tool.strings.map(|s| s.buffer_records).unwrap_or_default();
        let pid = tool.metadata.as_ref().and_then(|m| m.pid);
        let (trace, args) = (&mut self.trace, &mut self.args);
        let records = &tool.buffer_records;
        for (i, record) in records.memory_copy.iter().enumerate() {
            add_copy(trace, &names, record, args)
                .map_err(|m| format!("memory_copy record {i}: {m}"))?;
        }
        let domains = [
            ("hip_api", &records.hip_api),
            ("hsa_api", &records.hsa_api),
            ("rccl_api", &records.rccl_api),
            ("marker_api", &records.marker_api),
        ];
        for (domain, list) in domains {
            let domain_id = trace.intern(Some(domain));
            let call = ApiContext {
                pid,
                domain,
                domain_id,
            };
            for (i, record) in list.iter().enumerate() {
                add_api_call(trace, &names, &call, record, args)
                    .map_err(|m| format!("{domain} record {i}: {m}"))?;
            }
        }
        self.metadata.push(tool.metadata);
        Ok(())
    }

    fn finish(self) -> Result<RawTrace, String> {
        let mut trace = self.trace;
        trace.metadata = metadata(&self.metadata);
        // A run that dispatched nothing is still a run: its timeline (all
        // idle) is a result. Without even metadata there is nothing to report.
        if trace.is_empty() && self.metadata.is_empty() {
            return Err("rocprofiler-sdk-tool holds no process".into());
        }
        trace.shrink_to_fit();
        Ok(trace)
    }
}

/// `trace_meta` rows: rocprofv3's metadata of the first process (as TraceLens
/// reads it), with `init_time`/`fini_time` spanning every process.
fn metadata(tools: &[Option<Metadata>]) -> Vec<(String, String)> {
    let json = |v: serde_json::Value| v.to_string();
    let metas: Vec<&Metadata> = tools.iter().flatten().collect();
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
    /// Each kernel id's symbol (the last written of an id, as a map built
    /// from the list in order keeps).
    symbols: HashMap<u64, Symbol<'a>>,
    agents: HashMap<i64, AgentRecord>,
    /// Set when the process is complete: only API calls, applied then,
    /// read it.
    operations: Vec<KindNames>,
    /// Each kernel id's names, chosen and interned at its first dispatch.
    kernels: FxMap<Option<u64>, KernelNames>,
}

/// A kernel's event name (owned: events are pushed into the trace that
/// interns it) and its interned names for `kernel_dispatches`.
struct KernelNames {
    name: String,
    name_id: Text,
    full_id: Text,
}

/// What a kernel's symbol says of its resources, for dispatches that do not.
#[derive(Clone, Copy, Default)]
struct Resources {
    lds: Option<i64>,
    scratch: Option<i64>,
    vgpr: Option<i64>,
    accum_vgpr: Option<i64>,
    sgpr: Option<i64>,
}

/// The first non-empty of a symbol's names, in the order given.
fn first_name<'s>(names: [&'s Option<Str<'_>>; 3]) -> Option<&'s str> {
    names
        .into_iter()
        .flatten()
        .map(|n| n.0.as_ref())
        .find(|n| !n.is_empty())
}

impl<'a> Names<'a> {
    fn new(agents: Vec<AgentRecord>, symbols: Vec<Symbol<'a>>) -> Names<'a> {
        Names {
            symbols: (symbols.into_iter())
                .filter_map(|s| Some((s.kernel_id?, s)))
                .collect(),
            agents: (agents.into_iter())
                .filter_map(|a| Some((Handle::of(a.id)?, a)))
                .collect(),
            operations: Vec::new(),
            kernels: FxMap::default(),
        }
    }

    fn resources(&self, id: Option<u64>) -> Resources {
        let Some(s) = id.and_then(|id| self.symbols.get(&id)) else {
            return Resources::default();
        };
        Resources {
            lds: s.group_segment_size,
            scratch: s.private_segment_size,
            vgpr: s.arch_vgpr_count,
            accum_vgpr: s.accum_vgpr_count,
            sgpr: s.sgpr_count,
        }
    }

    /// The names of kernel `id`: TraceLens's kernel name (the first non-empty
    /// of the truncated, formatted and mangled names; `unknown_kernel_<id>`
    /// for an unknown id) and the full name (demangled with its template
    /// arguments).
    fn kernel(&mut self, trace: &mut RawTrace, id: Option<u64>) -> &KernelNames {
        let symbols = &self.symbols;
        self.kernels.entry(id).or_insert_with(|| {
            let symbol = id.and_then(|id| symbols.get(&id));
            let name = symbol
                .and_then(|s| {
                    first_name([
                        &s.truncated_kernel_name,
                        &s.formatted_kernel_name,
                        &s.kernel_name,
                    ])
                })
                .map(str::to_string)
                .unwrap_or_else(|| {
                    format!(
                        "unknown_kernel_{}",
                        id.map_or("None".into(), |i| i.to_string())
                    )
                });
            let full = symbol.and_then(|s| {
                first_name([
                    &s.formatted_kernel_name,
                    &s.demangled_kernel_name,
                    &s.kernel_name,
                ])
            });
            KernelNames {
                name_id: trace.intern(Some(&name)),
                full_id: trace.intern(full),
                name,
            }
        })
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

fn add_agents(trace: &mut RawTrace, agents: &[AgentRecord]) {
    for a in agents {
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

/// `end - start` in ns: exact as an integer where it fits an i64 (the
/// times are large, their difference small); else, for times no profiler
/// writes, the difference of the two as floats rather than a wrapped one.
fn duration_ns(start: i64, end: i64) -> f64 {
    match end.checked_sub(start) {
        Some(d) => d as f64,
        None => end as f64 - start as f64,
    }
}

/// An integer as text without allocating: the pid and tid of an event.
fn int_text<'b>(
    buffer: &'b mut itoa::Buffer,
    value: Option<i64>,
    none: &'static str,
) -> Cow<'b, str> {
    match value {
        Some(v) => Cow::Borrowed(buffer.format(v)),
        None => Cow::Borrowed(none),
    }
}

/// One event in µs (f64 of the integer ns, as every consumer divides them).
fn timed_event<'a>(
    name: &'a str,
    cat: &'a str,
    (pid, tid): (Cow<'a, str>, Cow<'a, str>),
    (start, end): (i64, i64),
    args: &'a str,
) -> Event<'a> {
    Event {
        ph: Some("X".into()),
        cat: Some(cat.into()),
        name: Some(name.into()),
        pid: Some(pid),
        tid: Some(tid),
        ts: Some(start as f64 / 1000.0),
        dur: Some(duration_ns(start, end) / 1000.0),
        // rocprofv3 writes integer ns; TraceLens keeps them integers (its
        // minima, maxima and sums print as ints): trace_meta's integer_times.
        fractional_time: false,
        args: Some(args),
        ..Event::default()
    }
}

/// An event's args as JSON text, into `out`: integer (or null) values, then
/// integer triples. Written directly, not through serde_json's `Value` or
/// `fmt`: a rocprofv3 file has tens of thousands of records, and this runs
/// once for each.
fn int_args(out: &mut String, ints: &[(&str, Option<i64>)], triples: &[(&str, [i64; 3])]) {
    let mut digits = itoa::Buffer::new();
    out.clear();
    out.push('{');
    let key = |out: &mut String, key: &str| {
        if out.len() > 1 {
            out.push(',');
        }
        out.push('"');
        out.push_str(key);
        out.push_str("\":");
    };
    for (name, value) in ints {
        key(out, name);
        match value {
            Some(v) => out.push_str(digits.format(*v)),
            None => out.push_str("null"),
        }
    }
    for (name, xyz) in triples {
        key(out, name);
        for (i, v) in xyz.iter().enumerate() {
            out.push(if i == 0 { '[' } else { ',' });
            out.push_str(digits.format(*v));
        }
        out.push(']');
    }
    out.push('}');
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
    names: &mut Names,
    record: &DispatchRecord,
    args: &mut String,
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
    int_args(
        args,
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
    let symbol = names.resources(info.kernel_id);
    let kernel = names.kernel(trace, info.kernel_id);
    let (name_id, full_id) = (kernel.name_id, kernel.full_id);
    let (mut pid, mut tid) = (itoa::Buffer::new(), itoa::Buffer::new());
    let ids = (
        int_text(&mut pid, device, "GPU"),
        int_text(&mut tid, stream, "0"),
    );
    let mut event = timed_event(&kernel.name, "kernel_dispatch", ids, span, args);
    event.device = device;
    event.stream = stream;
    event.correlation = corr;
    let uid = trace.len() as u32;
    trace.push(EventKind::Kernel, &event, 0)?;
    let product = |v: [Option<i64>; 3]| {
        v.iter()
            .try_fold(1i64, |acc, x| acc.checked_mul(x.unwrap_or(1)))
    };
    let agent_id = match agent {
        Some(a) => trace.intern(Some(itoa::Buffer::new().format(a))),
        None => None,
    };
    trace.native.dispatches.push(Dispatch {
        uid,
        name: name_id,
        name_full: full_id,
        agent: agent_id,
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
        lds: (info.group_segment_size.or(info.lds_block_size_v)).or(symbol.lds),
        scratch: (info.private_segment_size.or(info.scratch_size)).or(symbol.scratch),
        vgpr: info.arch_vgpr_count.or(symbol.vgpr),
        accum_vgpr: info.accum_vgpr_count.or(symbol.accum_vgpr),
        sgpr: info.sgpr_count.or(symbol.sgpr),
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

fn add_copy(
    trace: &mut RawTrace,
    names: &Names,
    record: &CopyRecord,
    args: &mut String,
) -> Result<(), String> {
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
    int_args(
        args,
        &[
            ("device", device),
            ("stream", stream),
            ("correlation", corr),
            ("bytes", record.bytes),
        ],
        &[],
    );
    let name = copy_name(record.operation);
    let (mut pid, mut tid) = (itoa::Buffer::new(), itoa::Buffer::new());
    let ids = (
        int_text(&mut pid, device, "GPU"),
        int_text(&mut tid, stream, "0"),
    );
    let mut event = timed_event(name, "memory_copy", ids, span, args);
    event.device = device;
    event.stream = stream;
    event.correlation = corr;
    let uid = trace.len() as u32;
    trace.push(EventKind::Memcpy, &event, 0)?;
    let src_agent = trace.intern(names.agent_label(src).as_deref());
    let dst_agent = trace.intern(names.agent_label(dst).as_deref());
    trace.native.memory_copies.push(MemoryCopy {
        uid,
        name: trace.name.get(uid as usize),
        begin_ns: Some(span.0),
        end_ns: Some(span.1),
        delta_ns: None,
        bytes: record.bytes,
        src_agent,
        dst_agent,
        corr_id: corr,
        stream_id: stream,
        thread_id: record.thread_id,
    });
    Ok(())
}

/// What the API calls of one domain of one process share.
struct ApiContext<'a> {
    pid: Option<i64>,
    domain: &'a str,
    domain_id: Text,
}

fn add_api_call(
    trace: &mut RawTrace,
    names: &Names,
    call: &ApiContext,
    record: &ApiRecord,
    args: &mut String,
) -> Result<(), String> {
    let span = span(record.start_timestamp, record.end_timestamp)?;
    let corr = record
        .correlation_id
        .and_then(|c| c.internal)
        .map(|c| c as i64);
    let name = match names.operation(record.kind, record.operation) {
        Some(name) => Cow::Borrowed(name),
        None => Cow::Owned(format!(
            "{} operation {}",
            call.domain,
            record.operation.map_or("?".into(), |o| o.to_string())
        )),
    };
    int_args(
        args,
        &[
            ("correlation", corr),
            ("kind", record.kind),
            ("operation", record.operation),
            ("tid", record.thread_id),
        ],
        &[],
    );
    let (mut pid, mut tid) = (itoa::Buffer::new(), itoa::Buffer::new());
    let ids = (
        int_text(&mut pid, call.pid, "0"),
        int_text(&mut tid, record.thread_id, "0"),
    );
    let mut event = timed_event(&name, call.domain, ids, span, args);
    event.correlation = corr;
    let uid = trace.len() as u32;
    // HIP and RCCL calls launch GPU work (linked by correlation id); HSA calls
    // and markers nest under them like other host events.
    let kind = match call.domain {
        "hip_api" | "rccl_api" => EventKind::Runtime,
        "hsa_api" => EventKind::Driver,
        _ => EventKind::Other,
    };
    trace.push(kind, &event, 0)?;
    trace.native.api_calls.push(ApiCall {
        uid,
        domain: call.domain_id,
        name: trace.name.get(uid as usize),
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
    use super::*;
    use crate::ingest::dump::{assert_same, everything};

    /// The load of `text`, and what one derived serde pass over it builds.
    fn both_ways(text: &str) -> (Result<String, String>, Result<String, String>) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("t.json");
        std::fs::write(&path, text).expect("written");
        let [loaded, whole] = load_both_ways(path.to_str().expect("a path"));
        (loaded, whole)
    }

    /// The streamed path alone (what `load` does before any fallback):
    /// None where it would fall back to a whole read.
    fn streamed_only(path: &str) -> Option<Result<String, String>> {
        match read_in_parts(path).expect("reads") {
            Parts::Streamed(applied) => Some(applied.map(|t| everything(&t))),
            Parts::Blank | Parts::Whole(_) => None,
        }
    }

    fn symbol(id: usize) -> String {
        format!(
            r#"{{"kernel_id": {id}, "kernel_name": "_Z6kernel{id}v", "formatted_kernel_name": "kernel{id}<float>",
               "truncated_kernel_name": "kernel{id}", "group_segment_size": {id}, "sgpr_count": 16}}"#
        )
    }

    fn dispatch(i: usize, kernels: usize) -> String {
        let start = 1_000_000 + 10 * i;
        format!(
            r#"{{"thread_id": 7, "correlation_id": {{"internal": {i}}}, "start_timestamp": {start},
               "end_timestamp": {end}, "stream_id": {{"handle": 0}},
               "dispatch_info": {{"agent_id": {{"handle": 30}}, "queue_id": {{"handle": 1}},
               "kernel_id": {k}, "dispatch_id": {i}, "workgroup_size": {{"x": 256, "y": 1, "z": 1}},
               "grid_size": {{"x": {grid}, "y": 1, "z": 1}}}}}}"#,
            end = start + 5,
            k = i % kernels,
            grid = 256 * (1 + i % 7),
        )
    }

    /// A process: `order` lists its keys, each written as this module
    /// expects rocprofv3 to write it.
    fn tool(order: &[&str], dispatches: usize, first: usize) -> String {
        let kernels = 40;
        let field = |key: &str| -> String {
            let value = match key {
                "metadata" => format!(r#"{{"pid": {}, "init_time": 5, "fini_time": 9000000}}"#, 100 + first),
                "agents" => r#"[{"id": {"handle": 30}, "type": 2, "gpu_index": 0, "logical_node_id": 2},
                               {"id": {"handle": 1}, "type": 1, "logical_node_id": 0}]"#
                    .to_string(),
                "kernel_symbols" => format!("[{}]", (0..kernels).map(symbol).collect::<Vec<_>>().join(",")),
                "strings" => r#"{"buffer_records": [{"operations": []}, {"operations": ["hipLaunchKernel", "hipMemcpy"]}]}"#
                    .to_string(),
                "buffer_records" => format!(
                    r#"{{"hip_api": [{{"kind": 1, "operation": 0, "thread_id": 7, "correlation_id": {{"internal": {first}}},
                          "start_timestamp": 999000, "end_timestamp": 999100}}],
                       "kernel_dispatch": [{}],
                       "memory_copy": [{{"operation": 2, "thread_id": 7, "start_timestamp": 5, "end_timestamp": 9,
                          "src_agent_id": {{"handle": 1}}, "dst_agent_id": {{"handle": 30}}, "bytes": 4096}}],
                       "pc_sample_host_trap": []}}"#,
                    (first..first + dispatches).map(|i| dispatch(i, kernels)).collect::<Vec<_>>().join(",")
                ),
                other => panic!("{other}"),
            };
            format!("\"{key}\": {value}")
        };
        format!(
            "{{{}}}",
            order
                .iter()
                .map(|k| field(k))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }

    const USUAL: &[&str] = &[
        "metadata",
        "agents",
        "strings",
        "kernel_symbols",
        "buffer_records",
    ];

    fn document(tools: &[String]) -> String {
        format!(
            r#"{{"counters": [], "rocprofiler-sdk-tool": [{}]}}"#,
            tools.join(", ")
        )
    }

    #[test]
    fn a_byte_order_mark_before_the_document_is_skipped() {
        let text = document(&[tool(USUAL, 50, 0)]);
        let plain = both_ways(&text).0.expect("loads");
        let marked = format!("\u{feff}{text}");
        let (loaded, whole) = both_ways(&marked);
        assert_same(&loaded.expect("loads with the mark"), &plain);
        assert_same(&whole.expect("reads whole with the mark"), &plain);
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("marked.json");
        std::fs::write(&path, &marked).expect("written");
        let streamed = streamed_only(path.to_str().expect("a path"));
        assert_same(&streamed.expect("streamed").expect("loads"), &plain);
        // A mark and nothing else is an empty file, as whitespace is.
        let (loaded, whole) = both_ways("\u{feff} \n");
        for outcome in [loaded, whole] {
            let e = outcome.expect_err("empty");
            assert!(e.contains("empty"), "{e}");
        }
    }

    #[test]
    fn streamed_records_build_what_one_serde_pass_does() {
        let late_agents = [
            "metadata",
            "kernel_symbols",
            "buffer_records",
            "agents",
            "strings",
        ];
        let late_symbols = ["agents", "buffer_records", "kernel_symbols", "metadata"];
        let cases = [
            // Several batches, recycled, and a second process whose symbols
            // are not cut out.
            document(&[
                tool(USUAL, 3 * stream::BATCH + 17, 0),
                tool(USUAL, 5000, 20_000),
            ]),
            // A process whose records come before its agents or symbols is
            // applied when complete.
            document(&[tool(&late_agents, 5000, 0), tool(USUAL, 10, 9000)]),
            document(&[tool(&late_symbols, 5000, 0), tool(&late_agents, 10, 9000)]),
            document(&[tool(USUAL, 0, 0)]),
        ];
        let dir = tempfile::tempdir().expect("temp dir");
        for text in cases {
            let (loaded, whole) = both_ways(&text);
            let whole = whole.expect("the document reads");
            assert_same(&loaded.expect("the document loads"), &whole);
            // ...and by the streamed path, not by falling back.
            let path = dir.path().join("s.json");
            std::fs::write(&path, &text).expect("written");
            let streamed = streamed_only(path.to_str().expect("a path"));
            assert_same(&streamed.expect("streamed").expect("loads"), &whole);
        }
        let (loaded, _) = both_ways(&document(&[tool(USUAL, 3 * stream::BATCH + 17, 0)]));
        let rows = loaded.expect("loads");
        assert!(
            rows.contains("kernel39"),
            "names come from the cut-out symbols"
        );
        assert!(rows.contains("lds: Some(39)"), "and so do their resources");
    }

    #[test]
    fn mutated_documents_load_as_one_serde_pass_reads_them() {
        // A small fuzzer on stable: bytes replaced by JSON's own, deleted or
        // repeated, the document cut short; the streamed load must build the
        // same rows or fail with the same error as the derived pass.
        let seeds = [
            document(&[tool(USUAL, 3, 0)]),
            document(&[
                tool(USUAL, 2, 0),
                tool(&["agents", "buffer_records", "metadata"], 2, 50),
            ]),
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |below: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % below as u64) as usize
        };
        const JSON_BYTES: &[u8] = b"{}[],:\"0-e. \\n";
        let (mut same_rows, mut same_errors) = (0, 0);
        for round in 0..300 {
            let mut bytes = seeds[round % seeds.len()].clone().into_bytes();
            for _ in 0..1 + next(3) {
                if bytes.is_empty() {
                    break;
                }
                let at = next(bytes.len());
                match next(4) {
                    0 => bytes[at] = JSON_BYTES[next(JSON_BYTES.len())],
                    1 => {
                        bytes.remove(at);
                    }
                    2 => {
                        let end = (at + next(40)).min(bytes.len());
                        let copy = bytes[at..end].to_vec();
                        bytes.splice(at..at, copy);
                    }
                    _ => bytes.truncate(at.max(1)),
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            match both_ways(&text) {
                (Ok(a), Ok(b)) => {
                    assert_same(&a, &b);
                    same_rows += 1;
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a, b, "{text}");
                    same_errors += 1;
                }
                (a, b) => panic!("{:?} vs {:?} on {text}", a.is_ok(), b.is_ok()),
            }
        }
        // Both kinds of outcome were reached, not only errors.
        assert!(
            same_rows > 20 && same_errors > 20,
            "{same_rows} {same_errors}"
        );
    }

    #[test]
    fn unusual_or_bad_documents_get_what_one_serde_pass_gets() {
        let good = tool(USUAL, 5000, 0);
        let cases = [
            // A duplicate field: the derived code's error.
            document(&[good.replacen("\"metadata\"", "\"agents\": [], \"metadata\"", 1)]),
            document(&[good.replacen(
                "\"kernel_dispatch\"",
                "\"memory_copy\": [], \"kernel_dispatch\"",
                1,
            )]),
            // A record without its end, late in the second process.
            document(&[
                good.clone(),
                tool(USUAL, 5000, 9000).replacen(
                    "\"end_timestamp\": 1090035",
                    "\"end_timestam\": 1090035",
                    1,
                ),
            ]),
            // A bad symbol, and a bad record after a bad one.
            document(&[good.replacen("\"sgpr_count\": 16", "\"sgpr_count\": \"x\"", 1)]),
            document(&[good
                .replacen("\"end_timestamp\": 1000035", "\"end_timestam\": 1000035", 1)
                .replacen("\"thread_id\": 7", "\"thread_id\": []", 1)]),
            // A struct written as an array, which the derived code reads.
            document(&["[null, []]".to_string()]),
            document(std::slice::from_ref(&good)).replacen(
                "{\"counters\"",
                "{\"rocprofiler-sdk-tool\": [], \"counters\"",
                1,
            ),
            r#"{"counters": 1}"#.to_string(),
            document(&[]),
        ];
        for text in cases {
            let (loaded, whole) = both_ways(&text);
            assert_eq!(loaded, whole, "{}", &text[..200.min(text.len())]);
        }
        // A record error is found while streaming, after the document read.
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("s.json");
        let late = tool(USUAL, 5000, 9000).replacen(
            "\"end_timestamp\": 1090035",
            "\"end_timestam\": 1090035",
            1,
        );
        std::fs::write(&path, document(&[good.clone(), late])).expect("written");
        let streamed = streamed_only(path.to_str().expect("a path")).expect("streamed");
        assert!(streamed
            .expect_err("fails")
            .contains("kernel_dispatch record 3"));
        let (loaded, _) = both_ways(&document(&[
            good.clone(),
            tool(USUAL, 5000, 9000).replacen(
                "\"end_timestamp\": 1090035",
                "\"end_timestam\": 1090035",
                1,
            ),
        ]));
        let error = loaded.expect_err("fails");
        assert!(
            error.contains("kernel_dispatch record 3: no end_timestamp"),
            "{error}"
        );
        let (loaded, _) = both_ways(&document(&[good.replacen(
            "\"metadata\"",
            "\"agents\": [], \"metadata\"",
            1,
        )]));
        assert!(loaded
            .expect_err("fails")
            .contains("duplicate field `agents`"));
    }

    /// Found by fuzz/regressions/rocprof_reader/record-error-before-unread-symbols:
    /// a record error stops applying before the cut-out symbols are given to
    /// their process, and those symbols do not deserialize. serde's error in
    /// them is the document's, so it is the load's error, as in one pass.
    #[test]
    fn symbols_that_do_not_read_fail_before_an_earlier_bad_record() {
        let no_symbols = ["metadata", "agents", "strings", "buffer_records"];
        let bad_record = tool(&no_symbols, 10, 0).replacen(
            "\"end_timestamp\": 1000005",
            "\"end_timestam\": 1000005",
            1,
        );
        let bad_symbol = |order| {
            tool(order, 10, 9000).replacen("\"sgpr_count\": 16", "\"sgpr_count\": \"16\"", 1)
        };
        // The symbols of the next process, and this process's own symbols
        // after its records.
        let after_records = ["metadata", "agents", "buffer_records", "kernel_symbols"];
        let cases = [
            document(&[bad_record.clone(), bad_symbol(USUAL)]),
            document(&[bad_symbol(&after_records).replacen(
                "\"end_timestamp\": 1090005",
                "\"end_timestam\": 1090005",
                1,
            )]),
        ];
        for text in cases {
            let (loaded, whole) = both_ways(&text);
            let whole = whole.expect_err("the document does not read");
            assert!(whole.contains("invalid type: string"), "{whole}");
            assert_eq!(loaded.expect_err("fails"), whole);
        }
        // Where the symbols read, the record's error stands.
        let (loaded, _) = both_ways(&document(&[bad_record, tool(USUAL, 10, 9000)]));
        let error = loaded.expect_err("fails");
        assert!(error.contains("record 0: no end_timestamp"), "{error}");
    }

    #[test]
    fn a_span_too_long_for_an_i64_has_its_duration_not_a_wrapped_one() {
        assert_eq!(
            duration_ns(1_000_000_000_000_123, 1_000_000_000_002_623),
            2_500.0
        );
        assert_eq!(duration_ns(i64::MIN, i64::MAX), u64::MAX as f64);
        assert_eq!(duration_ns(i64::MAX, i64::MIN), -(u64::MAX as f64));
    }

    #[test]
    fn args_are_json_objects_of_integers() {
        let mut text = String::from("left over");
        int_args(
            &mut text,
            &[("device", Some(1)), ("stream", None), ("id", Some(-42))],
            &[("grid", [4, 2, 1])],
        );
        assert_eq!(
            text,
            r#"{"device":1,"stream":null,"id":-42,"grid":[4,2,1]}"#
        );
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(value["grid"][1], 2);
        int_args(&mut text, &[], &[]);
        assert_eq!(text, "{}");
    }
}
