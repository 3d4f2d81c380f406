//! What a session holds, as SQL tables: the one listing behind `tracesql tables`,
//! `schema` and `queries` and the REPL's `.tables`, `.schema` and `.queries`, in
//! the spirit of DuckDB's `duckdb_tables()` and Perfetto's stdlib docs.
//!
//! | table | one row per |
//! |---|---|
//! | `tracesql_tables` | table, view, category, table function and session table, with rows where known |
//! | `tracesql_columns` | column of each of those, with its type and doc |
//! | `tracesql_queries` | query of the catalog (views, categories, reports, rules, analysis sections) |
//! | `tracesql_functions` | function tracesql adds to SQL (drill-down table functions, UDFs) |
//!
//! The rows are made when a query reads them, so they follow tables added
//! later and views the user creates (`CREATE VIEW`).

use std::sync::{Arc, Weak};

use async_trait::async_trait;
use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::{SchemaProvider, Session, TableProvider};
use datafusion::datasource::{MemTable, TableType};
use datafusion::error::Result;
use datafusion::execution::context::SessionState;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;

use super::derived_tables::RowCounts;
use super::drilldown::{function_schema, FUNCTIONS};
use super::views::CatalogSchema;
use crate::catalog::{expanded_notes, Catalog, Query};
use crate::model::{table_doc, ColumnDoc, TABLES};

/// A table the engine adds beside the trace model's, with its doc.
pub struct SessionTable {
    pub name: &'static str,
    pub doc: &'static str,
}

/// The engine's own tables (the trace model's carry their docs in `TABLES`).
pub const SESSION_TABLES: &[SessionTable] = &[
    SessionTable {
        name: "platforms",
        doc: "GPU platforms and their peaks: HBM TB/s and TFLOPS per compute spec (built in, plus --platforms FILE), with sources.",
    },
    SessionTable {
        name: "session_platform",
        doc: "The platform roofline columns use in this session (--platform, .platform, SET platform, or detected from deviceProperties: by the GPU's name, else guessed from its architecture, SM/CU count and memory), and why (reason, one line); platform NULL when none.",
    },
    SessionTable {
        name: "findings_raw",
        doc: "The analyzer's rule rows before ranking (filled by `tracesql analyze`; see view findings).",
    },
    SessionTable {
        name: "tracesql_tables",
        doc: "Every table, view, category and table function of the session: name, kind, rows (tables), description.",
    },
    SessionTable {
        name: "tracesql_columns",
        doc: "Every column of every table, view and table function: table, column, type, description.",
    },
    SessionTable {
        name: "tracesql_queries",
        doc: "The query catalog: name, kind, version, params, description and the file each came from.",
    },
    SessionTable {
        name: "tracesql_functions",
        doc: "The functions tracesql adds to SQL (drill-down table functions, perf-model and formatting UDFs).",
    },
];

/// The names of the listing tables, in [`SESSION_TABLES`] order.
const LISTINGS: [&str; 4] = [
    "tracesql_tables",
    "tracesql_columns",
    "tracesql_queries",
    "tracesql_functions",
];

/// The doc of a table the engine adds, or "".
pub fn session_table_doc(name: &str) -> &'static str {
    SESSION_TABLES
        .iter()
        .find(|t| t.name == name)
        .map_or("", |t| t.doc)
}

/// A function tracesql adds: its usage and what it does.
#[derive(Debug, Clone)]
pub struct FunctionDoc {
    pub name: String,
    pub kind: &'static str,
    pub description: String,
}

/// One row of `tracesql_tables`.
pub struct TableRow {
    pub name: String,
    /// `table`, `view`, `category`, `function` or `session`.
    pub kind: &'static str,
    pub rows: Option<i64>,
    pub description: String,
}

/// `tracesql_tables` rows for the trace model and the catalog, before the
/// session's own: what `tracesql tables` lists without a SQL session, given
/// each table's row count.
pub fn model_and_catalog_rows(catalog: &Catalog, rows: &dyn Fn(&str) -> usize) -> Vec<TableRow> {
    let mut out = model_rows(rows);
    for q in catalog.iter().filter(|q| q.kind.is_view()) {
        out.push(TableRow {
            name: q.name.clone(),
            kind: q.kind.as_str(),
            rows: None,
            description: q.description.clone(),
        });
    }
    for f in FUNCTIONS {
        out.push(TableRow {
            name: f.name.to_string(),
            kind: "function",
            rows: None,
            description: f.doc.to_string(),
        });
    }
    out
}

/// `tracesql_tables` rows of the trace model's tables, given their row counts.
fn model_rows(rows: &dyn Fn(&str) -> usize) -> Vec<TableRow> {
    TABLES
        .iter()
        .map(|t| TableRow {
            name: t.name.to_string(),
            kind: "table",
            rows: Some(rows(t.name) as i64),
            description: t.doc.to_string(),
        })
        .collect()
}

/// The trace model's tables with their row counts, as `tracesql tables`
/// prints them: [`model_rows`] as (table, rows, description).
pub fn model_tables_listing(rows: &dyn Fn(&str) -> usize) -> Result<RecordBatch> {
    let model = model_rows(rows);
    let schema = Schema::new(vec![
        Field::new("table", DataType::Utf8, false),
        Field::new("rows", DataType::Int64, true),
        Field::new("description", DataType::Utf8, false),
    ]);
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(model.iter().map(|r| &r.name))),
        Arc::new(Int64Array::from_iter(model.iter().map(|r| r.rows))),
        Arc::new(StringArray::from_iter_values(
            model.iter().map(|r| &r.description),
        )),
    ];
    Ok(RecordBatch::try_new(Arc::new(schema), columns)?)
}

/// `rows` as a `tracesql_tables` batch.
pub fn tables_batch(rows: &[TableRow]) -> Result<RecordBatch> {
    let columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.name))),
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| r.kind))),
        Arc::new(Int64Array::from_iter(rows.iter().map(|r| r.rows))),
        Arc::new(StringArray::from_iter_values(
            rows.iter().map(|r| &r.description),
        )),
    ];
    Ok(RecordBatch::try_new(schema_of(Listing::Tables), columns)?)
}

/// The catalog as a `tracesql_queries` batch.
pub fn queries_batch(catalog: &Catalog) -> Result<RecordBatch> {
    let queries: Vec<&Query> = catalog.iter().collect();
    let text = |f: &dyn Fn(&Query) -> String| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(queries.iter().map(|q| f(q))))
    };
    let columns = vec![
        text(&|q| q.name.clone()),
        text(&|q| q.kind.as_str().to_string()),
        Arc::new(Int64Array::from_iter_values(
            queries.iter().map(|q| i64::from(q.version)),
        )) as ArrayRef,
        text(&|q| q.params.join(", ")),
        text(&|q| q.description.clone()),
        text(&|q| q.origin.to_string()),
    ];
    Ok(RecordBatch::try_new(schema_of(Listing::Queries), columns)?)
}

/// `(table, column, type, description)` rows as a `tracesql_columns` batch.
pub fn columns_batch(rows: &[[String; 4]]) -> Result<RecordBatch> {
    let column = |i: usize| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r[i])))
    };
    let columns = (0..4).map(column).collect();
    Ok(RecordBatch::try_new(schema_of(Listing::Columns), columns)?)
}

/// The documented columns of a trace-model table or a drill-down function.
pub fn documented_columns(name: &str) -> Option<Vec<[String; 4]>> {
    let row = |c: &ColumnDoc| {
        [
            name.to_string(),
            c.name.to_string(),
            c.ty.data_type().to_string(),
            c.doc.to_string(),
        ]
    };
    if let Some(doc) = table_doc(name) {
        return Some(doc.columns.iter().map(row).collect());
    }
    let function = FUNCTIONS.iter().find(|f| f.name == name)?;
    if function.columns.is_empty() {
        // kernels_of returns the kernels table's columns.
        let kernels = table_doc("kernels").map_or(&[][..], |k| k.columns);
        return Some(kernels.iter().map(row).collect());
    }
    debug_assert_eq!(
        function_schema(function).fields().len(),
        function.columns.len()
    );
    Some(function.columns.iter().map(row).collect())
}

/// The listings' shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Listing {
    Tables,
    Columns,
    Queries,
    Functions,
}

fn schema_of(listing: Listing) -> SchemaRef {
    let text = |name: &str| Field::new(name, DataType::Utf8, false);
    let fields = match listing {
        Listing::Tables => vec![
            text("name"),
            text("kind"),
            Field::new("rows", DataType::Int64, true),
            text("description"),
        ],
        Listing::Columns => vec![
            text("table_name"),
            text("column_name"),
            text("data_type"),
            text("description"),
        ],
        Listing::Queries => vec![
            text("name"),
            text("kind"),
            Field::new("version", DataType::Int64, false),
            text("params"),
            text("description"),
            text("origin"),
        ],
        Listing::Functions => vec![text("name"), text("kind"), text("description")],
    };
    Arc::new(Schema::new(fields))
}

/// The rows (name, column, type, doc) of a planned `schema`: each column's
/// note from the catalog query's `Columns:` block; else the first column
/// carries the description.
pub fn noted_columns(
    name: &str,
    schema: &Schema,
    query: Option<&crate::catalog::Query>,
    description: &str,
    catalog: &Catalog,
) -> Vec<[String; 4]> {
    let returned: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let notes = match query {
        Some(q) => expanded_notes(q, &returned, catalog),
        None => Vec::new(),
    };
    schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, field)| {
            let doc = match notes.iter().find(|n| n.name == *field.name()) {
                Some(note) => note.doc.clone(),
                None if i == 0 => description.to_string(),
                None => String::new(),
            };
            [
                name.to_string(),
                field.name().clone(),
                field.data_type().to_string(),
                doc,
            ]
        })
        .collect()
}

/// What the listing tables read: the catalog, the tables as last registered
/// (counted when read), and the session's schema (weak: the schema holds the
/// listing tables).
pub struct SessionFacts {
    pub(super) catalog: Arc<Catalog>,
    pub(super) rows: RowCounts,
    pub(super) schema: Weak<CatalogSchema>,
}

impl SessionFacts {
    /// Every table, view, category, function and session table; then what the
    /// user created.
    pub(super) fn tables(&self) -> Vec<TableRow> {
        let count = |name: &str| self.rows.count(name);
        let mut rows = model_and_catalog_rows(&self.catalog, &count);
        for t in SESSION_TABLES {
            rows.push(TableRow {
                name: t.name.to_string(),
                kind: "session",
                rows: None,
                description: t.doc.to_string(),
            });
        }
        let mut user: Vec<String> = self.schema().map_or(Vec::new(), |s| s.table_names());
        user.sort();
        for name in user {
            if !rows.iter().any(|r| r.name == name) {
                rows.push(TableRow {
                    name,
                    kind: "user",
                    rows: None,
                    description: String::new(),
                });
            }
        }
        rows
    }

    /// The columns of `table` (every listed table when None): the trace model's
    /// and the functions' from their docs, the others from their planned schema
    /// with each catalog query's `Columns:` notes. A view that does not plan is
    /// listed with its error as the type, so one broken view hides nothing.
    pub(super) async fn columns(&self, table: Option<&str>) -> Result<Vec<[String; 4]>> {
        let names: Vec<String> = match table {
            Some(name) => vec![name.to_string()],
            None => self.tables().into_iter().map(|t| t.name).collect(),
        };
        let mut rows = Vec::new();
        for name in names {
            if let Some(documented) = documented_columns(&name) {
                rows.extend(documented);
                continue;
            }
            let description = match self.catalog.get(&name) {
                Some(q) => q.description.clone(),
                None => session_table_doc(&name).to_string(),
            };
            let Some(schema) = self.schema() else {
                break;
            };
            let provider = match schema.table(&name).await {
                Ok(Some(provider)) => provider,
                Ok(None) if table.is_some() => {
                    return Err(datafusion::error::DataFusionError::Plan(format!(
                        "no table, view or function named '{name}'; see tracesql_tables"
                    )))
                }
                Ok(None) => continue,
                Err(e) => {
                    let error = crate::one_line(&e.to_string());
                    rows.push([name, String::new(), format!("error: {error}"), description]);
                    continue;
                }
            };
            let query = self.catalog.get(&name);
            rows.extend(noted_columns(
                &name,
                &provider.schema(),
                query,
                &description,
                &self.catalog,
            ));
        }
        Ok(rows)
    }

    fn schema(&self) -> Option<Arc<CatalogSchema>> {
        self.schema.upgrade()
    }

    async fn batch(&self, listing: Listing, session: &dyn Session) -> Result<RecordBatch> {
        match listing {
            Listing::Tables => tables_batch(&self.tables()),
            Listing::Columns => columns_batch(&self.columns(None).await?),
            Listing::Queries => queries_batch(&self.catalog),
            Listing::Functions => functions_batch(&added_functions(session)),
        }
    }
}

/// The drill-down table functions, then the scalar and aggregate functions the
/// session has that a plain DataFusion session does not (a built-in tracesql
/// replaces, such as `array_agg`, is not listed), by name.
pub fn added_functions(session: &dyn Session) -> Vec<FunctionDoc> {
    let mut out: Vec<FunctionDoc> = FUNCTIONS
        .iter()
        .map(|f| {
            let (usage, what) = f.doc.split_once(": ").unwrap_or((f.name, f.doc));
            FunctionDoc {
                name: usage.to_string(),
                kind: "table function",
                description: what.to_string(),
            }
        })
        .collect();
    let plain = datafusion::prelude::SessionContext::new().state();
    // The UDF crate documents its functions in one table (tracesql_udfs::FUNCTIONS).
    let described = |name: &str| {
        let doc = tracesql_udfs::FUNCTIONS.iter().find(|f| f.documents(name));
        let replay = super::replay_sql::DOCS.iter().find(|(n, _, _)| *n == name);
        doc.map(|f| format!("{} → {}", f.usage, f.returns))
            .or_else(|| replay.map(|(_, usage, returns)| format!("{usage} → {returns}")))
            .unwrap_or_default()
    };
    let mut added = Vec::new();
    for name in session.scalar_functions().keys() {
        if !plain.scalar_functions().contains_key(name) {
            added.push((name.clone(), "scalar", described(name)));
        }
    }
    for name in session.aggregate_functions().keys() {
        if !plain.aggregate_functions().contains_key(name) {
            added.push((name.clone(), "aggregate", described(name)));
        }
    }
    // Table functions the UDF crate adds (e.g. perf_op_registry), beside the
    // drill-down ones listed above with their usage.
    let state = session.as_any().downcast_ref::<SessionState>();
    for name in state
        .map(|s| s.table_functions().keys())
        .into_iter()
        .flatten()
    {
        let drill = FUNCTIONS.iter().any(|f| f.name == name);
        if !drill && !plain.table_functions().contains_key(name) {
            added.push((name.clone(), "table function", described(name)));
        }
    }
    added.sort();
    out.extend(
        added
            .into_iter()
            .map(|(name, kind, description)| FunctionDoc {
                name,
                kind,
                description,
            }),
    );
    out
}

/// `functions` as a `tracesql_functions` batch.
pub fn functions_batch(functions: &[FunctionDoc]) -> Result<RecordBatch> {
    let name = StringArray::from_iter_values(functions.iter().map(|f| &f.name));
    let kind = StringArray::from_iter_values(functions.iter().map(|f| f.kind));
    let description = StringArray::from_iter_values(functions.iter().map(|f| &f.description));
    let columns: Vec<ArrayRef> = vec![Arc::new(name), Arc::new(kind), Arc::new(description)];
    Ok(RecordBatch::try_new(
        schema_of(Listing::Functions),
        columns,
    )?)
}

/// One listing table; its rows are made on each scan.
#[derive(Clone)]
pub struct ListingTable {
    listing: Listing,
    facts: Arc<SessionFacts>,
}

impl std::fmt::Debug for ListingTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "listing {:?}", self.listing)
    }
}

/// The four listing tables over `facts`, by name.
pub fn listing_tables(facts: Arc<SessionFacts>) -> Vec<(&'static str, ListingTable)> {
    let kinds = [
        Listing::Tables,
        Listing::Columns,
        Listing::Queries,
        Listing::Functions,
    ];
    LISTINGS
        .iter()
        .zip(kinds)
        .map(|(name, listing)| {
            let facts = Arc::clone(&facts);
            (*name, ListingTable { listing, facts })
        })
        .collect()
}

#[async_trait]
impl TableProvider for ListingTable {
    fn schema(&self) -> SchemaRef {
        schema_of(self.listing)
    }

    fn table_type(&self) -> TableType {
        TableType::View
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let batch = self.facts.batch(self.listing, state).await?;
        MemTable::try_new(self.schema(), vec![vec![batch]])?
            .scan(state, projection, filters, limit)
            .await
    }
}
