//! The decoded trace: one column per field, one row per event, in file order.
//!
//! The row index is the event's uid (its 0-based position in `traceEvents`), which
//! is how the reference tool numbers events, so uids in our outputs match theirs.

use std::collections::HashMap;

/// What an event is, decided once from its `cat` and `ph`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// `cat: cpu_op`: an ATen / framework operator.
    CpuOp,
    /// `cat: python_function`: a Python stack frame.
    PythonFunction,
    /// `cat: cuda_runtime` (also HIP): cudaLaunchKernel, cudaMemcpyAsync, ...
    Runtime,
    /// `cat: cuda_driver`: cuLaunchKernel, ...
    Driver,
    /// `cat: kernel`: a GPU kernel.
    Kernel,
    /// `cat: gpu_memcpy`.
    Memcpy,
    /// `cat: gpu_memset`.
    Memset,
    /// Start of a CPU→GPU flow (`ac2g` or `async_cpu_to_gpu`, `ph: s`).
    FlowStart,
    /// End of a CPU→GPU flow (`ph: f`).
    FlowEnd,
    /// `ph: M`: process / thread names and labels.
    Metadata,
    /// Everything else (annotations, instants, counters, ...).
    Other,
}

impl EventKind {
    pub fn classify(cat: Option<&str>, ph: Option<&str>) -> EventKind {
        let complete = ph == Some("X");
        match (cat, ph) {
            (_, Some("M")) => EventKind::Metadata,
            (Some("ac2g" | "async_cpu_to_gpu"), Some("s")) => EventKind::FlowStart,
            (Some("ac2g" | "async_cpu_to_gpu"), Some("f")) => EventKind::FlowEnd,
            (Some("cpu_op"), _) if complete => EventKind::CpuOp,
            (Some("python_function"), _) if complete => EventKind::PythonFunction,
            (Some("cuda_runtime"), _) if complete => EventKind::Runtime,
            (Some("cuda_driver"), _) if complete => EventKind::Driver,
            (Some("kernel"), _) if complete => EventKind::Kernel,
            (Some("gpu_memcpy"), _) if complete => EventKind::Memcpy,
            (Some("gpu_memset"), _) if complete => EventKind::Memset,
            _ => EventKind::Other,
        }
    }

    /// Host events that nest by time on their thread.
    pub fn is_host(self) -> bool {
        matches!(
            self,
            EventKind::CpuOp | EventKind::Runtime | EventKind::Driver
        )
    }

    /// Runtime or driver API calls, which launch GPU work.
    pub fn is_launch_api(self) -> bool {
        matches!(self, EventKind::Runtime | EventKind::Driver)
    }

    /// Work that runs on the GPU.
    pub fn is_gpu(self) -> bool {
        matches!(
            self,
            EventKind::Kernel | EventKind::Memcpy | EventKind::Memset
        )
    }
}

/// Interned strings: names repeat thousands of times, so each is stored once.
#[derive(Default)]
pub struct Strings {
    ids: HashMap<Box<str>, u32>,
    list: Vec<Box<str>>,
}

impl Strings {
    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.list.len() as u32;
        self.list.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }

    pub fn get(&self, id: u32) -> &str {
        &self.list[id as usize]
    }
}

/// The arguments of a cpu_op that describe its inputs, as raw JSON text.
#[derive(Debug, Default, Clone)]
pub struct OpInputs {
    pub dims: Option<String>,
    pub types: Option<String>,
    pub strides: Option<String>,
    pub concrete: Option<String>,
}

/// A whole trace, decoded into columns. Row `i` is the event with uid `i`.
#[derive(Default)]
pub struct RawTrace {
    /// The input as named by the user.
    pub source: String,
    pub strings: Strings,
    pub kind: Vec<EventKind>,
    pub ph: Vec<Option<u32>>,
    pub cat: Vec<Option<u32>>,
    pub name: Vec<Option<u32>>,
    /// `pid` / `tid` as text: traces use numbers and strings alike.
    pub pid: Vec<Option<u32>>,
    pub tid: Vec<Option<u32>>,
    pub ts: Vec<Option<f64>>,
    pub dur: Vec<Option<f64>>,
    pub correlation: Vec<Option<i64>>,
    pub external_id: Vec<Option<i64>>,
    pub stream: Vec<Option<i64>>,
    pub device: Vec<Option<i64>>,
    pub seq_num: Vec<Option<i64>>,
    /// `id` of flow events (the correlation they carry).
    pub flow_id: Vec<Option<i64>>,
    /// Raw `args` objects, stored back to back in `args_text`.
    pub args_text: String,
    pub args_span: Vec<Option<(u32, u32)>>,
    /// Input descriptions of cpu_ops, by uid.
    pub op_inputs: HashMap<u32, OpInputs>,
    /// `process_name`, `process_labels` and `thread_name` metadata, last one wins.
    pub process_names: HashMap<u32, String>,
    pub process_labels: HashMap<u32, String>,
    pub thread_names: HashMap<(u32, u32), String>,
    /// Top-level keys other than `traceEvents`, as raw JSON.
    pub metadata: Vec<(String, String)>,
}

impl RawTrace {
    pub fn len(&self) -> usize {
        self.kind.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    pub fn str(&self, id: Option<u32>) -> Option<&str> {
        id.map(|i| self.strings.get(i))
    }

    pub fn name_of(&self, uid: usize) -> &str {
        self.str(self.name[uid]).unwrap_or("")
    }

    pub fn args_of(&self, uid: usize) -> Option<&str> {
        self.args_span[uid].map(|(s, e)| &self.args_text[s as usize..e as usize])
    }

    /// `ts + dur` in f64, the way the reference computes interval ends.
    pub fn t_end(&self, uid: usize) -> Option<f64> {
        self.ts[uid].map(|ts| ts + self.dur[uid].unwrap_or(0.0))
    }
}
