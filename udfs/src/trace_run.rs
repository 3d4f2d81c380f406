//! `trace_run(trace)`: the run a trace of a dataset was appended under.
//!
//! A dataset (`tracesql export --append --run NAME`) keeps each trace under
//! `run=NAME/rank=R/trace=T/`. The run is not a column of the tables: it is a
//! property of the trace, known from the dataset's manifest. This function
//! answers it per row, so a query can both select runs
//! (`WHERE trace_run(trace) = 'job-7'`, which a dataset read in place turns
//! into reading that run's files only) and compare them
//! (`GROUP BY trace_run(trace)`).
//!
//! The mapping is fixed when the session is made (registered again to change
//! it); a trace outside any run, or not from a dataset, has NULL.

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, StringBuilder};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{exec_err, Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};

/// The function's name, which a dataset's file pruning recognises.
pub const NAME: &str = "trace_run";

/// `trace_run(trace UTF8) -> UTF8`: the run of `trace`, NULL when it has none.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TraceRun {
    runs: Arc<BTreeMap<String, String>>,
    signature: Signature,
}

impl TraceRun {
    /// Answers from `runs`: trace name to run name.
    pub fn new(runs: BTreeMap<String, String>) -> Self {
        Self {
            runs: Arc::new(runs),
            // Any type: the trace column is text or a dictionary of text, and
            // an argument left uncast is what file pruning reads.
            signature: Signature::any(1, Volatility::Immutable),
        }
    }

    /// Trace name to run name.
    pub fn runs(&self) -> &BTreeMap<String, String> {
        &self.runs
    }

    fn run_of(&self, trace: Option<&str>) -> Option<&str> {
        trace.and_then(|t| self.runs.get(t)).map(String::as_str)
    }
}

impl ScalarUDFImpl for TraceRun {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [trace] = args.args.as_slice() else {
            return exec_err!("trace_run() takes the trace column");
        };
        match trace {
            ColumnarValue::Scalar(value) => {
                let text = cast_scalar(value)?;
                let run = self.run_of(text.as_deref()).map(str::to_string);
                Ok(ColumnarValue::Scalar(ScalarValue::Utf8(run)))
            }
            ColumnarValue::Array(array) => Ok(ColumnarValue::Array(self.runs_of(array)?)),
        }
    }
}

impl TraceRun {
    /// One run per row. A dictionary column (the tables' `trace`) is looked
    /// up once per distinct value, not once per row.
    fn runs_of(&self, array: &ArrayRef) -> Result<ArrayRef> {
        if let Some(dictionary) = array.as_any_dictionary_opt() {
            let runs = self.runs_of(dictionary.values())?;
            return Ok(cast(&dictionary.with_values(runs), &DataType::Utf8)?);
        }
        let text = cast(array, &DataType::Utf8)?;
        let text = text.as_string::<i32>();
        let mut out = StringBuilder::with_capacity(text.len(), 0);
        for i in 0..text.len() {
            let trace = text.is_valid(i).then(|| text.value(i));
            out.append_option(self.run_of(trace));
        }
        Ok(Arc::new(out.finish()))
    }
}

fn cast_scalar(value: &ScalarValue) -> Result<Option<String>> {
    if value.is_null() {
        return Ok(None);
    }
    match value.cast_to(&DataType::Utf8)? {
        ScalarValue::Utf8(text) => Ok(text),
        other => exec_err!("trace_run(): {other:?} is not a trace name"),
    }
}

/// Registers `trace_run()` answering from `runs`, replacing an earlier one.
pub fn register(ctx: &datafusion::prelude::SessionContext, runs: BTreeMap<String, String>) {
    ctx.register_udf(ScalarUDF::from(TraceRun::new(runs)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{DictionaryArray, StringArray};
    use datafusion::arrow::datatypes::Int32Type;
    use datafusion::arrow::record_batch::RecordBatch;
    use datafusion::prelude::SessionContext;

    #[tokio::test]
    async fn answers_each_traces_run_and_null_without_one() {
        let ctx = SessionContext::new();
        register(
            &ctx,
            BTreeMap::from([("a".into(), "r1".into()), ("b".into(), "r2".into())]),
        );
        let dict: DictionaryArray<Int32Type> =
            vec![Some("a"), Some("b"), Some("c"), None, Some("a")]
                .into_iter()
                .collect();
        let plain = StringArray::from(vec![Some("b"), Some("a"), None, Some("x"), Some("b")]);
        let batch = RecordBatch::try_from_iter([
            ("d", Arc::new(dict) as ArrayRef),
            ("p", Arc::new(plain) as ArrayRef),
        ])
        .unwrap();
        ctx.register_batch("t", batch).unwrap();
        let out = ctx
            .sql("SELECT trace_run(d) AS d, trace_run(p) AS p, trace_run('b') AS s FROM t")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        let column = |i: usize| -> Vec<Option<String>> {
            let c = out[0].column(i).as_string::<i32>();
            (0..c.len())
                .map(|r| c.is_valid(r).then(|| c.value(r).to_string()))
                .collect()
        };
        let s = |v: &str| Some(v.to_string());
        assert_eq!(column(0), [s("r1"), s("r2"), None, None, s("r1")]);
        assert_eq!(column(1), [s("r2"), s("r1"), None, None, s("r2")]);
        assert_eq!(column(2), [s("r2"), s("r2"), s("r2"), s("r2"), s("r2")]);
    }
}
