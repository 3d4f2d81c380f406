//! `tracesql._native`: the tracesql engine as a Python extension module.
//!
//! The pure-Python package `tracesql` (python/tracesql/) re-exports what is
//! here; the CLI does not depend on this crate.
//!
//! | part | what it does |
//! |---|---|
//! | [`session`] | `open()`: traces loaded once, `Session.sql/report/analyze/export` |
//! | [`result`] | `Result`: Arrow batches handed over through the PyCapsule interface |
//! | [`analysis`] | `Analysis`: findings, recommendations, Markdown, the HTML report |
//! | [`runs`] | `compare()` and `collectives()`: sheets, and their session for SQL |
//! | [`blocking`] | engine work off the GIL, stopped by Ctrl-C, panics caught |
//! | [`errors`] | `TraceError`, `QueryError`, `InternalError` |

mod analysis;
mod blocking;
mod errors;
mod result;
mod runs;
mod session;

use std::path::PathBuf;

use pyo3::prelude::*;

use crate::runs::SideInput;
use crate::session::Options;

/// Paths as the engine takes them.
fn path_strings(paths: Vec<PathBuf>) -> Vec<String> {
    paths
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect()
}

/// Opens a session over one or many traces.
///
/// Each trace is a path (str or os.PathLike): a Kineto JSON trace (`.json`,
/// `.json.gz`, `.zip`), a rocprofv3 or Perfetto-style JSON, a JAX XPlane
/// (`.xplane.pb`), a directory written by `tracesql export` (or
/// `Session.export`), any other directory (its trace files), or a `*` pattern.
/// `names` renames the traces (one name per trace, in order); `platform` sets
/// the roofline's peaks (e.g. "H100", "MI300X"; detected from the trace when
/// None); `tracelens_compat` reproduces TraceLens's numbers exactly where we
/// differ on purpose; `platforms_file` adds platforms (TOML); `queries` adds
/// SQL files (the same name replaces a shipped query).
///
/// Raises TraceError (a ValueError) for an unreadable trace.
#[pyfunction]
#[pyo3(signature = (*traces, names=None, platform=None, tracelens_compat=false, platforms_file=None, queries=None))]
fn open(
    py: Python<'_>,
    traces: Vec<PathBuf>,
    names: Option<Vec<String>>,
    platform: Option<String>,
    tracelens_compat: bool,
    platforms_file: Option<PathBuf>,
    queries: Option<PathBuf>,
) -> PyResult<session::Session> {
    let paths = path_strings(traces);
    blocking::run(py, async move {
        let options = Options::read(platform, tracelens_compat, platforms_file, queries)?;
        session::open_session(paths, names, options).await
    })
}

/// Compares two traces (`tracesql compare`): each side is a path, a list of
/// paths (repeated runs of one side), or a Session holding one trace.
///
/// `names` labels the sides (default: the traces' names); `platform` applies
/// to both sides, `base_platform` / `target_platform` to one (an H100 trace
/// against an MI300X one). Returns a Comparison: `sheets()`, `sheet(name)`,
/// `sql(query)`.
#[pyfunction]
#[pyo3(signature = (base, target, names=None, platform=None, base_platform=None, target_platform=None, tracelens_compat=false))]
#[allow(clippy::too_many_arguments)]
fn compare(
    py: Python<'_>,
    base: &Bound<'_, PyAny>,
    target: &Bound<'_, PyAny>,
    names: Option<(String, String)>,
    platform: Option<String>,
    base_platform: Option<String>,
    target_platform: Option<String>,
    tracelens_compat: bool,
) -> PyResult<Py<runs::Comparison>> {
    let sides = [SideInput::extract(base)?, SideInput::extract(target)?];
    let labels = names.map(|(b, t)| [b, t]);
    let made = blocking::run(py, async move {
        let options = Options::read(platform, tracelens_compat, None, None)?;
        runs::compare(sides, labels, [base_platform, target_platform], options).await
    })?;
    Py::new(py, PyClassInitializer::from(made.0).add_subclass(made.1))
}

/// Reads all ranks of a distributed run (`tracesql collectives`): `traces` is a
/// directory of rank traces, a pattern, or a list of paths. `world_size`
/// overrides the traces' own; `only` picks sheets by name. Returns
/// Collectives: `sheets()`, `sheet(name)`, `sql(query)`.
#[pyfunction]
#[pyo3(signature = (traces, world_size=None, only=None, platform=None, tracelens_compat=false))]
fn collectives(
    py: Python<'_>,
    traces: &Bound<'_, PyAny>,
    world_size: Option<i64>,
    only: Option<Vec<String>>,
    platform: Option<String>,
    tracelens_compat: bool,
) -> PyResult<Py<runs::Collectives>> {
    let inputs = match traces.extract::<PathBuf>() {
        Ok(one) => vec![one],
        Err(_) => traces.extract::<Vec<PathBuf>>()?,
    };
    let inputs = path_strings(inputs);
    let made = blocking::run(py, async move {
        let options = Options::read(platform, tracelens_compat, None, None)?;
        runs::collectives(inputs, world_size, only, options).await
    })?;
    Py::new(py, PyClassInitializer::from(made.0).add_subclass(made.1))
}

/// A test hook: panics inside engine work, as a bug would, to show that the
/// panic comes back as InternalError and the interpreter lives on.
#[pyfunction]
fn _panic_for_tests(py: Python<'_>, message: String) -> PyResult<()> {
    blocking::run(py, async move {
        if !message.is_empty() {
            panic!("{message}");
        }
        Ok::<(), errors::Failure>(())
    })
}

/// Called by `os.register_at_fork(before=...)` (the package's `__init__`):
/// see [`blocking::before_fork`]. Holds the GIL while it waits, as Python's
/// fork does anyway; the runtime's threads never need it.
#[pyfunction]
fn _before_fork() {
    blocking::before_fork();
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(collectives, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(_before_fork, m)?)?;
    m.add_class::<session::Session>()?;
    m.add_class::<result::QueryResult>()?;
    m.add_class::<analysis::Analysis>()?;
    m.add_class::<runs::Sheets>()?;
    m.add_class::<runs::Comparison>()?;
    m.add_class::<runs::Collectives>()?;
    m.add("TraceError", py.get_type::<errors::TraceError>())?;
    m.add("QueryError", py.get_type::<errors::QueryError>())?;
    m.add("InternalError", py.get_type::<errors::InternalError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    session::warm_up()
}
