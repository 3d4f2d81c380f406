//! `tracesql-udfs`: the numeric building blocks of tracesql's reports.
//!
//! This crate knows nothing about trace files: it offers interval algebra over GPU
//! activity, numpy-exact statistics and Python-exact formatting, as plain Rust and
//! as DataFusion functions, so it can be used from any DataFusion session.
//!
//! SQL functions ([`register_all`] registers them all):
//!
//! | function | kind | returns |
//! |---|---|---|
//! | `busy_time(ts DOUBLE, t_end DOUBLE)` | aggregate | `DOUBLE` union length |
//! | `uncovered_time(ts DOUBLE, t_end DOUBLE, is_target BOOLEAN)` | aggregate | `DOUBLE` target time not under the others |
//! | `histogram(value DOUBLE, bins BIGINT)` | aggregate | `LIST<STRUCT<bin_start, bin_end, count>>` |
//! | `array_agg(value ORDER BY …)` | aggregate | DataFusion's, with a faster grouped path for ORDER BY ([`ordered_array_agg`]) |
//! | `kernel_stats(order_key DOUBLE, kernels LIST<STRUCT<name, dur, stream>>)` | aggregate | `LIST<STRUCT<name, stream, count, total_duration_us, …>>` |
//! | `py_repr(json UTF8)` | scalar | `UTF8` Python text of a JSON value |
//! | `py_str_list(LIST<UTF8>)` | scalar | `UTF8` Python list of strings |
//! | `py_kernel_details(kernel_stats result)` | scalar | `UTF8` kernel_details_summary cell |
//! | `py_trunc_kernel_details(kernel_stats result)` | scalar | `UTF8` trunc_kernel_details cell |
//! | `perf_model(name UTF8)` | scalar | `UTF8` perf-model class of an op, NULL without one |
//! | `op_perf(name, dims, types, strides, concrete [, kernel_names, direction, semantics])` | scalar | `STRUCT<model_class, flops, bytes, compute_spec, params, error>` |
//! | `op_flops(…)`, `op_bytes(…)`, `op_params(…)` | scalar | `DOUBLE`, `DOUBLE`, `UTF8` Python dict |
//! | `tflops_per_s(flops, kernel_us)`, `tb_per_s(bytes, kernel_us)`, `flops_per_byte(flops, bytes)` | scalar | `DOUBLE` |
//! | `perf_param(params, key)`, `perf_param_keys(params [, prefix])` | scalar | `UTF8` one `param:` cell, `LIST<UTF8>` the keys |
//! | `json_object(key, value, …)` | scalar | `UTF8` JSON object of the pairs, escaped; NULL / NaN / ±inf values are `null` |
//! | `py_json(json UTF8)` | scalar | `UTF8` Python `str()` of a JSON value (lists stay lists) |
//! | `perf_op_registry()` | table | the op registry (name, family, model_class, category, bwd_category, family_order, is_extension) of [`perf::registry`] |
//! | `roofline_bound(flops, bytes, platform, spec)` | scalar | `UTF8` COMPUTE_BOUND / MEMORY_BOUND |
//! | `roofline_time_us(flops, bytes, platform, spec)` | scalar | `DOUBLE` µs at the roofline |
//! | `roofline_efficiency(flops, bytes, kernel_us, platform, spec)` | scalar | `DOUBLE` % of the roofline reached |
//!
//! The perf models themselves are plain Rust in [`perf`].

pub mod busy_time;
mod filter;
pub mod histogram;
mod interval_state;
pub mod intervals;
pub mod json_object;
pub mod kernel_stats;
mod nested;
pub mod numpy;
pub mod ordered_array_agg;
pub mod perf;
pub mod py_kernel_details;
pub mod py_repr;
pub mod py_str_list;
pub mod pyfmt;
pub mod roofline;
pub mod uncovered_time;

#[cfg(test)]
mod test_util;

use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datafusion::prelude::SessionContext;

pub use pyfmt::python_float_repr;

/// Registers the roofline functions for `platforms` (replacing earlier ones), so a
/// session can change its platform list (`--platforms FILE`).
pub fn register_roofline(ctx: &SessionContext, platforms: std::sync::Arc<Vec<roofline::Platform>>) {
    for output in [
        roofline::RooflineOutput::Bound,
        roofline::RooflineOutput::TimeUs,
        roofline::RooflineOutput::Efficiency,
    ] {
        ctx.register_udf(ScalarUDF::from(roofline::RooflineUdf::new(
            output,
            platforms.clone(),
        )));
    }
}

/// Registers every function (and the table function `perf_op_registry`) of this
/// crate with `ctx` (replacing any of the same name);
/// the roofline functions know the built-in platforms.
pub fn register_all(ctx: &SessionContext) {
    register_roofline(ctx, std::sync::Arc::new(roofline::builtin_platforms()));
    ctx.register_udaf(AggregateUDF::from(busy_time::BusyTime::new()));
    // Replaces the built-in `array_agg` (same results, faster with ORDER BY).
    ctx.register_udaf(AggregateUDF::from(ordered_array_agg::OrderedArrayAgg::new()));
    ctx.register_udaf(AggregateUDF::from(uncovered_time::UncoveredTime::new()));
    ctx.register_udaf(AggregateUDF::from(histogram::Histogram::new()));
    ctx.register_udaf(AggregateUDF::from(kernel_stats::KernelStatsUdaf::new()));
    ctx.register_udf(ScalarUDF::from(json_object::JsonObject::new()));
    ctx.register_udf(ScalarUDF::from(py_repr::PyRepr::new()));
    ctx.register_udf(ScalarUDF::from(py_str_list::PyStrList::new()));
    ctx.register_udf(ScalarUDF::from(py_kernel_details::PyKernelDetails::new()));
    ctx.register_udf(ScalarUDF::from(
        py_kernel_details::PyTruncKernelDetails::new(),
    ));
    ctx.register_udf(ScalarUDF::from(perf::udf::PerfModelUdf::new()));
    for output in [
        perf::udf::OpOutput::Perf,
        perf::udf::OpOutput::Flops,
        perf::udf::OpOutput::Bytes,
        perf::udf::OpOutput::Params,
    ] {
        ctx.register_udf(ScalarUDF::from(perf::udf::OpPerfUdf::new(output)));
    }
    for rate in [
        perf::udf::Rate::TflopsPerS,
        perf::udf::Rate::TbPerS,
        perf::udf::Rate::FlopsPerByte,
    ] {
        ctx.register_udf(ScalarUDF::from(perf::udf::RateUdf::new(rate)));
    }
    perf::sheet::register(ctx);
    ctx.register_udtf(
        "perf_op_registry",
        std::sync::Arc::new(perf::registry::OpRegistryFunction),
    );
}

/// Whether a function argument of type `t` reads as text: any string flavour, a
/// dictionary of strings (tracesql's tables dictionary-encode repeated names,
/// categories and shapes), or NULL. Such arguments are coerced to `Utf8`.
pub(crate) fn is_text(t: &datafusion::arrow::datatypes::DataType) -> bool {
    use datafusion::arrow::datatypes::DataType;
    match t {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Null => true,
        DataType::Dictionary(_, value) => is_text(value),
        _ => false,
    }
}
