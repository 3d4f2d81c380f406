//! `setting(name, default)`: a report option the user set with `--set name=value`.
//!
//! Why a function: TraceLens's reports take options (`include_nonlaunch_apis`,
//! `min_event_ns`, ...), and a report here is a SQL file. The file asks for the
//! option by name, with its default beside it, so what the option changes stays
//! in the SQL a user reads:
//!
//! ```sql
//! SELECT * FROM pftrace_activity_events
//! WHERE dur_ns >= CAST(setting('pftrace.min_event_ns', '5000') AS BIGINT)
//! ```
//!
//! The values are fixed when the session is made (the function is registered
//! again to change them), so the planner folds each call to a constant.

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::common::{exec_err, Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

/// `setting(name UTF8, default UTF8) -> UTF8`: the value given for `name`,
/// else `default`. Both arguments must be constants.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Setting {
    values: Arc<BTreeMap<String, String>>,
    signature: Signature,
}

impl Setting {
    pub fn new(values: BTreeMap<String, String>) -> Self {
        Self {
            values: Arc::new(values),
            signature: Signature::exact(
                vec![DataType::Utf8, DataType::Utf8],
                Volatility::Immutable,
            ),
        }
    }

    /// The values it answers with.
    pub fn values(&self) -> &BTreeMap<String, String> {
        &self.values
    }
}

fn constant_text(arg: &ColumnarValue, what: &str) -> Result<Option<String>> {
    match arg {
        ColumnarValue::Scalar(ScalarValue::Utf8(v)) => Ok(v.clone()),
        _ => exec_err!("setting(): the {what} must be a text constant"),
    }
}

impl ScalarUDFImpl for Setting {
    fn name(&self) -> &str {
        "setting"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [name, default] = args.args.as_slice() else {
            return exec_err!("setting() takes a name and a default");
        };
        let name = constant_text(name, "name")?;
        let default = constant_text(default, "default")?;
        let value = name.and_then(|n| self.values.get(&n).cloned()).or(default);
        Ok(ColumnarValue::Scalar(ScalarValue::Utf8(value)))
    }
}

/// Registers `setting()` answering from `values`, replacing an earlier one.
pub fn register(ctx: &datafusion::prelude::SessionContext, values: BTreeMap<String, String>) {
    ctx.register_udf(datafusion::logical_expr::ScalarUDF::from(Setting::new(
        values,
    )));
}

/// The setting names `sql` asks for: the first argument of every
/// `setting('...'` call (for checking `--set` names against the queries).
pub fn names_in(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = sql;
    while let Some(at) = rest.find("setting(") {
        rest = &rest[at + "setting(".len()..];
        let Some(quoted) = rest.trim_start().strip_prefix('\'') else {
            continue;
        };
        if let Some(end) = quoted.find('\'') {
            out.push(quoted[..end].to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Array, AsArray};
    use datafusion::prelude::SessionContext;

    async fn ask(ctx: &SessionContext, sql: &str) -> Option<String> {
        let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
        let column = batches[0].column(0).as_string::<i32>();
        column.is_valid(0).then(|| column.value(0).to_string())
    }

    #[tokio::test]
    async fn answers_the_value_given_else_the_default() {
        let ctx = SessionContext::new();
        register(&ctx, BTreeMap::new());
        let sql = "SELECT setting('pftrace.min_event_ns', '5000')";
        assert_eq!(ask(&ctx, sql).await.as_deref(), Some("5000"));
        let values = BTreeMap::from([("pftrace.min_event_ns".to_string(), "1".to_string())]);
        register(&ctx, values);
        assert_eq!(ask(&ctx, sql).await.as_deref(), Some("1"));
        assert_eq!(
            ask(&ctx, "SELECT setting('other', 'x')").await.as_deref(),
            Some("x")
        );
    }

    #[test]
    fn names_are_found_in_sql() {
        let sql = "WHERE d >= CAST(setting('a.b', '1') AS BIGINT) AND setting( 'c', 'x') = 'x' -- setting(x";
        assert_eq!(names_in(sql), ["a.b", "c"]);
    }
}
