//! Helpers for the SQL-level tests: a session with every function registered and
//! a small in-memory table `t`.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray,
};
use datafusion::arrow::datatypes::{Float64Type, Int64Type};
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;

pub(crate) fn f64_column(values: &[f64]) -> ArrayRef {
    Arc::new(Float64Array::from(values.to_vec()))
}

pub(crate) fn i64_column(values: &[i64]) -> ArrayRef {
    Arc::new(Int64Array::from(values.to_vec()))
}

pub(crate) fn bool_column(values: &[bool]) -> ArrayRef {
    Arc::new(BooleanArray::from(values.to_vec()))
}

pub(crate) fn str_column(values: &[Option<&str>]) -> ArrayRef {
    Arc::new(StringArray::from(values.to_vec()))
}

/// A record batch from named columns.
pub(crate) fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).expect("columns of equal length")
}

/// Runs `sql` against table `t`, one partition per batch, with every tracesql
/// function registered.
pub(crate) async fn run_sql(partitions: Vec<RecordBatch>, sql: &str) -> Vec<RecordBatch> {
    let ctx = SessionContext::new();
    crate::register_all(&ctx);
    let schema = partitions[0].schema();
    let partitions = partitions.into_iter().map(|b| vec![b]).collect();
    let table = MemTable::try_new(schema, partitions).expect("a valid table");
    ctx.register_table("t", Arc::new(table))
        .expect("register t");
    ctx.sql(sql)
        .await
        .unwrap_or_else(|e| panic!("planning {sql}: {e}"))
        .collect()
        .await
        .unwrap_or_else(|e| panic!("running {sql}: {e}"))
}

/// A column of the result as `Option<f64>`s.
pub(crate) fn f64_values(batches: &[RecordBatch], column: &str) -> Vec<Option<f64>> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b.column_by_name(column).expect("column exists");
            let a = a.as_primitive::<Float64Type>();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| a.value(i)))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A column of the result as `Option<i64>`s.
pub(crate) fn i64_values(batches: &[RecordBatch], column: &str) -> Vec<Option<i64>> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b.column_by_name(column).expect("column exists");
            let a = a.as_primitive::<Int64Type>();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| a.value(i)))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A string column of the result as `Option<String>`s.
pub(crate) fn string_values(batches: &[RecordBatch], column: &str) -> Vec<Option<String>> {
    batches
        .iter()
        .flat_map(|b| {
            let a = b.column_by_name(column).expect("column exists");
            let a =
                datafusion::arrow::compute::cast(a, &datafusion::arrow::datatypes::DataType::Utf8)
                    .expect("a string column");
            let a = a.as_string::<i32>();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| a.value(i).to_string()))
                .collect::<Vec<_>>()
        })
        .collect()
}
