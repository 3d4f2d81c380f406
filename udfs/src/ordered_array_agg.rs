//! `array_agg(value ORDER BY ...)` for many groups at once.
//!
//! Why: the reports list each op's kernels in GPU order
//! (`array_agg(named_struct(...) ORDER BY ts, uid)`) for tens of thousands of
//! launchers and perf instances. DataFusion's own ordered `array_agg` keeps one
//! accumulator per group and every element as a `ScalarValue`, which made these
//! aggregations most of a report run. [`OrderedArrayAgg`] is the built-in function
//! with a `GroupsAccumulator` added for the ordered case: same name, signature,
//! result and partial-state format (a list of values and a list of ordering
//! structs), so the SQL stays standard and plans may mix the two. DISTINCT,
//! unordered and reversed aggregations are left to the built-in.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, ListArray, StructArray};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::interleave;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields};
use datafusion::arrow::row::{RowConverter, Rows, SortField};
use datafusion::common::{exec_err, Result};
use datafusion::functions_aggregate::array_agg::array_agg_udaf;
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};

use crate::filter::passes;
use datafusion::logical_expr::utils::AggregateOrderSensitivity;
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, Documentation, EmitTo, GroupsAccumulator,
    ReversedUDAF, Signature,
};

/// The built-in `array_agg`, plus a groups accumulator for `ORDER BY`.
#[derive(Debug)]
pub struct OrderedArrayAgg {
    builtin: Arc<dyn AggregateUDFImpl>,
    /// Whether the planner feeds the input already sorted (the built-in's
    /// `with_beneficial_ordering`); kept to tell instances apart.
    pre_ordered: bool,
}

impl OrderedArrayAgg {
    pub fn new() -> Self {
        OrderedArrayAgg {
            builtin: Arc::clone(array_agg_udaf().inner()),
            pre_ordered: false,
        }
    }

    /// Whether this aggregation gets the groups accumulator.
    fn handles(args: &AccumulatorArgs) -> bool {
        !args.is_distinct && !args.order_bys.is_empty() && !args.is_reversed
    }
}

impl Default for OrderedArrayAgg {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialEq for OrderedArrayAgg {
    fn eq(&self, other: &Self) -> bool {
        self.pre_ordered == other.pre_ordered
    }
}

impl Eq for OrderedArrayAgg {}

impl Hash for OrderedArrayAgg {
    fn hash<H: Hasher>(&self, state: &mut H) {
        "tracesql array_agg".hash(state);
        self.pre_ordered.hash(state);
    }
}

impl AggregateUDFImpl for OrderedArrayAgg {
    fn name(&self) -> &str {
        self.builtin.name()
    }

    fn signature(&self) -> &Signature {
        self.builtin.signature()
    }

    fn return_type(&self, arg_types: &[DataType]) -> Result<DataType> {
        self.builtin.return_type(arg_types)
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        self.builtin.state_fields(args)
    }

    fn order_sensitivity(&self) -> AggregateOrderSensitivity {
        self.builtin.order_sensitivity()
    }

    fn with_beneficial_ordering(
        self: Arc<Self>,
        beneficial_ordering: bool,
    ) -> Result<Option<Arc<dyn AggregateUDFImpl>>> {
        let builtin = Arc::clone(&self.builtin).with_beneficial_ordering(beneficial_ordering)?;
        Ok(builtin.map(|builtin| {
            Arc::new(OrderedArrayAgg {
                builtin,
                pre_ordered: beneficial_ordering,
            }) as Arc<dyn AggregateUDFImpl>
        }))
    }

    fn accumulator(&self, args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        self.builtin.accumulator(args)
    }

    fn reverse_expr(&self) -> ReversedUDAF {
        ReversedUDAF::Reversed(Arc::new(
            AggregateUDF::new_from_impl(OrderedArrayAgg::new()),
        ))
    }

    fn groups_accumulator_supported(&self, args: AccumulatorArgs) -> bool {
        Self::handles(&args) || self.builtin.groups_accumulator_supported(args)
    }

    fn create_groups_accumulator(
        &self,
        args: AccumulatorArgs,
    ) -> Result<Box<dyn GroupsAccumulator>> {
        if Self::handles(&args) {
            return Ok(Box::new(OrderedListGroups::try_new(&args)?));
        }
        self.builtin.create_groups_accumulator(args)
    }

    fn supports_null_handling_clause(&self) -> bool {
        self.builtin.supports_null_handling_clause()
    }

    fn documentation(&self) -> Option<&Documentation> {
        self.builtin.documentation()
    }
}

/// Every group's elements as (chunk, row) references into the arrays received,
/// sorted by their ordering keys only when the lists are built.
#[derive(Debug)]
struct OrderedListGroups {
    value_type: DataType,
    /// The ordering columns as the partial state's struct has them.
    ordering_fields: Fields,
    converter: RowConverter,
    ignore_nulls: bool,
    /// Values received, one array per update or merge.
    values: Vec<ArrayRef>,
    /// Their ordering columns, and the same in comparable row form.
    orderings: Vec<Vec<ArrayRef>>,
    keys: Vec<Rows>,
    groups: Vec<Vec<(u32, u32)>>,
}

impl OrderedListGroups {
    fn try_new(args: &AccumulatorArgs) -> Result<Self> {
        let mut sort_fields = Vec::with_capacity(args.order_bys.len());
        let mut ordering_fields = Vec::with_capacity(args.order_bys.len());
        for sort in args.order_bys {
            let data_type = sort.expr.data_type(args.schema)?;
            sort_fields.push(SortField::new_with_options(data_type.clone(), sort.options));
            ordering_fields.push(Field::new(sort.expr.to_string(), data_type, true));
        }
        let value_field = &args.expr_fields[0];
        Ok(OrderedListGroups {
            value_type: value_field.data_type().clone(),
            ordering_fields: Fields::from(ordering_fields),
            converter: RowConverter::new(sort_fields)?,
            ignore_nulls: args.ignore_nulls && value_field.is_nullable(),
            values: Vec::new(),
            orderings: Vec::new(),
            keys: Vec::new(),
            groups: Vec::new(),
        })
    }

    /// Keeps one chunk of values and ordering columns; returns its index.
    fn add_chunk(&mut self, values: ArrayRef, orderings: Vec<ArrayRef>) -> Result<u32> {
        if orderings.len() != self.ordering_fields.len() {
            return exec_err!(
                "array_agg: {} ordering columns, expected {}",
                orderings.len(),
                self.ordering_fields.len()
            );
        }
        let keys = self.converter.convert_columns(&orderings)?;
        let chunk = self.values.len() as u32;
        self.values.push(values);
        self.orderings.push(orderings);
        self.keys.push(keys);
        Ok(chunk)
    }

    fn grow(&mut self, total_num_groups: usize) {
        if self.groups.len() < total_num_groups {
            self.groups.resize_with(total_num_groups, Vec::new);
        }
    }

    /// The emitted groups' elements in order, and each group's element count.
    fn take_sorted(&mut self, emit_to: EmitTo) -> (Vec<(usize, usize)>, Vec<usize>) {
        let mut groups = emit_to.take_needed(&mut self.groups);
        let mut order = Vec::with_capacity(groups.iter().map(Vec::len).sum());
        let mut lengths = Vec::with_capacity(groups.len());
        for group in &mut groups {
            // Stable: elements with equal keys keep their arrival order.
            group.sort_by(|a, b| {
                let key = |(chunk, row): (u32, u32)| self.keys[chunk as usize].row(row as usize);
                key(*a).cmp(&key(*b))
            });
            order.extend(group.iter().map(|&(c, r)| (c as usize, r as usize)));
            lengths.push(group.len());
        }
        (order, lengths)
    }

    /// Forgets the received arrays once no group refers to them.
    fn release_if_done(&mut self) {
        if self.groups.is_empty() {
            self.values.clear();
            self.orderings.clear();
            self.keys.clear();
        }
    }

    fn values_in(&self, order: &[(usize, usize)]) -> Result<ArrayRef> {
        if order.is_empty() {
            return Ok(datafusion::arrow::array::new_empty_array(&self.value_type));
        }
        let arrays: Vec<&dyn Array> = self.values.iter().map(|a| a.as_ref()).collect();
        Ok(interleave(&arrays, order)?)
    }

    fn orderings_in(&self, order: &[(usize, usize)]) -> Result<ArrayRef> {
        let columns = (0..self.ordering_fields.len())
            .map(|i| {
                if order.is_empty() {
                    let field = &self.ordering_fields[i];
                    return Ok(datafusion::arrow::array::new_empty_array(field.data_type()));
                }
                let arrays: Vec<&dyn Array> =
                    self.orderings.iter().map(|o| o[i].as_ref()).collect();
                Ok(interleave(&arrays, order)?)
            })
            .collect::<Result<Vec<_>>>()?;
        let rows = order.len();
        let structs =
            StructArray::try_new_with_length(self.ordering_fields.clone(), columns, None, rows)?;
        Ok(Arc::new(structs))
    }
}

/// A list column of `lengths[i]` elements per row from the flat `values`;
/// rows without elements are NULL when `empty_is_null`, else empty lists.
fn list_of(values: ArrayRef, lengths: &[usize], empty_is_null: bool) -> Result<ArrayRef> {
    let field = Arc::new(Field::new_list_field(values.data_type().clone(), true));
    let offsets = OffsetBuffer::from_lengths(lengths.iter().copied());
    let nulls =
        empty_is_null.then(|| NullBuffer::from(lengths.iter().map(|&n| n > 0).collect::<Vec<_>>()));
    Ok(Arc::new(ListArray::try_new(field, offsets, values, nulls)?))
}

impl GroupsAccumulator for OrderedListGroups {
    fn update_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        opt_filter: Option<&BooleanArray>,
        total_num_groups: usize,
    ) -> Result<()> {
        self.grow(total_num_groups);
        let Some((value, orderings)) = values.split_first() else {
            return exec_err!("array_agg: no argument");
        };
        let chunk = self.add_chunk(Arc::clone(value), orderings.to_vec())?;
        for (row, &group) in group_indices.iter().enumerate() {
            let keep = passes(opt_filter, row) && !(self.ignore_nulls && value.is_null(row));
            if keep {
                self.groups[group].push((chunk, row as u32));
            }
        }
        Ok(())
    }

    fn merge_batch(
        &mut self,
        values: &[ArrayRef],
        group_indices: &[usize],
        total_num_groups: usize,
    ) -> Result<()> {
        self.grow(total_num_groups);
        let [lists, ordering_lists] = values else {
            return exec_err!("array_agg: expected 2 state columns, got {}", values.len());
        };
        let (lists, ordering_lists) = (lists.as_list::<i32>(), ordering_lists.as_list::<i32>());
        let Some(structs) = ordering_lists.values().as_struct_opt() else {
            return exec_err!("array_agg: ordering state is not a list of structs");
        };
        // Elements of row r are lists.value_offsets()[r].. in both lists' children.
        let chunk = self.add_chunk(Arc::clone(lists.values()), structs.columns().to_vec())?;
        let (offsets, ordering_offsets) = (lists.value_offsets(), ordering_lists.value_offsets());
        for (row, &group) in group_indices.iter().enumerate() {
            if lists.is_null(row) {
                continue;
            }
            let (start, end) = (offsets[row] as u32, offsets[row + 1] as u32);
            if ordering_offsets[row] as u32 != start || ordering_offsets[row + 1] as u32 != end {
                return exec_err!("array_agg: values and orderings of a state differ in length");
            }
            self.groups[group].extend((start..end).map(|i| (chunk, i)));
        }
        Ok(())
    }

    fn evaluate(&mut self, emit_to: EmitTo) -> Result<ArrayRef> {
        let (order, lengths) = self.take_sorted(emit_to);
        let values = self.values_in(&order)?;
        self.release_if_done();
        list_of(values, &lengths, true)
    }

    fn state(&mut self, emit_to: EmitTo) -> Result<Vec<ArrayRef>> {
        let (order, lengths) = self.take_sorted(emit_to);
        let values = self.values_in(&order)?;
        let orderings = self.orderings_in(&order)?;
        self.release_if_done();
        Ok(vec![
            list_of(values, &lengths, false)?,
            list_of(orderings, &lengths, false)?,
        ])
    }

    /// Each row as its own group: one-element lists (empty where the row is
    /// filtered out or an ignored NULL).
    fn convert_to_state(
        &self,
        values: &[ArrayRef],
        opt_filter: Option<&BooleanArray>,
    ) -> Result<Vec<ArrayRef>> {
        let Some((value, orderings)) = values.split_first() else {
            return exec_err!("array_agg: no argument");
        };
        let kept: Vec<usize> = (0..value.len())
            .filter(|&row| passes(opt_filter, row) && !(self.ignore_nulls && value.is_null(row)))
            .collect();
        let lengths: Vec<usize> = {
            let mut lengths = vec![0; value.len()];
            for &row in &kept {
                lengths[row] = 1;
            }
            lengths
        };
        let order: Vec<(usize, usize)> = kept.iter().map(|&row| (0, row)).collect();
        let take = |array: &ArrayRef| -> Result<ArrayRef> {
            if order.is_empty() {
                return Ok(datafusion::arrow::array::new_empty_array(array.data_type()));
            }
            Ok(interleave(&[array.as_ref()], &order)?)
        };
        let columns = orderings.iter().map(take).collect::<Result<Vec<_>>>()?;
        let structs = StructArray::try_new_with_length(
            self.ordering_fields.clone(),
            columns,
            None,
            order.len(),
        )?;
        Ok(vec![
            list_of(take(value)?, &lengths, false)?,
            list_of(Arc::new(structs), &lengths, false)?,
        ])
    }

    fn size(&self) -> usize {
        let arrays: usize = self.values.iter().map(|a| a.get_array_memory_size()).sum();
        let orderings: usize = self
            .orderings
            .iter()
            .flatten()
            .map(|a| a.get_array_memory_size())
            .sum();
        let keys: usize = self.keys.iter().map(Rows::size).sum();
        let refs: usize = self.groups.iter().map(|g| g.capacity() * 8 + 24).sum();
        arrays + orderings + keys + refs
    }
}

#[cfg(test)]
mod tests {
    use crate::test_util::{batch, f64_column, i64_column, run_sql, str_column, string_values};

    /// Groups spread over two partitions (so partial states are merged), a
    /// FILTER, a NULL value and both sort directions: the lists come out in the
    /// ORDER BY order, NULL for a group the filter empties.
    #[tokio::test]
    async fn ordered_lists_per_group() {
        let part = |g: &[i64], v: &[Option<&str>], k1: &[f64], k2: &[i64]| {
            batch(vec![
                ("g", i64_column(g)),
                ("v", str_column(v)),
                ("k1", f64_column(k1)),
                ("k2", i64_column(k2)),
            ])
        };
        // (A NULL in each part: the parts' schemas must agree on nullability.)
        let first = part(
            &[1, 2, 1, 3, 2],
            &[Some("c"), Some("x"), Some("a"), Some("z"), None],
            &[3.0, 1.0, 1.0, 1.0, 0.5],
            &[1, 1, 9, 1, 2],
        );
        let second = part(
            &[1, 2, 3],
            &[Some("b"), Some("y"), None],
            &[1.0, 2.0, 5.0],
            &[10, 1, 1],
        );
        let sql = "SELECT g, \
             array_to_string(array_agg(v ORDER BY k1, k2), ',', 'NULL') AS up, \
             array_to_string(array_agg(v ORDER BY k1 DESC, k2) FILTER (WHERE g <> 3), ',', 'NULL') \
               AS down \
             FROM t GROUP BY g ORDER BY g";
        let out = run_sql(vec![first, second], sql).await;
        let text = |column| {
            string_values(&out, column)
                .into_iter()
                .map(|v| v.unwrap_or_else(|| "<null>".into()))
                .collect::<Vec<_>>()
        };
        assert_eq!(text("up"), ["a,b,c", "NULL,x,y", "z,NULL"]);
        assert_eq!(text("down"), ["c,a,b", "y,x,NULL", "<null>"]);
    }
}
