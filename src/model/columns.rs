//! Column documentation and the glue from documented columns to Arrow batches.

use std::sync::Arc;

use datafusion::arrow::array::{
    new_null_array, Array, ArrayBuilder, ArrayRef, AsArray, BooleanArray, DictionaryArray,
    Float64Array, Int32Array, Int64Array, Int64Builder, ListBuilder, StringArray, StringBuilder,
    StringDictionaryBuilder,
};
use datafusion::arrow::buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use datafusion::arrow::datatypes::{DataType, Field, Int32Type, Int64Type, Schema, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;

use crate::ingest::{Bits, Column, Strings};

/// The column types tracesql uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    Utf8,
    /// A string whose values repeat (trace, names, categories, shapes as JSON):
    /// dictionary-encoded, so each distinct value is stored once and each row
    /// holds a 4-byte key. Queries read it as text; a result column computed
    /// from one may keep the dictionary type.
    Utf8Dict,
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
            Ty::Utf8Dict => {
                DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
            }
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

    /// The schema of the columns at `projection` (indexes into the documented
    /// columns, in that order; None: all): what a table derived on each scan
    /// builds.
    pub fn projected_schema(&self, projection: Option<&[usize]>) -> Result<SchemaRef, ArrowError> {
        let schema = self.schema();
        match projection {
            Some(columns) => Ok(Arc::new(schema.project(columns)?)),
            None => Ok(schema),
        }
    }

    /// Assembles a batch; `columns` must name the documented columns in order.
    /// A builder may leave [`RANK`] out: it is NULL until [`set_rank`] writes
    /// the trace's rank, which the builders do not know.
    pub fn batch(&self, mut columns: Vec<(&str, ArrayRef)>) -> Result<RecordBatch, ArrowError> {
        let rows = columns.first().map_or(0, |(_, a)| a.len());
        if let Some(i) = self.columns.iter().position(|c| c.name == RANK.name) {
            if columns.get(i).map(|(n, _)| *n) != Some(RANK.name) && i <= columns.len() {
                columns.insert(i, (RANK.name, new_null_array(&DataType::Int64, rows)));
            }
        }
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

/// `schema` as tables and reports are stored in Parquet: dictionary-encoded text
/// (the `trace` column, [`Ty::Utf8Dict`]) as plain strings. An export's tables are
/// partitioned by trace (`trace=NAME/` directories), which DuckDB and pyarrow read
/// as a string column; a dictionary column of the same name in the files would
/// conflict with it.
pub fn stored_schema(schema: &Schema) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Dictionary(_, value) if **value == DataType::Utf8 => {
                f.as_ref().clone().with_data_type(DataType::Utf8)
            }
            _ => f.as_ref().clone(),
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `batch` with each column cast to the type `schema` gives it (the same columns,
/// in the same order).
pub fn cast_batch(batch: &RecordBatch, schema: SchemaRef) -> Result<RecordBatch, ArrowError> {
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(column, field)| {
            if column.data_type() == field.data_type() {
                Ok(Arc::clone(column))
            } else {
                datafusion::arrow::compute::cast(column, field.data_type())
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    RecordBatch::try_new(schema, columns)
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

/// Every table's second column, after `trace`: so that a query over the traces
/// of all ranks of a run can group, filter or join any table by rank without a
/// join to `ranks`.
pub const RANK: ColumnDoc = col!(
    "rank",
    Int64,
    "The trace's global rank in its distributed job (ranks.rank): distributedInfo.rank, else the number the rank pattern finds in the file name; under `tracesql collectives` also the position on the command line. NULL when unknown. A process driving several GPUs has one rank here; rank_devices gives each device its own."
);

/// `batch` with its `rank` column set to `rank` in every row (a batch without
/// one is returned as it is). A NULL rank over a column already NULL is free.
pub fn set_rank(batch: &RecordBatch, rank: Option<i64>) -> Result<RecordBatch, ArrowError> {
    let Ok(i) = batch.schema().index_of(RANK.name) else {
        return Ok(batch.clone());
    };
    let current = batch.column(i);
    if rank.is_none() && current.null_count() == current.len() {
        return Ok(batch.clone());
    }
    let mut columns = batch.columns().to_vec();
    columns[i] = rank_column(rank, batch.num_rows());
    RecordBatch::try_new(batch.schema(), columns)
}

/// A `rank` column of `rows` rows, each `rank` (NULL when unknown).
pub fn rank_column(rank: Option<i64>, rows: usize) -> ArrayRef {
    match rank {
        Some(r) => Arc::new(Int64Array::from_value(r, rows)),
        None => new_null_array(&DataType::Int64, rows),
    }
}

/// The rank a batch's `rank` column holds (its first row), if any.
pub fn rank_of(batch: &RecordBatch) -> Option<i64> {
    let column = batch
        .column_by_name(RANK.name)?
        .as_primitive_opt::<Int64Type>()?;
    (!column.is_empty() && column.is_valid(0)).then(|| column.value(0))
}

pub fn utf8<S: AsRef<str>>(values: impl IntoIterator<Item = Option<S>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(values))
}

/// A dictionary-encoded string column ([`Ty::Utf8Dict`]).
pub fn dict<S: AsRef<str>>(
    values: impl IntoIterator<Item = Option<S>>,
) -> Result<ArrayRef, ArrowError> {
    let mut builder = StringDictionaryBuilder::<Int32Type>::new();
    for value in values {
        match value {
            Some(v) => {
                builder.append(v)?;
            }
            None => builder.append_null(),
        }
    }
    Ok(Arc::new(builder.finish()))
}

/// Dictionary keys for interned ids (into `strings`, see `ingest::Strings`):
/// the ids renumbered in order of first use, each one's string collected once,
/// so no string is hashed again.
struct InternedKeys<'a> {
    strings: &'a Strings,
    /// Key of each id; -1 until the id is first seen.
    key_of: Vec<i32>,
    values: StringBuilder,
}

impl<'a> InternedKeys<'a> {
    fn new(strings: &'a Strings) -> Self {
        InternedKeys {
            strings,
            key_of: vec![-1; strings.len()],
            values: StringBuilder::new(),
        }
    }

    /// The key of `id`; None for an id `strings` does not hold.
    fn key(&mut self, id: u32) -> Option<i32> {
        let key = self.key_of.get_mut(id as usize)?;
        if *key < 0 {
            *key = self.values.len() as i32;
            self.values.append_value(self.strings.get(id));
        }
        Some(*key)
    }

    fn finish(mut self, keys: Int32Array) -> Result<ArrayRef, ArrowError> {
        let values: ArrayRef = Arc::new(self.values.finish());
        Ok(Arc::new(DictionaryArray::<Int32Type>::try_new(
            keys, values,
        )?))
    }
}

/// A dictionary-encoded column of interned strings ([`InternedKeys`]).
pub fn dict_interned(
    ids: impl Iterator<Item = Option<u32>>,
    strings: &Strings,
) -> Result<ArrayRef, ArrowError> {
    let mut keys = InternedKeys::new(strings);
    let rows: Int32Array = ids.map(|id| keys.key(id?)).collect();
    keys.finish(rows)
}

/// A string column taken over from text stored back to back (see
/// `ingest::ArgsText`): no copy.
pub fn utf8_parts(text: String, offsets: Vec<i32>, valid: Bits) -> Result<ArrayRef, ArrowError> {
    let array = StringArray::try_new(
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Buffer::from_vec(text.into_bytes()),
        nulls(valid),
    )?;
    Ok(Arc::new(array))
}

/// The same string on `n` rows, as a dictionary of one value (see [`Ty::Utf8Dict`]).
pub fn repeat_dict(value: &str, n: usize) -> ArrayRef {
    let keys = Int32Array::from(vec![0; n]);
    let values: ArrayRef = Arc::new(StringArray::from(vec![value]));
    Arc::new(DictionaryArray::<Int32Type>::new(keys, values))
}

/// [`dict_interned`] of a whole column, taken over: its ids are renumbered in
/// place into the keys, so the column is never held twice.
pub fn dict_from_ids(column: Column<u32>, strings: &Strings) -> Result<ArrayRef, ArrowError> {
    let (ids, valid) = column.into_parts();
    let mut keys = InternedKeys::new(strings);
    // Same size and alignment: the collect reuses the ids' allocation.
    let rows: Vec<i32> = ids
        .into_iter()
        .enumerate()
        .map(|(row, id)| match valid.get(row) {
            true => keys.key(id).unwrap_or(0),
            false => 0,
        })
        .collect();
    keys.finish(Int32Array::new(ScalarBuffer::from(rows), nulls(valid)))
}

/// A validity bitmap as Arrow's null buffer (None when nothing is null).
fn nulls(valid: Bits) -> Option<NullBuffer> {
    let (words, len) = valid.into_parts();
    let nulls = NullBuffer::new(BooleanBuffer::new(Buffer::from_vec(words), 0, len));
    (nulls.null_count() > 0).then_some(nulls)
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
    let mut items: Vec<Option<&str>> = Vec::new();
    for row in rows {
        let Some(text) = row else {
            builder.append(false);
            continue;
        };
        items.clear();
        if flat::strings(text, &mut items).is_some() {
            for item in &items {
                builder.values().append_option(*item);
            }
            builder.append(true);
            continue;
        }
        match serde_json::from_str::<Vec<Option<String>>>(text) {
            Ok(items) => {
                for item in items {
                    builder.values().append_option(item);
                }
                builder.append(true);
            }
            Err(_) => builder.append(false),
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
    let (mut values, mut lens) = (Vec::new(), Vec::new());
    for row in rows {
        let Some(text) = row else {
            builder.append(false);
            continue;
        };
        values.clear();
        lens.clear();
        if flat::shapes(text, &mut values, &mut lens).is_some() {
            let inner = builder.values();
            let mut at = 0;
            for &len in &lens {
                inner.values().append_slice(&values[at..at + len]);
                inner.append(true);
                at += len;
            }
            builder.append(true);
            continue;
        }
        let Ok(items) = serde_json::from_str::<Vec<serde_json::Value>>(text) else {
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

/// Readers for the shapes every cpu_op records (`[[1, 512], []]`, `["float", ""]`),
/// without building a JSON value per row. They take only the plain form and
/// return None on anything else (escapes, TensorList nesting, floats, bad JSON),
/// which then goes through serde_json: the result is the same either way.
mod flat {
    /// `[[int, ...], ...]`: every integer into `values`, each shape's length into `lens`.
    pub fn shapes(text: &str, values: &mut Vec<i64>, lens: &mut Vec<usize>) -> Option<()> {
        let mut at = Bytes::new(text);
        at.expect(b'[')?;
        if at.eat(b']') {
            return at.end();
        }
        loop {
            at.expect(b'[')?;
            let mut len = 0;
            if !at.eat(b']') {
                loop {
                    values.push(at.integer()?);
                    len += 1;
                    if at.eat(b']') {
                        break;
                    }
                    at.expect(b',')?;
                }
            }
            lens.push(len);
            if at.eat(b']') {
                return at.end();
            }
            at.expect(b',')?;
        }
    }

    /// `["text", null, ...]` with no escapes in the strings.
    pub fn strings<'a>(text: &'a str, items: &mut Vec<Option<&'a str>>) -> Option<()> {
        let mut at = Bytes::new(text);
        at.expect(b'[')?;
        if at.eat(b']') {
            return at.end();
        }
        loop {
            items.push(at.string_or_null()?);
            if at.eat(b']') {
                return at.end();
            }
            at.expect(b',')?;
        }
    }

    struct Bytes<'a> {
        text: &'a str,
        at: usize,
    }

    impl<'a> Bytes<'a> {
        fn new(text: &'a str) -> Self {
            Bytes { text, at: 0 }
        }

        fn skip_space(&mut self) {
            let bytes = self.text.as_bytes();
            while bytes.get(self.at).is_some_and(|b| b" \t\n\r".contains(b)) {
                self.at += 1;
            }
        }

        /// Consumes `byte` (after whitespace) if it comes next.
        fn eat(&mut self, byte: u8) -> bool {
            self.skip_space();
            let found = self.text.as_bytes().get(self.at) == Some(&byte);
            self.at += usize::from(found);
            found
        }

        fn expect(&mut self, byte: u8) -> Option<()> {
            self.eat(byte).then_some(())
        }

        /// Only whitespace is left.
        fn end(&mut self) -> Option<()> {
            self.skip_space();
            (self.at == self.text.len()).then_some(())
        }

        /// A JSON integer that fits i64 (no fraction, exponent or leading zero).
        fn integer(&mut self) -> Option<i64> {
            self.skip_space();
            let bytes = self.text.as_bytes();
            let negative = bytes.get(self.at) == Some(&b'-');
            let start = self.at + usize::from(negative);
            let digits = bytes[start..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let end = start + digits;
            let leading_zero = digits > 1 && bytes[start] == b'0';
            let more = bytes.get(end).is_some_and(|b| b".eE".contains(b));
            if digits == 0 || leading_zero || more {
                return None;
            }
            let mut magnitude: i64 = 0;
            for &d in &bytes[start..end] {
                let d = i64::from(d - b'0');
                magnitude = magnitude.checked_mul(10)?;
                magnitude = if negative {
                    magnitude.checked_sub(d)?
                } else {
                    magnitude.checked_add(d)?
                };
            }
            self.at = end;
            Some(magnitude)
        }

        /// `"text"` with no escape or control character, or `null`.
        fn string_or_null(&mut self) -> Option<Option<&'a str>> {
            self.skip_space();
            let rest = &self.text[self.at..];
            if rest.starts_with("null") {
                self.at += 4;
                return Some(None);
            }
            let body = rest.strip_prefix('"')?;
            let len = body
                .bytes()
                .position(|b| b == b'"' || b == b'\\' || b < 0x20)?;
            if body.as_bytes()[len] != b'"' {
                return None;
            }
            self.at += len + 2;
            Some(Some(&body[..len]))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Array, ListArray};

    /// The serde_json reading every row used to get: what the fast path must match.
    fn shapes_by_serde(text: &str) -> Option<Vec<Option<Vec<i64>>>> {
        let items = serde_json::from_str::<Vec<serde_json::Value>>(text).ok()?;
        Some(
            items
                .iter()
                .map(|item| {
                    item.as_array()
                        .and_then(|xs| xs.iter().map(serde_json::Value::as_i64).collect())
                })
                .collect(),
        )
    }

    fn shapes_read(array: &ArrayRef, row: usize) -> Option<Vec<Option<Vec<i64>>>> {
        let outer = array.as_any().downcast_ref::<ListArray>().expect("a list");
        if outer.is_null(row) {
            return None;
        }
        let shapes = outer.value(row);
        let shapes = shapes.as_any().downcast_ref::<ListArray>().expect("lists");
        Some(
            (0..shapes.len())
                .map(|i| {
                    (!shapes.is_null(i)).then(|| {
                        let ints = shapes.value(i);
                        let ints = ints.as_any().downcast_ref::<Int64Array>().expect("ints");
                        ints.values().to_vec()
                    })
                })
                .collect(),
        )
    }

    #[test]
    fn shapes_read_as_serde_reads_them() {
        let texts = [
            "[[1, 512], [], [512]]",
            "[]",
            " [ [ -3 ,0 ] , [9223372036854775807] ] ",
            "[[-9223372036854775808]]",
            "[[9223372036854775808]]",
            "[[1.5], [2]]",
            "[[1e3]]",
            "[[01]]",
            "[[[1, 2], [3]], [4]]",
            "[null, [1]]",
            "[\"\", [1]]",
            "[[1], [2]] x",
            "[[1], [2]",
            "[[-]]",
            "{}",
        ];
        let array = int64_list_list_from_json(texts.iter().map(|t| Some(*t)));
        for (row, text) in texts.iter().enumerate() {
            assert_eq!(shapes_read(&array, row), shapes_by_serde(text), "{text}");
        }
        assert_eq!(
            shapes_read(&array, 0),
            Some(vec![Some(vec![1, 512]), Some(vec![]), Some(vec![512])])
        );
    }

    #[test]
    fn string_lists_read_as_serde_reads_them() {
        let texts = [
            "[\"c10::BFloat16\", \"float\", \"\"]",
            "[]",
            "[null, \"Scalar\" ]",
            "[\"a\\\"b\", \"\\u00e9\"]",
            "[\"µs\", \"ü\"]",
            "[\"tab\there\"]",
            "[1, \"x\"]",
            "[\"x\",]",
            "[nullx]",
            "[\"x\"] [",
        ];
        let array = utf8_list_from_json(texts.iter().map(|t| Some(*t)));
        let lists = array.as_any().downcast_ref::<ListArray>().expect("a list");
        for (row, text) in texts.iter().enumerate() {
            let expected = serde_json::from_str::<Vec<Option<String>>>(text).ok();
            let got = (!lists.is_null(row)).then(|| {
                let items = lists.value(row);
                let items = items
                    .as_any()
                    .downcast_ref::<StringArray>()
                    .expect("strings");
                (0..items.len())
                    .map(|i| (!items.is_null(i)).then(|| items.value(i).to_string()))
                    .collect::<Vec<_>>()
            });
            assert_eq!(got, expected, "{text}");
        }
        assert!(lists.is_valid(0) && lists.is_null(6));
    }
}
