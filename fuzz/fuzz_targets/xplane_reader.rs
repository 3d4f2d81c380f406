//! Fuzz target: see `tracesql::fuzzing::xplane_reader`, which holds the checks (the
//! corpus replay test on stable calls the same function).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| tracesql::fuzzing::xplane_reader(data));
