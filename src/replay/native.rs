//! tracesql's replay IR: TraceLens's pipeline with its bugs fixed
//! (`spec/replay.md` §9.3) and whatever the trace lost written down.
//!
//! What differs from [`super::compat`], each in tests/conformance/DIFFERENCES.md:
//! every schema parses (conv2d); `long int` and every other dtype Kineto
//! writes are tensors, normalised to torch names; int and bool tensors get
//! `zeros` or a bounded `randint` instead of a `normal` fill that fails;
//! stride-0 inputs are views of a base of the right extent; Scalars keep
//! int vs float; `int?`/`float?` with a value work; ScalarType, MemoryFormat
//! and Layout codes are decoded; a `str` recorded as `''` takes its schema
//! default, flagged; `Tensor[]` is built from its nested shapes; trailing
//! keyword-only arguments a newer torch added are filled from their defaults
//! (`schema_drift`); refusals are data with a reason, and every overload
//! tried says where it failed.

use serde_json::Value;

use super::catalog::Catalog;
use super::event::{int_list, py_float, py_int_digits, OpEvent};
use super::json::Json;
use super::schema::{Arg, Schema};
use super::{Outcome, Status};

/// The IR format's version: bump when a field changes meaning.
pub const IR_VERSION: i64 = 1;

/// Kineto's dtype strings → torch's names.
pub const DTYPES: &[(&str, &str)] = &[
    ("float", "float32"),
    ("double", "float64"),
    ("c10::Half", "float16"),
    ("c10::BFloat16", "bfloat16"),
    ("long int", "int64"),
    ("long", "int64"),
    ("long long int", "int64"),
    ("long long", "int64"),
    ("int", "int32"),
    ("short int", "int16"),
    ("short", "int16"),
    ("signed char", "int8"),
    ("unsigned char", "uint8"),
    ("unsigned short", "uint16"),
    ("unsigned int", "uint32"),
    ("unsigned long", "uint64"),
    ("bool", "bool"),
    ("c10::Float8_e4m3fn", "float8_e4m3fn"),
    ("c10::Float8_e5m2", "float8_e5m2"),
    ("c10::Float8_e4m3fnuz", "float8_e4m3fnuz"),
    ("c10::Float8_e5m2fnuz", "float8_e5m2fnuz"),
    ("c10::Float8_e8m0fnu", "float8_e8m0fnu"),
    ("c10::complex<c10::Half>", "complex32"),
    ("c10::complex<float>", "complex64"),
    ("c10::complex<double>", "complex128"),
];

/// c10's ScalarType codes, in enum order (ScalarType arguments are recorded
/// as their code: `'15'` is bfloat16).
const SCALAR_TYPES: &[&str] = &[
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex32",
    "complex64",
    "complex128",
    "bool",
    "qint8",
    "quint8",
    "qint32",
    "bfloat16",
    "quint4x2",
    "quint2x4",
    "bits1x8",
    "bits2x4",
    "bits4x2",
    "bits8",
    "bits16",
    "float8_e5m2",
    "float8_e4m3fn",
    "float8_e5m2fnuz",
    "float8_e4m3fnuz",
    "uint16",
    "uint32",
    "uint64",
];

const MEMORY_FORMATS: &[&str] = &[
    "contiguous_format",
    "preserve_format",
    "channels_last",
    "channels_last_3d",
];
const LAYOUTS: &[&str] = &[
    "strided",
    "sparse_coo",
    "sparse_csr",
    "sparse_csc",
    "sparse_bsr",
    "sparse_bsc",
    "_mkldnn",
    "jagged",
];

/// Kineto's dtype string → torch's name.
pub fn torch_dtype(trace_dtype: &str) -> Option<&'static str> {
    DTYPES
        .iter()
        .find(|(k, _)| *k == trace_dtype)
        .map(|(_, v)| *v)
}

fn is_floating(dtype: &str) -> bool {
    dtype.starts_with("float") || dtype.starts_with("bfloat") || dtype.starts_with("complex")
}

/// Why one overload did not fit.
#[derive(Debug, Clone)]
struct Mismatch {
    /// Argument position; None for a whole-schema reason (arity, varargs).
    at: Option<usize>,
    reason: String,
}

/// One overload's arguments built from the event.
struct Built {
    args: Vec<Json>,
    assumptions: Vec<String>,
    drift: bool,
}

/// The native IR of `event` from `catalog`.
pub fn build(event: &OpEvent, catalog: &Catalog) -> Outcome {
    let mut tried = Vec::new();
    if event.types.is_none() {
        return refused(
            event,
            "missing_arg_list:Input type".into(),
            "the event has no 'Input type' (recorded without record_shapes=True?)".into(),
            tried,
        );
    }
    for entry in catalog.overloads(&event.name) {
        let schema = match Schema::parse(entry.text) {
            Ok(s) => s,
            Err(e) => {
                tried.push((
                    entry.text,
                    Mismatch {
                        at: None,
                        reason: format!("parse_error:{e}"),
                    },
                ));
                continue;
            }
        };
        match fit(event, &schema) {
            Ok(built) => return ok(event, catalog, entry.text, &schema, built, tried),
            Err(m) => tried.push((entry.text, m)),
        }
    }
    let (reason, error) = refusal_reason(event, &tried);
    refused(event, reason, error, tried)
}

fn ok(
    event: &OpEvent,
    catalog: &Catalog,
    text: &str,
    schema: &Schema,
    built: Built,
    tried: Vec<(&str, Mismatch)>,
) -> Outcome {
    let mut ir = Json::object([
        ("ir_version", Json::int(IR_VERSION)),
        ("op_name", Json::str(&event.name)),
        ("overload", Json::str(schema.overload_name())),
        ("schema", Json::str(text)),
        ("schema_catalog", Json::str(&catalog.version)),
        ("schema_drift", Json::Bool(built.drift)),
        ("args", Json::List(built.args)),
        (
            "assumptions",
            Json::List(built.assumptions.iter().map(Json::str).collect()),
        ),
    ]);
    ir.push("overloads_tried", tried_json(&tried));
    Outcome {
        status: Status::Ok,
        reason: None,
        error: None,
        warnings: built.assumptions,
        matched_schema: Some(text.to_string()),
        ir: Some(ir),
    }
}

fn refused(
    event: &OpEvent,
    reason: String,
    error: String,
    tried: Vec<(&str, Mismatch)>,
) -> Outcome {
    let ir = Json::object([
        ("ir_version", Json::int(IR_VERSION)),
        ("op_name", Json::str(&event.name)),
        ("status", Json::str("refused")),
        ("reason", Json::str(&reason)),
        ("error", Json::str(&error)),
        ("overloads_tried", tried_json(&tried)),
    ]);
    Outcome {
        status: Status::Refused,
        reason: Some(reason),
        error: Some(error),
        warnings: Vec::new(),
        matched_schema: None,
        ir: Some(ir),
    }
}

fn tried_json(tried: &[(&str, Mismatch)]) -> Json {
    Json::List(
        tried
            .iter()
            .map(|(text, m)| {
                Json::object([
                    ("schema", Json::str(*text)),
                    (
                        "failed_at",
                        m.at.map_or(Json::Null, |i| Json::int(i as i64)),
                    ),
                    ("reason", Json::str(&m.reason)),
                ])
            })
            .collect(),
    )
}

/// The refusal of an op no overload fits: no schema at all, else the reason
/// of the overload that got furthest (an arity mismatch only when no
/// overload had the right arity).
fn refusal_reason(event: &OpEvent, tried: &[(&str, Mismatch)]) -> (String, String) {
    if tried.is_empty() {
        return (
            "no_schema".into(),
            format!("{} is not in the schema catalog (not a registered torch op, or a library op: import its library and add its schemas)", event.name),
        );
    }
    let furthest = tried
        .iter()
        .filter(|(_, m)| m.at.is_some())
        .max_by_key(|(_, m)| m.at);
    match furthest {
        Some((text, m)) => (
            m.reason.clone(),
            format!(
                "closest overload {text} fails at argument {}: {}",
                m.at.unwrap_or(0),
                m.reason
            ),
        ),
        None => {
            let reason = tried[0].1.reason.clone();
            (reason.clone(), format!("no overload fits: {reason}"))
        }
    }
}

/// The event's arguments under `schema`, or where they stop fitting.
fn fit(event: &OpEvent, schema: &Schema) -> Result<Built, Mismatch> {
    let whole = |reason: String| Mismatch { at: None, reason };
    if schema.varargs {
        return Err(whole("varargs".into()));
    }
    let (recorded, wanted) = (event.len(), schema.args.len());
    let drift = recorded < wanted;
    if recorded > wanted
        || (drift
            && !schema.args[recorded..]
                .iter()
                .all(|a| a.kw_only && a.default.is_some()))
    {
        return Err(whole(format!("arity_mismatch:{recorded}/{wanted}")));
    }
    let mut built = Built {
        args: Vec::with_capacity(wanted),
        assumptions: Vec::new(),
        drift,
    };
    for (i, arg) in schema.args.iter().enumerate() {
        let value = if i < recorded {
            arg_ir(event, schema, i, arg, &mut built.assumptions).map_err(|reason| Mismatch {
                at: Some(i),
                reason,
            })?
        } else {
            built.assumptions.push(format!(
                "{}: not recorded (the trace's torch has {recorded} arguments, the catalog's {wanted}): schema default {}",
                arg.name,
                arg.default.as_deref().unwrap_or("")
            ));
            default_value(arg).map_err(|reason| Mismatch {
                at: Some(i),
                reason,
            })?
        };
        built.args.push(value);
    }
    Ok(built)
}

/// The base of a type: `Tensor(a!)?` → (`Tensor`, optional, `a!`).
fn split_type(ty: &str) -> (&str, bool, &str) {
    let (ty, optional) = match ty.strip_suffix('?') {
        Some(inner) => (inner, true),
        None => (ty, false),
    };
    match ty.find('(') {
        Some(open) if ty.ends_with(')') && !ty.starts_with('(') => {
            (&ty[..open], optional, &ty[open + 1..ty.len() - 1])
        }
        _ => (ty, optional, ""),
    }
}

/// The list element type: `int[2]` → `int`, `Tensor?[]` → `Tensor?`.
fn list_element(base: &str) -> Option<&str> {
    let open = base.find('[')?;
    base.ends_with(']').then_some(&base[..open])
}

fn arg_json(arg: &Arg, kind: &str, value: Json) -> Json {
    Json::object([
        ("name", Json::str(&arg.name)),
        ("type", Json::str(&arg.ty)),
        ("kw_only", Json::Bool(arg.kw_only)),
        ("kind", Json::str(kind)),
        ("value", value),
    ])
}

/// One argument's IR entry, or why this overload does not fit it.
fn arg_ir(
    event: &OpEvent,
    schema: &Schema,
    i: usize,
    arg: &Arg,
    assumptions: &mut Vec<String>,
) -> Result<Json, String> {
    let (t, c) = (event.ty(i), event.concrete(i));
    let (base, optional, alias) = split_type(&arg.ty);
    if optional && t.is_empty() && c.is_empty() {
        if base == "str" {
            assumptions.push(format!(
                "{}: a str the trace does not record: replayed as None (if the traced call passed a value, set it in the IR)",
                arg.name
            ));
        }
        return Ok(arg_json(arg, "none", Json::Null));
    }
    if let Some(element) = list_element(base) {
        return list_arg(event, i, arg, element, assumptions);
    }
    match base {
        "Tensor" => {
            let tensor = tensor_ir(event, schema, (i, arg, alias, t), assumptions)?;
            let mut entry = arg_json(arg, "tensor", Json::Null);
            if let Json::Object(pairs) = &mut entry {
                pairs.pop();
                pairs.push(("tensor".into(), tensor));
            }
            Ok(entry)
        }
        "bool" => match c.to_lowercase().as_str() {
            "true" | "false" => Ok(arg_json(
                arg,
                "bool",
                Json::Bool(c.eq_ignore_ascii_case("true")),
            )),
            _ => Err(format!("not_a_bool:{}", describe(t, c))),
        },
        "int" | "SymInt" => match (t, py_int_digits(c)) {
            ("Scalar", Some(v)) => Ok(arg_json(arg, "int", Json::Int(v))),
            _ => Err(format!("not_an_int:{}", describe(t, c))),
        },
        "float" => match (t, py_float(c)) {
            ("Scalar", Some(v)) => Ok(arg_json(arg, "float", Json::Float(v))),
            _ => Err(format!("not_a_float:{}", describe(t, c))),
        },
        "Scalar" => scalar(t, c).map(|v| arg_json(arg, "scalar", v)),
        "ScalarType" => code(t, c, SCALAR_TYPES).map(|v| arg_json(arg, "dtype", Json::str(v))),
        "MemoryFormat" => {
            code(t, c, MEMORY_FORMATS).map(|v| arg_json(arg, "memory_format", Json::str(v)))
        }
        "Layout" => code(t, c, LAYOUTS).map(|v| arg_json(arg, "layout", Json::str(v))),
        "Device" => {
            assumptions.push(format!(
                "{}: device not recorded: the replay device",
                arg.name
            ));
            Ok(arg_json(arg, "device", Json::Null))
        }
        "Generator" => {
            assumptions.push(format!(
                "{}: generator not recorded: torch's default",
                arg.name
            ));
            Ok(arg_json(arg, "none", Json::Null))
        }
        "str" => string_arg(arg, t, c, assumptions),
        other => Err(format!("unknown_type:{other}")),
    }
}

fn describe(t: &str, c: &str) -> String {
    if t.is_empty() && c.is_empty() {
        "''".into()
    } else if c.is_empty() {
        t.to_string()
    } else {
        format!("{t} {c}")
    }
}

/// A Scalar keeps what it was: int, bool or float.
fn scalar(t: &str, c: &str) -> Result<Json, String> {
    if t != "Scalar" {
        return Err(format!("not_a_scalar:{}", describe(t, c)));
    }
    if let Some(v) = py_int_digits(c) {
        return Ok(Json::Int(v));
    }
    match c {
        "True" | "False" => Ok(Json::Bool(c == "True")),
        _ => py_float(c)
            .map(Json::Float)
            .ok_or_else(|| format!("not_a_scalar:{c}")),
    }
}

/// An enum recorded as its integer code.
fn code(t: &str, c: &str, names: &[&'static str]) -> Result<&'static str, String> {
    let index = (t == "Scalar").then(|| c.parse::<usize>().ok()).flatten();
    index
        .and_then(|i| names.get(i).copied())
        .ok_or_else(|| format!("unknown_code:{}", describe(t, c)))
}

fn string_arg(arg: &Arg, t: &str, c: &str, assumptions: &mut Vec<String>) -> Result<Json, String> {
    if !c.is_empty() {
        return Ok(arg_json(arg, "str", Json::str(c)));
    }
    match arg.default.as_deref() {
        Some(default) => {
            let value = unquote(default);
            assumptions.push(format!(
                "{}: a str the trace does not record: the schema default {default}",
                arg.name
            ));
            let mut entry = arg_json(arg, "str", value.map_or(Json::Null, Json::str));
            entry.push("assumed_default", Json::Bool(true));
            Ok(entry)
        }
        None if t.is_empty() => Err(format!("value_lost:{}", arg.name)),
        None => Err(format!("not_a_str:{t}")),
    }
}

/// `"none"` → `none`; `None` → None.
fn unquote(default: &str) -> Option<&str> {
    let d = default.trim();
    if d == "None" {
        return None;
    }
    Some(
        d.strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .or_else(|| d.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
            .unwrap_or(d),
    )
}

/// A keyword-only argument the trace's torch did not have: its default.
fn default_value(arg: &Arg) -> Result<Json, String> {
    let default = arg.default.as_deref().unwrap_or("None");
    let (base, _, _) = split_type(&arg.ty);
    let value = match (base, default) {
        (_, "None") => Json::Null,
        ("bool", d) => Json::Bool(d == "True"),
        ("int" | "SymInt", d) => Json::Int(py_int_digits(d).ok_or_else(|| format!("default:{d}"))?),
        ("float", d) => Json::Float(py_float(d).ok_or_else(|| format!("default:{d}"))?),
        ("str", d) => unquote(d).map_or(Json::Null, Json::str),
        (_, d) => return Err(format!("default:{d}")),
    };
    let kind = if value == Json::Null {
        "none"
    } else {
        "default"
    };
    let mut entry = arg_json(arg, kind, value);
    entry.push("assumed_default", Json::Bool(true));
    Ok(entry)
}

/// A list argument: `int[]`, `bool[]`, `float[]`, `Tensor[]`, `Tensor?[]`.
fn list_arg(
    event: &OpEvent,
    i: usize,
    arg: &Arg,
    element: &str,
    assumptions: &mut Vec<String>,
) -> Result<Json, String> {
    let (t, c) = (event.ty(i), event.concrete(i));
    if element.starts_with("Tensor") {
        return tensor_list(event, i, arg, assumptions);
    }
    if t != "ScalarList" {
        return Err(format!("not_a_list:{}", describe(t, c)));
    }
    let inner = c
        .trim()
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| format!("not_a_list:{c}"))?;
    let pieces: Vec<&str> = if inner.trim().is_empty() {
        Vec::new()
    } else {
        inner.split(',').map(str::trim).collect()
    };
    let (kind, parse): (&str, fn(&str) -> Option<Json>) = match element {
        "int" | "SymInt" => ("int_list", |p| py_int_digits(p).map(Json::Int)),
        "bool" => ("bool_list", |p| match p {
            "True" | "true" => Some(Json::Bool(true)),
            "False" | "false" => Some(Json::Bool(false)),
            _ => None,
        }),
        "float" => ("float_list", |p| py_float(p).map(Json::Float)),
        "Scalar" => ("scalar_list", |p| scalar("Scalar", p).ok()),
        other => return Err(format!("unknown_type:{other}[]")),
    };
    let values = pieces
        .iter()
        .map(|p| parse(p).ok_or_else(|| format!("bad_list_item:{p}")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(arg_json(arg, kind, Json::List(values)))
}

/// A `Tensor[]` from its nested shapes. Kineto writes `[]` for a list of more
/// than 30 tensors and does not record their dtype.
fn tensor_list(
    event: &OpEvent,
    i: usize,
    arg: &Arg,
    assumptions: &mut Vec<String>,
) -> Result<Json, String> {
    let t = event.ty(i);
    if t != "TensorList" && t != "GenericList" {
        return Err(format!(
            "not_a_tensor_list:{}",
            describe(t, event.concrete(i))
        ));
    }
    let dims = event
        .dims(i)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if dims.is_empty() {
        return Err("tensor_list_truncated".into());
    }
    let strides = event
        .strides(i)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let hinted = event.list_dtype_hint.as_deref().and_then(torch_dtype);
    let dtype = hinted.unwrap_or("float32");
    let why = if hinted.is_some() {
        "the trace's most common floating dtype"
    } else {
        "the default"
    };
    assumptions.push(format!(
        "{}: the dtype of a tensor list is not recorded: {dtype}, {why} (replay.py --list-dtype changes it)",
        arg.name
    ));
    let mut tensors = Vec::with_capacity(dims.len());
    for (k, shape) in dims.iter().enumerate() {
        let shape = int_list(Some(shape)).ok_or("tensor_list_truncated")?;
        let stride = int_list(strides.get(k)).unwrap_or_else(|| contiguous(&shape));
        tensors.push(tensor_json(&shape, &stride, dtype, "", "normal", true));
    }
    let mut entry = arg_json(arg, "tensor_list", Json::Null);
    if let Json::Object(pairs) = &mut entry {
        pairs.pop();
        pairs.push(("tensors".into(), Json::List(tensors)));
    }
    Ok(entry)
}

fn contiguous(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * shape[k + 1].max(1);
    }
    strides
}

/// Elements the storage must hold for `shape` under `strides`.
pub fn storage_numel(shape: &[i64], strides: &[i64]) -> i64 {
    if shape.contains(&0) {
        return 0;
    }
    1 + shape
        .iter()
        .zip(strides)
        .map(|(&d, &s)| (d - 1) * s.abs())
        .sum::<i64>()
}

fn tensor_json(
    shape: &[i64],
    strides: &[i64],
    dtype: &str,
    trace_dtype: &str,
    init: &str,
    assumed_dtype: bool,
) -> Json {
    let numel: i64 = shape.iter().product();
    let storage = storage_numel(shape, strides);
    let mut t = Json::object([
        ("shape", Json::ints(shape)),
        ("strides", Json::ints(strides)),
        ("dtype", Json::str(dtype)),
        ("trace_dtype", Json::str(trace_dtype)),
        ("storage_numel", Json::int(storage)),
        ("init", Json::str(init)),
    ]);
    // Fewer storage elements than tensor elements: some element is read
    // twice (a broadcast, stride 0), so the tensor is a view of a base.
    if storage < numel {
        t.push("broadcast", Json::Bool(true));
    }
    if assumed_dtype {
        t.push("assumed_dtype", Json::Bool(true));
    }
    t
}

/// A tensor argument: dtype, shape, strides and how to fill it.
fn tensor_ir(
    event: &OpEvent,
    schema: &Schema,
    (i, arg, alias, t): (usize, &Arg, &str, &str),
    assumptions: &mut Vec<String>,
) -> Result<Json, String> {
    if t == "TensorList" || t == "Scalar" || t == "ScalarList" || t.is_empty() {
        return Err(format!("not_a_tensor:{}", describe(t, event.concrete(i))));
    }
    let dtype = torch_dtype(t).ok_or_else(|| format!("unsupported_dtype:{t}"))?;
    let shape = int_list(event.dims(i)).ok_or("shape_not_recorded")?;
    let strides = match int_list(event.strides(i)) {
        Some(s) if s.len() == shape.len() => s,
        _ => {
            assumptions.push(format!("{}: strides not recorded: contiguous", arg.name));
            contiguous(&shape)
        }
    };
    let init = tensor_init(event, schema, arg, alias, dtype);
    let mut tensor = tensor_json(&shape, &strides, dtype, t, &init, false);
    if wrapped_number(event, i, t, &shape) {
        assumptions.push(format!(
            "{}: a 0-dim {t} beside larger tensors: a Python number PyTorch wrapped into a tensor, on the CPU",
            arg.name
        ));
        tensor.push("device", Json::str("cpu"));
    }
    Ok(tensor)
}

/// Whether input `i` looks like a wrapped number: `x * 2.0` in Python (and
/// `mul.Scalar` inside PyTorch) passes the number as a 0-dim CPU tensor of
/// dtype double or int64, which the trace records as such. On the GPU it would
/// launch another kernel (a binary kernel instead of one with a CPU scalar).
fn wrapped_number(event: &OpEvent, i: usize, t: &str, shape: &[i64]) -> bool {
    let number_dtype = matches!(t, "double" | "long int");
    let beside_larger = (0..event.len())
        .filter(|&j| j != i)
        .any(|j| int_list(event.dims(j)).is_some_and(|d| !d.is_empty()) && event.ty(j) != t);
    shape.is_empty() && number_dtype && beside_larger
}

/// How to fill a tensor: outputs stay uninitialised (`empty`), floats get
/// `normal`, index tensors `randint:<bound>` when a sibling gives the bound,
/// other integer and bool tensors `zeros`.
fn tensor_init(event: &OpEvent, schema: &Schema, arg: &Arg, alias: &str, dtype: &str) -> String {
    let overwritten = (arg.kw_only && alias.ends_with('!'))
        || (arg.name == "self"
            && matches!(
                event.name.as_str(),
                "aten::fill_" | "aten::copy_" | "aten::zero_"
            ));
    if overwritten {
        return "empty".into();
    }
    if is_floating(dtype) {
        return "normal".into();
    }
    match index_bound(event, schema, &arg.name) {
        Some(bound) if bound > 0 => format!("randint:{bound}"),
        _ => "zeros".into(),
    }
}

/// The exclusive upper bound of an index argument, from its sibling: the
/// embedding table's rows, or the size of the indexed dimension.
fn index_bound(event: &OpEvent, schema: &Schema, name: &str) -> Option<i64> {
    let position = |n: &str| schema.args.iter().position(|a| a.name == n);
    let dims_of = |n: &str| int_list(event.dims(position(n)?));
    let op = event.name.as_str();
    match (op, name) {
        ("aten::embedding", "indices") => dims_of("weight")?.first().copied(),
        ("aten::embedding_dense_backward" | "aten::embedding_backward", "indices") => {
            py_int_digits(event.concrete(position("num_weights")?))?
                .parse()
                .ok()
        }
        (_, "index") => {
            let dim: i64 = py_int_digits(event.concrete(position("dim")?))?
                .parse()
                .ok()?;
            let shape = dims_of("self")?;
            let d = if dim < 0 {
                dim + shape.len() as i64
            } else {
                dim
            };
            shape.get(usize::try_from(d).ok()?).copied()
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::{build, Mode};
    use serde_json::json;

    fn event(name: &str, args: serde_json::Value) -> OpEvent {
        OpEvent::from_args(name, &args)
    }

    fn arg<'a>(ir: &'a Json, name: &str) -> &'a Json {
        let Some(Json::List(args)) = ir.get("args") else {
            panic!("no args")
        };
        args.iter()
            .find(|a| a.get("name") == Some(&Json::str(name)))
            .unwrap_or_else(|| panic!("no arg {name}"))
    }

    #[test]
    fn int64_indices_get_a_bounded_randint_and_the_overload_is_recorded() {
        let e = event(
            "aten::embedding",
            json!({
            "Input type": ["c10::BFloat16", "long int", "Scalar", "Scalar", "Scalar"],
            "Input Dims": [[151936, 1024], [1, 8], [], [], []],
            "Input Strides": [[1024, 1], [8, 1], [], [], []],
            "Concrete Inputs": ["", "", "-1", "False", "False"]}),
        );
        let out = build(&e, Mode::Native);
        assert_eq!(out.status, Status::Ok, "{:?}", out.reason);
        let ir = out.ir.unwrap();
        assert_eq!(
            ir.get("overload"),
            Some(&Json::str("aten::embedding.default"))
        );
        let indices = arg(&ir, "indices").get("tensor").unwrap();
        assert_eq!(indices.get("dtype"), Some(&Json::str("int64")));
        assert_eq!(indices.get("init"), Some(&Json::str("randint:151936")));
        assert_eq!(
            arg(&ir, "padding_idx").get("value"),
            Some(&Json::Int("-1".into()))
        );
        // TraceLens refuses this op (`long int` is not a tensor type to it).
        assert_eq!(
            build(&e, Mode::Compat).reason.as_deref(),
            Some("no_matching_schema")
        );
    }

    #[test]
    fn conv2d_parses_and_gelu_takes_its_default_with_a_flag() {
        let conv = event(
            "aten::conv2d",
            json!({
            "Input type": ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "ScalarList", "ScalarList", "ScalarList", "Scalar"],
            "Input Dims": [[4, 3, 224, 224], [768, 3, 16, 16], [768], [], [], [], []],
            "Input Strides": [[150528, 50176, 224, 1], [768, 256, 16, 1], [1], [], [], [], []],
            "Concrete Inputs": ["", "", "", "[16, 16]", "[0, 0]", "[1, 1]", "1"]}),
        );
        let ir = build(&conv, Mode::Native).ir.unwrap();
        assert_eq!(
            arg(&ir, "stride").get("value"),
            Some(&Json::List(vec![Json::int(16), Json::int(16)]))
        );
        let gelu = event(
            "aten::gelu",
            json!({
            "Input type": ["c10::BFloat16", ""], "Input Dims": [[4, 3072], []],
            "Input Strides": [[3072, 1], []], "Concrete Inputs": ["", ""]}),
        );
        let out = build(&gelu, Mode::Native);
        let ir = out.ir.unwrap();
        let approximate = arg(&ir, "approximate");
        assert_eq!(approximate.get("value"), Some(&Json::str("none")));
        assert_eq!(approximate.get("assumed_default"), Some(&Json::Bool(true)));
        assert!(
            out.warnings.iter().any(|w| w.starts_with("approximate:")),
            "{:?}",
            out.warnings
        );
    }

    #[test]
    fn scalars_keep_int_vs_float_and_enum_codes_decode() {
        let add = event(
            "aten::add",
            json!({
            "Input type": ["float", "float", "Scalar"], "Input Dims": [[2], [2], []],
            "Input Strides": [[1], [1], []], "Concrete Inputs": ["", "", "1"]}),
        );
        let ir = build(&add, Mode::Native).ir.unwrap();
        assert_eq!(arg(&ir, "alpha").get("value"), Some(&Json::Int("1".into())));
        let softmax = event(
            "aten::softmax",
            json!({
            "Input type": ["float", "Scalar", "Scalar"], "Input Dims": [[2, 4], [], []],
            "Input Strides": [[4, 1], [], []], "Concrete Inputs": ["", "-1", "6"]}),
        );
        let ir = build(&softmax, Mode::Native).ir.unwrap();
        assert_eq!(arg(&ir, "dtype").get("value"), Some(&Json::str("float32")));
        let argmax = event(
            "aten::argmax",
            json!({
            "Input type": ["float", "Scalar", "Scalar"], "Input Dims": [[2, 4], [], []],
            "Input Strides": [[4, 1], [], []], "Concrete Inputs": ["", "1", "False"]}),
        );
        let ir = build(&argmax, Mode::Native).ir.unwrap();
        assert_eq!(arg(&ir, "dim").get("value"), Some(&Json::Int("1".into())));
    }

    #[test]
    fn a_zero_dim_double_beside_a_float_tensor_is_a_cpu_scalar() {
        let device = |types: serde_json::Value, dims: serde_json::Value, name: &str| {
            let e = event(
                "aten::mul",
                json!({"Input type": types, "Input Dims": dims, "Input Strides": [[], []], "Concrete Inputs": ["", ""]}),
            );
            let out = build(&e, Mode::Native);
            assert_eq!(out.status, Status::Ok, "{:?}", out.reason);
            let ir = out.ir.unwrap();
            let tensor = arg(&ir, name).get("tensor").unwrap().clone();
            (tensor.get("device").cloned(), ir)
        };
        // What `x * 2.0` records: the number as a 0-dim double.
        let (other, ir) = device(json!(["float", "double"]), json!([[4, 8], []]), "other");
        assert_eq!(other, Some(Json::str("cpu")));
        let assumptions = crate::replay::json::to_string(
            ir.get("assumptions").unwrap(),
            crate::replay::json::Style::STRICT,
        );
        assert!(
            assumptions.contains("a Python number PyTorch wrapped into a tensor"),
            "{assumptions}"
        );
        assert_eq!(
            device(json!(["float", "long int"]), json!([[4, 8], []]), "other").0,
            Some(Json::str("cpu"))
        );
        assert_eq!(
            device(json!(["float", "double"]), json!([[4, 8], []]), "self").0,
            None
        );
        // Two 0-dim doubles, or a 0-dim float beside a float: tensors on the replay device.
        assert_eq!(
            device(json!(["double", "double"]), json!([[], []]), "other").0,
            None
        );
        assert_eq!(
            device(json!(["float", "float"]), json!([[4, 8], []]), "other").0,
            None
        );
    }

    #[test]
    fn broadcast_inputs_are_marked_and_sized_by_their_extent() {
        let copy = event(
            "aten::copy_",
            json!({
            "Input type": ["float", "float", "Scalar"], "Input Dims": [[4, 8], [4, 8], []],
            "Input Strides": [[8, 1], [0, 1], []], "Concrete Inputs": ["", "", "False"]}),
        );
        let ir = build(&copy, Mode::Native).ir.unwrap();
        let src = arg(&ir, "src").get("tensor").unwrap();
        assert_eq!(src.get("storage_numel"), Some(&Json::int(8)));
        assert_eq!(src.get("broadcast"), Some(&Json::Bool(true)));
        let dst = arg(&ir, "self").get("tensor").unwrap();
        assert_eq!(dst.get("init"), Some(&Json::str("empty")));
    }

    #[test]
    fn schema_drift_fills_trailing_keyword_defaults() {
        let mut types = vec!["c10::BFloat16"; 3];
        types.extend([
            "", "", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "", "", "", "",
        ]);
        let mut dims = vec![json!([4, 197, 12, 64]); 3];
        dims.extend(std::iter::repeat_n(json!([]), 12));
        let mut concrete = vec![""; 5];
        concrete.extend([
            "197", "197", "0.", "False", "False", "0.125", "", "", "", "",
        ]);
        let e = event(
            "aten::_flash_attention_forward",
            json!({
            "Input type": types, "Input Dims": dims, "Input Strides": dims.clone(),
            "Concrete Inputs": concrete}),
        );
        let out = build(&e, Mode::Native);
        assert_eq!(out.status, Status::Ok, "{:?} {:?}", out.reason, out.error);
        let ir = out.ir.unwrap();
        assert_eq!(ir.get("schema_drift"), Some(&Json::Bool(true)));
        assert_eq!(
            arg(&ir, "num_splits").get("assumed_default"),
            Some(&Json::Bool(true))
        );
        assert_eq!(arg(&ir, "scale").get("value"), Some(&Json::Float(0.125)));
    }

    #[test]
    fn refusals_are_data_with_the_furthest_overloads_reason() {
        let e = event(
            "aten::abs",
            json!({
            "Input type": ["c10::Float4_e2m1fn_x2"], "Input Dims": [[4]],
            "Input Strides": [[1]], "Concrete Inputs": [""]}),
        );
        let out = build(&e, Mode::Native);
        assert_eq!(out.status, Status::Refused);
        assert_eq!(
            out.reason.as_deref(),
            Some("unsupported_dtype:c10::Float4_e2m1fn_x2")
        );
        let missing = build(
            &event("my_lib::fused", json!({"Input type": []})),
            Mode::Native,
        );
        assert_eq!(missing.reason.as_deref(), Some("no_schema"));
        let cat_truncated = event(
            "aten::cat",
            json!({
            "Input type": ["TensorList", "Scalar"], "Input Dims": [[], []],
            "Input Strides": [[], []], "Concrete Inputs": ["", "1"]}),
        );
        assert_eq!(
            build(&cat_truncated, Mode::Native).reason.as_deref(),
            Some("tensor_list_truncated")
        );
    }

    #[test]
    fn tensor_lists_are_built_from_their_nested_shapes() {
        let cat = event(
            "aten::cat",
            json!({
            "Input type": ["TensorList", "Scalar"],
            "Input Dims": [[[4, 1, 768], [4, 196, 768]], []],
            "Input Strides": [[[0, 768, 1], [150528, 1, 196]], []],
            "Concrete Inputs": ["", "1"]}),
        );
        let out = build(&cat, Mode::Native);
        assert_eq!(out.status, Status::Ok, "{:?}", out.error);
        let Some(Json::List(tensors)) = arg(out.ir.as_ref().unwrap(), "tensors").get("tensors")
        else {
            panic!()
        };
        assert_eq!(tensors.len(), 2);
        assert_eq!(tensors[0].get("broadcast"), Some(&Json::Bool(true)));
        assert_eq!(tensors[0].get("dtype"), Some(&Json::str("float32")));
        let mut hinted = cat.clone();
        hinted.list_dtype_hint = Some("c10::BFloat16".into());
        let out = build(&hinted, Mode::Native);
        let Some(Json::List(tensors)) = arg(out.ir.as_ref().unwrap(), "tensors").get("tensors")
        else {
            panic!()
        };
        assert_eq!(tensors[1].get("dtype"), Some(&Json::str("bfloat16")));
        assert!(
            out.warnings[0].contains("bfloat16, the trace's most common floating dtype"),
            "{:?}",
            out.warnings
        );
    }
}
