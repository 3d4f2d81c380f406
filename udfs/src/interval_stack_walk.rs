//! `interval_stack_walk(uid, ts, t_end)`: the call stack of one thread's events as
//! Holistic Trace Analysis builds it (`hta.common.call_stack`), walked depth
//! first.
//!
//! Why an aggregate: the stack is a sequential state machine; in SQL each
//! endpoint's stack top takes a self-join per stack level (a window over the
//! starts of each level), several times the cost of sorting the endpoints once.
//!
//! HTA's rules, reproduced exactly:
//! * each event is a start (at `ts`) and an end (at `t_end`); a negative length
//!   counts as 0;
//! * endpoints in time order; at one time an end comes before a start, but a
//!   zero-length event's start comes before another's end (and its own end),
//!   and two zero-length events go by uid; of two starts the longer first, then
//!   the lower uid; of two ends the shorter first, then the higher uid;
//! * a start's parent is the event on top of the stack (none: -1), and it is
//!   pushed; an end pops the event on top, which is its own event where events
//!   nest, and another one where they overlap without nesting.
//!
//! The depth-first walk of the resulting tree (children in start order) meets
//! the events in exactly this order, each end leaving the event it popped, so
//! the result is that walk: one entry per endpoint.

use std::cmp::Ordering;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, BooleanArray, Int64Array};
use datafusion::arrow::datatypes::{DataType, Field, Fields, Float64Type, Int64Type};
use datafusion::common::Result;
use datafusion::logical_expr::AggregateUDF;

use crate::kept_rows::RowsFunction;

/// One event of the thread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub uid: i64,
    pub ts: f64,
    pub t_end: f64,
}

/// One step of the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visit {
    /// The endpoint's position in HTA's order (1, 2, ...).
    pub pos: i64,
    /// A start (entering the event) or an end (leaving it).
    pub is_start: bool,
    /// The event entered, or the one on top of the stack that the end leaves.
    pub uid: i64,
    /// That event's parent (-1: none).
    pub parent: i64,
    /// Events on the stack before this endpoint.
    pub depth: i64,
}

/// One endpoint: (time, is_start, length, uid).
type Endpoint = (f64, bool, f64, i64);

/// HTA's `compare_events` on two endpoints.
fn hta_order(x: &Endpoint, y: &Endpoint) -> Ordering {
    let (xt, xs, xd, xi) = *x;
    let (yt, ys, yd, yi) = *y;
    if xi == yi {
        return ys.cmp(&xs); // the start first
    }
    match xt.total_cmp(&yt) {
        Ordering::Equal => {}
        other => return other,
    }
    if xs == ys {
        return if xs {
            yd.total_cmp(&xd).then(xi.cmp(&yi)) // longer start first, then lower uid
        } else {
            xd.total_cmp(&yd).then(yi.cmp(&xi)) // shorter end first, then higher uid
        };
    }
    if xd > 0.0 && yd > 0.0 {
        return xs.cmp(&ys); // an end before a start
    }
    if xd == 0.0 && yd == 0.0 {
        return xi.cmp(&yi); // two zero-length events: by uid
    }
    ys.cmp(&xs) // a zero-length event and another: the start first
}

/// A stable merge sort by `cmp`: HTA's order is not transitive where
/// zero-length events meet others at one time, and a merge sort, unlike the
/// standard library's, gives some order then rather than panicking.
fn merge_sort<T: Copy>(items: &mut [T], cmp: &impl Fn(&T, &T) -> Ordering) {
    if items.len() <= 1 {
        return;
    }
    let mid = items.len() / 2;
    merge_sort(&mut items[..mid], cmp);
    merge_sort(&mut items[mid..], cmp);
    let mut merged = Vec::with_capacity(items.len());
    let (mut i, mut j) = (0, mid);
    while i < mid && j < items.len() {
        if cmp(&items[j], &items[i]) == Ordering::Less {
            merged.push(items[j]);
            j += 1;
        } else {
            merged.push(items[i]);
            i += 1;
        }
    }
    merged.extend_from_slice(&items[i..mid]);
    merged.extend_from_slice(&items[j..]);
    items.copy_from_slice(&merged);
}

/// The walk of the call stack of `events` (one thread's).
pub fn interval_stack_walk(events: &[Interval]) -> Vec<Visit> {
    let mut endpoints: Vec<Endpoint> = Vec::with_capacity(2 * events.len());
    for e in events {
        let dur = (e.t_end - e.ts).max(0.0);
        endpoints.push((e.ts, true, dur, e.uid));
        endpoints.push((e.ts + dur, false, dur, e.uid));
    }
    merge_sort(&mut endpoints, &hta_order);
    let mut stack: Vec<(i64, i64)> = Vec::new(); // (uid, parent)
    let mut walk = Vec::with_capacity(endpoints.len());
    for (pos, &(_, is_start, _, uid)) in endpoints.iter().enumerate() {
        let depth = stack.len() as i64;
        let pos = pos as i64 + 1;
        if is_start {
            let parent = stack.last().map_or(-1, |top| top.0);
            stack.push((uid, parent));
            walk.push(Visit {
                pos,
                is_start,
                uid,
                parent,
                depth,
            });
        } else if let Some((top, parent)) = stack.pop() {
            walk.push(Visit {
                pos,
                is_start,
                uid: top,
                parent,
                depth,
            });
        }
    }
    walk
}

fn visit_fields() -> Fields {
    Fields::from(vec![
        Field::new("pos", DataType::Int64, true),
        Field::new("is_start", DataType::Boolean, true),
        Field::new("uid", DataType::Int64, true),
        Field::new("parent", DataType::Int64, true),
        Field::new("depth", DataType::Int64, true),
    ])
}

/// `interval_stack_walk(uid BIGINT, ts DOUBLE, t_end DOUBLE) ->
/// LIST<STRUCT<pos BIGINT, is_start BOOLEAN, uid BIGINT, parent BIGINT, depth
/// BIGINT>>`: the group's events (one thread's) as HTA's call stack walks
/// them, one entry per start and end (see the module docs). Rows with a NULL
/// are ignored.
#[derive(Debug)]
pub struct IntervalStackWalk;

/// The aggregate function `interval_stack_walk`.
pub fn udaf() -> AggregateUDF {
    crate::kept_rows::udaf::<IntervalStackWalk>()
}

impl RowsFunction for IntervalStackWalk {
    const NAME: &'static str = "interval_stack_walk";

    fn arguments() -> Vec<(&'static str, DataType)> {
        vec![
            ("uid", DataType::Int64),
            ("ts", DataType::Float64),
            ("t_end", DataType::Float64),
        ]
    }

    fn result_fields() -> Fields {
        visit_fields()
    }

    fn evaluate(arguments: &[ArrayRef]) -> Result<Vec<ArrayRef>> {
        let uid = arguments[0].as_primitive::<Int64Type>();
        let ts = arguments[1].as_primitive::<Float64Type>();
        let t_end = arguments[2].as_primitive::<Float64Type>();
        let events: Vec<Interval> = (0..uid.len())
            .filter(|&i| uid.is_valid(i) && ts.is_valid(i) && t_end.is_valid(i))
            .map(|i| Interval {
                uid: uid.value(i),
                ts: ts.value(i),
                t_end: t_end.value(i),
            })
            .collect();
        let walk = interval_stack_walk(&events);
        Ok(vec![
            Arc::new(walk.iter().map(|v| v.pos).collect::<Int64Array>()),
            Arc::new(
                walk.iter()
                    .map(|v| Some(v.is_start))
                    .collect::<BooleanArray>(),
            ),
            Arc::new(walk.iter().map(|v| v.uid).collect::<Int64Array>()),
            Arc::new(walk.iter().map(|v| v.parent).collect::<Int64Array>()),
            Arc::new(walk.iter().map(|v| v.depth).collect::<Int64Array>()),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{batch, f64_column, i64_column, i64_values, run_sql};

    fn events(list: &[(i64, f64, f64)]) -> Vec<Interval> {
        list.iter()
            .map(|&(uid, ts, t_end)| Interval { uid, ts, t_end })
            .collect()
    }

    /// The walk in short: `+uid<parent` for a start, `-uid` for an end.
    fn steps(list: &[(i64, f64, f64)]) -> String {
        let walk = interval_stack_walk(&events(list));
        let step = |v: &Visit| match v.is_start {
            true => format!("+{}<{}", v.uid, v.parent),
            false => format!("-{}", v.uid),
        };
        walk.iter().map(step).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn nested_events_are_entered_and_left_in_order() {
        // 1 [0, 10] holds 2 [2, 5] and 3 [5, 9]; 3 starts where 2 ends.
        let list = [(3, 5.0, 9.0), (1, 0.0, 10.0), (2, 2.0, 5.0)];
        assert_eq!(steps(&list), "+1<-1 +2<1 -2 +3<1 -3 -1");
        let walk = interval_stack_walk(&events(&list));
        let depths: Vec<i64> = walk.iter().map(|v| v.depth).collect();
        assert_eq!(depths, [0, 1, 2, 1, 2, 1]);
        let positions: Vec<i64> = walk.iter().map(|v| v.pos).collect();
        assert_eq!(positions, [1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn ties_longer_start_first_shorter_end_first() {
        // Same start: the longer (1) is the parent. Same end: the shorter (2)
        // ends first. Equal spans: the lower uid starts first, ends last.
        let list = [(2, 0.0, 4.0), (1, 0.0, 4.5), (5, 6.0, 8.0), (4, 6.0, 8.0)];
        assert_eq!(steps(&list), "+1<-1 +2<1 -2 -1 +4<-1 +5<4 -5 -4");
        // At one time an end comes before a start, but a zero-length event
        // starts (and ends) before another's end.
        assert_eq!(steps(&[(1, 0.0, 5.0), (2, 5.0, 9.0)]), "+1<-1 -1 +2<-1 -2");
        assert_eq!(steps(&[(1, 0.0, 5.0), (3, 5.0, 5.0)]), "+1<-1 +3<1 -3 -1");
    }

    #[test]
    fn an_end_pops_the_top_where_events_overlap() {
        // 1 [0, 10] and 2 [5, 15] overlap: 1's end pops 2, 2's end pops 1.
        assert_eq!(steps(&[(1, 0.0, 10.0), (2, 5.0, 15.0)]), "+1<-1 +2<1 -2 -1");
        // A negative length counts as 0: the event starts and ends at its start.
        assert_eq!(steps(&[(1, 0.0, 10.0), (2, 4.0, 3.0)]), "+1<-1 +2<1 -2 -1");
    }

    #[tokio::test]
    async fn sql_walk_per_thread() {
        let t = batch(vec![
            ("thread", i64_column(&[1, 1, 2])),
            ("uid", i64_column(&[10, 11, 20])),
            ("ts", f64_column(&[0.0, 1.0, 0.0])),
            ("t_end", f64_column(&[5.0, 2.0, 1.0])),
        ]);
        let sql = "WITH w AS (SELECT thread, interval_stack_walk(uid, ts, t_end) AS walk FROM t GROUP BY thread), \
                        s AS (SELECT thread, unnest(walk) AS v FROM w) \
                   SELECT thread, v['pos'] AS pos, v['uid'] AS uid, v['parent'] AS parent FROM s ORDER BY thread, pos";
        let out = run_sql(vec![t], sql).await;
        assert_eq!(
            i64_values(&out, "uid"),
            [10, 11, 11, 10, 20, 20].map(Some).to_vec()
        );
        assert_eq!(
            i64_values(&out, "parent"),
            [-1, 10, 10, -1, -1, -1].map(Some).to_vec()
        );
    }
}
