//! Column documentation and the glue from documented columns to Arrow batches.

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, Int64Builder, ListBuilder, StringArray,
    StringBuilder,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;

/// The column types tracesql uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Utf8,
    Int64,
    Float64,
    Bool,
    /// A list of strings (dtypes, concrete inputs).
    Utf8List,
    /// A list of integer lists (one shape or stride per input).
    Int64ListList,
}

impl Ty {
    pub fn data_type(self) -> DataType {
        match self {
            Ty::Utf8 => DataType::Utf8,
            Ty::Int64 => DataType::Int64,
            Ty::Float64 => DataType::Float64,
            Ty::Bool => DataType::Boolean,
            Ty::Utf8List => DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            Ty::Int64ListList => {
                let inner = DataType::List(Arc::new(Field::new("item", DataType::Int64, true)));
                DataType::List(Arc::new(Field::new("item", inner, true)))
            }
        }
    }
}

/// One documented column.
pub struct ColumnDoc {
    pub name: &'static str,
    pub ty: Ty,
    pub doc: &'static str,
}

/// One documented table.
pub struct TableDoc {
    pub name: &'static str,
    pub doc: &'static str,
    pub columns: &'static [ColumnDoc],
}

impl TableDoc {
    pub fn schema(&self) -> SchemaRef {
        let fields: Vec<Field> = self
            .columns
            .iter()
            .map(|c| Field::new(c.name, c.ty.data_type(), true))
            .collect();
        Arc::new(Schema::new(fields))
    }

    /// Assembles a batch; `columns` must name the documented columns in order.
    pub fn batch(&self, columns: Vec<(&str, ArrayRef)>) -> Result<RecordBatch, ArrowError> {
        let names: Vec<&str> = columns.iter().map(|(n, _)| *n).collect();
        let documented: Vec<&str> = self.columns.iter().map(|c| c.name).collect();
        if names != documented {
            return Err(ArrowError::SchemaError(format!(
                "table {}: built columns {names:?} differ from the documented {documented:?}",
                self.name
            )));
        }
        let arrays = columns.into_iter().map(|(_, a)| a).collect();
        RecordBatch::try_new(self.schema(), arrays)
    }
}

macro_rules! col {
    ($name:literal, $ty:ident, $doc:literal) => {
        $crate::model::ColumnDoc {
            name: $name,
            ty: $crate::model::Ty::$ty,
            doc: $doc,
        }
    };
}
pub(crate) use col;

pub fn utf8<S: AsRef<str>>(values: impl IntoIterator<Item = Option<S>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(values))
}

pub fn repeat_utf8(value: &str, n: usize) -> ArrayRef {
    Arc::new(StringArray::from(vec![value; n]))
}

pub fn int64(values: impl IntoIterator<Item = Option<i64>>) -> ArrayRef {
    Arc::new(Int64Array::from_iter(values))
}

pub fn float64(values: impl IntoIterator<Item = Option<f64>>) -> ArrayRef {
    Arc::new(Float64Array::from_iter(values))
}

pub fn boolean(values: impl IntoIterator<Item = Option<bool>>) -> ArrayRef {
    Arc::new(BooleanArray::from_iter(values))
}

/// A list-of-strings column; each row is given as its JSON array text.
///
/// Rows whose text is not an array of strings-or-nulls become NULL.
pub fn utf8_list_from_json<'a>(rows: impl IntoIterator<Item = Option<&'a str>>) -> ArrayRef {
    let mut builder = ListBuilder::new(StringBuilder::new());
    for row in rows {
        match row.and_then(|t| serde_json::from_str::<Vec<Option<String>>>(t).ok()) {
            Some(items) => {
                for item in items {
                    builder.values().append_option(item);
                }
                builder.append(true);
            }
            None => builder.append(false),
        }
    }
    Arc::new(builder.finish())
}

/// A list-of-integer-lists column from JSON text such as `[[1, 512], [], [512]]`.
///
/// An element that is not a flat list of integers (a TensorList argument records
/// a list of shapes) becomes a NULL element; a row that is not a list becomes NULL.
pub fn int64_list_list_from_json<'a>(rows: impl IntoIterator<Item = Option<&'a str>>) -> ArrayRef {
    let mut builder = ListBuilder::new(ListBuilder::new(Int64Builder::new()));
    for row in rows {
        let parsed = row.and_then(|t| serde_json::from_str::<Vec<serde_json::Value>>(t).ok());
        let Some(items) = parsed else {
            builder.append(false);
            continue;
        };
        for item in items {
            let ints: Option<Vec<i64>> = item
                .as_array()
                .and_then(|xs| xs.iter().map(serde_json::Value::as_i64).collect());
            let inner = builder.values();
            match ints {
                Some(xs) => {
                    inner.values().append_slice(&xs);
                    inner.append(true);
                }
                None => inner.append(false),
            }
        }
        builder.append(true);
    }
    Arc::new(builder.finish())
}
