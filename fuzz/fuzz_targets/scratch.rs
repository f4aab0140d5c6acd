//! A folder of the fuzzing process's own, made once and kept: every input reuses it (a
//! target writes its file there instead of creating a folder per execution).

use std::path::PathBuf;

/// A new folder named from `prefix`, kept after the process ends.
pub fn folder(prefix: &str) -> PathBuf {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("temporary folder")
        .keep()
}
