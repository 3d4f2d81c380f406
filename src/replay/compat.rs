//! TraceLens's replay IR, reproduced exactly (`--tracelens-compat`): its
//! schema search, its match rules and its IR, bugs included
//! (`spec/replay.md` §4–5, tests/conformance/DIFFERENCES.md "Replay").
//!
//! The native mode ([`super::native`]) fixes what this reproduces; this module
//! exists so a user's TraceLens-based scripts get the IR they expect.

use super::catalog::Catalog;
use super::event::{is_digits, py_float, py_int_digits, OpEvent};
use super::json::Json;
use super::schema::{compat_args, Arg};
use super::{Outcome, Status};

/// The tensor dtypes TraceLens accepts (`long`, never `long int`, which is
/// how Kineto spells int64).
const TENSOR_TYPES: [&str; 7] = [
    "double",
    "float",
    "c10::Half",
    "c10::BFloat16",
    "long",
    "int",
    "bool",
];

/// Why TraceLens stopped: its exception, as class and message.
struct Refusal {
    class: &'static str,
    error: String,
}

/// The IR TraceLens builds for `event` from `catalog`'s schemas.
pub fn build(event: &OpEvent, catalog: &Catalog) -> Outcome {
    let mut warnings = Vec::new();
    let result = search(event, catalog, &mut warnings)
        .and_then(|(schema, args)| repro_info(event, &args).map(|ir| (schema, ir)));
    match result {
        Ok((schema, ir)) => Outcome {
            status: Status::Ok,
            reason: None,
            error: None,
            warnings,
            matched_schema: Some(schema.to_string()),
            ir: Some(ir),
        },
        Err(refusal) => Outcome {
            status: Status::Refused,
            reason: Some(refusal.class.to_string()),
            error: Some(refusal.error),
            warnings,
            matched_schema: None,
            ir: None,
        },
    }
}

/// The first overload, in registry order, whose arguments match; a parse
/// error or a `Tensor[]` argument on the way aborts the search.
fn search(
    event: &OpEvent,
    catalog: &Catalog,
    warnings: &mut Vec<String>,
) -> Result<(&'static str, Vec<Arg>), Refusal> {
    let missing = |key: &str| Refusal {
        class: "missing_arg_key",
        error: format!("KeyError: '{key}'"),
    };
    let types = event.types.as_ref().ok_or_else(|| missing("Input type"))?;
    if event.concrete.is_none() {
        return Err(missing("Concrete Inputs"));
    }
    for entry in catalog.overloads(&event.name) {
        let args = compat_args(entry.text).map_err(|e| Refusal {
            class: "schema_parse_error",
            error: format!("ValueError: {e}"),
        })?;
        if args.len() == types.len() && matches(event, &args, warnings)? {
            return Ok((entry.text, args));
        }
    }
    Err(Refusal {
        class: "no_matching_schema",
        error: format!(
            "ValueError: Cannot find matching schema for {}. Please check the event data and schema.",
            event.name
        ),
    })
}

/// TraceLens's per-position rules (spec §4.3); false at the first position
/// that does not match.
fn matches(event: &OpEvent, args: &[Arg], warnings: &mut Vec<String>) -> Result<bool, Refusal> {
    for (i, arg) in args.iter().enumerate() {
        let (t, c) = (event.ty(i), event.concrete(i));
        let mut st = arg.ty.as_str();
        if let Some(inner) = st.strip_suffix('?') {
            if t.is_empty() || (t == "ScalarList" && c == "[]") {
                continue;
            }
            st = inner;
        }
        let ok = if st == "Tensor" || st == "Tensor(a!)" {
            TENSOR_TYPES.contains(&t)
        } else if st == "bool" {
            is_bool(c)
        } else if st == "int" || st == "SymInt" {
            t == "Scalar" && is_digits(c.strip_prefix('-').unwrap_or(c))
        } else if st == "float" || st == "Scalar" {
            t == "Scalar" && py_float(c).is_some()
        } else if st.starts_with("int[") || st.starts_with("SymInt[") {
            t == "ScalarList"
                && list_pieces(c)
                    .iter()
                    .all(|p| is_digits(p.strip_prefix('-').unwrap_or(p)))
        } else if st.starts_with("bool[") {
            t == "ScalarList" && list_pieces(c).iter().all(|p| is_bool(p))
        } else if st.starts_with("Tensor[") {
            return Err(Refusal {
                class: "tensor_list",
                error: "ValueError: Tensor list type not supported: Tensor[] as the tensor shapes are not provided in the event".into(),
            });
        } else {
            let warning = format!("Unknown schema type: {st}. Skipping this case.");
            if !warnings.contains(&warning) {
                warnings.push(warning);
            }
            false
        };
        if !ok {
            return Ok(false);
        }
    }
    Ok(true)
}

fn is_bool(c: &str) -> bool {
    matches!(c.to_lowercase().as_str(), "true" | "false")
}

/// `'[16, 16]'` → `["16", "16"]`: the text inside the outer brackets split on
/// `,` and trimmed (`'[]'` gives one empty piece, which matches nothing).
fn list_pieces(c: &str) -> Vec<&str> {
    let inner = c.get(1..c.len().saturating_sub(1)).unwrap_or("");
    inner.split(',').map(str::trim).collect()
}

/// `get_repro_info()`: `{op_name, replay_ir: {list_pos_args, list_kwargs}}`.
fn repro_info(event: &OpEvent, args: &[Arg]) -> Result<Json, Refusal> {
    let missing = |key: &str| Refusal {
        class: "missing_arg_key",
        error: format!("KeyError: '{key}'"),
    };
    if event.dims.is_none() {
        return Err(missing("Input Dims"));
    }
    if event.strides.is_none() {
        return Err(missing("Input Strides"));
    }
    let (mut positional, mut keyword) = (Vec::new(), Vec::new());
    for (i, arg) in args.iter().enumerate() {
        let value = arg_value(event, i, arg)?;
        let entry = Json::object([
            ("arg_name", Json::str(&arg.name)),
            ("arg_type", Json::str(&arg.ty)),
            ("value", value),
        ]);
        if arg.kw_only {
            keyword.push(entry);
        } else {
            positional.push(entry);
        }
    }
    Ok(Json::object([
        ("op_name", Json::str(&event.name)),
        (
            "replay_ir",
            Json::object([
                ("list_pos_args", Json::List(positional)),
                ("list_kwargs", Json::List(keyword)),
            ]),
        ),
    ]))
}

/// One argument's IR value (spec §5's table, in its order).
fn arg_value(event: &OpEvent, i: usize, arg: &Arg) -> Result<Json, Refusal> {
    let (t, c, ty) = (event.ty(i), event.concrete(i), arg.ty.as_str());
    let unsupported = || Refusal {
        class: "unsupported_arg_type_in_ir",
        error: format!("ValueError: Unsupported arg type: {ty}"),
    };
    if ty.ends_with('?') && t.is_empty() {
        return Ok(Json::Null);
    }
    if ty.ends_with('?') && c == "[]" {
        return Ok(Json::List(vec![]));
    }
    Ok(match ty {
        "Tensor" | "Tensor?" | "Tensor(a!)" => {
            let raw =
                |v: Option<&serde_json::Value>| v.map_or(Json::List(vec![]), Json::from_serde);
            let uninitialised =
                event.name == "aten::fill_" || (event.name == "aten::copy_" && arg.name != "src");
            Json::object([
                ("shape", raw(event.dims(i))),
                ("dtype", Json::str(t)),
                ("strides", raw(event.strides(i))),
                (
                    "init",
                    if uninitialised {
                        Json::Null
                    } else {
                        Json::str("normal")
                    },
                ),
            ])
        }
        "bool" | "bool?" => Json::Bool(c.to_lowercase() == "true"),
        "int" | "SymInt" => Json::Int(py_int_digits(c).ok_or_else(unsupported)?),
        "float" | "float?" | "Scalar" | "Scalar?" => {
            Json::Float(py_float(c).ok_or_else(unsupported)?)
        }
        _ if ty.starts_with("int[") || ty.starts_with("SymInt[") => Json::List(
            list_pieces(c)
                .iter()
                .map(|p| py_int_digits(p).map(Json::Int).ok_or_else(unsupported))
                .collect::<Result<_, _>>()?,
        ),
        _ if ty.starts_with("bool[") => Json::List(
            list_pieces(c)
                .iter()
                .map(|p| Json::Bool(p.to_lowercase() == "true"))
                .collect(),
        ),
        _ => return Err(unsupported()),
    })
}
