//! [`Analysis`]: `Session.analyze()`'s answer, the CLI's `analyze` in objects.

use pyo3::prelude::*;

use crate::errors::Failure;
use crate::result::QueryResult;

/// A trace's prioritized analysis, as `tracesql analyze` makes it.
///
/// `findings` has one row per rule and subject; `recommendations` merges them
/// per subject in priority order; `markdown` is `standalone_analysis.md`;
/// `html()` the one-file report with its charts, which Jupyter shows.
#[pyclass(name = "Analysis", module = "tracesql", frozen)]
pub struct Analysis {
    analysis: tracesql::analyze::Analysis,
    markdown: String,
}

impl Analysis {
    pub fn new(analysis: tracesql::analyze::Analysis) -> Result<Self, Failure> {
        let mut markdown = Vec::new();
        tracesql::analyze::render::markdown(&mut markdown, &analysis)
            .map_err(|e| Failure::Engine(tracesql::Error::Output(e.to_string())))?;
        Ok(Analysis {
            analysis,
            markdown: String::from_utf8_lossy(&markdown).into_owned(),
        })
    }
}

#[pymethods]
impl Analysis {
    /// The trace analyzed.
    #[getter]
    fn trace(&self) -> String {
        self.analysis.trace.clone()
    }

    /// The platform whose peaks the roofline used, or None.
    #[getter]
    fn platform(&self) -> Option<String> {
        self.analysis.platform.clone()
    }

    /// One row per rule and subject (`findings.csv`).
    #[getter]
    fn findings(&self) -> QueryResult {
        QueryResult::of_sheet(&self.analysis.findings)
    }

    /// The findings merged per subject, in priority order (`findings.json`).
    #[getter]
    fn recommendations(&self) -> QueryResult {
        QueryResult::of_sheet(&self.analysis.recommendations)
    }

    /// The headline numbers: GPU time, busy and idle shares, the platform.
    #[getter]
    fn summary(&self) -> QueryResult {
        QueryResult::of_sheet(&self.analysis.summary)
    }

    /// The ops that take the most GPU time, with their roofline position.
    #[getter]
    fn top_ops(&self) -> QueryResult {
        QueryResult::of_sheet(&self.analysis.top_ops)
    }

    /// GPU time per op category.
    #[getter]
    fn categories(&self) -> QueryResult {
        QueryResult::of_sheet(&self.analysis.categories)
    }

    /// The report as Markdown (`standalone_analysis.md`).
    #[getter]
    fn markdown(&self) -> String {
        self.markdown.clone()
    }

    /// The one-file HTML report: summary, timeline, roofline, top ops,
    /// recommendations (what `tracesql analyze --html` writes).
    fn html(&self) -> PyResult<String> {
        tracesql::analyze::pictures::html(&self.analysis)
            .map_err(|e| PyErr::from(Failure::Engine(e)))
    }

    fn _repr_html_(&self) -> PyResult<String> {
        self.html()
    }

    fn _repr_markdown_(&self) -> String {
        self.markdown.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "<tracesql.Analysis of {}: {} findings, {} recommendations; platform {}>",
            self.analysis.trace,
            self.analysis.findings.rows(),
            self.analysis.recommendations.rows(),
            self.analysis.platform.as_deref().unwrap_or("none")
        )
    }
}
