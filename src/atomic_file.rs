//! Files that appear whole or not at all: written under a temporary name beside the final
//! one (`.NAME.PID.N.tmp`), synced, then renamed over it. A failed write removes its
//! temporary and leaves whatever stood under the final name as it was. Tables, books and
//! Polyglot exports are all written this way, and a book's runs go to a temporary folder
//! beside it (`TempFolder`).
//!
//! Every temporary is held under an advisory lock (`flock`) by the process writing it, for
//! as long as it lives; a killed run's locks go with it. So the temporaries of killed runs
//! are found by their lock, which nobody holds, not by their process id, which a process
//! in another PID namespace (a container) or on another host sharing the folder may have
//! too (`remove_stale_temporaries`). A temporary is made under a name the sweep passes over
//! (`.NAME.PID.N.new`), locked, then renamed to its `.tmp` name, so the sweep never meets
//! one not yet locked.

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The `.tmp` and `.new` names of a new temporary for `path`, with `label` after its name:
/// this process's id and a number it has not used, so two writers never meet.
fn temporary_names(path: &Path, label: &str) -> (PathBuf, PathBuf) {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy());
    let id = format!("{}.{}", std::process::id(), NEXT.fetch_add(1, Relaxed));
    let at = |end: &str| path.with_file_name(format!(".{name}{label}.{id}.{end}"));
    (at("tmp"), at("new"))
}

/// Takes the advisory lock on `file` without waiting; false if another holds it (or the
/// file system keeps no locks: then nobody may take it for dead). Linux only; elsewhere
/// nothing is locked and nothing swept.
fn try_lock(file: &File) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this `File` owns.
        unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        false
    }
}

/// Whether another process holds the advisory lock on `file`; otherwise this call takes it,
/// for as long as the file stays open (a killed process's lock goes with it). Linux only;
/// elsewhere, never.
pub(crate) fn locked_elsewhere(file: &File) -> bool {
    cfg!(target_os = "linux") && !try_lock(file)
}

/// Creates the file `new`, locks it and renames it to `tmp`: a temporary the sweep of
/// another process never takes for a killed run's.
fn create_locked(tmp: &Path, new: &Path) -> io::Result<File> {
    let file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(new)?;
    // Where locks are not kept, the file is still written; it is then never swept.
    let _ = try_lock(&file);
    if let Err(e) = fs::rename(new, tmp) {
        let _ = fs::remove_file(new);
        return Err(e);
    }
    Ok(file)
}

/// A file being written under its temporary name.
pub(crate) struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    /// None once renamed (or given up).
    out: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Starts writing `path`, under a temporary name in its folder.
    pub(crate) fn create(path: &Path) -> io::Result<AtomicFile> {
        let (tmp, new) = temporary_names(path, "");
        let out = BufWriter::with_capacity(1 << 20, create_locked(&tmp, &new)?);
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            out: Some(out),
        })
    }

    /// Where the bytes go (it may seek, as a header written last does).
    pub(crate) fn writer(&mut self) -> &mut BufWriter<File> {
        self.out.as_mut().expect("written until finished")
    }

    /// Flushes, syncs and renames the file to its final name (still locked, so no sweep
    /// can take it meanwhile). On failure the temporary is removed and the final name left
    /// as it was.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        let out = self.out.take().expect("finished once");
        let done = (|| {
            let file = out.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
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

/// The file inside a temporary folder that holds its lock.
const FOLDER_LOCK: &str = "lock";

/// A temporary folder beside an output (`.NAME.LABEL.PID.N.tmp`), locked while it lives
/// and removed with everything in it when dropped.
pub(crate) struct TempFolder {
    path: PathBuf,
    /// Holds the lock.
    _lock: File,
}

impl TempFolder {
    /// Makes a new temporary folder for `out`, `label` after its name (".runs").
    pub(crate) fn create(out: &Path, label: &str) -> io::Result<TempFolder> {
        let (path, new) = temporary_names(out, label);
        fs::create_dir(&new)?;
        let made = (|| {
            let lock = File::create(new.join(FOLDER_LOCK))?;
            let _ = try_lock(&lock);
            fs::rename(&new, &path)?;
            Ok(lock)
        })();
        match made {
            Ok(lock) => Ok(TempFolder { path, _lock: lock }),
            Err(e) => {
                let _ = fs::remove_dir_all(&new);
                Err(e)
            }
        }
    }

    /// The folder.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempFolder {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
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

/// How long a `.new` temporary, not yet locked, may stand before a sweep takes it for a
/// run killed in the instant between making and locking it.
const UNCLAIMED_AGE: std::time::Duration = std::time::Duration::from_secs(3600);

/// Deletes the temporaries that killed runs left in `dir` (files or folders named
/// `.NAME....tmp` whose lock nobody holds, and `.new` ones never locked, an hour old) and
/// returns how many; those of a live process, in whatever namespace or on whatever host,
/// hold their lock and are left alone.
fn remove_stale_temporaries(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let Some(name) = p.file_name().map(|n| n.to_string_lossy().into_owned()) else {
                return false;
            };
            // `.NAME.PID.N.tmp` (`.NAME.PID.tmp` of older builds), `.new` while unlocked.
            let ours = name.strip_prefix('.').and_then(|n| {
                let rest = n.strip_suffix(".tmp").or_else(|| n.strip_suffix(".new"))?;
                let (_, number) = rest.rsplit_once('.')?;
                number.parse::<u64>().ok()
            });
            if ours.is_none() {
                return false;
            }
            let folder = p.is_dir();
            let lock = if folder {
                p.join(FOLDER_LOCK)
            } else {
                p.clone()
            };
            let unheld = || {
                fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(&lock)
                    .is_ok_and(|f| try_lock(&f))
            };
            let stale = if name.ends_with(".tmp") {
                // A folder of an older build without its lock file is taken for dead too.
                unheld() || (folder && !lock.exists() && cfg!(target_os = "linux"))
            } else if name.ends_with(".new") {
                let old = fs::metadata(p)
                    .and_then(|m| m.modified())
                    .is_ok_and(|t| t.elapsed().is_ok_and(|a| a > UNCLAIMED_AGE));
                old && (folder || unheld())
            } else {
                false
            };
            stale
                && match folder {
                    true => fs::remove_dir_all(p).is_ok(),
                    false => fs::remove_file(p).is_ok(),
                }
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

    /// Swept: temporaries nobody holds, whatever process id their name gives (here a
    /// live one's). Kept: one held by a writer whose id is nobody's here (as a process in
    /// another PID namespace or on another host), the writer's own, and what is not ours.
    #[test]
    fn a_dead_runs_temporaries_are_swept_and_a_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sub/book.rbb");
        let (nobody, me) = (1u32 << 30, std::process::id());
        assert_eq!(prepare_folder_of(&out).unwrap(), 0, "the folder is created");
        let sub = dir.path().join("sub");
        fs::write(sub.join(format!(".book.rbb.{me}.tmp")), b"x").unwrap();
        fs::write(sub.join(format!(".book.rbb.{me}.7.tmp")), b"x").unwrap();
        fs::create_dir(sub.join(format!(".book.rbb.runs.{nobody}.tmp"))).unwrap();
        fs::write(sub.join(format!(".book.rbb.runs.{nobody}.tmp/run-0")), b"x").unwrap();
        let held = sub.join(format!(".book.rbb.{nobody}.3.tmp"));
        fs::write(&held, b"x").unwrap();
        let holder = File::open(&held).unwrap();
        assert!(try_lock(&holder));
        fs::write(sub.join(".notes.tmp"), b"x").unwrap();
        fs::write(sub.join("keep.tmp"), b"x").unwrap();
        let mut writing = AtomicFile::create(&out).unwrap();
        writing.writer().write_all(b"new").unwrap();
        let runs = TempFolder::create(&out, ".runs").unwrap();
        assert_eq!(prepare_folder_of(&out).unwrap(), 3);
        assert!(held.exists() && runs.path().join(FOLDER_LOCK).exists());
        drop(holder);
        assert_eq!(
            prepare_folder_of(&out).unwrap(),
            1,
            "its holder gone, it goes"
        );
        writing.finish().unwrap();
        drop(runs);
        let mut left: Vec<String> = fs::read_dir(&sub)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [".notes.tmp", "book.rbb", "keep.tmp"]);
    }
}
