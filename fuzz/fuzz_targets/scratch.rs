//! A folder of the fuzzing process's own, made once and kept: every input reuses it (a
//! target writes its file there instead of creating a folder per execution).

use std::path::{Path, PathBuf};

/// A new folder named from `prefix`, kept after the process ends.
pub fn folder(prefix: &str) -> PathBuf {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .expect("temporary folder")
        .keep()
}

/// Writes `data` to `path` as a table file whose header checksum holds (the last four
/// bytes of the `header` first bytes), so that inputs reach what lies past the header.
#[allow(dead_code)] // one module for every target; only the table targets write tables
pub fn write_table(path: &Path, data: &[u8], header: usize) {
    let mut bytes = data.to_vec();
    if bytes.len() >= header {
        let crc = crc32fast::hash(&bytes[..header - 4]);
        bytes[header - 4..header].copy_from_slice(&crc.to_le_bytes());
    }
    std::fs::write(path, &bytes).expect("write the table");
}
