//! The integration tests, one binary with a module per area (as ripgrep's
//! `tests/tests.rs`): linking DataFusion once instead of once per file is what
//! keeps `cargo test` fast to build. Shared helpers, the one way to run the
//! built `tracesql` among them, live in util.rs.
//!
//! Run one area with a filter on its module, e.g.
//! `cargo test --test integration bad_input::`, and the TraceLens conformance
//! table with `cargo test --test integration conformance -- --nocapture` (which
//! also runs the other tests on the conformance traces; `conformance::` keeps
//! to the harness).

mod util;

mod analyze;
mod analyze_rules;
mod args_reread;
mod bad_input;
mod catalog;
mod charts;
mod cli_tables;
mod collectives;
mod compare;
mod compat;
mod conformance;
mod dataset;
mod determinism;
mod export;
mod field;
mod fixtures;
mod formats;
mod fuzz_corpus;
mod hostile_inputs;
mod hta;
mod ingest_conformance;
mod jax;
mod mcp;
mod perf_sheets;
mod platform_roofline;
mod repl;
mod replay;
mod shares;
mod trace_health;
