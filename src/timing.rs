//! Phase timings on stderr when `TRACESQL_TIMINGS` is set: where the time of a
//! load or a report run goes, without a profiler.
//!
//! ```sh
//! TRACESQL_TIMINGS=1 tracesql report trace.json.gz --out csvs
//! ```

use std::sync::OnceLock;
use std::time::Instant;

fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("TRACESQL_TIMINGS").is_some())
}

/// A phase being timed: prints `time  name` to stderr when dropped.
pub struct Phase {
    name: String,
    started: Instant,
}

impl Phase {
    /// Starts timing `name`; None (nothing printed) unless timings are on.
    pub fn start(name: &str) -> Option<Phase> {
        enabled().then(|| Phase {
            name: name.to_string(),
            started: Instant::now(),
        })
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        let ms = self.started.elapsed().as_secs_f64() * 1e3;
        eprintln!("timing: {ms:9.1} ms  {}", self.name);
    }
}
