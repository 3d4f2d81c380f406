//! The replay IR in SQL: `replay_ir(...)` builds one op's IR, `replay_args(ir)`
//! lists its arguments, and the table function `op_schemas()` lists the
//! shipped schema catalog. The views `replay_ir`, `replay_args` and
//! `replay_coverage` (queries/views) are made of these.
//!
//! Why SQL: "which of the top GEMM shapes have a column-major `mat2`", "what
//! share of the GPU time can be replayed and what blocks the rest" become one
//! query each, in the REPL as anywhere.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Int64Array, RecordBatch, StringArray, StructArray,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef};
use datafusion::arrow::json::ReaderBuilder;
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{exec_err, plan_err, Result};
use datafusion::datasource::MemTable;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use datafusion::prelude::SessionContext;

use crate::replay::json::{to_string, Json, Style};
use crate::replay::{self, Mode, OpEvent};

/// Usage and result of the functions, for `tracesql_functions`.
pub const DOCS: &[(&str, &str, &str)] = &[
    (
        "replay_ir",
        "replay_ir(name, input_types_json, input_dims_json, input_strides_json, concrete_inputs_json, compat BOOLEAN [, list_dtype])",
        "STRUCT<status, reason, error, overload, schema, n_args, schema_drift, assumptions, ir_json>: the op's replay IR (native, or TraceLens's when compat)",
    ),
    (
        "replay_args",
        "replay_args(ir_json)",
        "LIST<STRUCT<pos, arg_name, arg_type, kw_only, kind, dtype, trace_dtype, shape, strides, storage_numel, init, value_json>>: the IR's arguments",
    ),
    (
        "replay_id",
        "replay_id(name, input_types_json, input_dims_json, input_strides_json, concrete_inputs_json)",
        "UTF8 the signature's id (<op>__<8 hex>): package names, IR entries and replay_runs rows use it",
    ),
    (
        "replay_runs",
        "replay_runs(path)",
        "TABLE(id, op, overload, status, device, device_name, torch_version, iters, min_us, median_us, p90_us, mean_us, traced_median_us, ratio_to_traced, kernels, kernels_subset_of_traced, error): the results file of `replay.py --json`",
    ),
    (
        "op_schemas",
        "op_schemas()",
        "TABLE(catalog, name, overload, pos, arg_name, arg_type, default, kw_only): the shipped op-schema catalog, one row per argument",
    ),
];

/// Registers `replay_ir`, `replay_args` and `op_schemas`.
pub fn register(ctx: &SessionContext) {
    ctx.register_udf(ScalarUDF::from(ReplayIr::default()));
    ctx.register_udf(ScalarUDF::from(ReplayArgs::default()));
    ctx.register_udf(ScalarUDF::from(ReplayId::default()));
    ctx.register_udtf("op_schemas", Arc::new(OpSchemas));
    ctx.register_udtf("replay_runs", Arc::new(ReplayRuns));
}

fn ir_fields() -> Fields {
    Fields::from(vec![
        Field::new("status", DataType::Utf8, false),
        Field::new("reason", DataType::Utf8, true),
        Field::new("error", DataType::Utf8, true),
        Field::new("overload", DataType::Utf8, true),
        Field::new("schema", DataType::Utf8, true),
        Field::new("n_args", DataType::Int64, false),
        Field::new("schema_drift", DataType::Boolean, true),
        Field::new("assumptions", DataType::Utf8, true),
        Field::new("ir_json", DataType::Utf8, true),
    ])
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ReplayIr {
    signature: Signature,
}

impl Default for ReplayIr {
    fn default() -> Self {
        Self {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for ReplayIr {
    fn name(&self) -> &str {
        "replay_ir"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if !(6..=7).contains(&arg_types.len()) {
            return plan_err!(
                "replay_ir takes 6 or 7 arguments: name, the four *_json lists, compat[, list_dtype]"
            );
        }
        let mut types = vec![DataType::Utf8; 5];
        types.push(DataType::Boolean);
        if arg_types.len() == 7 {
            types.push(DataType::Utf8);
        }
        Ok(types)
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Struct(ir_fields()))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let n = args.number_rows;
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let text = Texts::of(&arrays[..5])?;
        let compat = arrays[5].as_boolean();
        let hints = arrays
            .get(6)
            .map(|a| Texts::of(std::slice::from_ref(a)))
            .transpose()?;
        let get = |col: usize, row: usize| text.get(col, row);
        let mut rows = Rows::default();
        for row in 0..n {
            let Some(name) = get(0, row) else {
                rows.push_null();
                continue;
            };
            let mut event =
                OpEvent::from_json_texts(name, get(1, row), get(2, row), get(3, row), get(4, row));
            event.list_dtype_hint = hints
                .as_ref()
                .and_then(|h| h.get(0, row))
                .map(str::to_string);
            let mode = if compat.is_valid(row) && compat.value(row) {
                Mode::Compat
            } else {
                Mode::Native
            };
            rows.push(&event, mode);
        }
        Ok(ColumnarValue::Array(Arc::new(rows.finish()?)))
    }
}

/// Argument columns as text (dictionary-encoded `ops` columns included).
struct Texts(Vec<ArrayRef>);

impl Texts {
    fn of(arrays: &[ArrayRef]) -> Result<Texts> {
        let cast_all = arrays.iter().map(|a| cast(a, &DataType::Utf8));
        Ok(Texts(cast_all.collect::<Result<_, _>>()?))
    }

    /// The text in `col` at `row`; None for NULL.
    fn get(&self, col: usize, row: usize) -> Option<&str> {
        let column = self.0[col].as_string::<i32>();
        (!column.is_null(row)).then(|| column.value(row))
    }
}

/// The struct's columns, built row by row.
#[derive(Default)]
struct Rows {
    status: Vec<Option<String>>,
    reason: Vec<Option<String>>,
    error: Vec<Option<String>>,
    overload: Vec<Option<String>>,
    schema: Vec<Option<String>>,
    n_args: Vec<i64>,
    drift: Vec<Option<bool>>,
    assumptions: Vec<Option<String>>,
    ir: Vec<Option<String>>,
    valid: Vec<bool>,
}

impl Rows {
    fn push_null(&mut self) {
        self.status.push(Some(String::new()));
        for v in [
            &mut self.reason,
            &mut self.error,
            &mut self.overload,
            &mut self.schema,
            &mut self.assumptions,
            &mut self.ir,
        ] {
            v.push(None);
        }
        self.n_args.push(0);
        self.drift.push(None);
        self.valid.push(false);
    }

    fn push(&mut self, event: &OpEvent, mode: Mode) {
        let out = replay::build(event, mode);
        let overload = out
            .matched_schema
            .as_deref()
            .and_then(|s| replay::schema::Schema::parse(s).ok())
            .map(|s| s.overload_name());
        let drift = match out.ir.as_ref().and_then(|ir| ir.get("schema_drift")) {
            Some(Json::Bool(b)) => Some(*b),
            _ => None,
        };
        self.status.push(Some(out.status.as_str().to_string()));
        self.reason.push(out.reason);
        self.error.push(out.error);
        self.overload.push(overload);
        self.schema.push(out.matched_schema);
        self.n_args.push(event.len() as i64);
        self.drift.push(drift);
        self.assumptions
            .push((!out.warnings.is_empty()).then(|| out.warnings.join("; ")));
        self.ir
            .push(out.ir.map(|ir| to_string(&ir, Style::STRICT_LINE)));
        self.valid.push(true);
    }

    fn finish(self) -> Result<StructArray> {
        let strings = |v: Vec<Option<String>>| Arc::new(StringArray::from(v)) as ArrayRef;
        let columns: Vec<ArrayRef> = vec![
            strings(self.status),
            strings(self.reason),
            strings(self.error),
            strings(self.overload),
            strings(self.schema),
            Arc::new(Int64Array::from(self.n_args)),
            Arc::new(BooleanArray::from(self.drift)),
            strings(self.assumptions),
            strings(self.ir),
        ];
        let nulls = Some(self.valid.into());
        Ok(StructArray::try_new(ir_fields(), columns, nulls)?)
    }
}

fn arg_fields() -> Fields {
    let ints = DataType::List(Arc::new(Field::new("item", DataType::Int64, true)));
    Fields::from(vec![
        Field::new("pos", DataType::Int64, true),
        Field::new("arg_name", DataType::Utf8, true),
        Field::new("arg_type", DataType::Utf8, true),
        Field::new("kw_only", DataType::Boolean, true),
        Field::new("kind", DataType::Utf8, true),
        Field::new("dtype", DataType::Utf8, true),
        Field::new("trace_dtype", DataType::Utf8, true),
        Field::new("shape", ints.clone(), true),
        Field::new("strides", ints, true),
        Field::new("storage_numel", DataType::Int64, true),
        Field::new("init", DataType::Utf8, true),
        Field::new("value_json", DataType::Utf8, true),
    ])
}

fn args_type() -> DataType {
    DataType::List(Arc::new(Field::new(
        "item",
        DataType::Struct(arg_fields()),
        true,
    )))
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ReplayArgs {
    signature: Signature,
}

impl Default for ReplayArgs {
    fn default() -> Self {
        Self {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for ReplayArgs {
    fn name(&self) -> &str {
        "replay_args"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if arg_types.len() != 1 {
            return plan_err!(
                "replay_args takes one argument: an IR's JSON (replay_ir(...)['ir_json'])"
            );
        }
        Ok(vec![DataType::Utf8])
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(args_type())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let text = cast(&arrays[0], &DataType::Utf8)?;
        let text = text.as_string::<i32>();
        // Each row as one line `{"args": [...]}`, decoded by arrow's JSON
        // reader into the list-of-struct column.
        let mut lines = String::new();
        for row in 0..text.len() {
            let args = if text.is_null(row) {
                None
            } else {
                serde_json::from_str::<serde_json::Value>(text.value(row))
                    .ok()
                    .map(|ir| arg_rows(&ir))
            };
            let line = serde_json::json!({ "args": args });
            lines.push_str(&line.to_string());
            lines.push('\n');
        }
        let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new("args", args_type(), true)]));
        let mut reader = ReaderBuilder::new(schema)
            .with_batch_size(text.len().max(1))
            .build(lines.as_bytes())?;
        match reader.next() {
            Some(batch) => Ok(ColumnarValue::Array(batch?.column(0).clone())),
            None if text.is_empty() => Ok(ColumnarValue::Array(
                datafusion::arrow::array::new_empty_array(&args_type()),
            )),
            None => exec_err!("replay_args: no rows decoded"),
        }
    }
}

/// The argument rows of a native or a TraceLens IR.
fn arg_rows(ir: &serde_json::Value) -> Vec<serde_json::Value> {
    use serde_json::{json, Value};
    let mut rows = Vec::new();
    if let Some(args) = ir.get("args").and_then(Value::as_array) {
        for (pos, a) in args.iter().enumerate() {
            let tensor = a.get("tensor");
            let field = |k: &str| tensor.and_then(|t| t.get(k)).cloned();
            let value = a.get("value").or_else(|| a.get("tensors"));
            rows.push(json!({
                "pos": pos, "arg_name": a.get("name"), "arg_type": a.get("type"),
                "kw_only": a.get("kw_only"), "kind": a.get("kind"),
                "dtype": field("dtype"), "trace_dtype": field("trace_dtype"),
                "shape": field("shape"), "strides": field("strides"),
                "storage_numel": field("storage_numel"), "init": field("init"),
                "value_json": if tensor.is_some() { None } else { value.map(Value::to_string) },
            }));
        }
        return rows;
    }
    // TraceLens's layout: positional then keyword arguments.
    let replay_ir = ir.get("replay_ir");
    for (list, kw_only) in [("list_pos_args", false), ("list_kwargs", true)] {
        let items = replay_ir
            .and_then(|r| r.get(list))
            .and_then(Value::as_array);
        for a in items.into_iter().flatten() {
            let value = a.get("value");
            let tensor = value.filter(|v| v.get("shape").is_some());
            let field = |k: &str| tensor.and_then(|t| t.get(k)).cloned();
            rows.push(json!({
                "pos": rows.len(), "arg_name": a.get("arg_name"), "arg_type": a.get("arg_type"),
                "kw_only": kw_only, "kind": if tensor.is_some() { "tensor" } else { "value" },
                "dtype": field("dtype"), "trace_dtype": field("dtype"),
                "shape": field("shape"), "strides": field("strides"), "init": field("init"),
                "value_json": if tensor.is_some() { None } else { value.map(Value::to_string) },
            }));
        }
    }
    rows
}

/// `op_schemas()`: the shipped catalog, one row per schema argument.
#[derive(Debug)]
struct OpSchemas;

impl TableFunctionImpl for OpSchemas {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        if !args.exprs().is_empty() {
            return plan_err!("op_schemas() takes no arguments");
        }
        let catalog = replay::catalog::shipped();
        let mut cols: [Vec<Option<String>>; 6] = Default::default();
        let (mut pos, mut kw) = (Vec::new(), Vec::new());
        for entry in &catalog.entries {
            let Ok(schema) = replay::schema::Schema::parse(entry.text) else {
                continue;
            };
            let overload = schema.overload_name();
            for (i, arg) in schema.args.iter().enumerate() {
                let row = [
                    Some(catalog.version.clone()),
                    Some(schema.name.clone()),
                    Some(overload.clone()),
                    Some(arg.name.clone()),
                    Some(arg.ty.clone()),
                    arg.default.clone(),
                ];
                for (col, v) in cols.iter_mut().zip(row) {
                    col.push(v);
                }
                pos.push(i as i64);
                kw.push(arg.kw_only);
            }
        }
        let schema = Arc::new(Schema::new(vec![
            Field::new("catalog", DataType::Utf8, false),
            Field::new("name", DataType::Utf8, false),
            Field::new("overload", DataType::Utf8, false),
            Field::new("pos", DataType::Int64, false),
            Field::new("arg_name", DataType::Utf8, false),
            Field::new("arg_type", DataType::Utf8, false),
            Field::new("default", DataType::Utf8, true),
            Field::new("kw_only", DataType::Boolean, false),
        ]));
        let [catalog_col, name, overload, arg_name, arg_type, default] = cols;
        let s = |v: Vec<Option<String>>| Arc::new(StringArray::from(v)) as ArrayRef;
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                s(catalog_col),
                s(name),
                s(overload),
                Arc::new(Int64Array::from(pos)),
                s(arg_name),
                s(arg_type),
                s(default),
                Arc::new(BooleanArray::from(kw)),
            ],
        )?;
        Ok(Arc::new(MemTable::try_new(schema, vec![vec![batch]])?))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ReplayId {
    signature: Signature,
}

impl Default for ReplayId {
    fn default() -> Self {
        Self {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for ReplayId {
    fn name(&self) -> &str {
        "replay_id"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if arg_types.len() != 5 {
            return plan_err!("replay_id takes 5 arguments: name and the four *_json lists");
        }
        Ok(vec![DataType::Utf8; 5])
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let arrays = ColumnarValue::values_to_arrays(&args.args)?;
        let text = Texts::of(&arrays)?;
        let get = |col: usize, row: usize| text.get(col, row);
        let ids: StringArray = (0..args.number_rows)
            .map(|row| {
                get(0, row).map(|name| {
                    replay::signature_id(name, [get(1, row), get(2, row), get(3, row), get(4, row)])
                })
            })
            .collect();
        Ok(ColumnarValue::Array(Arc::new(ids)))
    }
}

/// `replay_runs(path)`: the results file `replay.py --json` writes, one row
/// per op replayed, so replayed and traced times meet in SQL (`replay_check`
/// in the README joins it to `replay_ir` by id).
#[derive(Debug)]
struct ReplayRuns;

fn runs_schema() -> SchemaRef {
    let names = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, true),
        Field::new("op", DataType::Utf8, true),
        Field::new("overload", DataType::Utf8, true),
        Field::new("status", DataType::Utf8, true),
        Field::new("device", DataType::Utf8, true),
        Field::new("device_name", DataType::Utf8, true),
        Field::new("torch_version", DataType::Utf8, true),
        Field::new("iters", DataType::Int64, true),
        Field::new("min_us", DataType::Float64, true),
        Field::new("median_us", DataType::Float64, true),
        Field::new("p90_us", DataType::Float64, true),
        Field::new("mean_us", DataType::Float64, true),
        Field::new("traced_median_us", DataType::Float64, true),
        Field::new("ratio_to_traced", DataType::Float64, true),
        Field::new("kernels", names, true),
        Field::new("kernels_subset_of_traced", DataType::Boolean, true),
        Field::new("error", DataType::Utf8, true),
    ]))
}

impl TableFunctionImpl for ReplayRuns {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        use datafusion::logical_expr::Expr;
        use datafusion::scalar::ScalarValue;
        let path = match args.exprs() {
            [Expr::Literal(ScalarValue::Utf8(Some(path)), _)] => path.clone(),
            _ => return plan_err!("replay_runs takes one argument: the path of a `replay.py --json` file, as a string literal"),
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            datafusion::error::DataFusionError::Plan(format!("replay_runs: {path}: {e}"))
        })?;
        let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
            datafusion::error::DataFusionError::Plan(format!("replay_runs: {path}: not JSON: {e}"))
        })?;
        let Some(results) = doc.get("results").and_then(serde_json::Value::as_array) else {
            return plan_err!(
                "replay_runs: {path}: no \"results\" list (write it with replay.py --json)"
            );
        };
        let mut lines = String::new();
        for r in results {
            let mut row = r.clone();
            for key in ["device_name", "torch_version"] {
                if row.get(key).is_none() {
                    row[key] = doc.get(key).cloned().unwrap_or(serde_json::Value::Null);
                }
            }
            lines.push_str(&row.to_string());
            lines.push('\n');
        }
        let schema = runs_schema();
        let reader = ReaderBuilder::new(schema.clone())
            .with_batch_size(results.len().max(1))
            .build(lines.as_bytes())?;
        let batches = reader.collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(Arc::new(MemTable::try_new(schema, vec![batches])?))
    }
}
