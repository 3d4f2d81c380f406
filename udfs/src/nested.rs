//! Reading `LIST<STRUCT<…>>` arguments by field name.
//!
//! Why by name: such lists are built in SQL (`array_agg(named_struct(…))`), so field
//! order, nullability and string flavour (`Utf8`, `Utf8View`, `LargeUtf8`) depend
//! on the query and on the ingest schema. Looking fields up by name and casting them
//! to one canonical type keeps the functions indifferent to all of that.

use datafusion::arrow::array::{Array, ArrayRef, AsArray, ListArray, StructArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Fields};
use datafusion::common::{exec_err, plan_err, Result};

/// Checks at planning time that `arg` is a list of structs holding `required`
/// fields, and returns the `List` type the argument should be coerced to.
pub(crate) fn coerce_list_of_structs(
    function: &str,
    arg: &DataType,
    required: &[&str],
) -> Result<DataType> {
    let item = match arg {
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => f,
        other => return plan_err!("{function} expects a LIST of STRUCTs, got {other}"),
    };
    let DataType::Struct(fields) = item.data_type() else {
        return plan_err!(
            "{function} expects a LIST of STRUCTs, got a LIST of {}",
            item.data_type()
        );
    };
    for name in required {
        if fields.find(name).is_none() {
            return plan_err!(
                "{function}: the list's structs have no field '{name}' (fields: {})",
                field_names(fields)
            );
        }
    }
    Ok(DataType::List(item.clone()))
}

fn field_names(fields: &Fields) -> String {
    fields
        .iter()
        .map(|f| f.name().as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The list and its flattened struct values.
pub(crate) fn list_of_structs<'a>(
    function: &str,
    array: &'a ArrayRef,
) -> Result<(&'a ListArray, &'a StructArray)> {
    let Some(list) = array.as_list_opt::<i32>() else {
        return exec_err!(
            "{function} expects a LIST of STRUCTs, got {}",
            array.data_type()
        );
    };
    let Some(structs) = list.values().as_struct_opt() else {
        return exec_err!(
            "{function} expects a LIST of STRUCTs, got a LIST of {}",
            list.values().data_type()
        );
    };
    Ok((list, structs))
}

/// The struct field `name` cast to `to`, or `None` when the struct has no such field.
pub(crate) fn child(structs: &StructArray, name: &str, to: &DataType) -> Result<Option<ArrayRef>> {
    match structs.column_by_name(name) {
        Some(column) => Ok(Some(cast(column, to)?)),
        None => Ok(None),
    }
}

/// Like [`child`], for a field the function cannot do without.
pub(crate) fn required_child(
    function: &str,
    structs: &StructArray,
    name: &str,
    to: &DataType,
) -> Result<ArrayRef> {
    match child(structs, name, to)? {
        Some(column) => Ok(column),
        None => exec_err!(
            "{function}: the list's structs have no field '{name}' (fields: {})",
            field_names(structs.fields())
        ),
    }
}
