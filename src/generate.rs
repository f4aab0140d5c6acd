//! Building tables: plans the order (sub-tables first), runs the solver, classes wins and
//! losses under the 50-move rule, counts statistics and writes the file. The CLI's `gen` is
//! a thin layer over this.
//!
//! Memory of one table: 3 bytes per index and side to move for the solver, plus every
//! sub-table decoded (1 byte per index and side, and a bit for its cursed values), plus the
//! compressed file until it is written. A table with mates beyond 100 plies is solved a
//! second time under the 50-move rule (`retro::fifty`): 3 more bytes per index and side
//! while the first solution (2 bytes) is held. Measured peaks: 108 MiB for all 3-4-piece
//! tables, 1.2 GiB for KRBvKR; by the model about 4.4 GB for KRPvKR, the largest 5-piece
//! table (355 million indices per side), well inside a 24 GiB machine.

use crate::index::TableIndex;
use crate::material::{sort_for_generation, Material};
use crate::probe::{LoadedTables, Tablebase};
use crate::retro::{compute_stats, fifty, solve, ChessGame, Observer, TableStats};
use crate::table::{write_table, WriteOptions};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What one generated table cost and gave.
#[derive(Clone, Debug)]
pub struct Report {
    /// The table built.
    pub material: Material,
    /// Indices over both sides to move (the solver's work size).
    pub indices: u64,
    /// Statistics as written to the header.
    pub stats: TableStats,
    /// Wall time in seconds.
    pub seconds: f64,
    /// File size in bytes.
    pub bytes: u64,
    /// Where the file was written.
    pub path: PathBuf,
    /// Peak resident memory of the process so far, in bytes (0 where unknown).
    pub peak_memory: u64,
}

/// The tables to build, in order, so that `targets` exist afterwards: every missing
/// sub-table first, then the missing targets. Tables already open in `have` are skipped.
pub fn plan(targets: &[Material], have: &Tablebase) -> Vec<Material> {
    let mut out: Vec<Material> = Vec::new();
    for t in targets {
        let t = t.canonical();
        if t.is_bare_kings() {
            continue;
        }
        for m in t.dependencies().into_iter().chain(std::iter::once(t)) {
            if have.table(&m).is_none() && !out.contains(&m) {
                out.push(m);
            }
        }
    }
    sort_for_generation(&mut out);
    out
}

/// Builds the table of `material` (canonical) into `dir`, reading its sub-tables from `tb`.
pub fn generate(
    material: Material,
    tb: &Tablebase,
    dir: &Path,
    observer: &dyn Observer,
) -> Result<Report, String> {
    let material = material.canonical();
    for sub in material.subtables() {
        if tb.table(&sub).is_none() {
            return Err(format!(
                "cannot build {material}: sub-table {sub} is missing"
            ));
        }
    }
    let start = Instant::now();
    let index = TableIndex::new(material);
    let indices = 2 * index.size();
    let loaded = LoadedTables::for_building(tb, material)
        .map_err(|e| format!("cannot build {material}: {e}"))?;
    let game = ChessGame::new(index, &loaded);
    let mut solution = solve(&game, observer);
    fifty::apply(&game, &mut solution, observer);
    if let Some(e) = game.take_error() {
        return Err(format!("cannot build {material}: {e}"));
    }
    let stats = compute_stats(
        game.index(),
        [&solution.values[0][..], &solution.values[1][..]],
        [&solution.cursed[0][..], &solution.cursed[1][..]],
    );
    let (path, bytes) = write_table(dir, &material, &solution, stats, &WriteOptions::default())?;
    Ok(Report {
        material,
        indices,
        stats,
        seconds: start.elapsed().as_secs_f64(),
        bytes,
        path,
        peak_memory: peak_memory(),
    })
}

/// Peak resident set size of this process (Linux), or 0.
pub fn peak_memory() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|kb| kb.parse::<u64>().ok())
            })
        })
        .map_or(0, |kb| kb * 1024)
}

/// Deletes the temporary files that killed runs left in `dir` (`.NAME.rbt.PID.tmp` whose
/// process is gone) and returns how many; a file of a live process is left alone.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    // Without /proc (not Linux) liveness is unknown: keep everything.
    let Ok(entries) = std::fs::read_dir(dir) else {
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
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count()
}
