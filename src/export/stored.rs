//! `report DIR` from the reports an export already holds.
//!
//! An export stores every report next to the tables, with the fingerprint of
//! the session that computed them ([`crate::report::fingerprint`]: tracesql
//! version, catalog SQL, platforms). Reading those files back is the fast path
//! of `tracesql report DIR`: no table to read, no query to run. It is taken
//! only when a session opened now would have the same fingerprint, so the
//! result is the one running the reports would give; otherwise the caller
//! reopens the tables and runs the reports.

use std::path::Path;

use super::{ExportedTrace, Manifest, TraceInfo};
use crate::catalog::Catalog;
use crate::engine::{Engine, Prepare};
use crate::ingest::{IngestError, Problem};
use crate::load::reopen;
use crate::model::table_doc;
use crate::report::{fingerprint, selected_reports, Sheet};
use crate::Error;

/// The stored reports (those `only` selects, all when None) of every trace of
/// the export at `dir`, with each trace's provenance; None when any trace's
/// stored reports are not what a session set up by `prepare` would compute.
pub fn stored_reports(
    dir: &str,
    catalog: &Catalog,
    only: Option<&[String]>,
    prepare: &Prepare<'_>,
) -> Result<Option<Vec<(TraceInfo, Vec<Sheet>)>>, Error> {
    let manifest = reopen::read_manifest(dir)?;
    let wanted = selected_reports(catalog, only)?;
    // An export stores the default reports: one run on request is computed.
    if wanted.iter().any(|q| q.on_request()) {
        return Ok(None);
    }
    let mut traces = Vec::with_capacity(manifest.traces.len());
    for trace in &manifest.traces {
        if !reports_are_current(dir, trace, catalog, prepare)? {
            return Ok(None);
        }
        let mut sheets = Vec::new();
        for query in &wanted {
            // A report missing from the export did not apply or was empty.
            let Some(stored) = trace.reports.iter().find(|r| r.query == query.name) else {
                continue;
            };
            let path = Manifest::data_file(Path::new(dir), "reports", &stored.query, trace);
            let (schema, batches) = reopen::read_parquet(&path).map_err(|e| {
                let shown = path.strip_prefix(dir).unwrap_or(&path).display();
                IngestError::new(dir, Problem::Export(format!("{shown}: {e}")))
            })?;
            sheets.push(Sheet {
                sheet: stored.sheet.clone(),
                query_name: stored.query.clone(),
                query_version: stored.version,
                header: schema.fields().iter().map(|f| f.name().clone()).collect(),
                batches,
                empty_text: None,
            });
        }
        traces.push((trace.info.clone(), sheets));
    }
    Ok(Some(traces))
}

/// Whether `trace`'s stored reports carry the fingerprint a session opened on it
/// now would have (its platform detected from its own `trace_meta`).
fn reports_are_current(
    dir: &str,
    trace: &ExportedTrace,
    catalog: &Catalog,
    prepare: &Prepare<'_>,
) -> Result<bool, Error> {
    if trace.reports_fingerprint.is_empty() {
        return Ok(false);
    }
    let Some(doc) = table_doc("trace_meta") else {
        return Ok(false);
    };
    let trace_meta = reopen::read_trace_table(dir, trace, doc)?;
    let engine = Engine::with_catalog(catalog.clone());
    prepare(&engine)?;
    engine.detect_platform(&trace_meta).map_err(Error::query)?;
    Ok(fingerprint(&engine) == trace.reports_fingerprint)
}
