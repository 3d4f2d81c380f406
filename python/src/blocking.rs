//! Running engine work from Python: off the GIL, interruptible, panic-safe.
//!
//! Every call that loads a trace or runs a query goes through [`run`]: the work
//! runs as a task on one process-wide Tokio runtime while the calling Python
//! thread waits with the GIL released (so other Python threads keep running),
//! waking every [`POLL`] to let Python handle signals. Ctrl-C
//! (KeyboardInterrupt) therefore returns within a fraction of a second: the
//! task is aborted at its next yield (queries), and a load in progress is told
//! to stop at its next chunk ([`tracesql::ingest::cancel`]). A panic inside the
//! task ends that task only and comes back as [`InternalError`](crate::errors::InternalError).

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::errors::Failure;

/// How often a waiting call lets Python check for signals.
const POLL: Duration = Duration::from_millis(50);

/// The runtime and the process that started it. A child made by `fork()`
/// (multiprocessing's default on Linux) inherits the runtime's memory but none
/// of its threads: it gets a runtime of its own, or its first call would wait
/// forever for workers that do not exist.
struct Held {
    pid: u32,
    runtime: Arc<tokio::runtime::Runtime>,
}

static RUNTIME: Mutex<Option<Held>> = Mutex::new(None);

/// How long [`before_fork`] waits for the runtime's threads to end.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

fn held() -> std::sync::MutexGuard<'static, Option<Held>> {
    RUNTIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Forgets a runtime inherited through fork(): never dropped, as its threads
/// are not there to stop or join.
fn forget_inherited(held: &mut Option<Held>) {
    if held.as_ref().is_some_and(|h| h.pid != std::process::id()) {
        std::mem::forget(held.take());
    }
}

/// The runtime every call's work runs on, started at first use in each process
/// (and again after [`before_fork`] stopped it).
pub fn runtime() -> PyResult<Arc<tokio::runtime::Runtime>> {
    let mut held = held();
    forget_inherited(&mut held);
    if let Some(mine) = held.as_ref() {
        return Ok(Arc::clone(&mine.runtime));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("tracesql")
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start tracesql's runtime: {e}")))?;
    let runtime = Arc::new(runtime);
    *held = Some(Held {
        pid: std::process::id(),
        runtime: Arc::clone(&runtime),
    });
    Ok(runtime)
}

/// Stops this process's runtime and waits for its threads to end, unless a call
/// is under way (each call holds the runtime until it returns). The package's
/// `__init__` registers it with `os.register_at_fork(before=...)`, so that a
/// child never inherits the runtime's threads half-way through something.
///
/// Why: idle workers and blocking threads wait in `parking_lot` (tokio's and
/// DataFusion's locks), whose process-wide table of waiting threads holds
/// pointers into those threads' stacks and is rehashed when a new thread first
/// waits. A child forked at such a moment inherits the table as it was, and
/// crashed in its own first wait (SIGSEGV in `parking_lot_core::park`: one
/// fork in seven to two in three right after a rocprofv3 load, in the loops
/// measured). Once every thread of the runtime has been joined, no waiter of
/// ours is left in the table. The parent's next call starts a new runtime.
///
/// A fork while another Python thread's call is under way keeps the runtime,
/// since that call's work runs on it; such a child is as exposed as before.
pub fn before_fork() {
    let mut held = held();
    forget_inherited(&mut held);
    // Calls take their share only under this lock: with no share out now,
    // none appears before the runtime is taken out.
    let Some(mine) = held.take_if(|mine| Arc::strong_count(&mine.runtime) == 1) else {
        return;
    };
    drop(held);
    if let Ok(runtime) = Arc::try_unwrap(mine.runtime) {
        runtime.shutdown_timeout(SHUTDOWN_WAIT);
    }
}

/// Runs `work` to its end with the GIL released, or until Python raises
/// (KeyboardInterrupt): then the work is stopped and the exception returned.
pub fn run<T, W>(py: Python<'_>, work: W) -> PyResult<T>
where
    T: Send + 'static,
    W: Future<Output = Result<T, Failure>> + Send + 'static,
{
    let runtime = runtime()?;
    let cancel = tracesql::ingest::cancel::Token::default();
    let task_cancel = cancel.clone();
    let mut task = runtime.spawn(tracesql::ingest::cancel::scope(task_cancel, work));
    loop {
        let waited =
            py.detach(|| runtime.block_on(async { tokio::time::timeout(POLL, &mut task).await }));
        match waited {
            Ok(Ok(result)) => return result.map_err(PyErr::from),
            Ok(Err(joined)) => return Err(joined_error(joined).into()),
            Err(_still_running) => {
                if let Err(raised) = py.check_signals() {
                    cancel.cancel();
                    task.abort();
                    return Err(raised);
                }
            }
        }
    }
}

/// Runs blocking `work` (a trace load) on the runtime's blocking threads,
/// within the caller's cancel scope, as a future [`run`] can wait on.
pub async fn blocking<T, F>(work: F) -> Result<T, Failure>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, Failure> + Send + 'static,
{
    let token = tracesql::ingest::cancel::current();
    tokio::task::spawn_blocking(move || tracesql::ingest::cancel::within(token, work))
        .await
        .map_err(joined_error)?
}

/// A task that did not return: it panicked, or was aborted.
fn joined_error(joined: tokio::task::JoinError) -> Failure {
    if !joined.is_panic() {
        return Failure::Panic("the task was cancelled".into());
    }
    let payload = joined.into_panic();
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".into());
    Failure::Panic(message)
}
