//! Which report sheets the conformance test checks, and how each is compared
//! (spec: ../shared/spec/tracelens-reports.md §8 for keys and sort orders, §10.3
//! for ties).
//!
//! To check another sheet, add its name to [`SHEETS`]. Every sheet that occurs
//! in the references already has a spec in [`SPECS`] (a unit test makes sure of
//! it), so nothing else is needed unless the spec turns out wrong.

use crate::conformance::compare::{Key, KeyCol, Order, SheetSpec, SortCol};

/// The sheets checked by default (TRACESQL_CONFORMANCE_SHEETS=a,b overrides),
/// in report order.
pub const SHEETS: &[&str] = &[
    "gpu_timeline",
    "ops_summary_by_category",
    "ops_summary",
    "ops_unique_args",
    "unified_perf_summary",
    "GEMM",
    "SDPA_fwd",
    "SDPA_bwd",
    "CONV_fwd",
    "CONV_bwd",
    "BinaryElementwise",
    "UnaryElementwise",
    "Normalization",
    "Reduce_fwd",
    "Reduce_bwd",
    "kernel_summary",
    "short_kernel_histogram",
    "short_kernels_summary",
];

const fn desc(col: &'static str) -> SortCol {
    SortCol { col, desc: true }
}

const fn asc(col: &'static str) -> SortCol {
    SortCol { col, desc: false }
}

use KeyCol::{Col, Prefix};

/// §8.4 / §8.6: the str() group keys of ops_unique_args and unified_perf_summary.
const UNIQUE_ARGS_KEY: &[KeyCol] = &[
    Col("name"),
    Col("op category"),
    Col("process_name"),
    Col("process_label"),
    Col("thread_name"),
    Col("Input Dims"),
    Col("Input type"),
    Col("Input Strides"),
    Col("Concrete Inputs"),
    Col("is_recompute"),
];

/// §8.5: perf sheets group by name + every `param:` column (+ is_recompute).
const PERF_KEY: Key = Key::Columns(&[Col("name"), Prefix("param: "), Col("is_recompute")]);
/// §8.5: `[Kernel Time (µs)_sum desc, UID_first asc]`.
const PERF_ORDER: Order = Order::Sorted(&[desc("Kernel Time (µs)_sum"), asc("UID_first")]);

const fn perf(name: &'static str) -> SheetSpec {
    SheetSpec {
        name,
        key: PERF_KEY,
        order: PERF_ORDER,
    }
}

/// A fwd/bwd perf sheet whose bwd part gets rows moved from the fwd sheet
/// appended at its end (§8.5), so it is not one sorted run: its order is still
/// fully determined.
const fn perf_bwd(name: &'static str) -> SheetSpec {
    SheetSpec {
        name,
        key: PERF_KEY,
        order: Order::Fixed,
    }
}

pub const SPECS: &[SheetSpec] = &[
    // §4.5: fixed row order by metric.
    SheetSpec {
        name: "gpu_timeline",
        key: Key::Columns(&[Col("type"), Col("is_recompute")]),
        order: Order::Fixed,
    },
    // §8.2: single-key quicksort, ties unordered.
    SheetSpec {
        name: "ops_summary_by_category",
        key: Key::Columns(&[Col("op category"), Col("is_recompute")]),
        order: Order::Sorted(&[desc("total_direct_kernel_time_ms")]),
    },
    // §8.3: single-key quicksort, ties unordered.
    SheetSpec {
        name: "ops_summary",
        key: Key::Columns(&[Col("name"), Col("is_recompute")]),
        order: Order::Sorted(&[desc("total_direct_kernel_time_sum")]),
    },
    // §8.4: deterministic two-key sort.
    SheetSpec {
        name: "ops_unique_args",
        key: Key::Columns(UNIQUE_ARGS_KEY),
        order: Order::Sorted(&[desc("total_direct_kernel_time_sum"), asc("ex_UID")]),
    },
    // §8.6
    SheetSpec {
        name: "unified_perf_summary",
        key: Key::Columns(UNIQUE_ARGS_KEY),
        order: Order::Sorted(&[desc("Kernel Time (µs)_sum"), asc("ex_UID")]),
    },
    perf("GEMM"),
    perf("SDPA_fwd"),
    perf_bwd("SDPA_bwd"),
    perf("CONV_fwd"),
    perf_bwd("CONV_bwd"),
    perf("BinaryElementwise"),
    perf("UnaryElementwise"),
    perf("Normalization"),
    perf("Reduce_fwd"),
    perf("Reduce_bwd"),
    // §8.7: single-key quicksort, ties unordered. GPU-only traces lack
    // `Parent cpu_op`; the key then uses the other three columns.
    SheetSpec {
        name: "kernel_summary",
        key: Key::Columns(&[
            Col("Parent op category"),
            Col("Parent cpu_op"),
            Col("Kernel name"),
            Col("Kernel stream"),
        ]),
        order: Order::Sorted(&[desc("Kernel duration (µs)_sum")]),
    },
    // §8.8: bins by position.
    SheetSpec {
        name: "short_kernel_histogram",
        key: Key::Position,
        order: Order::Fixed,
    },
    // §8.8: stable four-key sort; complete ties keep first appearance, which the
    // CSV does not reveal, so they are treated as unordered. GPU-only traces
    // group by `Kernel name` only.
    SheetSpec {
        name: "short_kernels_summary",
        key: Key::Columns(&[
            Col("Parent cpu_op"),
            Col("Input dims"),
            Col("Input strides"),
            Col("Concrete Inputs"),
            Col("Kernel name"),
        ]),
        order: Order::Sorted(&[
            desc("Short Kernel duration (µs) sum"),
            asc("Short Kernel count"),
            asc("Short Kernel duration (µs) mean"),
            asc("Short Kernel duration (µs) percent of total time"),
        ]),
    },
];

pub fn spec(name: &str) -> Option<SheetSpec> {
    SPECS.iter().find(|s| s.name == name).copied()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_listed_sheet_has_a_spec() {
        for name in super::SHEETS {
            assert!(super::spec(name).is_some(), "{name}");
        }
    }
}
