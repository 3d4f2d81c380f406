//! The op-schema catalog shipped with the binary: every schema torch registers,
//! in registry order, generated once from torch (`replay/catalog/generate.py`).
//!
//! Why a catalog: a trace records an op's arguments by position only; naming
//! and typing them needs the op's schema, and TraceLens asks the torch of the
//! replaying machine, so the same trace gives different IRs on different
//! machines. Here the schemas are data with a version, recorded in every IR.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The catalog file of torch 2.15.0: `name TAB n_args TAB schema` lines after
/// `#` header lines.
const TORCH_2_15: &str = include_str!("../../replay/catalog/torch-2.15.0.tsv");

/// One registered schema.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// Base name with namespace: `aten::add`.
    pub name: &'static str,
    /// `len(schema.arguments)` as torch counts them.
    pub n_args: usize,
    /// `str(schema)`.
    pub text: &'static str,
}

/// The schemas of one torch build.
#[derive(Debug)]
pub struct Catalog {
    /// `torch 2.15.0+cu132`.
    pub version: String,
    pub entries: Vec<Entry>,
    by_name: HashMap<&'static str, Vec<usize>>,
}

impl Catalog {
    fn parse(text: &'static str) -> Catalog {
        let mut version = String::from("unknown");
        let mut entries = Vec::new();
        let mut by_name: HashMap<&'static str, Vec<usize>> = HashMap::new();
        for line in text.lines() {
            if let Some(header) = line.strip_prefix("# torch ") {
                version = format!("torch {}", header.trim());
                continue;
            }
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            let mut fields = line.splitn(3, '\t');
            let (Some(name), Some(n_args), Some(schema)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            by_name.entry(name).or_default().push(entries.len());
            entries.push(Entry {
                name,
                n_args: n_args.parse().unwrap_or(0),
                text: schema,
            });
        }
        Catalog {
            version,
            entries,
            by_name,
        }
    }

    /// The schemas whose base name is `name`, in registry order (the order
    /// overloads are tried in).
    pub fn overloads(&self, name: &str) -> impl Iterator<Item = &Entry> {
        self.by_name
            .get(name)
            .into_iter()
            .flatten()
            .map(|&i| &self.entries[i])
    }
}

/// The shipped catalog (torch 2.15.0), parsed on first use.
pub fn shipped() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| Catalog::parse(TORCH_2_15))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::schema::Schema;

    #[test]
    fn the_shipped_catalog_holds_every_aten_schema_in_registry_order() {
        let catalog = shipped();
        assert_eq!(catalog.version, "torch 2.15.0+cu132");
        assert_eq!(catalog.entries.len(), 4415);
        let aten = catalog
            .entries
            .iter()
            .filter(|e| e.name.starts_with("aten::"))
            .count();
        assert_eq!(aten, 3765);
        let add: Vec<_> = catalog
            .overloads("aten::add")
            .take(4)
            .map(|e| e.text)
            .collect();
        assert!(add[0].starts_with("aten::add.Tensor("), "{add:?}");
        assert!(add[1].starts_with("aten::add.Scalar("), "{add:?}");
        assert!(add[2].starts_with("aten::add.out("), "{add:?}");
    }

    /// Our parser counts every schema's arguments as torch does (varargs
    /// schemas have none).
    #[test]
    fn the_native_parser_reads_every_schema_with_torchs_argument_count() {
        let mut wrong = Vec::new();
        for entry in &shipped().entries {
            match Schema::parse(entry.text) {
                Ok(s) if s.args.len() == entry.n_args => {}
                Ok(s) => wrong.push(format!(
                    "{}: {} args, torch {}",
                    entry.text,
                    s.args.len(),
                    entry.n_args
                )),
                Err(e) => wrong.push(e),
            }
        }
        assert!(
            wrong.is_empty(),
            "{} schemas: {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(5)]
        );
    }
}
