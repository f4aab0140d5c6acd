//! `verify`: an independent one-ply check of a finished table. Every legal position's stored
//! value must equal the best value over its moves, each move's value read back from the
//! tables (the table itself and its sub-tables), with mate and stalemate for positions
//! without moves; the header statistics must equal a recount.

use super::error::ProbeError;
use super::loaded::LoadedTables;
use super::tablebase::Tablebase;
use crate::chess::Color;
use crate::material::Material;
use crate::progress::Observer;
use crate::table::compute_stats;
use crate::threads::Threads;
use crate::value::{Dtm, Wdl};
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
    /// A probe of the position or of one of its moves failed.
    #[error("{0}")]
    Probe(ProbeError),
}

/// One index in `PROBED` is also read through the probe, as a search reads the WDL layer.
/// Decoding the table has compared that layer with the distances at every index; the probe
/// adds the way from a position to its block, and a block holds many values, so the sample
/// reads most blocks.
const PROBED: u64 = 16;

/// Checks the table of `material` in `tb` on `threads` threads; the error names the first
/// wrong position.
pub fn verify_table(
    tb: &Tablebase,
    material: &Material,
    threads: Threads,
    observer: &dyn Observer,
) -> Result<(), VerifyError> {
    threads.run(|| verify_in_pool(tb, material, observer))
}

/// `verify_table`, in the pool of its threads.
fn verify_in_pool(
    tb: &Tablebase,
    material: &Material,
    observer: &dyn Observer,
) -> Result<(), VerifyError> {
    let table = tb.table(material).ok_or(VerifyError::Missing(*material))?;
    let index = table.index();
    let n = index.size();
    let loaded = LoadedTables::load(tb, &[*material]).map_err(VerifyError::Unreadable)?;
    observer.pass(&format!("verify {material}"), 2 * n);
    let value = |side: usize| {
        let loaded = &loaded;
        move |idx: u64| {
            loaded
                .dtm_at(material, side, idx)
                .expect("both sides loaded")
        }
    };
    for side in 0..2 {
        let stored_value = value(side);
        let turn = Color::from_index(side);
        let first_bad = (0..n as usize)
            .into_par_iter()
            .with_min_len(1 << 12)
            .filter_map(|idx| {
                let idx = idx as u64;
                if idx % (1 << 12) == 0 {
                    observer.advance((1u64 << 12).min(n - idx));
                }
                let pos = index.legal(idx, turn)?;
                let stored = stored_value(idx);
                let probed = match idx % PROBED {
                    0 => tb.probe_wdl(&pos),
                    _ => Ok(stored.wdl()),
                };
                let fault = match (loaded.one_ply(&pos), probed) {
                    (Ok(e), Ok(w)) if e == stored && w == e.wdl() => return None,
                    (Ok(moves), Ok(wdl)) if moves == stored => Mismatch::WdlLayer { moves, wdl },
                    (Ok(moves), Ok(_)) => Mismatch::Stored { stored, moves },
                    (Err(e), _) | (_, Err(e)) => Mismatch::Probe(e),
                };
                Some((idx, pos, fault))
            })
            .min_by_key(|(idx, _, _)| *idx);
        if let Some((_, pos, fault)) = first_bad {
            return Err(VerifyError::Wrong {
                path: table.path().to_path_buf(),
                fen: pos.to_string(),
                fault,
            });
        }
    }
    let cursed = [0, 1].map(|side| loaded.cursed(material, side).expect("loaded above"));
    let recount = compute_stats(index, [&value(0), &value(1)], cursed, None);
    if recount != table.header().stats {
        return Err(VerifyError::Statistics {
            path: table.path().to_path_buf(),
        });
    }
    Ok(())
}
