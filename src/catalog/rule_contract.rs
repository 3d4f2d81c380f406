//! The rule contract: the columns every `-- kind: rule` query returns, in order
//! (see `queries/rules/README.md`), and the table `findings_raw` their rows are
//! stacked into. It belongs to the catalog because it is what a query file
//! promises; the engine registers `findings_raw` (empty until an analysis) and
//! the analyzer checks each rule against [`RULE_COLUMNS`] and fills it.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};

/// The table the rules' rows are stacked into.
pub const FINDINGS_RAW: &str = "findings_raw";

/// The SQL type a rule column must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Varchar,
    Double,
    Bigint,
    UidList,
}

impl ColumnType {
    pub fn sql(self) -> &'static str {
        match self {
            ColumnType::Varchar => "VARCHAR",
            ColumnType::Double => "DOUBLE",
            ColumnType::Bigint => "BIGINT",
            ColumnType::UidList => "BIGINT[] (List(Int64))",
        }
    }

    pub fn arrow(self) -> DataType {
        match self {
            ColumnType::Varchar => DataType::Utf8,
            ColumnType::Double => DataType::Float64,
            ColumnType::Bigint => DataType::Int64,
            ColumnType::UidList => DataType::new_list(DataType::Int64, true),
        }
    }
}

/// The contract's rule columns, in order (queries/rules/README.md).
pub const RULE_COLUMNS: [(&str, ColumnType); 15] = [
    ("severity", ColumnType::Varchar),
    ("category", ColumnType::Varchar),
    ("subject", ColumnType::Varchar),
    ("metric", ColumnType::Varchar),
    ("value", ColumnType::Double),
    ("threshold", ColumnType::Double),
    ("message", ColumnType::Varchar),
    ("action_a", ColumnType::Varchar),
    ("action_b", ColumnType::Varchar),
    ("time_us", ColumnType::Double),
    ("category_share_pct", ColumnType::Double),
    ("efficiency_pct", ColumnType::Double),
    ("op_rank", ColumnType::Bigint),
    ("metrics", ColumnType::Varchar),
    ("evidence_uids", ColumnType::UidList),
];

/// The schema of `findings_raw`: `rule`, `rule_version`, then the rule columns.
pub fn findings_raw_schema() -> SchemaRef {
    let mut fields = vec![
        Field::new("rule", DataType::Utf8, false),
        Field::new("rule_version", DataType::Int64, false),
    ];
    for (name, ty) in RULE_COLUMNS {
        fields.push(Field::new(name, ty.arrow(), true));
    }
    Arc::new(Schema::new(fields))
}
