//! Reading the `-- key: value` header at the top of a query file.

use std::collections::BTreeMap;

use super::{CatalogError, Origin, Query};

/// What a query is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum QueryKind {
    /// A named view other queries build on (registered in every session).
    View,
    /// An op-category filter, registered as a view (`SELECT * FROM gemm_ops`).
    Category,
    /// A report sheet (`tracesql report`).
    Report,
    /// An analyzer rule returning findings.
    Rule,
    /// A view over two sides' reports (`tracesql compare`), registered only in
    /// a comparison's session.
    Comparison,
    /// A multi-rank collective sheet (`tracesql collectives`): a report over
    /// all ranks of a run, not written by the single-trace `report`.
    Collective,
}

impl QueryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            QueryKind::View => "view",
            QueryKind::Category => "category",
            QueryKind::Report => "report",
            QueryKind::Rule => "rule",
            QueryKind::Comparison => "comparison",
            QueryKind::Collective => "collective",
        }
    }

    fn parse(s: &str) -> Option<QueryKind> {
        Some(match s {
            "view" => QueryKind::View,
            "category" => QueryKind::Category,
            "report" => QueryKind::Report,
            "rule" => QueryKind::Rule,
            "comparison" => QueryKind::Comparison,
            "collective" => QueryKind::Collective,
            _ => return None,
        })
    }

    /// Views and categories are registered as views in every session.
    pub fn is_view(self) -> bool {
        matches!(self, QueryKind::View | QueryKind::Category)
    }
}

/// Parses a query file: the header comment lines, then the SQL.
///
/// The header is the run of `-- key: value` lines at the top; comment lines
/// without a colon-separated key are documentation and are kept with the SQL.
pub fn parse_query(text: &str, origin: Origin) -> Result<Query, CatalogError> {
    let fail = |problem: String| CatalogError {
        origin: origin.to_string(),
        problem,
    };
    let mut fields: BTreeMap<String, String> = BTreeMap::new();
    for line in text.lines() {
        let Some(comment) = line.trim().strip_prefix("--") else {
            break;
        };
        let Some((key, value)) = comment.split_once(':') else {
            break;
        };
        let key = key.trim();
        if key.is_empty() || key.contains(' ') {
            break;
        }
        fields.insert(key.to_string(), value.trim().to_string());
    }
    let mut take = |key: &str| {
        fields
            .remove(key)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| fail(format!("the header has no `-- {key}:` line")))
    };
    let name = take("name")?;
    let version = take("version")?;
    let kind = take("kind")?;
    let description = take("description")?;
    let version = version
        .parse()
        .map_err(|_| fail(format!("version `{version}` is not a whole number")))?;
    let kind = QueryKind::parse(&kind).ok_or_else(|| {
        fail(format!(
            "kind `{kind}` is not one of view, category, report, rule, comparison"
        ))
    })?;
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(fail(format!(
            "name `{name}` may only use letters, digits and _"
        )));
    }
    let params = fields
        .remove("params")
        .map(|p| {
            p.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    Ok(Query {
        name,
        version,
        kind,
        description,
        params,
        extra: fields,
        sql: text.to_string(),
        origin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Query, CatalogError> {
        parse_query(text, Origin::Builtin("t.sql".into()))
    }

    #[test]
    fn reads_the_header() {
        let q = parse(
            "-- name: top_ops\n-- version: 3\n-- kind: report\n-- description: Top ops.\n\
             -- order: 2\n-- Why: a note\nSELECT 1",
        )
        .expect("valid");
        assert_eq!(
            (q.name.as_str(), q.version, q.kind),
            ("top_ops", 3, QueryKind::Report)
        );
        assert_eq!(q.order(), 2);
        assert!(q.sql.ends_with("SELECT 1"));
    }

    /// A `Columns:` block documents a query's columns with `--   name: text` lines
    /// after the header; they are comments, never header keys.
    #[test]
    fn a_columns_block_is_not_part_of_the_header() {
        let q = parse(
            "-- name: v\n-- version: 2\n-- kind: view\n-- description: A view.\n--\n\
             -- Columns:\n--   name: the op name\n--   version: a number\nSELECT 1 AS name",
        )
        .expect("valid");
        assert_eq!((q.name.as_str(), q.version), ("v", 2));
        assert!(q.extra.is_empty(), "{:?}", q.extra);
        assert!(q.sql.contains("--   name: the op name"));
    }

    /// A report's condition: its formats' test first, then its `-- when:`;
    /// joined, the one boolean other callers evaluate.
    #[test]
    fn a_reports_condition_is_its_format_test_then_its_when() {
        let q = parse(
            "-- name: r\n-- version: 1\n-- kind: report\n-- description: d\n\
             -- formats: rocprofv3, pftrace\n-- when: (SELECT count(*) FROM ops) > 0\nSELECT 1",
        )
        .expect("valid");
        let loaded = "(SELECT count(*) FROM trace_meta WHERE key = 'source_format' \
                      AND value IN ('\"rocprofv3\"', '\"pftrace\"')) > 0";
        let when = "(SELECT count(*) FROM ops) > 0";
        assert_eq!(
            q.condition_parts(),
            vec![loaded.to_string(), when.to_string()]
        );
        assert_eq!(q.condition(), Some(format!("{loaded} AND ({when})")));
        let kineto =
            parse("-- name: k\n-- version: 1\n-- kind: report\n-- description: d\nSELECT 1")
                .expect("valid");
        assert_eq!(
            kineto.condition_parts().len(),
            1,
            "a report is for Kineto unless it says"
        );
        assert!(kineto.condition_parts()[0].contains("'\"kineto\"'"));
        let view = parse("-- name: v\n-- version: 1\n-- kind: view\n-- description: d\nSELECT 1")
            .expect("valid");
        assert!(view.condition_parts().is_empty() && view.condition().is_none());
    }

    #[test]
    fn rejects_incomplete_headers() {
        let e = parse("-- name: x\n-- version: 1\nSELECT 1").expect_err("no kind");
        assert!(e.to_string().contains("-- kind:"), "{e}");
        let e = parse("-- name: x\n-- version: one\n-- kind: report\n-- description: d\nSELECT 1")
            .expect_err("bad version");
        assert!(e.to_string().contains("whole number"), "{e}");
        let e = parse("-- name: x\n-- version: 1\n-- kind: table\n-- description: d\nSELECT 1")
            .expect_err("bad kind");
        assert!(e.to_string().contains("kind `table`"), "{e}");
    }
}
