//! Writes a table file: under a temporary name first, renamed once complete and synced, so
//! that a killed run never leaves a half-written file under the final name.

use super::format::{Header, EXTENSION};
use crate::material::Material;
use crate::retro::TableStats;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The file name of `material`'s table in `dir`.
pub fn table_path(dir: &Path, material: &Material) -> PathBuf {
    dir.join(format!("{material}.{EXTENSION}"))
}

/// Writes the table of `material` into `dir` and returns its path and size in bytes.
pub fn write_table(
    dir: &Path,
    material: &Material,
    values: [&[u8]; 2],
    stats: TableStats,
) -> Result<(PathBuf, u64), String> {
    let path = table_path(dir, material);
    let tmp = dir.join(format!(
        ".{material}.{EXTENSION}.{}.tmp",
        std::process::id()
    ));
    let header = Header {
        game: "chess".into(),
        material: *material,
        size: values[0].len() as u64,
        stats,
        crc: [crc32fast::hash(values[0]), crc32fast::hash(values[1])],
    };
    let result = (|| -> io::Result<u64> {
        let file = File::create(&tmp)?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        let h = header.to_bytes();
        w.write_all(&h)?;
        w.write_all(values[0])?;
        w.write_all(values[1])?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, &path)?;
        Ok(h.len() as u64 + 2 * values[0].len() as u64)
    })();
    match result {
        Ok(bytes) => Ok((path, bytes)),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(format!("cannot write {}: {e}", path.display()))
        }
    }
}
