//! `tracesql.compare()` and `tracesql.collectives()`: sessions whose answers are
//! sheets (the CLI's `compare --out` and `collectives --out` files), with the
//! session kept for SQL.

use std::sync::Arc;

use pyo3::prelude::*;
use tracesql::engine::Engine;
use tracesql::output::Sheet;

use crate::blocking;
use crate::errors::{self, Failure};
use crate::result::QueryResult;
use crate::session::{run_sql, Options, Session};

/// Named sheets and the engine session they came from: what `compare()` and
/// `collectives()` return (as their subclasses `Comparison` and `Collectives`).
#[pyclass(name = "Sheets", module = "tracesql", frozen, subclass)]
pub struct Sheets {
    engine: Arc<Engine>,
    sheets: Vec<Sheet>,
}

#[pymethods]
impl Sheets {
    /// The sheet names, in the order the CLI's `--out` writes them.
    fn sheets(&self) -> Vec<String> {
        self.sheets.iter().map(|s| s.sheet.clone()).collect()
    }

    /// One sheet by name, e.g. `compare_ops_summary` or `straggler_summary`.
    fn sheet(&self, name: &str) -> PyResult<QueryResult> {
        let found = self.sheets.iter().find(|s| s.sheet == name);
        let found = found.ok_or_else(|| {
            errors::usage(format!(
                "no sheet named '{name}'; the sheets: {}",
                self.sheets().join(", ")
            ))
        })?;
        Ok(QueryResult::of_sheet(found))
    }

    /// SQL over the session the sheets came from: for a comparison,
    /// `comparison`, `compare_runs`, the `compare_*` views and each side's
    /// `report_<sheet>` tables; for a run, every rank's tables (`rank`, `trace`).
    fn sql(&self, py: Python<'_>, query: String) -> PyResult<QueryResult> {
        let engine = self.engine.clone();
        blocking::run(py, async move { run_sql(&engine, &query).await })
    }
}

/// Two traces compared (`tracesql compare`): the comparison sheets, and the
/// comparison session for SQL (see `Sheets`).
#[pyclass(name = "Comparison", module = "tracesql", frozen, extends = Sheets)]
pub struct Comparison {
    labels: [String; 2],
}

#[pymethods]
impl Comparison {
    /// The labels of the base and the target.
    #[getter]
    fn labels(&self) -> (String, String) {
        (self.labels[0].clone(), self.labels[1].clone())
    }

    fn __repr__(slf: PyRef<'_, Self>) -> String {
        let sheets = slf.as_super().sheets.len();
        format!(
            "<tracesql.Comparison: {} (base) vs {} (target); {sheets} sheets>",
            slf.labels[0], slf.labels[1]
        )
    }
}

/// The ranks of a distributed run (`tracesql collectives`): the multi-rank
/// collective sheets, and the run's session for SQL (see `Sheets`).
#[pyclass(name = "Collectives", module = "tracesql", frozen, extends = Sheets)]
pub struct Collectives {
    ranks: usize,
}

#[pymethods]
impl Collectives {
    /// How many ranks were read.
    #[getter]
    fn ranks(&self) -> usize {
        self.ranks
    }

    fn __repr__(slf: PyRef<'_, Self>) -> String {
        let sheets = slf.as_super().sheets.len();
        format!(
            "<tracesql.Collectives: {} ranks; {sheets} sheets>",
            slf.ranks
        )
    }
}

/// One side of a comparison as given: trace files, or a session's one trace.
pub enum SideInput {
    Files(Vec<String>),
    Loaded {
        trace: tracesql::load::LoadedTrace,
        source: String,
    },
}

impl SideInput {
    /// The side's default label: its trace's or first file's name.
    fn label(&self) -> String {
        match self {
            SideInput::Loaded { trace, .. } => trace.name.clone(),
            SideInput::Files(paths) => tracesql::compare::default_label(paths),
        }
    }

    /// A base or target given to `compare()`: a path, a list of paths (runs
    /// of one side), or a `Session` holding one trace.
    pub fn extract(given: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(session) = given.cast::<Session>() {
            let opened = session.get().opened(None)?;
            return Ok(SideInput::Loaded {
                trace: opened.trace.clone(),
                source: opened.source.clone(),
            });
        }
        if let Ok(path) = given.extract::<std::path::PathBuf>() {
            return Ok(SideInput::Files(vec![path.to_string_lossy().into_owned()]));
        }
        let paths: Vec<std::path::PathBuf> = given.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(
                "a side of compare() is a path, a list of paths, or a Session of one trace",
            )
        })?;
        Ok(SideInput::Files(
            paths
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect(),
        ))
    }
}

/// Reads both sides and makes the comparison session and its sheets.
pub async fn compare(
    sides: [SideInput; 2],
    labels: Option<[String; 2]>,
    platforms: [Option<String>; 2],
    options: Options,
) -> Result<(Sheets, Comparison), Failure> {
    use tracesql::compare::{read_run, read_side, Comparison as Compared, Reading, Role, Side};
    let labels = labels.unwrap_or_else(|| [sides[0].label(), sides[1].label()]);
    // TraceDiff needs a trace on each side (a TraceLens report folder has no call tree).
    let trees = !sides.iter().any(|side| match side {
        SideInput::Files(paths) => paths.iter().any(|p| tracesql::compare::is_report_folder(p)),
        SideInput::Loaded { .. } => false,
    });
    let mut read = Vec::new();
    for ((input, role), (label, platform)) in sides
        .into_iter()
        .zip([Role::Base, Role::Target])
        .zip(labels.iter().zip(platforms))
    {
        let side_options = options.with_platform(platform);
        let prepare = |engine: &Engine| side_options.prepare(engine);
        let catalog = &options.catalog;
        let reading = Reading {
            all_reports: options.session.tracelens_compat,
            tree: trees,
            tree_args: false,
        };
        let side = match input {
            SideInput::Files(paths) => {
                let files = tracesql::collectives::resolve_inputs(&paths)?;
                read_side(label, role, &files, catalog, &prepare, reading).await?
            }
            SideInput::Loaded { trace, source } => {
                let run = read_run(trace, &source, catalog, &prepare, reading).await?;
                Side {
                    label: label.clone(),
                    role,
                    runs: vec![run],
                }
            }
        };
        read.push(side);
    }
    let (Some(target), Some(base)) = (read.pop(), read.pop()) else {
        return Err(errors::usage("compare() needs a base and a target"));
    };
    let compared = Compared { base, target };
    let prepare = |engine: &Engine| options.prepare(engine);
    let engine = compared.session(&options.catalog, &prepare).await?;
    let sheets = tracesql::compare::comparison_sheets(&engine, &["all".to_string()]).await?;
    let sheets = Sheets {
        engine: Arc::new(engine),
        sheets,
    };
    Ok((sheets, Comparison { labels }))
}

/// Loads the ranks of a run and makes the multi-rank collective sheets.
pub async fn collectives(
    inputs: Vec<String>,
    world_size: Option<i64>,
    only: Option<Vec<String>>,
    options: Options,
) -> Result<(Sheets, Collectives), Failure> {
    use tracesql::collectives as c;
    let files = c::resolve_inputs(&inputs)?;
    let reading = files.clone();
    let traces = blocking::blocking(move || {
        Ok(tracesql::load::load_inputs_keeping(
            &reading,
            &c::keep_collective_tables,
        )?)
    })
    .await?;
    let rank_options = c::RankOptions {
        world_size,
        ..c::RankOptions::default()
    };
    let traces = c::assign_ranks(traces, &files, &rank_options)?;
    let ranks = traces.len();
    let prepare = |engine: &Engine| options.prepare(engine);
    let engine = Engine::over(&options.catalog, &prepare, traces).await?;
    let sheets = c::collective_sheets(&engine, only.as_deref()).await?;
    let sheets = Sheets {
        engine: Arc::new(engine),
        sheets,
    };
    Ok((sheets, Collectives { ranks }))
}
