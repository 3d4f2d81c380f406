//! `tracelens_compat()`: whether the session reproduces TraceLens exactly.
//!
//! Why a function: where TraceLens has a bug, tracesql's queries do it right by
//! default, and `--tracelens-compat` turns TraceLens's behaviour back on so a user
//! can reproduce its numbers and see what our defaults change. Each such place is a
//! query that asks this function, so the choice stays in the SQL a user reads:
//!
//! ```sql
//! SELECT * FROM kernels WHERE NOT tracelens_compat() OR linked_by IN ('flow', 'graph')
//! ```
//!
//! The value is fixed when the session is made (the function is registered again
//! to change it), so the planner folds it to a constant.

use datafusion::arrow::datatypes::DataType;
use datafusion::common::{Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};

/// `tracelens_compat() -> BOOLEAN`: true in a session started with
/// `--tracelens-compat`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TracelensCompat {
    on: bool,
    signature: Signature,
}

impl TracelensCompat {
    pub fn new(on: bool) -> Self {
        Self {
            on,
            signature: Signature::nullary(Volatility::Immutable),
        }
    }

    /// What it answers.
    pub fn on(&self) -> bool {
        self.on
    }
}

impl ScalarUDFImpl for TracelensCompat {
    fn name(&self) -> &str {
        "tracelens_compat"
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Boolean)
    }

    fn invoke_with_args(&self, _args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        Ok(ColumnarValue::Scalar(ScalarValue::Boolean(Some(self.on))))
    }
}

/// Registers `tracelens_compat()` answering `on`, replacing an earlier one.
pub fn register(ctx: &datafusion::prelude::SessionContext, on: bool) {
    ctx.register_udf(datafusion::logical_expr::ScalarUDF::from(
        TracelensCompat::new(on),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::AsArray;
    use datafusion::prelude::SessionContext;

    async fn ask(ctx: &SessionContext) -> bool {
        let batches = ctx
            .sql("SELECT tracelens_compat() AS c")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        let column = batches[0].column(0).as_boolean();
        assert_eq!(column.len(), 1);
        column.value(0)
    }

    #[tokio::test]
    async fn answers_what_it_was_registered_with() {
        let ctx = SessionContext::new();
        register(&ctx, false);
        assert!(!ask(&ctx).await);
        register(&ctx, true);
        assert!(ask(&ctx).await);
    }
}
