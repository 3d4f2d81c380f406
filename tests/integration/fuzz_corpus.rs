//! The fuzz corpora, replayed on stable: every file under `fuzz/corpus/<target>/`
//! (a small minimized corpus) and `fuzz/regressions/<target>/` (each input that
//! once crashed, hung or failed a check) goes through the target's entry point in
//! `tracesql::fuzzing`, the very code the fuzzer ran. Each input runs on a thread
//! of its own that must finish within a time bound, so a hang fails the test
//! instead of stalling it. How the corpora are made: `fuzz/README.md`.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use tracesql::fuzzing::TARGETS;

use crate::util::{files_under, package_path};

/// Time one input may take (a debug build, a loaded machine).
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// Runs every input under `dir` through `entry`; the number run.
fn replay(target: &str, entry: fn(&[u8]), dir: &Path) -> usize {
    if !dir.is_dir() {
        return 0;
    }
    let inputs = files_under(dir);
    for input in &inputs {
        let bytes = std::fs::read(input).expect("readable corpus file");
        let (tx, rx) = mpsc::channel();
        let runner = std::thread::spawn(move || {
            entry(&bytes);
            let _ = tx.send(());
        });
        match rx.recv_timeout(TIME_LIMIT) {
            Ok(()) => {}
            // The thread panicked (its message is above) or is still running.
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let _ = runner.join();
                panic!("{target}: {} fails", input.display());
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                panic!("{target}: {} runs over {TIME_LIMIT:?}", input.display())
            }
        }
    }
    inputs.len()
}

#[test]
fn every_corpus_and_regression_input_passes_its_target() {
    let fuzz = package_path("fuzz");
    for (target, entry) in TARGETS {
        let corpus = replay(target, *entry, &fuzz.join("corpus").join(target));
        replay(target, *entry, &fuzz.join("regressions").join(target));
        assert!(corpus > 0, "{target}: no corpus in fuzz/corpus/{target}");
    }
}

/// Every corpus folder belongs to a target (a renamed target leaves none behind).
#[test]
fn every_corpus_folder_is_a_target() {
    for kind in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(package_path("fuzz").join(kind)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(
                TARGETS.iter().any(|(t, _)| *t == name),
                "fuzz/{kind}/{name} is no target of tracesql::fuzzing::TARGETS"
            );
        }
    }
}
