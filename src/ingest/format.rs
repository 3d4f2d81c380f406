//! Which reader a file needs, told from its content, never from its name alone.
//!
//! rocprofv3 JSON is one object whose first key is `rocprofiler-sdk-tool`.
//! Kineto and Perfetto-style JSON are both `{"traceEvents": [...]}`; they are
//! told apart by the categories their first megabyte uses: Kineto's (`cpu_op`,
//! `kernel`, `cuda_runtime`, ...) against rocprofv3's slice categories
//! (`hip_api`, `kernel_dispatch`, `memory_copy`, ...). A file with neither is
//! read as Kineto, whose reader has the clearest errors for what is not a trace.
//!
//! A JAX XPlane file is binary protobuf ([`looks_like_xplane`]): told apart
//! before any JSON rule.

use std::sync::OnceLock;

use super::native::SourceFormat;
use super::source;
use super::{IngestError, Problem};

/// `--format-hint`: the format every input is read as, whatever its content.
static HINT: OnceLock<SourceFormat> = OnceLock::new();

/// Sets the format every input is read as (`--format-hint`); the first call wins.
pub fn set_hint(format: SourceFormat) {
    let _ = HINT.set(format);
}

/// The format of the input at `path`: the hint if one was given, else what its
/// first decompressed bytes say. Standard input is Kineto unless hinted (it
/// can be read only once).
pub fn detect(path: &str) -> Result<SourceFormat, IngestError> {
    if let Some(hint) = HINT.get() {
        return Ok(*hint);
    }
    if path == "-" {
        return Ok(SourceFormat::Kineto);
    }
    let head = source::first_bytes(path).map_err(|p| IngestError::new(path, p))?;
    if head.is_empty() {
        return Err(IngestError::new(path, Problem::EmptyFile));
    }
    let format = sniff(&head);
    // A Perfetto protobuf starts like an XPlane (field 1, length-delimited):
    // its name is the one thing that tells them apart before decoding.
    let binary = !matches!(text_start(&head).first(), Some(b'{' | b'['));
    if binary && is_pftrace_name(path) {
        return Err(IngestError::new(
            path,
            Problem::Invalid(
                "a Perfetto protobuf trace (.pftrace) is not read yet: export it to JSON with \
                 `traceconv json FILE OUT.json` and open that"
                    .into(),
            ),
        ));
    }
    Ok(format)
}

fn is_pftrace_name(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".pftrace") || lower.ends_with(".pftrace.gz")
}

/// Categories only Kineto writes.
const KINETO_CATEGORIES: &[&str] = &[
    "cpu_op",
    "python_function",
    "kernel",
    "cuda_runtime",
    "cuda_driver",
    "gpu_memcpy",
    "gpu_memset",
    "ac2g",
    "async_cpu_to_gpu",
    "user_annotation",
    "gpu_user_annotation",
    "cuda_profiler_range",
];

/// Slice categories of rocprofv3's Perfetto output (and TraceLens's fixtures).
const PERFETTO_CATEGORIES: &[&str] = &[
    "hip_api",
    "hsa_api",
    "rccl_api",
    "marker_api",
    "kernel_dispatch",
    "memory_copy",
    "memory_allocation",
    "scratch_memory",
    "rocdecode_api",
    "rocjpeg_api",
    "gpu_activity",
];

/// The format the first bytes of a document show.
pub fn sniff(head: &[u8]) -> SourceFormat {
    if looks_like_xplane(head) {
        return SourceFormat::Jax;
    }
    if first_key(head).as_deref() == Some("rocprofiler-sdk-tool") {
        return SourceFormat::Rocprofv3;
    }
    let (mut kineto, mut perfetto) = (0usize, 0usize);
    for cat in categories(head) {
        if KINETO_CATEGORIES.contains(&cat) {
            kineto += 1;
        } else if PERFETTO_CATEGORIES.contains(&cat) {
            perfetto += 1;
        }
    }
    if perfetto > 0 && kineto == 0 {
        SourceFormat::Pftrace
    } else {
        SourceFormat::Kineto
    }
}

/// Whether `head` starts like a serialised XSpace: its first field is
/// `planes` (field 1, length-delimited: byte 0x0a) with a varint length that
/// fits in the data (when `head` holds all of it, the whole message; else at
/// most 2⁴⁰ bytes), and the plane's own first byte, if any, is the tag of one
/// of XPlane's fields 1–6 with its wire type (0x08 id, 0x12 name, 0x1a lines,
/// 0x22 / 0x2a the metadata maps, 0x32 stats). A text document never passes:
/// 0x0a is a newline, but no JSON value starts with a byte that is a valid
/// tag there, and one that starts with `{` or `[` after whitespace is out.
pub fn looks_like_xplane(head: &[u8]) -> bool {
    if matches!(text_start(head).first(), Some(b'{' | b'[')) {
        return false;
    }
    let Some(rest) = head.strip_prefix(&[0x0a]) else {
        return false;
    };
    let Some((len, used)) = varint(rest) else {
        return false;
    };
    let body = &rest[used..];
    let whole = head.len() < source::CHUNK;
    if (whole && len > body.len() as u64) || len > 1 << 40 {
        return false;
    }
    len == 0 || matches!(body.first(), Some(0x08 | 0x12 | 0x1a | 0x22 | 0x2a | 0x32))
}

/// A protobuf varint at the start of `bytes`: its value and length (at most
/// 10 bytes; None when cut or longer).
fn varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().take(10).enumerate() {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// The first key of the top-level object, if the document starts with one
/// whose key has no escapes.
fn first_key(head: &[u8]) -> Option<String> {
    let text = text_start(head);
    let text = skip_space(text.strip_prefix(b"{")?);
    let text = text.strip_prefix(b"\"")?;
    let end = text.iter().position(|&b| b == b'"' || b == b'\\')?;
    (text[end] == b'"').then(|| String::from_utf8_lossy(&text[..end]).into_owned())
}

/// Where a text document's first value starts: past a byte order mark and
/// whitespace.
fn text_start(head: &[u8]) -> &[u8] {
    skip_space(source::without_byte_order_mark(head))
}

fn skip_space(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

/// The values of every `"cat": "..."` pair in `head` (escapes not decoded; a
/// category with one is not one of ours anyway).
fn categories(head: &[u8]) -> impl Iterator<Item = &str> {
    const KEY: &[u8] = b"\"cat\"";
    let mut rest = head;
    std::iter::from_fn(move || loop {
        let at = rest.windows(KEY.len()).position(|w| w == KEY)?;
        rest = &rest[at + KEY.len()..];
        let Some(after) = skip_space(rest).strip_prefix(b":") else {
            continue;
        };
        let Some(value) = skip_space(after).strip_prefix(b"\"") else {
            continue;
        };
        let Some(end) = value.iter().position(|&b| b == b'"') else {
            return None;
        };
        rest = &value[end..];
        if let Ok(cat) = std::str::from_utf8(&value[..end]) {
            return Some(cat);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_pftrace_is_refused_with_what_to_do() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("run_results.pftrace");
        std::fs::write(&path, [0x0a, 0x03, 0x40, 0x01, 0x02]).expect("write");
        let e = detect(&path.to_string_lossy())
            .err()
            .expect("an error")
            .to_string();
        assert!(e.contains("traceconv json"), "{e}");
        assert!(is_pftrace_name("A.PFTRACE.gz") && !is_pftrace_name("a.json"));
    }

    #[test]
    fn rocprofv3_json_is_told_by_its_first_key() {
        let doc = b"  {\n \"rocprofiler-sdk-tool\": [{\"metadata\": {}}]}";
        assert_eq!(sniff(doc), SourceFormat::Rocprofv3);
        // Further in, the key is some other format's data.
        let doc = b"{\"traceEvents\": [], \"rocprofiler-sdk-tool\": []}";
        assert_eq!(sniff(doc), SourceFormat::Kineto);
        // A byte order mark before the document is stepped over.
        let doc = b"\xef\xbb\xbf {\"rocprofiler-sdk-tool\": []}";
        assert_eq!(sniff(doc), SourceFormat::Rocprofv3);
    }

    #[test]
    fn perfetto_json_is_told_by_its_categories() {
        let doc = br#"{"traceEvents": [{"ph":"X","cat" : "hip_api","name":"hipLaunchKernel"},
            {"ph":"b","cat":"kernel_dispatch","name":"k"}]}"#;
        assert_eq!(sniff(doc), SourceFormat::Pftrace);
        // One Kineto category makes it Kineto (a PyTorch trace with HIP names).
        let doc = br#"{"traceEvents": [{"cat":"hip_api"},{"cat": "cpu_op"}]}"#;
        assert_eq!(sniff(doc), SourceFormat::Kineto);
        // Nothing known: Kineto, whose reader says what is wrong.
        assert_eq!(sniff(b"{\"traceEvents\": []}"), SourceFormat::Kineto);
        assert_eq!(sniff(b"[1, 2]"), SourceFormat::Kineto);
    }

    #[test]
    fn xplane_is_told_by_its_first_field() {
        // planes { id: 1, name: "/host:CPU" }: 0x0a, length 13, 0x08 0x01, ...
        let mut doc = vec![0x0a, 13, 0x08, 0x01, 0x12, 9];
        doc.extend_from_slice(b"/host:CPU");
        assert_eq!(sniff(&doc), SourceFormat::Jax);
        // An empty first plane, then more.
        assert_eq!(sniff(&[0x0a, 0x00, 0x0a, 0x00]), SourceFormat::Jax);
        // A two-byte length.
        let mut long = vec![0x0a, 0x80, 0x01, 0x12, 0x7e];
        long.extend(std::iter::repeat_n(b'a', 126));
        assert_eq!(sniff(&long), SourceFormat::Jax);
        // The length runs past the end of a short file.
        assert!(!looks_like_xplane(&[0x0a, 20, 0x08, 0x01]));
        // A cut varint, a byte that is no XPlane tag, another first field.
        assert!(!looks_like_xplane(&[0x0a, 0x80]));
        assert!(!looks_like_xplane(&[0x0a, 0x02, 0x7b, 0x7d]));
        assert!(!looks_like_xplane(&[0x12, 0x02, 0x08, 0x01]));
        // JSON starting with a newline stays JSON.
        assert_eq!(sniff(b"\n{\"traceEvents\": []}"), SourceFormat::Kineto);
        assert_eq!(sniff(b"\n[{\"cat\": \"hip_api\"}]"), SourceFormat::Pftrace);
        assert!(!looks_like_xplane(b"\n\n{}"));
        assert!(!looks_like_xplane(b""));
    }

    #[test]
    fn a_cut_category_ends_the_scan() {
        let doc = br#"{"traceEvents": [{"cat":"memory_copy"},{"cat": "hip_ap"#;
        assert_eq!(sniff(doc), SourceFormat::Pftrace);
        let cats: Vec<&str> = categories(br#""cat":1, "cat" : "a" "cat""#).collect();
        assert_eq!(cats, ["a"]);
    }
}
