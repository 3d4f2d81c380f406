//! The exceptions a Python user catches, each carrying the CLI's one-line message.

use pyo3::exceptions::{PyException, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    tracesql,
    TraceError,
    PyValueError,
    "A trace could not be read: truncated, malformed, or not a trace. The message names the file and what is wrong, as the CLI's does."
);
pyo3::create_exception!(
    tracesql,
    QueryError,
    PyException,
    "SQL that failed to parse, plan or run (the message is DataFusion's, on one line)."
);
pyo3::create_exception!(
    tracesql,
    InternalError,
    PyRuntimeError,
    "A bug in tracesql (a Rust panic), caught before it reached Python: the interpreter lives on. Please report it with the message."
);

/// What stopped a call into the engine.
pub enum Failure {
    /// The engine's own error: input, query, usage or output.
    Engine(tracesql::Error),
    /// A Rust panic, caught (its message).
    Panic(String),
}

impl From<tracesql::Error> for Failure {
    fn from(e: tracesql::Error) -> Self {
        Failure::Engine(e)
    }
}

impl From<tracesql::ingest::IngestError> for Failure {
    fn from(e: tracesql::ingest::IngestError) -> Self {
        Failure::Engine(tracesql::Error::Input(e))
    }
}

impl From<Failure> for PyErr {
    fn from(failure: Failure) -> PyErr {
        use tracesql::Error;
        match failure {
            Failure::Engine(e) => {
                let message = tracesql::one_line(&e.to_string());
                match e {
                    Error::Input(_) => TraceError::new_err(message),
                    Error::Query(_) => QueryError::new_err(message),
                    Error::Usage(_) | Error::GateFailed(_) => PyValueError::new_err(message),
                    Error::Output(_) => PyOSError::new_err(message),
                }
            }
            Failure::Panic(message) => InternalError::new_err(format!(
                "tracesql panicked (a bug; please report it): {}",
                tracesql::one_line(&message)
            )),
        }
    }
}

/// A usage error (bad argument) as the engine words it.
pub fn usage(message: impl Into<String>) -> Failure {
    Failure::Engine(tracesql::Error::Usage(message.into()))
}

/// A DataFusion error as a [`QueryError`].
pub fn query(e: impl std::fmt::Display) -> Failure {
    Failure::Engine(tracesql::Error::query(e))
}
