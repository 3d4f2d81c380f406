//! `dag_longest_path(src, dst, weight, ord)`: the longest path of a directed
//! acyclic graph given as its edges, as networkx's `dag_longest_path` finds it,
//! ties included.
//!
//! Why an aggregate: the longest path is a dynamic programme over a
//! topological order, which SQL cannot express without a recursion per node.
//! Holistic Trace Analysis' critical path is `nx.dag_longest_path(G,
//! weight="weight")`, and its graphs have many paths of equal length (zero-weight
//! dependency edges), so the path it reports depends on how networkx breaks
//! ties: on the order the edges were added. That order is `ord` here.
//!
//! networkx's rules, reproduced exactly:
//! * nodes exist in the order they are first named by an edge (source, then
//!   destination); an edge added twice keeps its first position and takes the
//!   last weight (here also the last `ord`, which is what the path reports);
//! * topological order: Kahn's generations, the first being the nodes without
//!   predecessors in node order, each next one the children whose last
//!   predecessor was just visited, in the order of the visited nodes' edges;
//! * per node, the best predecessor is the first (in edge order) of those with
//!   the largest distance + weight; a node without predecessors, or whose best
//!   distance is negative, starts a path (distance 0);
//! * the path ends at the first node, in topological order, of the largest
//!   distance, and is walked back through the best predecessors.
//!
//! ```sql
//! WITH p AS (SELECT dag_longest_path(src, dst, weight, ord) AS path FROM edges)
//! SELECT e.* FROM (SELECT unnest(path) AS step FROM p) s JOIN edges e ON e.ord = s.step['ord']
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, AsArray, Float64Array, Int64Array};
use datafusion::arrow::datatypes::{DataType, Field, Fields, Float64Type, Int64Type};
use datafusion::common::{DataFusionError, Result};
use datafusion::logical_expr::AggregateUDF;

use crate::kept_rows::RowsFunction;

/// One edge: its nodes, weight and insertion key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge {
    pub src: i64,
    pub dst: i64,
    pub weight: f64,
    pub ord: i64,
}

/// Why there is no longest path.
#[derive(Debug, Clone, PartialEq)]
pub enum PathError {
    /// The graph has a cycle: `nodes` nodes are on or behind it.
    Cycle { nodes: usize },
    /// A weight is NaN.
    NanWeight { ord: i64 },
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathError::Cycle { nodes } => write!(
                f,
                "dag_longest_path: the graph has a cycle ({nodes} nodes are on a cycle or after one); it must be acyclic"
            ),
            PathError::NanWeight { ord } => {
                write!(f, "dag_longest_path: the weight of edge {ord} is NaN")
            }
        }
    }
}

/// networkx's `dag_longest_path(G, weight="weight")` of the graph of `edges`
/// added in `ord` order (ties of `ord` in the given order): the path's edges,
/// in path order. No edges, or a longest path of one node, give no edges.
pub fn dag_longest_path(edges: &[Edge]) -> Result<Vec<Edge>, PathError> {
    let mut order: Vec<usize> = (0..edges.len()).collect();
    order.sort_by_key(|&i| edges[i].ord);

    // The graph: nodes in first-named order; succ/pred lists in edge order,
    // holding the edge's slot in `kept` (an edge added again updates its slot).
    let mut node_of: HashMap<i64, usize> = HashMap::new();
    let mut names: Vec<i64> = Vec::new();
    let mut succ: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut pred: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut slot_of: HashMap<(usize, usize), usize> = HashMap::new();
    let mut kept: Vec<Edge> = Vec::new();
    let mut node = |name: i64,
                    names: &mut Vec<i64>,
                    succ: &mut Vec<Vec<(usize, usize)>>,
                    pred: &mut Vec<Vec<(usize, usize)>>| {
        *node_of.entry(name).or_insert_with(|| {
            names.push(name);
            succ.push(Vec::new());
            pred.push(Vec::new());
            names.len() - 1
        })
    };
    for &i in &order {
        let e = edges[i];
        if e.weight.is_nan() {
            return Err(PathError::NanWeight { ord: e.ord });
        }
        let u = node(e.src, &mut names, &mut succ, &mut pred);
        let v = node(e.dst, &mut names, &mut succ, &mut pred);
        match slot_of.get(&(u, v)) {
            Some(&slot) => kept[slot] = e,
            None => {
                slot_of.insert((u, v), kept.len());
                succ[u].push((v, kept.len()));
                pred[v].push((u, kept.len()));
                kept.push(e);
            }
        }
    }
    let n = names.len();
    if n == 0 {
        return Ok(Vec::new());
    }

    // Kahn's generations.
    let mut indegree: Vec<usize> = pred.iter().map(Vec::len).collect();
    let mut topo: Vec<usize> = Vec::with_capacity(n);
    let mut generation: Vec<usize> = (0..n).filter(|&v| indegree[v] == 0).collect();
    while !generation.is_empty() {
        let mut next = Vec::new();
        for &u in &generation {
            for &(v, _) in &succ[u] {
                indegree[v] -= 1;
                if indegree[v] == 0 {
                    next.push(v);
                }
            }
        }
        topo.append(&mut generation);
        generation = next;
    }
    if topo.len() < n {
        return Err(PathError::Cycle {
            nodes: n - topo.len(),
        });
    }

    // Distances: (length, best predecessor, the edge from it).
    let mut dist: Vec<(f64, usize, usize)> = vec![(0.0, usize::MAX, usize::MAX); n];
    for &v in &topo {
        let mut best: Option<(f64, usize, usize)> = None;
        for &(u, slot) in &pred[v] {
            let length = dist[u].0 + kept[slot].weight;
            if best.is_none_or(|(b, _, _)| length > b) {
                best = Some((length, u, slot));
            }
        }
        dist[v] = match best {
            Some(b) if b.0 >= 0.0 => b,
            _ => (0.0, v, usize::MAX),
        };
    }
    let mut end = topo[0];
    for &v in &topo {
        if dist[v].0 > dist[end].0 {
            end = v;
        }
    }
    let mut path = Vec::new();
    let mut v = end;
    while dist[v].1 != v {
        path.push(kept[dist[v].2]);
        v = dist[v].1;
    }
    path.reverse();
    Ok(path)
}

/// The struct type of one path edge.
fn edge_fields() -> Fields {
    Fields::from(vec![
        Field::new("step", DataType::Int64, true),
        Field::new("src", DataType::Int64, true),
        Field::new("dst", DataType::Int64, true),
        Field::new("weight", DataType::Float64, true),
        Field::new("ord", DataType::Int64, true),
    ])
}

/// `dag_longest_path(src BIGINT, dst BIGINT, weight DOUBLE, ord BIGINT) ->
/// LIST<STRUCT<step BIGINT, src BIGINT, dst BIGINT, weight DOUBLE, ord BIGINT>>`:
/// the longest path of the group's edges, in path order, `step` counting from 1
/// (see the module docs).
///
/// * `ord` orders the edges as networkx's insertion order (ties: in no
///   particular order, so make it unique);
/// * rows with a NULL `src`, `dst` or `ord` are ignored; a NULL weight is 1
///   (networkx's default weight);
/// * a cycle, or a NaN weight, is an error.
#[derive(Debug)]
pub struct DagLongestPath;

/// The aggregate function `dag_longest_path`.
pub fn udaf() -> AggregateUDF {
    crate::kept_rows::udaf::<DagLongestPath>()
}

impl RowsFunction for DagLongestPath {
    const NAME: &'static str = "dag_longest_path";

    fn arguments() -> Vec<(&'static str, DataType)> {
        vec![
            ("src", DataType::Int64),
            ("dst", DataType::Int64),
            ("weight", DataType::Float64),
            ("ord", DataType::Int64),
        ]
    }

    fn result_fields() -> Fields {
        edge_fields()
    }

    fn evaluate(arguments: &[ArrayRef]) -> Result<Vec<ArrayRef>> {
        let int = |i: usize| arguments[i].as_primitive::<Int64Type>();
        let (src, dst, ord) = (int(0), int(1), int(3));
        let weight = arguments[2].as_primitive::<Float64Type>();
        let edges: Vec<Edge> = (0..src.len())
            .filter(|&i| src.is_valid(i) && dst.is_valid(i) && ord.is_valid(i))
            .map(|i| Edge {
                src: src.value(i),
                dst: dst.value(i),
                weight: if weight.is_valid(i) {
                    weight.value(i)
                } else {
                    1.0
                },
                ord: ord.value(i),
            })
            .collect();
        let path =
            dag_longest_path(&edges).map_err(|e| DataFusionError::Execution(e.to_string()))?;
        Ok(vec![
            Arc::new((1..=path.len() as i64).collect::<Int64Array>()),
            Arc::new(path.iter().map(|e| e.src).collect::<Int64Array>()),
            Arc::new(path.iter().map(|e| e.dst).collect::<Int64Array>()),
            Arc::new(path.iter().map(|e| e.weight).collect::<Float64Array>()),
            Arc::new(path.iter().map(|e| e.ord).collect::<Int64Array>()),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{batch, f64_column, i64_column, i64_values, run_sql};

    fn edges(list: &[(i64, i64, f64)]) -> Vec<Edge> {
        list.iter()
            .enumerate()
            .map(|(i, &(src, dst, weight))| Edge {
                src,
                dst,
                weight,
                ord: i as i64,
            })
            .collect()
    }

    fn nodes(path: &[Edge]) -> Vec<i64> {
        let mut out: Vec<i64> = path.iter().map(|e| e.src).collect();
        out.extend(path.last().map(|e| e.dst));
        out
    }

    #[test]
    fn the_heaviest_path_wins() {
        // 1 -> 2 -> 4 weighs 5 + 1; 1 -> 3 -> 4 weighs 2 + 2.
        let g = edges(&[(1, 2, 5.0), (1, 3, 2.0), (2, 4, 1.0), (3, 4, 2.0)]);
        assert_eq!(nodes(&dag_longest_path(&g).unwrap()), vec![1, 2, 4]);
    }

    #[test]
    fn ties_go_to_the_first_predecessor_in_edge_order() {
        // 4 is reached at 2 through 2 and through 3: the edge added first wins.
        let g = edges(&[(1, 2, 1.0), (1, 3, 1.0), (3, 4, 1.0), (2, 4, 1.0)]);
        assert_eq!(nodes(&dag_longest_path(&g).unwrap()), vec![1, 3, 4]);
        let g = edges(&[(1, 2, 1.0), (1, 3, 1.0), (2, 4, 1.0), (3, 4, 1.0)]);
        assert_eq!(nodes(&dag_longest_path(&g).unwrap()), vec![1, 2, 4]);
    }

    #[test]
    fn the_path_ends_at_the_first_farthest_node_in_topological_order() {
        // Two components of length 3; Kahn's first generation is (1, 10) in node
        // order, so 1's chain comes first. A zero-weight edge does not extend it.
        let g = edges(&[(10, 11, 3.0), (1, 2, 3.0), (2, 5, 0.0)]);
        assert_eq!(nodes(&dag_longest_path(&g).unwrap()), vec![10, 11]);
        let g = edges(&[(1, 2, 3.0), (10, 11, 3.0), (2, 5, 0.0)]);
        assert_eq!(nodes(&dag_longest_path(&g).unwrap()), vec![1, 2]);
    }

    #[test]
    fn kahn_generations_order_the_nodes() {
        // Generation 0: 1, 2; generation 1: 3 (child of 1), 4 (child of 2);
        // both at distance 1: 3 comes first.
        let g = edges(&[(2, 4, 1.0), (1, 3, 1.0)]);
        assert_eq!(nodes(&dag_longest_path(&g).unwrap()), vec![2, 4]);
        // Insertion order by ord, not by position in the input.
        let mut g = edges(&[(2, 4, 1.0), (1, 3, 1.0)]);
        g[0].ord = 5;
        assert_eq!(nodes(&dag_longest_path(&g).unwrap()), vec![1, 3]);
    }

    #[test]
    fn an_edge_added_twice_keeps_its_place_and_takes_the_last_weight() {
        let g = edges(&[(1, 2, 5.0), (1, 3, 4.0), (1, 2, 1.0)]);
        let path = dag_longest_path(&g).unwrap();
        assert_eq!(nodes(&path), vec![1, 3]);
        let g = edges(&[(1, 2, 1.0), (1, 3, 4.0), (1, 2, 9.0)]);
        let path = dag_longest_path(&g).unwrap();
        assert_eq!(path, vec![g[2]]);
    }

    #[test]
    fn negative_distances_restart_the_path() {
        let g = edges(&[(1, 2, -5.0), (2, 3, 2.0)]);
        assert_eq!(nodes(&dag_longest_path(&g).unwrap()), vec![2, 3]);
        assert!(dag_longest_path(&[]).unwrap().is_empty());
        // All weights 0: the path is the first node alone.
        assert!(dag_longest_path(&edges(&[(1, 2, 0.0)])).unwrap().is_empty());
    }

    #[test]
    fn a_cycle_is_an_error() {
        let g = edges(&[(1, 2, 1.0), (2, 3, 1.0), (3, 2, 1.0), (3, 4, 1.0)]);
        let e = dag_longest_path(&g).unwrap_err();
        assert_eq!(e, PathError::Cycle { nodes: 3 });
        assert!(e.to_string().contains("cycle"), "{e}");
    }

    #[tokio::test]
    async fn sql_path_per_group_across_partitions() {
        // Group 1 split over two partitions: 1 -> 2 -> 3 (4) beats 1 -> 3 (3).
        let a = batch(vec![
            ("g", i64_column(&[1, 1, 2])),
            ("src", i64_column(&[1, 2, 7])),
            ("dst", i64_column(&[2, 3, 8])),
            ("w", f64_column(&[2.0, 2.0, 1.0])),
            ("ord", i64_column(&[0, 1, 0])),
        ]);
        let b = batch(vec![
            ("g", i64_column(&[1])),
            ("src", i64_column(&[1])),
            ("dst", i64_column(&[3])),
            ("w", f64_column(&[3.0])),
            ("ord", i64_column(&[2])),
        ]);
        let sql = "WITH p AS (SELECT g, dag_longest_path(src, dst, w, ord) AS path FROM t GROUP BY g), \
                        s AS (SELECT g, unnest(path) AS e FROM p) \
                   SELECT g, e['src'] AS src, e['dst'] AS dst, e['ord'] AS ord FROM s ORDER BY g, ord";
        let out = run_sql(vec![a, b], sql).await;
        assert_eq!(i64_values(&out, "g"), vec![Some(1), Some(1), Some(2)]);
        assert_eq!(i64_values(&out, "src"), vec![Some(1), Some(2), Some(7)]);
        assert_eq!(i64_values(&out, "dst"), vec![Some(2), Some(3), Some(8)]);
        let cycle = batch(vec![
            ("src", i64_column(&[1, 2])),
            ("dst", i64_column(&[2, 1])),
            ("w", f64_column(&[1.0, 1.0])),
            ("ord", i64_column(&[0, 1])),
        ]);
        let ctx = datafusion::prelude::SessionContext::new();
        crate::register_all(&ctx);
        ctx.register_batch("t", cycle).unwrap();
        let err = ctx
            .sql("SELECT dag_longest_path(src, dst, w, ord) FROM t")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap_err();
        assert!(err.to_string().contains("cycle"), "{err}");
    }
}
