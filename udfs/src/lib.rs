//! `tracesql-udfs`: the numeric building blocks of tracesql's reports.
//!
//! This crate knows nothing about trace files: it offers interval algebra over GPU
//! activity (and, later, perf models and roofline functions) as plain Rust and as
//! DataFusion functions, so it can be used from any DataFusion session.

pub mod intervals;
