//! Game values: distance to mate in plies, from the side to move's view (`docs/design.md`,
//! Values), and the one-byte encoding the solver and the table files use.

use std::cmp::Ordering;
use std::fmt;

/// Plies without a capture or pawn move after which a chess game is drawn (the 50-move
/// rule): a win or loss beyond them is cursed or blessed (`Wdl5`).
pub const RULE_PLIES: u32 = 100;

/// Win, draw or loss, from the side to move's view, ordered as the side to move prefers.
#[derive(Copy, Clone, Eq, PartialEq, PartialOrd, Ord, Hash, Debug)]
pub enum Wdl {
    /// The side to move loses with best play.
    Loss,
    /// Neither side can force mate.
    Draw,
    /// The side to move mates with best play.
    Win,
}

impl Wdl {
    /// `win`, `draw` or `loss`, as in the JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Wdl::Win => "win",
            Wdl::Draw => "draw",
            Wdl::Loss => "loss",
        }
    }

    /// The value for the side that moved into a position of value `self`.
    pub fn back(self) -> Wdl {
        match self {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Win, draw or loss under the 50-move rule, Syzygy's five values: a cursed win is won but not
/// within the rule (the defender reaches 100 plies without a capture or pawn move), a blessed
/// loss the other way round. Ordered from worst to best for the side to move.
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug)]
pub enum Wdl5 {
    /// Lost, and within the 50-move rule.
    Loss,
    /// Lost without the 50-move rule, drawn with it.
    BlessedLoss,
    /// Drawn.
    Draw,
    /// Won without the 50-move rule, drawn with it.
    CursedWin,
    /// Won, and within the 50-move rule.
    Win,
}

impl Wdl5 {
    /// All five, worst first (their `code`s in order).
    pub const ALL: [Wdl5; 5] = [
        Wdl5::Loss,
        Wdl5::BlessedLoss,
        Wdl5::Draw,
        Wdl5::CursedWin,
        Wdl5::Win,
    ];

    /// The class of a value whose win or loss is (`cursed`) or is not spoilt by the rule.
    #[inline]
    pub fn new(wdl: Wdl, cursed: bool) -> Wdl5 {
        match (wdl, cursed) {
            (Wdl::Win, false) => Wdl5::Win,
            (Wdl::Win, true) => Wdl5::CursedWin,
            (Wdl::Draw, _) => Wdl5::Draw,
            (Wdl::Loss, true) => Wdl5::BlessedLoss,
            (Wdl::Loss, false) => Wdl5::Loss,
        }
    }

    /// The value without the 50-move rule.
    #[inline]
    pub fn wdl(self) -> Wdl {
        match self {
            Wdl5::Win | Wdl5::CursedWin => Wdl::Win,
            Wdl5::Draw => Wdl::Draw,
            Wdl5::Loss | Wdl5::BlessedLoss => Wdl::Loss,
        }
    }

    /// True for a cursed win or a blessed loss.
    #[inline]
    pub fn is_cursed(self) -> bool {
        matches!(self, Wdl5::CursedWin | Wdl5::BlessedLoss)
    }

    /// The value for the opponent (of the position before a move, seen from after it).
    #[inline]
    pub fn back(self) -> Wdl5 {
        Wdl5::ALL[4 - self.code() as usize]
    }

    /// 0 (loss) to 4 (win), as the WDL layer and the C ABI number them.
    #[inline]
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The value of a `code` below 5.
    #[inline]
    pub fn from_code(code: u8) -> Wdl5 {
        Wdl5::ALL[code as usize]
    }

    /// The result with best play under the 50-move rule: a cursed win and a blessed loss
    /// are draws.
    pub fn fifty_move_outcome(self) -> Wdl {
        match self {
            Wdl5::Win => Wdl::Win,
            Wdl5::Loss => Wdl::Loss,
            _ => Wdl::Draw,
        }
    }

    /// `win`, `cursed-win`, `draw`, `blessed-loss` or `loss`, as in the JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Wdl5::Win => "win",
            Wdl5::CursedWin => "cursed-win",
            Wdl5::Draw => "draw",
            Wdl5::BlessedLoss => "blessed-loss",
            Wdl5::Loss => "loss",
        }
    }
}

impl fmt::Display for Wdl5 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Distance to mate in plies with best play, from the side to move's view. A win has an odd
/// number of plies (mate in 1 = 1 ply), a loss an even number (checkmated now = 0 plies).
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum Dtm {
    /// The side to move mates in this many plies.
    Win(u32),
    /// No mate can be forced by either side.
    Draw,
    /// The side to move is mated in this many plies.
    Loss(u32),
}

impl Dtm {
    /// Most plies a distance may have: the table files store up to 16,383 moves.
    pub const MAX_PLIES: u32 = 32_765;

    /// Most plies the one-byte encoding holds exactly; longer distances encode as `LONG`
    /// and are kept apart by whoever stores them (they are rare: six-piece mates reach 523
    /// plies, and only a handful of positions take more than 253).
    pub const BYTE_PLIES: u32 = 253;

    /// The byte of a distance beyond `BYTE_PLIES`.
    pub const LONG: u8 = 255;

    /// The value of a position whose side to move has no move: mated when in check,
    /// stalemated otherwise.
    pub fn without_moves(in_check: bool) -> Dtm {
        if in_check {
            Dtm::Loss(0)
        } else {
            Dtm::Draw
        }
    }

    /// The win/draw/loss part.
    pub fn wdl(self) -> Wdl {
        match self {
            Dtm::Win(_) => Wdl::Win,
            Dtm::Draw => Wdl::Draw,
            Dtm::Loss(_) => Wdl::Loss,
        }
    }

    /// Plies to mate, or None for a draw.
    pub fn plies(self) -> Option<u32> {
        match self {
            Dtm::Win(p) | Dtm::Loss(p) => Some(p),
            Dtm::Draw => None,
        }
    }

    /// Plies to mate signed from the side to move's view (positive: it mates; negative: it
    /// is mated; 0: it is mated now), or None for a draw: the Lichess API's `dtm`.
    pub fn signed_plies(self) -> Option<i64> {
        match self {
            Dtm::Win(p) => Some(i64::from(p)),
            Dtm::Loss(p) => Some(-i64::from(p)),
            Dtm::Draw => None,
        }
    }

    /// Mate in n moves as people count it: (plies + 1) / 2.
    pub fn moves(self) -> Option<u32> {
        self.plies().map(|p| p.div_ceil(2))
    }

    /// The value of a move into a position of value `self`, for the side making that move:
    /// one ply further from mate, seen from the other side.
    ///
    /// ```
    /// use retrobook::Dtm;
    /// assert_eq!(Dtm::Loss(0).back(), Dtm::Win(1));
    /// assert_eq!(Dtm::Win(1).back(), Dtm::Loss(2));
    /// ```
    pub fn back(self) -> Dtm {
        match self {
            Dtm::Win(p) => Dtm::Loss(p + 1),
            Dtm::Draw => Dtm::Draw,
            Dtm::Loss(p) => Dtm::Win(p + 1),
        }
    }

    /// A number that orders values by preference of the side to move: faster wins first,
    /// slower losses last.
    pub fn preference(self) -> i32 {
        match self {
            Dtm::Win(p) => 1000 - p as i32,
            Dtm::Draw => 0,
            Dtm::Loss(p) => -1000 + p as i32,
        }
    }

    /// The value of a distance in plies: odd plies win, even plies lose.
    #[inline]
    pub fn from_plies(p: u32) -> Dtm {
        if p % 2 == 1 {
            Dtm::Win(p)
        } else {
            Dtm::Loss(p)
        }
    }

    /// One byte: 0 = draw, plies + 1 up to `BYTE_PLIES` (wins are the odd plies), `LONG`
    /// beyond.
    #[inline]
    pub fn encode(self) -> u8 {
        match self {
            Dtm::Draw => 0,
            Dtm::Win(p) | Dtm::Loss(p) if p > Self::BYTE_PLIES => Self::LONG,
            Dtm::Win(p) | Dtm::Loss(p) => (p + 1) as u8,
        }
    }

    /// The value of an encoded byte below `LONG`; `long` gives the distance a `LONG` byte
    /// stands for.
    #[inline]
    pub fn decode_with(code: u8, long: impl FnOnce() -> u32) -> Dtm {
        match code {
            0 => Dtm::Draw,
            Self::LONG => Dtm::from_plies(long()),
            c => Dtm::from_plies(c as u32 - 1),
        }
    }

    /// The value of an encoded byte known not to be `LONG` (the one-byte encoding holds
    /// every distance of tables up to five pieces); a `LONG` byte here is a bug of the
    /// caller, which must read it with its list (`LongDistances`).
    #[inline]
    pub fn decode(code: u8) -> Dtm {
        Dtm::decode_with(code, || panic!("a long distance decoded without its list"))
    }
}

/// The distances beyond `Dtm::BYTE_PLIES` of one side of a table, whose bytes hold
/// `Dtm::LONG`: (index, plies), sorted by index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LongDistances(Vec<(u64, u32)>);

impl LongDistances {
    /// The list of `entries`, in any order.
    pub fn new(mut entries: Vec<(u64, u32)>) -> LongDistances {
        entries.sort_unstable();
        LongDistances(entries)
    }

    /// The value of index `idx`, whose byte is `code`.
    #[inline]
    pub fn value(&self, code: u8, idx: u64) -> Dtm {
        Dtm::decode_with(code, || {
            let at = self.0.binary_search_by_key(&idx, |e| e.0);
            self.0[at.expect("every LONG byte has its distance listed")].1
        })
    }

    /// Number of distances listed.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The distances listed, by index.
    pub fn entries(&self) -> &[(u64, u32)] {
        &self.0
    }

    /// True when none is listed.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Distance to zeroing of a position, in plies, signed from the side to move's view as the
/// Lichess API signs `dtz`: the plies to the next capture, pawn move or mate with best play
/// under the 50-move rule, the move count at zero, positive where the side to move wins, 0
/// for a draw; beyond 100 a win the rule spoils (a cursed win) or a loss it saves.
/// Counted as Syzygy's DTZ50″ counts (`retro::dtz`), every ply exact.
///
/// ```
/// use retrobook::{Dtz, Wdl};
/// assert_eq!(Dtz(-1).wdl(), Wdl::Loss); // checkmated, or forced to reset at once
/// assert!(Dtz(101).is_cursed() && !Dtz(-100).is_cursed());
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct Dtz(pub i32);

impl Dtz {
    /// True beyond 100 plies: a win or loss the 50-move rule undoes.
    pub fn is_cursed(self) -> bool {
        self.0.abs() > 100
    }

    /// The value under the 50-move rule of a position of this distance with the move count
    /// at `clock` plies: a win or loss holds only if its reset (or mate) comes by the 100th
    /// ply, else it is a cursed win or blessed loss, drawn by the rule. `mated`: the side
    /// to move is checkmated, which no count undoes.
    ///
    /// ```
    /// use retrobook::{Dtz, Wdl5};
    /// assert_eq!(Dtz(11).class_at(89, false), Wdl5::Win);
    /// assert_eq!(Dtz(11).class_at(90, false), Wdl5::CursedWin);
    /// assert_eq!(Dtz(-1).class_at(100, true), Wdl5::Loss);
    /// assert_eq!(Dtz(-1).class_at(100, false), Wdl5::BlessedLoss);
    /// ```
    pub fn class_at(self, clock: u32, mated: bool) -> Wdl5 {
        let fits = mated || self.0.unsigned_abs().saturating_add(clock) <= 100;
        Wdl5::new(self.wdl(), !fits)
    }

    /// The value under the 50-move rule of a position reached with the move count at
    /// `clock` by a move made with the count at `before`: as `class_at`, but once the count
    /// had reached 100 before that move, a win or loss, a mate included, is drawn by the
    /// rule (a draw could be claimed instead of the move), as lila-tablebase classes it. A
    /// position's own value takes `before` one less than its count.
    ///
    /// ```
    /// use retrobook::{Dtz, Wdl5};
    /// assert_eq!(Dtz(-1).class_reached(99, 100, true), Wdl5::Loss);
    /// assert_eq!(Dtz(-1).class_reached(100, 101, true), Wdl5::BlessedLoss);
    /// assert_eq!(Dtz(-1).class_reached(100, 0, false), Wdl5::BlessedLoss);
    /// assert_eq!(Dtz(12).class_reached(99, 0, false), Wdl5::Win);
    /// assert_eq!(Dtz(0).class_reached(150, 151, false), Wdl5::Draw);
    /// ```
    pub fn class_reached(self, before: u32, clock: u32, mated: bool) -> Wdl5 {
        match before >= RULE_PLIES {
            true => Wdl5::new(self.wdl(), true),
            false => self.class_at(clock, mated),
        }
    }

    /// A position's own value under the 50-move rule at its move count (`class_reached`
    /// with the count one less before the move that reached it).
    pub fn class_of_position(self, clock: u32, mated: bool) -> Wdl5 {
        self.class_reached(clock.saturating_sub(1), clock, mated)
    }

    /// `class_reached` where a move made with the count at `before` reached the position,
    /// `class_of_position` for the position itself (`before` None).
    pub fn class_by(self, before: Option<u32>, clock: u32, mated: bool) -> Wdl5 {
        match before {
            Some(before) => self.class_reached(before, clock, mated),
            None => self.class_of_position(clock, mated),
        }
    }

    /// The win/draw/loss part.
    pub fn wdl(self) -> Wdl {
        match self.0 {
            0 => Wdl::Draw,
            d if d > 0 => Wdl::Win,
            _ => Wdl::Loss,
        }
    }
}

impl fmt::Display for Dtz {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl Ord for Dtm {
    /// Greater is better for the side to move.
    fn cmp(&self, other: &Dtm) -> Ordering {
        self.preference().cmp(&other.preference())
    }
}

impl PartialOrd for Dtm {
    fn partial_cmp(&self, other: &Dtm) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Dtm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dtm::Win(p) => write!(f, "win in {p} plies"),
            Dtm::Draw => f.write_str("draw"),
            Dtm::Loss(p) => write!(f, "loss in {p} plies"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips() {
        for code in 0..Dtm::LONG {
            assert_eq!(Dtm::decode(code).encode(), code);
        }
        for p in [254, 255, 523, Dtm::MAX_PLIES] {
            let v = Dtm::from_plies(p);
            assert_eq!(v.encode(), Dtm::LONG);
            assert_eq!(Dtm::decode_with(Dtm::LONG, || p), v);
        }
    }

    #[test]
    fn fifty_move_classes() {
        for w in Wdl5::ALL {
            assert_eq!(Wdl5::from_code(w.code()), w);
            assert_eq!(w.back().back(), w);
            assert_eq!(Wdl5::new(w.wdl(), w.is_cursed()), w);
        }
        assert_eq!(Wdl5::CursedWin.back(), Wdl5::BlessedLoss);
        assert!(Wdl5::Win > Wdl5::CursedWin && Wdl5::CursedWin > Wdl5::Draw);
        assert!(Wdl5::Draw > Wdl5::BlessedLoss && Wdl5::BlessedLoss > Wdl5::Loss);
    }

    #[test]
    fn ordering() {
        assert!(Dtm::Win(1) > Dtm::Win(3));
        assert!(Dtm::Win(99) > Dtm::Draw);
        assert!(Dtm::Draw > Dtm::Loss(100));
        assert!(Dtm::Loss(10) > Dtm::Loss(0));
    }
}
