//! `Tablebase`: the tables of one or more folders, probed by position.
//!
//! A WDL probe reads one code from the position's WDL stream; only a code marked "or better
//! through a conversion" makes it look at the position's captures and promotions (their
//! values read from the sub-tables the same way). A DTM probe of the side a table stores
//! reads one number from the DTM stream and takes the better of it and the conversions;
//! a DTM probe of the other side searches one ply, reading the distances of the moves that
//! keep the position's WDL value.

use super::bounds::Open;
use super::cache::{CacheTooLarge, DtmCache, DEFAULT_CACHE_BYTES};
use super::en_passant::with_en_passant;
use super::error::ProbeError;
use super::game::{Chess, TableGame};
use crate::chess::{Move, MoveList, Position};
use crate::index::Digits;
use crate::keyed::KeyedMap;
use crate::material::{Material, MAX_PIECES};
use crate::side::Side;
use crate::table::values::{code_wdl, dtm_value, wdl_rank, DRAW, OR_CONVERSION, WIN};
use crate::table::{FileFault, TableError};
use crate::value::{Dtm, Wdl, Wdl5};
use std::path::Path;
use std::sync::OnceLock;

pub(super) struct Entry<G: TableGame> {
    pub(super) file: G::File,
    /// Number of the table in the DTM cache's keys.
    pub(super) id: u32,
    /// Whether a reset from this table can reach a cursed win or blessed loss (in it, in a
    /// table one capture or promotion away, or in one missing): found at its first DTZ
    /// probe that asks, forgotten when a table is added.
    pub(super) spoilt_near: OnceLock<bool>,
}

/// A set of open tables of one game (`TableGame`: `Chess` unless said), keyed by what names
/// them, with a bounded cache of DTM answers shared by all of them. `Send + Sync`: share one
/// across search threads.
pub struct Tablebase<G: TableGame = Chess> {
    tables: KeyedMap<u64, Entry<G>>,
    next_id: u32,
    pub(super) cache: DtmCache,
}

impl<G: TableGame> Default for Tablebase<G> {
    fn default() -> Self {
        Tablebase::with_cache_bytes(DEFAULT_CACHE_BYTES)
            .expect("a machine has the default cache's 64 MiB")
    }
}

/// A position found in a table: the table, the side to move there and the index digits.
pub(super) struct Located<'a> {
    pub(super) entry: &'a Entry<Chess>,
    pub(super) side: Side,
    pub(super) digits: Digits,
}

/// One legal move of a root position with the root's value through it, for the side
/// playing it (`root_` names them apart from a position's own).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RootMove {
    /// The move.
    pub mv: Move,
    /// Win, draw or loss for the side playing it.
    pub root_wdl: Wdl,
    /// Distance to mate for the side playing it, counted from the root.
    pub root_dtm: Dtm,
}

impl<G: TableGame> Tablebase<G> {
    /// No tables, and a DTM cache of the default budget (64 MiB).
    pub fn new() -> Tablebase<G> {
        Tablebase::default()
    }

    /// No tables, and a cache of DTM answers of about `bytes` bytes (8 bytes an answer),
    /// taken from the system as it fills; more than the machine's memory is refused.
    pub fn with_cache_bytes(bytes: usize) -> Result<Tablebase<G>, CacheTooLarge> {
        Ok(Tablebase {
            tables: KeyedMap::default(),
            next_id: 0,
            cache: DtmCache::new(bytes)?,
        })
    }

    /// Empties the cache of DTM answers (for measurements of cold probes).
    pub fn clear_cache(&self) {
        self.cache.clear();
    }

    /// Opens every table file of the game in `dir`.
    ///
    /// ```no_run
    /// use retrobook::probe::{Chess, Tablebase};
    /// let tb = Tablebase::<Chess>::open("tables").unwrap();
    /// let pos = "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1".parse().unwrap();
    /// println!("{:?}", tb.probe_dtm(&pos));
    /// ```
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase<G>, TableError> {
        let mut tb = Tablebase::new();
        tb.add_dir(dir.as_ref())?;
        Ok(tb)
    }

    /// Opens every table file of the game in several folders (a later folder's table of
    /// the same name replaces an earlier one).
    pub fn open_all<P: AsRef<Path>>(dirs: &[P]) -> Result<Tablebase<G>, TableError> {
        let mut tb = Tablebase::new();
        for d in dirs {
            tb.add_dir(d.as_ref())?;
        }
        Ok(tb)
    }

    /// Adds every table file of the game found in `dir`.
    pub fn add_dir(&mut self, dir: &Path) -> Result<(), TableError> {
        match self.add_dir_lenient(dir)?.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Adds the table files of `dir` that open cleanly and returns one error line for each
    /// that does not (so that a builder can rebuild them). A missing folder is an error.
    pub(crate) fn add_dir_lenient(&mut self, dir: &Path) -> Result<Vec<TableError>, TableError> {
        let entries = std::fs::read_dir(dir).map_err(|source| TableError::Folder {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| x == G::EXTENSION)
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        paths.sort();
        Ok(paths
            .iter()
            .filter_map(|p| self.add_file(p).err())
            .collect())
    }

    /// Opens one table file and adds it. A file whose name is a table's name must hold
    /// that table (in either colour orientation); other names are taken as they are.
    pub fn add_file(&mut self, path: &Path) -> Result<(), TableError> {
        let file = G::open(path)?;
        let holds = G::holds(&file);
        let named = path
            .file_stem()
            .and_then(|s| s.to_str()?.parse::<G::Key>().ok());
        if let Some(named) = named.filter(|&n| G::canonical(n) != holds) {
            return Err(TableError::Refused {
                path: path.to_path_buf(),
                fault: FileFault::Misnamed {
                    holds: holds.to_string(),
                    named: named.to_string(),
                },
            });
        }
        let id = self.next_id;
        self.next_id += 1;
        // A new table may be the one a reset from another reaches.
        for e in self.tables.values_mut() {
            e.spoilt_near.take();
        }
        let spoilt_near = OnceLock::new();
        self.tables.insert(
            G::number(holds),
            Entry {
                file,
                id,
                spoilt_near,
            },
        );
        Ok(())
    }

    /// The open table of `key` (canonical orientation), if any.
    pub fn table(&self, key: &G::Key) -> Option<&G::File> {
        self.entry(*key).ok().map(|e| &e.file)
    }

    /// The open table of `key` (canonical orientation), or the error of a probe that needs
    /// it.
    pub(super) fn needed(&self, key: G::Key) -> Result<&G::File, ProbeError> {
        self.entry(key).map(|e| &e.file)
    }

    /// The entry of `key`'s table (canonical orientation), or the error of a probe that
    /// needs it.
    #[inline]
    fn entry(&self, key: G::Key) -> Result<&Entry<G>, ProbeError> {
        self.tables
            .get(&G::number(key))
            .ok_or_else(|| G::missing(key))
    }

    /// `entry`, to change.
    fn entry_mut(&mut self, key: G::Key) -> Result<&mut Entry<G>, ProbeError> {
        self.tables
            .get_mut(&G::number(key))
            .ok_or_else(|| G::missing(key))
    }

    /// The names of all open tables.
    pub fn keys(&self) -> impl Iterator<Item = G::Key> + '_ {
        self.tables.values().map(|e| G::holds(&e.file))
    }
}

impl Tablebase {
    /// Holds the DTZ layer of `material`'s table (canonical orientation) decoded in memory
    /// (`TableFile::hold_dtz`) until `release_dtz`: for many DTZ probes of one table, as
    /// `verify` makes.
    pub fn hold_dtz(&mut self, material: &Material) -> Result<(), ProbeError> {
        Ok(self.entry_mut(*material)?.file.hold_dtz()?)
    }

    /// Frees what `hold_dtz` decoded for `material`'s table.
    pub fn release_dtz(&mut self, material: &Material) {
        if let Ok(entry) = self.entry_mut(*material) {
            entry.file.release_dtz();
        }
    }

    /// Takes every open table's pages out of resident memory (`TableFile::release_pages`).
    pub fn release_pages(&self) {
        self.tables.values().for_each(|e| e.file.release_pages());
    }

    /// Materials of all open tables.
    pub fn materials(&self) -> impl Iterator<Item = Material> + '_ {
        self.keys()
    }

    /// Largest piece count (kings included) of any open table; 0 when none is open.
    pub fn max_pieces(&self) -> u32 {
        self.materials().map(|m| m.pieces()).max().unwrap_or(0)
    }

    fn find(&self, pos: &Position) -> Result<Option<(&Entry<Chess>, Position)>, ProbeError> {
        let material = Material::from_position(pos);
        if material.is_bare_kings() {
            return Ok(None);
        }
        let (pos, material) = if material.is_canonical() {
            (*pos, material)
        } else {
            (pos.color_flipped(), material.flipped())
        };
        Ok(Some((self.entry(material)?, pos)))
    }

    #[inline]
    pub(super) fn locate(&self, pos: &Position) -> Result<Option<Located<'_>>, ProbeError> {
        let Some((entry, pos)) = self.find(pos)? else {
            return Ok(None);
        };
        let digits = entry
            .file
            .index()
            .digits(&pos)
            .ok_or(ProbeError::IllegalPosition("kings are adjacent"))?;
        Ok(Some(Located {
            entry,
            side: pos.turn(),
            digits,
        }))
    }

    /// The WDL code (0 loss .. 4 win) of a position without en-passant right.
    #[inline]
    fn code(&self, pos: &Position) -> Result<u8, ProbeError> {
        match self.locate(pos)? {
            None => Ok(DRAW),
            Some(l) => self.code_at(pos, &l),
        }
    }

    #[inline]
    pub(super) fn code_at(&self, pos: &Position, l: &Located) -> Result<u8, ProbeError> {
        let c = l.entry.file.wdl_code(l.side, &l.digits)?;
        if c < OR_CONVERSION {
            return Ok(c);
        }
        // The stored code is a floor; the conversions may do better.
        let mut best = c - OR_CONVERSION;
        let mut list = MoveList::new();
        pos.conversion_moves(&mut list);
        for m in list.as_slice() {
            if best == WIN {
                break;
            }
            best = best.max(WIN - self.code(&pos.play(m))?);
        }
        Ok(best)
    }

    /// The WDL code of any legal position (an en-passant right is looked at by playing
    /// the en-passant captures).
    pub(super) fn code_any(&self, pos: &Position) -> Result<u8, ProbeError> {
        with_en_passant(pos, &|p| self.code(p), |c| WIN - c, DRAW)
    }

    pub(super) fn check(&self, pos: &Position) -> Result<(), ProbeError> {
        if !pos.castling().is_empty() {
            return Err(ProbeError::Castling);
        }
        pos.validate().map_err(ProbeError::IllegalPosition)?;
        let pieces = pos.occupied().count();
        if pieces > MAX_PIECES {
            return Err(ProbeError::TooManyPieces {
                material: Material::from_position(pos),
            });
        }
        Ok(())
    }

    /// Win, draw or loss of `pos` for its side to move. Reads the WDL layer only: no
    /// allocation, no lock, and no move generation unless the stored code says to look at
    /// the conversions (or the position has an en-passant right).
    #[inline]
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        self.check(pos)?;
        self.code_any(pos).map(code_wdl)
    }

    /// Win, draw or loss of `pos` under the 50-move rule, the move count at zero (Syzygy's
    /// five values: a cursed win or blessed loss is drawn by the rule). Costs what
    /// `probe_wdl` costs.
    #[inline]
    pub fn probe_wdl5(&self, pos: &Position) -> Result<Wdl5, ProbeError> {
        self.check(pos)?;
        self.code_any(pos).map(Wdl5::from_code)
    }

    /// Distance to mate of `pos` for its side to move. A position with an en-passant right
    /// is answered by looking one ply ahead, since tables do not index that right.
    pub fn probe_dtm(&self, pos: &Position) -> Result<Dtm, ProbeError> {
        self.check(pos)?;
        self.dtm_any(pos)
    }

    pub(super) fn dtm_any(&self, pos: &Position) -> Result<Dtm, ProbeError> {
        with_en_passant(pos, &|p| self.dtm(p), Dtm::back, Dtm::Draw)
    }

    /// Distance to mate of a position without en-passant right.
    fn dtm(&self, pos: &Position) -> Result<Dtm, ProbeError> {
        match self.locate(pos)? {
            None => Ok(Dtm::Draw),
            Some(l) => self.dtm_located(pos, &l, None),
        }
    }

    /// The same for a position located as `l`, of value `wdl` where known.
    pub(super) fn dtm_located(
        &self,
        pos: &Position,
        l: &Located,
        wdl: Option<Wdl>,
    ) -> Result<Dtm, ProbeError> {
        let key = self.cache_keys(l).1;
        if let Some(v) = self.cached_dtm(key) {
            return Ok(v);
        }
        let wdl = self.wdl_of(pos, l, wdl)?;
        let value = if wdl == Wdl::Draw {
            Dtm::Draw
        } else if l.side == l.entry.file.dtm_side() {
            self.stored_dtm(pos, l, wdl)?
        } else {
            self.searched_dtm(pos, wdl)?
        };
        self.remember_dtm(key, value);
        Ok(value)
    }

    /// `wdl`, or where not known the value of `pos` (located as `l`) read from its code.
    #[inline]
    pub(super) fn wdl_of(
        &self,
        pos: &Position,
        l: &Located,
        wdl: Option<Wdl>,
    ) -> Result<Wdl, ProbeError> {
        match wdl {
            Some(w) => Ok(w),
            None => self.code_at(pos, l).map(code_wdl),
        }
    }

    /// The cache's keys of the distance to zeroing and the distance to mate of the
    /// position located as `l` (None where the cache cannot hold it).
    #[inline]
    pub(super) fn cache_keys(&self, l: &Located) -> (Option<u64>, Option<u64>) {
        let idx = l.entry.file.index().index_of(&l.digits);
        (
            DtmCache::dtz_key(l.entry.id, l.side, idx),
            DtmCache::key(l.entry.id, l.side, idx),
        )
    }

    /// The cached distance to mate under `key`.
    pub(super) fn cached_dtm(&self, key: Option<u64>) -> Option<Dtm> {
        key.and_then(|k| self.cache.get(k))
    }

    /// Remembers a distance to mate under `key`.
    pub(super) fn remember_dtm(&self, key: Option<u64>, value: Dtm) {
        if let Some(k) = key {
            self.cache.put(k, value);
        }
    }

    /// The distance of a position of the side the DTM layer stores: the better of the
    /// stored number and the conversions.
    fn stored_dtm(&self, pos: &Position, l: &Located, wdl: Wdl) -> Result<Dtm, ProbeError> {
        let moves = l.entry.file.dtm_moves(&l.digits)?;
        self.stored_dtm_from(pos, l, wdl, moves)
    }

    /// The same, the stored number already read as `moves`.
    pub(super) fn stored_dtm_from(
        &self,
        pos: &Position,
        l: &Located,
        wdl: Wdl,
        moves: u16,
    ) -> Result<Dtm, ProbeError> {
        let file = &l.entry.file;
        let mut best = dtm_value(wdl, moves);
        let mut list = MoveList::new();
        pos.conversion_moves(&mut list);
        for m in list.as_slice() {
            let v = self.dtm(&pos.play(m))?.back();
            best = Some(best.map_or(v, |b| b.max(v)));
        }
        match best {
            Some(v) if v.wdl() == wdl => Ok(v),
            _ => Err(super::error::disagree(file.path(), pos)),
        }
    }

    /// The distance of a position of the side the DTM layer does not store: the best
    /// move's, found among the moves that keep the position's WDL value.
    fn searched_dtm(&self, pos: &Position, wdl: Wdl) -> Result<Dtm, ProbeError> {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        if list.is_empty() {
            return Ok(Dtm::without_moves(pos.is_check()));
        }
        let mut best: Option<Dtm> = None;
        let mut open = Open::new();
        for (at, m) in list.as_slice().iter().enumerate() {
            let after = pos.play(m);
            if m.is_zeroing() {
                // Moves that do not keep the value cannot be the best.
                let keeps = |there: Wdl| wdl == Wdl::Loss || there == Wdl::Loss;
                if let Some((_, v)) = self.reset_pair(&after, keeps)? {
                    best = best.max(Some(v.back()));
                }
                continue;
            }
            // A quiet move leaves no en-passant right and keeps the material.
            let Some(l) = self.locate(&after)? else {
                continue;
            };
            // Every move of a lost position leads to a win for the other side: the code
            // need not be read. A won position keeps only the moves into losses.
            let there = match wdl {
                Wdl::Loss => Wdl::Win,
                _ => code_wdl(self.code_at(&after, &l)?),
            };
            if wdl == Wdl::Win && there != Wdl::Loss {
                continue;
            }
            // A stored number bounds the distance (`bounded`).
            if l.side == l.entry.file.dtm_side() {
                open.push(self.bounded(at, (&after, &l), there, false, true)?);
                continue;
            }
            best = best.max(Some(self.dtm_located(&after, &l, Some(there))?.back()));
        }
        match self.farthest_dtm((pos, &list), best, &open)? {
            Some(v) if v.wdl() == wdl => Ok(v),
            _ => Err(ProbeError::Inconsistent {
                fen: pos.to_string(),
            }),
        }
    }

    /// `probe_dtm` of a position given as FEN (six fields or four-field EPD).
    pub fn probe_dtm_fen(&self, fen: &str) -> Result<Dtm, ProbeError> {
        self.probe_dtm(&parse_fen(fen)?)
    }

    /// `probe_wdl` of a position given as FEN.
    pub fn probe_wdl_fen(&self, fen: &str) -> Result<Wdl, ProbeError> {
        self.probe_wdl(&parse_fen(fen)?)
    }

    /// `best_moves` of a position given as FEN.
    pub fn best_moves_fen(&self, fen: &str) -> Result<Vec<(Move, Dtm)>, ProbeError> {
        self.best_moves(&parse_fen(fen)?)
    }

    /// Every legal move with the value of the position it leads to (for the side to move
    /// there), best move first.
    pub fn best_moves(&self, pos: &Position) -> Result<Vec<(Move, Dtm)>, ProbeError> {
        self.check(pos)?;
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut out = Vec::with_capacity(list.len());
        for m in list.as_slice() {
            out.push((*m, self.dtm_any(&pos.play(m))?));
        }
        // Best for the mover = best `back()` value; ties keep generation order.
        out.sort_by_key(|(_, v)| std::cmp::Reverse(v.back()));
        Ok(out)
    }

    /// The moves an engine may play at the root: the legal moves that keep the position's
    /// WDL value, fastest mate first (slowest loss first), each with its WDL value and
    /// distance for the side playing it. Empty when the side to move has no move.
    pub fn probe_root(&self, pos: &Position) -> Result<Vec<RootMove>, ProbeError> {
        self.check(pos)?;
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut moves = Vec::with_capacity(list.len());
        let mut best = -2;
        for m in list.as_slice() {
            let after = pos.play(m);
            let wdl = code_wdl(WIN - self.code_any(&after)?);
            best = best.max(wdl_rank(wdl));
            moves.push((*m, wdl, after));
        }
        let mut out = Vec::new();
        for (mv, wdl, after) in moves {
            if wdl_rank(wdl) == best {
                let dtm = self.dtm_any(&after)?.back();
                out.push(RootMove {
                    mv,
                    root_wdl: wdl,
                    root_dtm: dtm,
                });
            }
        }
        out.sort_by_key(|r| std::cmp::Reverse(r.root_dtm));
        Ok(out)
    }

    /// A line of best moves from `pos` to mate (empty if neither side can force one):
    /// each move keeps the distance exact, one ply nearer. Tables that do not agree (one
    /// of them damaged) end the line with an error, never a loop.
    pub fn mainline(&self, pos: &Position) -> Result<Vec<Move>, ProbeError> {
        let mut line = Vec::new();
        let mut pos = *pos;
        let mut value = self.probe_dtm(&pos)?;
        while let Some(plies @ 1..) = value.plies() {
            let Some(&(m, after)) = self.best_moves(&pos)?.first() else {
                break;
            };
            if after.back() != value || after.plies() != Some(plies - 1) {
                return Err(ProbeError::Inconsistent {
                    fen: pos.to_string(),
                });
            }
            line.push(m);
            pos = pos.play(&m);
            value = after;
        }
        Ok(line)
    }
}

fn parse_fen(fen: &str) -> Result<Position, ProbeError> {
    fen.parse().map_err(|error| ProbeError::InvalidFen {
        fen: fen.to_string(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_keys_hash_apart() {
        let mut seen = std::collections::HashSet::new();
        for m in Material::all_up_to(5) {
            assert!(seen.insert(m.key()));
        }
    }
}
