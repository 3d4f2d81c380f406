//! `kernel_stats(order_key, kernels)`: TraceLens's `kernel_details` summary of a
//! group of op instances (spec §8.10).
//!
//! Why an aggregate of its own: the summary is positional, not by kernel name. The
//! first non-empty instance is the template; the k-th kernel of every instance with
//! the template's length feeds the k-th entry; instances of another length are
//! skipped. Statistics use numpy's arithmetic ([`crate::numpy`]) because the cells
//! are compared exactly, and entries are sorted by `(total_duration_us, name)`.
//!
//! ```sql
//! SELECT name, py_kernel_details(kernel_stats(uid, kernel_details)) AS kernel_details_summary
//! FROM launchers GROUP BY name
//! ```

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Array, Float64Builder, Int64Array, Int64Builder, ListArray,
    StringBuilder, StructArray,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields, Float64Type, Int64Type};
use datafusion::common::utils::SingleRowListArrayBuilder;
use datafusion::common::{exec_err, plan_err, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::{format_state_name, AggregateOrderSensitivity};
use datafusion::logical_expr::{Accumulator, AggregateUDFImpl, Signature, Volatility};

use crate::nested::{child, coerce_list_of_structs, list_of_structs, required_child};
use crate::numpy;

/// One kernel launched by one op instance.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    pub name: String,
    /// µs; a kernel without a duration is left out of the statistics.
    pub dur: Option<f64>,
    pub stream: Option<i64>,
}

/// One entry of a `kernel_details` summary: the k-th kernel across instances.
///
/// The statistics are `None` when no duration was collected for the position
/// (TraceLens then leaves those keys out of the dict).
#[derive(Debug, Clone, PartialEq)]
pub struct KernelStats {
    pub name: String,
    pub stream: Option<i64>,
    pub count: i64,
    pub total_duration_us: f64,
    pub mean_duration_us: Option<f64>,
    pub median_duration_us: Option<f64>,
    pub std_dev_duration_us: Option<f64>,
    pub min_duration_us: Option<f64>,
    pub max_duration_us: Option<f64>,
}

/// Summarises the kernel lists of a group's instances, given in instance order.
///
/// `None` stands for an instance without a list (it is skipped, like a non-list
/// value in the reference). Returns no entries when no instance has kernels.
pub fn summarize_kernel_stats(instances: &[Option<Vec<Kernel>>]) -> Vec<KernelStats> {
    let Some(template) = instances.iter().flatten().find(|list| !list.is_empty()) else {
        return Vec::new();
    };
    let mut durations: Vec<Vec<f64>> = vec![Vec::new(); template.len()];
    for list in instances.iter().flatten() {
        if list.len() != template.len() {
            continue;
        }
        for (position, kernel) in list.iter().enumerate() {
            if let Some(dur) = kernel.dur {
                durations[position].push(dur);
            }
        }
    }
    let mut entries: Vec<KernelStats> = template
        .iter()
        .zip(&durations)
        .map(|(kernel, durs)| {
            let stat = |f: fn(&[f64]) -> f64| (!durs.is_empty()).then(|| f(durs));
            KernelStats {
                name: kernel.name.clone(),
                stream: kernel.stream,
                count: durs.len() as i64,
                total_duration_us: numpy::pairwise_sum(durs),
                mean_duration_us: stat(numpy::mean),
                median_duration_us: stat(numpy::median),
                std_dev_duration_us: stat(numpy::population_std),
                min_duration_us: stat(numpy::min),
                max_duration_us: stat(numpy::max),
            }
        })
        .collect();
    entries.sort_by(|a, b| {
        a.total_duration_us
            .total_cmp(&b.total_duration_us)
            .then_with(|| a.name.cmp(&b.name))
    });
    entries
}

/// The struct type of one input kernel in the state: `name, dur, stream`.
fn kernel_fields() -> Fields {
    Fields::from(vec![
        Field::new("name", DataType::Utf8, true),
        Field::new("dur", DataType::Float64, true),
        Field::new("stream", DataType::Int64, true),
    ])
}

fn kernel_list_type() -> DataType {
    DataType::new_list(DataType::Struct(kernel_fields()), true)
}

/// The struct type of one output entry.
pub(crate) fn stats_fields() -> Fields {
    let float = |name: &str| Field::new(name, DataType::Float64, true);
    Fields::from(vec![
        Field::new("name", DataType::Utf8, true),
        Field::new("stream", DataType::Int64, true),
        Field::new("count", DataType::Int64, true),
        float("total_duration_us"),
        float("mean_duration_us"),
        float("median_duration_us"),
        float("std_dev_duration_us"),
        float("min_duration_us"),
        float("max_duration_us"),
    ])
}

/// `kernel_stats(order_key DOUBLE, kernels LIST<STRUCT<name UTF8, dur DOUBLE, stream BIGINT>>)
///  -> LIST<STRUCT<name UTF8, stream BIGINT, count BIGINT, total_duration_us DOUBLE,
///     mean_duration_us DOUBLE, median_duration_us DOUBLE, std_dev_duration_us DOUBLE,
///     min_duration_us DOUBLE, max_duration_us DOUBLE>>`.
///
/// * Instances are taken in `order_key` order (NULL keys last). Equal keys keep
///   arrival order, which is only deterministic within one partition, so give each
///   instance a distinct key (its UID).
/// * `kernels` is matched by field name: `name` and `dur` are required, `stream`
///   is optional, other fields are ignored; any numeric or string flavour is cast.
/// * A NULL `kernels` counts as no list; an empty list is never the template.
/// * A group without kernels gives an empty list.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelStatsUdaf {
    signature: Signature,
}

impl KernelStatsUdaf {
    pub fn new() -> Self {
        Self {
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }
}

impl Default for KernelStatsUdaf {
    fn default() -> Self {
        Self::new()
    }
}

impl AggregateUDFImpl for KernelStatsUdaf {
    fn name(&self) -> &str {
        "kernel_stats"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let [key, kernels] = arg_types else {
            return plan_err!(
                "kernel_stats takes 2 arguments (order_key, kernels), got {}",
                arg_types.len()
            );
        };
        if !(key.is_numeric() || key.is_null()) {
            return plan_err!("kernel_stats: order_key must be numeric, got {key}");
        }
        let kernels = coerce_list_of_structs("kernel_stats", kernels, &["name", "dur"])?;
        Ok(vec![DataType::Float64, kernels])
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::new_list(DataType::Struct(stats_fields()), true))
    }

    fn accumulator(&self, _args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(KernelStatsAccumulator::default()))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(vec![
            Arc::new(Field::new(
                format_state_name(args.name, "order_keys"),
                DataType::new_list(DataType::Float64, true),
                true,
            )),
            Arc::new(Field::new(
                format_state_name(args.name, "kernel_lists"),
                DataType::new_list(kernel_list_type(), true),
                true,
            )),
        ])
    }

    fn order_sensitivity(&self) -> AggregateOrderSensitivity {
        AggregateOrderSensitivity::Insensitive
    }
}

/// Keeps every instance with its order key; sorts and summarises on `evaluate`.
#[derive(Debug, Default)]
struct KernelStatsAccumulator {
    keys: Vec<Option<f64>>,
    lists: Vec<Option<Vec<Kernel>>>,
}

impl KernelStatsAccumulator {
    fn push(&mut self, keys: &Float64Array, lists: &ArrayRef) -> Result<()> {
        let lists = decode_kernel_lists(lists)?;
        if keys.len() != lists.len() {
            return exec_err!(
                "kernel_stats: {} keys for {} kernel lists",
                keys.len(),
                lists.len()
            );
        }
        self.keys.extend(keys.iter());
        self.lists.extend(lists);
        Ok(())
    }
}

impl Accumulator for KernelStatsAccumulator {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        let keys = cast(&values[0], &DataType::Float64)?;
        self.push(keys.as_primitive::<Float64Type>(), &values[1])
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let (keys, lists) = (states[0].as_list::<i32>(), states[1].as_list::<i32>());
        for row in 0..keys.len() {
            if keys.is_valid(row) && lists.is_valid(row) {
                self.push(
                    keys.value(row).as_primitive::<Float64Type>(),
                    &lists.value(row),
                )?;
            }
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        let keys: ArrayRef = Arc::new(Float64Array::from(self.keys.clone()));
        let lists: ArrayRef = Arc::new(encode_kernel_lists(&self.lists)?);
        Ok(vec![
            SingleRowListArrayBuilder::new(keys).build_list_scalar(),
            SingleRowListArrayBuilder::new(lists).build_list_scalar(),
        ])
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let mut order: Vec<usize> = (0..self.keys.len()).collect();
        // Stable: equal keys keep arrival order. NULL keys sort last.
        order.sort_by(|&a, &b| match (self.keys[a], self.keys[b]) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (x, y) => x.is_none().cmp(&y.is_none()),
        });
        let instances: Vec<Option<Vec<Kernel>>> =
            order.iter().map(|&i| self.lists[i].clone()).collect();
        let entries = summarize_kernel_stats(&instances);
        Ok(SingleRowListArrayBuilder::new(Arc::new(encode_stats(&entries)?)).build_list_scalar())
    }

    fn size(&self) -> usize {
        let kernels: usize = self
            .lists
            .iter()
            .flatten()
            .flat_map(|list| list.iter().map(|k| size_of::<Kernel>() + k.name.capacity()))
            .sum();
        size_of_val(self)
            + self.keys.capacity() * size_of::<Option<f64>>()
            + self.lists.capacity() * size_of::<Option<Vec<Kernel>>>()
            + kernels
    }
}

/// Reads a `LIST<STRUCT<name, dur, stream, …>>` column, one entry per row.
fn decode_kernel_lists(array: &ArrayRef) -> Result<Vec<Option<Vec<Kernel>>>> {
    let (lists, all_structs) = list_of_structs("kernel_stats", array)?;
    let offsets = lists.value_offsets();
    // Only the struct values these rows cover are cast and read. A grouped
    // aggregate calls this once per group with a slice of the list, whose
    // values are still the whole column's: casting them all each time made a
    // report's cost grow with groups × kernels.
    let base = offsets[0] as usize;
    let covered = offsets[lists.len()] as usize - base;
    let structs = &all_structs.slice(base, covered);
    let names = required_child("kernel_stats", structs, "name", &DataType::Utf8)?;
    let names = names.as_string::<i32>();
    let durs = required_child("kernel_stats", structs, "dur", &DataType::Float64)?;
    let durs = durs.as_primitive::<Float64Type>();
    let streams = child(structs, "stream", &DataType::Int64)?;
    let streams = streams.as_ref().map(|s| s.as_primitive::<Int64Type>());
    let mut out = Vec::with_capacity(lists.len());
    for row in 0..lists.len() {
        if lists.is_null(row) {
            out.push(None);
            continue;
        }
        let (start, end) = (
            offsets[row] as usize - base,
            offsets[row + 1] as usize - base,
        );
        let mut kernels = Vec::with_capacity(end - start);
        for j in start..end {
            if structs.is_null(j) || names.is_null(j) {
                return exec_err!(
                    "kernel_stats: a kernel entry has no name; every kernel needs a name"
                );
            }
            kernels.push(Kernel {
                name: names.value(j).to_string(),
                dur: durs.is_valid(j).then(|| durs.value(j)),
                stream: streams.and_then(|s| s.is_valid(j).then(|| s.value(j))),
            });
        }
        out.push(Some(kernels));
    }
    Ok(out)
}

/// Builds the state's `LIST<STRUCT<name, dur, stream>>` array, one row per instance.
fn encode_kernel_lists(lists: &[Option<Vec<Kernel>>]) -> Result<ListArray> {
    let mut names = StringBuilder::new();
    let mut durs = Float64Builder::new();
    let mut streams = Int64Builder::new();
    let mut lengths = Vec::with_capacity(lists.len());
    for list in lists {
        let kernels = list.as_deref().unwrap_or_default();
        lengths.push(kernels.len());
        for k in kernels {
            names.append_value(&k.name);
            durs.append_option(k.dur);
            streams.append_option(k.stream);
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(names.finish()),
        Arc::new(durs.finish()),
        Arc::new(streams.finish()),
    ];
    let structs = StructArray::try_new(kernel_fields(), columns, None)?;
    let DataType::List(item) = kernel_list_type() else {
        unreachable!("kernel_list_type is a List")
    };
    let validity = NullBuffer::from(lists.iter().map(Option::is_some).collect::<Vec<_>>());
    Ok(ListArray::try_new(
        item,
        OffsetBuffer::from_lengths(lengths),
        Arc::new(structs),
        Some(validity),
    )?)
}

/// Builds the output `STRUCT` array, one row per entry.
fn encode_stats(entries: &[KernelStats]) -> Result<StructArray> {
    let floats = |f: fn(&KernelStats) -> Option<f64>| -> ArrayRef {
        Arc::new(entries.iter().map(f).collect::<Float64Array>())
    };
    let names: ArrayRef = Arc::new(
        entries
            .iter()
            .map(|e| Some(e.name.as_str()))
            .collect::<datafusion::arrow::array::StringArray>(),
    );
    let columns: Vec<ArrayRef> = vec![
        names,
        Arc::new(entries.iter().map(|e| e.stream).collect::<Int64Array>()),
        Arc::new(
            entries
                .iter()
                .map(|e| Some(e.count))
                .collect::<Int64Array>(),
        ),
        floats(|e| Some(e.total_duration_us)),
        floats(|e| e.mean_duration_us),
        floats(|e| e.median_duration_us),
        floats(|e| e.std_dev_duration_us),
        floats(|e| e.min_duration_us),
        floats(|e| e.max_duration_us),
    ];
    Ok(StructArray::try_new(stats_fields(), columns, None)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{
        batch, f64_column, f64_values, i64_column, i64_values, run_sql, str_column, string_values,
    };

    fn kernel(name: &str, dur: f64) -> Kernel {
        Kernel {
            name: name.to_string(),
            dur: Some(dur),
            stream: Some(7),
        }
    }

    #[test]
    fn a_slice_of_the_lists_decodes_to_its_own_rows() {
        let lists = vec![
            Some(vec![kernel("a", 1.0)]),
            None,
            Some(vec![kernel("b", 2.0), kernel("c", 3.0)]),
            Some(vec![kernel("d", 4.0)]),
        ];
        let whole: ArrayRef = Arc::new(encode_kernel_lists(&lists).expect("encodes"));
        // What a grouped aggregate hands over: rows 1..3, the values still whole.
        let sliced = whole.slice(1, 2);
        assert_eq!(decode_kernel_lists(&sliced).expect("decodes"), lists[1..3]);
        assert_eq!(
            decode_kernel_lists(&whole.slice(3, 1)).expect("decodes"),
            lists[3..]
        );
        assert_eq!(
            decode_kernel_lists(&whole.slice(0, 0)).expect("decodes"),
            vec![]
        );
    }

    #[test]
    fn positions_are_summarised_and_sorted_by_total() {
        let instances = vec![
            None,
            Some(vec![]),
            Some(vec![kernel("gemm", 10.0), kernel("fill", 1.0)]),
            Some(vec![kernel("gemm", 14.0), kernel("fill", 2.0)]),
            // Another length: skipped.
            Some(vec![kernel("gemm", 1000.0)]),
            // Same length, other names: still counted by position.
            Some(vec![kernel("other", 12.0), kernel("fill2", 3.0)]),
        ];
        let s = summarize_kernel_stats(&instances);
        assert_eq!(s.len(), 2);
        // fill: 1, 2, 3 → total 6, mean 2, median 2, std sqrt(2/3).
        assert_eq!(s[0].name, "fill");
        assert_eq!(s[0].stream, Some(7));
        assert_eq!(s[0].count, 3);
        assert_eq!(s[0].total_duration_us, 6.0);
        assert_eq!(s[0].mean_duration_us, Some(2.0));
        assert_eq!(s[0].median_duration_us, Some(2.0));
        assert_eq!(s[0].std_dev_duration_us, Some((2.0f64 / 3.0).sqrt()));
        assert_eq!(s[0].min_duration_us, Some(1.0));
        assert_eq!(s[0].max_duration_us, Some(3.0));
        // gemm: 10, 14, 12 → total 36, median 12, std sqrt(8/3).
        assert_eq!(s[1].name, "gemm");
        assert_eq!(s[1].total_duration_us, 36.0);
        assert_eq!(s[1].median_duration_us, Some(12.0));
        assert_eq!(s[1].std_dev_duration_us, Some((8.0f64 / 3.0).sqrt()));
    }

    #[test]
    fn ties_on_total_sort_by_name_and_missing_durations_are_skipped() {
        let instances = vec![Some(vec![
            kernel("b", 2.0),
            kernel("a", 2.0),
            Kernel {
                name: "c".into(),
                dur: None,
                stream: None,
            },
        ])];
        let s = summarize_kernel_stats(&instances);
        let names: Vec<&str> = s.iter().map(|e| e.name.as_str()).collect();
        // c has no durations: total np.sum([]) = 0.0, no statistics.
        assert_eq!(names, vec!["c", "a", "b"]);
        assert_eq!(s[0].count, 0);
        assert_eq!(s[0].total_duration_us, 0.0);
        assert_eq!(s[0].mean_duration_us, None);
        assert!(summarize_kernel_stats(&[None, Some(vec![])]).is_empty());
    }

    /// bert-small on H100, ops_unique_args row 1 (aten::addmm, 17 instances): the
    /// durations in launch order give the reference cell exactly.
    #[test]
    fn matches_the_bert_small_addmm_reference() {
        let durs = [
            5.824, 5.727, 5.887, 5.664, 5.824, 5.792, 5.952, 5.888, 5.792, 5.728, 5.663, 5.76,
            5.92, 5.76, 5.633, 5.824, 6.08,
        ];
        let instances: Vec<_> = durs.iter().map(|&d| Some(vec![kernel("k", d)])).collect();
        let s = &summarize_kernel_stats(&instances)[0];
        assert_eq!(s.count, 17);
        assert_eq!(s.total_duration_us, 98.718);
        assert_eq!(s.mean_duration_us, Some(5.8069411764705885));
        assert_eq!(s.median_duration_us, Some(5.792));
        assert_eq!(s.std_dev_duration_us, Some(0.11144002374700734));
        assert_eq!(s.min_duration_us, Some(5.633));
        assert_eq!(s.max_duration_us, Some(6.08));
    }

    #[tokio::test]
    async fn sql_orders_instances_by_key() {
        // Instance 2 (key 1.0) comes first by key, so it is the template ([x, y]);
        // instance 1 (key 5.0) has one kernel and is skipped.
        let t = batch(vec![
            ("uid", i64_column(&[20, 20, 10, 30, 30])),
            ("key", f64_column(&[1.0, 1.0, 5.0, 3.0, 3.0])),
            ("pos", i64_column(&[0, 1, 0, 0, 1])),
            (
                "name",
                str_column(&[Some("x"), Some("y"), Some("z"), Some("x2"), Some("y2")]),
            ),
            ("dur", f64_column(&[4.0, 1.0, 100.0, 6.0, 2.0])),
            ("stream", i64_column(&[7, 7, 7, 7, 7])),
        ]);
        let sql = "WITH inst AS ( \
                     SELECT uid, min(key) AS key, \
                            array_agg(named_struct('name', name, 'dur', dur, 'stream', stream) \
                                      ORDER BY pos) AS kernels \
                     FROM t GROUP BY uid), \
                   s AS (SELECT unnest(kernel_stats(key, kernels)) AS e FROM inst) \
                   SELECT e['name'] AS name, e['count'] AS n, e['total_duration_us'] AS total, \
                          e['mean_duration_us'] AS mean \
                   FROM s";
        let out = run_sql(vec![t], sql).await;
        // y: 1 + 2 = 3 sorts before x: 4 + 6 = 10.
        assert_eq!(
            string_values(&out, "name"),
            vec![Some("y".into()), Some("x".into())]
        );
        assert_eq!(i64_values(&out, "n"), vec![Some(2), Some(2)]);
        assert_eq!(f64_values(&out, "total"), vec![Some(3.0), Some(10.0)]);
        assert_eq!(f64_values(&out, "mean"), vec![Some(1.5), Some(5.0)]);
    }
}
