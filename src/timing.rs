//! Phase timings on stderr when `TRACESQL_TIMINGS` is set: where the time of a
//! load or a report run goes, without a profiler.
//!
//! ```sh
//! TRACESQL_TIMINGS=1 tracesql report trace.json.gz --out csvs
//! ```

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("TRACESQL_TIMINGS").is_some())
}

/// A phase being timed: prints `time  name` to stderr when dropped.
pub struct Phase {
    name: String,
    started: Instant,
}

impl Phase {
    /// Starts timing `name`; None (nothing printed) unless timings are on.
    pub fn start(name: &str) -> Option<Phase> {
        enabled().then(|| Phase {
            name: name.to_string(),
            started: Instant::now(),
        })
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        let ms = self.started.elapsed().as_secs_f64() * 1e3;
        eprintln!("timing: {ms:9.1} ms  {}{}", self.name, resident_memory());
    }
}

/// Runs `work` as a [`Phase`] named `name`.
pub fn timed<T>(name: &str, work: impl FnOnce() -> T) -> T {
    let _timing = Phase::start(name);
    work()
}

/// Prints each table's Arrow memory (MB) when timings are on: where a load's
/// resident memory goes.
pub fn table_sizes(tables: &[(&str, datafusion::arrow::record_batch::RecordBatch)]) {
    if !enabled() {
        return;
    }
    for (name, batch) in tables {
        let mb = batch.get_array_memory_size() as f64 / 1e6;
        eprintln!("memory: {mb:9.1} MB  table {name}");
        for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
            let mb = column.get_array_memory_size() as f64 / 1e6;
            if mb >= 1.0 {
                eprintln!("memory: {mb:9.1} MB    {name}.{}", field.name());
            }
        }
    }
}

/// Prints the memory a view's computed rows hold (MB) when timings are on, and
/// each column's share: every buffer counted once, however many batches share
/// it (a dictionary's values, a slice's parent), unlike
/// `get_array_memory_size`.
pub fn view_sizes(view: &str, batches: &[datafusion::arrow::record_batch::RecordBatch]) {
    if !enabled() {
        return;
    }
    let Some(first) = batches.first() else {
        return;
    };
    let mut seen = std::collections::HashSet::new();
    let mut columns = Vec::new();
    for (i, field) in first.schema().fields().iter().enumerate() {
        let mut bytes = 0;
        for batch in batches {
            bytes += distinct_buffers(&batch.column(i).to_data(), &mut seen);
        }
        columns.push((field.name().clone(), bytes));
    }
    let total: usize = columns.iter().map(|c| c.1).sum();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    eprintln!("memory: {:9.1} MB  {view}, {rows} rows", total as f64 / 1e6);
    for (name, bytes) in columns.into_iter().filter(|c| c.1 >= 1_000_000) {
        eprintln!("memory: {:9.1} MB    {name}", bytes as f64 / 1e6);
    }
}

/// The bytes of `data`'s buffers (and its children's) not in `seen` yet.
fn distinct_buffers(
    data: &datafusion::arrow::array::ArrayData,
    seen: &mut std::collections::HashSet<usize>,
) -> usize {
    let mut bytes = 0;
    let buffers = data
        .buffers()
        .iter()
        .chain(data.nulls().map(|n| n.buffer()));
    for buffer in buffers {
        if seen.insert(buffer.data_ptr().as_ptr() as usize) {
            bytes += buffer.capacity();
        }
    }
    for child in data.child_data() {
        bytes += distinct_buffers(child, seen);
    }
    bytes
}

/// Time accumulated over many short stretches (a thread's busy time between its
/// waits); printed like a [`Phase`] when dropped.
pub struct Busy {
    name: &'static str,
    total: std::time::Duration,
}

impl Busy {
    pub fn new(name: &'static str) -> Busy {
        Busy {
            name,
            total: std::time::Duration::ZERO,
        }
    }

    /// Runs `work`, adding its duration when timings are on.
    pub fn time<T>(&mut self, work: impl FnOnce() -> T) -> T {
        if !enabled() {
            return work();
        }
        let started = Instant::now();
        let out = work();
        self.total += started.elapsed();
        out
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        if enabled() {
            let ms = self.total.as_secs_f64() * 1e3;
            eprintln!("timing: {ms:9.1} ms  {} (busy)", self.name);
        }
    }
}

/// Prints `note` with the resident memory when timings are on.
pub fn note(note: &str) {
    if enabled() {
        eprintln!("note:  {note}{}", resident_memory());
    }
}

/// Prints one more holding's memory (MB) when timings are on.
pub fn memory(what: &str, bytes: usize) {
    if enabled() {
        eprintln!("memory: {:9.1} MB  {what}", bytes as f64 / 1e6);
    }
}

/// `  (rss N MB, peak M MB)` from /proc/self/status where there is one (Linux);
/// empty elsewhere.
fn resident_memory() -> String {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return String::new();
    };
    let field = |key: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map(|kb| kb / 1024.0)
    };
    match (field("VmRSS:"), field("VmHWM:")) {
        (Some(rss), Some(peak)) => format!(
            "  (rss {rss:.0} MB: anon {:.0} file {:.0}, peak {peak:.0} MB{})",
            field("RssAnon:").unwrap_or(0.0),
            field("RssFile:").unwrap_or(0.0),
            heap_in_use()
        ),
        _ => String::new(),
    }
}

/// `, heap N in use of M + mmap K` (MB, glibc's own count: heap bytes in use,
/// the heap's size, blocks mapped on their own), where glibc is the allocator.
fn heap_in_use() -> String {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads the allocator's statistics.
        let info = unsafe { libc::mallinfo2() };
        let mb = |b: usize| b as f64 / 1048576.0;
        format!(
            ", heap {:.0} in use of {:.0} + mmap {:.0}",
            mb(info.uordblks),
            mb(info.arena),
            mb(info.hblkhd)
        )
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    String::new()
}
