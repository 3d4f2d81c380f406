//! Column documentation and the glue from documented columns to Arrow batches.

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, Int64Builder, ListBuilder, StringArray,
    StringBuilder,
};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;

use crate::ingest::{Bits, Column};

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

/// A string column allocated once at its exact size (the iterator is walked twice:
/// lengths, then bytes), for the large columns where growing buffers cost time and
/// leave spare capacity behind.
pub fn utf8_exact<'a, I>(rows: I) -> Result<ArrayRef, ArrowError>
where
    I: Iterator<Item = Option<&'a str>> + Clone,
{
    let (n, bytes) = rows.clone().fold((0usize, 0usize), |(n, b), r| {
        (n + 1, b + r.map_or(0, str::len))
    });
    let mut values = Vec::with_capacity(bytes);
    let mut offsets = Vec::with_capacity(n + 1);
    let mut valid = Bits::default();
    offsets.push(0i32);
    for row in rows {
        values.extend_from_slice(row.unwrap_or("").as_bytes());
        offsets.push(offset(values.len())?);
        valid.push(row.is_some());
    }
    let array = StringArray::try_new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Buffer::from_vec(values),
        nulls(valid),
    )?;
    Ok(Arc::new(array))
}

/// A string column taken over from text stored back to back (see
/// `RawTrace::args_text`): no copy.
pub fn utf8_parts(text: String, offsets: Vec<i32>, valid: Bits) -> Result<ArrayRef, ArrowError> {
    let array = StringArray::try_new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Buffer::from_vec(text.into_bytes()),
        nulls(valid),
    )?;
    Ok(Arc::new(array))
}

fn offset(len: usize) -> Result<i32, ArrowError> {
    i32::try_from(len).map_err(|_| {
        ArrowError::ComputeError("a string column exceeds 2 GiB, more than Utf8 holds".into())
    })
}

/// The same string on `n` rows, allocated once at its exact size.
pub fn repeat_utf8(value: &str, n: usize) -> ArrayRef {
    let len = value.len();
    let fits = n
        .checked_mul(len)
        .is_some_and(|total| offset(total).is_ok());
    if !fits {
        // Out of Utf8's range: let the builder report it as it always has.
        return Arc::new(StringArray::from(vec![value; n]));
    }
    let offsets: Vec<i32> = (0..=n).map(|i| (i * len) as i32).collect();
    let values = value.repeat(n).into_bytes();
    Arc::new(StringArray::new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Buffer::from_vec(values),
        None,
    ))
}

/// A validity bitmap as Arrow's null buffer (None when nothing is null).
fn nulls(valid: Bits) -> Option<NullBuffer> {
    let (words, len) = valid.into_parts();
    let nulls = NullBuffer::new(BooleanBuffer::new(Buffer::from_vec(words), 0, len));
    (nulls.null_count() > 0).then_some(nulls)
}

/// A decoded Int64 column taken over without copying.
pub fn int64_column(column: Column<i64>) -> ArrayRef {
    let (values, valid) = column.into_parts();
    Arc::new(Int64Array::new(ScalarBuffer::from(values), nulls(valid)))
}

/// A decoded Float64 column taken over without copying.
pub fn float64_column(column: Column<f64>) -> ArrayRef {
    let (values, valid) = column.into_parts();
    Arc::new(Float64Array::new(ScalarBuffer::from(values), nulls(valid)))
}

/// An Int64 column with no NULLs, taken over without copying.
pub fn int64_values(values: Vec<i64>) -> ArrayRef {
    Arc::new(Int64Array::new(ScalarBuffer::from(values), None))
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
