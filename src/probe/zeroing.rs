//! Distances to zeroing (DTZ) from the tables' DTZ layers: for a position, the plies to the
//! next move that resets the 50-move count (a capture, a pawn move) or mates, with best
//! play under the rule, counted as `retro::dtz` counts them.
//!
//! The stored side is read: the better of the stored distance and the position's resets
//! and mates (the writer stores anything no better where one of those gives the value). The
//! other side is found by a one-ply search over the stored one. Distances are signed as
//! `Dtz` is.

use super::bounds::Open;
use super::error::ProbeError;
use super::game::Chess;
use super::tablebase::{Entry, Located, Tablebase};
use crate::chess::{MoveList, Position, Role};
use crate::material::Material;
use crate::retro::dtz::as_distance;
use crate::side::Side;
use crate::table::values::code_wdl;
use crate::value::RULE_PLIES;
use crate::value::{Dtm, Dtz, Wdl, Wdl5};

/// The distance, for the side that plays it, of a reset into a position of `class` (for
/// its side to move there).
pub(super) fn reset_value(class: Wdl5) -> Dtz {
    let beyond = 1 + RULE_PLIES as i32;
    Dtz(match class {
        Wdl5::Loss => 1,
        Wdl5::BlessedLoss => beyond,
        Wdl5::Draw => 0,
        Wdl5::CursedWin => -beyond,
        Wdl5::Win => -1,
    })
}

/// The distance, for the side that plays it, of a quiet move into a position of distance
/// `after` (for its side to move): one ply more.
pub(super) fn after_quiet(after: Dtz) -> Dtz {
    Dtz(match after.0 {
        0 => 0,
        a if a < 0 => 1 - a,
        a => -1 - a,
    })
}

/// Greater is better for the side to move: a nearer win, a farther loss.
pub(super) fn preference(v: Dtz) -> i64 {
    match v.0 {
        0 => 0,
        d if d > 0 => (1 << 40) - i64::from(d),
        d => -(1 << 40) - i64::from(d),
    }
}

/// The better of two distances for the side to move.
pub(super) fn better(a: Option<Dtz>, b: Dtz) -> Dtz {
    match a {
        Some(a) if preference(a) >= preference(b) => a,
        _ => b,
    }
}

/// A distance as the cache of distances keeps it.
fn cached(v: Dtz) -> Dtm {
    match v.0 {
        0 => Dtm::Draw,
        d if d > 0 => as_distance(d as u32, Wdl5::Win),
        d => as_distance(d.unsigned_abs(), Wdl5::Loss),
    }
}

/// The distance the cache kept as `v`.
fn from_cache(v: Dtm) -> Dtz {
    Dtz(match v {
        Dtm::Draw => 0,
        Dtm::Win(p) => p.div_ceil(2) as i32,
        Dtm::Loss(p) => -((p / 2) as i32),
    })
}

impl Tablebase {
    /// Distance to zeroing of `pos` for its side to move, signed as the Lichess API signs
    /// `dtz` (positive: the side to move wins; 0: a draw), the move count at zero: a
    /// distance beyond 100 plies is a win the 50-move rule spoils (or a loss it saves).
    /// Exact: never rounded as Syzygy's files round some. A position with an en-passant
    /// right is answered by looking one ply ahead. Fails for a table without a DTZ layer
    /// (built before tables had one).
    pub fn probe_dtz(&self, pos: &Position) -> Result<Dtz, ProbeError> {
        self.check(pos)?;
        self.zeroing_any(pos)
    }

    /// `probe_dtz` of a legal position, an en-passant right looked at.
    pub(super) fn zeroing_any(&self, pos: &Position) -> Result<Dtz, ProbeError> {
        if pos.ep_square().is_none() || !pos.has_legal_ep_capture() {
            return self.zeroing(pos);
        }
        // The moves of the placement without the right, and the captures, which reset.
        let mut plain = *pos;
        plain.set_ep_square(None);
        let mut best = None;
        for m in pos.en_passant_moves() {
            let v = reset_value(Wdl5::from_code(self.code_any(&pos.play(&m))?));
            best = Some(better(best, v));
        }
        let best = best.expect("an en-passant capture");
        if !plain.has_legal_move() {
            return Ok(best);
        }
        Ok(better(Some(best), self.zeroing(&plain)?))
    }

    /// The same for a position without an en-passant right.
    fn zeroing(&self, pos: &Position) -> Result<Dtz, ProbeError> {
        match self.locate(pos)? {
            None => Ok(Dtz(0)),
            Some(l) => self.zeroing_located(pos, &l, None),
        }
    }

    /// The same for a position located as `l`, of value `wdl` where known.
    pub(super) fn zeroing_located(
        &self,
        pos: &Position,
        l: &Located,
        wdl: Option<Wdl>,
    ) -> Result<Dtz, ProbeError> {
        let file = &l.entry.file;
        let Some(side) = file.dtz_side() else {
            return Err(ProbeError::NoDtz(file.material()));
        };
        let key = self.cache_keys(l).0;
        if let Some(v) = self.cached_zeroing(key) {
            return Ok(v);
        }
        let wdl = self.wdl_of(pos, l, wdl)?;
        let value = match wdl {
            Wdl::Draw => Dtz(0),
            _ if l.side == side => self.stored_zeroing(pos, l, wdl)?,
            _ => self.searched_zeroing(pos, wdl)?,
        };
        self.remember_zeroing(key, value);
        Ok(value)
    }

    /// The cached distance to zeroing under `key`.
    pub(super) fn cached_zeroing(&self, key: Option<u64>) -> Option<Dtz> {
        key.and_then(|k| self.cache.get(k)).map(from_cache)
    }

    /// Remembers a distance to zeroing under `key`.
    pub(super) fn remember_zeroing(&self, key: Option<u64>, value: Dtz) {
        if let Some(k) = key {
            self.cache.put(k, cached(value));
        }
    }

    /// The best of `pos`'s moves that end the count at once for its side to move, `wdl`
    /// its value: resets, and a winner's quiet mates; None without one.
    fn best_ending(&self, pos: &Position, wdl: Wdl) -> Result<Option<Dtz>, ProbeError> {
        let mut list = MoveList::new();
        // A loser does not mate: without a pawn to move, his resets are the captures,
        // found alone.
        let pawns = !pos.pieces(pos.turn(), Role::Pawn).is_empty();
        match wdl == Wdl::Win || pawns {
            true => pos.legal_moves(&mut list),
            false => pos.conversion_moves(&mut list),
        }
        // Only a move that checks can mate: the others are not played.
        let checks = pos.check_filter();
        let mut best = None;
        for m in list.as_slice() {
            if m.is_zeroing() {
                let v = reset_value(Wdl5::from_code(self.code_any(&pos.play(m))?));
                best = Some(better(best, v));
            } else if wdl == Wdl::Win && checks.may_check(m) && pos.play(m).is_checkmate() {
                return Ok(Some(Dtz(1)));
            }
        }
        Ok(best)
    }

    /// Whether a reset from `entry`'s table can reach a cursed win or blessed loss: in the
    /// table itself (a pawn move), one capture or promotion away, or in a table missing.
    fn spoilt_near(&self, entry: &Entry<Chess>) -> bool {
        *entry.spoilt_near.get_or_init(|| {
            let spoilt = |m: &Material| {
                self.table(m).is_none_or(|f| {
                    let sides = f.header().stats.sides;
                    sides.iter().any(|s| s.cursed_win + s.blessed_loss > 0)
                })
            };
            let m = entry.file.material();
            spoilt(&m)
                || (Side::ALL.iter()).any(|&c| m.conversions(c).iter().any(|(sub, _)| spoilt(sub)))
        })
    }

    /// The distance of a position of the side the DTZ layer stores: the better of the
    /// stored distance and the moves that end the count, looked at only where one could
    /// be better.
    fn stored_zeroing(&self, pos: &Position, l: &Located, wdl: Wdl) -> Result<Dtz, ProbeError> {
        let moves = l.entry.file.dtz_moves(&l.digits).expect("a DTZ layer")?;
        self.stored_zeroing_from(pos, l, wdl, moves)
    }

    /// The same, the stored number already read as `moves`.
    pub(super) fn stored_zeroing_from(
        &self,
        pos: &Position,
        l: &Located,
        wdl: Wdl,
        moves: u16,
    ) -> Result<Dtz, ProbeError> {
        let file = &l.entry.file;
        let moves = i32::from(moves);
        // 0: nothing stored, a reset or mate gives the distance (never below 1).
        let stored = match (wdl, moves) {
            (_, 0) => None,
            (Wdl::Win, m) => Some(Dtz(m)),
            (_, m) => Some(Dtz(-m)),
        };
        // Nothing ends the count sooner than a win stored as 1 ply; a loss stored within
        // 101 plies is lengthened only by a reset into a cursed win (one into a plain win
        // is 1 ply, and a loser does not mate).
        let look = match stored {
            None => true,
            Some(Dtz(d)) if d > 0 => d > 1,
            Some(Dtz(d)) => d > -(1 + RULE_PLIES as i32) && self.spoilt_near(l.entry),
        };
        let ending = if look {
            self.best_ending(pos, wdl)?
        } else {
            None
        };
        let best = match (stored, ending) {
            (Some(s), Some(r)) => Some(better(Some(s), r)),
            (s, r) => s.or(r),
        };
        match best {
            Some(v) if v.0 != 0 && v.wdl() == wdl => Ok(v),
            // Checkmated: no move, nothing stored.
            None if pos.is_checkmate() => Ok(Dtz(-1)),
            _ => Err(super::error::disagree(file.path(), pos)),
        }
    }

    /// For `verify`: the distance the DTZ layer gives `pos`, a position of the side it
    /// stores without an en-passant right, and the distance its moves give, each move's
    /// read from the other side (itself searched one ply over the stored side); None for a
    /// draw or a position no table holds.
    pub(super) fn zeroing_both_ways(
        &self,
        pos: &Position,
    ) -> Result<Option<(Dtz, Dtz)>, ProbeError> {
        let Some(l) = self.locate(pos)? else {
            return Ok(None);
        };
        let wdl = code_wdl(self.code_at(pos, &l)?);
        if wdl == Wdl::Draw {
            return Ok(None);
        }
        let stored = self.stored_zeroing(pos, &l, wdl)?;
        Ok(Some((stored, self.searched_zeroing(pos, wdl)?)))
    }

    /// The distance of a position of the side the DTZ layer does not store: the best of
    /// its moves'.
    fn searched_zeroing(&self, pos: &Position, wdl: Wdl) -> Result<Dtz, ProbeError> {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        if list.is_empty() {
            // Checkmated: 1, as Syzygy counts it (stalemate is a draw, not asked here).
            return Ok(Dtz(-1));
        }
        let checks = pos.check_filter();
        let mut best: Option<Dtz> = None;
        let mut open = Open::new();
        for (at, m) in list.as_slice().iter().enumerate() {
            let after = pos.play(m);
            let v = if m.is_zeroing() {
                reset_value(Wdl5::from_code(self.code_any(&after)?))
            } else if wdl == Wdl::Loss {
                // Every move of a lost position leads to a win for the other side (and none
                // mates): the code need not be read, and a stored number bounds the
                // distance (`bounded`).
                let Some(l) = self.locate(&after)? else {
                    continue;
                };
                if l.entry.file.dtz_side() == Some(l.side) {
                    open.push(self.bounded(at, (&after, &l), Wdl::Win, true, false)?);
                    continue;
                }
                after_quiet(self.zeroing_located(&after, &l, Some(Wdl::Win))?)
            } else if checks.may_check(m) && after.is_checkmate() {
                Dtz(1)
            } else {
                // Moves that do not keep the win cannot be the best.
                if wdl == Wdl::Win && code_wdl(self.code_any(&after)?) != Wdl::Loss {
                    continue;
                }
                after_quiet(self.zeroing_any(&after)?)
            };
            best = Some(better(best, v));
        }
        match self.farthest_zeroing((pos, &list), best, &open)? {
            Some(v) if v.wdl() == wdl => Ok(v),
            _ => Err(ProbeError::Inconsistent {
                fen: pos.to_string(),
            }),
        }
    }
}
