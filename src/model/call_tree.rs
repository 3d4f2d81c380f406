//! The call tree of one trace, indexed by uid: the one index the derived
//! `kernel_ancestors` table and the drill-down table functions (`ancestors`,
//! `descendants`, `call_stack`, `kernels_of`) walk.
//!
//! An event's parent is `events.parent_uid` (written when the trace is linked,
//! see `tree`); [`Parents`] reads that column in place, so deriving
//! `kernel_ancestors` costs no copy of the events. [`CallTree`] adds what the
//! drill-down needs on top: each edge's kind (from `tree_edges`) and each
//! event's children in time order, built once per trace on first use.

use std::collections::HashMap;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, Int64Array, StringArray};
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type};
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;

/// The parent of each event of one trace, looked up by uid.
#[derive(Debug, Clone)]
pub struct Parents {
    /// `events.parent_uid` (a cheap clone: Arrow arrays share their buffers).
    parent: Int64Array,
    /// Row of each uid when rows are not in uid order (never for tracesql's own
    /// tables, where row `i` is uid `i`).
    row_of: Option<HashMap<i64, usize>>,
}

impl Parents {
    pub fn new(events: &RecordBatch) -> Result<Self, ArrowError> {
        let column = |name: &str| -> Result<Int64Array, ArrowError> {
            i64_column(events, name)
                .cloned()
                .map_err(|e| ArrowError::SchemaError(format!("events: {e}")))
        };
        let (uid, parent) = (column("uid")?, column("parent_uid")?);
        let in_order = uid.null_count() == 0 && uid.values().iter().zip(0..).all(|(&u, i)| u == i);
        let row_of = (!in_order).then(|| {
            let uids = uid.iter().enumerate();
            uids.filter_map(|(row, u)| Some((u?, row))).collect()
        });
        Ok(Parents { parent, row_of })
    }

    /// The parent of `uid`, if it has one.
    pub fn of(&self, uid: i64) -> Option<i64> {
        let row = match &self.row_of {
            None => usize::try_from(uid).ok(),
            Some(rows) => rows.get(&uid).copied(),
        }?;
        (row < self.parent.len() && self.parent.is_valid(row)).then(|| self.parent.value(row))
    }

    /// Calls `visit(depth, ancestor)` for each event above `uid`, nearest first.
    /// A chain longer than the trace (a cycle, in tables not built by tracesql)
    /// stops there.
    pub fn walk(&self, uid: i64, mut visit: impl FnMut(i64, i64)) {
        let mut at = self.of(uid);
        let mut depth = 0i64;
        while let Some(ancestor) = at {
            depth += 1;
            if depth as usize > self.parent.len() {
                break;
            }
            visit(depth, ancestor);
            at = self.of(ancestor);
        }
    }
}

const NONE: u32 = u32::MAX;

/// The call tree with edge kinds and children, for walking down as well as up.
/// Uids index arrays directly (tracesql numbers events 0..n); an edge naming a
/// uid outside the events is left out.
#[derive(Debug)]
pub struct CallTree {
    parents: Parents,
    /// Row of each uid in `events` (NONE: no such event).
    row: Vec<u32>,
    /// The kind of the edge from each uid up to its parent, by code.
    parent_kind: Vec<u8>,
    /// Edge kinds by code.
    kinds: Vec<String>,
    /// Children of uid `u`: `children[child_start[u]..child_start[u + 1]]`, in
    /// (ts, uid) order.
    child_start: Vec<u32>,
    children: Vec<u32>,
}

impl CallTree {
    /// The tree of one trace from its `events` batch (`parent_uid`,
    /// `parent_kind`).
    pub fn build(events: &RecordBatch) -> Result<Self, String> {
        let parents = Parents::new(events).map_err(|e| e.to_string())?;
        let uids = i64_column(events, "uid")?;
        let ts = f64_column(events, "ts")?;
        let n = events.num_rows();
        let in_range = |u: i64| usize::try_from(u).ok().filter(|&u| u < n);
        let mut row = vec![NONE; n];
        for r in 0..n {
            if let Some(u) = uids.is_valid(r).then(|| uids.value(r)).and_then(in_range) {
                row[u] = r as u32;
            }
        }
        let (parent_kind, kinds) = edge_kinds(events, uids, n)?;
        let parent_of = |u: usize| parents.of(u as i64).and_then(in_range);
        let mut child_start = vec![0u32; n + 1];
        for u in 0..n {
            if let Some(p) = parent_of(u) {
                child_start[p + 1] += 1;
            }
        }
        for i in 1..child_start.len() {
            child_start[i] += child_start[i - 1];
        }
        let mut fill = child_start.clone();
        let mut children = vec![0u32; child_start[n] as usize];
        for u in 0..n {
            if let Some(p) = parent_of(u) {
                children[fill[p] as usize] = u as u32;
                fill[p] += 1;
            }
        }
        let start_of = |u: u32| {
            let r = row[u as usize];
            if r == NONE || ts.is_null(r as usize) {
                f64::INFINITY
            } else {
                ts.value(r as usize)
            }
        };
        for u in 0..n {
            let slice = &mut children[child_start[u] as usize..child_start[u + 1] as usize];
            slice.sort_by(|&a, &b| start_of(a).total_cmp(&start_of(b)).then(a.cmp(&b)));
        }
        Ok(CallTree {
            parents,
            row,
            parent_kind,
            kinds,
            child_start,
            children,
        })
    }

    /// The events' row of `uid`, if it is an event of the trace.
    pub fn row_of(&self, uid: u32) -> Option<usize> {
        let r = self.row.get(uid as usize).copied().unwrap_or(NONE);
        (r != NONE).then_some(r as usize)
    }

    /// How many uids the tree indexes (the events' row count).
    pub fn len(&self) -> usize {
        self.row.len()
    }

    pub fn is_empty(&self) -> bool {
        self.row.is_empty()
    }

    /// The kind of the edge from `uid` up to its parent ("" when unknown).
    fn kind_up(&self, uid: u32) -> &str {
        let code = self.parent_kind.get(uid as usize).copied().unwrap_or(0);
        self.kinds.get(code as usize).map_or("", String::as_str)
    }

    fn children_of(&self, uid: u32) -> &[u32] {
        let u = uid as usize;
        &self.children[self.child_start[u] as usize..self.child_start[u + 1] as usize]
    }

    /// `(ancestor, distance, kind of its edge down)`, nearest first.
    pub fn ancestors(&self, uid: u32) -> Vec<(u32, i64, &str)> {
        let mut out = Vec::new();
        let (mut below, mut stopped) = (uid, false);
        self.parents.walk(i64::from(uid), |distance, ancestor| {
            // A parent outside the events (a damaged export) ends the chain.
            let a = u32::try_from(ancestor)
                .ok()
                .filter(|&a| (a as usize) < self.len());
            match a {
                Some(a) if !stopped => {
                    out.push((a, distance, self.kind_up(below)));
                    below = a;
                }
                _ => stopped = true,
            }
        });
        out
    }

    /// `(uid, parent, distance, kind)` depth first, children in time order.
    pub fn descendants(&self, uid: u32, max_depth: Option<i64>) -> Vec<(u32, u32, i64, &str)> {
        let mut out = Vec::new();
        let mut stack: Vec<(u32, u32, i64)> = vec![(uid, NONE, 0)];
        while let Some((node, parent, depth)) = stack.pop() {
            if node != uid {
                out.push((node, parent, depth, self.kind_up(node)));
            }
            // Each event has one parent, so more rows than events is a cycle.
            if max_depth.is_some_and(|m| depth >= m) || out.len() > self.row.len() {
                continue;
            }
            for &c in self.children_of(node).iter().rev() {
                stack.push((c, node, depth + 1));
            }
        }
        out
    }
}

/// The kind of the edge above each child uid (by code) and the kinds' names.
/// Each uid's edge kind as a code into the returned kind names (0 where the
/// event has no parent), from `events.parent_kind`.
fn edge_kinds(
    events: &RecordBatch,
    uids: &Int64Array,
    n: usize,
) -> Result<(Vec<u8>, Vec<String>), String> {
    let kind_names = utf8_column(events, "parent_kind")?;
    let mut kinds: Vec<String> = Vec::new();
    let mut parent_kind = vec![0u8; n];
    for r in 0..events.num_rows() {
        let child = uids.is_valid(r).then(|| uids.value(r));
        let Some(c) = child
            .and_then(|c| usize::try_from(c).ok())
            .filter(|&c| c < n)
        else {
            continue;
        };
        if kind_names.is_null(r) {
            continue;
        }
        let kind = kind_names.value(r);
        let code = match kinds.iter().position(|k| k == kind) {
            Some(i) => i,
            None => {
                kinds.push(kind.to_string());
                kinds.len() - 1
            }
        };
        parent_kind[c] = u8::try_from(code).map_err(|_| "too many edge kinds".to_string())?;
    }
    Ok((parent_kind, kinds))
}

fn column<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a ArrayRef, String> {
    batch
        .column_by_name(name)
        .ok_or_else(|| format!("the table has no column {name}"))
}

/// A text column as plain strings (the tables dictionary-encode most text).
pub fn utf8_column(batch: &RecordBatch, name: &str) -> Result<StringArray, String> {
    let column = column(batch, name)?;
    let text = datafusion::arrow::compute::cast(column, &DataType::Utf8)
        .map_err(|_| format!("column {name} is not text"))?;
    text.as_string_opt::<i32>()
        .cloned()
        .ok_or_else(|| format!("column {name} is not text"))
}

pub fn i64_column<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a Int64Array, String> {
    column(batch, name)?
        .as_primitive_opt::<Int64Type>()
        .ok_or_else(|| format!("column {name} is not Int64"))
}

pub fn f64_column<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a Float64Array, String> {
    column(batch, name)?
        .as_primitive_opt::<Float64Type>()
        .ok_or_else(|| format!("column {name} is not Float64"))
}
