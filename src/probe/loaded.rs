//! Tables decoded whole into memory, for generation and verification: the solver reads
//! sub-tables hundreds of millions of times in no useful order, where probing the files
//! one position at a time would search and decode far too often.
//!
//! A table's file stores distances for one side to move. Decoding it gives that side's
//! distances (the stored numbers, or the conversions where they are better); the other
//! side's come from a one-ply search over them and the sub-tables. Only the sides that are
//! asked for, and what they need, are decoded.

use super::en_passant::with_en_passant;
use super::tablebase::Tablebase;
use crate::chess::{Color, MoveKind, MoveList, Position};
use crate::material::{sort_for_generation, Material};
use crate::retro::SubTables;
use crate::table::values::{code_wdl, dtm_value, wdl_rank, DRAW, OR_CONVERSION};
use crate::table::TableFile;
use crate::value::{Dtm, Wdl};
use rayon::prelude::*;

/// Decoded values (`Dtm::encode`, one byte per index) of some sides of some tables of a
/// `Tablebase`.
pub struct LoadedTables<'a> {
    /// Each loaded table's material and the sides decoded.
    values: Vec<(Material, [Option<Vec<u8>>; 2])>,
    /// For each loaded table and each orientation of its material: the material's key,
    /// the table's place in `values`, the table, and whether positions are colour-flipped
    /// to reach it. A short list that the solver scans hundreds of millions of times,
    /// faster than any hash.
    keys: Vec<(u64, usize, &'a TableFile, bool)>,
}

/// The sides of tables (canonical material, side to move) that `(material, side)` needs
/// decoded first: its own stored side when it is not that side, and where its conversions
/// lead.
fn needs(tb: &Tablebase, material: Material, side: Color) -> Vec<(Material, Color)> {
    let mut out = material.conversions(side);
    if let Some(t) = tb.table(&material) {
        if t.dtm_side() != side.index() {
            out.push((material, Color::from_index(t.dtm_side())));
        }
    }
    out
}

impl<'a> LoadedTables<'a> {
    /// Decodes both sides of the tables of `materials` (canonical) that `tb` has open.
    pub fn load(tb: &'a Tablebase, materials: &[Material]) -> Result<LoadedTables<'a>, String> {
        let wanted: Vec<(Material, Color)> = materials
            .iter()
            .filter(|m| tb.table(m).is_some())
            .flat_map(|&m| Color::ALL.map(|c| (m, c)))
            .collect();
        LoadedTables::load_sides(tb, &wanted)
    }

    /// Decodes what the solver needs to build `material`: the sides its conversions reach.
    pub fn for_building(tb: &'a Tablebase, material: Material) -> Result<LoadedTables<'a>, String> {
        let wanted: Vec<(Material, Color)> = Color::ALL
            .into_iter()
            .flat_map(|c| material.conversions(c))
            .collect();
        LoadedTables::load_sides(tb, &wanted)
    }

    fn load_sides(
        tb: &'a Tablebase,
        wanted: &[(Material, Color)],
    ) -> Result<LoadedTables<'a>, String> {
        // Close over what each side needs, then decode smaller tables first.
        let mut all: Vec<(Material, Color)> = Vec::new();
        let mut stack = wanted.to_vec();
        while let Some(x) = stack.pop() {
            if !all.contains(&x) {
                stack.extend(needs(tb, x.0, x.1));
                all.push(x);
            }
        }
        let mut materials: Vec<Material> = all.iter().map(|x| x.0).collect();
        sort_for_generation(&mut materials);
        materials.dedup();
        let mut loaded = LoadedTables {
            values: Vec::new(),
            keys: Vec::new(),
        };
        for m in materials {
            let table = tb.table(&m).ok_or_else(|| format!("no table for {m}"))?;
            let stored = table.dtm_side();
            let mut sides: [Option<Vec<u8>>; 2] = [None, None];
            sides[stored] = Some(loaded.decode_stored(table)?);
            let at = loaded.values.len();
            loaded.values.push((m, sides));
            loaded.keys.push((m.key(), at, table, false));
            if m.flipped() != m {
                loaded.keys.push((m.flipped().key(), at, table, true));
            }
            let other = 1 - stored;
            if all.contains(&(m, Color::from_index(other))) {
                let v = loaded.search_other(table)?;
                loaded.values[at].1[other] = Some(v);
            }
        }
        Ok(loaded)
    }

    /// The value of every legal position of `table` with `side` to move, by solver index:
    /// draws as the WDL layer says, the others by `value` (given the index and the WDL
    /// code); illegal indices hold 0.
    fn by_position(
        &self,
        table: &TableFile,
        side: usize,
        value: impl Fn(u64, &Position, u8) -> Result<Dtm, String> + Sync,
    ) -> Result<Vec<u8>, String> {
        let codes = table.decode_wdl(side)?;
        let index = table.index();
        let turn = Color::from_index(side);
        (0..index.size())
            .into_par_iter()
            .map(|idx| {
                let code = codes[idx as usize];
                if code == DRAW {
                    return Ok(Dtm::Draw.encode());
                }
                match index.legal(idx, turn) {
                    Some(pos) => value(idx, &pos, code).map(Dtm::encode),
                    None => Ok(0),
                }
            })
            .collect()
    }

    /// The distances of the stored side of `table`: the stored number or the conversions,
    /// whichever is better.
    fn decode_stored(&self, table: &TableFile) -> Result<Vec<u8>, String> {
        let moves = table.decode_dtm()?;
        self.by_position(table, table.dtm_side(), |idx, pos, code| {
            let mut list = MoveList::new();
            pos.conversion_moves(&mut list);
            let mut conv: Option<Dtm> = None;
            for m in list.as_slice() {
                let v = self.value(&pos.play(m))?.back();
                conv = Some(conv.map_or(v, |c| c.max(v)));
            }
            let wdl = match code {
                c if c < OR_CONVERSION => code_wdl(c),
                c => {
                    let floor = code_wdl(c - OR_CONVERSION);
                    match conv {
                        Some(v) if wdl_rank(v.wdl()) > wdl_rank(floor) => v.wdl(),
                        _ => floor,
                    }
                }
            };
            let value = match (wdl, dtm_value(wdl, moves[idx as usize]), conv) {
                (Wdl::Draw, _, _) => Dtm::Draw,
                (_, Some(s), Some(c)) => s.max(c),
                (_, Some(s), None) => s,
                (_, None, Some(c)) => c,
                (_, None, None) => Dtm::Draw,
            };
            if value.wdl() != wdl {
                return Err(format!(
                    "{}: the DTM and WDL layers disagree at {pos} (file corrupted)",
                    table.path().display()
                ));
            }
            Ok(value)
        })
    }

    /// The distances of the side `table` does not store, by a one-ply search where the WDL
    /// layer does not already say draw.
    fn search_other(&self, table: &TableFile) -> Result<Vec<u8>, String> {
        self.by_position(table, 1 - table.dtm_side(), |_, pos, _| self.one_ply(pos))
    }

    /// The best value over the moves of `pos` (no en-passant right), each read from the
    /// loaded values; mate or stalemate without moves.
    pub(crate) fn one_ply(&self, pos: &Position) -> Result<Dtm, String> {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        if list.is_empty() {
            return Ok(Dtm::without_moves(pos.is_check()));
        }
        let mut best = Dtm::Loss(0);
        for m in list.as_slice() {
            let after = pos.play(m);
            let v = if m.kind == MoveKind::DoublePush {
                self.dtm(&after)?
            } else {
                self.value(&after)?
            };
            best = best.max(v.back());
        }
        Ok(best)
    }

    /// The value of any position of these tables, en-passant right included.
    pub fn dtm(&self, pos: &Position) -> Result<Dtm, String> {
        with_en_passant(pos, &|p| self.value(p), Dtm::back, Dtm::Draw)
    }

    /// The decoded values of one loaded table (white to move, black to move), where
    /// decoded.
    pub fn values(&self, material: &Material) -> Option<&[Option<Vec<u8>>; 2]> {
        self.values
            .iter()
            .find(|(m, _)| m == material)
            .map(|(_, v)| v)
    }

    /// Bytes held decoded.
    pub fn bytes(&self) -> usize {
        self.values
            .iter()
            .flat_map(|(_, v)| v)
            .flatten()
            .map(Vec::len)
            .sum()
    }
}

impl SubTables for LoadedTables<'_> {
    #[inline]
    fn value(&self, pos: &Position) -> Result<Dtm, String> {
        let key = Material::from_position(pos).key();
        let Some(&(_, at, table, flip)) = self.keys.iter().find(|k| k.0 == key) else {
            if Material::from_position(pos).is_bare_kings() {
                return Ok(Dtm::Draw);
            }
            return Err(format!("{pos}: no table loaded for it (internal error)"));
        };
        let p = if flip { pos.color_flipped() } else { *pos };
        let side = p.turn().index();
        let idx = table
            .index()
            .encode(&p)
            .ok_or_else(|| format!("{pos}: kings are adjacent"))?;
        match &self.values[at].1[side] {
            Some(v) => Ok(Dtm::decode(v[idx as usize])),
            None => Err(format!(
                "{}: side {side} not decoded (internal error)",
                table.path().display()
            )),
        }
    }
}
