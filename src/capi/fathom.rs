//! Fathom's C API (`include/tbprobe.h`) over retrobook's tables, so that an engine written
//! against Fathom links this library instead without changing a line: the same function
//! names, arguments, result encoding and macros, one set of tables open per process.
//!
//! The answers are Fathom's, exact where Syzygy's files round: distances to zeroing to the
//! ply. The root probes read distances to zeroing alone, as Fathom's do, so that they take
//! no longer; the fastest mate among the moves that keep a win is `rb_probe_root_clock`'s.

use super::{guarded, text, Board};
use crate::chess::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks, Bitboard, Move,
    MoveKind, Position, Role, Square,
};
use crate::probe::Tablebase;
use crate::side::Side;
use crate::value::{Dtz, Wdl5};
use std::ffi::c_char;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

/// The tables `tb_init` opened (null before, and after `tb_free`).
static TABLES: AtomicPtr<Tablebase> = AtomicPtr::new(std::ptr::null_mut());

/// The most pieces of a position the open tables answer for (Fathom's `TB_LARGEST`): 0
/// with no tables open.
#[no_mangle]
pub(crate) static TB_LARGEST: AtomicU32 = AtomicU32::new(0);

/// Fathom's `TB_RESULT_FAILED`.
const FAILED: u32 = 0xFFFF_FFFF;
/// Fathom's `TB_DRAW`, and the result of a stalemated root (`TB_RESULT_STALEMATE`).
const DRAW: u32 = 2;
/// Fathom's `TB_WIN`, and the result of a checkmated root (`TB_RESULT_CHECKMATE`).
const WIN: u32 = 4;
/// Fathom's rank of a win kept whatever the count (`tb_probe_root_dtz`).
const RANK_WIN: i32 = 1000;
/// Fathom's scores: a pawn, a mate, the longest mate.
const VALUE_PAWN: i32 = 100;
const VALUE_MATE: i32 = 32000;
const MAX_MATE_PLY: i32 = 255;
/// Fathom's `TB_MAX_MOVES` and `TB_MAX_PLY`.
const MAX_MOVES: usize = 193;
const MAX_PLY: usize = 256;

/// A move as Fathom packs it (`TbMove`): to in bits 0-5, from in 6-11, promotion 12-14.
type TbMove = u16;

/// One root move as `tb_probe_root_dtz` and `tb_probe_root_wdl` fill it in.
#[repr(C)]
pub(crate) struct TbRootMove {
    pub(crate) r#move: TbMove,
    pub(crate) pv: [TbMove; MAX_PLY],
    pub(crate) pv_size: u32,
    pub(crate) tb_score: i32,
    pub(crate) tb_rank: i32,
}

/// Every root move, as `tb_probe_root_dtz` and `tb_probe_root_wdl` fill them in.
#[repr(C)]
pub(crate) struct TbRootMoves {
    pub(crate) size: u32,
    pub(crate) moves: [TbRootMove; MAX_MOVES],
}

/// The open tables, if any.
fn tables() -> Option<&'static Tablebase> {
    // SAFETY: the pointer is null or a leaked box that `tb_free` alone releases; Fathom's
    // contract (and ours) forbids probing while `tb_init` or `tb_free` runs.
    unsafe { TABLES.load(Ordering::Acquire).as_ref() }
}

/// Opens every table of the folders in `path` (separated by `:`, or `;` on Windows),
/// closing those open before. True on success, also when `path` is NULL, empty or
/// `<empty>` (no tables then, `TB_LARGEST` 0); false when a folder cannot be read or holds
/// a damaged table.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string; no probe runs meanwhile.
#[no_mangle]
pub(crate) unsafe extern "C" fn tb_init(path: *const c_char) -> bool {
    // SAFETY: no probe runs meanwhile (the caller's contract).
    unsafe { tb_free() };
    guarded(false, || {
        let path = match text(path) {
            None if !path.is_null() => return Some(false),
            None | Some("<empty>") => "",
            Some(p) => p,
        };
        let separator = if cfg!(windows) { ';' } else { ':' };
        let mut tb = Tablebase::new();
        for dir in path.split(separator).filter(|d| !d.is_empty()) {
            if tb.add_dir(std::path::Path::new(dir)).is_err() {
                return Some(false);
            }
        }
        TB_LARGEST.store(tb.max_pieces(), Ordering::Release);
        TABLES.store(Box::into_raw(Box::new(tb)), Ordering::Release);
        Some(true)
    })
}

/// Closes the tables `tb_init` opened.
///
/// # Safety
/// No probe runs meanwhile.
#[no_mangle]
pub(crate) unsafe extern "C" fn tb_free() {
    TB_LARGEST.store(0, Ordering::Release);
    let old = TABLES.swap(std::ptr::null_mut(), Ordering::AcqRel);
    if !old.is_null() {
        // SAFETY: `old` came from `Box::into_raw` in `tb_init` and is released once (swapped
        // out above).
        drop(unsafe { Box::from_raw(old) });
    }
}

/// The position of Fathom's arguments; an en-passant square no pawn could have passed is
/// ignored, as Fathom ignores it.
fn fathom_position(board: Board, rule50: u32, ep: u32, turn: bool) -> Option<Position> {
    let at = |ep| board.position(ep, 0, turn);
    let mut pos = at(ep).or_else(|| at(0))?;
    pos.set_clocks(rule50, pos.fullmoves());
    Some(pos)
}

/// The position and the results of a root probe (`tb_probe_root_dtz`, `tb_probe_root_wdl`):
/// None with castling rights, a board that makes no position, or no results.
///
/// # Safety
/// `results` is NULL or points to a writable `TbRootMoves`.
unsafe fn root_of<'a>(
    board: Board,
    rule50: u32,
    castling: u32,
    ep: u32,
    turn: bool,
    results: *mut TbRootMoves,
) -> Option<(Position, &'a mut TbRootMoves)> {
    let pos = fathom_position(board, rule50, ep, turn).filter(|_| castling == 0)?;
    // SAFETY: the caller passes NULL or a writable `TbRootMoves`.
    Some((pos, unsafe { results.as_mut() }?))
}

/// Fathom's five classes, `TB_LOSS` (0) to `TB_WIN` (4).
fn class_code(c: Wdl5) -> u32 {
    match c {
        Wdl5::Loss => 0,
        Wdl5::BlessedLoss => 1,
        Wdl5::Draw => 2,
        Wdl5::CursedWin => 3,
        Wdl5::Win => 4,
    }
}

/// Fathom's promotion code: 1 queen, 2 rook, 3 bishop, 4 knight, 0 none.
fn promotes(m: &Move) -> u32 {
    match m.promotion {
        Some(Role::Queen) => 1,
        Some(Role::Rook) => 2,
        Some(Role::Bishop) => 3,
        Some(Role::Knight) => 4,
        _ => 0,
    }
}

/// `m` as a `TbMove`.
fn tb_move(m: &Move) -> TbMove {
    (m.to.index() | m.from.index() << 6 | (promotes(m) as usize) << 12) as TbMove
}

/// A packed result (`TB_RESULT_*`): class, move and distance to zeroing.
fn result(class: Wdl5, m: &Move, dtz: Dtz) -> u32 {
    let ep = u32::from(m.kind == MoveKind::EnPassant);
    let dtz = dtz.0.unsigned_abs().min(0xFFF);
    class_code(class)
        | (m.to.index() as u32) << 4
        | (m.from.index() as u32) << 10
        | promotes(m) << 16
        | ep << 19
        | dtz << 20
}

/// The position's distance to zeroing from its moves' (each for the side playing it, the
/// move counted): the nearest win, else a draw, else the longest loss.
fn root_dtz(moves: &[(Move, Dtz)]) -> Dtz {
    let wins = moves.iter().map(|m| m.1 .0).filter(|&v| v > 0);
    if let Some(v) = wins.min() {
        return Dtz(v);
    }
    if moves.iter().any(|m| m.1 .0 == 0) {
        return Dtz(0);
    }
    Dtz(moves.iter().map(|m| m.1 .0).min().unwrap_or(0))
}

/// Win, draw or loss for the side to move with the move count at zero, as Fathom's
/// `tb_probe_wdl` answers: `TB_LOSS` .. `TB_WIN`, or `TB_RESULT_FAILED`. Called by the
/// header's `tb_probe_wdl`, which refuses castling rights and a move count other than 0.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub(crate) extern "C" fn tb_probe_wdl_impl(
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    turn: bool,
) -> u32 {
    guarded(FAILED, || {
        let board = Board([white, black, kings, queens, rooks, bishops, knights, pawns]);
        let pos = fathom_position(board, 0, ep, turn)?;
        tables()?.probe_wdl5(&pos).ok().map(class_code)
    })
}

/// The root probe of the header's `tb_probe_root`: the position's class from the move
/// count `rule50`, a suggested move and the position's distance to zeroing packed in one
/// result; `TB_RESULT_CHECKMATE`, `TB_RESULT_STALEMATE` or `TB_RESULT_FAILED`. Where
/// `results` is not NULL, every legal move's result follows there (it holds
/// `TB_MAX_MOVES`), ended by `TB_RESULT_FAILED`.
///
/// # Safety
/// `results` is NULL or points to `TB_MAX_MOVES` writable results.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn tb_probe_root_impl(
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    rule50: u32,
    ep: u32,
    turn: bool,
    results: *mut u32,
) -> u32 {
    guarded(FAILED, || {
        let board = Board([white, black, kings, queens, rooks, bishops, knights, pawns]);
        let pos = fathom_position(board, rule50, ep, turn)?;
        let moves = tables()?.probe_root_zeroing(&pos).ok()?;
        if !results.is_null() {
            let each = moves
                .iter()
                .map(|(m, dtz)| result(dtz.class_at(rule50, false), m, *dtz));
            for (i, r) in each.chain([FAILED]).take(MAX_MOVES).enumerate() {
                // SAFETY: the caller passes room for `TB_MAX_MOVES` results, more than
                // a position's legal moves and the end mark.
                unsafe { results.add(i).write(r) };
            }
        }
        if moves.is_empty() {
            return Some(if pos.is_check() { WIN } else { DRAW });
        }
        // The position's distance is its best move's: the move suggested.
        let dtz = root_dtz(&moves);
        let best = moves.iter().find(|(_, v)| *v == dtz)?;
        Some(result(dtz.class_at(rule50, false), &best.0, dtz))
    })
}

/// Fathom's rank and score of a root move of distance `v` (for the side playing it, the move
/// counted) from the count `count`.
fn rank_and_score(v: i32, count: i32, repeated: bool, rule50: bool) -> (i32, i32) {
    let rank = match v {
        v if v > 0 && v + count <= 99 && !repeated => RANK_WIN,
        v if v > 0 => RANK_WIN - (v + count),
        v if v < 0 && -v * 2 + count < 100 => -RANK_WIN,
        v if v < 0 => -RANK_WIN + (-v + count),
        _ => 0,
    };
    let bound = if rule50 { 900 } else { 1 };
    let score = match rank {
        r if r >= bound => VALUE_MATE - MAX_MATE_PLY - 1,
        r if r > 0 => (r - 800).max(3) * VALUE_PAWN / 200,
        0 => 0,
        r if r > -bound => (r + 800).min(-3) * VALUE_PAWN / 200,
        _ => -VALUE_MATE + MAX_MATE_PLY + 1,
    };
    (rank, score)
}

/// Fills `out` with `moves` and their ranks and scores, each its own line of play.
fn fill(out: &mut TbRootMoves, moves: impl Iterator<Item = (Move, (i32, i32))>) {
    let mut size = 0;
    for (slot, (m, (rank, score))) in out.moves.iter_mut().zip(moves) {
        slot.r#move = tb_move(&m);
        slot.pv[0] = slot.r#move;
        slot.pv_size = 1;
        slot.tb_rank = rank;
        slot.tb_score = score;
        size += 1;
    }
    out.size = size;
}

/// Every root move ranked and scored from its distance to zeroing, as Fathom's
/// `tb_probe_root_dtz` ranks them (a win kept whatever the count 1000, a draw 0, losses
/// below; `use_rule50` false counts a cursed win as a win). Returns 1, or 0 when a probe
/// failed (castling rights, a table missing).
///
/// # Safety
/// `results` is NULL or points to a writable `TbRootMoves`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn tb_probe_root_dtz(
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    rule50: u32,
    castling: u32,
    ep: u32,
    turn: bool,
    has_repeated: bool,
    use_rule50: bool,
    results: *mut TbRootMoves,
) -> i32 {
    guarded(0, || {
        let board = Board([white, black, kings, queens, rooks, bishops, knights, pawns]);
        // SAFETY: the caller passes NULL or a writable `TbRootMoves`.
        let (pos, out) = unsafe { root_of(board, rule50, castling, ep, turn, results) }?;
        let moves = tables()?.probe_root_zeroing(&pos).ok()?;
        let count = rule50.min(i32::MAX as u32) as i32;
        let valued = (moves.iter())
            .map(|(m, dtz)| (*m, rank_and_score(dtz.0, count, has_repeated, use_rule50)));
        fill(out, valued);
        Some(1)
    })
}

/// Every root move ranked and scored from its class alone, as Fathom's `tb_probe_root_wdl`
/// ranks them (the fallback where distances to zeroing are missing). Returns 1, or 0 when a
/// probe failed.
///
/// # Safety
/// `results` is NULL or points to a writable `TbRootMoves`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn tb_probe_root_wdl(
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    rule50: u32,
    castling: u32,
    ep: u32,
    turn: bool,
    use_rule50: bool,
    results: *mut TbRootMoves,
) -> i32 {
    guarded(0, || {
        let board = Board([white, black, kings, queens, rooks, bishops, knights, pawns]);
        // SAFETY: the caller passes NULL or a writable `TbRootMoves`.
        let (pos, out) = unsafe { root_of(board, rule50, castling, ep, turn, results) }?;
        let tb = tables()?;
        let mut list = crate::chess::MoveList::new();
        pos.legal_moves(&mut list);
        let mut valued = Vec::with_capacity(list.len());
        for m in list.as_slice() {
            let mut class = tb.probe_wdl5(&pos.play(m)).ok()?.back();
            if !use_rule50 {
                class = Wdl5::new(class.wdl(), false);
            }
            let value = match class {
                Wdl5::Loss => (-RANK_WIN, -VALUE_MATE + MAX_MATE_PLY + 1),
                Wdl5::BlessedLoss => (-899, -2),
                Wdl5::Draw => (0, 0),
                Wdl5::CursedWin => (899, 2),
                Wdl5::Win => (RANK_WIN, VALUE_MATE - MAX_MATE_PLY - 1),
            };
            valued.push((*m, value));
        }
        fill(out, valued.into_iter());
        Some(1)
    })
}

/// Fathom's helpers (`TB_NO_HELPER_API` leaves them undeclared): bit counts and attacks,
/// squares 0 = a1 .. 63 = h8.
#[no_mangle]
pub(crate) extern "C" fn tb_pop_count(bb: u64) -> u32 {
    bb.count_ones()
}

/// The lowest square of `bb` (64 for an empty board).
#[no_mangle]
pub(crate) extern "C" fn tb_lsb(bb: u64) -> u32 {
    bb.trailing_zeros()
}

/// `bb` without its lowest square.
#[no_mangle]
pub(crate) extern "C" fn tb_pop_lsb(bb: u64) -> u64 {
    bb & bb.wrapping_sub(1)
}

/// The square of a helper's argument, taken modulo 64.
fn square(sq: u32) -> Square {
    Square::from_index(sq & 63)
}

/// The squares a king on `sq` attacks.
#[no_mangle]
pub(crate) extern "C" fn tb_king_attacks(sq: u32) -> u64 {
    king_attacks(square(sq)).0
}

/// The squares a queen on `sq` attacks, `occ` occupied.
#[no_mangle]
pub(crate) extern "C" fn tb_queen_attacks(sq: u32, occ: u64) -> u64 {
    tb_rook_attacks(sq, occ) | tb_bishop_attacks(sq, occ)
}

/// The squares a rook on `sq` attacks, `occ` occupied.
#[no_mangle]
pub(crate) extern "C" fn tb_rook_attacks(sq: u32, occ: u64) -> u64 {
    rook_attacks(square(sq), Bitboard(occ)).0
}

/// The squares a bishop on `sq` attacks, `occ` occupied.
#[no_mangle]
pub(crate) extern "C" fn tb_bishop_attacks(sq: u32, occ: u64) -> u64 {
    bishop_attacks(square(sq), Bitboard(occ)).0
}

/// The squares a knight on `sq` attacks.
#[no_mangle]
pub(crate) extern "C" fn tb_knight_attacks(sq: u32) -> u64 {
    knight_attacks(square(sq)).0
}

/// The squares a pawn on `sq` attacks: white's (`color` true) towards the eighth rank.
#[no_mangle]
pub(crate) extern "C" fn tb_pawn_attacks(sq: u32, color: bool) -> u64 {
    let side = if color { Side::White } else { Side::Black };
    pawn_attacks(side, square(sq)).0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_and_scores_are_fathoms() {
        // A win in time, a win the count spoils, a draw, a loss that lasts, a near loss.
        assert_eq!(rank_and_score(5, 0, false, true), (1000, 31744));
        assert_eq!(rank_and_score(5, 0, true, true), (995, 31744));
        assert_eq!(rank_and_score(60, 60, false, true), (880, 40));
        assert_eq!(rank_and_score(60, 60, false, false), (880, 31744));
        assert_eq!(rank_and_score(0, 30, false, true), (0, 0));
        assert_eq!(rank_and_score(-60, 50, false, true), (-890, -45));
        assert_eq!(rank_and_score(-30, 50, false, true), (-920, -31744));
        assert_eq!(rank_and_score(-10, 0, false, true), (-1000, -31744));
    }

    #[test]
    fn moves_pack_as_fathom_packs_them() {
        let pos: Position = "8/P7/8/8/8/8/k7/4K3 w - - 0 1".parse().unwrap();
        let mut list = crate::chess::MoveList::new();
        pos.legal_moves(&mut list);
        let queen = list
            .as_slice()
            .iter()
            .find(|m| m.promotion == Some(Role::Queen));
        let queen = queen.unwrap();
        // a7 (48) to a8 (56), promotion code 1.
        assert_eq!(tb_move(queen), 56 | 48 << 6 | 1 << 12);
        let packed = result(Wdl5::Win, queen, Dtz(1));
        assert_eq!(packed & 0xF, 4);
        assert_eq!(packed >> 4 & 0x3F, 56);
        assert_eq!(packed >> 10 & 0x3F, 48);
        assert_eq!(packed >> 16 & 7, 1);
        assert_eq!(packed >> 20, 1);
    }
}
