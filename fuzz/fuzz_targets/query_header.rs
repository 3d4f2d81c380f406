//! Fuzz target: see `tracesql::fuzzing::query_header`, which holds the checks (the
//! corpus replay test on stable calls the same function).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tracesql::fuzzing::query_header(data));
