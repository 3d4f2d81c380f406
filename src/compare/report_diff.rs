//! TraceLens's report diff (`compare_perf_reports_pytorch`), reproduced for
//! `compare --tracelens-compat`: the files of its `--output_csvs_dir`, with its
//! names, column order, join semantics and quirks (spec compare.md §2).
//!
//! This is Rust rather than SQL because what it reproduces is pandas, not a
//! report: the output columns depend on which columns each side's sheet has and
//! which end up entirely empty, and keys join after CSV type inference
//! ([`Frame`]). Duplicate keys multiply out as pandas' merge does (TraceLens's
//! bug A1, kept here on purpose: the default comparison views key rows properly
//! and say how they matched).

use std::cmp::Ordering;

use super::frame::{Column, ColumnType, Frame, Value};

/// A row of an outer join: the base row, the variant row (either may be absent).
type JoinRow = (Option<usize>, Option<usize>);

/// How one result group is configured (spec §2.4).
struct DiffConfig {
    keys: Vec<String>,
    metrics: &'static [&'static str],
    /// Dropped from every side before the join.
    drop_all: &'static [&'static str],
    /// Dropped from the variant only.
    drop_variant: &'static [&'static str],
}

/// The perf sheets the roofline group compares, with their result names.
pub const ROOFLINE_SHEETS: &[(&str, &str)] = &[
    ("GEMM", "GEMM"),
    ("SDPA_fwd", "SDPA_fwd"),
    ("SDPA_bwd", "SDPA_bwd"),
    ("CONV_fwd", "CONV_fwd"),
    ("CONV_bwd", "CONV_bwd"),
    ("UnaryElementwise", "un_eltwise"),
    ("BinaryElementwise", "bin_eltwise"),
];

/// The sheet groups of `--sheets` (TraceLens's names).
/// `tracediff` selects the default comparison's `compare_lca` sheet only
/// (TraceDiff's own files come with every `--tracelens-compat --out`).
pub const SHEET_GROUPS: &[&str] = &[
    "gpu_timeline",
    "ops_summary",
    "kernel_summary",
    "ops_all",
    "roofline",
    "tracediff",
    "all",
];

const UNIQUE_ARGS_KEYS: &[&str] = &[
    "name",
    "Input type",
    "Input Dims",
    "Input Strides",
    "Concrete Inputs",
];

/// One side's sheets, by TraceLens sheet name; a sheet it lacks is absent.
pub trait Sheets {
    fn sheet(&self, name: &str) -> Option<&Frame>;
}

/// One output file: `<name>.csv` holding `frame`.
pub struct Output {
    pub name: String,
    pub frame: Frame,
}

/// What a run of the report diff did besides its outputs: groups TraceLens
/// would have refused (it aborts the whole run) and how they were handled.
#[derive(Default)]
pub struct Notes {
    pub lines: Vec<String>,
}

/// TraceLens's report diff of `base` (tag `tags.0`) against `variant` (tag
/// `tags.1`) for the sheet groups `groups`. Where TraceLens raises (a sheet
/// the baseline lacks for `ops_summary`/`kernel_summary`, a sheet the variant
/// lacks) the group is skipped or compared against an empty side, and a note
/// says so.
pub fn report_diff(
    base: &dyn Sheets,
    variant: &dyn Sheets,
    tags: (&str, &str),
    groups: &[String],
) -> (Vec<Output>, Notes) {
    let wants = |g: &str| groups.iter().any(|x| x == g || x == "all");
    let mut outputs = Vec::new();
    let mut notes = Notes::default();
    let empty = Frame::default();
    let pair = |name: &str| -> Option<(&Frame, &Frame)> {
        let b = base.sheet(name)?;
        Some((b, variant.sheet(name).unwrap_or(&empty)))
    };
    if wants("gpu_timeline") {
        match pair("gpu_timeline") {
            Some((b, v)) => {
                let config = DiffConfig {
                    keys: vec!["type".into()],
                    metrics: &["time ms"],
                    drop_all: &[],
                    drop_variant: &[],
                };
                let table = build_diff(b, v, tags, &config);
                outputs.push(Output {
                    name: "gpu_timeline".into(),
                    frame: table,
                });
            }
            None => notes
                .lines
                .push("gpu_timeline: the baseline has no gpu_timeline sheet; skipped".into()),
        }
    }
    if wants("ops_summary") {
        match pair("ops_summary") {
            Some((b, v)) => {
                let config = DiffConfig {
                    keys: vec!["name".into()],
                    metrics: &["total_direct_kernel_time_ms", "Count"],
                    drop_all: &["total_direct_kernel_time_sum"],
                    drop_variant: &["Cumulative Percentage (%)"],
                };
                let table = build_diff(b, v, tags, &config);
                let sort = format!("{}::total_direct_kernel_time_ms", tags.0);
                outputs.push(Output {
                    name: "ops_summary".into(),
                    frame: sorted_desc(table, &sort),
                });
            }
            // TraceLens: ValueError("ops_summary sheet not found").
            None => notes.lines.push("ops_summary: the baseline has no ops_summary sheet (TraceLens aborts here); skipped".into()),
        }
    }
    if wants("kernel_summary") {
        match pair("kernel_summary") {
            Some((b, v)) => {
                let (config, sort) = if b.has("Kernel name") || b.is_empty() {
                    let config = DiffConfig {
                        keys: vec!["Kernel name".into()],
                        metrics: &[
                            "Kernel duration (µs)_sum",
                            "Kernel duration (µs)_mean",
                            "Kernel duration (µs)_count",
                        ],
                        drop_all: &[
                            "Kernel duration (µs)_min",
                            "Kernel duration (µs)_max",
                            "Parent op category",
                        ],
                        drop_variant: &["Cumulative Percentage (%)"],
                    };
                    (config, "Kernel duration (µs)_sum")
                } else {
                    // The legacy (rocprof) layout.
                    let config = DiffConfig {
                        keys: vec!["name".into()],
                        metrics: &["Total Kernel Time (ms)", "Mean Kernel Time (µs)", "Count"],
                        drop_all: &[
                            "Total Kernel Time (µs)",
                            "Median Kernel Time (µs)",
                            "Std Kernel Time (µs)",
                            "Min Kernel Time (µs)",
                            "Max Kernel Time (µs)",
                            "Category",
                        ],
                        drop_variant: &[],
                    };
                    (config, "Total Kernel Time (ms)")
                };
                let table = build_diff(b, v, tags, &config);
                let sort = format!("{}::{sort}", tags.0);
                outputs.push(Output {
                    name: "kernel_summary".into(),
                    frame: sorted_desc(table, &sort),
                });
            }
            None => notes.lines.push("kernel_summary: the baseline has no kernel_summary sheet (TraceLens aborts here); skipped".into()),
        }
    }
    if wants("ops_all") {
        let sheets: [(&str, &'static [&'static str]); 3] = [
            (
                "ops_all",
                &[
                    "total_direct_kernel_time_sum",
                    "total_direct_kernel_time_mean",
                    "operation_count",
                ],
            ),
            (
                "ops_unique_args",
                &[
                    "total_direct_kernel_time_sum",
                    "total_direct_kernel_time_mean",
                    "operation_count",
                ],
            ),
            (
                "unified_perf_summary",
                &[
                    "Kernel Time (µs)_sum",
                    "Kernel Time (µs)_mean",
                    "operation_count",
                ],
            ),
        ];
        for (sheet, metrics) in sheets {
            let Some((b, v)) = pair(sheet) else { continue };
            if variant.sheet(sheet).is_none() {
                notes.lines.push(format!("{sheet}: the variant has no {sheet} sheet (TraceLens aborts here); compared with an empty side"));
            }
            let config = DiffConfig {
                keys: UNIQUE_ARGS_KEYS.iter().map(|k| k.to_string()).collect(),
                metrics,
                drop_all: &[],
                drop_variant: &[],
            };
            let table = build_diff(b, v, tags, &config);
            outputs.extend(split(&table, sheet, tags, metrics[0]));
        }
    }
    if wants("roofline") {
        for (sheet, short) in ROOFLINE_SHEETS {
            let Some((b, v)) = pair(sheet) else { continue };
            if b.is_empty() || v.is_empty() {
                notes.lines.push(format!(
                    "{sheet}: empty on one side; skipped, as TraceLens does"
                ));
                continue;
            }
            let mut params: Vec<String> = b
                .columns
                .iter()
                .filter(|c| c.name.starts_with("param:") && v.has(&c.name))
                .map(|c| c.name.clone())
                .collect();
            params.sort();
            let mut keys = vec!["name".to_string()];
            keys.extend(params);
            let metrics: &'static [&'static str] = &[
                "Kernel Time (µs)_sum",
                "Kernel Time (µs)_mean",
                "name_count",
                "TFLOPS/s_mean",
                "TB/s_mean",
            ];
            let config = DiffConfig {
                keys,
                metrics,
                drop_all: &[],
                drop_variant: &[
                    "GFLOPS_first",
                    "Data Moved (MB)_first",
                    "FLOPS/Byte_first",
                    "Input type_first",
                    "Input Dims_first",
                    "Input Strides_first",
                    "Concrete Inputs_first",
                ],
            };
            let table = build_diff(b, v, tags, &config);
            outputs.extend(split(&table, short, tags, metrics[0]));
        }
    }
    (outputs, notes)
}

/// The side-by-side table of one sheet (spec §2.3): keys, then the diff/pct
/// columns of each metric, then the base's columns prefixed `<tag>::`, then the
/// variant's; rows of the outer join sorted by key, duplicate keys multiplied.
fn build_diff(base: &Frame, variant: &Frame, tags: (&str, &str), config: &DiffConfig) -> Frame {
    let base = base.clone().without(config.drop_all);
    let mut drops: Vec<&str> = config.drop_all.to_vec();
    drops.extend(config.drop_variant);
    let variant = variant.clone().without(&drops);
    let keys: Vec<&str> = config.keys.iter().map(String::as_str).collect();
    let key_of = |frame: &Frame, row: usize| -> Vec<Value> {
        keys.iter()
            .map(|k| frame.column(k).map_or(Value::Na, |c| c.values[row].clone()))
            .collect()
    };
    let base_keys: Vec<Vec<Value>> = (0..base.rows()).map(|r| key_of(&base, r)).collect();
    let variant_keys: Vec<Vec<Value>> = (0..variant.rows()).map(|r| key_of(&variant, r)).collect();
    // The variant's rows by key, in row order: each base row meets them all.
    let text = |key: &[Value]| -> Vec<String> { key.iter().map(Value::key_text).collect() };
    let mut by_key: std::collections::HashMap<Vec<String>, Vec<usize>> = Default::default();
    for (v, vk) in variant_keys.iter().enumerate() {
        by_key.entry(text(vk)).or_default().push(v);
    }
    // Left-major pairs, then the variant's unmatched rows.
    let mut pairs: Vec<JoinRow> = Vec::new();
    let mut variant_matched = vec![false; variant.rows()];
    for (b, bk) in base_keys.iter().enumerate() {
        match by_key.get(&text(bk)) {
            Some(rows) => {
                for &v in rows {
                    pairs.push((Some(b), Some(v)));
                    variant_matched[v] = true;
                }
            }
            None => pairs.push((Some(b), None)),
        }
    }
    for (v, matched) in variant_matched.iter().enumerate() {
        if !matched {
            pairs.push((None, Some(v)));
        }
    }
    let key_at = |pair: &JoinRow| -> &Vec<Value> {
        match pair {
            (Some(b), _) => &base_keys[*b],
            (None, Some(v)) => &variant_keys[*v],
            (None, None) => unreachable!("a join row has a side"),
        }
    };
    // pandas ≥ 2.2 sorts an outer merge by its keys; equal keys keep their order.
    pairs.sort_by(|x, y| {
        let (a, b) = (key_at(x), key_at(y));
        a.iter()
            .zip(b.iter())
            .map(|(p, q)| p.key_cmp(q))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    });
    let mut key_columns = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        let values: Vec<Value> = pairs.iter().map(|p| key_at(p)[i].clone()).collect();
        let kind = [&base, &variant]
            .iter()
            .find_map(|f| f.column(key).map(|c| c.kind))
            .unwrap_or(ColumnType::Float);
        key_columns.push(Column::settle(key.to_string(), kind, values));
    }
    let side_columns =
        |frame: &Frame, tag: &str, pick: &dyn Fn(&JoinRow) -> Option<usize>| -> Vec<Column> {
            frame
                .columns
                .iter()
                .filter(|c| !keys.contains(&c.name.as_str()))
                .map(|c| {
                    let values = pairs
                        .iter()
                        .map(|p| pick(p).map_or(Value::Na, |r| c.values[r].clone()))
                        .collect();
                    Column::settle(format!("{tag}::{}", c.name), c.kind, values)
                })
                .collect()
        };
    let base_columns = side_columns(&base, tags.0, &|p| p.0);
    let variant_columns = side_columns(&variant, tags.1, &|p| p.1);
    let find = |columns: &[Column], name: String| -> Option<Column> {
        columns.iter().find(|c| c.name == name).cloned()
    };
    let mut diff_columns = Vec::new();
    for metric in config.metrics {
        let (Some(b), Some(v)) = (
            find(&base_columns, format!("{}::{metric}", tags.0)),
            find(&variant_columns, format!("{}::{metric}", tags.1)),
        ) else {
            continue;
        };
        let integer = b.kind == ColumnType::Int && v.kind == ColumnType::Int;
        let mut diffs = Vec::with_capacity(pairs.len());
        let mut pcts = Vec::with_capacity(pairs.len());
        for (x, y) in b.values.iter().zip(&v.values) {
            let (diff, pct) = match (x, y) {
                (Value::Int(x), Value::Int(y)) if integer => {
                    let d = y.wrapping_sub(*x);
                    let pct = (*x != 0).then(|| 100.0 * d as f64 / *x as f64);
                    (Value::Int(d), pct)
                }
                _ => match (x.number(), y.number()) {
                    (Some(x), Some(y)) => {
                        let d = y - x;
                        (Value::Float(d), (x != 0.0).then(|| 100.0 * d / x))
                    }
                    _ => (Value::Na, None),
                },
            };
            diffs.push(diff);
            pcts.push(pct.map_or(Value::Na, Value::Float));
        }
        let kind = if integer {
            ColumnType::Int
        } else {
            ColumnType::Float
        };
        diff_columns.push(Column::settle(
            format!("{metric}__{}_diff", tags.1),
            kind,
            diffs,
        ));
        diff_columns.push(Column::settle(
            format!("{metric}__{}_pct", tags.1),
            ColumnType::Float,
            pcts,
        ));
    }
    let mut columns = key_columns;
    columns.extend(diff_columns);
    columns.extend(base_columns);
    columns.extend(variant_columns);
    Frame { columns }
}

/// The rows reordered by `column` descending, missing values last; equal
/// values keep their order (pandas' quicksort leaves ties unordered: any order
/// is TraceLens's, ours is the join order).
fn sorted_desc(frame: Frame, column: &str) -> Frame {
    let Some(sort) = frame.column(column) else {
        return frame;
    };
    let mut order: Vec<usize> = (0..frame.rows()).collect();
    let values = &sort.values;
    order.sort_by(|&a, &b| match (values[a].number(), values[b].number()) {
        (Some(x), Some(y)) => y.total_cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    });
    take_rows(&frame, &order)
}

fn take_rows(frame: &Frame, rows: &[usize]) -> Frame {
    let columns = frame
        .columns
        .iter()
        .map(|c| {
            let values = rows.iter().map(|&r| c.values[r].clone()).collect();
            Column::settle(c.name.clone(), c.kind, values)
        })
        .collect();
    Frame { columns }
}

/// The three result sheets of a split group (spec §2.5): rows in both, only in
/// the base, only in the variant (by whether the first metric is present),
/// each with the columns of its sides and without its all-missing columns.
fn split(table: &Frame, sheet: &str, tags: (&str, &str), first_metric: &str) -> Vec<Output> {
    let base_metric = table.column(&format!("{}::{first_metric}", tags.0));
    let variant_metric = table.column(&format!("{}::{first_metric}", tags.1));
    let present = |c: Option<&Column>, row: usize| c.is_some_and(|c| !c.values[row].is_na());
    let rows = table.rows();
    let both: Vec<usize> = (0..rows)
        .filter(|&r| present(base_metric, r) && present(variant_metric, r))
        .collect();
    let base_only: Vec<usize> = (0..rows)
        .filter(|&r| present(base_metric, r) && !present(variant_metric, r))
        .collect();
    let variant_only: Vec<usize> = (0..rows)
        .filter(|&r| !present(base_metric, r) && present(variant_metric, r))
        .collect();
    let sort_base = format!("{}::{first_metric}", tags.0);
    let sort_variant = format!("{}::{first_metric}", tags.1);
    let parts: [(&str, &[usize], &[&str], &str); 3] = [
        ("intersect", &both, &[tags.0, tags.1], &sort_base),
        ("only_baseline", &base_only, &[tags.0], &sort_base),
        ("only_variant", &variant_only, &[tags.1], &sort_variant),
    ];
    parts
        .into_iter()
        .map(|(part, rows, kept, sort)| {
            let picked = take_rows(table, rows);
            let picked = sorted_desc(picked, sort);
            let columns = picked
                .columns
                .into_iter()
                .filter(|c| column_kept(&c.name, kept))
                .filter(|c| !c.all_na())
                .collect::<Vec<_>>();
            let frame = if rows.is_empty() {
                Frame::default()
            } else {
                Frame { columns }
            };
            Output {
                name: format!("{sheet}_{part}_{}", tags.1),
                frame,
            }
        })
        .collect()
}

/// Whether a split sheet keeps a column: keys always; `<tag>::…` and
/// `…__<tag>_diff|_pct` when `tag` is one of its sides.
fn column_kept(name: &str, kept: &[&str]) -> bool {
    if let Some((tag, _)) = name.split_once("::") {
        return kept.contains(&tag);
    }
    for suffix in ["_diff", "_pct"] {
        if let Some(stem) = name.strip_suffix(suffix) {
            if let Some(at) = stem.find("__") {
                return kept.contains(&&stem[at + 2..]);
            }
        }
    }
    true
}

/// Tags TraceLens's column parsing would misread (spec §2.3): refused.
pub fn check_tag(tag: &str) -> Result<(), String> {
    if tag.is_empty() {
        return Err("a comparison name must not be empty".into());
    }
    for bad in ["__", "_diff", "_pct", "::", "/", "\\"] {
        if tag.contains(bad) {
            return Err(format!("comparison name '{tag}' must not contain '{bad}' (it would confuse the diff column names)"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::frame::frame;
    use super::*;
    use std::collections::BTreeMap;

    struct Side(BTreeMap<String, Frame>);
    impl Sheets for Side {
        fn sheet(&self, name: &str) -> Option<&Frame> {
            self.0.get(name)
        }
    }

    fn side(sheets: &[(&str, Frame)]) -> Side {
        Side(
            sheets
                .iter()
                .map(|(n, f)| (n.to_string(), f.clone()))
                .collect(),
        )
    }

    #[test]
    fn gpu_timeline_joins_sorted_by_type_with_na_pct_on_a_zero_base() {
        let b = frame(
            &["type", "time ms", "percent"],
            &[
                &["total_time", "2.0", "100.0"],
                &["idle_time", "0.0", "0.0"],
            ],
        );
        let v = frame(
            &["type", "time ms", "percent"],
            &[
                &["total_time", "3.0", "100.0"],
                &["idle_time", "0.5", "16.0"],
            ],
        );
        let (out, _) = report_diff(
            &side(&[("gpu_timeline", b)]),
            &side(&[("gpu_timeline", v)]),
            ("a", "b"),
            &["gpu_timeline".into()],
        );
        assert_eq!(
            out[0].frame.to_csv(),
            "type,time ms__b_diff,time ms__b_pct,a::time ms,a::percent,b::time ms,b::percent\n\
             idle_time,0.5,,0.0,0.0,0.5,16.0\n\
             total_time,1.0,50.0,2.0,100.0,3.0,100.0\n"
        );
    }

    #[test]
    fn duplicate_keys_multiply_and_ints_with_missing_become_floats() {
        let header = [
            "Kernel name",
            "Kernel stream",
            "Kernel duration (µs)_sum",
            "Kernel duration (µs)_mean",
            "Kernel duration (µs)_count",
        ];
        let b = frame(
            &header,
            &[
                &["k", "7", "10.0", "5.0", "2"],
                &["k", "8", "4.0", "4.0", "1"],
                &["only_b", "7", "1.0", "1.0", "1"],
            ],
        );
        let v = frame(
            &header,
            &[
                &["k", "7", "12.0", "6.0", "2"],
                &["k", "8", "4.0", "4.0", "1"],
            ],
        );
        let (out, _) = report_diff(
            &side(&[("kernel_summary", b)]),
            &side(&[("kernel_summary", v)]),
            ("a", "b"),
            &["kernel_summary".into()],
        );
        let f = &out[0].frame;
        // 2 × 2 cross-matched rows of `k` plus the base-only row.
        assert_eq!(f.rows(), 5);
        let sums: Vec<String> = f
            .column("Kernel duration (µs)_sum__b_diff")
            .unwrap()
            .values
            .iter()
            .map(Value::to_csv_text)
            .collect();
        // Sorted by the base's sum, descending: 10, 10, 4, 4, 1.
        assert_eq!(sums, ["2.0", "-6.0", "8.0", "0.0", ""]);
        // `a::Kernel stream` is all present: still ints; `b::…` gained a missing value.
        assert_eq!(f.column("a::Kernel stream").unwrap().kind, ColumnType::Int);
        assert_eq!(
            f.column("b::Kernel stream").unwrap().values[0],
            Value::Float(7.0)
        );
        // Counts present on both sides of every matched row, but missing in one: float diff.
        assert_eq!(
            f.column("Kernel duration (µs)_count__b_diff").unwrap().kind,
            ColumnType::Float
        );
    }

    #[test]
    fn split_sheets_keep_their_sides_and_drop_empty_columns() {
        let header = [
            "name",
            "Input type",
            "Input Dims",
            "Input Strides",
            "Concrete Inputs",
            "operation_count",
            "total_direct_kernel_time_sum",
            "total_direct_kernel_time_mean",
            "extra",
        ];
        let b = frame(
            &header,
            &[
                &["op", "", "((2,),)", "", "", "3", "6.0", "2.0", ""],
                &["gone", "", "", "", "", "1", "1.0", "1.0", ""],
            ],
        );
        let v = frame(
            &header,
            &[
                &["op", "None", "((2,),)", "", "", "3", "3.0", "1.0", "x"],
                &["new", "", "", "", "", "1", "2.0", "2.0", ""],
            ],
        );
        let (out, _) = report_diff(
            &side(&[("ops_unique_args", b)]),
            &side(&[("ops_unique_args", v)]),
            ("a", "b"),
            &["ops_all".into()],
        );
        let names: Vec<&str> = out.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "ops_unique_args_intersect_b",
                "ops_unique_args_only_baseline_b",
                "ops_unique_args_only_variant_b"
            ]
        );
        let both = &out[0].frame;
        let header: Vec<&str> = both.columns.iter().map(|c| c.name.as_str()).collect();
        // Empty keys and all-missing columns are gone; `None` met the empty cell.
        assert_eq!(
            header[..4],
            [
                "name",
                "Input Dims",
                "total_direct_kernel_time_sum__b_diff",
                "total_direct_kernel_time_sum__b_pct"
            ]
        );
        assert!(header.contains(&"b::extra") && !header.contains(&"a::extra"));
        let only_base = &out[1].frame;
        assert!(only_base
            .columns
            .iter()
            .all(|c| !c.name.starts_with("b::") && !c.name.ends_with("_diff")));
        assert_eq!(only_base.rows(), 1);
    }

    #[test]
    fn an_empty_split_sheet_is_a_newline() {
        let header = [
            "name",
            "Input type",
            "Input Dims",
            "Input Strides",
            "Concrete Inputs",
            "operation_count",
            "Kernel Time (µs)_sum",
            "Kernel Time (µs)_mean",
        ];
        let b = frame(&header, &[&["op", "", "", "", "", "1", "1.0", "1.0"]]);
        let (out, _) = report_diff(
            &side(&[("unified_perf_summary", b.clone())]),
            &side(&[("unified_perf_summary", b)]),
            ("a", "b"),
            &["ops_all".into()],
        );
        assert_eq!(out[1].frame.to_csv(), "\n");
        assert_eq!(out[0].frame.rows(), 1);
    }

    #[test]
    fn tags_that_confuse_column_names_are_refused() {
        assert!(check_tag("mi300").is_ok());
        for bad in ["a__b", "x_diff", "y_pct", "a::b", ""] {
            assert!(check_tag(bad).is_err(), "{bad}");
        }
    }
}
