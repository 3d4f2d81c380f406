//! `-- spread_from: VIEW`: per-rank values spread over columns of their own
//! (`rank_0_ts`, `rank_0_dur`, `rank_1_ts`, ...), the wide layout TraceLens's
//! multi-rank sheets have.
//!
//! SQL cannot name result columns after data, so the sheet's query returns the
//! long form and `VIEW` the cells to spread: one row per cell, with columns
//! `key` (the value of the sheet's first column the cell belongs to), `ord`
//! (the order in which the cells are met, rows in their unsorted order, e.g.
//! `position · 10^10 + place in the row`), `column` (its name), `num` (a number)
//! and `txt` (text, used when `num` is NULL). A column is text when any of its
//! cells is; a row without a cell for a column gets NULL there. Columns come in
//! the order they first appear in `ord` order, as pandas
//! builds a frame from a list of dicts before sorting it. They are inserted before the column
//! named by `-- spread_before:` (when the result has it), else at the end.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Builder, StringBuilder};
use datafusion::arrow::compute::{cast, concat_batches};
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Int64Type, Schema};
use datafusion::arrow::record_batch::RecordBatch;

use crate::catalog::Query;
use crate::engine::SqlRunner;

enum Cell {
    Num(f64),
    Text(String),
}

/// The sheet with the spread columns added (unchanged without the header).
pub async fn spread(
    runner: &SqlRunner,
    query: &Query,
    header: Vec<String>,
    batches: Vec<RecordBatch>,
) -> Result<(Vec<String>, Vec<RecordBatch>), String> {
    let Some(view) = query.extra.get("spread_from").filter(|v| !v.is_empty()) else {
        return Ok((header, batches));
    };
    let sql = format!("SELECT key, ord, \"column\", num, txt FROM {view} ORDER BY ord");
    let cells = runner
        .run_sql(&sql)
        .await
        .map_err(|e| format!("-- spread_from: {e}"))?
        .pop()
        .unwrap_or_default();
    let Some(first) = batches.first() else {
        return Ok((header, batches));
    };
    let sheet = concat_batches(&first.schema(), &batches).map_err(|e| e.to_string())?;
    let keys = cast(sheet.column(0), &DataType::Utf8).map_err(|e| e.to_string())?;
    let keys = keys.as_string::<i32>();
    let row_of: HashMap<&str, usize> = (0..keys.len())
        .filter(|&i| keys.is_valid(i))
        .map(|i| (keys.value(i), i))
        .collect();
    // (row, ord, column, cell), then sorted by row and ord.
    let mut placed: Vec<(usize, i64, String, Cell)> = Vec::new();
    for batch in &cells {
        let key = cast(batch.column(0), &DataType::Utf8).map_err(|e| e.to_string())?;
        let key = key.as_string::<i32>();
        let ord = cast(batch.column(1), &DataType::Int64).map_err(|e| e.to_string())?;
        let ord = ord.as_primitive::<Int64Type>();
        let name = cast(batch.column(2), &DataType::Utf8).map_err(|e| e.to_string())?;
        let name = name.as_string::<i32>();
        let num = cast(batch.column(3), &DataType::Float64).map_err(|e| e.to_string())?;
        let num = num.as_primitive::<Float64Type>();
        let txt = cast(batch.column(4), &DataType::Utf8).map_err(|e| e.to_string())?;
        let txt = txt.as_string::<i32>();
        for i in 0..batch.num_rows() {
            let Some(&row) = key.is_valid(i).then(|| row_of.get(key.value(i))).flatten() else {
                continue;
            };
            let cell = if num.is_valid(i) {
                Cell::Num(num.value(i))
            } else if txt.is_valid(i) {
                Cell::Text(txt.value(i).to_string())
            } else {
                continue;
            };
            placed.push((row, ord.value(i), name.value(i).to_string(), cell));
        }
    }
    // `ord` orders the cells as pandas meets them (the frame's rows before any
    // sort), which decides the order of first appearance of the columns.
    placed.sort_by_key(|(_, ord, _, _)| *ord);
    let mut names: Vec<String> = Vec::new();
    let mut values: HashMap<String, Vec<Option<Cell>>> = HashMap::new();
    for (row, _, name, cell) in placed {
        let column = values.entry(name.clone()).or_insert_with(|| {
            names.push(name);
            (0..sheet.num_rows()).map(|_| None).collect()
        });
        column[row] = Some(cell);
    }
    let at = query
        .extra
        .get("spread_before")
        .and_then(|c| header.iter().position(|h| h == c))
        .unwrap_or(header.len());
    let mut fields: Vec<Field> = sheet
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    let mut arrays: Vec<ArrayRef> = sheet.columns().to_vec();
    let mut new_header = header.clone();
    for (k, name) in names.iter().enumerate() {
        let cells = &values[name];
        let array = column_array(cells);
        fields.insert(at + k, Field::new(name, array.data_type().clone(), true));
        arrays.insert(at + k, array);
        new_header.insert(at + k, name.clone());
    }
    let schema = Schema::new_with_metadata(fields, sheet.schema().metadata().clone());
    let batch = RecordBatch::try_new(Arc::new(schema), arrays).map_err(|e| e.to_string())?;
    Ok((new_header, vec![batch]))
}

fn column_array(cells: &[Option<Cell>]) -> ArrayRef {
    let text = cells.iter().any(|c| matches!(c, Some(Cell::Text(_))));
    if text {
        let mut b = StringBuilder::new();
        for cell in cells {
            match cell {
                Some(Cell::Text(t)) => b.append_value(t),
                Some(Cell::Num(x)) => b.append_value(tracesql_udfs::pyfmt::python_float_repr(*x)),
                None => b.append_null(),
            }
        }
        Arc::new(b.finish())
    } else {
        let mut b = Float64Builder::new();
        for cell in cells {
            match cell {
                Some(Cell::Num(x)) => b.append_value(*x),
                _ => b.append_null(),
            }
        }
        Arc::new(b.finish())
    }
}
