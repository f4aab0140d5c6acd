//! Building chess tables: plans the order (sub-tables first), runs the solver, classes wins
//! and losses under the 50-move rule, counts statistics and writes the file.
//!
//! Memory of one table, with n indices per side to move and parts (`TableIndex::parts`) of
//! at most p indices per side (`estimate` follows this model):
//! - without pawns (one part, p = n), the solver, finding losses by move counters: 2 bytes
//!   per index and side (value, move counter), 4 bits (illegal, the best fixed move's class,
//!   whether it decides the value) and its level marks (32 bytes per 512 indices and side),
//!   5.125n; then the distances to zeroing (`retro::dtz`): a cell per index and side made
//!   beside the solution (values and three bitmaps, 2.75n), which is then held packed
//!   (`PACKED_PER_INDEX`) until the DTZ layer is written, while the search keeps the cells,
//!   the bits of the resets that decide, of the cursed best conversions and of the losers'
//!   reprieves, and the 50-move classes (`fifty`), touched only where set: at most 4.75n;
//!   the cells become the distances' solution in place (2.25n);
//! - with pawns, the solution's values (2n) are held whole while each part is solved with
//!   its own state: 2 bytes per index and side (value, counter), 6 bits (the solver's four,
//!   and the class of the best exit apart from pawn moves into earlier parts) and marks,
//!   5.625p; a part's bitmaps (illegal, exit marks: 0.75n in all) are packed once it is
//!   solved (`retro::PartByPart`); and 1n not yet accounted for, kept as a margin (KNNvKP
//!   peaked 0.79n above the rest of the model while the bitmaps were held whole): 3.75n +
//!   5.625p. The values' pages are touched part by part, and each part's distances to
//!   zeroing are found as soon as it is solved (cells and bitmaps, 2.75p, below the part's
//!   solve) and held packed (`retro::PackedShares`, taken as `PACKED_PER_INDEX`) until the
//!   DTZ layer reads them, so the model takes, part by part, 3.75 bytes per index solved
//!   up to it, the packed distances, its own state, and the sub-tables still read:
//!   promotion tables go once no part left promotes (`LoadedTables::release_unread`).
//!   The model is an upper bound there: the values of the parts that no part left reads
//!   (pawn moves go one or two steps ahead, and never into another file group of the
//!   leading pawn) are packed and their pages given back (`PartByPart::let_go_unread`), so
//!   KRPvKR holds at most three of the 24 parts' values (of one file group) at a time;
//! - the DTZ layer, written first (with pawns, once the solution's sides are counted,
//!   below): the distances' solution (2.25n; with pawns a side's, 1.125n, the other
//!   packed) and one stream at a time (below), the table's solution held packed (with
//!   pawns, the side whose DTM layer is stored, and the other's WDL inputs);
//! - then the writer: one side of the solution (values n, and five bitmaps: illegal, two
//!   exit marks, two 50-move classes, 0.625n), the other held packed while the first side's
//!   WDL stream is made (`table::write_table`), and one stream in the layout's order, a
//!   byte per number of the layout (holes included: 1.39n numbers without pawns, 1.13n
//!   with; of a stream cut into segments, a batch of segments at most (2^24 numbers per
//!   thread); two bytes for a DTM stream with mates beyond 255 moves) while the grammar's
//!   first rounds rewrite it in place, then the 16-bit copy of what is left when its
//!   alphabet outgrows a byte, made as the bytes are given back: at most 2 bytes per number
//!   (a tenth of KQRvKR's DTM stream is left, three quarters of a KRNvKNN stream): 1.625n,
//!   the packed side and 2 bytes per number, 4.4n without pawns. With pawns the solution
//!   comes a side at a time, the other packed (`PartByPart::into_sides`), whole only as
//!   its values and one bitmap at a time (1.125n: the illegal bits, to count it; the exit
//!   decides bits, for its DTM layout's trial); the side whose DTM layer is not stored
//!   then comes down to its WDL inputs, made and packed a piece at a time
//!   (`table::wdl_inputs_of`), which is all its WDL layer reads. Each WDL stream is
//!   gathered from a byte per index (class and exit class), made in place of the values of
//!   the side without DTM (or so packed), and held packed for the DTM side, whose DTM stream (values, illegal bitmap and exit
//!   marks, 1.25n, and the stream) comes first; the compressed streams are held until the
//!   file is written in their order;
//! - the sub-table sides the solver reads, decoded (1 byte per index and a bit for its
//!   cursed values), let go before the writer starts (those only promotions reach, after
//!   the last part that promotes); while they are decoded, also the
//!   sides needed only to decode them, and the decoder's working memory
//!   (`probe::Schedule`).
//!
//! Split across K processes (`peers`), each holds its share of each part (n/K
//! indices a side) from the solve to the writer: the solver's state and values of its
//! share, and its share's cells in the search of the distances to zeroing (each level's
//! notes for the others' positions sent at its end; a pawn table's parts are searched
//! whole in every process); a pawn table's
//! part being solved and those its pawn moves reach (values, 2 bytes an index of them,
//! gathered in every process and given back but for the share once no part left reads
//! them); the statistics are counted per share and added; the writer makes the choices of
//! its share for the process that fills each segment (`table::split`), which holds a batch
//! of segments (a stream not cut into segments: process 0 fills it whole); process 0
//! holds the compressed streams. Every process also decodes the sub-tables it reads. A
//! pawn table's sides come whole-length to the writer, but only the pages of the indices
//! a process keeps are written (`Packed::unpack_into` writes the bytes that change, the
//! WDL inputs are made at those indices alone).
//!
//! The estimate (`gen --plan`) adds 5% to the model; `docs/performance.md` holds it against
//! the measured peaks.

use super::session::{Built, TableName, Tables};
use super::Estimate;
use crate::index::{Layout, TableIndex};
use crate::material::{sort_for_generation, Material};
use crate::peers::{Alone, Peers, Reader, Wire};
use crate::phases::{PhaseTime, Phases};
use crate::probe::{schedule_for_building, LoadedTables, ProbeError, Tablebase};
use crate::progress::Observer;
use crate::retro::dtz::{self, PartDtz};
use crate::retro::{
    bit, fifty, ChessGame, LossSearch, PackedShares, PackedSide, PartByPart, Solution,
};
use crate::side::{BySide, Side};
use crate::table::{
    add_counts, combine_stats, count_side_of, dtm_side, dtm_trial, dtz_layer, table_path,
    wdl_inputs_of, write_table_sides, SideCount, SideStats, Sides, TableError, TableStats,
    WriteOptions,
};
use crate::threads::Threads;
use crate::value::{Dtm, Wdl5, RULE_PLIES};
use crate::zeroed::give_back_free_memory;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Why a table could not be built.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// A table its conversions lead to is not open.
    #[error("cannot build {material}: sub-table {sub} is missing")]
    MissingSubTable {
        /// The table to build.
        material: Material,
        /// The sub-table missing.
        sub: Material,
    },
    /// A sub-table could not be read (the error names the file at fault).
    #[error("cannot build {material}: {source}")]
    SubTable {
        /// The table to build.
        material: Material,
        /// What failed.
        source: ProbeError,
    },
    /// The table could not be written, or not opened once written.
    #[error(transparent)]
    Table(#[from] TableError),
    /// Won or lost positions were left without a distance to zeroing: a fault of this
    /// program (the table is not written).
    #[error("cannot build {material}: {unsolved} won or lost positions have no distance to zeroing (internal error)")]
    Unsolved {
        /// The table to build.
        material: Material,
        /// The positions at fault.
        unsolved: u64,
    },
    /// Split across processes: the first, which writes the table, could not.
    #[error("cannot build {material}: process 0 could not write it: {message}")]
    NotWritten {
        /// The table to build.
        material: Material,
        /// Process 0's error.
        message: String,
    },
}

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
    /// Peak resident memory of the process so far, in bytes (0 where unknown); split
    /// across processes, the highest of theirs.
    pub peak_memory: u64,
    /// Processes the table was split across.
    pub processes: usize,
    /// Bytes the processes sent each other building it (0 for one process).
    pub exchanged: u64,
    /// CPU and wall time of each phase, in the order they ran (this process's).
    pub phases: Vec<PhaseTime>,
}

impl TableName for Material {
    type Tables = Tablebase;
}

/// Chess tables to build: the tablebase they are read from, as each is built.
impl Tables for Tablebase {
    type Name = Material;
    type Options = GenOptions;
    type Report = Report;
    type Error = GenError;

    fn of_folder(_: &Path) -> Tablebase {
        Tablebase::new()
    }

    fn in_order(targets: &[Material]) -> Vec<Material> {
        plan(targets, &Tablebase::new())
    }

    fn sub_tables(material: Material) -> Vec<Material> {
        material.subtables()
    }

    fn path(dir: &Path, material: Material) -> PathBuf {
        table_path(dir, &material)
    }

    fn take(&mut self, _: Material, path: &Path) -> Result<(), TableError> {
        // A file named after a table must hold it (`Tablebase::add_file`).
        self.add_file(path)
    }

    fn estimate(&self, material: Material) -> Estimate {
        estimate(material, self)
    }

    /// No limit: `gen` refuses a table over its memory before the run, or before the
    /// table, rather than skipping it.
    fn memory(_: &GenOptions) -> Option<u64> {
        None
    }

    fn build(
        &mut self,
        material: Material,
        dir: &Path,
        opts: &GenOptions,
        observer: &dyn Observer,
    ) -> Result<Built<Tablebase>, GenError> {
        let report = generate(material, self, dir, opts, observer)?;
        self.add_file(&report.path)?;
        Ok(Built::Table(report))
    }
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

/// Memory besides the tables: code, thread stacks, mapped headers.
const BASE_BYTES: u64 = 32 << 20;

/// Bytes per index of a solution's values and exit marks, both sides, held compressed
/// while the distances to zeroing are found and written, by measurement with a margin: KRBvKR's values pack
/// into 24,344,912 bytes (0.20n), its exit marks (0.5n unpacked) into far less.
const PACKED_PER_INDEX: f64 = 0.3;

/// Bytes per index (of one side) the search of a part's distances to zeroing holds beside
/// the solution, times 4: a cell per side, the bits of the resets that decide, of the
/// cursed best conversions and of the losers' reprieves.
const ZEROING_PER_INDEX_X4: u64 = 11;

/// Bytes per index of the distances to zeroing found (a byte per side and the bits of the
/// resets that decide), times 4: a table of one part keeps them until its DTZ layer is
/// written; one with pawns holds them packed (`PACKED_PER_INDEX` is taken for them too),
/// and whole a side at a time while its DTZ layer is written.
const DISTANCES_PER_INDEX_X4: u64 = 9;

/// CPU time per index (both sides counted) of the DTM solve, the zeroing search and
/// writing, measured with 2 threads: 0.80 us (KQRvKR), 0.74 us (KRPvKR, its loading
/// apart), 1.04 us (KRNvKNN). Rounded up: a plan that promises less than the run takes
/// misleads more than one that promises more.
const CPU_SECONDS_PER_INDEX: f64 = 1.0e-6;

/// CPU time per index of the sub-tables' sides decoded first (`Schedule::indices`):
/// 97 ns for KRPvKR's 897 million, 110 ns for KPPvKP's 28 billion (its promotion tables
/// read those of the other colour's promotions in turn).
const LOADING_CPU_SECONDS_PER_INDEX: f64 = 1.0e-7;

/// The cost of building `material` (canonical) by the model in this module's doc, with
/// the sub-tables `tb` holds (of a sub-table not yet built, the costlier stored side is
/// assumed: `probe::Schedule`).
pub fn estimate(material: Material, tb: &Tablebase) -> Estimate {
    let index = TableIndex::new(material);
    let n = index.size();
    let layout = Layout::size_for(&index);
    let parts = index.parts();
    let schedule = schedule_for_building(tb, material);
    let (loading, held) = schedule.bytes();
    let packed = (PACKED_PER_INDEX * n as f64) as u64;
    // With pawns, the distances of the parts searched are held packed until the DTZ layer
    // is written, and read a side at a time.
    let (distances_packed, distances_read) = match parts.len() {
        1 => (0, DISTANCES_PER_INDEX_X4 * n / 4),
        _ => (packed, DISTANCES_PER_INDEX_X4 * n / 8),
    };
    let solving = if parts.len() > 1 {
        // Each part with the solution of the parts up to it and the sub-tables still read.
        let mut solved = 0;
        let promoting = promoting_from(&index, &parts);
        (0..parts.len())
            .map(|k| {
                let p = parts[k].end - parts[k].start;
                solved += p;
                let held = schedule.held_reading(material, promoting[k]);
                // The part's solve, then its search, no larger.
                let pass = (45 * p / 8).max(ZEROING_PER_INDEX_X4 * p / 4);
                held + 3 * solved + 3 * solved / 4 + distances_packed + pass
            })
            .max()
            .unwrap_or(0)
    } else {
        // The solve; then the cells made beside the solution, before it is packed.
        held + (41 * n / 8).max(11 * n / 4 + 2 * n)
    };
    // A batch of segments of a stream at a time (`table::codec::Segments`).
    let gathered = WriteOptions::default().gathered(layout);
    // The DTZ layer, the solution packed; then the other layers (with pawns, the
    // solution's sides are made whole and counted before the DTZ layer is written).
    let dtz_layer = packed + distances_packed + distances_read + 2 * gathered;
    let writing = 13 * n / 8 + packed / 2 + distances_packed + 2 * gathered;
    Estimate {
        peak_bytes: (BASE_BYTES + loading.max(solving).max(dtz_layer).max(writing)) / 20 * 21,
        cpu_seconds: 2.0 * n as f64 * CPU_SECONDS_PER_INDEX
            + schedule.indices() as f64 * LOADING_CPU_SECONDS_PER_INDEX,
    }
}

/// How a table is built.
#[derive(Clone)]
pub struct GenOptions {
    /// Threads solving and compressing.
    pub threads: Threads,
    /// The processes each table is split across (`peers`): every one of them builds
    /// the same tables in step, reading the sub-tables from one shared folder, and the
    /// first writes each table. One process (`Alone`) by default.
    pub peers: Arc<dyn Peers>,
}

impl Default for GenOptions {
    fn default() -> GenOptions {
        GenOptions {
            threads: Threads::default(),
            peers: Arc::new(Alone),
        }
    }
}

impl std::fmt::Debug for GenOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GenOptions")
            .field("threads", &self.threads)
            .field("processes", &self.peers.count())
            .finish()
    }
}

/// Builds the table of `material` (canonical) into `dir`, reading its sub-tables from `tb`,
/// on `opts.threads` threads.
pub fn generate(
    material: Material,
    tb: &Tablebase,
    dir: &Path,
    opts: &GenOptions,
    observer: &dyn Observer,
) -> Result<Report, GenError> {
    opts.threads
        .run(|| generate_in_pool(material, tb, dir, opts.peers.clone(), observer))
}

/// `generate`, in the pool of its threads.
fn generate_in_pool(
    material: Material,
    tb: &Tablebase,
    dir: &Path,
    peers: Arc<dyn Peers>,
    observer: &dyn Observer,
) -> Result<Report, GenError> {
    let material = material.canonical();
    for sub in material.subtables() {
        if tb.table(&sub).is_none() {
            return Err(GenError::MissingSubTable { material, sub });
        }
    }
    let start = Instant::now();
    let mut phases = Phases::start();
    let sent_before = peers.bytes_sent();
    let index = TableIndex::new(material);
    let indices = 2 * index.size();
    let sub_table = |source| GenError::SubTable { material, source };
    let mut loaded = LoadedTables::for_building(tb, material, observer).map_err(sub_table)?;
    // Decoded: the files' pages and the decoders' memory need not count against the
    // solve's and writer's peaks.
    tb.release_pages();
    give_back_free_memory();
    phases.lap("loading");
    // Part by part, each classed under the 50-move rule as soon as it is solved, so that
    // what only the first parts read (promotions) goes before the later parts' memory comes.
    let mut parts = PartByPart::new(
        &ChessGame::new(index.clone(), &loaded),
        Dtm::MAX_PLIES,
        LossSearch::Counters,
    )
    .split_across(peers.clone());
    let mut rule = fifty::Rule::over(parts.held());
    let promoting = promoting_from(&index, parts.parts());
    let last_readers = index.last_readers();
    // The distances to zeroing, laid out as the solution is: a table of one part as its
    // solution (this process's share), one of several parts whole, each part's values held
    // packed (`shares`) until the DTZ layer reads them.
    let mut distances: Option<Solution> = None;
    // (A table of one part places none: its distances are its one share, whole.)
    let mut shares = PackedShares::default();
    // A table of one part: its solution, held packed from its distances' search to the
    // DTZ layer's writing.
    let mut packed: Option<BySide<PackedSide>> = None;
    for k in 0..parts.count() {
        let game = ChessGame::new(index.clone(), &loaded);
        parts.solve_next(&game, observer);
        phases.lap("dtm_solve");
        let part = parts.parts()[k].clone();
        let (found, unsolved) = if parts.count() == 1 {
            // No pawn: the search reads no value of the solution once the cells are made,
            // and the solution is held packed until the DTZ layer is written. Split across
            // processes, each searches its share (`held`).
            let s = parts.solution();
            // Mates within 100 plies are forced within the rule whatever the defence:
            // without a longer value or exit nothing is cursed.
            let beyond = peers.any_of(&[s.reaches_beyond(RULE_PLIES)])[0];
            let exit_wins = |side: Side, idx: u64| bit(&s.exit_same_wdl[side], idx - s.first);
            let exit_wins = (!beyond).then_some(&exit_wins as _);
            let dtm = |side: Side, idx: u64| s.value(side, idx).0;
            let found = PartDtz::from_outcomes(part, parts.held(), &dtm, exit_wins);
            phases.lap("zeroing_solve");
            packed = Some(BySide::new_with(|side| {
                PackedSide::take(parts.solution_mut(), side)
            }));
            give_back_free_memory();
            phases.lap("packing");
            let earlier = |_: Side, _: u64| -> Wdl5 { unreachable!("no pawn, no earlier part") };
            let unsolved = found.solve(&game, &earlier, &*peers, observer);
            (found, unsolved)
        } else {
            // Every process searches the whole part (it holds its values whole).
            let value = |side: Side, idx: u64| {
                let v = parts.solution().value(side, idx).0;
                (v, rule.class_of(side, idx, v.wdl()))
            };
            dtz::solve_part(&game, part, &value, observer)
        };
        if unsolved > 0 {
            return Err(GenError::Unsolved { material, unsolved });
        }
        rule.class_part(&found);
        let share = found.into_share();
        phases.lap("zeroing_solve");
        distances = Some(match (distances.take(), parts.count()) {
            (None, 1) => share,
            (whole, _) => {
                let mut whole = whole.unwrap_or_else(|| Solution::empty_whole(index.size()));
                shares.place(&mut whole, share);
                whole
            }
        });
        if let Some(e) = game.take_error() {
            return Err(sub_table(e));
        }
        drop(game);
        loaded.release_unread(material, promoting[k + 1]);
        // Pawn moves lead one or two steps ahead: the parts further ahead are not read.
        parts.let_go_unread(&last_readers);
        give_back_free_memory();
        phases.lap("releasing");
    }
    // The sub-tables are not read again: their memory goes before the writer's comes.
    drop(loaded);
    let opts = WriteOptions::default();
    // A table of one part writes its DTZ layer while its solution is still packed.
    let mut dtz = None;
    if let Some(packed) = packed.take() {
        observer.pass("compressing and writing", 1);
        dtz = distances
            .take()
            .map(|d| dtz_layer(&index, d, PackedShares::default(), &opts, &*peers));
        give_back_free_memory();
        phases.lap("dtz_layer");
        for (_, p) in packed {
            p.restore(parts.solution_mut());
        }
        phases.lap("packing");
    }
    // A table of several parts (pawns) comes a side at a time, the other packed: both
    // sides whole would be its peak. One part comes whole, below the solver's own peak.
    // Each side is counted while it is whole.
    let mut sides: BySide<SideCount> = BySide::default();
    // Each process counts the indices it holds (`PartByPart::owned`), and the counts of
    // the processes add up.
    let (owned, first) = (parts.owned(), parts.held().start);
    let mut finish = |s: &mut Solution, side: Side| {
        rule.finish_side(s, side);
        let value = |idx: u64| s.value(side, idx).0;
        let (cursed, illegal) = (&s.cursed[side], Some(&s.illegal[side][..]));
        let count = |own: &Range<u64>| {
            count_side_of(&index, side, own.clone(), first, &value, cursed, illegal)
        };
        let mine = owned.iter().map(count).fold(Default::default(), add_counts);
        sides[side] = add_shares(&*peers, mine);
    };
    // A pawn table's sides come a side at a time (`PartByPart::into_sides`), each side's
    // DTM layout tried while its values are whole.
    let mut trials: BySide<Option<(Layout, u64)>> = BySide::default();
    let trial = |s: &mut Solution, side: Side| {
        trials[side] = Some(dtm_trial(&index, s, side, &opts, &*peers));
    };
    let (mut solution, packed) = if parts.count() > 1 {
        let (solution, packed) = parts.into_sides(finish, trial);
        (solution, Some(packed))
    } else {
        let mut solution = parts.into_solution();
        for side in Side::ALL {
            finish(&mut solution, side);
        }
        (solution, None)
    };
    give_back_free_memory();
    phases.lap("counting");
    let stats = combine_stats(sides);
    observer.pass("compressing and writing", 1);
    // The side whose DTM layer is not stored comes down to what its WDL layer reads, the
    // other stays packed.
    let sides = match packed {
        None => Sides::Whole,
        Some(BySide { white, black }) => {
            let tried = trials.map(|t| t.expect("tried"));
            let (dtm, dtm_layout, other) = match dtm_side(tried.as_ref().map(|t| t.1)) {
                Side::White => (white, tried.white.0, black),
                Side::Black => (black, tried.black.0, white),
            };
            let other = wdl_inputs_of(other, &mut solution, &owned);
            give_back_free_memory();
            phases.lap("layouts");
            Sides::Reduced {
                dtm,
                dtm_layout,
                other,
            }
        }
    };
    // Else (pawns) the DTZ layer now, the solution's sides packed: its distances go
    // before the other layers' streams come, so that the two are never held together.
    if let (None, Some(distances)) = (&dtz, distances) {
        dtz = Some(dtz_layer(&index, distances, shares, &opts, &*peers));
        give_back_free_memory();
        phases.lap("dtz_layer");
    }
    let written = write_table_sides(
        dir,
        &material,
        solution,
        sides,
        dtz,
        stats,
        &opts,
        &*peers,
        &mut phases,
    );
    let sent = peers.bytes_sent() - sent_before;
    let done = agree_written(&*peers, material, written, sent, phases.peak())?;
    Ok(Report {
        material,
        indices,
        stats,
        seconds: start.elapsed().as_secs_f64(),
        bytes: done.bytes,
        path: done.path,
        peak_memory: done.peak_memory,
        processes: peers.count(),
        exchanged: done.exchanged,
        phases: phases.times().to_vec(),
    })
}

/// A table written, as every process knows it.
struct Written {
    path: PathBuf,
    bytes: u64,
    /// The highest peak memory of the processes.
    peak_memory: u64,
    /// Bytes the processes sent each other.
    exchanged: u64,
}

/// The file process 0 wrote and its size, once it is written (collective): the others
/// read it from the shared folder when they build the tables that need it.
/// Each process says how many bytes it sent (`sent`) and its peak memory (`peak`),
/// process 0 whether it wrote the table.
fn agree_written(
    peers: &dyn Peers,
    material: Material,
    written: Result<(PathBuf, u64), TableError>,
    sent: u64,
    peak: u64,
) -> Result<Written, GenError> {
    let mut said = Vec::new();
    (sent, peak).put(&mut said);
    match (peers.rank(), &written) {
        (0, Ok(_)) => said.push(0),
        (0, Err(e)) => said.extend([&[1], e.to_string().as_bytes()].concat()),
        _ => {}
    };
    let all = peers.all_gather(said);
    // Each process's (sent, peak), then process 0's word on the file.
    let told: Vec<((u64, u64), &[u8])> = (all.iter())
        .map(|a| {
            let mut said = Reader::new(a);
            (said.take(), said.rest())
        })
        .collect();
    let exchanged = told.iter().map(|((sent, _), _)| sent).sum();
    let peak_memory = told.iter().map(|((_, peak), _)| *peak).max().unwrap_or(0);
    match told[0].1.split_first() {
        Some((0, _)) => {
            let (path, bytes) = written?;
            let bytes = std::fs::metadata(&path).map_or(bytes, |m| m.len());
            Ok(Written {
                path,
                bytes,
                peak_memory,
                exchanged,
            })
        }
        root => match written {
            Err(e) => Err(e.into()),
            Ok(_) => Err(GenError::NotWritten {
                material,
                message: String::from_utf8_lossy(root.map_or(&[][..], |r| r.1)).into(),
            }),
        },
    }
}

/// The counts of every process's share, from this one's (collective).
fn add_shares(peers: &dyn Peers, (stats, longest): SideCount) -> SideCount {
    let (plies, record) = longest.unwrap_or((0, u64::MAX));
    let mine = [
        stats.positions,
        stats.win,
        stats.draw,
        stats.loss,
        stats.cursed_win,
        stats.blessed_loss,
        u64::from(longest.is_some()),
        plies.into(),
        record,
    ];
    let counts = peers.all_gather_words(&mine).into_iter().map(|w| {
        let stats = SideStats {
            positions: w[0],
            win: w[1],
            draw: w[2],
            loss: w[3],
            cursed_win: w[4],
            blessed_loss: w[5],
        };
        (stats, (w[6] == 1).then_some((w[7] as u32, w[8])))
    });
    counts.fold(Default::default(), add_counts)
}

/// For each part k of `parts` and one past the last, whether White and Black can still
/// promote in parts k and after: each part looked at once.
fn promoting_from(index: &TableIndex, parts: &[Range<u64>]) -> Vec<[bool; 2]> {
    let mut out = vec![[false; 2]; parts.len() + 1];
    for (k, part) in parts.iter().enumerate().rev() {
        let (q, after) = (index.promoting(part.clone()), out[k + 1]);
        out[k] = [q[0] || after[0], q[1] || after[1]];
    }
    out
}
