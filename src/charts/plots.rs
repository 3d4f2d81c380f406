//! The chart kinds: stacked rows (a GPU timeline, one bar per trace or rank),
//! horizontal bars (top ops, changed ops), a log-log roofline, a waterfall
//! (where a time difference went) and a heatmap (rank × collective).
//!
//! Each takes plain data (what a catalog query returned, see the callers in
//! `analyze`, `compare` and `collectives`) and returns one SVG document. Sizes
//! are fixed per kind and grow with the number of rows, so labels keep their
//! room however large the trace: callers cap the number of marks (the queries
//! do, with `LIMIT`) and long names are cut with `…`, full in the hover text.

use super::palette;
use super::svg::{short, truncate, Anchor, Scale, Svg};

const WIDTH: f64 = 820.0;
const ROW: f64 = 22.0;
const GAP: f64 = 8.0;
const FONT: f64 = 12.0;
/// Width of one character of the 12 px label font (sans-serif, mixed case).
const CHAR: f64 = 6.8;
/// The same, generously (capitals, digits, `=`), for the room a column of
/// labels takes and how many characters fit in it: a label must never run
/// past the left edge.
const CHAR_WIDE: f64 = 7.6;

/// Pixels the longest of `labels` needs, between `min` and `max`.
fn label_room(labels: impl Iterator<Item = usize>, min: f64, max: f64) -> f64 {
    let longest = labels.max().unwrap_or(0) as f64;
    (longest * CHAR_WIDE + 12.0).clamp(min, max)
}

/// Characters that fit in `room` pixels.
fn fits(room: f64) -> usize {
    ((room - 12.0) / CHAR_WIDE).floor().max(4.0) as usize
}

/// A legend row of coloured swatches under a chart; returns its height.
fn legend(svg: &mut Svg, entries: &[(String, String)], top: f64, left: f64) -> f64 {
    let mut x = left;
    let mut y = top;
    for (name, colour) in entries {
        let width = 18.0 + name.chars().count() as f64 * CHAR + 14.0;
        if x + width > svg.width() - 10.0 && x > left {
            x = left;
            y += 18.0;
        }
        svg.rect(x, y, 12.0, 12.0, colour);
        svg.text((x + 16.0, y + 10.5), name, Anchor::Start, "legend", 11.0);
        x += width;
    }
    y + 18.0 - top
}

/// A x axis at `y` with ticks and their texts, and faint grid lines up to `top`.
fn x_axis(svg: &mut Svg, scale: &Scale, y: f64, top: f64, ticks: &[f64], unit: &str) {
    let (x0, x1) = (scale.at(scale.domain().0), scale.at(scale.domain().1));
    svg.line((x0, y), (x1, y), "#444", 1.0, false);
    for &t in ticks {
        let x = scale.at(t);
        svg.line((x, top), (x, y), "#e4e4e4", 1.0, false);
        svg.line((x, y), (x, y + 4.0), "#444", 1.0, false);
        svg.text((x, y + 16.0), &short(t), Anchor::Middle, "tick", 11.0);
    }
    if !unit.is_empty() {
        svg.text(
            ((x0 + x1) / 2.0, y + 32.0),
            unit,
            Anchor::Middle,
            "axis",
            12.0,
        );
    }
}

/// A chart's document: its title, an x axis under rows that take `plot`
/// (top, height) pixels, and room below for a legend of `legend` entries.
fn with_axis(title: &str, plot: (f64, f64), legend: usize, scale: &Scale, unit: &str) -> Svg {
    let (top, plot_h) = plot;
    let legend_rows = 1.0 + (legend as f64 / 4.0).floor();
    let mut svg = Svg::new(WIDTH, top + plot_h + 44.0 + legend_rows * 18.0 + 12.0);
    svg.text((12.0, 22.0), title, Anchor::Start, "title", 15.0);
    x_axis(&mut svg, scale, top + plot_h, top, &scale.ticks(6), unit);
    svg
}

/// One bar of a [`StackedRows`] chart.
pub struct StackRow {
    pub label: String,
    /// (segment, value), in the order the segments are drawn.
    pub segments: Vec<(String, f64)>,
}

/// Horizontal bars split into segments (computation / exposed communication /
/// exposed memcpy / idle), one per trace, side or rank, on one axis.
pub struct StackedRows {
    pub rows: Vec<StackRow>,
    pub unit: String,
}

impl StackedRows {
    pub fn render(&self, title: &str) -> String {
        // The segment names of all rows, in first-seen order.
        let names = distinct(
            self.rows
                .iter()
                .flat_map(|r| &r.segments)
                .map(|s| s.0.clone()),
        );
        let colours: Vec<String> = (0..names.len())
            .map(|i| palette::SEGMENTS[i % palette::SEGMENTS.len()].to_string())
            .collect();
        let left = label_room(
            self.rows.iter().map(|r| r.label.chars().count()),
            60.0,
            200.0,
        );
        let right = WIDTH - 30.0;
        let top = 36.0;
        // Rows thin out past ~20 (a run of many ranks), labels then go on
        // every k-th row only, so they never overlap.
        let pitch = (640.0 / self.rows.len().max(1) as f64).clamp(3.0, ROW + GAP);
        let (bar_h, gap) = if pitch >= ROW + GAP {
            (ROW, GAP)
        } else {
            (pitch * 0.8, pitch * 0.2)
        };
        let label_every = (14.0 / pitch).ceil().max(1.0) as usize;
        let plot_h = self.rows.len() as f64 * pitch;
        let max = self
            .rows
            .iter()
            .map(|r| r.segments.iter().map(|s| s.1.max(0.0)).sum::<f64>())
            .fold(0.0, f64::max);
        let scale = Scale::linear((0.0, max.max(f64::MIN_POSITIVE) * 1.02), (left, right));
        let mut svg = with_axis(title, (top, plot_h), names.len(), &scale, &self.unit);
        for (i, row) in self.rows.iter().enumerate() {
            let y = top + i as f64 * pitch + gap / 2.0;
            let total: f64 = row.segments.iter().map(|s| s.1.max(0.0)).sum();
            let shown = truncate(&row.label, fits(left));
            if i % label_every == 0 {
                let size = FONT.min(pitch * 0.9).max(9.0);
                svg.text(
                    (left - 8.0, y + bar_h / 2.0 + size * 0.35),
                    &shown,
                    Anchor::End,
                    "label",
                    size,
                );
            }
            let mut x = left;
            for (name, value) in &row.segments {
                let value = value.max(0.0);
                let w = scale.at(value) - scale.at(0.0);
                let pct = if total > 0.0 {
                    value / total * 100.0
                } else {
                    0.0
                };
                let colour = &colours[names.iter().position(|n| n == name).unwrap_or(0)];
                let hover = format!(
                    "{}: {name} {} {} ({:.1}% of {} {})",
                    row.label,
                    short(value),
                    self.unit,
                    pct,
                    short(total),
                    self.unit
                );
                svg.bar(x, y, w, bar_h, colour, &hover);
                if w > 46.0 && bar_h >= 14.0 {
                    let text = format!("{pct:.1}%");
                    svg.text(
                        (x + w / 2.0, y + bar_h * 0.7),
                        &text,
                        Anchor::Middle,
                        "value",
                        11.0,
                    );
                }
                x += w;
            }
        }
        let entries: Vec<(String, String)> = names.into_iter().zip(colours).collect();
        legend(&mut svg, &entries, top + plot_h + 40.0, left);
        svg.finish(title)
    }
}

/// The frame of a chart with one labelled bar per row (top ops, waterfall
/// steps): labels right-aligned in a column sized to the longest, bars from
/// `left` to `right`.
struct Rows {
    left: f64,
    right: f64,
    top: f64,
    /// Height of the rows together.
    height: f64,
}

impl Rows {
    fn new<'a>(labels: impl ExactSizeIterator<Item = &'a str>) -> Rows {
        let count = labels.len();
        Rows {
            left: label_room(labels.map(|l| l.chars().count()), 80.0, 330.0),
            right: WIDTH - 110.0,
            top: 36.0,
            height: count.max(1) as f64 * (ROW + GAP),
        }
    }

    /// The top of row `i`'s bar.
    fn y(&self, i: usize) -> f64 {
        self.top + i as f64 * (ROW + GAP) + GAP / 2.0
    }

    /// Row `i`'s label, cut to the label column.
    fn label(&self, svg: &mut Svg, i: usize, text: &str) {
        let shown = truncate(text, fits(self.left));
        let at = (self.left - 8.0, self.y(i) + ROW * 0.7);
        svg.text(at, &shown, Anchor::End, "label", FONT);
    }
}

/// One bar of a [`Bars`] chart.
pub struct BarItem {
    pub label: String,
    pub value: f64,
    /// Colours the bar (an op category); the legend lists them.
    pub group: String,
    /// Printed at the bar's end.
    pub value_text: String,
    pub hover: String,
}

/// Horizontal bars, one per item, largest first as given; values may be
/// negative (a change), drawn left of a zero line.
pub struct Bars {
    pub items: Vec<BarItem>,
    pub unit: String,
}

impl Bars {
    pub fn render(&self, title: &str) -> String {
        let rows = Rows::new(self.items.iter().map(|i| i.label.as_str()));
        let (left, right, top, plot_h) = (rows.left, rows.right, rows.top, rows.height);
        let low = self.items.iter().map(|i| i.value).fold(0.0, f64::min);
        let high = self.items.iter().map(|i| i.value).fold(0.0, f64::max);
        let span = (high - low).max(f64::MIN_POSITIVE);
        let scale = Scale::linear(
            (
                low - span * 0.02 * (low < 0.0) as u8 as f64,
                high + span * 0.02,
            ),
            (left, right),
        );
        let groups = distinct(self.items.iter().map(|i| i.group.clone()));
        let entries: Vec<(String, String)> = groups
            .iter()
            .map(|g| (g.clone(), palette::category(g)))
            .collect();
        let mut svg = with_axis(title, (top, plot_h), groups.len(), &scale, &self.unit);
        let zero = scale.at(0.0);
        for (i, item) in self.items.iter().enumerate() {
            let y = rows.y(i);
            rows.label(&mut svg, i, &item.label);
            let end = scale.at(item.value);
            svg.bar(
                zero.min(end),
                y,
                (end - zero).abs(),
                ROW,
                &palette::category(&item.group),
                &item.hover,
            );
            let (at, anchor) = if item.value >= 0.0 {
                (end + 5.0, Anchor::Start)
            } else {
                (zero + 5.0, Anchor::Start)
            };
            svg.text((at, y + ROW * 0.7), &item.value_text, anchor, "value", 11.0);
        }
        svg.line((zero, top), (zero, top + plot_h), "#444", 1.0, false);
        legend(&mut svg, &entries, top + plot_h + 40.0, left);
        svg.finish(title)
    }
}

/// Distinct values in first-seen order.
fn distinct(values: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// One op group on a roofline.
pub struct RoofPoint {
    /// Arithmetic intensity, FLOPs per byte.
    pub flops_per_byte: f64,
    /// Achieved TFLOPS/s.
    pub tflops_per_s: f64,
    /// GPU time, µs: the point's area.
    pub time_us: f64,
    pub category: String,
    pub hover: String,
}

/// A roofline: op groups at (FLOPs/byte, TFLOPS/s) on log-log axes under the
/// platform's memory roof (TB/s × FLOPs/byte) and compute roofs (TFLOPS/s).
pub struct Roofline {
    pub points: Vec<RoofPoint>,
    /// The platform's peak memory bandwidth, TB/s (None: no platform, no roofs).
    pub memory_tb_s: Option<f64>,
    /// (compute spec, peak TFLOPS/s) of the specs the points use.
    pub compute: Vec<(String, f64)>,
    /// A line under the title (the platform, or why there are no roofs).
    pub subtitle: String,
}

impl Roofline {
    pub fn render(&self, title: &str) -> String {
        let (left, top, plot_w, plot_h) = (70.0, 52.0, 560.0, 380.0);
        let positive = |v: &f64| v.is_finite() && *v > 0.0;
        let xs: Vec<f64> = self
            .points
            .iter()
            .map(|p| p.flops_per_byte)
            .filter(positive)
            .collect();
        let ys: Vec<f64> = self
            .points
            .iter()
            .map(|p| p.tflops_per_s)
            .filter(positive)
            .collect();
        let peak = self.compute.iter().map(|c| c.1).fold(0.0, f64::max);
        let ridge = match self.memory_tb_s {
            Some(bw) if bw > 0.0 && peak > 0.0 => peak / bw,
            _ => 0.0,
        };
        let x_lo = xs.iter().copied().fold(f64::INFINITY, f64::min).min(1.0);
        let x_hi = xs
            .iter()
            .copied()
            .fold(0.0, f64::max)
            .max(ridge * 4.0)
            .max(10.0);
        let y_lo = ys
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
            .min(peak / 1e3)
            .min(1.0);
        let y_hi = ys
            .iter()
            .copied()
            .fold(0.0, f64::max)
            .max(peak * 1.5)
            .max(1.0);
        let sx = Scale::log((x_lo, x_hi), (left, left + plot_w));
        let sy = Scale::log((y_lo, y_hi), (top + plot_h, top));
        let categories = distinct(self.points.iter().map(|p| p.category.clone()));
        let height = top + plot_h + 50.0 + 20.0;
        let mut svg = Svg::new(
            WIDTH,
            height.max(top + 30.0 + categories.len() as f64 * 18.0),
        );
        svg.text((12.0, 22.0), title, Anchor::Start, "title", 15.0);
        svg.text((12.0, 40.0), &self.subtitle, Anchor::Start, "note", 11.0);
        // Axes and decade grid.
        let (x0, x1) = (left, left + plot_w);
        let (y0, y1) = (top + plot_h, top);
        for t in sx.ticks(12) {
            let x = sx.at(t);
            svg.line((x, y1), (x, y0), "#ececec", 1.0, false);
            svg.text((x, y0 + 16.0), &short(t), Anchor::Middle, "tick", 11.0);
        }
        for t in sy.ticks(10) {
            let y = sy.at(t);
            svg.line((x0, y), (x1, y), "#ececec", 1.0, false);
            svg.text((x0 - 6.0, y + 4.0), &short(t), Anchor::End, "tick", 11.0);
        }
        svg.line((x0, y0), (x1, y0), "#444", 1.0, false);
        svg.line((x0, y0), (x0, y1), "#444", 1.0, false);
        svg.text(
            ((x0 + x1) / 2.0, y0 + 36.0),
            "arithmetic intensity (FLOPs / byte)",
            Anchor::Middle,
            "axis",
            12.0,
        );
        svg.text_rotated(
            (18.0, (y0 + y1) / 2.0),
            "achieved TFLOPS/s",
            Anchor::Middle,
            "axis",
            12.0,
            -90.0,
        );
        self.roofs(&mut svg, &sx, &sy);
        // Largest first, so small points stay on top and can be hovered.
        let max_time = self.points.iter().map(|p| p.time_us).fold(0.0, f64::max);
        let mut order: Vec<&RoofPoint> = self
            .points
            .iter()
            .filter(|p| positive(&p.flops_per_byte) && positive(&p.tflops_per_s))
            .collect();
        order.sort_by(|a, b| b.time_us.total_cmp(&a.time_us));
        for p in order {
            let r = 3.0 + 15.0 * (p.time_us.max(0.0) / max_time.max(f64::MIN_POSITIVE)).sqrt();
            svg.point(
                sx.at(p.flops_per_byte),
                sy.at(p.tflops_per_s),
                r,
                &palette::category(&p.category),
                &p.hover,
            );
        }
        // Legend: one entry per category, right of the plot.
        for (i, category) in categories.iter().enumerate() {
            let y = top + i as f64 * 18.0;
            svg.rect(x1 + 24.0, y, 12.0, 12.0, &palette::category(category));
            svg.text(
                (x1 + 40.0, y + 10.5),
                &truncate(category, 18),
                Anchor::Start,
                "legend",
                11.0,
            );
        }
        svg.finish(title)
    }

    /// The memory roof from the left edge to the highest ridge, and each
    /// compute roof from its ridge to the right edge, labelled.
    fn roofs(&self, svg: &mut Svg, sx: &Scale, sy: &Scale) {
        let Some(bw) = self.memory_tb_s.filter(|b| *b > 0.0) else {
            return;
        };
        let (x_min, x_max) = sx.domain();
        let (y_min, y_max) = sy.domain();
        let peak = self.compute.iter().map(|c| c.1).fold(0.0, f64::max);
        // Where the memory roof leaves the plot: at the highest peak's ridge, or
        // the top edge.
        let x_top = if peak > 0.0 { peak / bw } else { y_max / bw }.min(x_max);
        let x_start = x_min.max(y_min / bw);
        svg.line(
            (sx.at(x_start), sy.at(bw * x_start)),
            (sx.at(x_top), sy.at(bw * x_top)),
            "#222",
            1.6,
            false,
        );
        let label_x = x_start * (x_top / x_start).powf(0.15);
        svg.text(
            (sx.at(label_x) + 4.0, sy.at(bw * label_x) - 6.0),
            &format!("memory {} TB/s", short(bw)),
            Anchor::Start,
            "roof",
            11.0,
        );
        let mut specs = self.compute.clone();
        specs.sort_by(|a, b| b.1.total_cmp(&a.1));
        // Label baselines taken so far: a roof close to another gets its
        // label under its line, or none (a legend line says which is which).
        let mut taken: Vec<f64> = Vec::new();
        let mut unlabelled = Vec::new();
        for (i, (spec, tflops)) in specs.iter().enumerate() {
            let ridge = tflops / bw;
            let y = sy.at(*tflops);
            svg.line((sx.at(ridge), y), (sx.at(x_max), y), "#222", 1.4, i > 0);
            let text = format!("{spec} {} TFLOPS/s", short(*tflops));
            let free = |at: f64| taken.iter().all(|t| (t - at).abs() >= 12.0);
            match [y - 5.0, y + 13.0].into_iter().find(|at| free(*at)) {
                Some(at) => {
                    svg.text((sx.at(x_max) - 4.0, at), &text, Anchor::End, "roof", 11.0);
                    taken.push(at);
                }
                None => unlabelled.push(text),
            }
        }
        if !unlabelled.is_empty() {
            let (_, y_top) = (sx.at(x_min), sy.at(y_max));
            let note = format!("also: {}", unlabelled.join(", "));
            svg.text(
                (sx.at(x_max), y_top - 4.0),
                &note,
                Anchor::End,
                "roof",
                10.0,
            );
        }
    }
}

/// One step of a [`Waterfall`].
pub struct Step {
    pub label: String,
    /// A total bar (from zero) or a change (from the running total).
    pub total: bool,
    pub value: f64,
    pub hover: String,
}

/// Where a difference went: the first total, each change as a bar from the
/// running total, the last total; increases red, decreases green.
pub struct Waterfall {
    pub steps: Vec<Step>,
    pub unit: String,
}

impl Waterfall {
    pub fn render(&self, title: &str) -> String {
        let rows = Rows::new(self.steps.iter().map(|s| s.label.as_str()));
        let (left, right, top, plot_h) = (rows.left, rows.right, rows.top, rows.height);
        // The running total before and after each step.
        let mut spans = Vec::new();
        let mut running = 0.0;
        for step in &self.steps {
            let start = if step.total { 0.0 } else { running };
            let end = if step.total {
                step.value
            } else {
                running + step.value
            };
            spans.push((start, end));
            running = end;
        }
        // The axis starts near the lowest running total, not at zero: the
        // changes are usually small next to the spans, and from zero they
        // would be slivers. Total bars then start at the axis's left edge.
        let ends = spans.iter().flat_map(|(start, end)| [*start, *end]);
        let ends: Vec<f64> = ends.filter(|v| *v != 0.0).collect();
        let low = ends.iter().copied().fold(f64::INFINITY, f64::min);
        let high = ends
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max)
            .max(0.0);
        let low = if low.is_finite() { low.min(high) } else { 0.0 };
        let pad = ((high - low) * 0.25).max(high.abs() * 1e-3);
        let axis_low = if low >= 0.0 {
            (low - pad).max(0.0)
        } else {
            low - pad
        };
        let scale = Scale::linear((axis_low, high + pad * 0.4), (left, right));
        let height = top + plot_h + 50.0;
        let mut svg = Svg::new(WIDTH, height);
        svg.text((12.0, 22.0), title, Anchor::Start, "title", 15.0);
        if axis_low > 0.0 {
            let note = format!(
                "axis from {} {}: totals are cut",
                short(axis_low),
                self.unit
            );
            svg.text((right, 22.0), &note, Anchor::End, "note", 11.0);
        }
        x_axis(
            &mut svg,
            &scale,
            top + plot_h,
            top,
            &scale.ticks(6),
            &self.unit,
        );
        for (i, (step, (start, end))) in self.steps.iter().zip(&spans).enumerate() {
            let y = rows.y(i);
            rows.label(&mut svg, i, &step.label);
            let colour = if step.total {
                palette::TOTAL
            } else if end > start {
                palette::WORSE
            } else {
                palette::BETTER
            };
            let (a, b) = (scale.at(start.max(axis_low)), scale.at(end.max(axis_low)));
            svg.bar(
                a.min(b),
                y,
                (b - a).abs().max(1.0),
                ROW,
                colour,
                &step.hover,
            );
            let text = if step.total {
                short(step.value)
            } else {
                format!(
                    "{}{}",
                    if step.value > 0.0 { "+" } else { "" },
                    short(step.value)
                )
            };
            svg.text(
                (a.max(b) + 5.0, y + ROW * 0.7),
                &text,
                Anchor::Start,
                "value",
                11.0,
            );
            // The connector to the next step's start.
            if i + 1 < self.steps.len() {
                let x = scale.at(end.max(axis_low));
                svg.line((x, y + ROW), (x, y + ROW + GAP), "#888", 1.0, true);
            }
        }
        svg.finish(title)
    }
}

/// A matrix of values (rows × columns) as coloured cells, light to dark.
pub struct Heatmap {
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    /// `cells[row][column]`; None where the row has no value.
    pub cells: Vec<Vec<Option<f64>>>,
    pub unit: String,
    /// What a cell's value is, for its hover text ("wait").
    pub measure: String,
}

impl Heatmap {
    pub fn render(&self, title: &str) -> String {
        let left = label_room(self.rows.iter().map(|r| r.chars().count()), 60.0, 160.0);
        let longest_column = self
            .columns
            .iter()
            .map(|c| c.chars().count().min(28))
            .max()
            .unwrap_or(0) as f64;
        let top = 40.0 + longest_column * CHAR * 0.72 + 10.0;
        let available = WIDTH - left - 30.0;
        let cell_w = (available / self.columns.len().max(1) as f64).clamp(4.0, 48.0);
        let cell_h = (560.0 / self.rows.len().max(1) as f64).clamp(3.0, 22.0);
        let plot_h = cell_h * self.rows.len() as f64;
        let height = top + plot_h + 56.0;
        let max = self
            .cells
            .iter()
            .flatten()
            .flatten()
            .copied()
            .fold(0.0, f64::max);
        let mut svg = Svg::new(WIDTH, height);
        svg.text((12.0, 22.0), title, Anchor::Start, "title", 15.0);
        // Labels on every k-th column / row only when cells are too small for
        // every one: they never overlap.
        let col_every = (14.0 / cell_w).ceil().max(1.0) as usize;
        for (j, column) in self
            .columns
            .iter()
            .enumerate()
            .filter(|(j, _)| j % col_every == 0)
        {
            let x = left + (j as f64 + 0.5) * cell_w;
            svg.text_rotated(
                (x + 3.0, top - 6.0),
                &truncate(column, 28),
                Anchor::Start,
                "label",
                11.0,
                -50.0,
            );
        }
        let row_every = (12.0 / cell_h).ceil().max(1.0) as usize;
        for (i, row) in self.rows.iter().enumerate() {
            let y = top + i as f64 * cell_h;
            if i % row_every == 0 {
                svg.text(
                    (left - 6.0, y + cell_h / 2.0 + 4.0),
                    &truncate(row, fits(left)),
                    Anchor::End,
                    "label",
                    11.0,
                );
            }
            for (j, cell) in self.cells.get(i).into_iter().flatten().enumerate() {
                let Some(value) = cell else { continue };
                let x = left + j as f64 * cell_w;
                let hover = format!(
                    "{row} · {}: {} {} {}",
                    self.columns.get(j).map(String::as_str).unwrap_or(""),
                    self.measure,
                    short(*value),
                    self.unit
                );
                svg.bar(
                    x,
                    y,
                    cell_w - 1.0,
                    cell_h - 1.0,
                    &palette::heat(*value / max.max(f64::MIN_POSITIVE)),
                    &hover,
                );
            }
        }
        // The colour scale.
        let y = top + plot_h + 14.0;
        for k in 0..=5 {
            let t = k as f64 / 5.0;
            svg.rect(left + k as f64 * 46.0, y, 44.0, 12.0, &palette::heat(t));
            svg.text(
                (left + k as f64 * 46.0 + 22.0, y + 26.0),
                &short(t * max),
                Anchor::Middle,
                "tick",
                10.0,
            );
        }
        svg.text(
            (left + 6.0 * 46.0 + 8.0, y + 10.0),
            &format!("{} ({})", self.measure, self.unit),
            Anchor::Start,
            "legend",
            11.0,
        );
        svg.finish(title)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(svg: &str, needle: &str) -> usize {
        svg.matches(needle).count()
    }

    #[test]
    fn stacked_rows_draw_a_mark_per_segment() {
        let chart = StackedRows {
            rows: vec![
                StackRow {
                    label: "rank 0".into(),
                    segments: vec![("computation".into(), 8.0), ("idle".into(), 2.0)],
                },
                StackRow {
                    label: "rank 1".into(),
                    segments: vec![("computation".into(), 5.0), ("idle".into(), 5.0)],
                },
            ],
            unit: "ms".into(),
        };
        let svg = chart.render("GPU time");
        assert_eq!(count(&svg, r#"class="mark""#), 4);
        assert_eq!(count(&svg, r#"class="label""#), 2);
        assert!(
            svg.contains("<title>rank 0: computation 8 ms (80.0% of 10 ms)</title>"),
            "{svg}"
        );
    }

    #[test]
    fn waterfall_ends_at_the_last_total() {
        let step = |label: &str, total, value| Step {
            label: label.into(),
            total,
            value,
            hover: label.into(),
        };
        let chart = Waterfall {
            steps: vec![
                step("base", true, 10.0),
                step("GEMM", false, -4.0),
                step("idle", false, 1.0),
                step("target", true, 7.0),
            ],
            unit: "ms".into(),
        };
        let svg = chart.render("w");
        assert_eq!(count(&svg, r#"class="mark""#), 4);
        assert!(
            svg.contains(">-4</text>") && svg.contains(">+1</text>"),
            "{svg}"
        );
        assert!(svg.contains(palette::BETTER) && svg.contains(palette::WORSE));
    }

    #[test]
    fn roofline_without_platform_draws_points_only() {
        let chart = Roofline {
            points: vec![RoofPoint {
                flops_per_byte: 50.0,
                tflops_per_s: 120.0,
                time_us: 10.0,
                category: "GEMM".into(),
                hover: "mm".into(),
            }],
            memory_tb_s: None,
            compute: vec![],
            subtitle: "no platform".into(),
        };
        let svg = chart.render("r");
        assert_eq!(count(&svg, "<circle"), 1);
        assert_eq!(count(&svg, r#"class="roof""#), 0);
        let chart = Roofline {
            memory_tb_s: Some(3.35),
            compute: vec![("matrix_bf16".into(), 989.0)],
            ..chart
        };
        let svg = chart.render("r");
        assert_eq!(count(&svg, r#"class="roof""#), 2);
    }

    #[test]
    fn heatmap_skips_labels_rather_than_overlap_them() {
        let rows: Vec<String> = (0..200).map(|r| format!("rank {r}")).collect();
        let chart = Heatmap {
            cells: rows.iter().map(|_| vec![Some(1.0), None]).collect(),
            rows,
            columns: vec!["allreduce".into(), "allgather".into()],
            unit: "ms".into(),
            measure: "wait".into(),
        };
        let svg = chart.render("h");
        assert_eq!(count(&svg, r#"class="mark""#), 200);
        // 200 rows of 3 px: a label every 4th row, plus the 2 column labels.
        assert_eq!(count(&svg, r#"class="label""#), 50 + 2);
    }
}
