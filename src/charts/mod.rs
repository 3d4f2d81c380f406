//! Pictures of query results: SVG charts ([`plots`]) and the one-file HTML
//! report ([`page`]).
//!
//! Nothing here runs a query: `analyze`, `compare` and `collectives` run their
//! catalog queries (`queries/charts/`, and the report views they already
//! have) and hand the rows to a plot, so every chart's data is a query a user
//! can run in the REPL. What this module owns is the drawing: sizes, scales,
//! colours, and labels that stay readable on the largest trace.

pub mod page;
pub mod plots;
pub mod svg;

use crate::output::Sheet;
use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Float64Type};

/// One chart, drawn: its file name beside the Markdown report, its title, the
/// catalog query its data comes from, and the SVG document.
#[derive(Debug, Clone)]
pub struct Figure {
    /// `gpu_timeline.svg`: the file under `charts/`.
    pub file: String,
    pub title: String,
    /// The catalog query (or queries) the chart draws, named under it.
    pub query: String,
    pub svg: String,
}

impl Figure {
    pub fn new(file: &str, title: &str, query: &str, svg: String) -> Figure {
        Figure {
            file: file.to_string(),
            title: title.to_string(),
            query: query.to_string(),
            svg,
        }
    }

    /// The catalog queries the chart draws (`query` lists them comma-separated).
    pub fn queries(&self) -> impl Iterator<Item = &str> {
        self.query
            .split(',')
            .map(str::trim)
            .filter(|q| !q.is_empty())
    }
}

/// The Markdown that shows `figures` written under `charts/` beside the
/// report, each captioned with the queries its data comes from.
pub fn markdown_links(figures: &[Figure]) -> String {
    let mut text = String::new();
    for f in figures {
        let queries: Vec<String> = f
            .queries()
            .map(|q| format!("`SELECT * FROM {q}`"))
            .collect();
        text.push_str(&format!(
            "![{}](charts/{})\n\n*Data: {}*\n\n",
            f.title,
            f.file,
            queries.join(" and ")
        ));
    }
    text
}

/// A column of a sheet as numbers (NULL, text and a missing column as None).
pub fn numbers(sheet: &Sheet, name: &str) -> Vec<Option<f64>> {
    let Some(index) = sheet.column(name) else {
        return vec![None; sheet.rows()];
    };
    let mut out = Vec::with_capacity(sheet.rows());
    for batch in &sheet.batches {
        let column = batch.column(index);
        match cast(column, &DataType::Float64) {
            Ok(array) => {
                let array = array.as_primitive::<Float64Type>();
                out.extend((0..array.len()).map(|i| array.is_valid(i).then(|| array.value(i))));
            }
            Err(_) => out.extend(std::iter::repeat_n(None, batch.num_rows())),
        }
    }
    out
}

/// A column of a sheet as text (NULL and a missing column as None).
pub fn texts(sheet: &Sheet, name: &str) -> Vec<Option<String>> {
    let Some(index) = sheet.column(name) else {
        return vec![None; sheet.rows()];
    };
    let mut out = Vec::with_capacity(sheet.rows());
    for batch in &sheet.batches {
        let column = batch.column(index);
        for row in 0..batch.num_rows() {
            out.push(
                column
                    .is_valid(row)
                    .then(|| crate::output::report_csv::cell(column.as_ref(), row)),
            );
        }
    }
    out
}

/// A roofline from the rows of a points query and a roofs query, read by
/// column name: points `name`, `category`, `shape`, `flops_per_byte`,
/// `tflops_per_s`, `time_us` (and, where the query has them, `instances`,
/// `share_pct`, `efficiency_pct`); roofs `roof` (`memory_tb_s` or a compute
/// spec) and `value`. With `side`, only the rows whose `side` column is it
/// (a comparison draws one chart per side).
pub fn roofline(
    points: &Sheet,
    roofs: &Sheet,
    side: Option<&str>,
    subtitle: String,
) -> plots::Roofline {
    let keep = |sheet: &Sheet| -> Vec<bool> {
        match side {
            Some(side) => texts(sheet, "side")
                .into_iter()
                .map(|s| s.as_deref() == Some(side))
                .collect(),
            None => vec![true; sheet.rows()],
        }
    };
    let (names, categories, shapes) = (
        texts(points, "name"),
        texts(points, "category"),
        texts(points, "shape"),
    );
    let (x, y, time) = (
        numbers(points, "flops_per_byte"),
        numbers(points, "tflops_per_s"),
        numbers(points, "time_us"),
    );
    let (instances, share, efficiency) = (
        numbers(points, "instances"),
        numbers(points, "share_pct"),
        numbers(points, "efficiency_pct"),
    );
    let mut marks = Vec::new();
    for (i, kept) in keep(points).into_iter().enumerate() {
        let (true, Some(fpb), Some(tflops)) = (kept, x[i], y[i]) else {
            continue;
        };
        let name = names[i].clone().unwrap_or_default();
        let shape = shapes[i].clone().unwrap_or_default();
        let mut facts = vec![format!("{} ms", svg::short(time[i].unwrap_or(0.0) / 1e3))];
        if let Some(n) = instances[i] {
            facts.insert(0, format!("{} calls", svg::short(n)));
        }
        if let Some(share) = share[i] {
            facts.push(format!("{share:.2}% of the GPU span"));
        }
        let efficiency = efficiency[i]
            .map(|e| format!(", {e:.1}% of roofline"))
            .unwrap_or_default();
        marks.push(plots::RoofPoint {
            flops_per_byte: fpb,
            tflops_per_s: tflops,
            time_us: time[i].unwrap_or(0.0),
            category: categories[i].clone().unwrap_or_else(|| "other".into()),
            hover: format!(
                "{name} {shape}\n{}\n{} TFLOPS/s at {} FLOPs/byte{efficiency}",
                facts.join(", "),
                svg::short(tflops),
                svg::short(fpb),
            ),
        });
    }
    let mut memory = None;
    let mut compute = Vec::new();
    let (roof, value) = (texts(roofs, "roof"), numbers(roofs, "value"));
    for (i, kept) in keep(roofs).into_iter().enumerate() {
        match (kept, roof[i].as_deref(), value[i]) {
            (true, Some("memory_tb_s"), Some(v)) => memory = Some(v),
            (true, Some(spec), Some(v)) => compute.push((spec.to_string(), v)),
            _ => {}
        }
    }
    plots::Roofline {
        points: marks,
        memory_tb_s: memory,
        compute,
        subtitle,
    }
}

/// Colours: fixed for the segments of a GPU timeline and for the op
/// categories people know, stable for any other category name.
pub mod palette {
    /// Computation, exposed communication, exposed memcpy, idle, then spares.
    pub const SEGMENTS: [&str; 6] = [
        "#3b75af", "#d9534f", "#f0ad4e", "#b8b8b8", "#6f42c1", "#20c997",
    ];
    pub const TOTAL: &str = "#5b6b7d";
    pub const WORSE: &str = "#d9534f";
    pub const BETTER: &str = "#2e9e5b";

    const KNOWN: [(&str, &str); 14] = [
        ("GEMM", "#3b75af"),
        ("SDPA_fwd", "#6f42c1"),
        ("SDPA_bwd", "#9a6fd6"),
        ("CONV_fwd", "#17a2b8"),
        ("CONV_bwd", "#5bc0de"),
        ("BinaryElementwise", "#f0ad4e"),
        ("UnaryElementwise", "#e8c547"),
        ("elementwise", "#f0ad4e"),
        ("Reduce", "#2e9e5b"),
        ("Normalization", "#8fbc5a"),
        ("triton", "#c96f3b"),
        ("memcpy", "#8c8c8c"),
        ("NCCL", "#d9534f"),
        ("other", "#b8b8b8"),
    ];
    const SPARE: [&str; 10] = [
        "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
        "#bcbd22", "#17becf",
    ];

    /// The colour of an op category (or any group name): the known ones fixed,
    /// others by a hash of the name, so a category keeps its colour across
    /// charts and reports.
    pub fn category(name: &str) -> String {
        if let Some((_, colour)) = KNOWN.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)) {
            return colour.to_string();
        }
        let hash = name.bytes().fold(2166136261u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(16777619)
        });
        SPARE[hash as usize % SPARE.len()].to_string()
    }

    /// White (0) to dark red (1), for heatmap cells.
    pub fn heat(t: f64) -> String {
        let t = if t.is_finite() {
            t.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (from, to) = ((255.0, 247.0, 236.0), (179.0, 0.0, 0.0));
        let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
        format!(
            "#{:02x}{:02x}{:02x}",
            mix(from.0, to.0),
            mix(from.1, to.1),
            mix(from.2, to.2)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_keep_their_colour() {
        assert_eq!(palette::category("GEMM"), "#3b75af");
        assert_eq!(
            palette::category("my_custom"),
            palette::category("my_custom")
        );
        assert_eq!(palette::heat(0.0), "#fff7ec");
        assert_eq!(palette::heat(1.0), "#b30000");
        assert_eq!(palette::heat(f64::NAN), "#fff7ec");
    }
}
