//! The decoded trace: one column per field, one row per event, in file order.
//!
//! The row index is the event's uid (its 0-based position in `traceEvents`), which
//! is how the reference tool numbers events, so uids in our outputs match theirs.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::kineto::decode::{id_text, Event};
use super::kineto::reread::FileStamp;
use super::native::Native;

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
    ids: FxMap<Box<str>, u32>,
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

    /// Like `intern`, trying `recent` (the id this column got last) first: ph, cat,
    /// pid and tid mostly repeat from one event to the next.
    pub fn intern_near(&mut self, recent: &mut u32, s: &str) -> u32 {
        if self.list.get(*recent as usize).is_some_and(|r| **r == *s) {
            return *recent;
        }
        *recent = self.intern(s);
        *recent
    }

    /// The id of `s` if it is interned.
    pub fn lookup(&self, s: &str) -> Option<u32> {
        self.ids.get(s).copied()
    }

    pub fn get(&self, id: u32) -> &str {
        &self.list[id as usize]
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// A HashMap with [`FxHasher`]: for integer and string keys read from the trace.
pub type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// The Firefox/rustc hash: a multiply and a rotate per word. Interning hashes every
/// name, category and thread of every event, and SipHash's DoS resistance buys
/// nothing for keys read from a file the user chose to open. Linking uses it too:
/// it looks up every GPU event's ancestors by uid (~220 K lookups on the benchmark
/// trace), where SipHash cost more than half of linking.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let mut tail = [0u8; 8];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(tail) ^ rest.len() as u64);
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// A bitmap, least significant bit first: Arrow's validity layout.
#[derive(Default, Clone)]
pub struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    pub fn push(&mut self, bit: bool) {
        if self.len % 64 == 0 {
            self.words.push(0);
        }
        if bit {
            self.words[self.len / 64] |= 1 << (self.len % 64);
        }
        self.len += 1;
    }

    pub fn get(&self, i: usize) -> bool {
        (self.words[i / 64] >> (i % 64)) & 1 == 1
    }

    /// Sets bit `i` (below `len`).
    pub fn set(&mut self, i: usize, bit: bool) {
        let (word, mask) = (i / 64, 1u64 << (i % 64));
        if bit {
            self.words[word] |= mask;
        } else {
            self.words[word] &= !mask;
        }
    }

    /// Appends `other`'s bits, a word at a time.
    pub fn extend(&mut self, other: &Bits) {
        let shift = self.len % 64;
        if shift == 0 {
            self.words.extend_from_slice(&other.words);
        } else {
            for &word in &other.words {
                if let Some(last) = self.words.last_mut() {
                    *last |= word << shift;
                }
                self.words.push(word >> (64 - shift));
            }
        }
        self.len += other.len;
        // Bits past `len` are zero in both, so dropping spare words loses nothing.
        self.words.truncate(self.len.div_ceil(64));
    }

    fn clear(&mut self) {
        self.words.clear();
        self.len = 0;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The words and the number of bits in use.
    pub fn into_parts(self) -> (Vec<u64>, usize) {
        (self.words, self.len)
    }

    fn shrink_to_fit(&mut self) {
        self.words.shrink_to_fit();
    }

    fn reserve(&mut self, bits: usize) {
        self.words
            .reserve((self.len + bits).div_ceil(64) - self.words.len());
    }
}

/// A nullable column: values (the default where missing) and a validity bitmap,
/// the layout Arrow uses, so the tables take it over without copying.
#[derive(Default)]
pub struct Column<T> {
    values: Vec<T>,
    valid: Bits,
}

impl<T: Copy + Default> Column<T> {
    pub fn push(&mut self, v: Option<T>) {
        self.values.push(v.unwrap_or_default());
        self.valid.push(v.is_some());
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<T> {
        self.valid.get(i).then(|| self.values[i])
    }

    /// Replaces row `i` (a reader that learns a value after the event was
    /// pushed: a Perfetto slice's duration from its annotations).
    pub fn set(&mut self, i: usize, v: Option<T>) {
        self.values[i] = v.unwrap_or_default();
        self.valid.set(i, v.is_some());
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Appends `other`'s rows.
    fn extend(&mut self, other: &Column<T>) {
        self.values.extend_from_slice(&other.values);
        self.valid.extend(&other.valid);
    }

    fn clear(&mut self) {
        self.values.clear();
        self.valid.clear();
    }

    /// The values (missing ones read as the default) and the validity bitmap.
    pub fn into_parts(self) -> (Vec<T>, Bits) {
        (self.values, self.valid)
    }

    fn shrink_to_fit(&mut self) {
        self.values.shrink_to_fit();
        self.valid.shrink_to_fit();
    }

    fn reserve(&mut self, rows: usize) {
        self.values.reserve(rows);
        self.valid.reserve(rows);
    }
}

/// A column's capacity, whatever its value type ([`RawTrace::columns`]).
trait Capacity {
    fn reserve(&mut self, rows: usize);
    fn shrink_to_fit(&mut self);
}

impl<T: Copy + Default> Capacity for Column<T> {
    fn reserve(&mut self, rows: usize) {
        Column::reserve(self, rows);
    }

    fn shrink_to_fit(&mut self) {
        Column::shrink_to_fit(self);
    }
}

impl Column<u32> {
    /// Appends `other`'s rows of interned ids, renumbered (other's id → this
    /// trace's id).
    fn extend_interned(&mut self, other: &Column<u32>, renumber: impl Fn(&u32) -> u32) {
        self.values.extend(other.values.iter().map(renumber));
        self.valid.extend(&other.valid);
    }
}

/// String offsets as Arrow lays them out: a leading 0, then where each row ends.
pub struct Offsets(pub Vec<i32>);

impl Default for Offsets {
    fn default() -> Self {
        Offsets(vec![0])
    }
}

/// Raw `args` objects stored back to back in Arrow's string layout: row `i` is
/// `text[offsets[i]..offsets[i + 1]]` where `valid` is set.
#[derive(Default)]
pub struct ArgsText {
    pub text: String,
    pub offsets: Offsets,
    pub valid: Bits,
}

impl ArgsText {
    /// Appends a row; the caller has checked that the text stays under 2 GiB.
    fn push(&mut self, args: Option<&str>) {
        if let Some(args) = args {
            self.text.push_str(args);
        }
        self.offsets.0.push(self.text.len() as i32);
        self.valid.push(args.is_some());
    }

    /// Row `row`'s text; None where it is NULL (or past the rows held).
    pub fn get(&self, row: usize) -> Option<&str> {
        if row + 1 >= self.offsets.0.len() {
            return None;
        }
        let offsets = &self.offsets.0;
        let range = offsets[row] as usize..offsets[row + 1] as usize;
        self.valid.get(row).then(|| &self.text[range])
    }

    fn append(&mut self, other: &ArgsText) -> Result<(), String> {
        if i32::try_from(self.text.len() + other.text.len()).is_err() {
            return Err(ARGS_TOO_LARGE.into());
        }
        // Under 2 GiB, checked when pushed.
        let base = self.text.len() as i32;
        self.text.push_str(&other.text);
        let offsets = other.offsets.0.iter().skip(1);
        self.offsets.0.extend(offsets.map(|&o| o + base));
        self.valid.extend(&other.valid);
        Ok(())
    }

    fn clear(&mut self) {
        self.text.clear();
        self.offsets.0.truncate(1);
        self.valid.clear();
    }

    fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.offsets.0.shrink_to_fit();
        self.valid.shrink_to_fit();
    }
}

/// A cpu_op's input descriptions as written (JSON text), interned in
/// [`RawTrace::strings`]: the same shapes and dtypes recur across layers and
/// steps, so each distinct text is stored once (on the benchmark trace, 12.5 MB
/// of text for 24 K ops comes down to the distinct values).
#[derive(Debug, Default, Clone, Copy)]
pub struct OpInputs {
    pub dims: Option<u32>,
    pub types: Option<u32>,
    pub strides: Option<u32>,
    pub concrete: Option<u32>,
}

impl OpInputs {
    /// The same inputs with their string ids renumbered.
    fn renumbered(self, id: impl Fn(&u32) -> u32) -> OpInputs {
        let renumber = |v: Option<u32>| v.as_ref().map(&id);
        OpInputs {
            dims: renumber(self.dims),
            types: renumber(self.types),
            strides: renumber(self.strides),
            concrete: renumber(self.concrete),
        }
    }
}

/// Why a trace cannot hold more events: `args` text offsets are Arrow's i32.
pub(super) const ARGS_TOO_LARGE: &str =
    "the events' args exceed 2 GiB of text, more than a table column holds";

/// A whole trace, decoded into columns. Row `i` is the event with uid `i`.
#[derive(Default)]
pub struct RawTrace {
    /// The input as named by the user.
    pub source: String,
    /// Every distinct text the columns below refer to: ph, cat, name, pid and
    /// tid values and the cpu_ops' input descriptions ([`OpInputs`]).
    pub strings: Strings,
    pub kind: Vec<EventKind>,
    /// Interned strings ([`RawTrace::str`]).
    pub ph: Column<u32>,
    pub cat: Column<u32>,
    pub name: Column<u32>,
    /// `pid` / `tid` as text: traces use numbers and strings alike.
    pub pid: Column<u32>,
    pub tid: Column<u32>,
    pub ts: Column<f64>,
    pub dur: Column<f64>,
    pub correlation: Column<i64>,
    pub external_id: Column<i64>,
    pub stream: Column<i64>,
    pub device: Column<i64>,
    pub seq_num: Column<i64>,
    /// `id` of flow events (the correlation they carry).
    pub flow_id: Column<i64>,
    /// Where each event's raw `args` object lies in the decompressed document:
    /// its byte offset and length (0: the event has no args; an object is at
    /// least `{}`). `events.args` is read back from the file through these.
    pub args_at: Vec<u64>,
    pub args_len: Vec<u32>,
    /// The args text this trace holds: every event's when `hold_all_args`, else
    /// only what building the tables reads (GPU events' launch parameters and
    /// collectives' metadata); NULL for the others.
    pub held_args: ArgsText,
    /// Hold every event's args: set when the input cannot be read again
    /// (standard input), so `events.args` must be kept from this one read.
    pub hold_all_args: bool,
    /// Input descriptions of cpu_ops that have any, by ascending uid.
    pub op_inputs: Vec<(u32, OpInputs)>,
    /// `process_name`, `process_labels` and `thread_name` metadata, last one wins.
    pub process_names: HashMap<u32, String>,
    pub process_labels: HashMap<u32, String>,
    pub thread_names: HashMap<(u32, u32), String>,
    /// Top-level keys other than `traceEvents`, as raw JSON.
    pub metadata: Vec<(String, String)>,
    /// Events whose `ts` or `dur` is written with a fraction or an exponent. A
    /// trace with none writes its times as integers, and the reports keep them
    /// integers as TraceLens does (trace_meta's `integer_times`).
    pub fractional_times: u64,
    /// Events with a `ts` or a `dur`.
    pub timed_events: u64,
    /// The input file as it was when read (None for standard input and other
    /// inputs that cannot be read again): `events.args` is read back from it.
    pub stamp: Option<FileStamp>,
    /// What formats other than Kineto record beyond these events.
    pub native: Native,
    /// The last id interned for ph, cat, name, pid and tid (see `intern_near`).
    recent: [u32; 5],
}

impl RawTrace {
    pub fn new(source: &str) -> Self {
        RawTrace {
            source: source.to_string(),
            ..RawTrace::default()
        }
    }

    pub fn len(&self) -> usize {
        self.kind.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    pub fn str(&self, id: Option<u32>) -> Option<&str> {
        id.map(|i| self.strings.get(i))
    }

    /// `text` interned (see [`super::native::Text`]).
    pub fn intern(&mut self, text: Option<&str>) -> Option<u32> {
        text.map(|t| self.strings.intern(t))
    }

    pub fn name_of(&self, uid: usize) -> &str {
        self.str(self.name.get(uid)).unwrap_or("")
    }

    pub fn has_args(&self, uid: usize) -> bool {
        self.args_len[uid] > 0
    }

    /// The args of event `uid` if this trace holds them (see `held_args`).
    pub fn args_of(&self, uid: usize) -> Option<&str> {
        self.held_args.get(uid)
    }

    /// Whether the args of an event of `kind` named `name` are held: building
    /// the tables reads those of GPU events (`kernels`: grid, block, bytes; the
    /// communication kernels of `collectives`) and of `record_param_comms` ops.
    fn holds_args_of(&self, kind: EventKind, name: Option<&str>) -> bool {
        self.hold_all_args
            || kind.is_gpu()
            || (kind == EventKind::CpuOp && name == Some("record_param_comms"))
    }

    /// The inputs of each of `uids` (cpu_ops, in increasing uid order), found
    /// in one walk instead of a search per op and input.
    pub fn op_inputs_of(&self, uids: &[usize]) -> Vec<Option<&OpInputs>> {
        let mut recorded = self.op_inputs.iter().peekable();
        uids.iter()
            .map(|&uid| {
                while recorded.next_if(|(u, _)| (*u as usize) < uid).is_some() {}
                recorded
                    .next_if(|(u, _)| *u as usize == uid)
                    .map(|(_, inputs)| inputs)
            })
            .collect()
    }

    /// The JSON text of one input description (an [`OpInputs`] id).
    pub fn input_text(&self, id: Option<u32>) -> Option<&str> {
        self.str(id)
    }

    /// Every row, every metadata name and the top-level metadata as text, one
    /// entry each: two ways of reading the same document must give equal digests
    /// (the read-ahead tests and the fuzz targets compare them).
    #[doc(hidden)]
    pub fn digest(&self) -> Vec<String> {
        use std::fmt::Write as _;
        let mut rows = Vec::with_capacity(self.len() + 1);
        let uids: Vec<usize> = (0..self.len()).collect();
        let inputs = self.op_inputs_of(&uids);
        for (uid, inputs) in inputs.iter().enumerate() {
            let mut row = format!("{uid} {:?}", self.kind[uid]);
            for column in [&self.ph, &self.cat, &self.name, &self.pid, &self.tid] {
                let _ = write!(row, " {:?}", self.str(column.get(uid)));
            }
            let numbers = [&self.correlation, &self.external_id, &self.stream];
            for column in numbers
                .into_iter()
                .chain([&self.device, &self.seq_num, &self.flow_id])
            {
                let _ = write!(row, " {:?}", column.get(uid));
            }
            let _ = write!(
                row,
                " {:?} {:?} {:?} at {} len {}",
                self.ts.get(uid).map(f64::to_bits),
                self.dur.get(uid).map(f64::to_bits),
                self.args_of(uid),
                self.args_at[uid],
                self.args_len[uid],
            );
            if let Some(inputs) = inputs {
                let _ = write!(
                    row,
                    " {:?} {:?} {:?} {:?}",
                    self.input_text(inputs.dims),
                    self.input_text(inputs.types),
                    self.input_text(inputs.strides),
                    self.input_text(inputs.concrete)
                );
            }
            rows.push(row);
        }
        let mut names: Vec<String> = (self.thread_names.iter())
            .map(|((p, t), v)| {
                let (p, t) = (self.strings.get(*p), self.strings.get(*t));
                format!("thread {p:?} {t:?} {v:?}")
            })
            .chain(
                self.process_names
                    .iter()
                    .map(|(p, v)| format!("process {:?} {v:?}", self.strings.get(*p))),
            )
            .chain(
                self.process_labels
                    .iter()
                    .map(|(p, v)| format!("labels {:?} {v:?}", self.strings.get(*p))),
            )
            .collect();
        names.sort();
        rows.extend(names);
        rows.push(format!("{:?}", self.metadata));
        rows.push(format!(
            "times: {} fractional of {} timed",
            self.fractional_times, self.timed_events
        ));
        rows
    }

    /// `ts + dur` in f64, the way the reference computes interval ends.
    pub fn t_end(&self, uid: usize) -> Option<f64> {
        self.ts
            .get(uid)
            .map(|ts| ts + self.dur.get(uid).unwrap_or(0.0))
    }

    /// Appends one decoded event as the next row; `args_at` is where its args
    /// start in the document (ignored when it has none).
    pub fn push(&mut self, kind: EventKind, ev: &Event, args_at: u64) -> Result<(), String> {
        // Every check comes first: a failed push leaves the trace as it was (the
        // read-ahead thread stops at such an event and hands over the rows before).
        let args_len = ev.args.map_or(0, str::len);
        let Ok(args_len) = u32::try_from(args_len) else {
            return Err("an event's args exceed 4 GiB".into());
        };
        let held = ev
            .args
            .filter(|_| self.holds_args_of(kind, ev.name.as_deref()));
        if i32::try_from(self.held_args.text.len() + held.map_or(0, str::len)).is_err() {
            return Err(ARGS_TOO_LARGE.into());
        }
        self.held_args.push(held);
        let strings = &mut self.strings;
        let [near_ph, near_cat, near_name, near_pid, near_tid] = &mut self.recent;
        let mut intern = |near: &mut u32, s: &Option<Cow<str>>| {
            s.as_deref().map(|s| strings.intern_near(near, s))
        };
        let (pid, tid) = (intern(near_pid, &ev.pid), intern(near_tid, &ev.tid));
        self.ph.push(intern(near_ph, &ev.ph));
        self.cat.push(intern(near_cat, &ev.cat));
        self.name.push(intern(near_name, &ev.name));
        self.pid.push(pid);
        self.tid.push(tid);
        self.kind.push(kind);
        self.ts.push(ev.ts);
        self.dur.push(ev.dur);
        self.fractional_times += u64::from(ev.fractional_time);
        self.timed_events += u64::from(ev.ts.is_some() || ev.dur.is_some());
        self.correlation.push(ev.correlation);
        self.external_id.push(ev.external_id);
        self.stream.push(ev.stream);
        self.device.push(ev.device);
        self.seq_num.push(ev.seq_num);
        self.flow_id.push(ev.flow_id);
        self.args_at.push(if args_len > 0 { args_at } else { 0 });
        self.args_len.push(args_len);
        if kind == EventKind::CpuOp && ev.inputs.any() {
            let mut intern = |text: Option<&str>| text.map(|t| self.strings.intern(t));
            let inputs = OpInputs {
                dims: intern(ev.inputs.dims),
                types: intern(ev.inputs.types),
                strides: intern(ev.inputs.strides),
                concrete: intern(ev.inputs.concrete),
            };
            self.op_inputs.push((self.kind.len() as u32 - 1, inputs));
        }
        if kind == EventKind::Metadata {
            self.record_metadata(ev, pid, tid);
        }
        Ok(())
    }

    /// Appends the events of `part` (decoded on their own, rows numbered from 0)
    /// as if each had been pushed here in turn: its strings interned here, its
    /// held args moved behind this trace's, its metadata names
    /// applied after the ones seen so far (later events win, as with `push`).
    /// Args positions are document offsets already: they are taken as they are.
    pub fn append(&mut self, part: &RawTrace) -> Result<(), String> {
        self.held_args.append(&part.held_args)?;
        let uid_base = self.len() as u32;
        let ids: Vec<u32> = part
            .strings
            .list
            .iter()
            .map(|s| self.strings.intern(s))
            .collect();
        // Missing values hold id 0 whether or not `part` has any string.
        let id = |v: &u32| ids.get(*v as usize).copied().unwrap_or_default();
        self.ph.extend_interned(&part.ph, id);
        self.cat.extend_interned(&part.cat, id);
        self.name.extend_interned(&part.name, id);
        self.pid.extend_interned(&part.pid, id);
        self.tid.extend_interned(&part.tid, id);
        self.kind.extend_from_slice(&part.kind);
        self.ts.extend(&part.ts);
        self.dur.extend(&part.dur);
        self.fractional_times += part.fractional_times;
        self.timed_events += part.timed_events;
        self.correlation.extend(&part.correlation);
        self.external_id.extend(&part.external_id);
        self.stream.extend(&part.stream);
        self.device.extend(&part.device);
        self.seq_num.extend(&part.seq_num);
        self.flow_id.extend(&part.flow_id);
        self.args_at.extend_from_slice(&part.args_at);
        self.args_len.extend_from_slice(&part.args_len);
        let inputs = part.op_inputs.iter();
        self.op_inputs
            .extend(inputs.map(|&(uid, inputs)| (uid + uid_base, inputs.renumbered(id))));
        let names = part.process_names.iter();
        self.process_names
            .extend(names.map(|(p, v)| (id(p), v.clone())));
        let labels = part.process_labels.iter();
        self.process_labels
            .extend(labels.map(|(p, v)| (id(p), v.clone())));
        let threads = part.thread_names.iter();
        self.thread_names
            .extend(threads.map(|((p, t), v)| ((id(p), id(t)), v.clone())));
        Ok(())
    }

    /// Empties the trace but keeps its buffers, to be filled again.
    pub fn clear(&mut self) {
        let RawTrace {
            source,
            strings,
            kind,
            ph,
            cat,
            name,
            pid,
            tid,
            ts,
            dur,
            correlation,
            external_id,
            stream,
            device,
            seq_num,
            flow_id,
            args_at,
            args_len,
            held_args,
            hold_all_args: _,
            op_inputs,
            process_names,
            process_labels,
            thread_names,
            metadata,
            fractional_times,
            timed_events,
            stamp,
            native,
            recent,
        } = self;
        source.clear();
        strings.ids.clear();
        strings.list.clear();
        kind.clear();
        for c in [ph, cat, name, pid, tid] {
            c.clear();
        }
        ts.clear();
        dur.clear();
        for c in [correlation, external_id, stream, device, seq_num, flow_id] {
            c.clear();
        }
        args_at.clear();
        args_len.clear();
        held_args.clear();
        op_inputs.clear();
        process_names.clear();
        process_labels.clear();
        thread_names.clear();
        metadata.clear();
        *fractional_times = 0;
        *timed_events = 0;
        *stamp = None;
        *native = Native::default();
        *recent = [0; 5];
    }

    fn record_metadata(&mut self, ev: &Event, pid: Option<u32>, tid: Option<u32>) {
        let Some(pid) = pid else { return };
        let as_text = |v: Option<&str>| v.and_then(id_text);
        match ev.name.as_deref() {
            Some("process_name") => {
                if let Some(v) = as_text(ev.meta_name) {
                    self.process_names.insert(pid, v);
                }
            }
            Some("process_labels") => {
                if let Some(v) = as_text(ev.meta_labels) {
                    self.process_labels.insert(pid, v);
                }
            }
            Some("thread_name") => {
                if let (Some(tid), Some(v)) = (tid, as_text(ev.meta_name)) {
                    self.thread_names.insert((pid, tid), v);
                }
            }
            _ => {}
        }
    }

    /// The per-event columns, for what is done to all of them alike.
    fn columns(&mut self) -> [&mut dyn Capacity; 13] {
        [
            &mut self.ph,
            &mut self.cat,
            &mut self.name,
            &mut self.pid,
            &mut self.tid,
            &mut self.ts,
            &mut self.dur,
            &mut self.correlation,
            &mut self.external_id,
            &mut self.stream,
            &mut self.device,
            &mut self.seq_num,
            &mut self.flow_id,
        ]
    }

    /// Makes room for `events` more rows in every column (not the args
    /// text), for a reader that knows how many it will push.
    pub fn reserve(&mut self, events: usize) {
        for c in self.columns() {
            c.reserve(events);
        }
        self.kind.reserve(events);
        self.args_at.reserve(events);
        self.args_len.reserve(events);
        self.held_args.offsets.0.reserve(events);
        self.held_args.valid.reserve(events);
    }

    /// Gives back the spare capacity the growing columns reserved.
    pub fn shrink_to_fit(&mut self) {
        for c in self.columns() {
            c.shrink_to_fit();
        }
        self.kind.shrink_to_fit();
        self.args_at.shrink_to_fit();
        self.args_len.shrink_to_fit();
        self.held_args.shrink_to_fit();
        self.op_inputs.shrink_to_fit();
    }
}
