//! `tracesql-udfs`: the numeric building blocks of tracesql's reports.
//!
//! This crate knows nothing about trace files: it offers interval algebra over GPU
//! activity, numpy-exact statistics and Python-exact formatting, as plain Rust and
//! as DataFusion functions, so it can be used from any DataFusion session.
//!
//! SQL functions: [`register_all`] registers them all; [`FUNCTIONS`] documents
//! each (tracesql lists them in its `tracesql_functions` table).
//!
//! The perf models themselves are plain Rust in [`perf`].

pub mod busy_time;
pub mod compat;
pub mod dag_longest_path;
mod filter;
pub mod histogram;
pub mod interval_stack_walk;
mod interval_state;
pub mod intervals;
pub mod json_get;
pub mod json_object;
mod kept_rows;
pub mod kernel_stats;
mod nested;
pub mod np_round;
pub mod numpy;
pub mod ordered_array_agg;
pub mod perf;
pub mod py_format;
pub mod py_kernel_details;
pub mod py_repr;
pub mod py_str_list;
pub mod pyfmt;
pub mod roofline;
pub mod sdpa_metrics;
pub mod setting;
pub mod shipping;
pub mod trace_run;
pub mod uncovered_time;

#[cfg(test)]
mod test_util;

use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datafusion::prelude::SessionContext;

pub use pyfmt::{python_float_repr, whole_number};

/// `text` quoted for a one-line error message: whole when short, else its first
/// 80 characters, `...` and its length in bytes (a JSON value or key can be
/// megabytes long).
pub fn quoted_start(text: &str) -> String {
    const SHOWN: usize = 80;
    match text.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("{:?}... ({} bytes)", &text[..end], text.len()),
        None => format!("{text:?}"),
    }
}

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

/// One SQL function of this crate: how it is called, its kind and what it returns.
#[derive(Debug, Clone, Copy)]
pub struct FunctionDoc {
    /// The call, e.g. `busy_time(ts DOUBLE, t_end DOUBLE)`; several functions of
    /// one family may share an entry (`op_flops(…)`, `op_bytes(…)`, ...).
    pub usage: &'static str,
    /// `scalar`, `aggregate` or `table`.
    pub kind: &'static str,
    pub returns: &'static str,
}

impl FunctionDoc {
    /// Whether this entry documents the function `name`.
    pub fn documents(&self, name: &str) -> bool {
        self.usage.split(", ").any(|call| {
            call.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('('))
        })
    }
}

/// Every function [`register_all`] registers, in the order of the crate docs.
pub const FUNCTIONS: &[FunctionDoc] = &[
    FunctionDoc {
        usage: "tracelens_compat()",
        kind: "scalar",
        returns: "BOOLEAN true when the session reproduces TraceLens exactly (--tracelens-compat)",
    },
    FunctionDoc {
        usage: "setting(name UTF8, default UTF8)",
        kind: "scalar",
        returns: "UTF8 the value of `--set name=value`, else default (report options)",
    },
    FunctionDoc {
        usage: "trace_run(trace)",
        kind: "scalar",
        returns: "UTF8 the run a dataset's trace was appended under (export --append --run), NULL outside a run; WHERE trace_run(trace) = 'R' reads only that run's files",
    },
    FunctionDoc {
        usage: "busy_time(ts DOUBLE, t_end DOUBLE)",
        kind: "aggregate",
        returns: "DOUBLE union length",
    },
    FunctionDoc {
        usage: "uncovered_time(ts DOUBLE, t_end DOUBLE, is_target BOOLEAN)",
        kind: "aggregate",
        returns: "DOUBLE target time not under the others",
    },
    FunctionDoc {
        usage: "histogram(value DOUBLE, bins BIGINT)",
        kind: "aggregate",
        returns: "LIST<STRUCT<bin_start, bin_end, count>>",
    },
    FunctionDoc {
        usage: "dag_longest_path(src BIGINT, dst BIGINT, weight DOUBLE, ord BIGINT)",
        kind: "aggregate",
        returns: "LIST<STRUCT<step, src, dst, weight, ord>> the longest path of the graph of the edges, added in ord order, as networkx's dag_longest_path finds it (ties included); a cycle is an error",
    },
    FunctionDoc {
        usage: "interval_stack_walk(uid BIGINT, ts DOUBLE, t_end DOUBLE)",
        kind: "aggregate",
        returns: "LIST<STRUCT<pos, is_start, uid, parent, depth>> one thread's events as HTA's call stack walks them: each start (its parent) and end (the event it leaves: the one on top of the stack)",
    },
    FunctionDoc {
        usage: "array_agg(value ORDER BY …)",
        kind: "aggregate",
        returns: "DataFusion's, with a faster grouped path for ORDER BY (see ordered_array_agg)",
    },
    FunctionDoc {
        usage: "kernel_stats(order_key DOUBLE, kernels LIST<STRUCT<name, dur, stream>>)",
        kind: "aggregate",
        returns: "LIST<STRUCT<name, stream, count, total_duration_us, …>>",
    },
    FunctionDoc {
        usage: "json_get_float(json UTF8, key UTF8), json_get_int(json UTF8, key UTF8), json_get_str(json UTF8, key UTF8)",
        kind: "scalar",
        returns: "DOUBLE / BIGINT / UTF8 the field `key` of a JSON object held as text (events.args); NULL when absent or of another kind",
    },
    FunctionDoc {
        usage: "np_round(x DOUBLE, decimals BIGINT)",
        kind: "scalar",
        returns: "DOUBLE numpy's round: half to even (0.25 → 0.2)",
    },
    FunctionDoc {
        usage: "py_format(value BIGINT|DOUBLE, spec UTF8)",
        kind: "scalar",
        returns: "UTF8 Python's format(value, spec) for .Nf / >Nd specs; spec 'human_ns': TraceLens's \"1.234 ms\" / \"5.000 μs\" / \"12 ns\"",
    },
    FunctionDoc {
        usage: "py_repr(json UTF8)",
        kind: "scalar",
        returns: "UTF8 Python text of a JSON value",
    },
    FunctionDoc {
        usage: "py_str_list(LIST<UTF8>)",
        kind: "scalar",
        returns: "UTF8 Python list of strings",
    },
    FunctionDoc {
        usage: "py_kernel_details(kernel_stats result [, integer_times BOOLEAN])",
        kind: "scalar",
        returns: "UTF8 kernel_details_summary cell",
    },
    FunctionDoc {
        usage: "py_trunc_kernel_details(kernel_stats result)",
        kind: "scalar",
        returns: "UTF8 trunc_kernel_details cell",
    },
    FunctionDoc {
        usage: "perf_model(name UTF8)",
        kind: "scalar",
        returns: "UTF8 perf-model class of an op, NULL without one",
    },
    FunctionDoc {
        usage: "op_perf(name, dims, types, strides, concrete [, kernel_names, direction, semantics])",
        kind: "scalar",
        returns: "STRUCT<model_class, flops, bytes, compute_spec, params, error>",
    },
    FunctionDoc {
        usage: "op_flops(…), op_bytes(…), op_params(…)",
        kind: "scalar",
        returns: "DOUBLE, DOUBLE, UTF8 Python dict",
    },
    FunctionDoc {
        usage: "sdpa_flops(b, n_q, h_q, n_kv, h_kv, d_qk, d_v, causal, flash_impl, direction [, semantics, bottom_right]), sdpa_bytes(b, n_q, h_q, n_kv, h_kv, d_qk, d_v, bpe, direction)",
        kind: "scalar",
        returns: "DOUBLE attention FLOPs / bytes of the SDPA model (fwd or bwd), NULL when invalid",
    },
    FunctionDoc {
        usage: "tflops_per_s(flops, kernel_us), tb_per_s(bytes, kernel_us), flops_per_byte(flops, bytes)",
        kind: "scalar",
        returns: "DOUBLE",
    },
    FunctionDoc {
        usage: "perf_param(params, key), perf_param_keys(params [, prefix])",
        kind: "scalar",
        returns: "UTF8 one param: cell, LIST<UTF8> the keys",
    },
    FunctionDoc {
        usage: "json_object(key, value, …)",
        kind: "scalar",
        returns: "UTF8 JSON object of the pairs, escaped; NULL / NaN / ±inf values are null",
    },
    FunctionDoc {
        usage: "py_json(json UTF8)",
        kind: "scalar",
        returns: "UTF8 Python str() of a JSON value (lists stay lists)",
    },
    FunctionDoc {
        usage: "perf_op_registry()",
        kind: "table",
        returns: "the op registry (name, family, model_class, category, bwd_category, family_order, is_extension) of perf::registry",
    },
    FunctionDoc {
        usage: "roofline_bound(flops, bytes, platform, spec)",
        kind: "scalar",
        returns: "UTF8 COMPUTE_BOUND / MEMORY_BOUND",
    },
    FunctionDoc {
        usage: "roofline_time_us(flops, bytes, platform, spec)",
        kind: "scalar",
        returns: "DOUBLE µs at the roofline",
    },
    FunctionDoc {
        usage: "roofline_efficiency(flops, bytes, kernel_us, platform, spec)",
        kind: "scalar",
        returns: "DOUBLE % of the roofline reached",
    },
];

/// Registers every function (and the table function `perf_op_registry`) of this
/// crate with `ctx` (replacing any of the same name);
/// the roofline functions know the built-in platforms.
pub fn register_all(ctx: &SessionContext) {
    register_roofline(ctx, std::sync::Arc::new(roofline::builtin_platforms()));
    compat::register(ctx, false);
    setting::register(ctx, std::collections::BTreeMap::new());
    trace_run::register(ctx, std::collections::BTreeMap::new());
    ctx.register_udaf(AggregateUDF::from(busy_time::BusyTime::new()));
    // Replaces the built-in `array_agg` (same results, faster with ORDER BY).
    ctx.register_udaf(AggregateUDF::from(ordered_array_agg::OrderedArrayAgg::new()));
    ctx.register_udaf(AggregateUDF::from(uncovered_time::UncoveredTime::new()));
    ctx.register_udaf(AggregateUDF::from(histogram::Histogram::new()));
    ctx.register_udaf(dag_longest_path::udaf());
    ctx.register_udaf(interval_stack_walk::udaf());
    ctx.register_udaf(AggregateUDF::from(kernel_stats::KernelStatsUdaf::new()));
    ctx.register_udf(ScalarUDF::from(json_object::JsonObject::new()));
    for kind in [
        json_get::JsonKind::Float,
        json_get::JsonKind::Int,
        json_get::JsonKind::Str,
    ] {
        ctx.register_udf(ScalarUDF::from(json_get::JsonGet::new(kind)));
    }
    ctx.register_udf(ScalarUDF::from(np_round::NpRound::new()));
    ctx.register_udf(ScalarUDF::from(py_format::PyFormat::new()));
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
    for output in [
        sdpa_metrics::SdpaOutput::Flops,
        sdpa_metrics::SdpaOutput::Bytes,
    ] {
        ctx.register_udf(ScalarUDF::from(sdpa_metrics::SdpaMetrics::new(output)));
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

#[cfg(test)]
mod function_docs {
    use super::*;

    /// Every function `register_all` adds is documented in [`FUNCTIONS`].
    #[test]
    fn every_registered_function_is_documented() {
        let ctx = datafusion::prelude::SessionContext::new();
        let plain = datafusion::prelude::SessionContext::new().state();
        register_all(&ctx);
        let state = ctx.state();
        let mut names: Vec<&String> = state.scalar_functions().keys().collect();
        names.extend(state.aggregate_functions().keys());
        names.extend(state.table_functions().keys());
        let added = names.into_iter().filter(|n| {
            !plain.scalar_functions().contains_key(*n)
                && !plain.aggregate_functions().contains_key(*n)
                && !plain.table_functions().contains_key(*n)
        });
        let mut checked = 0;
        for name in added {
            assert!(
                FUNCTIONS.iter().any(|f| f.documents(name)),
                "{name} is registered but not in FUNCTIONS"
            );
            checked += 1;
        }
        assert!(checked >= 20, "{checked}");
        assert!(FUNCTIONS.iter().any(|f| f.documents("op_bytes")));
        assert!(!FUNCTIONS.iter().any(|f| f.documents("op")));
    }
}
