//! Fuzz target: see `tracesql::fuzzing::py_literals`, which holds the checks (the
//! corpus replay test on stable calls the same function).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tracesql::fuzzing::py_literals(data));
