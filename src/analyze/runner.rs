//! Running the catalog's rules into the table `findings_raw`.
//!
//! Every query of kind `rule` (shipped, or from `--queries DIR`) is planned, its
//! output checked against the contract's columns (names, order, and a type of the
//! right kind), run, cast to the contract's exact types, and its rows stacked
//! under `rule` and `rule_version`. The ranking is the catalog
//! query `findings` (SQL), not code here.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::arrow::error::ArrowError;

use crate::catalog::rule_contract::{findings_raw_schema, ColumnType, RULE_COLUMNS};
use crate::catalog::{Query, QueryKind};
use crate::engine::Engine;
use crate::Error;

/// Whether a rule's column of type `got` is accepted; the runner casts it to
/// the contract's type, so a rule need not spell the contract's exact Arrow
/// types (string expressions are `Utf8View`, integer literals `Int64`, names
/// from the tables dictionaries). Accepted: an untyped NULL column for every
/// type; for VARCHAR any string type or dictionary of strings; for DOUBLE any
/// number; for BIGINT any integer; for the uid list any list of integers.
/// Anything else (a list where a number is expected, a number where text is)
/// is the rule's mistake.
fn accepts(want: ColumnType, got: &DataType) -> bool {
    if *got == DataType::Null {
        return true;
    }
    match want {
        ColumnType::Varchar => match got {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
            DataType::Dictionary(_, value) => accepts(ColumnType::Varchar, value),
            _ => false,
        },
        ColumnType::Double => got.is_numeric(),
        ColumnType::Bigint => got.is_integer(),
        ColumnType::UidList => match got {
            DataType::List(f) | DataType::LargeList(f) => {
                f.data_type().is_integer() || *f.data_type() == DataType::Null
            }
            _ => false,
        },
    }
}

/// One rule that ran.
#[derive(Debug, Clone)]
pub struct RuleRun {
    pub name: String,
    pub version: u32,
    /// Its file (`queries/rules/x.sql` or the user's path).
    pub origin: String,
    /// Findings it returned.
    pub findings: usize,
}

/// Runs every rule of the engine's catalog (name order) and registers their rows
/// as `findings_raw`. A rule whose output does not match the contract, or that
/// fails, stops the analysis with one line naming its file.
pub async fn run_rules(engine: &Engine) -> Result<Vec<RuleRun>, Error> {
    run_rules_of(engine, Scope::Trace).await
}

/// What a rule looks at: one trace (the default), or every rank of a run at
/// once (`-- scope: run`, run by `tracesql collectives --analyze`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Trace,
    Run,
}

impl Scope {
    fn of(rule: &Query) -> Scope {
        match rule.extra.get("scope").map(String::as_str) {
            Some("run") => Scope::Run,
            _ => Scope::Trace,
        }
    }
}

/// [`run_rules`] for the rules of `scope`.
pub async fn run_rules_of(engine: &Engine, scope: Scope) -> Result<Vec<RuleRun>, Error> {
    let mut runs = Vec::new();
    let mut all = Vec::new();
    let rules = engine.catalog().of_kind(QueryKind::Rule);
    for rule in rules.into_iter().filter(|r| Scope::of(r) == scope) {
        let batches = run_rule(engine, rule).await?;
        runs.push(RuleRun {
            name: rule.name.clone(),
            version: rule.version,
            origin: rule.origin.to_string(),
            findings: batches.iter().map(|b| b.num_rows()).sum(),
        });
        all.extend(batches);
    }
    engine.set_findings_raw(all).map_err(Error::query)?;
    Ok(runs)
}

/// One rule's rows as `findings_raw` batches.
async fn run_rule(engine: &Engine, rule: &Query) -> Result<Vec<RecordBatch>, Error> {
    let fail = |e: &dyn std::fmt::Display| {
        Error::Query(crate::one_line(&format!(
            "rule {} ({}): {e}",
            rule.name, rule.origin
        )))
    };
    let frame = engine
        .context()
        .sql(&rule.sql)
        .await
        .map_err(|e| fail(&e))?;
    let schema: Schema = frame.schema().as_arrow().clone();
    check_schema(&schema).map_err(|problem| {
        Error::Usage(format!(
            "{}: rule {} does not return the rule columns: {problem}",
            rule.origin, rule.name
        ))
    })?;
    let batches = frame.collect().await.map_err(|e| fail(&e))?;
    let target = findings_raw_schema();
    let mut out = Vec::new();
    for batch in batches {
        if batch.num_rows() == 0 {
            continue;
        }
        let n = batch.num_rows();
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(vec![rule.name.as_str(); n])),
            Arc::new(Int64Array::from(vec![i64::from(rule.version); n])),
        ];
        columns.extend(coerce(&batch).map_err(|e| fail(&e))?);
        out.push(RecordBatch::try_new(target.clone(), columns).map_err(|e| fail(&e))?);
    }
    Ok(out)
}

/// A rule's columns (checked by [`check_schema`]) cast to the contract's types.
fn coerce(batch: &RecordBatch) -> Result<Vec<ArrayRef>, ArrowError> {
    batch
        .columns()
        .iter()
        .zip(RULE_COLUMNS)
        .map(|(column, (_, ty))| cast(column, &ty.arrow()))
        .collect()
}

/// Checks a rule's output columns against the contract (names and order; types
/// as [`accepts`] takes them); the first problem found.
pub fn check_schema(schema: &Schema) -> Result<(), String> {
    let got: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    let want: Vec<&str> = RULE_COLUMNS.iter().map(|(n, _)| *n).collect();
    if got != want {
        let first = (0..want.len().max(got.len()))
            .find(|&i| got.get(i) != want.get(i))
            .unwrap_or(0);
        let (g, w) = (
            got.get(first).copied().unwrap_or("(none)"),
            want.get(first).copied().unwrap_or("(none)"),
        );
        return Err(format!(
            "column {} is `{g}`, expected `{w}` (the columns are, in order: {})",
            first + 1,
            want.join(", ")
        ));
    }
    for (field, (name, ty)) in schema.fields().iter().zip(RULE_COLUMNS) {
        if !accepts(ty, field.data_type()) {
            return Err(format!(
                "column `{name}` is {}, expected {}",
                field.data_type(),
                ty.sql()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::Field;

    fn schema(fields: &[(&str, DataType)]) -> Schema {
        Schema::new(
            fields
                .iter()
                .map(|(n, t)| Field::new(*n, t.clone(), true))
                .collect::<Vec<_>>(),
        )
    }

    fn contract() -> Vec<(&'static str, DataType)> {
        RULE_COLUMNS.iter().map(|(n, t)| (*n, t.arrow())).collect()
    }

    #[test]
    fn accepts_the_contract_and_untyped_nulls() {
        assert_eq!(check_schema(&schema(&contract())), Ok(()));
        let mut fields = contract();
        fields[5].1 = DataType::Null;
        fields[0].1 = DataType::Utf8View;
        assert_eq!(check_schema(&schema(&fields)), Ok(()));
    }

    #[test]
    fn names_the_first_wrong_column() {
        let mut fields = contract();
        fields.swap(4, 5);
        let e = check_schema(&schema(&fields)).expect_err("order");
        assert!(
            e.starts_with("column 5 is `threshold`, expected `value`"),
            "{e}"
        );
        let mut fields = contract();
        fields.pop();
        let e = check_schema(&schema(&fields)).expect_err("missing");
        assert!(e.starts_with("column 15 is `(none)`"), "{e}");
        let mut fields = contract();
        fields[4].1 = DataType::new_list(DataType::Float64, true);
        let e = check_schema(&schema(&fields)).expect_err("type");
        assert_eq!(e, "column `value` is List(Float64), expected DOUBLE");
        let mut fields = contract();
        fields[13].1 = DataType::Int64;
        let e = check_schema(&schema(&fields)).expect_err("type");
        assert_eq!(e, "column `metrics` is Int64, expected VARCHAR");
        let mut fields = contract();
        fields[12].1 = DataType::Float64;
        let e = check_schema(&schema(&fields)).expect_err("type");
        assert_eq!(e, "column `op_rank` is Float64, expected BIGINT");
    }

    /// What SQL expressions give without casts: Utf8View text, dictionary names,
    /// Int64 counts where DOUBLE is due, Int32 uids; all cast to the contract.
    #[test]
    fn coerces_strings_and_numbers_to_the_contract_types() {
        use datafusion::arrow::array::{
            DictionaryArray, Float32Array, Int32Array, ListArray, StringViewArray,
        };
        use datafusion::arrow::datatypes::Int32Type;
        let text = || Arc::new(StringViewArray::from(vec!["a"])) as ArrayRef;
        let mut columns: Vec<ArrayRef> = Vec::new();
        for (name, ty) in RULE_COLUMNS {
            columns.push(match (name, ty) {
                ("category", _) => Arc::new(DictionaryArray::<Int32Type>::from_iter(["GEMM"])),
                (_, ColumnType::Varchar) => text(),
                ("value", _) => Arc::new(Int64Array::from(vec![3])),
                (_, ColumnType::Double) => Arc::new(Float32Array::from(vec![1.5])),
                (_, ColumnType::Bigint) => Arc::new(Int32Array::from(vec![2])),
                (_, ColumnType::UidList) => Arc::new(ListArray::from_iter_primitive::<
                    Int32Type,
                    _,
                    _,
                >([Some([Some(7), Some(9)])])),
            });
        }
        let batch = RecordBatch::try_from_iter(RULE_COLUMNS.iter().map(|(n, _)| *n).zip(columns))
            .expect("batch");
        assert_eq!(check_schema(&batch.schema()), Ok(()));
        let cast = coerce(&batch).expect("casts");
        for (column, (name, ty)) in cast.iter().zip(RULE_COLUMNS) {
            assert_eq!(column.data_type(), &ty.arrow(), "{name}");
        }
        let out = RecordBatch::try_new(
            Arc::new(Schema::new(findings_raw_schema().fields()[2..].to_vec())),
            cast,
        )
        .expect("fits findings_raw");
        assert_eq!(out.num_rows(), 1);
    }
}
