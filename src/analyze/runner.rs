//! Running the catalog's rules into the table `findings_raw`.
//!
//! Every query of kind `rule` (shipped, or from `--queries DIR`) is planned, its
//! output checked against the contract's columns (names, order, types), run, and
//! its rows stacked under `rule` and `rule_version`. The ranking is the catalog
//! query `findings` (SQL), not code here.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Schema};

use crate::catalog::rule_contract::{findings_raw_schema, ColumnType, RULE_COLUMNS};
use crate::catalog::{Query, QueryKind};
use crate::engine::Engine;
use crate::Error;

/// Whether a rule's column of type `got` is accepted (and cast to `arrow()`).
/// An untyped NULL column fits every type; strings may be any string type
/// or a dictionary of strings;
/// a uid list may be any list of Int64.
fn accepts(want: ColumnType, got: &DataType) -> bool {
    if *got == DataType::Null {
        return true;
    }
    match want {
        ColumnType::Varchar => match got {
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
            // Names read straight from the tables (dictionary-encoded there).
            DataType::Dictionary(_, value) => accepts(ColumnType::Varchar, value),
            _ => false,
        },
        ColumnType::Double => *got == DataType::Float64,
        ColumnType::Bigint => *got == DataType::Int64,
        ColumnType::UidList => match got {
            DataType::List(f) | DataType::LargeList(f) => {
                matches!(f.data_type(), DataType::Int64 | DataType::Null)
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
    let mut runs = Vec::new();
    let mut all = Vec::new();
    for rule in engine.catalog().of_kind(QueryKind::Rule) {
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
        for (i, column) in batch.columns().iter().enumerate() {
            let want = target.field(i + 2).data_type();
            columns.push(cast(column, want).map_err(|e| fail(&e))?);
        }
        out.push(RecordBatch::try_new(target.clone(), columns).map_err(|e| fail(&e))?);
    }
    Ok(out)
}

/// Checks a rule's output columns against the contract; the first problem found.
fn check_schema(schema: &Schema) -> Result<(), String> {
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
        fields[4].1 = DataType::Int64;
        let e = check_schema(&schema(&fields)).expect_err("type");
        assert_eq!(e, "column `value` is Int64, expected DOUBLE");
    }
}
