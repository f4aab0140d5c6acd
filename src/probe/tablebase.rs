//! `Tablebase`: the tables of one or more folders, probed by position.

use super::error::ProbeError;
use crate::chess::{Move, MoveList, Position};
use crate::material::{Material, MAX_PIECES};
use crate::retro::SubTables;
use crate::table::{BlockCache, TableFile, DEFAULT_CACHE_BYTES, EXTENSION};
use crate::value::{Dtm, Wdl};
use std::collections::HashMap;
use std::path::Path;

/// A set of open tables, keyed by material, with one cache of decoded blocks shared by all
/// of them. `Send + Sync`: share one across search threads.
pub struct Tablebase {
    tables: HashMap<Material, TableFile>,
    cache: BlockCache,
}

impl Default for Tablebase {
    fn default() -> Self {
        Tablebase::with_cache_bytes(DEFAULT_CACHE_BYTES)
    }
}

/// Size of the blocks the cache is sized for (the writer's default).
const CACHE_BLOCK_BYTES: usize = 1 << 15;

impl Tablebase {
    /// No tables, and a block cache of the default budget (64 MiB).
    pub fn new() -> Tablebase {
        Tablebase::default()
    }

    /// No tables, and a block cache of about `bytes` bytes (blocks of 32 KiB; at least two).
    pub fn with_cache_bytes(bytes: usize) -> Tablebase {
        Tablebase {
            tables: HashMap::new(),
            cache: BlockCache::new(bytes, CACHE_BLOCK_BYTES),
        }
    }

    /// Empties the cache of decoded blocks (for measurements of cold probes).
    pub fn clear_cache(&self) {
        self.cache.clear();
    }

    /// Opens every table file in `dir`.
    ///
    /// ```no_run
    /// let tb = retrobook::Tablebase::open("tables").unwrap();
    /// let pos = "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1".parse().unwrap();
    /// println!("{:?}", tb.probe_dtm(&pos));
    /// ```
    pub fn open(dir: impl AsRef<Path>) -> Result<Tablebase, String> {
        let mut tb = Tablebase::new();
        tb.add_dir(dir.as_ref())?;
        Ok(tb)
    }

    /// Opens every table file of several folders (a later folder's table of the same
    /// material replaces an earlier one).
    pub fn open_all<P: AsRef<Path>>(dirs: &[P]) -> Result<Tablebase, String> {
        let mut tb = Tablebase::new();
        for d in dirs {
            tb.add_dir(d.as_ref())?;
        }
        Ok(tb)
    }

    /// Adds every table file found in `dir`.
    pub fn add_dir(&mut self, dir: &Path) -> Result<(), String> {
        match self.add_dir_lenient(dir)?.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Adds the table files of `dir` that open cleanly and returns one error line for each
    /// that does not (so that a builder can rebuild them). A missing folder is an error.
    pub fn add_dir_lenient(&mut self, dir: &Path) -> Result<Vec<String>, String> {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read tables folder {}: {e}", dir.display()))?;
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| x == EXTENSION)
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

    /// Opens one table file and adds it.
    pub fn add_file(&mut self, path: &Path) -> Result<(), String> {
        let t = TableFile::open(path)?;
        self.tables.insert(t.material(), t);
        Ok(())
    }

    /// The open table of `material` (canonical orientation), if any.
    pub fn table(&self, material: &Material) -> Option<&TableFile> {
        self.tables.get(material)
    }

    /// Materials of all open tables.
    pub fn materials(&self) -> impl Iterator<Item = &Material> {
        self.tables.keys()
    }

    /// Largest piece count (kings included) of any open table; 0 when none is open.
    pub fn max_pieces(&self) -> u32 {
        self.tables.keys().map(|m| m.pieces()).max().unwrap_or(0)
    }

    /// The table, side to move and index holding a position without en-passant right, or
    /// None for bare kings (a draw without a table).
    pub(crate) fn locate(
        &self,
        pos: &Position,
    ) -> Result<Option<(&TableFile, usize, u64)>, ProbeError> {
        let material = Material::from_position(pos);
        if material.is_bare_kings() {
            return Ok(None);
        }
        let flipped;
        let (pos, material) = if material.is_canonical() {
            (pos, material)
        } else {
            flipped = pos.color_flipped();
            (&flipped, material.flipped())
        };
        let table = self
            .tables
            .get(&material)
            .ok_or_else(|| ProbeError::MissingTable(material.to_string()))?;
        let idx = table
            .index()
            .encode(pos)
            .ok_or_else(|| ProbeError::IllegalPosition("kings are adjacent".into()))?;
        Ok(Some((table, pos.turn().index(), idx)))
    }

    /// The stored value of a position without en-passant right.
    fn stored(&self, pos: &Position) -> Result<Dtm, ProbeError> {
        match self.locate(pos)? {
            None => Ok(Dtm::Draw),
            Some((table, side, idx)) => table
                .value(side, idx, &self.cache)
                .map(Dtm::decode)
                .map_err(ProbeError::Table),
        }
    }

    fn check(&self, pos: &Position) -> Result<(), ProbeError> {
        if !pos.castling().is_empty() {
            return Err(ProbeError::Castling);
        }
        pos.validate()
            .map_err(|e| ProbeError::IllegalPosition(e.into()))?;
        let pieces = pos.occupied().count();
        if pieces > MAX_PIECES {
            return Err(ProbeError::MissingTable(format!(
                "{} ({pieces} pieces)",
                Material::from_position(pos)
            )));
        }
        Ok(())
    }

    /// Distance to mate of `pos` for its side to move. A position with an en-passant right
    /// is answered by looking one ply ahead, since tables do not index that right.
    pub fn probe_dtm(&self, pos: &Position) -> Result<Dtm, ProbeError> {
        self.check(pos)?;
        self.dtm_unchecked(pos)
    }

    pub(crate) fn dtm_unchecked(&self, pos: &Position) -> Result<Dtm, ProbeError> {
        dtm_with_en_passant(pos, &|p| self.stored(p))
    }

    /// Win, draw or loss of `pos` for its side to move.
    pub fn probe_wdl(&self, pos: &Position) -> Result<Wdl, ProbeError> {
        Ok(self.probe_dtm(pos)?.wdl())
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
            out.push((*m, self.dtm_unchecked(&pos.play(m))?));
        }
        // Best for the mover = best `back()` value; ties keep generation order.
        out.sort_by_key(|(_, v)| std::cmp::Reverse(v.back()));
        Ok(out)
    }
}

/// The value of `pos` from `stored` values, which know no en-passant right: a position with
/// a legal en-passant capture is answered by looking one ply ahead.
pub(crate) fn dtm_with_en_passant<E>(
    pos: &Position,
    stored: &dyn Fn(&Position) -> Result<Dtm, E>,
) -> Result<Dtm, E> {
    if pos.ep_square().is_some() && pos.has_legal_ep_capture() {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut best = Dtm::Loss(0);
        for m in list.as_slice() {
            best = best.max(dtm_with_en_passant(&pos.play(m), stored)?.back());
        }
        return Ok(best);
    }
    stored(pos)
}

fn parse_fen(fen: &str) -> Result<Position, ProbeError> {
    fen.parse()
        .map_err(|e| ProbeError::InvalidFen(format!("{fen:?}: {e}")))
}

impl SubTables for Tablebase {
    fn value(&self, pos: &Position) -> Result<Dtm, String> {
        self.stored(pos).map_err(|e| e.to_string())
    }
}
