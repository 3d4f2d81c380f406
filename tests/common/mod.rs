//! Helpers shared by the integration tests.
#![allow(dead_code)]

use datafusion::arrow::util::display::array_value_to_string;
use tracesql::engine::{load_trace, Engine};

/// Path of a file in `fixtures/`.
pub fn fixture(file: &str) -> String {
    format!("{}/fixtures/{file}", env!("CARGO_MANIFEST_DIR"))
}

/// An engine holding the traces at `paths`, loaded in order.
pub fn engine_with(paths: &[&str]) -> Engine {
    let mut engine = Engine::new();
    for path in paths {
        let trace = load_trace(path).unwrap_or_else(|e| panic!("loading {path}: {e}"));
        engine.add(trace).expect("registering trace");
    }
    engine
}

/// Runs `sql` and returns the rows of its last statement, every cell as text
/// (`array_value_to_string`), NULL as "NULL".
pub async fn rows(engine: &Engine, sql: &str) -> Vec<Vec<String>> {
    let results = engine
        .run_sql(sql)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let batches = results.last().expect("no statement result");
    let mut out = Vec::new();
    for batch in batches {
        for row in 0..batch.num_rows() {
            out.push(
                batch
                    .columns()
                    .iter()
                    .map(|col| {
                        if col.is_null(row) {
                            "NULL".to_string()
                        } else {
                            array_value_to_string(col, row).expect("render cell")
                        }
                    })
                    .collect(),
            );
        }
    }
    out
}
