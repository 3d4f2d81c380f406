//! A small SVG writer: the handful of shapes the charts draw, text escaped,
//! scales and axis ticks.
//!
//! Hand-written rather than a plotting crate because every chart here is a few
//! rectangles, circles, lines and labels; the output is plain SVG 1.1 that
//! GitHub's Markdown viewer, browsers and XML parsers all take, with no fonts
//! embedded (the viewer's sans-serif) and no script.
//!
//! Conventions the tests rely on: every data mark (a bar segment, a point, a
//! heatmap cell) has `class="mark"` and a `<title>` child (the hover text);
//! every text that names a datum has `class="label"`; axis tick texts have
//! `class="tick"`.

use std::fmt::Write as _;

/// Text made safe for XML/HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// At most `max` characters of `text`, with `…` when cut: labels must not run
/// into their neighbours (the full text stays in the mark's `<title>`).
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// A number as a short label: 3 significant digits, no exponent between 1e-3
/// and 1e6, thousands as `k` above that (axis ticks, bar values).
pub fn short(value: f64) -> String {
    if !value.is_finite() {
        return "–".into();
    }
    let magnitude = value.abs();
    if magnitude == 0.0 {
        return "0".into();
    }
    if magnitude >= 1e6 {
        return format!("{}M", trim(&format!("{:.2}", value / 1e6)));
    }
    if magnitude >= 1e4 {
        return format!("{}k", trim(&format!("{:.1}", value / 1e3)));
    }
    if magnitude < 1e-3 {
        return format!("{value:.1e}");
    }
    let decimals = (2 - magnitude.log10().floor() as i32).clamp(0, 6) as usize;
    trim(&format!("{value:.decimals$}"))
}

/// `1.50` → `1.5`, `2.00` → `2`.
fn trim(text: &str) -> String {
    if !text.contains('.') {
        return text.to_string();
    }
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A coordinate with two decimals at most (keeps files small); a value that
/// is not finite (NaN from a bad row) is drawn at 0 rather than written as
/// `NaN`, which no viewer can place.
fn c(value: f64) -> String {
    if !value.is_finite() {
        return "0".into();
    }
    trim(&format!("{value:.2}"))
}

/// How text sits on its anchor point.
#[derive(Debug, Clone, Copy)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn attr(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// One SVG document being written.
pub struct Svg {
    width: f64,
    height: f64,
    body: String,
}

impl Svg {
    pub fn new(width: f64, height: f64) -> Svg {
        Svg {
            width,
            height,
            body: String::new(),
        }
    }

    pub fn width(&self) -> f64 {
        self.width
    }

    /// A data mark: a filled rectangle with its hover text.
    pub fn bar(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, hover: &str) {
        let _ = write!(
            self.body,
            r#"<rect class="mark" x="{}" y="{}" width="{}" height="{}" fill="{}"><title>{}</title></rect>"#,
            c(x),
            c(y),
            c(w.max(0.0)),
            c(h.max(0.0)),
            escape(fill),
            escape(hover)
        );
        self.body.push('\n');
    }

    /// A data mark: a filled circle with its hover text.
    pub fn point(&mut self, x: f64, y: f64, r: f64, fill: &str, hover: &str) {
        let _ = write!(
            self.body,
            r#"<circle class="mark" cx="{}" cy="{}" r="{}" fill="{}" fill-opacity="0.7" stroke="{}" stroke-width="0.8"><title>{}</title></circle>"#,
            c(x),
            c(y),
            c(r),
            escape(fill),
            escape(fill),
            escape(hover)
        );
        self.body.push('\n');
    }

    /// A rectangle that is not data (a legend swatch, a frame).
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>"#,
            c(x),
            c(y),
            c(w.max(0.0)),
            c(h.max(0.0)),
            escape(fill)
        );
    }

    pub fn line(
        &mut self,
        from: (f64, f64),
        to: (f64, f64),
        stroke: &str,
        width: f64,
        dashed: bool,
    ) {
        let dash = if dashed {
            r#" stroke-dasharray="4 3""#
        } else {
            ""
        };
        let _ = writeln!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}"{dash}/>"#,
            c(from.0),
            c(from.1),
            c(to.0),
            c(to.1),
            escape(stroke),
            c(width)
        );
    }

    /// Text of a class (`label`, `tick`, `title`, `note`), at a size in px.
    pub fn text(&mut self, at: (f64, f64), text: &str, anchor: Anchor, class: &str, size: f64) {
        self.text_rotated(at, text, anchor, class, size, 0.0);
    }

    /// [`Svg::text`] turned by `degrees` around its anchor point.
    pub fn text_rotated(
        &mut self,
        at: (f64, f64),
        text: &str,
        anchor: Anchor,
        class: &str,
        size: f64,
        degrees: f64,
    ) {
        let rotate = if degrees != 0.0 {
            format!(
                r#" transform="rotate({} {} {})""#,
                c(degrees),
                c(at.0),
                c(at.1)
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            self.body,
            r#"<text class="{class}" x="{}" y="{}" text-anchor="{}" font-size="{}"{rotate}>{}</text>"#,
            c(at.0),
            c(at.1),
            anchor.attr(),
            c(size),
            escape(text)
        );
    }

    /// The document, with a title (for screen readers and the file's hover)
    /// and the shared text style.
    pub fn finish(self, title: &str) -> String {
        format!(
            concat!(
                r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" "#,
                r#"font-family="Helvetica, Arial, sans-serif" role="img">"#,
                "\n<title>{title}</title>\n",
                r##"<rect width="{w}" height="{h}" fill="#ffffff"/>"##,
                "\n{body}</svg>\n"
            ),
            w = c(self.width),
            h = c(self.height),
            title = escape(title),
            body = self.body
        )
    }
}

/// A map from data to pixels, linear or log10.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    domain: (f64, f64),
    range: (f64, f64),
    log: bool,
}

impl Scale {
    pub fn linear(domain: (f64, f64), range: (f64, f64)) -> Scale {
        let domain = if domain.1 > domain.0 {
            domain
        } else {
            (domain.0, domain.0 + 1.0)
        };
        Scale {
            domain,
            range,
            log: false,
        }
    }

    /// A log10 scale; the domain must be positive (it is widened to whole
    /// decades, where the ticks go).
    pub fn log(domain: (f64, f64), range: (f64, f64)) -> Scale {
        let low = domain.0.max(f64::MIN_POSITIVE).log10().floor();
        let high = domain.1.max(domain.0 * 10.0).log10().ceil().max(low + 1.0);
        Scale {
            domain: (10f64.powf(low), 10f64.powf(high)),
            range,
            log: true,
        }
    }

    pub fn domain(&self) -> (f64, f64) {
        self.domain
    }

    /// The pixel of `value` (clamped to the range for a log scale's
    /// non-positive values).
    pub fn at(&self, value: f64) -> f64 {
        let (d0, d1) = self.domain;
        let t = if self.log {
            let v = value.max(d0);
            (v.log10() - d0.log10()) / (d1.log10() - d0.log10())
        } else {
            (value - d0) / (d1 - d0)
        };
        self.range.0 + t * (self.range.1 - self.range.0)
    }

    /// Round tick values: each decade on a log scale, a 1-2-5 step giving
    /// about `count` ticks on a linear one.
    pub fn ticks(&self, count: usize) -> Vec<f64> {
        let (d0, d1) = self.domain;
        if self.log {
            let (low, high) = (d0.log10().round() as i32, d1.log10().round() as i32);
            let every = ((high - low) as usize / count.max(1)).max(1);
            return (low..=high).step_by(every).map(|e| 10f64.powi(e)).collect();
        }
        let step = nice_step((d1 - d0) / count.max(1) as f64);
        let first = (d0 / step).ceil() as i64;
        let last = (d1 / step).floor() as i64;
        (first..=last).map(|i| i as f64 * step).collect()
    }
}

/// The 1, 2 or 5 × 10^k at or above `raw`.
fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let power = 10f64.powf(raw.log10().floor());
    let unit = raw / power;
    let nice = if unit <= 1.0 {
        1.0
    } else if unit <= 2.0 {
        2.0
    } else if unit <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            escape("a<b & \"c\" 'd'\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39; "
        );
    }

    #[test]
    fn coordinates_are_always_numbers() {
        let mut svg = Svg::new(10.0, 10.0);
        svg.bar(f64::NAN, 1.0, f64::INFINITY, 2.0, "#000", "x");
        let text = svg.finish("t");
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
    }

    #[test]
    fn truncates_by_characters() {
        assert_eq!(truncate("aten::addmm", 20), "aten::addmm");
        assert_eq!(truncate("aten::addmm", 6), "aten:…");
        assert_eq!(truncate("µµµµ", 3), "µµ…");
    }

    #[test]
    fn short_numbers() {
        assert_eq!(short(0.0), "0");
        assert_eq!(short(1234.6), "1235");
        assert_eq!(short(12345.0), "12.3k");
        assert_eq!(short(2.5e6), "2.5M");
        assert_eq!(short(0.01234), "0.0123");
        assert_eq!(short(-3.0), "-3");
        assert_eq!(short(f64::NAN), "–");
    }

    #[test]
    fn linear_ticks_are_round() {
        let s = Scale::linear((0.0, 9.3), (0.0, 100.0));
        assert_eq!(s.ticks(5), vec![0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(s.at(0.0), 0.0);
        assert!((s.at(9.3) - 100.0).abs() < 1e-9);
    }

    #[test]
    fn log_scale_spans_whole_decades() {
        let s = Scale::log((0.3, 420.0), (0.0, 300.0));
        assert_eq!(s.domain(), (0.1, 1000.0));
        assert_eq!(s.ticks(10), vec![0.1, 1.0, 10.0, 100.0, 1000.0]);
        assert!((s.at(1.0) - 75.0).abs() < 1e-9);
        // Non-positive values sit at the left edge, not at -inf.
        assert_eq!(s.at(0.0), 0.0);
    }
}
