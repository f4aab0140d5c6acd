//! Tables do not index the en-passant right: a position that has one is valued through
//! the positions without it.

use crate::chess::Position;

/// The value of `pos`, which may have an en-passant right, from `without`, which knows only
/// positions without one: the moves of such a position are those of the same placement
/// without the right, and the en-passant captures.
pub(crate) fn with_en_passant<T: Ord + Copy, E>(
    pos: &Position,
    without: &dyn Fn(&Position) -> Result<T, E>,
    back: fn(T) -> T,
    stalemate: T,
) -> Result<T, E> {
    if pos.ep_square().is_none() || !pos.has_legal_ep_capture() {
        return without(pos);
    }
    let mut plain = *pos;
    plain.set_ep_square(None);
    let base = without(&plain)?;
    let mut best: Option<T> = None;
    for m in pos.en_passant_moves() {
        let v = back(without(&pos.play(&m))?);
        best = Some(best.map_or(v, |b| b.max(v)));
    }
    let best = best.expect("an en-passant capture");
    // Without the right the side to move may be stalemated: then only the captures count.
    if best >= base || (base == stalemate && !plain.has_legal_move()) {
        Ok(best)
    } else {
        Ok(base)
    }
}
