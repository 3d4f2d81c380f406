//! Aggregates that keep their group's rows and compute their result from all
//! of them at the end (`dag_longest_path`, `interval_stack_walk`): a graph or a
//! call stack is built from every row of the group, in an order of its own.
//!
//! A [`RowsFunction`] says what the arguments are and how to turn them into
//! the result (a list of structs); [`udaf`] makes it a DataFusion aggregate
//! whose state is one list per argument.

use std::marker::PhantomData;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StructArray};
use datafusion::arrow::compute::concat;
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Fields};
use datafusion::common::utils::SingleRowListArrayBuilder;
use datafusion::common::{exec_err, Result, ScalarValue};
use datafusion::logical_expr::function::{AccumulatorArgs, StateFieldsArgs};
use datafusion::logical_expr::utils::{format_state_name, AggregateOrderSensitivity};
use datafusion::logical_expr::{
    Accumulator, AggregateUDF, AggregateUDFImpl, Signature, Volatility,
};

/// An aggregate computed from all the rows of its group.
pub(crate) trait RowsFunction: std::fmt::Debug + Send + Sync + 'static {
    /// The SQL name.
    const NAME: &'static str;
    /// The arguments: a name (for the state) and an exact type each.
    fn arguments() -> Vec<(&'static str, DataType)>;
    /// The fields of the result's structs.
    fn result_fields() -> Fields;
    /// The result's columns (one per field) from the group's arguments, one
    /// array per argument, rows in no particular order, NULLs included.
    fn evaluate(arguments: &[ArrayRef]) -> Result<Vec<ArrayRef>>;
}

/// `F` as a DataFusion aggregate returning `LIST<STRUCT<F::result_fields()>>`.
pub(crate) fn udaf<F: RowsFunction>() -> AggregateUDF {
    let types = F::arguments().into_iter().map(|(_, t)| t).collect();
    AggregateUDF::from(KeptRows::<F> {
        signature: Signature::exact(types, Volatility::Immutable),
        function: PhantomData,
    })
}

#[derive(Debug)]
struct KeptRows<F> {
    signature: Signature,
    function: PhantomData<F>,
}

impl<F> PartialEq for KeptRows<F> {
    fn eq(&self, other: &Self) -> bool {
        self.signature == other.signature
    }
}

impl<F> Eq for KeptRows<F> {}

impl<F> std::hash::Hash for KeptRows<F> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.signature.hash(state);
    }
}

impl<F: RowsFunction> AggregateUDFImpl for KeptRows<F> {
    fn name(&self) -> &str {
        F::NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::new_list(
            DataType::Struct(F::result_fields()),
            true,
        ))
    }

    fn accumulator(&self, _args: AccumulatorArgs) -> Result<Box<dyn Accumulator>> {
        Ok(Box::new(RowsAccumulator::<F> {
            columns: vec![Vec::new(); F::arguments().len()],
            function: PhantomData,
        }))
    }

    fn state_fields(&self, args: StateFieldsArgs) -> Result<Vec<FieldRef>> {
        Ok(F::arguments()
            .into_iter()
            .map(|(name, t)| {
                Arc::new(Field::new(
                    format_state_name(args.name, name),
                    DataType::new_list(t, true),
                    true,
                ))
            })
            .collect())
    }

    fn order_sensitivity(&self) -> AggregateOrderSensitivity {
        AggregateOrderSensitivity::Insensitive
    }
}

/// The group's arguments, as the batches they came in.
#[derive(Debug)]
struct RowsAccumulator<F> {
    columns: Vec<Vec<ArrayRef>>,
    function: PhantomData<F>,
}

impl<F: RowsFunction> RowsAccumulator<F> {
    /// Each argument, its batches concatenated.
    fn concatenated(&self) -> Result<Vec<ArrayRef>> {
        self.columns
            .iter()
            .zip(F::arguments())
            .map(|(parts, (_, t))| {
                if parts.is_empty() {
                    return Ok(datafusion::arrow::array::new_empty_array(&t));
                }
                let parts: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
                Ok(concat(&parts)?)
            })
            .collect()
    }
}

/// `values` as a one-row list.
fn list(values: ArrayRef) -> ScalarValue {
    SingleRowListArrayBuilder::new(values).build_list_scalar()
}

impl<F: RowsFunction> Accumulator for RowsAccumulator<F> {
    fn update_batch(&mut self, values: &[ArrayRef]) -> Result<()> {
        if values.len() != self.columns.len() {
            return exec_err!("{} takes {} arguments", F::NAME, self.columns.len());
        }
        for (column, values) in self.columns.iter_mut().zip(values) {
            column.push(Arc::clone(values));
        }
        Ok(())
    }

    fn merge_batch(&mut self, states: &[ArrayRef]) -> Result<()> {
        let lists: Vec<_> = states.iter().map(|s| s.as_list::<i32>()).collect();
        for row in 0..lists.first().map_or(0, |l| l.len()) {
            if lists.iter().any(|l| l.is_null(row)) {
                continue;
            }
            let values: Vec<ArrayRef> = lists.iter().map(|l| l.value(row)).collect();
            self.update_batch(&values)?;
        }
        Ok(())
    }

    fn state(&mut self) -> Result<Vec<ScalarValue>> {
        Ok(self.concatenated()?.into_iter().map(list).collect())
    }

    fn evaluate(&mut self) -> Result<ScalarValue> {
        let columns = F::evaluate(&self.concatenated()?)?;
        let rows: ArrayRef = Arc::new(StructArray::try_new(F::result_fields(), columns, None)?);
        Ok(list(rows))
    }

    fn size(&self) -> usize {
        size_of_val(self)
            + self
                .columns
                .iter()
                .flatten()
                .map(|a| a.get_array_memory_size())
                .sum::<usize>()
    }
}
