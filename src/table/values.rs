//! What the two layers store for a position (value encoding 2 of `format`), and which
//! stored values a writer may choose from when several would give the same answer.
//!
//! A position whose value a conversion (a capture or a promotion) reaches may store any
//! value no better than its own, because the probe takes the best of the stored value and
//! the conversions; illegal positions and holes may store anything. The writer picks among
//! the choices what compresses best (`fill`).

use crate::value::{Dtm, Wdl, Wdl5};

/// WDL code of a loss.
pub const LOSS: u8 = 0;
/// WDL code of a draw.
pub const DRAW: u8 = 2;
/// WDL code of a win.
pub const WIN: u8 = 4;
/// Added to a WDL code: "this value, or better through a conversion".
pub const OR_CONVERSION: u8 = 5;
/// Number of WDL codes.
pub const WDL_CODES: u8 = 10;

/// Choice bit of positions that are never probed (illegal, or holes of a layout).
pub const UNPROBED: u16 = 1 << 15;

/// The value a WDL code (with or without `OR_CONVERSION`) names.
#[inline]
pub fn code_wdl(code: u8) -> Wdl {
    Wdl5::from_code(code % OR_CONVERSION).wdl()
}

/// Rank of a WDL value for the side to move (greater is better).
#[inline]
pub fn wdl_rank(w: Wdl) -> i8 {
    match w {
        Wdl::Loss => -1,
        Wdl::Draw => 0,
        Wdl::Win => 1,
    }
}

/// The WDL codes a legal position of class `value` (`Wdl5::code`) may store, `exit_decides`
/// when its best conversion has that class too: bit c set for code c.
#[inline]
pub fn wdl_choices(value: Wdl5, exit_decides: bool) -> u16 {
    let exact = value.code();
    let mut bits = 1u16 << exact | 1 << (exact + OR_CONVERSION);
    if exit_decides {
        // Any code no better than the value, marked to look at the conversions.
        for c in 0..=exact {
            bits |= 1 << (c + OR_CONVERSION);
        }
    }
    bits
}

/// Every WDL code, for positions never probed.
pub const WDL_ANY: u16 = UNPROBED | ((1 << WDL_CODES) - 1);

/// Moves of a distance as the DTM layer stores it: a win in p plies is (p + 1) / 2, a loss
/// in p plies p / 2 (the WDL layer tells which).
#[inline]
pub fn dtm_moves(value: Dtm) -> u16 {
    value.plies().map_or(0, |p| p.div_ceil(2) as u16)
}

/// The distance that `moves` stands for with WDL value `wdl`; None for a draw and for a
/// win with 0 moves (no distance stored: the conversions hold it).
#[inline]
pub fn dtm_value(wdl: Wdl, moves: u16) -> Option<Dtm> {
    let m = moves as u32;
    match wdl {
        Wdl::Win if m > 0 => Some(Dtm::Win(2 * m - 1)),
        Wdl::Loss => Some(Dtm::Loss(2 * m)),
        _ => None,
    }
}

/// DTM choice kinds, in the top two bits of a choice; the low 14 bits hold moves.
const EXACT: u16 = 0;
/// These moves or more, or 0 (a win a conversion reaches).
const WIN_OR_SLOWER: u16 = 1 << 14;
/// At most these moves (a loss a conversion reaches).
const LOSS_OR_FASTER: u16 = 2 << 14;
/// Anything: draws (the WDL layer answers) and positions never probed.
pub const DTM_ANY: u16 = 3 << 14;
const MOVES: u16 = (1 << 14) - 1;

/// What a legal position of `value` may store in the DTM layer, `exit_decides` when its best
/// conversion has that value too.
#[inline]
pub fn dtm_choice(value: Dtm, exit_decides: bool) -> u16 {
    let m = dtm_moves(value).min(MOVES);
    match (value, exit_decides) {
        (Dtm::Draw, _) => DTM_ANY,
        (Dtm::Win(_), true) => WIN_OR_SLOWER | m,
        (Dtm::Loss(_), true) => LOSS_OR_FASTER | m,
        _ => EXACT | m,
    }
}

/// The range of moves a DTM choice allows, and whether 0 is allowed besides.
#[inline]
pub fn dtm_range(choice: u16) -> (u16, u16, bool) {
    let m = choice & MOVES;
    match choice & !MOVES {
        EXACT => (m, m, false),
        WIN_OR_SLOWER => (m, u16::MAX, true),
        LOSS_OR_FASTER => (0, m, true),
        _ => (0, u16::MAX, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_round_trip() {
        for d in [Dtm::Win(1), Dtm::Win(37), Dtm::Loss(0), Dtm::Loss(36)] {
            assert_eq!(dtm_value(d.wdl(), dtm_moves(d)), Some(d));
        }
        assert_eq!(dtm_value(Wdl::Win, 0), None);
        assert_eq!(dtm_value(Wdl::Draw, 3), None);
    }

    #[test]
    fn choices_never_overstate() {
        // A position lost unless a conversion draws may store a loss or a draw marked
        // "or a conversion", never a plain draw or a win.
        let c = wdl_choices(Wdl5::Draw, true);
        assert_eq!(
            c,
            1 << DRAW | 1 << (LOSS + 5) | 1 << (1 + 5) | 1 << (DRAW + 5)
        );
        let c = wdl_choices(Wdl5::Win, false);
        assert_eq!(c, 1 << WIN | 1 << (WIN + 5));
        // A cursed win whose best conversion is not cursed too (`Solution::exit_has_class`)
        // cannot defer to it.
        let c = wdl_choices(Wdl5::CursedWin, false);
        assert_eq!(c, 1 << 3 | 1 << (3 + 5));
        let c = wdl_choices(Wdl5::CursedWin, true);
        assert_eq!(c, 1 << 3 | 0b1111 << 5);
        assert_eq!(
            dtm_range(dtm_choice(Dtm::Win(5), true)),
            (3, u16::MAX, true)
        );
        assert_eq!(dtm_range(dtm_choice(Dtm::Loss(8), true)), (0, 4, true));
        assert_eq!(dtm_range(dtm_choice(Dtm::Loss(8), false)), (4, 4, false));
        // Illegal indices hold a draw (see `Choices::at`): any distance, deciding or not.
        assert_eq!(dtm_choice(Dtm::Draw, false), DTM_ANY);
        assert_eq!(dtm_choice(Dtm::Draw, true), DTM_ANY);
    }
}
