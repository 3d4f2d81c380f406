//! `py_kernel_details(stats)` and `py_trunc_kernel_details(stats)`: the
//! `kernel_details_summary` / `kernel_details__summarize_kernel_stats` and
//! `trunc_kernel_details` cells, printed exactly as TraceLens writes them.
//!
//! Why: those cells are `str()` of a Python list of dicts holding numpy scalars
//! (spec §8.10, §10.4). The regression test compares them after literal parsing, and
//! byte parity needs the same key order, quoting and `np.float64(…)` wrapping:
//!
//! ```text
//! [{'name': 'void cutlass::Kernel2<…>', 'stream': 7, 'count': 17,
//!   'total_duration_us': np.float64(98.718), 'mean_duration_us': np.float64(5.8069411764705885),
//!   'median_duration_us': np.float64(5.792), 'std_dev_duration_us': np.float64(0.11144002374700734),
//!   'min_duration_us': np.float64(5.633), 'max_duration_us': np.float64(6.08)}]
//! [{'name': '<first 64 characters>...', 'stream': 7, 'mean_duration_us': np.float64(5.81)}]
//! ```
//!
//! ```sql
//! SELECT py_kernel_details(s) AS kernel_details_summary,
//!        py_trunc_kernel_details(s) AS trunc_kernel_details
//! FROM (SELECT kernel_stats(uid, kernel_details) AS s FROM launchers GROUP BY name)
//! ```

use std::fmt::Write;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type};
use datafusion::common::{plan_err, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

use crate::kernel_stats::KernelStats;
use crate::nested::{child, coerce_list_of_structs, list_of_structs, required_child};
use crate::numpy;
use crate::pyfmt::{numpy_float64_repr, python_str_repr};

/// Names longer than this are cut in `trunc_kernel_details`.
const TRUNC_LENGTH: usize = 64;

/// `str()` of a `kernel_details` summary list: `[{'name': …, 'stream': …, 'count': …,
/// 'total_duration_us': np.float64(…), …}, …]`. An empty list prints `[]`.
///
/// Statistics that are `None` are left out of the dict, as TraceLens does when a
/// position collected no durations; a `None` stream prints `None`.
///
/// With `integer_times` (the trace writes its times as integers) the total,
/// minimum and maximum print as `np.int64(…)` when whole, as numpy keeps the
/// int64 of integer durations; mean, median and std are floats either way.
pub fn render_kernel_details(entries: &[KernelStats], integer_times: bool) -> String {
    let exact = |v: f64| match crate::pyfmt::whole_number(v).filter(|_| integer_times) {
        Some(n) => format!("np.int64({n})"),
        None => numpy_float64_repr(v),
    };
    let mut out = String::from("[");
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write!(
            out,
            "{{'name': {}, 'stream': {}, 'count': {}, 'total_duration_us': {}",
            python_str_repr(&e.name),
            python_int(e.stream),
            e.count,
            exact(e.total_duration_us)
        )
        .expect("String write");
        let stats = [
            ("mean_duration_us", e.mean_duration_us, false),
            ("median_duration_us", e.median_duration_us, false),
            ("std_dev_duration_us", e.std_dev_duration_us, false),
            ("min_duration_us", e.min_duration_us, true),
            ("max_duration_us", e.max_duration_us, true),
        ];
        for (key, value, keeps_type) in stats {
            if let Some(v) = value {
                let text = if keeps_type {
                    exact(v)
                } else {
                    numpy_float64_repr(v)
                };
                write!(out, ", '{key}': {text}").expect("String write");
            }
        }
        out.push('}');
    }
    out.push(']');
    out
}

/// `str()` of `trunc_kernel_details`: per entry the name cut to 64 characters (plus
/// `...` when longer), the stream, and the mean rounded by numpy to 2 decimals.
/// `None` for an empty summary, as in TraceLens.
pub fn render_trunc_kernel_details(entries: &[KernelStats]) -> Option<String> {
    if entries.is_empty() {
        return None;
    }
    let rendered: Vec<String> = entries
        .iter()
        .map(|e| {
            let name = if e.name.chars().count() > TRUNC_LENGTH {
                let cut: String = e.name.chars().take(TRUNC_LENGTH).collect();
                cut + "..."
            } else {
                e.name.clone()
            };
            // A missing mean is `round(0, 2)` of the default int 0: prints `0`.
            let mean = match e.mean_duration_us {
                Some(m) => numpy_float64_repr(numpy::round(m, 2)),
                None => "0".to_string(),
            };
            format!(
                "{{'name': {}, 'stream': {}, 'mean_duration_us': {mean}}}",
                python_str_repr(&name),
                python_int(e.stream)
            )
        })
        .collect();
    Some(format!("[{}]", rendered.join(", ")))
}

fn python_int(v: Option<i64>) -> String {
    v.map_or_else(|| "None".to_string(), |v| v.to_string())
}

/// Reads a `kernel_stats` result column: one summary per row, `None` for NULL rows.
fn decode_stats(function: &str, array: &ArrayRef) -> Result<Vec<Option<Vec<KernelStats>>>> {
    let (lists, structs) = list_of_structs(function, array)?;
    let names = required_child(function, structs, "name", &DataType::Utf8)?;
    let names = names.as_string::<i32>();
    let int = |name: &str| child(structs, name, &DataType::Int64);
    let float = |name: &str| child(structs, name, &DataType::Float64);
    let (stream, count) = (int("stream")?, int("count")?);
    let floats = [
        float("total_duration_us")?,
        float("mean_duration_us")?,
        float("median_duration_us")?,
        float("std_dev_duration_us")?,
        float("min_duration_us")?,
        float("max_duration_us")?,
    ];
    let get_i = |a: &Option<ArrayRef>, j: usize| {
        a.as_ref().and_then(|a| {
            let a = a.as_primitive::<Int64Type>();
            a.is_valid(j).then(|| a.value(j))
        })
    };
    let get_f = |k: usize, j: usize| {
        floats[k].as_ref().and_then(|a| {
            let a = a.as_primitive::<Float64Type>();
            a.is_valid(j).then(|| a.value(j))
        })
    };
    let offsets = lists.value_offsets();
    let mut out = Vec::with_capacity(lists.len());
    for row in 0..lists.len() {
        if lists.is_null(row) {
            out.push(None);
            continue;
        }
        let range = offsets[row] as usize..offsets[row + 1] as usize;
        let entries = range
            .filter(|&j| structs.is_valid(j))
            .map(|j| KernelStats {
                name: names
                    .is_valid(j)
                    .then(|| names.value(j))
                    .unwrap_or_default()
                    .to_string(),
                stream: get_i(&stream, j),
                count: get_i(&count, j).unwrap_or(0),
                total_duration_us: get_f(0, j).unwrap_or(0.0),
                mean_duration_us: get_f(1, j),
                median_duration_us: get_f(2, j),
                std_dev_duration_us: get_f(3, j),
                min_duration_us: get_f(4, j),
                max_duration_us: get_f(5, j),
            })
            .collect();
        out.push(Some(entries));
    }
    Ok(out)
}

/// Shared body of the two functions: decode each row and render it; the
/// optional second argument is the `integer_times` flag (see
/// [`render_kernel_details`]), NULL or absent meaning false.
fn invoke(
    function: &str,
    args: ScalarFunctionArgs,
    render: fn(&[KernelStats], bool) -> Option<String>,
) -> Result<ColumnarValue> {
    let input = args.args[0].to_array(args.number_rows)?;
    let flags = match args.args.get(1) {
        Some(flag) => Some(flag.to_array(args.number_rows)?),
        None => None,
    };
    let flags = flags.as_ref().map(|f| f.as_boolean());
    let mut out = StringBuilder::new();
    for (row, summary) in decode_stats(function, &input)?.into_iter().enumerate() {
        let integer = flags.is_some_and(|f| f.is_valid(row) && f.value(row));
        out.append_option(summary.as_deref().and_then(|s| render(s, integer)));
    }
    Ok(ColumnarValue::Array(Arc::new(out.finish()) as ArrayRef))
}

fn coerce(function: &str, arg_types: &[DataType], required: &[&str]) -> Result<Vec<DataType>> {
    match arg_types {
        [arg] => Ok(vec![coerce_list_of_structs(function, arg, required)?]),
        [arg, flag] if matches!(flag, DataType::Boolean | DataType::Null) => Ok(vec![
            coerce_list_of_structs(function, arg, required)?,
            DataType::Boolean,
        ]),
        [_, flag] => plan_err!("{function}: integer_times must be a boolean, got {flag}"),
        _ => plan_err!(
            "{function} takes 1 or 2 arguments (stats [, integer_times]), got {}",
            arg_types.len()
        ),
    }
}

/// `py_kernel_details(LIST<STRUCT<name, stream, count, total_duration_us, …>>
/// [, integer_times BOOLEAN]) -> UTF8`: the `kernel_details_summary` cell for a
/// [`crate::kernel_stats`] result (integer_times: see [`render_kernel_details`]).
///
/// An empty list prints `[]` (as the reference does for ops without kernels); a
/// NULL list gives NULL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PyKernelDetails {
    signature: Signature,
}

impl PyKernelDetails {
    pub fn new() -> Self {
        Self {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl Default for PyKernelDetails {
    fn default() -> Self {
        Self::new()
    }
}

impl ScalarUDFImpl for PyKernelDetails {
    fn name(&self) -> &str {
        "py_kernel_details"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        coerce(
            self.name(),
            arg_types,
            &["name", "count", "total_duration_us"],
        )
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        invoke(self.name(), args, |entries, integer_times| {
            Some(render_kernel_details(entries, integer_times))
        })
    }
}

/// `py_trunc_kernel_details(LIST<STRUCT<name, stream, mean_duration_us, …>>) -> UTF8`:
/// the `trunc_kernel_details` cell for a [`crate::kernel_stats`] result.
///
/// An empty or NULL list gives NULL (TraceLens's `None`, an empty cell).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PyTruncKernelDetails {
    signature: Signature,
}

impl PyTruncKernelDetails {
    pub fn new() -> Self {
        Self {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl Default for PyTruncKernelDetails {
    fn default() -> Self {
        Self::new()
    }
}

impl ScalarUDFImpl for PyTruncKernelDetails {
    fn name(&self) -> &str {
        "py_trunc_kernel_details"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        coerce(self.name(), arg_types, &["name"])
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        invoke(self.name(), args, |entries, _| {
            render_trunc_kernel_details(entries)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_stats::{summarize_kernel_stats, Kernel};
    use crate::test_util::{batch, f64_column, i64_column, run_sql, str_column, string_values};

    const CUTLASS: &str = "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)";

    /// bert-small on H100, ops_unique_args row 1: both cells, byte for byte.
    #[test]
    fn matches_the_bert_small_addmm_reference_cells() {
        let durs = [
            5.824, 5.727, 5.887, 5.664, 5.824, 5.792, 5.952, 5.888, 5.792, 5.728, 5.663, 5.76,
            5.92, 5.76, 5.633, 5.824, 6.08,
        ];
        let instances: Vec<_> = durs
            .iter()
            .map(|&d| {
                Some(vec![Kernel {
                    name: CUTLASS.into(),
                    dur: Some(d),
                    stream: Some(7),
                }])
            })
            .collect();
        let summary = summarize_kernel_stats(&instances);
        assert_eq!(
            render_kernel_details(&summary, false),
            format!(
                "[{{'name': '{CUTLASS}', 'stream': 7, 'count': 17, \
                 'total_duration_us': np.float64(98.718), \
                 'mean_duration_us': np.float64(5.8069411764705885), \
                 'median_duration_us': np.float64(5.792), \
                 'std_dev_duration_us': np.float64(0.11144002374700734), \
                 'min_duration_us': np.float64(5.633), 'max_duration_us': np.float64(6.08)}}]"
            )
        );
        assert_eq!(
            render_trunc_kernel_details(&summary).unwrap(),
            "[{'name': 'void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_...', \
             'stream': 7, 'mean_duration_us': np.float64(5.81)}]"
        );
    }

    fn entry(name: &str, mean: Option<f64>) -> KernelStats {
        KernelStats {
            name: name.into(),
            stream: None,
            count: 2,
            total_duration_us: 1.5,
            mean_duration_us: mean,
            median_duration_us: mean,
            std_dev_duration_us: None,
            min_duration_us: None,
            max_duration_us: None,
        }
    }

    #[test]
    fn short_names_none_streams_and_missing_statistics() {
        let e = [entry("Memset (Device)", Some(0.828125)), entry("k", None)];
        assert_eq!(
            render_kernel_details(&e, false),
            "[{'name': 'Memset (Device)', 'stream': None, 'count': 2, \
             'total_duration_us': np.float64(1.5), 'mean_duration_us': np.float64(0.828125), \
             'median_duration_us': np.float64(0.828125)}, \
             {'name': 'k', 'stream': None, 'count': 2, 'total_duration_us': np.float64(1.5)}]"
        );
        assert_eq!(
            render_trunc_kernel_details(&e).unwrap(),
            "[{'name': 'Memset (Device)', 'stream': None, 'mean_duration_us': np.float64(0.83)}, \
             {'name': 'k', 'stream': None, 'mean_duration_us': 0}]"
        );
        assert_eq!(render_kernel_details(&[], false), "[]");
        assert_eq!(render_trunc_kernel_details(&[]), None);
        // Exactly 64 characters: kept whole.
        let n64 = "x".repeat(64);
        assert!(render_trunc_kernel_details(&[entry(&n64, Some(1.0))])
            .unwrap()
            .contains(&format!("'{n64}'")));
    }

    /// A trace with integer times: total, min and max stay numpy ints (whole
    /// values only), mean/median/std floats, as TraceLens prints them.
    #[test]
    fn integer_times_keep_sums_and_extremes_integer() {
        let mut e = entry("k", Some(41.333333333333336));
        e.total_duration_us = 124.0;
        e.count = 3;
        e.stream = Some(7);
        e.median_duration_us = Some(41.0);
        e.min_duration_us = Some(40.0);
        e.max_duration_us = Some(43.5);
        assert_eq!(
            render_kernel_details(std::slice::from_ref(&e), true),
            "[{'name': 'k', 'stream': 7, 'count': 3, 'total_duration_us': np.int64(124), \
             'mean_duration_us': np.float64(41.333333333333336), \
             'median_duration_us': np.float64(41.0), 'min_duration_us': np.int64(40), \
             'max_duration_us': np.float64(43.5)}]"
        );
        assert!(
            render_kernel_details(&[e], false).contains("'total_duration_us': np.float64(124.0)")
        );
    }

    #[tokio::test]
    async fn sql_renders_kernel_stats_results() {
        let t = batch(vec![
            ("g", i64_column(&[1, 1, 2])),
            ("uid", i64_column(&[1, 2, 3])),
            ("name", str_column(&[Some("k"), Some("k"), Some("it's")])),
            ("dur", f64_column(&[2.675, 2.675, 1.0])),
            ("stream", i64_column(&[7, 7, 0])),
        ]);
        let sql = "WITH inst AS ( \
                     SELECT g, uid, [named_struct('name', name, 'dur', dur, 'stream', stream)] AS kd \
                     FROM t), \
                   s AS (SELECT g, kernel_stats(uid, kd) AS s FROM inst GROUP BY g \
                         UNION ALL SELECT 3, kernel_stats(uid, kd) FROM inst WHERE uid > 100) \
                   SELECT g, py_kernel_details(s) AS full, py_trunc_kernel_details(s) AS trunc \
                   FROM s ORDER BY g";
        let out = run_sql(vec![t], sql).await;
        assert_eq!(
            string_values(&out, "full"),
            vec![
                Some(
                    "[{'name': 'k', 'stream': 7, 'count': 2, \
                     'total_duration_us': np.float64(5.35), 'mean_duration_us': np.float64(2.675), \
                     'median_duration_us': np.float64(2.675), \
                     'std_dev_duration_us': np.float64(0.0), \
                     'min_duration_us': np.float64(2.675), 'max_duration_us': np.float64(2.675)}]"
                        .into()
                ),
                Some(
                    "[{'name': \"it's\", 'stream': 0, 'count': 1, \
                     'total_duration_us': np.float64(1.0), 'mean_duration_us': np.float64(1.0), \
                     'median_duration_us': np.float64(1.0), \
                     'std_dev_duration_us': np.float64(0.0), \
                     'min_duration_us': np.float64(1.0), 'max_duration_us': np.float64(1.0)}]"
                        .into()
                ),
                Some("[]".into()),
            ]
        );
        // numpy rounds 2.675 to 2.68 (Python's round would give 2.67).
        assert_eq!(
            string_values(&out, "trunc"),
            vec![
                Some("[{'name': 'k', 'stream': 7, 'mean_duration_us': np.float64(2.68)}]".into()),
                Some(
                    "[{'name': \"it's\", 'stream': 0, 'mean_duration_us': np.float64(1.0)}]".into()
                ),
                None,
            ]
        );
    }
}
