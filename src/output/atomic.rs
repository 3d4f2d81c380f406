//! Writing files so that a reader never sees half of one.
//!
//! Content goes to a temporary file beside the target, which is renamed over the
//! target only once it is complete; on any failure the temporary file is removed
//! and the target is left as it was.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The temporary name used while `target` is being written.
pub fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

/// Writes `target` through `write`, atomically.
pub fn write_file(
    target: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let temp = temp_path(target);
    let result = (|| {
        let mut out = BufWriter::new(File::create(&temp)?);
        write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&temp, target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_write_leaves_target_untouched() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("report.csv");
        std::fs::write(&target, "old").expect("seed");
        let failed = write_file(&target, |out| {
            out.write_all(b"partial")?;
            Err(io::Error::other("injected failure"))
        });
        assert!(failed.is_err());
        assert_eq!(
            std::fs::read_to_string(&target).expect("still there"),
            "old"
        );
        assert!(!temp_path(&target).exists(), "temporary file removed");
        write_file(&target, |out| out.write_all(b"new")).expect("write");
        assert_eq!(std::fs::read_to_string(&target).expect("replaced"), "new");
    }
}
