//! Embeds every `.sql` file under `queries/` in the binary, so the shipped reports,
//! categories and rules work without the source tree.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn sql_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sql_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "sql") {
            out.push(path);
        }
    }
}

/// Links the `tracesql` binary as a position-dependent executable on Linux.
///
/// A position-independent executable is relocated by the loader at every start:
/// for this binary that reads 5.7 MB of relocation records and copies 4 MB of
/// pointer tables into private memory before `main` runs (peak RSS of `--help`:
/// 15 MB as PIE, 4.5 MB without; of a load of the 55 MB benchmark trace: ~17 MB
/// less). The objects stay position-independent (only the final link changes), so
/// no dependency is rebuilt; what is given up is address randomisation of the
/// executable's own image, for a tool that reads local files.
fn link_position_dependent() {
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    let gnu_or_musl =
        std::env::var("CARGO_CFG_TARGET_ENV").is_ok_and(|env| env == "gnu" || env == "musl");
    if linux && gnu_or_musl {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}

fn main() {
    link_position_dependent();
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let queries = root.join("queries");
    println!("cargo:rerun-if-changed={}", queries.display());
    let mut files = Vec::new();
    sql_files(&queries, &mut files);
    files.sort();
    let mut code = String::from("pub static EMBEDDED: &[(&str, &str)] = &[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let relative = file.strip_prefix(&queries).expect("under queries/");
        let _ = writeln!(
            code,
            "    ({:?}, include_str!({:?})),",
            relative.to_string_lossy().replace('\\', "/"),
            file.display().to_string()
        );
    }
    code.push_str("];\n");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("embedded_queries.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
}
