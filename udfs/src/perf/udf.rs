//! The perf models and derived rates as SQL functions.
//!
//! ```sql
//! SELECT name,
//!        op_perf(name, input_dims, input_types, input_strides, concrete_inputs,
//!                kernel_names, 'fwd', 'tracelens') AS perf
//! FROM launchers WHERE perf_model(name) IS NOT NULL
//! ```
//!
//! | function | returns |
//! |---|---|
//! | `perf_model(name)` | `UTF8` model class, NULL without a model |
//! | `op_perf(name, dims, types, strides, concrete [, kernel_names [, direction [, semantics]]])` | `STRUCT<model_class, flops, bytes, compute_spec, params, error>` |
//! | `op_flops(…same…)` | `DOUBLE` |
//! | `op_bytes(…same…)` | `DOUBLE` |
//! | `op_params(…same…)` | `UTF8` Python dict of the params |
//! | `tflops_per_s(flops, kernel_us)` | `DOUBLE` `(flops/1e9/1e3)/(kernel_us/1e6)` |
//! | `tb_per_s(bytes, kernel_us)` | `DOUBLE` `(bytes/1e12)/(kernel_us/1e6)` |
//! | `flops_per_byte(flops, bytes)` | `DOUBLE` `((flops/1e9)*1e9)/bytes` |

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Array, Float64Builder, ListArray, StringArray, StringBuilder,
    StructArray, UInt32Array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::{cast, take};
use datafusion::arrow::datatypes::{DataType, Field, Fields, Float64Type};
use datafusion::common::{exec_err, plan_err, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use super::{compute, resolve, Direction, ModelError, Perf, RawArgs, Semantics};

fn is_string_type(t: &DataType) -> bool {
    crate::is_text(t)
}

fn as_utf8(array: &ArrayRef) -> Result<StringArray> {
    Ok(cast(array, &DataType::Utf8)?.as_string::<i32>().clone())
}

/// `perf_model(name UTF8) -> UTF8`: the op's perf-model class (`aten_addmm`,
/// `LayerNorm`, `TritonCompiledPerfModel`, ...) as the reference resolves it
/// (spec §7.1), or NULL when the op has no model. Classes tracesql does not
/// implement are returned too (their `op_perf` error is `unsupported:`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PerfModelUdf {
    signature: Signature,
}

impl PerfModelUdf {
    pub fn new() -> Self {
        Self {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl Default for PerfModelUdf {
    fn default() -> Self {
        Self::new()
    }
}

impl ScalarUDFImpl for PerfModelUdf {
    fn name(&self) -> &str {
        "perf_model"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    /// Names as text; dictionary-encoded names (the tables' `name` columns)
    /// are taken as they are, so that each distinct name is resolved once
    /// instead of every row's name being copied out first.
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let [arg] = arg_types else {
            return plan_err!("perf_model takes one argument, the op name");
        };
        Ok(vec![match arg {
            DataType::Dictionary(_, value) if value.is_string() => arg.clone(),
            _ => DataType::Utf8,
        }])
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let names = args.args[0].to_array(args.number_rows)?;
        if let Some(dictionary) = names.as_any_dictionary_opt() {
            if dictionary.values().is_empty() {
                // Every name is NULL (normalized_keys needs a value to point at).
                let out = StringArray::new_null(names.len());
                return Ok(ColumnarValue::Array(Arc::new(out)));
            }
            let classes: Vec<Option<&str>> = as_utf8(dictionary.values())?
                .iter()
                .map(|n| n.and_then(resolve))
                .collect();
            let keys = dictionary.normalized_keys();
            let out: StringArray = (keys.iter().enumerate())
                .map(|(row, &key)| names.is_valid(row).then(|| classes[key]).flatten())
                .collect();
            return Ok(ColumnarValue::Array(Arc::new(out)));
        }
        let names = as_utf8(&names)?;
        let out: StringArray = names.iter().map(|n| n.and_then(resolve)).collect();
        Ok(ColumnarValue::Array(Arc::new(out)))
    }
}

/// What an `op_*` function returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpOutput {
    /// `op_perf`: the whole struct.
    Perf,
    /// `op_flops`: FLOPs of the direction.
    Flops,
    /// `op_bytes`: bytes of the direction.
    Bytes,
    /// `op_params`: the params as a Python dict.
    Params,
}

/// The fields of one `params` entry: `key`, `value` (Python `repr`), `py_str`
/// (Python `str`, what a perf-sheet cell prints for an object column) and `kind`
/// (the Python type: `int`, `float`, `bool`, `str`, `tuple`, `list`, `NoneType`).
pub fn param_fields() -> Fields {
    let text = |name: &str| Field::new(name, DataType::Utf8, true);
    Fields::from(vec![
        text("key"),
        text("value"),
        text("py_str"),
        text("kind"),
    ])
}

/// The fields of `op_perf`'s struct.
pub fn op_perf_fields() -> Fields {
    Fields::from(vec![
        Field::new("model_class", DataType::Utf8, true),
        Field::new("flops", DataType::Float64, true),
        Field::new("bytes", DataType::Float64, true),
        Field::new("compute_spec", DataType::Utf8, true),
        Field::new(
            "params",
            DataType::new_list(DataType::Struct(param_fields()), true),
            true,
        ),
        Field::new("error", DataType::Utf8, true),
    ])
}

/// `op_perf`, `op_flops`, `op_bytes`, `op_params`:
/// `(name UTF8, input_dims_json UTF8, input_types_json UTF8, input_strides_json UTF8,
///   concrete_inputs_json UTF8 [, kernel_names LIST<UTF8> [, direction UTF8
///   [, semantics UTF8]]])`.
///
/// * The four JSON texts are the trace args as recorded; any may be NULL (a
///   missing key). `kernel_names` are the op's kernels in ts order (GEMM
///   transpose detection); NULL or omitted means none.
/// * `direction`: `'fwd'` (default) or `'bwd'` (the model's `flops_bwd`/`bytes_bwd`).
///   `semantics`: `'tracelens'` (default, the reference's numbers),
///   `'bugfixes'` (the reference's numbers with its four counting bugs fixed,
///   [`super::Fix::BUGS`]; what the perf sheets report) or `'corrected'` (every
///   known quirk fixed). NULL means the default; other text is an execution error.
/// * A NULL name or a name without a model gives NULL.
/// * When the model fails, `op_perf` keeps `model_class` (and, for a failing
///   backward, `compute_spec` and `params`), sets `flops`/`bytes` NULL and
///   `error` to `not_implemented: …` (the reference raises NotImplementedError),
///   `invalid: …` (any other failure: the instance is skipped),
///   `cannot_model: …` (TritonCompiled without usable args: treat as no model)
///   or `unsupported: …` (a class tracesql does not implement); `op_flops`,
///   `op_bytes` and `op_params` give NULL.
/// * `bytes` is also NULL when a dtype has no known size.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OpPerfUdf {
    output: OpOutput,
    signature: Signature,
}

impl OpPerfUdf {
    pub fn new(output: OpOutput) -> Self {
        Self {
            output,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for OpPerfUdf {
    fn name(&self) -> &str {
        match self.output {
            OpOutput::Perf => "op_perf",
            OpOutput::Flops => "op_flops",
            OpOutput::Bytes => "op_bytes",
            OpOutput::Params => "op_params",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let name = self.name();
        if !(5..=8).contains(&arg_types.len()) {
            return plan_err!(
                "{name} takes 5 to 8 arguments (name, input_dims_json, input_types_json, \
                 input_strides_json, concrete_inputs_json [, kernel_names [, direction \
                 [, semantics]]]), got {}",
                arg_types.len()
            );
        }
        arg_types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if i == 5 {
                    let item = match t {
                        DataType::Null => return Ok(DataType::new_list(DataType::Utf8, true)),
                        DataType::List(f)
                        | DataType::LargeList(f)
                        | DataType::FixedSizeList(f, _) => f.data_type(),
                        other => {
                            return plan_err!(
                                "{name}: kernel_names must be a LIST of strings, got {other}"
                            )
                        }
                    };
                    if !is_string_type(item) {
                        return plan_err!(
                            "{name}: kernel_names must be a LIST of strings, got a LIST of {item}"
                        );
                    }
                    Ok(DataType::new_list(DataType::Utf8, true))
                } else if is_string_type(t) {
                    Ok(DataType::Utf8)
                } else {
                    plan_err!("{name}: argument {} must be a string, got {t}", i + 1)
                }
            })
            .collect()
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.output {
            OpOutput::Perf => DataType::Struct(op_perf_fields()),
            OpOutput::Flops | OpOutput::Bytes => DataType::Float64,
            OpOutput::Params => DataType::Utf8,
        })
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays = args
            .args
            .iter()
            .map(|a| a.to_array(rows))
            .collect::<Result<Vec<_>>>()?;
        let text: Vec<StringArray> = [0, 1, 2, 3, 4]
            .iter()
            .map(|&i| as_utf8(&arrays[i]))
            .collect::<Result<_>>()?;
        let kernels = match arrays.get(5) {
            Some(a) => Some(cast(a, &DataType::new_list(DataType::Utf8, true))?),
            None => None,
        };
        let kernel_lists: Option<&ListArray> = kernels.as_ref().map(|k| k.as_list::<i32>());
        let kernel_values = kernel_lists.map(|l| l.values().as_string::<i32>().clone());
        let direction = arrays.get(6).map(as_utf8).transpose()?;
        let semantics = arrays.get(7).map(as_utf8).transpose()?;

        let mut out = OutputBuilder::new(self.output, rows);
        // Thousands of op instances share a few dozen distinct inputs: each
        // distinct one is modelled once per batch, and its output row (params
        // formatted as Python text) written once; rows gather them by index.
        let mut modelled: HashMap<ModelKey, Modelled> = HashMap::new();
        let mut written: HashMap<(ModelKey, Direction), u32> = HashMap::new();
        let mut gather: Vec<u32> = Vec::with_capacity(rows);
        for row in 0..rows {
            let name = (!text[0].is_null(row)).then(|| text[0].value(row));
            let field = |i: usize| (!text[i].is_null(row)).then(|| text[i].value(row));
            let names: Vec<&str> = match (kernel_lists, &kernel_values) {
                (Some(lists), Some(values)) if lists.is_valid(row) => {
                    let offsets = lists.value_offsets();
                    (offsets[row] as usize..offsets[row + 1] as usize)
                        .filter(|&j| values.is_valid(j))
                        .map(|j| values.value(j))
                        .collect()
                }
                _ => Vec::new(),
            };
            let direction = match direction.as_ref().filter(|d| d.is_valid(row)) {
                None => Direction::Fwd,
                Some(d) => match Direction::parse(d.value(row)) {
                    Some(d) => d,
                    None => {
                        return exec_err!(
                            "{}: direction must be 'fwd' or 'bwd', got {:?}",
                            self.name(),
                            d.value(row)
                        )
                    }
                },
            };
            let semantics = match semantics.as_ref().filter(|s| s.is_valid(row)) {
                None => Semantics::TraceLens,
                Some(s) => match Semantics::parse(s.value(row)) {
                    Some(s) => s,
                    None => {
                        return exec_err!(
                        "{}: semantics must be 'tracelens', 'bugfixes' or 'corrected', got {:?}",
                        self.name(),
                        s.value(row)
                    )
                    }
                },
            };
            let key = (
                name,
                [field(1), field(2), field(3), field(4)],
                names,
                semantics,
            );
            let key = (key, direction);
            if let Some(&at) = written.get(&key) {
                gather.push(at);
                continue;
            }
            let (key, direction) = key;
            let result =
                modelled
                    .entry(key.clone())
                    .or_insert_with_key(|(name, inputs, names, _)| {
                        let raw = RawArgs {
                            input_dims: inputs[0],
                            input_types: inputs[1],
                            input_strides: inputs[2],
                            concrete_inputs: inputs[3],
                            kernel_names: names,
                        };
                        let name = (*name)?;
                        let class = resolve(name)?;
                        Some((class, compute(name, &raw, semantics)?))
                    });
            let at = written.len() as u32;
            out.append(result.clone(), direction);
            written.insert((key, direction), at);
            gather.push(at);
        }
        let distinct = out.finish();
        if written.len() == rows {
            return Ok(ColumnarValue::Array(distinct));
        }
        let gather = UInt32Array::from(gather);
        Ok(ColumnarValue::Array(take(&distinct, &gather, None)?))
    }
}

/// Everything a model reads of one row: name, the four JSON texts, kernel
/// names, semantics (the direction only picks among its results).
type ModelKey<'a> = (
    Option<&'a str>,
    [Option<&'a str>; 4],
    Vec<&'a str>,
    Semantics,
);

/// A row's model class and result; None when the name has no model.
type Modelled = Option<(&'static str, Result<Perf, ModelError>)>;

/// Accumulates the output column of an `op_*` function.
struct OutputBuilder {
    output: OpOutput,
    valid: Vec<bool>,
    model_class: StringBuilder,
    flops: Float64Builder,
    bytes: Float64Builder,
    compute_spec: StringBuilder,
    params_text: StringBuilder,
    param_offsets: Vec<i32>,
    param_valid: Vec<bool>,
    param_columns: [StringBuilder; 4],
    error: StringBuilder,
}

impl OutputBuilder {
    fn new(output: OpOutput, rows: usize) -> Self {
        Self {
            output,
            valid: Vec::with_capacity(rows),
            model_class: StringBuilder::new(),
            flops: Float64Builder::with_capacity(rows),
            bytes: Float64Builder::with_capacity(rows),
            compute_spec: StringBuilder::new(),
            params_text: StringBuilder::new(),
            param_offsets: vec![0],
            param_valid: Vec::with_capacity(rows),
            param_columns: std::array::from_fn(|_| StringBuilder::new()),
            error: StringBuilder::new(),
        }
    }

    fn append(&mut self, result: Option<(&str, Result<Perf, ModelError>)>, direction: Direction) {
        let Some((class, result)) = result else {
            self.valid.push(false);
            self.model_class.append_null();
            self.flops.append_null();
            self.bytes.append_null();
            self.compute_spec.append_null();
            self.params_text.append_null();
            self.push_params(None);
            self.error.append_null();
            return;
        };
        self.valid.push(true);
        self.model_class.append_value(class);
        let perf = match result {
            Ok(perf) => perf,
            Err(e) => {
                self.flops.append_null();
                self.bytes.append_null();
                self.compute_spec.append_null();
                self.params_text.append_null();
                self.push_params(None);
                self.error.append_value(e.to_string());
                return;
            }
        };
        self.compute_spec
            .append_option(perf.compute_spec.as_deref());
        self.push_params(Some(&perf));
        match perf.metrics(direction) {
            Ok(m) => {
                self.flops.append_value(m.flops);
                self.bytes.append_option(m.bytes);
                self.params_text.append_value(perf.params_repr());
                self.error.append_null();
            }
            Err(e) => {
                self.flops.append_null();
                self.bytes.append_null();
                self.params_text.append_null();
                self.error.append_value(e.to_string());
            }
        }
    }

    fn push_params(&mut self, perf: Option<&Perf>) {
        let last = *self.param_offsets.last().expect("starts with 0");
        let Some(perf) = perf else {
            self.param_offsets.push(last);
            self.param_valid.push(false);
            return;
        };
        let [key, value, py_str, kind] = &mut self.param_columns;
        for (k, v) in &perf.params {
            key.append_value(k);
            value.append_value(v.repr());
            py_str.append_value(v.py_str());
            kind.append_value(v.kind());
        }
        self.param_offsets.push(last + perf.params.len() as i32);
        self.param_valid.push(true);
    }

    fn finish(mut self) -> ArrayRef {
        match self.output {
            OpOutput::Flops => Arc::new(self.flops.finish()),
            OpOutput::Bytes => Arc::new(self.bytes.finish()),
            OpOutput::Params => Arc::new(self.params_text.finish()),
            OpOutput::Perf => {
                let columns: Vec<ArrayRef> = self
                    .param_columns
                    .iter_mut()
                    .map(|b| Arc::new(b.finish()) as ArrayRef)
                    .collect();
                let entries = StructArray::new(param_fields(), columns, None);
                let params = ListArray::new(
                    Arc::new(Field::new_list_field(
                        DataType::Struct(param_fields()),
                        true,
                    )),
                    OffsetBuffer::new(self.param_offsets.into()),
                    Arc::new(entries),
                    Some(NullBuffer::from(self.param_valid)),
                );
                Arc::new(StructArray::new(
                    op_perf_fields(),
                    vec![
                        Arc::new(self.model_class.finish()),
                        Arc::new(self.flops.finish()),
                        Arc::new(self.bytes.finish()),
                        Arc::new(self.compute_spec.finish()),
                        Arc::new(params),
                        Arc::new(self.error.finish()),
                    ],
                    Some(NullBuffer::from(self.valid)),
                ))
            }
        }
    }
}

/// A rate derived from a model's numbers and a kernel time (spec §7.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rate {
    /// `tflops_per_s(flops, kernel_us) = (flops/1e9/1e3)/(kernel_us/1e6)`.
    TflopsPerS,
    /// `tb_per_s(bytes, kernel_us) = (bytes/1e12)/(kernel_us/1e6)`.
    TbPerS,
    /// `flops_per_byte(flops, bytes) = ((flops/1e9)*1e9)/bytes`.
    FlopsPerByte,
}

impl Rate {
    /// The reference's arithmetic, operation for operation; NULL where it gives
    /// NaN (no kernel time, no or zero bytes).
    pub fn apply(self, a: f64, b: f64) -> Option<f64> {
        match self {
            Rate::TflopsPerS => (b > 0.0).then(|| (a / 1e9 / 1e3) / (b / 1e6)),
            Rate::TbPerS => (b > 0.0).then(|| (a / 1e12) / (b / 1e6)),
            Rate::FlopsPerByte => (b != 0.0 && !b.is_nan()).then(|| ((a / 1e9) * 1e9) / b),
        }
    }
}

/// `tflops_per_s(flops DOUBLE, kernel_us DOUBLE)`, `tb_per_s(bytes DOUBLE,
/// kernel_us DOUBLE)`, `flops_per_byte(flops DOUBLE, bytes DOUBLE) -> DOUBLE`.
///
/// * `TFLOPS/s = (GFLOPS/1e3)/(kernel_us/1e6)` and `TB/s = (bytes/1e12)/(kernel_us/1e6)`,
///   NULL when `kernel_us` is NULL or not positive;
/// * `FLOPS/Byte = (GFLOPS·1e9)/bytes` with `GFLOPS = flops/1e9`, NULL when bytes
///   is NULL or 0.
/// * Any numeric type is accepted; a NULL input gives NULL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RateUdf {
    rate: Rate,
    signature: Signature,
}

impl RateUdf {
    pub fn new(rate: Rate) -> Self {
        Self {
            rate,
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl ScalarUDFImpl for RateUdf {
    fn name(&self) -> &str {
        match self.rate {
            Rate::TflopsPerS => "tflops_per_s",
            Rate::TbPerS => "tb_per_s",
            Rate::FlopsPerByte => "flops_per_byte",
        }
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if arg_types.len() != 2 {
            return plan_err!("{} takes 2 arguments, got {}", self.name(), arg_types.len());
        }
        arg_types
            .iter()
            .map(|t| {
                if t.is_numeric() || t.is_null() {
                    Ok(DataType::Float64)
                } else {
                    plan_err!("{} takes numbers, got {t}", self.name())
                }
            })
            .collect()
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Float64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let a = cast(&args.args[0].to_array(rows)?, &DataType::Float64)?;
        let b = cast(&args.args[1].to_array(rows)?, &DataType::Float64)?;
        let (a, b) = (
            a.as_primitive::<Float64Type>(),
            b.as_primitive::<Float64Type>(),
        );
        let out: Float64Array = a
            .iter()
            .zip(b.iter())
            .map(|(a, b)| self.rate.apply(a?, b?))
            .collect();
        Ok(ColumnarValue::Array(Arc::new(out)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{batch, f64_values, run_sql, str_column, string_values};
    use datafusion::arrow::array::{DictionaryArray, Int32Array};
    use datafusion::arrow::compute::{concat, concat_batches};
    use datafusion::arrow::datatypes::Int32Type;
    use datafusion::arrow::record_batch::RecordBatch;

    #[test]
    fn rates_use_the_reference_operation_order() {
        let gflops = 73_996_800.0 / 1e9;
        assert_eq!(
            Rate::TflopsPerS.apply(73_996_800.0, 10.2239990234375),
            Some((gflops / 1e3) / (10.2239990234375 / 1e6))
        );
        assert_eq!(Rate::TflopsPerS.apply(1.0, 0.0), None);
        assert_eq!(
            Rate::TbPerS.apply(814_080.0, 10.0),
            Some((814_080.0 / 1e12) / (10.0 / 1e6))
        );
        assert_eq!(
            Rate::FlopsPerByte.apply(73_996_800.0, 814_080.0),
            Some((gflops * 1e9) / 814_080.0)
        );
        assert_eq!(Rate::FlopsPerByte.apply(1.0, 0.0), None);
    }

    /// Repeated rows are written once and gathered: a batch whose rows repeat
    /// (in both directions, with nulls) gives, row for row, the struct each
    /// row gives in a batch of its own.
    #[tokio::test]
    async fn gathered_rows_equal_rows_modelled_alone() {
        let gemm = "[[512], [141, 512], [512, 512], [], []]";
        let bf16 = r#"["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"]"#;
        let mm = ("[[4, 8], [8, 16]]", r#"["float", "float"]"#);
        type Row<'a> = (Option<&'a str>, &'a str, &'a str, &'a str);
        let rows: [Row; 7] = [
            (Some("aten::addmm"), gemm, bf16, "fwd"),
            (Some("aten::mm"), mm.0, mm.1, "bwd"),
            (Some("aten::addmm"), gemm, bf16, "bwd"),
            (Some("aten::gelu"), "[[4, 8]]", r#"["float"]"#, "fwd"),
            (Some("aten::mm"), mm.0, mm.1, "bwd"),
            (Some("aten::addmm"), gemm, bf16, "fwd"),
            (None, "[[1]]", r#"["float"]"#, "fwd"),
        ];
        // Every column nullable, so that the one-row batches share a schema.
        let one = |i: usize, (name, dims, types, dir): Row| {
            RecordBatch::try_from_iter_with_nullable(vec![
                (
                    "i",
                    Arc::new(UInt32Array::from(vec![i as u32])) as ArrayRef,
                    true,
                ),
                ("name", str_column(&[name]), true),
                ("dims", str_column(&[Some(dims)]), true),
                ("types", str_column(&[Some(types)]), true),
                ("dir", str_column(&[Some(dir)]), true),
            ])
            .expect("columns of one row")
        };
        let singles: Vec<RecordBatch> = rows.iter().enumerate().map(|(i, r)| one(i, *r)).collect();
        let whole = concat_batches(&singles[0].schema(), &singles).expect("same schema");
        let sql = "SELECT i, op_perf(name, dims, types, NULL, NULL, NULL, dir) AS p,
                          op_params(name, dims, types, NULL, NULL, NULL, dir) AS params
                   FROM t ORDER BY i";
        let gathered = run_sql(vec![whole], sql).await;
        let alone = run_sql(singles, sql).await;
        for column in ["p", "params"] {
            let values = |out: &[RecordBatch]| {
                let parts: Vec<ArrayRef> = (out.iter())
                    .map(|b| Arc::clone(b.column_by_name(column).expect("column")))
                    .collect();
                let parts: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
                concat(&parts).expect("one type").to_data()
            };
            assert_eq!(values(&gathered), values(&alone), "{column}");
        }
        let flops = |out: &[RecordBatch]| {
            let p = out[0].column_by_name("p").expect("p").as_struct().clone();
            let flops = p
                .column_by_name("flops")
                .expect("flops")
                .as_primitive::<Float64Type>()
                .clone();
            (0..flops.len())
                .map(|i| flops.is_valid(i).then(|| flops.value(i)))
                .collect::<Vec<_>>()
        };
        let flops = flops(&gathered);
        assert_eq!(flops[0], flops[5], "the same GEMM forward twice");
        assert!(flops[0].is_some_and(|f| f > 0.0), "{flops:?}");
        assert_ne!(
            flops[0], flops[2],
            "forward and backward of one GEMM: {flops:?}"
        );
        assert_eq!(flops[6], None, "no name, no model");
    }

    /// `perf_model` reads dictionary-encoded names (the tables' `name`
    /// columns) as they are, with the same classes as plain text.
    #[tokio::test]
    async fn perf_model_reads_dictionary_names() {
        let names = [
            Some("aten::addmm"),
            None,
            Some("aten::gelu"),
            Some("no_such_op"),
            Some("aten::addmm"),
        ];
        let t = batch(vec![("name", str_column(&names))]);
        // A batch whose dictionary holds no value at all: every name NULL.
        let empty = DictionaryArray::<Int32Type>::new(
            Int32Array::from(vec![None, None]),
            Arc::new(StringArray::from(Vec::<&str>::new())),
        );
        let nulls = batch(vec![("name", Arc::new(empty) as ArrayRef)]);
        let out = run_sql(vec![nulls], "SELECT perf_model(name) AS class FROM t").await;
        assert_eq!(string_values(&out, "class"), vec![None, None]);
        let out = run_sql(
            vec![t],
            "SELECT perf_model(name) AS plain,
                    perf_model(arrow_cast(name, 'Dictionary(Int32, Utf8)')) AS dict,
                    arrow_typeof(arrow_cast(name, 'Dictionary(Int32, Utf8)')) AS ty
             FROM t",
        )
        .await;
        let plain = string_values(&out, "plain");
        assert_eq!(plain, string_values(&out, "dict"));
        assert_eq!(plain[0].as_deref(), Some("aten_addmm"));
        assert_eq!(plain[1], None);
        assert_eq!(plain[3], None);
        assert_eq!(
            string_values(&out, "ty")[0].as_deref(),
            Some("Dictionary(Int32, Utf8)")
        );
    }

    /// Rows with the same inputs share one model run per batch, but only rows
    /// equal in everything the model reads: here the kernels differ, and with
    /// them the GEMM's `transpose` param.
    #[tokio::test]
    async fn repeated_inputs_are_modelled_once_yet_per_kernel_list() {
        let bf16 = "c10::BFloat16";
        let rows = 4;
        let t = batch(vec![
            ("name", str_column(&vec![Some("aten::addmm"); rows])),
            (
                "dims",
                str_column(&vec![Some("[[512], [141, 512], [512, 512], [], []]"); rows]),
            ),
            (
                "types",
                str_column(&vec![
                    Some(
                        format!(r#"["{bf16}", "{bf16}", "{bf16}", "Scalar", "Scalar"]"#).as_str()
                    );
                    rows
                ]),
            ),
            (
                "strides",
                str_column(&vec![Some("[[1], [512, 1], [1, 512], [], []]"); rows]),
            ),
            (
                "ci",
                str_column(&vec![Some(r#"["", "", "", "1", "1"]"#); rows]),
            ),
            (
                "kernel",
                str_column(&[
                    Some("nvjet_tst_64x8_64x16_4x1_v_bz_TNT"),
                    Some("plain_kernel"),
                    Some("nvjet_tst_64x8_64x16_4x1_v_bz_TNT"),
                    Some("plain_kernel"),
                ]),
            ),
        ]);
        let out = run_sql(
            vec![t],
            "SELECT op_params(name, dims, types, strides, ci, make_array(kernel), 'fwd', 'tracelens') AS params,
                    op_flops(name, dims, types, strides, ci, make_array(kernel)) AS flops
             FROM t",
        )
        .await;
        let params = string_values(&out, "params");
        assert_eq!(params[0], params[2]);
        assert_eq!(params[1], params[3]);
        assert_ne!(
            params[0], params[1],
            "the transpose param follows the kernels"
        );
        assert!(
            params[0]
                .as_deref()
                .is_some_and(|p| p.contains("transpose")),
            "{params:?}"
        );
        assert_eq!(f64_values(&out, "flops"), vec![Some(73_996_800.0); rows]);
    }

    #[tokio::test]
    async fn sql_op_perf() {
        let bf16 = "c10::BFloat16";
        let t = batch(vec![
            (
                "name",
                str_column(&[
                    Some("aten::addmm"),
                    Some("aten::mm"),
                    Some("aten::gelu"),
                    Some("aten::_scaled_dot_product_flash_attention"),
                    None,
                ]),
            ),
            (
                "dims",
                str_column(&[
                    Some("[[512], [141, 512], [512, 512], [], []]"),
                    Some("[[4, 8]]"),
                    Some("[[4, 8]]"),
                    Some("[[1, 8, 16, 64], [1, 8, 32, 64], [1, 8, 32, 64], [], [], [], []]"),
                    None,
                ]),
            ),
            (
                "types",
                str_column(&[
                    Some(&format!(
                        r#"["{bf16}", "{bf16}", "{bf16}", "Scalar", "Scalar"]"#
                    )),
                    Some(r#"["float"]"#),
                    Some(r#"["float"]"#),
                    Some(&format!(
                        r#"["{bf16}", "{bf16}", "{bf16}", "", "", "", ""]"#
                    )),
                    None,
                ]),
            ),
            (
                "strides",
                str_column(&[
                    Some("[[1], [512, 1], [1, 512], [], []]"),
                    None,
                    None,
                    None,
                    None,
                ]),
            ),
            (
                "ci",
                str_column(&[
                    Some(r#"["", "", "", "1", "1"]"#),
                    Some(r#"[""]"#),
                    Some(r#"[""]"#),
                    Some(r#"["", "", "", "0.", "True", "False", ""]"#),
                    None,
                ]),
            ),
        ]);
        let out = run_sql(
            vec![t],
            "SELECT perf_model(name) AS class,
                    op_perf(name, dims, types, strides, ci, make_array('nvjet_tst_64x8_64x16_4x1_v_bz_TNT'), 'fwd', 'tracelens') AS p,
                    op_perf(name, dims, types, strides, ci, NULL, 'fwd', 'corrected')['flops'] AS corrected_flops,
                    op_flops(name, dims, types, strides, ci) AS flops,
                    op_bytes(name, dims, types, strides, ci) AS bytes,
                    op_params(name, dims, types, strides, ci) AS params,
                    op_perf(name, dims, types, strides, ci, NULL, 'bwd')['error'] AS bwd_error,
                    tflops_per_s(op_flops(name, dims, types, strides, ci), 10) AS tflops
             FROM t",
        )
        .await;
        assert_eq!(
            string_values(&out, "class"),
            vec![
                Some("aten_addmm".into()),
                Some("aten_mm".into()),
                None,
                Some("aten__scaled_dot_product_flash_attention".into()),
                None
            ]
        );
        assert_eq!(
            f64_values(&out, "flops"),
            vec![Some(73_996_800.0), None, None, None, None]
        );
        assert_eq!(
            f64_values(&out, "bytes"),
            vec![Some(814_080.0), None, None, None, None]
        );
        // Causal with N_Q = 16 != N_KV = 32: dropped by the reference, counted when corrected.
        let full = 8.0 * 2.0 * 16.0 * 32.0 * 64.0 * 2.0;
        assert_eq!(
            f64_values(&out, "corrected_flops"),
            vec![
                Some(73_996_800.0),
                None,
                None,
                Some(full * (16.0 * 16.0 / 2.0) / (16.0 * 32.0)),
                None
            ]
        );
        let params = string_values(&out, "params");
        assert_eq!(
            params[0].as_deref(),
            Some(
                "{'M': 141, 'N': 512, 'K': 512, 'bias': True, 'stride_A': (512, 1), \
                 'stride_B': (1, 512), 'dtype_A_B': ('c10::BFloat16', 'c10::BFloat16'), 'B': 1}"
            )
        );
        let bwd_error = string_values(&out, "bwd_error");
        assert!(bwd_error[0]
            .as_deref()
            .unwrap()
            .starts_with("not_implemented:"));
        assert_eq!(
            f64_values(&out, "tflops")[0],
            Some((73_996_800.0 / 1e9 / 1e3) / (10.0 / 1e6))
        );

        // The struct itself: errors and the params list.
        let p = out[0].column_by_name("p").unwrap().as_struct();
        let error = p.column_by_name("error").unwrap().as_string::<i32>();
        assert!(error.is_null(0));
        assert!(error.value(1).starts_with("invalid:"), "{}", error.value(1));
        assert!(error.value(3).starts_with("invalid:"), "{}", error.value(3));
        assert!(p.is_null(2) && p.is_null(4));
        let spec = p.column_by_name("compute_spec").unwrap().as_string::<i32>();
        assert_eq!(spec.value(0), "matrix_bf16");
        let params = p.column_by_name("params").unwrap().as_list::<i32>();
        let first = params.value(0);
        let first = first.as_struct();
        let keys = first.column_by_name("key").unwrap().as_string::<i32>();
        let values = first.column_by_name("value").unwrap().as_string::<i32>();
        let py_str = first.column_by_name("py_str").unwrap().as_string::<i32>();
        let kinds = first.column_by_name("kind").unwrap().as_string::<i32>();
        let keys: Vec<&str> = keys.iter().flatten().collect();
        assert_eq!(
            keys,
            [
                "M",
                "N",
                "K",
                "bias",
                "stride_A",
                "stride_B",
                "dtype_A_B",
                "B",
                "transpose"
            ]
        );
        assert_eq!(values.value(8), "(True, False)");
        assert_eq!(py_str.value(6), "('c10::BFloat16', 'c10::BFloat16')");
        assert_eq!(kinds.value(0), "int");
        assert_eq!(kinds.value(3), "bool");
    }

    #[tokio::test]
    async fn sql_rejects_bad_direction() {
        let ctx = datafusion::prelude::SessionContext::new();
        crate::register_all(&ctx);
        let result = match ctx
            .sql("SELECT op_flops('aten::mm', '[[1,2],[2,3]]', '[\"float\",\"float\"]', NULL, NULL, NULL, 'sideways')")
            .await
        {
            Ok(df) => df.collect().await.map(|_| ()),
            Err(e) => Err(e),
        };
        let err = result.unwrap_err();
        assert!(err.to_string().contains("direction must be"), "{err}");
    }
}
