//! `verify`: an independent one-ply check of a finished table. Every legal position's stored
//! value must equal the best value over its moves, each move's value read back from the
//! tables (the table itself and its sub-tables), with mate and stalemate for positions
//! without moves; the header statistics must equal a recount. A DTZ layer's distances must
//! be those the moves give, on a sample of its positions or on all (`DtzCheck`).

use super::error::ProbeError;
use super::loaded::LoadedTables;
use super::tablebase::Tablebase;
use crate::chess::Position;
use crate::material::Material;
use crate::progress::Observer;
use crate::side::{BySide, Side};
use crate::table::{compute_stats, TableFile};
use crate::threads::Threads;
use crate::value::{Dtm, Dtz, Wdl};
use rayon::prelude::*;
use std::path::PathBuf;

/// Why a table failed its check.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// No table of this material is open.
    #[error("no table for {0}")]
    Missing(Material),
    /// The table or a sub-table could not be read whole.
    #[error("cannot read: {0}")]
    Unreadable(ProbeError),
    /// A position's stored value is not what its moves give (the first such position).
    #[error("{}: {fen}: {fault}", path.display())]
    Wrong {
        /// The table.
        path: PathBuf,
        /// The position, as FEN.
        fen: String,
        /// How it is wrong.
        fault: Mismatch,
    },
    /// The header's statistics are not those of the values stored.
    #[error("{}: header statistics differ from a recount", path.display())]
    Statistics {
        /// The table.
        path: PathBuf,
    },
}

/// How a position's stored value differs from what its moves give.
#[derive(Debug, thiserror::Error)]
pub enum Mismatch {
    /// The distance is right, the WDL layer is not.
    #[error("its moves give {moves}, but the WDL layer says {wdl}")]
    WdlLayer {
        /// The value the moves give.
        moves: Dtm,
        /// What the WDL layer says.
        wdl: Wdl,
    },
    /// The distance stored is wrong.
    #[error("stored {stored}, but its moves give {moves}")]
    Stored {
        /// The value stored.
        stored: Dtm,
        /// The value the moves give.
        moves: Dtm,
    },
    /// The distance to zeroing the DTZ layer gives is not what the moves give.
    #[error("the DTZ layer gives {stored} plies, but its moves give {moves}")]
    Dtz {
        /// What the DTZ layer (with the position's resets and mates) gives.
        stored: Dtz,
        /// What the position's moves give.
        moves: Dtz,
    },
    /// A probe of the position or of one of its moves failed.
    #[error("{0}")]
    Probe(ProbeError),
}

/// One index in `PROBED` is also read through the probe, as a search reads the WDL layer.
/// Decoding the table has compared that layer with the distances at every index; the probe
/// adds the way from a position to its block, and a block holds many values, so the sample
/// reads most blocks.
const PROBED: u64 = 16;

/// Which positions of a DTZ layer `verify` checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DtzCheck {
    /// One position in 256, spread over the whole index: each is checked two plies deep
    /// (the side not stored is searched), so the check of every position makes `verify`
    /// about four times as long on the 3-4-piece tables.
    Sample,
    /// Every position of the side stored.
    Every,
}

impl DtzCheck {
    /// Whether the position at `idx` is checked.
    fn checks(self, idx: u64) -> bool {
        // The top byte of a multiplicative hash: neighbours in the index (one piece a
        // square apart) do not fall in the sample together.
        self == DtzCheck::Every || idx.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56 == 0
    }
}

/// Checks the table of `material` in `tb` on `threads` threads, its DTZ layer's positions
/// as `dtz` says; the error names the first wrong position. The DTZ layer is held decoded
/// while it is checked (`Tablebase::hold_dtz`), and released after.
pub fn verify_table(
    tb: &mut Tablebase,
    material: &Material,
    threads: Threads,
    dtz: DtzCheck,
    observer: &dyn Observer,
) -> Result<(), VerifyError> {
    let shared: &Tablebase = tb;
    threads.run(|| verify_values(shared, material, observer))?;
    let Some(side) = shared.table(material).and_then(TableFile::dtz_side) else {
        return Ok(());
    };
    tb.hold_dtz(material).map_err(VerifyError::Unreadable)?;
    let shared: &Tablebase = tb;
    let table = shared.table(material).expect("verified above");
    let verdict = threads.run(|| verify_dtz(shared, table, side, dtz, observer));
    tb.release_dtz(material);
    verdict
}

/// The steps `verify_table` tells its observer of for `table`: a pass over the index per
/// side to move, and one more over a DTZ layer's side.
pub fn verify_work(table: &TableFile) -> u64 {
    (2 + u64::from(table.dtz_side().is_some())) * table.index().size()
}

/// `verify_table`'s one-ply check of every position's value and its recount of the
/// header's statistics, in the pool of its threads.
fn verify_values(
    tb: &Tablebase,
    material: &Material,
    observer: &dyn Observer,
) -> Result<(), VerifyError> {
    let table = tb.table(material).ok_or(VerifyError::Missing(*material))?;
    let index = table.index();
    let loaded = LoadedTables::load(tb, &[*material]).map_err(VerifyError::Unreadable)?;
    observer.pass(&format!("verify {material}"), verify_work(table));
    let value = |side: Side| {
        let loaded = &loaded;
        move |idx: u64| {
            loaded
                .dtm_at(material, side, idx)
                .expect("both sides loaded")
        }
    };
    for side in Side::ALL {
        let stored_value = value(side);
        first_wrong(
            table,
            side,
            observer,
            |_| true,
            |idx, pos| {
                let stored = stored_value(idx);
                let probed = match idx % PROBED {
                    0 => tb.probe_wdl(pos),
                    _ => Ok(stored.wdl()),
                };
                Some(match (loaded.one_ply(pos), probed) {
                    (Ok(e), Ok(w)) if e == stored && w == e.wdl() => return None,
                    (Ok(moves), Ok(wdl)) if moves == stored => Mismatch::WdlLayer { moves, wdl },
                    (Ok(moves), Ok(_)) => Mismatch::Stored { stored, moves },
                    (Err(e), _) | (_, Err(e)) => Mismatch::Probe(e),
                })
            },
        )?;
    }
    let cursed = BySide::new_with(|side| loaded.cursed(material, side).expect("loaded above"));
    let (white, black) = (value(Side::White), value(Side::Black));
    let recount = compute_stats(
        index,
        BySide::from([&white as _, &black as _]),
        cursed,
        None,
    );
    if recount != table.header().stats {
        return Err(VerifyError::Statistics {
            path: table.path().to_path_buf(),
        });
    }
    Ok(())
}

/// Checks the DTZ layer of `table`, which stores `side`: each position of that side that
/// `dtz` checks must have the distance its moves give. The other side is not stored but
/// searched over this one, so each position is checked two plies deep.
fn verify_dtz(
    tb: &Tablebase,
    table: &TableFile,
    side: Side,
    dtz: DtzCheck,
    observer: &dyn Observer,
) -> Result<(), VerifyError> {
    let checks = |idx| dtz.checks(idx);
    first_wrong(table, side, observer, checks, |_, pos| {
        match tb.zeroing_both_ways(pos) {
            Ok(Some((stored, moves))) if stored != moves => Some(Mismatch::Dtz { stored, moves }),
            Ok(_) => None,
            Err(e) => Some(Mismatch::Probe(e)),
        }
    })
}

/// One pass over `table`'s index for `turn` to move, in parallel, progress told to
/// `observer`: `fault` says what is wrong with each legal position of an index `picks`
/// takes (the others are not decoded); the error names the first wrong one in the index's
/// order.
fn first_wrong(
    table: &TableFile,
    turn: Side,
    observer: &dyn Observer,
    picks: impl Fn(u64) -> bool + Sync,
    fault: impl Fn(u64, &Position) -> Option<Mismatch> + Sync,
) -> Result<(), VerifyError> {
    const CHUNK: u64 = 1 << 12;
    let index = table.index();
    let n = index.size();
    let first_bad = (0..n as usize)
        .into_par_iter()
        .with_min_len(CHUNK as usize)
        .filter_map(|idx| {
            let idx = idx as u64;
            if idx % CHUNK == 0 {
                observer.advance(CHUNK.min(n - idx));
            }
            if !picks(idx) {
                return None;
            }
            let pos = index.legal(idx, turn)?;
            fault(idx, &pos).map(|fault| (idx, pos, fault))
        })
        .min_by_key(|(idx, _, _)| *idx);
    match first_bad {
        Some((_, pos, fault)) => Err(VerifyError::Wrong {
            path: table.path().to_path_buf(),
            fen: pos.to_string(),
            fault,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Session;
    use crate::peers::Alone;
    use crate::probe::{Chess, LoadedTables};
    use crate::progress::Silent;
    use crate::retro::dtz::as_distance;
    use crate::retro::Solution;
    use crate::table::{dtz_layer, write_table_sides, Sides, WriteOptions};
    use crate::value::Wdl5;

    /// Rewrites `material`'s table in `dir` with the distances to zeroing `dtz` gives
    /// (exact everywhere: nothing left to a reset); the side its DTZ layer stores.
    fn rewrite_dtz(dir: &std::path::Path, m: Material, dtz: &[Vec<Dtz>; 2]) -> Side {
        let tb: Tablebase = Tablebase::open(dir).unwrap();
        let table = tb.table(&m).unwrap();
        let (index, stats) = (table.index().clone(), table.header().stats);
        let loaded = LoadedTables::load(&tb, &[m]).unwrap();
        let values = BySide::new_with(|s| loaded.values(&m, s).unwrap().to_vec());
        drop(loaded);
        drop(tb);
        let n = index.size();
        let words = n.div_ceil(64) as usize;
        let illegal = BySide::new_with(|turn| {
            let mut bits = vec![0u64; words];
            for i in (0..n).filter(|&i| index.legal(i, turn).is_none()) {
                bits[(i / 64) as usize] |= 1 << (i % 64);
            }
            bits
        });
        let encoded = dtz.clone().map(|side| {
            side.iter()
                .map(|d| {
                    let class = if d.0 > 0 { Wdl5::Win } else { Wdl5::Loss };
                    as_distance(d.0.unsigned_abs(), class).encode()
                })
                .collect()
        });
        let mut distances = Solution::from_parts(encoded.into(), Default::default());
        distances.exit_decides = BySide::new_with(|_| vec![0; words]);
        let opts = WriteOptions::default();
        let solution = Solution::from_parts(values, illegal);
        let dtz = dtz_layer(&index, distances, Default::default(), &opts, &Alone);
        write_table_sides(
            dir,
            &m,
            solution,
            Sides::Whole,
            Some(dtz),
            stats,
            &opts,
            &Alone,
            &mut crate::phases::Phases::unread(),
        )
        .unwrap();
        Tablebase::<Chess>::open(dir)
            .unwrap()
            .table(&m)
            .unwrap()
            .dtz_side()
            .unwrap()
    }

    /// `m` and its sub-tables built into `dir`.
    fn built(dir: &std::path::Path, m: Material) -> Tablebase {
        Session::open(dir, &[m])
            .build_all(&Default::default(), &Silent)
            .unwrap()
    }

    /// The DTZ layer held decoded (`Tablebase::hold_dtz`) answers every position as its
    /// blocks do, and so does the layer once released.
    #[test]
    fn a_held_dtz_layer_reads_as_its_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let m: Material = "KPvK".parse().unwrap();
        let mut tb = built(dir.path(), m);
        let index = tb.table(&m).unwrap().index().clone();
        let side = tb.table(&m).unwrap().dtz_side().unwrap();
        let stored = |tb: &Tablebase| -> Vec<u16> {
            let table = tb.table(&m).unwrap();
            (0..index.size())
                .filter_map(|i| index.legal(i, side))
                .map(|p| {
                    table
                        .dtz_moves(&index.digits(&p).unwrap())
                        .unwrap()
                        .unwrap()
                })
                .collect()
        };
        let read = stored(&tb);
        assert!(read.iter().filter(|&&v| v > 1).count() > 10_000);
        tb.hold_dtz(&m).unwrap();
        assert!(stored(&tb) == read, "held");
        tb.release_dtz(&m);
        assert!(stored(&tb) == read, "released");
    }

    /// A distance to zeroing one ply short of the truth, written with valid checksums, is
    /// found by the check of every position and named; the table as built passes.
    #[test]
    fn verify_names_the_position_of_a_wrong_distance_to_zeroing() {
        let dir = tempfile::tempdir().unwrap();
        let m: Material = "KRvK".parse().unwrap();
        let mut tb = built(dir.path(), m);
        verify_table(&mut tb, &m, Threads::new(1), DtzCheck::Every, &Silent).unwrap();
        let index = tb.table(&m).unwrap().index().clone();
        let dtz = [0, 1].map(|side| {
            (0..index.size())
                .map(|i| match index.legal(i, Side::from_index(side)) {
                    Some(pos) => tb.probe_dtz(&pos).unwrap(),
                    None => Dtz(0),
                })
                .collect::<Vec<_>>()
        });
        drop(tb);
        let side = rewrite_dtz(dir.path(), m, &dtz);
        // Rewritten exactly, the table still passes.
        let mut tb = Tablebase::open(dir.path()).unwrap();
        verify_table(&mut tb, &m, Threads::new(1), DtzCheck::Every, &Silent).unwrap();
        drop(tb);
        let mut wrong = dtz.clone();
        // A win a ply nearer, or a loss a ply nearer: nothing the position's resets give
        // covers either.
        let s = side.index();
        let idx = (wrong[s].iter()).position(|d| d.0.abs() >= 3).unwrap();
        let short = Dtz(dtz[s][idx].0 - dtz[s][idx].0.signum());
        wrong[s][idx] = short;
        assert_eq!(rewrite_dtz(dir.path(), m, &wrong), side);
        let mut tb = Tablebase::open(dir.path()).unwrap();
        let pos = index.legal(idx as u64, side).unwrap();
        let stored = dtz[s][idx];
        assert_eq!(tb.probe_dtz(&pos).unwrap(), short, "{pos}");
        let err = verify_table(&mut tb, &m, Threads::new(1), DtzCheck::Every, &Silent).unwrap_err();
        let expected = format!(
            "{}: {pos}: the DTZ layer gives {short} plies, but its moves give {stored}",
            tb.table(&m).unwrap().path().display(),
        );
        assert_eq!(err.to_string(), expected);
    }
}
