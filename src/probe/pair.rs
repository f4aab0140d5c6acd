//! The distance to zeroing and the distance to mate of one position, found together.
//!
//! A root probe wants both for every move. Where one side of a table stores both layers,
//! a position of the other side is searched one ply for each; done apart, the two searches
//! generate, play, locate and read the WDL code of the same moves twice. Here one search
//! does it once and reads both stored distances of each move.

use super::bounds::Open;
use super::error::ProbeError;
use super::tablebase::{Located, Tablebase};
use super::zeroing::{after_quiet, better, reset_value};
use crate::chess::{MoveList, Position};
use crate::table::values::{code_wdl, DRAW};
use crate::value::{Dtm, Dtz, Wdl, Wdl5};

impl Tablebase {
    /// `(zeroing_any(pos), dtm_any(pos))` of a legal position.
    pub(super) fn zeroing_and_mate(&self, pos: &Position) -> Result<(Dtz, Dtm), ProbeError> {
        if pos.ep_square().is_some() && pos.has_legal_ep_capture() {
            return Ok((self.zeroing_any(pos)?, self.dtm_any(pos)?));
        }
        let Some(l) = self.locate(pos)? else {
            return Ok((Dtz(0), Dtm::Draw));
        };
        let wdl = code_wdl(self.code_at(pos, &l)?);
        self.pair_at(pos, &l, wdl)
    }

    /// Both distances of a position without an en-passant right, located as `l`, of value
    /// `wdl`.
    fn pair_at(&self, pos: &Position, l: &Located, wdl: Wdl) -> Result<(Dtz, Dtm), ProbeError> {
        if wdl == Wdl::Draw {
            return Ok((Dtz(0), Dtm::Draw));
        }
        let file = &l.entry.file;
        let Some(zeroing_side) = file.dtz_side() else {
            return Err(ProbeError::NoDtz(file.material()));
        };
        if l.side != zeroing_side && l.side != file.dtm_side() {
            let (zeroing_key, mate_key) = self.cache_keys(l);
            if let (Some(z), Some(d)) =
                (self.cached_zeroing(zeroing_key), self.cached_dtm(mate_key))
            {
                return Ok((z, d));
            }
            let (z, d) = self.searched_pair(pos, wdl)?;
            self.remember_zeroing(zeroing_key, z);
            self.remember_dtm(mate_key, d);
            return Ok((z, d));
        }
        Ok((
            self.zeroing_located(pos, l, Some(wdl))?,
            self.dtm_located(pos, l, Some(wdl))?,
        ))
    }

    /// Both distances of a position of the side neither layer stores: the best of its
    /// moves', each move's read once for both.
    fn searched_pair(&self, pos: &Position, wdl: Wdl) -> Result<(Dtz, Dtm), ProbeError> {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        if list.is_empty() {
            // Checkmated (a draw is not asked here).
            return Ok((Dtz(-1), Dtm::without_moves(pos.is_check())));
        }
        if wdl == Wdl::Loss {
            return self.searched_pair_lost(pos, &list);
        }
        // Moves that do not keep the win cannot be the best.
        let keeps = |there: Wdl| there == Wdl::Loss;
        let checks = pos.check_filter();
        let mut zeroing: Option<Dtz> = None;
        let mut mate: Option<Dtm> = None;
        for m in list.as_slice() {
            let after = pos.play(m);
            let (z, d) = if m.is_zeroing() {
                match self.reset_pair(&after, keeps)? {
                    Some(pair) => pair,
                    None => continue,
                }
            } else {
                // A quiet move leaves no en-passant right and keeps the material.
                let Some(l) = self.locate(&after)? else {
                    continue;
                };
                let there = code_wdl(self.code_at(&after, &l)?);
                if !keeps(there) {
                    continue;
                }
                if checks.may_check(m) && after.is_checkmate() {
                    (Dtz(1), Dtm::Loss(0))
                } else {
                    let (z, d) = self.pair_at(&after, &l, there)?;
                    (after_quiet(z), d)
                }
            };
            zeroing = Some(better(zeroing, z));
            mate = mate.max(Some(d.back()));
        }
        match (zeroing, mate) {
            (Some(z), Some(d)) if z.wdl() == wdl && d.wdl() == wdl => Ok((z, d)),
            _ => Err(ProbeError::Inconsistent {
                fen: pos.to_string(),
            }),
        }
    }

    /// A reset (a capture or pawn move) into `after`: its distance to zeroing for the side
    /// playing it and `after`'s distance to mate, the WDL code read once; None where
    /// `keeps` refuses `after`'s value (for its side to move there).
    pub(super) fn reset_pair(
        &self,
        after: &Position,
        keeps: impl Fn(Wdl) -> bool,
    ) -> Result<Option<(Dtz, Dtm)>, ProbeError> {
        let (code, located) = if after.ep_square().is_some() && after.has_legal_ep_capture() {
            (self.code_any(after)?, None)
        } else {
            match self.locate(after)? {
                Some(l) => (self.code_at(after, &l)?, Some(l)),
                None => (DRAW, None),
            }
        };
        let there = code_wdl(code);
        if !keeps(there) {
            return Ok(None);
        }
        let mate = match located {
            Some(l) => self.dtm_located(after, &l, Some(there))?,
            None => self.dtm_any(after)?,
        };
        Ok(Some((reset_value(Wdl5::from_code(code)), mate)))
    }

    /// `searched_pair` of a lost position, `list` its moves: none mates, and where both
    /// layers store the side to move after a quiet move, the stored numbers bound the
    /// move's distances (`bounded`).
    fn searched_pair_lost(
        &self,
        pos: &Position,
        list: &MoveList,
    ) -> Result<(Dtz, Dtm), ProbeError> {
        let mut zeroing: Option<Dtz> = None;
        let mut mate: Option<Dtm> = None;
        let mut open = Open::new();
        for (at, m) in list.as_slice().iter().enumerate() {
            let after = pos.play(m);
            let (z, d) = if m.is_zeroing() {
                self.reset_pair(&after, |_| true)?
                    .expect("every value kept")
            } else {
                let Some(l) = self.locate(&after)? else {
                    return Err(ProbeError::Inconsistent {
                        fen: pos.to_string(),
                    });
                };
                let file = &l.entry.file;
                if file.dtz_side() == Some(l.side) && file.dtm_side() == l.side {
                    open.push(self.bounded(at, (&after, &l), Wdl::Win, true, true)?);
                    continue;
                }
                let (z, d) = self.pair_at(&after, &l, Wdl::Win)?;
                (after_quiet(z), d)
            };
            zeroing = Some(better(zeroing, z));
            mate = mate.max(Some(d.back()));
        }
        let zeroing = self.farthest_zeroing((pos, list), zeroing, &open)?;
        let mate = self.farthest_dtm((pos, list), mate, &open)?;
        match (zeroing, mate) {
            (Some(z), Some(d)) if z.wdl() == Wdl::Loss && d.wdl() == Wdl::Loss => Ok((z, d)),
            _ => Err(ProbeError::Inconsistent {
                fen: pos.to_string(),
            }),
        }
    }
}
