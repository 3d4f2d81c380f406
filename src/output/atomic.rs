//! Writing files so that a reader never sees half of one.
//!
//! Content goes to a temporary file beside the target, which is renamed over the
//! target only once it is complete; on any failure the temporary file is removed
//! and the target is left as it was. [`Staged`] does the same for a set of files
//! (a report directory): nothing is replaced until every file is complete.

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

/// Files written as a set: each is written in full under its temporary name, and
/// none replaces its target until [`Staged::commit`], once all are complete.
/// Dropping an uncommitted set removes its temporary files.
#[derive(Default)]
pub struct Staged {
    /// (temporary file, target), in the order staged.
    pending: Vec<(PathBuf, PathBuf)>,
}

impl Staged {
    pub fn new() -> Self {
        Self::default()
    }

    /// Writes `target`'s content to its temporary name.
    pub fn stage(
        &mut self,
        target: &Path,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let temp = temp_path(target);
        let result = (|| {
            let mut out = BufWriter::new(File::create(&temp)?);
            write(&mut out)?;
            out.into_inner().map_err(|e| e.into_error())?.sync_all()
        })();
        match result {
            Ok(()) => {
                self.pending.push((temp, target.to_path_buf()));
                Ok(())
            }
            Err(e) => {
                let _ = std::fs::remove_file(&temp);
                Err(e)
            }
        }
    }

    /// Renames every staged file over its target.
    pub fn commit(mut self) -> io::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        let mut renames = pending.into_iter();
        for (temp, target) in renames.by_ref() {
            if let Err(e) = std::fs::rename(&temp, &target) {
                let _ = std::fs::remove_file(&temp);
                self.pending = renames.collect();
                return Err(e);
            }
        }
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        for (temp, _) in &self.pending {
            let _ = std::fs::remove_file(temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_set_replaces_nothing() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
        std::fs::write(&a, "old a").expect("seed");
        std::fs::write(&b, "old b").expect("seed");
        let mut set = Staged::new();
        set.stage(&a, |out| out.write_all(b"new a"))
            .expect("stage a");
        let failed = set.stage(&b, |out| {
            out.write_all(b"partial")?;
            Err(io::Error::other("injected failure"))
        });
        assert!(failed.is_err());
        drop(set);
        assert_eq!(std::fs::read_to_string(&a).expect("a"), "old a");
        assert_eq!(std::fs::read_to_string(&b).expect("b"), "old b");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("list")
            .flatten()
            .collect();
        assert_eq!(names.len(), 2, "temporary files removed");

        let mut set = Staged::new();
        set.stage(&a, |out| out.write_all(b"new a"))
            .expect("stage a");
        set.stage(&b, |out| out.write_all(b"new b"))
            .expect("stage b");
        assert_eq!(
            std::fs::read_to_string(&a).expect("a"),
            "old a",
            "not before commit"
        );
        set.commit().expect("commit");
        assert_eq!(std::fs::read_to_string(&a).expect("a"), "new a");
        assert_eq!(std::fs::read_to_string(&b).expect("b"), "new b");
    }

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
