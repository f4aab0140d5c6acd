//! `verify`: an independent one-ply check of a finished table. Every legal position's stored
//! value must equal the best value over its moves, each move's value read back from the
//! tables (the table itself and its sub-tables), with mate and stalemate for positions
//! without moves; the header statistics must equal a recount.

use super::loaded::LoadedTables;
use super::tablebase::Tablebase;
use crate::chess::Color;
use crate::material::Material;
use crate::retro::{compute_stats, Observer};
use rayon::prelude::*;

/// One index in `PROBED` is also read through the probe, as a search reads the WDL layer.
/// Decoding the table has compared that layer with the distances at every index; the probe
/// adds the way from a position to its block, and a block holds many values, so the sample
/// reads most blocks.
const PROBED: u64 = 16;

/// Checks the table of `material` in `tb`; the error names the first wrong position.
pub fn verify_table(
    tb: &Tablebase,
    material: &Material,
    observer: &dyn Observer,
) -> Result<(), String> {
    let table = tb
        .table(material)
        .ok_or_else(|| format!("no table for {material}"))?;
    let index = table.index();
    let n = index.size();
    let loaded = LoadedTables::load(tb, &[*material]).map_err(|e| format!("cannot read: {e}"))?;
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
                    0 => tb.probe_wdl(&pos).map_err(|e| e.to_string()),
                    _ => Ok(stored.wdl()),
                };
                match (loaded.one_ply(&pos), probed) {
                    (Ok(e), Ok(w)) if e == stored && w == e.wdl() => None,
                    (Ok(e), Ok(w)) if e == stored => Some((
                        idx,
                        format!("{pos}: its moves give {e}, but the WDL layer says {w}"),
                    )),
                    (Ok(e), Ok(_)) => Some((
                        idx,
                        format!("{pos}: stored {stored}, but its moves give {e}"),
                    )),
                    (Err(e), _) | (_, Err(e)) => Some((idx, format!("{pos}: {e}"))),
                }
            })
            .min_by_key(|(idx, _)| *idx);
        if let Some((_, msg)) = first_bad {
            return Err(format!("{}: {msg}", table.path().display()));
        }
    }
    let cursed = [0, 1].map(|side| loaded.cursed(material, side).expect("loaded above"));
    let recount = compute_stats(index, [&value(0), &value(1)], cursed, None);
    if recount != table.header().stats {
        return Err(format!(
            "{}: header statistics differ from a recount",
            table.path().display()
        ));
    }
    Ok(())
}
