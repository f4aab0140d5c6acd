//! Files that appear whole or not at all: written under a temporary name beside the final
//! one (`.NAME.PID.tmp`), synced, then renamed over it. A failed write removes its
//! temporary and leaves whatever stood under the final name as it was; a killed run's
//! temporaries are found by their dead process id (`remove_stale_temporaries`). Tables,
//! books and Polyglot exports are all written this way.

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

/// A file being written under its temporary name.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    /// None once renamed (or given up).
    out: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `path`, under a temporary name in its folder.
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        let name = path
            .file_name()
            .map_or_else(|| "file".into(), |n| n.to_string_lossy());
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        let out = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            out: Some(out),
        })
    }

    /// Where the bytes go (it may seek, as a header written last does).
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        self.out.as_mut().expect("written until finished")
    }

    /// Flushes, syncs and renames the file to its final name. On failure the temporary is
    /// removed and the final name left as it was.
    pub fn finish(mut self) -> io::Result<()> {
        let out = self.out.take().expect("finished once");
        let done = (|| {
            let file = out.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            drop(file);
            fs::rename(&self.tmp, &self.path)
        })();
        if done.is_err() {
            let _ = fs::remove_file(&self.tmp);
        }
        done
    }
}

impl Drop for AtomicFile {
    /// A file dropped unfinished (an error on the way) leaves no temporary behind.
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Deletes the temporary files that killed runs left in `dir` (`.NAME.PID.tmp` whose
/// process is gone) and returns how many; a file of a live process is left alone.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    // Without /proc (not Linux) liveness is unknown: keep everything.
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    if !Path::new("/proc/self").exists() {
        return 0;
    }
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            let pid = name.as_deref().and_then(|n| {
                let rest = n.strip_prefix('.')?.strip_suffix(".tmp")?;
                let (_, pid) = rest.rsplit_once('.')?;
                pid.parse::<u32>().ok()
            });
            pid.is_some_and(|pid| {
                pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists()
            })
        })
        .filter(|p| fs::remove_file(p).is_ok())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_file_appears_only_when_finished() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.bin");
        fs::write(&path, b"old").unwrap();
        let listing = || {
            let mut names: Vec<String> = fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        // Dropped unfinished: the old file stays, no temporary is left.
        let mut f = AtomicFile::create(&path).unwrap();
        f.writer().write_all(b"new").unwrap();
        assert_eq!(listing().len(), 2, "the temporary is beside the file");
        drop(f);
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(listing(), ["a.bin"]);
        // Finished: the new bytes, under the final name only.
        let mut f = AtomicFile::create(&path).unwrap();
        f.writer().write_all(b"new").unwrap();
        f.finish().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(listing(), ["a.bin"]);
    }
}
