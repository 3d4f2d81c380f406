//! tracesql: PyTorch profiler traces as SQL tables.
//!
//! The pipeline runs one way, one module per stage; a module uses only the
//! modules before it in this list (checked by the `layering` test below, and
//! drawn in ARCHITECTURE.md):
//!
//! | module | what it does |
//! |---|---|
//! | `timing` | phase timings on stderr (`TRACESQL_TIMINGS`) |
//! | `memory` | hands freed memory back to the system (after `report` lets views go) |
//! | `ingest` | bytes of a trace file → decoded events (`RawTrace`); one reader per input format |
//! | `tree` | the call-tree links between those events |
//! | `model` | events + links → the Arrow tables, with their column docs |
//! | `load` | a trace file or an export directory → tables (`LoadedTrace`), with its provenance and the export manifest |
//! | `dataset` | an export directory read in place: Parquet scans pruned by trace and rank |
//! | `catalog` | the SQL files: views, categories, reports, rules, their headers |
//! | `output` | writers and printers of results: terminal, CSV, Markdown, Excel, Parquet, atomic files |
//! | `charts` | query results drawn: SVG charts (roofline, stacked timeline, bars, waterfall, heatmap) and the one-file HTML report |
//! | `replay` | a traced op → replay IR (schema catalog, TraceLens's matcher, the native IR) → package (script, README, zip) |
//! | `engine` | the DataFusion session: tables, views, UDFs, table functions, platforms, the session's own catalog tables |
//! | `report` | runs the report queries into sheets |
//! | `collectives` | the traces of all ranks of a run: rank files and ranks resolved, the multi-rank collective sheets |
//! | `analyze` | runs the rules and renders the analysis |
//! | `reproduce` | ops of a loaded trace (by uid, name or an analysis's findings) → replay packages on disk |
//! | `export` | writes a Parquet dataset that `load` reopens |
//! | `compare` | two sides' reports side by side: the comparison session and TraceLens's report diff |
//! | `cluster` | (`--features cluster`) datasets on a Ballista cluster: the client session, plan codecs, scheduler and executor |
//! | `repl` | the interactive shell |
//! | `mcp` | the Model Context Protocol server: the tools, resources and prompts an AI agent uses |
//! | `fuzzing` | the fuzz targets' entry points: untrusted bytes through each reader |
//!
//! The binary (`main.rs`) parses the command line and calls these.

pub mod analyze;
pub mod catalog;
pub mod charts;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod collectives;
pub mod compare;
pub mod dataset;
pub mod engine;
pub mod export;
pub mod fuzzing;
pub mod ingest;
pub mod load;
pub mod mcp;
pub mod memory;
pub mod model;
pub mod output;
pub mod repl;
pub mod replay;
pub mod report;
pub mod reproduce;
pub mod timing;
pub mod tree;

/// Errors at the top of the tool, each with the exit code the CLI uses.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input could not be read as a trace (exit code 2).
    #[error("{0}")]
    Input(#[from] ingest::IngestError),
    /// A query failed to parse, plan or run (exit code 1).
    #[error("query failed: {0}")]
    Query(String),
    /// Bad command-line use, e.g. an unknown table or file (exit code 2).
    #[error("{0}")]
    Usage(String),
    /// Writing the output failed (exit code 1).
    #[error("cannot write output: {0}")]
    Output(String),
    /// A comparison gate (`compare --fail-if`) matched rows (exit code 3).
    #[error("gate failed: {0}")]
    GateFailed(String),
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) | Error::Usage(_) => 2,
            Error::Query(_) | Error::Output(_) => 1,
            Error::GateFailed(_) => 3,
        }
    }

    /// A DataFusion error as one line.
    pub fn query(e: impl std::fmt::Display) -> Self {
        Error::Query(one_line(&e.to_string()))
    }
}

/// Joins a multi-line message into one line.
pub fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Shell-style match of a name: `*` any text, `?` one character. What rank-file
/// patterns (`rank*.json.gz`) and the report headers naming columns by
/// pattern (`-- integer_if: rank_*_ts ...`) both mean.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // matched[j]: pattern prefix so far matches name prefix of length j.
    let mut matched = vec![false; n.len() + 1];
    matched[0] = true;
    for &c in &p {
        let mut next = vec![false; n.len() + 1];
        for j in 0..=n.len() {
            if !matched[j] {
                continue;
            }
            match c {
                '*' => next[j..].iter_mut().for_each(|m| *m = true),
                '?' if j < n.len() => next[j + 1] = true,
                c if j < n.len() && n[j] == c => next[j + 1] = true,
                _ => {}
            }
        }
        matched = next;
    }
    matched[n.len()]
}

/// The module graph is one-way: each module may use only those listed before
/// it in [`LAYERS`](layering::LAYERS). A `crate::` path to a later module fails here,
/// naming the file and line, so a cycle cannot creep back in.
#[cfg(test)]
mod layering {
    /// Top-level modules, lowest first (the pipeline's order).
    pub const LAYERS: &[&str] = &[
        "timing",
        "memory",
        "ingest",
        "tree",
        "model",
        "load",
        "dataset",
        "catalog",
        "output",
        "charts",
        "replay",
        "engine",
        "report",
        "collectives",
        "analyze",
        "reproduce",
        "export",
        "compare",
        "cluster",
        "repl",
        "mcp",
        "fuzzing",
    ];

    /// Every `crate::<module>` named in code (not in comments) of `text`, with
    /// its line; a group `use crate::{a, b::{c, d}}` names each of its top-level
    /// items, over as many lines as it spans.
    fn crate_paths(text: &str) -> Vec<(usize, String)> {
        let code: Vec<&str> = text
            .lines()
            .map(|line| line.split("//").next().unwrap_or(""))
            .collect();
        let code = code.join("\n");
        let line_of = |at: usize| code[..at].matches('\n').count() + 1;
        let name_at = |text: &str| -> String {
            text.trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        let mut found = Vec::new();
        for (at, _) in code.match_indices("crate::") {
            let after = &code[at + "crate::".len()..];
            let Some(group) = after.strip_prefix('{') else {
                found.push((line_of(at), name_at(after)));
                continue;
            };
            // The group's top-level items: split at commas outside inner braces.
            let mut depth = 0usize;
            let mut item_start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        found.push((line_of(at), name_at(&group[item_start..i])));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        found.push((line_of(at), name_at(&group[item_start..i])));
                        item_start = i + 1;
                    }
                    _ => {}
                }
            }
        }
        found.retain(|(_, name)| !name.is_empty());
        found
    }

    fn rust_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let entries = std::fs::read_dir(dir).expect("src is readable");
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn modules_use_only_the_modules_below_them() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        let mut wrong = Vec::new();
        let mut checked = 0;
        for file in files {
            let relative = file.strip_prefix(&src).expect("under src");
            let top = relative.components().next().expect("a component");
            let top = top.as_os_str().to_string_lossy();
            let module = top.trim_end_matches(".rs");
            let Some(level) = LAYERS.iter().position(|m| *m == module) else {
                // lib.rs and main.rs sit above every module.
                assert!(
                    matches!(module, "lib" | "main"),
                    "{module}: a top-level module missing from LAYERS"
                );
                continue;
            };
            let text = std::fs::read_to_string(&file).expect("source is readable");
            for (line, name) in crate_paths(&text) {
                let Some(used) = LAYERS.iter().position(|m| *m == name) else {
                    continue; // crate-root items: Error, one_line
                };
                checked += 1;
                if used > level {
                    wrong.push(format!(
                        "src/{}:{line}: {module} uses {name}, a later module",
                        relative.display()
                    ));
                }
            }
        }
        assert!(checked > 50, "found only {checked} crate:: paths");
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn the_check_sees_paths_in_code_and_groups_but_not_in_comments() {
        let text = "use crate::engine::Engine;\n// crate::report is only named\nuse crate::{load, output::Sheet};\nuse crate::{\n    model::{a, b},\n    repl,\n};\nlet x = crate::timing::Phase::start(\"a\");";
        let found = crate_paths(text);
        let names: Vec<&str> = found.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(
            names,
            ["engine", "load", "output", "model", "repl", "timing"]
        );
        let lines: Vec<usize> = found.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [1, 3, 3, 4, 4, 8]);
    }
}

#[cfg(test)]
mod glob_tests {
    use super::glob_match;

    #[test]
    fn globs_match_like_a_shell() {
        assert!(glob_match("rank*_trace.json.gz", "rank12_trace.json.gz"));
        assert!(glob_match("rank?.json", "rank3.json"));
        assert!(!glob_match("rank?.json", "rank13.json"));
        assert!(!glob_match("rank*.json", "rank1.json.gz"));
        assert!(glob_match("*", "x"));
    }
}
