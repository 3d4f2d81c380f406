//! [`QueryResult`]: what `sql`, `report` and the listings return: the engine's
//! Arrow batches, held as they came, handed to pyarrow, pandas, Polars and
//! DuckDB through the Arrow PyCapsule interface (no copy, no row-by-row
//! conversion).

use std::sync::Arc;

use arrow::ffi::FFI_ArrowSchema;
use arrow::ffi_stream::FFI_ArrowArrayStream;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchIterator};
use pyo3::exceptions::{PyImportError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use tracesql::output::terminal::{self, PrintFormat, PrintOptions};

/// Rows `repr()` and Jupyter show; the rest are counted.
const SHOWN_ROWS: usize = 40;

/// The result of a query or report: Arrow record batches with their schema.
///
/// Convert with `to_arrow()`, `to_pandas()` or `to_polars()`, or hand it to any
/// library that reads the Arrow PyCapsule interface (`__arrow_c_stream__`):
/// `pyarrow.table(r)`, `polars.DataFrame(r)`, `duckdb.sql("SELECT * FROM r")`
/// take it without a copy. `len(r)` is its row count; `r.columns` its column names.
#[pyclass(name = "Result", module = "tracesql", frozen)]
pub struct QueryResult {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
    /// What it is, for `repr()`: a report's sheet name, a query's first line.
    title: Option<String>,
}

impl QueryResult {
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>, title: Option<String>) -> Self {
        // Batches of a plan may carry another schema's metadata; the stream
        // promises one schema, so every batch is given the result's.
        let batches = batches
            .into_iter()
            .filter(|b| b.num_rows() > 0)
            .map(|b| match b.clone().with_schema(schema.clone()) {
                Ok(same) => same,
                Err(_) => b,
            })
            .collect();
        QueryResult {
            schema,
            batches,
            title,
        }
    }

    /// A report sheet: its batches, or its header as text columns when empty.
    pub fn of_sheet(sheet: &tracesql::output::Sheet) -> Self {
        let schema = Arc::new(sheet.schema());
        QueryResult::new(schema, sheet.batches.clone(), Some(sheet.sheet.clone()))
    }

    /// This result with its dictionary columns decoded to their values; None
    /// when it has none.
    fn decoded(&self) -> PyResult<Option<QueryResult>> {
        use datafusion::arrow::datatypes::{DataType, Field, Schema};
        let plain = |f: &Field| match f.data_type() {
            DataType::Dictionary(_, value) => {
                Some(f.clone().with_data_type(value.as_ref().clone()))
            }
            _ => None,
        };
        if !self.schema.fields().iter().any(|f| plain(f).is_some()) {
            return Ok(None);
        }
        let fields: Vec<Field> = self
            .schema
            .fields()
            .iter()
            .map(|f| plain(f).unwrap_or_else(|| f.as_ref().clone()))
            .collect();
        let schema = Arc::new(Schema::new_with_metadata(
            fields,
            self.schema.metadata().clone(),
        ));
        let batches = self
            .batches
            .iter()
            .map(|batch| tracesql::model::cast_batch(batch, schema.clone()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| {
                PyValueError::new_err(format!("cannot decode a dictionary column: {e}"))
            })?;
        Ok(Some(QueryResult::new(schema, batches, self.title.clone())))
    }

    fn rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }

    fn text_table(&self) -> String {
        let options = PrintOptions {
            format: PrintFormat::Table,
            maxrows: SHOWN_ROWS,
            timer: false,
            // The terminal's width (or $COLUMNS, else 100), as the CLI fits its tables.
            fit_terminal: true,
            interactive: false,
        };
        let mut out = Vec::new();
        let printed =
            terminal::print_batches(&mut out, &self.schema, &self.batches, None, &options);
        match printed {
            Ok(()) => String::from_utf8_lossy(&out).into_owned(),
            Err(e) => format!("<cannot print the result: {e}>"),
        }
    }
}

#[pymethods]
impl QueryResult {
    /// The column names, in order.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    /// The row count.
    #[getter]
    fn num_rows(&self) -> usize {
        self.rows()
    }

    fn __len__(&self) -> usize {
        self.rows()
    }

    /// The Arrow C stream of the batches (the Arrow PyCapsule interface). Each
    /// call makes a new stream over the same buffers. The stream is in the
    /// result's own schema: a `requested_schema` is a hint the interface lets
    /// a producer decline, and the consumer casts if it must.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batches = self.batches.clone().into_iter().map(Ok);
        let reader = RecordBatchIterator::new(batches, self.schema.clone());
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The Arrow C schema of the result (the Arrow PyCapsule interface).
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.schema.as_ref())
            .map_err(|e| PyValueError::new_err(format!("cannot export the schema: {e}")))?;
        PyCapsule::new_with_value(py, schema, c"arrow_schema")
    }

    /// A `pyarrow.Table` over the result's buffers (no copy).
    fn to_arrow<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let pyarrow = import(slf.py(), "pyarrow", "to_arrow()")?;
        pyarrow.getattr("table")?.call1((slf,))
    }

    /// A `pandas.DataFrame` (through pyarrow's `to_pandas`). Dictionary-encoded
    /// text columns arrive as plain text: an engine's dictionaries may repeat
    /// values, which pandas' categoricals refuse.
    fn to_pandas<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        import(py, "pandas", "to_pandas()")?;
        let this = slf.get();
        match this.decoded()? {
            Some(plain) => Self::to_arrow(&Bound::new(py, plain)?)?.call_method0("to_pandas"),
            None => Self::to_arrow(slf)?.call_method0("to_pandas"),
        }
    }

    /// A `polars.DataFrame`, read through the Arrow PyCapsule interface.
    fn to_polars<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let polars = import(slf.py(), "polars", "to_polars()")?;
        polars.getattr("DataFrame")?.call1((slf,))
    }

    /// The rows as a list of dicts (column → value), through pyarrow.
    fn to_pylist<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Self::to_arrow(slf)?.call_method0("to_pylist")
    }

    fn __repr__(&self) -> String {
        let table = self.text_table();
        match &self.title {
            Some(title) => format!("{title}\n{table}"),
            None => table,
        }
    }

    /// An HTML table of the first rows, for Jupyter (the HTML report's tables).
    fn _repr_html_(&self) -> String {
        let header = self.columns();
        let mut rows = Vec::new();
        for batch in terminal::head(&self.batches, SHOWN_ROWS) {
            for row in 0..batch.num_rows() {
                let cells = batch
                    .columns()
                    .iter()
                    .map(|column| terminal::shorten_to(terminal::reading_cell(column, row), 100));
                rows.push(cells.collect::<Vec<_>>());
            }
        }
        let (shown, total) = (rows.len(), self.rows());
        let title = self.title.as_deref().map_or(String::new(), |t| {
            format!("<p><b>{}</b></p>", tracesql::charts::svg::escape(t))
        });
        let counted = format!(
            "{total} row{}{}",
            if total == 1 { "" } else { "s" },
            if shown < total {
                format!(" ({shown} shown)")
            } else {
                String::new()
            }
        );
        format!(
            "<div class=\"tracesql-result\">{title}{}<p>{counted}</p></div>",
            tracesql::charts::page::html_table(&header, &rows, &[])
        )
    }
}

/// `module`, or an ImportError saying which method needs it.
fn import<'py>(py: Python<'py>, module: &str, method: &str) -> PyResult<Bound<'py, PyModule>> {
    py.import(module).map_err(|_| {
        PyImportError::new_err(format!(
            "{method} needs the `{module}` package: pip install {module}"
        ))
    })
}
