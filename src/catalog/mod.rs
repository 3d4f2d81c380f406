//! The query catalog: every report, category and rule is a `.sql` file.
//!
//! Shipped files live under `queries/` and are embedded at build time; a user's
//! `--queries DIR` adds files, and a user file with the same `name` replaces ours.
//! Each file starts with a header the catalog reads:
//!
//! ```sql
//! -- name: ops_summary
//! -- version: 1
//! -- kind: report
//! -- description: GPU kernel time per CPU op name, sorted by total time.
//! -- params: platform (optional)
//! SELECT ...
//! ```
//!
//! Required: `name` (letters, digits, `_`), `version` (a whole number), `kind`
//! (`view`, `category`, `report`, `rule`, `comparison` or `collective`) and `description`. Optional, for
//! reports (see [`crate::report`]):
//!
//! | header | meaning |
//! |---|---|
//! | `-- order: N` | position among the reports (sheet order); default last |
//! | `-- sheet: NAME` | output name (`NAME.csv`); default the query name |
//! | `-- when: SQL` | run only when this scalar query is true |
//! | `-- empty: write` | write the sheet even when it has no rows |
//! | `-- integer_columns: A, B` | in a trace whose times are all JSON integers (view `integer_times`), write these columns (sums, minima, maxima of times) as integers, as TraceLens keeps them |
//! | `-- mixed_numbers_as_float: PREFIX` | a text column named `PREFIX…` holding Python ints and floats prints them all as floats (`16.0`), as TraceLens's pandas float64 column does |
//! | `-- empty_text: EXPR` | an empty sheet's CSV file holds the text EXPR gives instead of the header, unless it gives NULL (TraceLens's own empty files under `--tracelens-compat`) |
//! | `-- drop_null_columns: PREFIX, ...` | leave out the columns whose name starts with one of the prefixes and that are NULL in every row (e.g. `param:`, for columns only some data has) |
//! | `-- platform_columns: PREFIX, ...` | leave out the columns whose name starts with one of the prefixes when the session has no platform (`--platform`, `SET platform`, or detected): the roofline columns |
//! | `-- integer_if: COLUMNS when SQL; ...` | when the scalar query SQL is true, the listed columns (`*` matches any text: `rank_*_ts`) print as integers where they have no NULL and every value is whole (pandas keeps JSON integers as int64 only without missing values) |
//! | `-- drop_columns_if: PREFIXES when SQL` | when the scalar query SQL is true, columns whose names start with one of the prefixes are left out (TraceLens writes some columns only when its data had them at all, or only under some options); several clauses are separated by ` ; ` |
//! | `-- formats: kineto, rocprofv3, pftrace, jax` | reports only: the input formats the report is for (default kineto); it runs when a trace of one of them is loaded |
//! | `-- spread_from: VIEW` | per-rank cells spread over columns of their own (`rank_0_ts`, ...): VIEW's rows `key, ord, column, num, txt` (see `report/spread.rs`); inserted before `-- spread_before: COLUMN` when given |
//! | `-- column_order_from: COLUMN` | `COLUMN` (a list of strings, from its first non-NULL row) names result columns: they are written in the order of their first listing, in the positions they take together; `COLUMN` itself is not written, and naming a column the result lacks is an error |
//!
//! Values are trimmed (`-- drop_null_columns: param: ` means the prefix `param:`).

mod columns;
mod header;
pub mod rule_contract;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub use columns::{expanded_notes, parse_columns_block, ColumnNote};
pub use header::{parse_query, QueryKind};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded_queries.rs"));
}

/// Where a query came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Shipped with tracesql: the path under `queries/`.
    Builtin(String),
    /// From the user's `--queries` directory.
    User(PathBuf),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Builtin(path) => write!(f, "queries/{path}"),
            Origin::User(path) => write!(f, "{}", path.display()),
        }
    }
}

/// One catalog entry.
#[derive(Debug, Clone)]
pub struct Query {
    pub name: String,
    pub version: u32,
    pub kind: QueryKind,
    pub description: String,
    pub params: Vec<String>,
    /// Extra header fields (`-- key: value`) a kind may use, e.g. `order`,
    /// `runs: on request` (a report) or `cluster: in process` (a view a
    /// cluster client computes itself, `engine::views`).
    pub extra: BTreeMap<String, String>,
    /// The SQL after the header.
    pub sql: String,
    pub origin: Origin,
}

impl Query {
    /// The trace formats a report is for (`-- formats: rocprofv3, pftrace`):
    /// TraceLens's reports differ by input, and several share a sheet name
    /// (`gpu_timeline`, `kernel_summary`). Unsaid, a report is for Kineto.
    pub fn formats(&self) -> Vec<&str> {
        match self.extra.get("formats") {
            Some(list) => list
                .split(',')
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .collect(),
            None => vec!["kineto"],
        }
    }

    /// When the query runs, as one SQL boolean (None: always): its `-- when:`
    /// and, for a report, that a trace of one of its formats is loaded.
    pub fn condition(&self) -> Option<String> {
        let parts = self.condition_parts();
        match parts.len() {
            0 => None,
            1 => parts.into_iter().next(),
            _ => Some(format!("{} AND ({})", parts[0], parts[1..].join(") AND ("))),
        }
    }

    /// [`condition`](Self::condition) as its separate tests, cheapest first:
    /// for a report, that a trace of its formats is loaded (shared by every
    /// report of those formats), then its `-- when:`. Evaluated one after the
    /// other, a report for another format costs one shared test, not its
    /// `-- when:` query over views that are empty anyway.
    pub fn condition_parts(&self) -> Vec<String> {
        let when = self.extra.get("when").cloned();
        if self.kind != QueryKind::Report {
            return when.into_iter().collect();
        }
        let formats: Vec<String> = self
            .formats()
            .iter()
            .map(|f| format!("'\"{}\"'", f.replace('\'', "''")))
            .collect();
        let loaded = format!(
            "(SELECT count(*) FROM trace_meta WHERE key = 'source_format' AND value IN ({})) > 0",
            formats.join(", ")
        );
        std::iter::once(loaded).chain(when).collect()
    }
}

/// Problems with query files, reported with the file they concern.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: {problem}")]
pub struct CatalogError {
    pub origin: String,
    pub problem: String,
}

/// All queries by name.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    queries: BTreeMap<String, Query>,
}

impl Catalog {
    /// The queries shipped in the binary.
    pub fn builtin() -> Result<Catalog, CatalogError> {
        let mut catalog = Catalog::default();
        for (path, text) in embedded::EMBEDDED {
            let query = parse_query(text, Origin::Builtin(path.to_string()))?;
            // Names are one namespace (a user file replaces a shipped query by
            // name): two shipped files of one name would hide one of them.
            if let Some(other) = catalog.get(&query.name) {
                return Err(CatalogError {
                    origin: path.to_string(),
                    problem: format!("its name `{}` is taken by {}", query.name, other.origin),
                });
            }
            catalog.insert(query);
        }
        Ok(catalog)
    }

    /// The shipped queries plus every `.sql` file under `dir` (overriding by name).
    pub fn with_user_dir(dir: &Path) -> Result<Catalog, CatalogError> {
        let mut catalog = Catalog::builtin()?;
        let fail = |problem: String| CatalogError {
            origin: dir.display().to_string(),
            problem,
        };
        if !dir.is_dir() {
            return Err(fail("not a directory".into()));
        }
        let mut files = Vec::new();
        collect_sql_files(dir, &mut files).map_err(|e| fail(e.to_string()))?;
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|e| CatalogError {
                origin: file.display().to_string(),
                problem: format!("cannot read: {e}"),
            })?;
            catalog.insert(parse_query(&text, Origin::User(file))?);
        }
        Ok(catalog)
    }

    fn insert(&mut self, query: Query) {
        self.queries.insert(query.name.clone(), query);
    }

    pub fn get(&self, name: &str) -> Option<&Query> {
        self.queries.get(name)
    }

    /// A query's whole file, header comments included: what a reader copies.
    /// None when the user's file can no longer be read.
    pub fn file_text(&self, query: &Query) -> Option<String> {
        match &query.origin {
            Origin::Builtin(path) => embedded::EMBEDDED
                .iter()
                .find(|(p, _)| p == path)
                .map(|(_, text)| text.to_string()),
            Origin::User(path) => std::fs::read_to_string(path).ok(),
        }
    }

    /// Every query, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &Query> {
        self.queries.values()
    }

    /// The report options (`--set NAME=VALUE`) the queries read with
    /// `setting('NAME', default)`.
    pub fn setting_names(&self) -> BTreeSet<String> {
        self.iter()
            .flat_map(|q| tracesql_udfs::setting::names_in(&q.sql))
            .collect()
    }

    /// The full name of the setting `name` stands for: itself when a query
    /// reads it, else the one setting it ends (`instance` is `hta.instance`).
    /// `Err` for a name no query reads, listing the ones they read (a mistyped
    /// option would else change nothing, silently), or one that ends several.
    pub fn resolve_setting_name(&self, name: &str) -> Result<String, String> {
        resolve_in(&self.setting_names(), name)
    }

    /// `values` under their full names ([`resolve_setting_name`](Self::resolve_setting_name));
    /// a name given twice keeps its last value.
    pub fn resolve_settings(
        &self,
        values: impl IntoIterator<Item = (String, String)>,
    ) -> Result<BTreeMap<String, String>, String> {
        let known = self.setting_names();
        values
            .into_iter()
            .map(|(name, value)| Ok((resolve_in(&known, &name)?, value)))
            .collect()
    }

    /// Queries of one kind, in their `order` header (then name) order.
    pub fn of_kind(&self, kind: QueryKind) -> Vec<&Query> {
        let mut out: Vec<&Query> = self.iter().filter(|q| q.kind == kind).collect();
        out.sort_by_key(|q| (q.order(), q.name.clone()));
        out
    }
}

impl Query {
    /// Position among queries of its kind (`-- order: N`), default last.
    pub fn order(&self) -> u32 {
        self.extra
            .get("order")
            .and_then(|o| o.parse().ok())
            .unwrap_or(u32::MAX)
    }
}

/// `name` among the `known` setting names (see [`Catalog::resolve_setting_name`]).
fn resolve_in(known: &BTreeSet<String>, name: &str) -> Result<String, String> {
    if known.contains(name) {
        return Ok(name.to_string());
    }
    let suffix = format!(".{name}");
    let ending: Vec<&str> = known
        .iter()
        .filter(|k| k.ends_with(&suffix))
        .map(String::as_str)
        .collect();
    match ending.as_slice() {
        [one] => Ok(one.to_string()),
        [] => Err(format!(
            "unknown setting '{name}' (the queries read: {})",
            known
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        several => Err(format!(
            "setting '{name}' is ambiguous: give one of {}",
            several.join(", ")
        )),
    }
}

fn collect_sql_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_sql_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "sql") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A setting is named in full or by what follows its namespace, when
    /// only one setting ends that way; anything else is an error that says
    /// which names there are.
    #[test]
    fn settings_resolve_by_full_or_unambiguous_short_name() {
        let mut catalog = Catalog::builtin().unwrap();
        let resolve = |catalog: &Catalog, name: &str| catalog.resolve_setting_name(name);
        assert_eq!(resolve(&catalog, "hta.instance"), Ok("hta.instance".into()));
        assert_eq!(resolve(&catalog, "instance"), Ok("hta.instance".into()));
        assert_eq!(
            resolve(&catalog, "min_event_ns"),
            Ok("pftrace.min_event_ns".into())
        );
        let unknown = resolve(&catalog, "stance").unwrap_err();
        assert!(unknown.starts_with("unknown setting 'stance'"), "{unknown}");
        assert!(unknown.contains("hta.instance"), "{unknown}");

        let text =
            "-- name: mine\n-- version: 1\n-- kind: report\n-- description: reads an option\n\
                    SELECT setting('mine.instance', '0') AS i";
        let mine = parse_query(text, Origin::User("mine.sql".into())).unwrap();
        catalog.insert(mine);
        let ambiguous = resolve(&catalog, "instance").unwrap_err();
        assert_eq!(
            ambiguous,
            "setting 'instance' is ambiguous: give one of hta.instance, mine.instance"
        );
        assert_eq!(
            resolve(&catalog, "mine.instance"),
            Ok("mine.instance".into())
        );

        let given = |pairs: &[(&str, &str)]| {
            catalog.resolve_settings(pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())))
        };
        assert_eq!(
            given(&[
                ("hta.instance", "1"),
                ("annotation", "Step"),
                ("hta.instance", "2")
            ]),
            Ok(BTreeMap::from([
                ("hta.annotation".to_string(), "Step".to_string()),
                ("hta.instance".to_string(), "2".to_string()),
            ]))
        );
        assert!(given(&[("annotation", "Step"), ("instance", "1")]).is_err());
    }
}
