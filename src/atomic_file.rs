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

/// Makes the folder of `path` ready for a new file: creates it if missing and removes the
/// temporaries killed runs left there; returns how many it removed.
pub(crate) fn prepare_folder_of(path: &Path) -> io::Result<usize> {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => prepare_folder(d),
        _ => prepare_folder(Path::new(".")),
    }
}

/// Creates `dir` if missing and removes the temporaries killed runs left in it; returns
/// how many it removed.
pub(crate) fn prepare_folder(dir: &Path) -> io::Result<usize> {
    fs::create_dir_all(dir).map_err(|e| match file_on_the_way(dir) {
        // "File exists" names neither the file nor the fault.
        Some(file) => io::Error::new(
            e.kind(),
            format!("{} is a file, not a folder", file.display()),
        ),
        None => e,
    })?;
    Ok(remove_stale_temporaries(dir))
}

/// The first part of `dir` that is there and is not a folder, if any.
fn file_on_the_way(dir: &Path) -> Option<&Path> {
    let mut parts: Vec<&Path> = dir.ancestors().collect();
    parts.reverse();
    parts
        .into_iter()
        .find(|p| fs::metadata(p).is_ok_and(|m| !m.is_dir()))
}

/// Deletes the temporaries that killed runs left in `dir` (files or folders named
/// `.NAME.PID.tmp` whose process is gone) and returns how many; those of a live process
/// are left alone.
fn remove_stale_temporaries(dir: &Path) -> usize {
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
        .filter(|p| match p.is_dir() {
            true => fs::remove_dir_all(p).is_ok(),
            false => fs::remove_file(p).is_ok(),
        })
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

    #[test]
    fn a_dead_runs_temporaries_are_swept_and_a_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sub/book.rbb");
        // No process has this id (Linux caps ids at 2^22).
        let dead = 1u32 << 30;
        let live = std::process::id();
        assert_eq!(prepare_folder_of(&out).unwrap(), 0, "the folder is created");
        let sub = dir.path().join("sub");
        fs::write(sub.join(format!(".book.rbb.{dead}.tmp")), b"x").unwrap();
        fs::create_dir(sub.join(format!(".book.rbb.runs.{dead}.tmp"))).unwrap();
        fs::write(sub.join(format!(".book.rbb.runs.{dead}.tmp/run-0")), b"x").unwrap();
        fs::write(sub.join(format!(".book.rbb.{live}.tmp")), b"x").unwrap();
        fs::write(sub.join("keep.tmp"), b"x").unwrap();
        let swept = if Path::new("/proc/self").exists() {
            2
        } else {
            0
        };
        assert_eq!(prepare_folder_of(&out).unwrap(), swept);
        let mut left: Vec<String> = fs::read_dir(&sub)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        if swept == 2 {
            assert_eq!(left, [format!(".book.rbb.{live}.tmp"), "keep.tmp".into()]);
        }
    }
}
