//! The one-file HTML report: sections of headings, text, tables and inline
//! SVG charts, styled by one inline stylesheet.
//!
//! Self-contained by construction: no script, no external stylesheet, font or
//! image; hover texts are SVG `<title>`s, which every browser shows without
//! script. So the file opens the same from a mail attachment, a CI artifact
//! or a sandboxed viewer.

use super::svg::escape;
use super::Figure;
use crate::output::terminal::display_float;
use crate::output::Sheet;

const STYLE: &str = r#"
body { font-family: Helvetica, Arial, sans-serif; margin: 24px auto; max-width: 1100px; color: #222; padding: 0 16px; }
h1 { font-size: 24px; margin-bottom: 4px; }
h2 { font-size: 19px; margin-top: 34px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
p.sub { color: #666; margin-top: 0; }
nav a { margin-right: 14px; font-size: 14px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0 16px; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f4f6f8; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.critical td:first-child { border-left: 5px solid #c9302c; }
tr.high td:first-child { border-left: 5px solid #ec971f; }
tr.medium td:first-child { border-left: 5px solid #e8c547; }
tr.low td:first-child { border-left: 5px solid #9fb8cc; }
div.wide { overflow-x: auto; max-width: 100%; }
figure { margin: 12px 0 20px; }
figcaption { color: #666; font-size: 12px; }
code { background: #f4f6f8; padding: 1px 4px; }
svg { max-width: 100%; height: auto; }
svg .title { font-weight: bold; }
svg .note, svg .tick, svg .legend { fill: #555; }
svg .roof { fill: #222; font-style: italic; }
svg .value { fill: #333; }
"#;

/// An HTML document being written, section by section.
pub struct Page {
    title: String,
    subtitle: String,
    sections: Vec<(String, String)>,
    body: String,
}

impl Page {
    pub fn new(title: &str, subtitle: &str) -> Page {
        Page {
            title: title.to_string(),
            subtitle: subtitle.to_string(),
            sections: Vec::new(),
            body: String::new(),
        }
    }

    /// A section heading, listed in the page's navigation.
    pub fn section(&mut self, heading: &str) {
        let id = format!("s{}", self.sections.len() + 1);
        self.body
            .push_str(&format!("<h2 id=\"{id}\">{}</h2>\n", escape(heading)));
        self.sections.push((id, heading.to_string()));
    }

    pub fn paragraph(&mut self, text: &str) {
        self.body.push_str(&format!("<p>{}</p>\n", escape(text)));
    }

    /// A chart inline, captioned with the query its data comes from.
    pub fn figure(&mut self, figure: &Figure) {
        self.body.push_str("<figure>\n");
        self.body.push_str(&figure.svg);
        let queries: Vec<String> = figure
            .queries()
            .map(|q| format!("<code>SELECT * FROM {}</code>", escape(q)))
            .collect();
        self.body.push_str(&format!(
            "<figcaption>Data: {}</figcaption>\n</figure>\n",
            queries.join(" and ")
        ));
    }

    /// A table of text cells; `classes` (one per row, may be empty) style
    /// rows (a finding's priority). Cells that read as numbers align right.
    pub fn table(&mut self, header: &[String], rows: &[Vec<String>], classes: &[String]) {
        self.body.push_str(&html_table(header, rows, classes));
    }

    /// A sheet's first `limit` rows as a table, numbers shortened, with a
    /// line saying how many were left out.
    pub fn sheet(&mut self, sheet: &Sheet, limit: usize) {
        let cells = sheet.cells();
        let rows: Vec<Vec<String>> = cells
            .iter()
            .take(limit)
            .map(|row| row.iter().map(|c| for_people(c)).collect())
            .collect();
        self.table(&sheet.header, &rows, &[]);
        if cells.len() > limit {
            self.paragraph(&format!(
                "… {} more rows: SELECT * FROM {}",
                cells.len() - limit,
                sheet.query_name
            ));
        }
    }

    pub fn finish(self) -> String {
        let nav: String = self
            .sections
            .iter()
            .map(|(id, h)| format!("<a href=\"#{id}\">{}</a>", escape(h)))
            .collect();
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
             <h1>{title}</h1>\n<p class=\"sub\">{subtitle}</p>\n<nav>{nav}</nav>\n{body}\
             <p class=\"sub\">Written by tracesql {version}. Every chart's data is a catalog query: \
             run it with <code>tracesql repl TRACE</code>.</p>\n</body>\n</html>\n",
            title = escape(&self.title),
            subtitle = escape(&self.subtitle),
            body = self.body,
            version = env!("CARGO_PKG_VERSION"),
        )
    }
}

/// A cell for people, not at the CSV's precision: a fractional number
/// rounded as the terminal rounds it ([`display_float`]), anything else as is.
fn for_people(cell: &str) -> String {
    match cell.parse::<f64>() {
        Ok(v) if cell.contains('.') && v.is_finite() => display_float(v),
        _ => cell.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_everything_it_is_given() {
        let mut page = Page::new("a <b>", "c & d");
        page.section("<script>");
        page.table(
            &["x".into()],
            &[vec!["<i>".into()], vec!["1.23456".into()]],
            &["high".into()],
        );
        let html = page.finish();
        assert!(!html.contains("<script>") && !html.contains("<i>") && !html.contains("<b>"));
        assert!(
            html.contains("<tr class=\"high\"><td>&lt;i&gt;</td></tr>"),
            "{html}"
        );
        assert!(html.contains("<td class=\"num\">1.23456</td>"));
        assert!(html.contains("<a href=\"#s1\">&lt;script&gt;</a>"));
    }

    #[test]
    fn rounds_fractional_numbers_only() {
        assert_eq!(for_people("12.345678"), "12.3457");
        assert_eq!(for_people("2.500"), "2.5");
        assert_eq!(for_people("123"), "123");
        assert_eq!(for_people("aten::mm"), "aten::mm");
    }
}

/// A table of text cells as HTML (what [`Page::table`] adds, and what the
/// Python package shows in Jupyter); `classes` (one per row, may be empty)
/// style rows. Cells that read as numbers align right; wide tables scroll
/// inside their box instead of widening the page.
pub fn html_table(header: &[String], rows: &[Vec<String>], classes: &[String]) -> String {
    let mut html = String::from("<div class=\"wide\"><table>\n<tr>");
    for h in header {
        html.push_str(&format!("<th>{}</th>", escape(h)));
    }
    html.push_str("</tr>\n");
    for (i, row) in rows.iter().enumerate() {
        match classes.get(i).filter(|c| !c.is_empty()) {
            Some(class) => html.push_str(&format!("<tr class=\"{}\">", escape(class))),
            None => html.push_str("<tr>"),
        }
        for cell in row {
            let numeric = !cell.is_empty() && cell.parse::<f64>().is_ok();
            let class = if numeric { " class=\"num\"" } else { "" };
            html.push_str(&format!("<td{class}>{}</td>", escape(cell)));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</table></div>\n");
    html
}
