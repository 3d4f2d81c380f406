//! `kernels`: GPU work (kernels, memcpy, memset) with its launch and its op.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::columns::{col, dict, dict_interned, float64, int64, repeat_dict, TableDoc};
use crate::ingest::{ArgsText, RawTrace};
use crate::tree::Links;
use datafusion::arrow::{error::ArrowError, record_batch::RecordBatch};

pub const DOC: TableDoc = TableDoc {
    name: "kernels",
    doc: "GPU activity: kernels, memcpy and memset, each with its device, stream, launching runtime call and the cpu_op it is attributed to.",
    columns: &[
        col!("trace", Utf8Dict, "Trace name."),
        super::columns::RANK,
        col!("uid", Int64, "Event uid."),
        col!("name", Utf8Dict, "Kernel name, or e.g. 'Memcpy DtoH (Device -> Pinned)'."),
        col!("cat", Utf8Dict, "kernel, gpu_memcpy or gpu_memset."),
        col!("class", Utf8Dict, "TraceLens's class: compute, communication (name holds nccl, rccl or cross_device_reduce), memcpy or memset; ROCm copy kernels (MEMORY_COPY_*, __amd_rocclr_copyBuffer*) count as memcpy. The reports count view classified_kernels' class instead (kernel_classes: DeepEP, NVSHMEM, custom all-reduce, ...), which equals this one under --tracelens-compat."),
        col!("ts", Float64, "GPU start, µs."),
        col!("dur", Float64, "GPU duration, µs."),
        col!("t_end", Float64, "ts + dur in f64, µs."),
        col!("device", Int64, "args.device, else the numeric pid."),
        col!("stream", Int64, "args.stream, else the numeric tid."),
        col!("correlation", Int64, "args.correlation."),
        col!("external_id", Int64, "args['External id']."),
        col!("launch_uid", Int64, "The runtime/driver call that launched it (cudaLaunchKernel, hipGraphLaunch, cuLaunchKernel, ...); NULL if unlinked."),
        col!("launch_name", Utf8Dict, "Name of that call."),
        col!("linked_by", Utf8Dict, "flow: a CPU→GPU flow (ac2g or async_cpu_to_gpu) confirms the link; graph: a graph launch claims all GPU work with its correlation; correlation: matched by correlation id alone (no flow in the trace); NULL: unlinked."),
        col!("op_uid", Int64, "The cpu_op it is attributed to: the nearest cpu_op above the launch, skipping python frames and `execute` wrappers; NULL if none."),
        col!("op_name", Utf8Dict, "Name of that cpu_op."),
        col!("grid", Utf8Dict, "args.grid as JSON, e.g. [128, 1, 1]."),
        col!("block", Utf8Dict, "args.block as JSON."),
        col!("registers_per_thread", Int64, "args['registers per thread']."),
        col!("shared_memory", Int64, "args['shared memory'], bytes."),
        col!("bytes", Int64, "args.bytes: bytes copied or set (memcpy / memset)."),
    ],
};

#[derive(Deserialize, Default)]
struct GpuArgs<'a> {
    #[serde(borrow, default)]
    grid: Option<&'a RawValue>,
    #[serde(borrow, default)]
    block: Option<&'a RawValue>,
    #[serde(rename = "registers per thread", default)]
    registers: Option<serde_json::Number>,
    #[serde(rename = "shared memory", default)]
    shared_memory: Option<serde_json::Number>,
    #[serde(default)]
    bytes: Option<serde_json::Number>,
}

/// Whether `args` may hold a key of [`GpuArgs`]: Perfetto and rocprofv3
/// slices carry a dozen other annotations and often none of these, and a
/// substring search is cheaper than parsing them. An escaped key could spell
/// one in disguise, so any backslash means a parse.
fn may_hold_gpu_args(args: &str) -> bool {
    const KEYS: [&str; 5] = [
        "\"grid\"",
        "\"block\"",
        "\"registers per thread\"",
        "\"shared memory\"",
        "\"bytes\"",
    ];
    args.contains('\\') || KEYS.iter().any(|k| args.contains(k))
}

fn number(n: &Option<serde_json::Number>) -> Option<i64> {
    n.as_ref()
        .and_then(|n| n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)))
}

/// The values of [`GpuArgs`] a row of `kernels` takes.
#[derive(Default)]
struct Gpu<'a> {
    grid: Option<&'a str>,
    block: Option<&'a str>,
    registers: Option<i64>,
    shared_memory: Option<i64>,
    bytes: Option<i64>,
}

impl<'a> Gpu<'a> {
    /// What serde reads from `args`: all None where it is no such object.
    fn of(args: &'a str) -> Gpu<'a> {
        if let Some(gpu) = flat::read(args) {
            return gpu;
        }
        let Ok(a) = serde_json::from_str::<GpuArgs>(args) else {
            return Gpu::default();
        };
        Gpu {
            grid: a.grid.map(RawValue::get),
            block: a.block.map(RawValue::get),
            registers: number(&a.registers),
            shared_memory: number(&a.shared_memory),
            bytes: number(&a.bytes),
        }
    }
}

/// The args the rocprofv3 reader writes for every dispatch (a flat object of
/// integers, nulls and integer arrays, plain keys, no spaces) read without
/// serde, whose per-key work was most of this table's time on such traces.
/// Anything else, and anything serde would refuse (a duplicated key, a
/// leading zero, an array for a count), is left to serde: None.
mod flat {
    use super::Gpu;

    pub fn read(args: &str) -> Option<Gpu<'_>> {
        let b = args.as_bytes();
        let mut gpu = Gpu::default();
        let mut seen = [false; 5];
        let mut at = 1;
        if b.first() != Some(&b'{') {
            return None;
        }
        if b.get(1) == Some(&b'}') {
            return (b.len() == 2).then_some(gpu);
        }
        loop {
            let key_end = at + 1 + b.get(at + 1..)?.iter().position(|&c| c == b'"')?;
            let key = &b[at.checked_add(1)?..key_end];
            if b.get(at) != Some(&b'"')
                || key.iter().any(|&c| c == b'\\' || c < 0x20)
                || b.get(key_end + 1) != Some(&b':')
            {
                return None;
            }
            let start = key_end + 2;
            let end = value_end(b, start)?;
            let value = &args[start..end];
            let slot = [
                "grid",
                "block",
                "registers per thread",
                "shared memory",
                "bytes",
            ]
            .iter()
            .position(|k| k.as_bytes() == key);
            if let Some(slot) = slot {
                if std::mem::replace(&mut seen[slot], true) {
                    return None;
                }
                let text = (value != "null").then_some(value);
                let count = match text {
                    None => None,
                    Some(t) if t.starts_with('[') => (slot < 2).then_some(None)?,
                    Some(t) => Some(t.parse().ok()?),
                };
                match slot {
                    0 => gpu.grid = text,
                    1 => gpu.block = text,
                    2 => gpu.registers = count,
                    3 => gpu.shared_memory = count,
                    _ => gpu.bytes = count,
                }
            }
            match b.get(end) {
                Some(b',') => at = end + 1,
                Some(b'}') if end + 1 == b.len() => return Some(gpu),
                _ => return None,
            }
        }
    }

    /// The end of the value at `at`: `null`, an integer, or an array of
    /// integers.
    fn value_end(b: &[u8], at: usize) -> Option<usize> {
        if b.get(at..at + 4) == Some(b"null".as_slice()) {
            return Some(at + 4);
        }
        if b.get(at) != Some(&b'[') {
            return integer_end(b, at);
        }
        if b.get(at + 1) == Some(&b']') {
            return Some(at + 2);
        }
        let mut at = at + 1;
        loop {
            at = integer_end(b, at)?;
            match b.get(at) {
                Some(b',') => at += 1,
                Some(b']') => return Some(at + 1),
                _ => return None,
            }
        }
    }

    /// The end of a JSON integer of at most 18 digits at `at` (one that
    /// fits an i64 whatever its digits).
    fn integer_end(b: &[u8], at: usize) -> Option<usize> {
        let digits_at = at + usize::from(b.get(at) == Some(&b'-'));
        let digits = b
            .get(digits_at..)?
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let leading_zero = digits > 1 && b.get(digits_at) == Some(&b'0');
        if digits == 0 || digits > 18 || leading_zero {
            return None;
        }
        Some(digits_at + digits)
    }
}

/// `args` holds the GPU events' (and record_param_comms ops') args
/// (`RawTrace::held_args`, taken out of the trace for the build).
pub fn build(
    trace: &RawTrace,
    args: &ArgsText,
    links: &Links,
    name: &str,
) -> Result<RecordBatch, ArrowError> {
    let uids: Vec<usize> = (0..trace.len())
        .filter(|&u| trace.kind[u].is_gpu())
        .collect();
    let args: Vec<Gpu> = uids
        .iter()
        .map(|&u| {
            args.get(u)
                .filter(|a| may_hold_gpu_args(a))
                .map_or_else(Gpu::default, Gpu::of)
        })
        .collect();
    let launch = |u: usize| links.parent[u].map(|(p, _)| p as usize);
    let numeric = |id: Option<u32>| trace.str(id).and_then(|s| s.parse::<i64>().ok());
    let n = uids.len();
    // Interned strings become dictionary keys without hashing each row again.
    let interned = |id_of: &dyn Fn(usize) -> Option<u32>| {
        dict_interned(uids.iter().map(|&u| id_of(u)), &trace.strings)
    };
    DOC.batch(vec![
        ("trace", repeat_dict(name, n)),
        ("uid", int64(uids.iter().map(|&u| Some(u as i64)))),
        ("name", interned(&|u| trace.name.get(u))?),
        ("cat", interned(&|u| trace.cat.get(u))?),
        (
            "class",
            dict(uids.iter().map(|&u| links.gpu_class[u].map(|c| c.as_str())))?,
        ),
        ("ts", float64(uids.iter().map(|&u| trace.ts.get(u)))),
        ("dur", float64(uids.iter().map(|&u| trace.dur.get(u)))),
        ("t_end", float64(uids.iter().map(|&u| trace.t_end(u)))),
        (
            "device",
            int64(
                uids.iter()
                    .map(|&u| trace.device.get(u).or_else(|| numeric(trace.pid.get(u)))),
            ),
        ),
        (
            "stream",
            int64(
                uids.iter()
                    .map(|&u| trace.stream.get(u).or_else(|| numeric(trace.tid.get(u)))),
            ),
        ),
        (
            "correlation",
            int64(uids.iter().map(|&u| trace.correlation.get(u))),
        ),
        (
            "external_id",
            int64(uids.iter().map(|&u| trace.external_id.get(u))),
        ),
        (
            "launch_uid",
            int64(uids.iter().map(|&u| launch(u).map(|l| l as i64))),
        ),
        (
            "launch_name",
            interned(&|u| launch(u).and_then(|l| trace.name.get(l)))?,
        ),
        (
            "linked_by",
            dict(uids.iter().map(|&u| links.linked_by[u].map(|l| l.as_str())))?,
        ),
        (
            "op_uid",
            int64(uids.iter().map(|&u| links.launcher_op[u].map(|o| o as i64))),
        ),
        (
            "op_name",
            interned(&|u| links.launcher_op[u].and_then(|o| trace.name.get(o as usize)))?,
        ),
        // Borrowed from the args: the dictionary copies each distinct value once.
        ("grid", dict(args.iter().map(|a| a.grid))?),
        ("block", dict(args.iter().map(|a| a.block))?),
        (
            "registers_per_thread",
            int64(args.iter().map(|a| a.registers)),
        ),
        ("shared_memory", int64(args.iter().map(|a| a.shared_memory))),
        ("bytes", int64(args.iter().map(|a| a.bytes))),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values serde reads, for comparison.
    fn by_serde(args: &str) -> [Option<String>; 5] {
        let a: GpuArgs = serde_json::from_str(args).unwrap_or_default();
        let text = |v: Option<&RawValue>| v.map(|r| r.get().to_string());
        let count = |n: &Option<serde_json::Number>| number(n).map(|v| v.to_string());
        [
            text(a.grid),
            text(a.block),
            count(&a.registers),
            count(&a.shared_memory),
            count(&a.bytes),
        ]
    }

    fn by_gpu(args: &str) -> [Option<String>; 5] {
        let g = Gpu::of(args);
        let count = |n: Option<i64>| n.map(|v| v.to_string());
        [
            g.grid.map(str::to_string),
            g.block.map(str::to_string),
            count(g.registers),
            count(g.shared_memory),
            count(g.bytes),
        ]
    }

    #[test]
    fn flat_args_read_as_serde_reads_them() {
        let cases = [
            r#"{"device":1,"stream":null,"grid":[4,2,1],"block":[256,1,1]}"#,
            r#"{}"#,
            r#"{"grid":null,"bytes":-0,"shared memory":12}"#,
            r#"{"grid":7,"registers per thread":40,"x":[]}"#,
            r#"{"grid":[1],"grid":[2]}"#,
            r#"{"bytes":[1]}"#,
            r#"{"bytes":01}"#,
            r#"{"bytes":1.5}"#,
            r#"{"bytes":1e3}"#,
            r#"{"bytes":123456789012345678901}"#,
            r#"{"bytes":1} "#,
            r#"{"grid": [1, 2]}"#,
            r#"{"a":"b","grid":[1]}"#,
            r#"{"gr\u0069d":[3]}"#,
            r#"{"grid":[1,]}"#,
            r#"{"grid":[1]"#,
            "{\"g\u{1}\":1,\"grid\":[1]}",
        ];
        for case in cases {
            assert_eq!(by_gpu(case), by_serde(case), "{case}");
        }
        assert!(
            flat::read(cases[0]).is_some(),
            "the common case needs no serde"
        );
    }
}
