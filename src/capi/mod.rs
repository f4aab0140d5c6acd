//! The C ABI (`include/retrobook.h`, generated from this file by cbindgen).
//!
//! Functions take what a chess engine holds, as Fathom-style probers do: bitboards of the
//! white and black pieces and of each piece type (bit 0 = a1, bit 63 = h8), the side to
//! move, the en-passant square (0 for none) and the castling rights (bit 0 white king side,
//! 1 white queen side, 2 black king side, 3 black queen side; tables hold no position with
//! castling rights, so table probes of one fail). Every function that returns an `int32_t`
//! returns `RB_FAILED` when it has no answer: a null pointer, impossible bitboards, castling
//! rights, a bad FEN, a missing or damaged table. Nothing unwinds across the boundary.
//!
//! Xiangqi tables are probed by FEN (`rb_xiangqi_*`). Fathom's API (`include/tbprobe.h`) is
//! served too, over the same tables (`fathom`).

// Declared in its own header, include/tbprobe.h.
/// cbindgen:ignore
mod fathom;

use crate::book::polyglot_move::promotion_code;
use crate::book::Book;
use crate::chess::{Castling, Move, Position, Role, Square};
use crate::probe::{Tablebase, Xiangqi};
use crate::retro::Verdict;
use crate::side::Side;
use crate::value::{Dtm, Wdl, Wdl5};
use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The failure value of every `int32_t` result.
pub const RB_FAILED: i32 = -2;
/// `rb_probe_dtm`: neither side can force mate.
pub const RB_NO_MATE: i32 = -1;
/// `rb_probe_wdl`: the side to move loses.
pub const RB_LOSS: i32 = -1;
/// `rb_probe_wdl`: draw.
pub const RB_DRAW: i32 = 0;
/// `rb_probe_wdl`: the side to move wins.
pub const RB_WIN: i32 = 1;
/// `rb_probe_wdl50`: lost within the 50-move rule (Fathom's `TB_LOSS`).
pub const RB_WDL50_LOSS: i32 = 0;
/// `rb_probe_wdl50`: lost, but the 50-move rule draws it.
pub const RB_WDL50_BLESSED_LOSS: i32 = 1;
/// `rb_probe_wdl50`: draw.
pub const RB_WDL50_DRAW: i32 = 2;
/// `rb_probe_wdl50`: won, but the 50-move rule draws it.
pub const RB_WDL50_CURSED_WIN: i32 = 3;
/// `rb_probe_wdl50`: won within the 50-move rule.
pub const RB_WDL50_WIN: i32 = 4;

/// An open set of tables; opaque to C. Thread-safe: share one among search threads.
pub struct RbTablebase(Tablebase);

/// One legal move of a root position with its value, as `rb_probe_root` reports it.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RbRootMove {
    /// Origin square (0 = a1 .. 63 = h8).
    pub from: u8,
    /// Destination square.
    pub to: u8,
    /// Promotion piece: 0 none, 1 knight, 2 bishop, 3 rook, 4 queen.
    pub promotion: u8,
    /// The root's distance to mate through this move, for the side playing it, encoded
    /// as `rb_probe_dtm` encodes positions: plies to mate from the root (odd: the mover
    /// mates; even: the mover is mated), or `RB_NO_MATE`. (A move's `dtm` in the JSON
    /// answers is the position it leads to, for the side to move there.)
    pub root_dtm: i32,
}

/// One legal move of a root position valued for play from the position's move count, as
/// `rb_probe_root_clock` reports it: all the root's values through this move, for the side
/// playing it (`root_` names them apart from a position's own).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RbPlayMove {
    /// Origin square (0 = a1 .. 63 = h8).
    pub from: u8,
    /// Destination square.
    pub to: u8,
    /// Promotion piece: 0 none, 1 knight, 2 bishop, 3 rook, 4 queen.
    pub promotion: u8,
    /// `RB_WIN`, `RB_DRAW` or `RB_LOSS` with best play under the 50-move rule from the
    /// move count given: a win whose reset cannot come in time is a draw.
    pub root_outcome: i32,
    /// The class under the 50-move rule from that count (as `category` is for a position
    /// in the JSON answers), numbered as `rb_probe_wdl50` numbers the classes; `wdl50` is
    /// always a position's class with the count at zero.
    pub root_category: i32,
    /// The root's distance to zeroing through this move: plies from the root to the next
    /// capture, pawn move or mate, the move counted, positive when the move wins,
    /// negative when it loses, 0 for a draw; beyond 100 a win the rule spoils (a loss it
    /// saves) with the count at zero. (A move's `dtz` in the JSON answers is the position
    /// it leads to, for the side to move there.)
    pub root_dtz: i32,
    /// The root's distance to mate through this move, encoded as in `RbRootMove`.
    pub root_dtm: i32,
}

/// An open opening book; opaque to C. Thread-safe.
pub struct RbBook(Book);

/// One book move with its statistics (from the mover's view), as `rb_book_probe` reports it,
/// and its back-up value when the book has been backed up (`retrobook book backup`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RbBookMove {
    /// Origin square (0 = a1 .. 63 = h8).
    pub from: u8,
    /// Destination square (the king's destination for castling, as in UCI).
    pub to: u8,
    /// Promotion piece: 0 none, 1 knight, 2 bishop, 3 rook, 4 queen.
    pub promotion: u8,
    /// Games that played the move.
    pub games: u32,
    /// Of those, won by the side that played it.
    pub win: u32,
    /// Drawn.
    pub draw: u32,
    /// Lost by the side that played it.
    pub loss: u32,
    /// Games that played the move into a repetition of a position already seen in the game.
    pub repetitions: u32,
    /// Back-up value of the move for the side playing it, in per-mille (0..=1000: wins plus
    /// half the draws), or -1 if the book has no back-up value for it.
    pub value: i32,
    /// 1 when some path in the book graph reaching the position after the move, taken as
    /// history, changes that value (0 otherwise, and when there is no value).
    pub path_dependent: u8,
}

/// The squares and promotion code of a move, as the C structs carry them.
fn move_fields(m: &Move) -> (u8, u8, u8) {
    let promotion = promotion_code(m.promotion) as u8;
    (m.from.index() as u8, m.to.index() as u8, promotion)
}

/// Runs `f`, turning a panic into `fail`: no unwinding into C.
fn guarded<T>(fail: T, f: impl FnOnce() -> Option<T>) -> T {
    catch_unwind(AssertUnwindSafe(f))
        .ok()
        .flatten()
        .unwrap_or(fail)
}

/// The UTF-8 text of a C string, None for NULL or other bytes.
fn text<'a>(s: *const c_char) -> Option<&'a str> {
    if s.is_null() {
        return None;
    }
    // SAFETY: the caller of the extern function passes NULL (checked above) or a
    // NUL-terminated string that outlives the call.
    unsafe { CStr::from_ptr(s) }.to_str().ok()
}

fn open(paths: *const c_char, cache_bytes: Option<usize>) -> Option<*mut RbTablebase> {
    let paths = text(paths)?;
    let dirs: Vec<&str> = paths.split(':').filter(|d| !d.is_empty()).collect();
    if dirs.is_empty() {
        return None;
    }
    let mut tb = match cache_bytes {
        Some(b) => Tablebase::with_cache_bytes(b).ok()?,
        None => Tablebase::new(),
    };
    for dir in dirs {
        tb.add_dir(std::path::Path::new(dir)).ok()?;
    }
    Some(Box::into_raw(Box::new(RbTablebase(tb))))
}

/// Opens every table of one or more folders, separated by `:`. Returns NULL if no folder
/// is named, a folder cannot be read or holds a damaged table. Close with `rb_close`.
/// Prints nothing, whatever happens.
///
/// # Safety
/// `paths` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rb_open(paths: *const c_char) -> *mut RbTablebase {
    guarded(std::ptr::null_mut(), || open(paths, None))
}

/// `rb_open` with a cache of distance-to-mate answers of about `cache_bytes` bytes (the
/// default is 64 MiB; WDL probes use no cache), taken from the system as it fills. Returns
/// NULL, too, for a size more than the machine's memory.
///
/// # Safety
/// `paths` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rb_open_with_cache(
    paths: *const c_char,
    cache_bytes: usize,
) -> *mut RbTablebase {
    guarded(std::ptr::null_mut(), || open(paths, Some(cache_bytes)))
}

/// Closes a tablebase opened by `rb_open`; NULL is ignored.
///
/// # Safety
/// `tb` is NULL or a pointer from `rb_open` not yet closed, no longer used by any thread.
#[no_mangle]
pub unsafe extern "C" fn rb_close(tb: *mut RbTablebase) {
    if !tb.is_null() {
        // SAFETY: the pointer came from Box::into_raw in `open` and is closed once.
        drop(unsafe { Box::from_raw(tb) });
    }
}

/// The largest number of pieces (kings included) of any open table; 0 for NULL or none.
///
/// # Safety
/// `tb` is NULL or an open tablebase.
#[no_mangle]
pub unsafe extern "C" fn rb_largest(tb: *const RbTablebase) -> u32 {
    // SAFETY: the caller passes NULL or an open tablebase.
    unsafe { tb.as_ref() }.map_or(0, |tb| tb.0.max_pieces())
}

/// The bitboards of a position as C callers pass them (bit 0 = a1), in the order of their
/// arguments: white, black, kings, queens, rooks, bishops, knights, pawns.
#[derive(Copy, Clone)]
struct Board([u64; 8]);

impl Board {
    /// The position of these pieces with `ep` (0: none), the `castling` rights of the
    /// module documentation and the side to move; None where they make no position.
    fn position(&self, ep: u32, castling: u32, white_to_move: bool) -> Option<Position> {
        if ep >= 64 {
            return None;
        }
        let ep = (ep != 0).then(|| Square::from_index(ep));
        let turn = if white_to_move {
            Side::White
        } else {
            Side::Black
        };
        let [white, black, kings, queens, rooks, bishops, knights, pawns] = self.0;
        let roles = [pawns, knights, bishops, rooks, queens, kings];
        let pos = Position::from_bitboards([white, black], roles, turn, ep).ok()?;
        with_castling(pos, castling)
    }
}

fn fen_position(fen: *const c_char) -> Option<Position> {
    text(fen)?.parse().ok()
}

fn wdl_code(w: Wdl) -> i32 {
    match w {
        Wdl::Loss => RB_LOSS,
        Wdl::Draw => RB_DRAW,
        Wdl::Win => RB_WIN,
    }
}

fn wdl50_code(w: Wdl5) -> i32 {
    match w {
        Wdl5::Loss => RB_WDL50_LOSS,
        Wdl5::BlessedLoss => RB_WDL50_BLESSED_LOSS,
        Wdl5::Draw => RB_WDL50_DRAW,
        Wdl5::CursedWin => RB_WDL50_CURSED_WIN,
        Wdl5::Win => RB_WDL50_WIN,
    }
}

fn dtm_code(d: Dtm) -> i32 {
    d.plies().map_or(RB_NO_MATE, |p| p as i32)
}

fn with_tb<T>(tb: *const RbTablebase, f: impl FnOnce(&Tablebase) -> Option<T>) -> Option<T> {
    // SAFETY: the caller passes NULL or an open tablebase.
    unsafe { tb.as_ref() }.and_then(|tb| f(&tb.0))
}

/// Win, draw or loss for the side to move: `RB_WIN`, `RB_DRAW`, `RB_LOSS`, or `RB_FAILED`.
/// `ep` is the en-passant square (0: none); with castling rights the answer is `RB_FAILED`.
///
/// # Safety
/// `tb` is NULL or an open tablebase.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn rb_probe_wdl(
    tb: *const RbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    castling: u32,
    white_to_move: bool,
) -> i32 {
    guarded(RB_FAILED, || {
        let board = Board([white, black, kings, queens, rooks, bishops, knights, pawns]);
        let pos = board.position(ep, castling, white_to_move)?;
        with_tb(tb, |tb| tb.probe_wdl(&pos).ok().map(wdl_code))
    })
}

/// Win, draw or loss under the 50-move rule with the move count at zero, in five values:
/// `RB_WDL50_LOSS` (0), `RB_WDL50_BLESSED_LOSS`, `RB_WDL50_DRAW`, `RB_WDL50_CURSED_WIN`,
/// `RB_WDL50_WIN` (4), numbered as Fathom numbers them; or `RB_FAILED`. Arguments as
/// `rb_probe_wdl`.
///
/// # Safety
/// `tb` is NULL or an open tablebase.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn rb_probe_wdl50(
    tb: *const RbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    castling: u32,
    white_to_move: bool,
) -> i32 {
    guarded(RB_FAILED, || {
        let board = Board([white, black, kings, queens, rooks, bishops, knights, pawns]);
        let pos = board.position(ep, castling, white_to_move)?;
        with_tb(tb, |tb| tb.probe_wdl5(&pos).ok().map(wdl50_code))
    })
}

/// Plies to mate with best play: odd when the side to move mates, even when it is mated
/// (0: checkmated now); `RB_NO_MATE` when neither side can force mate; `RB_FAILED`.
///
/// # Safety
/// `tb` is NULL or an open tablebase.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn rb_probe_dtm(
    tb: *const RbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    castling: u32,
    white_to_move: bool,
) -> i32 {
    guarded(RB_FAILED, || {
        let board = Board([white, black, kings, queens, rooks, bishops, knights, pawns]);
        let pos = board.position(ep, castling, white_to_move)?;
        with_tb(tb, |tb| tb.probe_dtm(&pos).ok().map(dtm_code))
    })
}

/// Every legal move of the position, best first, with its value for the side playing it.
/// Writes at most `capacity` moves to `moves` and returns how many the position has
/// (more than `capacity` means the list was cut), or `RB_FAILED`.
///
/// # Safety
/// `tb` is NULL or an open tablebase; `moves` is NULL or points to `capacity` writable
/// `RbRootMove`s.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn rb_probe_root(
    tb: *const RbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    castling: u32,
    white_to_move: bool,
    moves: *mut RbRootMove,
    capacity: usize,
) -> i32 {
    guarded(RB_FAILED, || {
        let board = Board([white, black, kings, queens, rooks, bishops, knights, pawns]);
        let pos = board.position(ep, castling, white_to_move)?;
        let ranked = with_tb(tb, |tb| tb.best_moves(&pos).ok())?;
        let entries = ranked.iter().map(|(m, after)| root_move(m, after.back()));
        write_list(moves, capacity, entries)
    })
}

/// The moves an engine may play at the root, as Fathom's `tb_probe_root` chooses them: the
/// legal moves that keep the position's win, draw or loss, fastest mate first (slowest
/// loss first), each with its value for the side playing it. Writes at most `capacity`
/// moves to `moves` and returns how many there are (more than `capacity` means the list was
/// cut; 0 when the side to move is mated or stalemated), or `RB_FAILED`.
///
/// # Safety
/// `tb` is NULL or an open tablebase; `moves` is NULL or points to `capacity` writable
/// `RbRootMove`s.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn rb_probe_root_best(
    tb: *const RbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    castling: u32,
    white_to_move: bool,
    moves: *mut RbRootMove,
    capacity: usize,
) -> i32 {
    guarded(RB_FAILED, || {
        let board = Board([white, black, kings, queens, rooks, bishops, knights, pawns]);
        let pos = board.position(ep, castling, white_to_move)?;
        let best = with_tb(tb, |tb| tb.probe_root(&pos).ok())?;
        let entries = best.iter().map(|r| root_move(&r.mv, r.root_dtm));
        write_list(moves, capacity, entries)
    })
}

/// Every legal move ranked for play from the halfmove clock `rule50` (plies since the last
/// capture or pawn move), on the model of Fathom's `tb_probe_root_dtz`: first, among the
/// moves that keep a win under the 50-move rule from that count, the one that mates
/// fastest; else a move that keeps the draw; else the longest resistance (the winner's
/// distance to zeroing, then to mate). `repeated`: a position has already repeated since
/// the last capture or pawn move; wins then go by least distance to zeroing first, so that
/// no position comes back a third time. Needs tables with a DTZ layer. Writes at most
/// `capacity` moves to `moves` and returns how many the position has (0: mated or
/// stalemated), or `RB_FAILED`. `rb_probe_root` and `rb_probe_root_best` keep ranking by
/// distance to mate alone.
///
/// # Safety
/// `tb` is NULL or an open tablebase; `moves` is NULL or points to `capacity` writable
/// `RbPlayMove`s.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn rb_probe_root_clock(
    tb: *const RbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    castling: u32,
    white_to_move: bool,
    rule50: u32,
    repeated: bool,
    moves: *mut RbPlayMove,
    capacity: usize,
) -> i32 {
    guarded(RB_FAILED, || {
        let board = Board([white, black, kings, queens, rooks, bishops, knights, pawns]);
        let mut pos = board.position(ep, castling, white_to_move)?;
        pos.set_clocks(rule50, pos.fullmoves());
        root_clock(tb, &pos, repeated, moves, capacity)
    })
}

/// `rb_probe_root_clock` of `pos`, its halfmove clock the count.
fn root_clock(
    tb: *const RbTablebase,
    pos: &Position,
    repeated: bool,
    moves: *mut RbPlayMove,
    capacity: usize,
) -> Option<i32> {
    let ranked = with_tb(tb, |tb| tb.probe_root_clock(pos, repeated).ok())?;
    let entries = ranked.iter().map(|m| {
        let (from, to, promotion) = move_fields(&m.mv);
        RbPlayMove {
            from,
            to,
            promotion,
            root_outcome: wdl_code(m.root_outcome),
            root_category: wdl50_code(m.root_category),
            root_dtz: m.root_dtz.0,
            root_dtm: dtm_code(m.root_dtm),
        }
    });
    write_list(moves, capacity, entries)
}

/// `rb_probe_root_clock` of a position given as FEN, the move count its halfmove clock.
///
/// # Safety
/// `tb` is NULL or an open tablebase; `fen` is NULL or a NUL-terminated string; `moves` is
/// NULL or points to `capacity` writable `RbPlayMove`s.
#[no_mangle]
pub unsafe extern "C" fn rb_probe_root_clock_fen(
    tb: *const RbTablebase,
    fen: *const c_char,
    repeated: bool,
    moves: *mut RbPlayMove,
    capacity: usize,
) -> i32 {
    guarded(RB_FAILED, || {
        root_clock(tb, &fen_position(fen)?, repeated, moves, capacity)
    })
}

/// The distance to zeroing of `pos` written to `dtz`, and its class from its own count.
fn zeroing(tb: *const RbTablebase, pos: &Position, dtz: *mut i32) -> Option<i32> {
    if dtz.is_null() {
        return None;
    }
    let d = with_tb(tb, |tb| tb.probe_dtz(pos).ok())?;
    let mated = pos.is_checkmate();
    // SAFETY: `dtz` is not NULL (checked above) and the caller passes it writable.
    unsafe { dtz.write(d.0) };
    Some(wdl50_code(d.class_of_position(pos.halfmoves(), mated)))
}

/// Distance to zeroing of the position for its side to move: plies to the next capture,
/// pawn move or mate with best play under the 50-move rule, exact (never rounded as
/// Syzygy's files round some), positive when the side to move wins, negative when it
/// loses, 0 for a draw; beyond 100 a win the rule spoils (a loss it saves) from a count of
/// zero. Written to `dtz`. Returns the position's class under the rule from the halfmove
/// clock `rule50` (`RB_WDL50_*`: from a count of 100 every win is cursed, as Lichess
/// classes it), or `RB_FAILED` (`dtz` untouched). Needs tables with a DTZ layer.
///
/// # Safety
/// `tb` is NULL or an open tablebase; `dtz` is NULL or writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn rb_probe_dtz(
    tb: *const RbTablebase,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    castling: u32,
    white_to_move: bool,
    rule50: u32,
    dtz: *mut i32,
) -> i32 {
    guarded(RB_FAILED, || {
        let board = Board([white, black, kings, queens, rooks, bishops, knights, pawns]);
        let mut pos = board.position(ep, castling, white_to_move)?;
        pos.set_clocks(rule50, pos.fullmoves());
        zeroing(tb, &pos, dtz)
    })
}

/// `rb_probe_dtz` of a position given as FEN, the move count its halfmove clock.
///
/// # Safety
/// `tb` is NULL or an open tablebase; `fen` is NULL or a NUL-terminated string; `dtz` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rb_probe_dtz_fen(
    tb: *const RbTablebase,
    fen: *const c_char,
    dtz: *mut i32,
) -> i32 {
    guarded(RB_FAILED, || zeroing(tb, &fen_position(fen)?, dtz))
}

/// A move and its value for the side playing it, as the C struct carries them.
fn root_move(m: &Move, value: Dtm) -> RbRootMove {
    let (from, to, promotion) = move_fields(m);
    RbRootMove {
        from,
        to,
        promotion,
        root_dtm: dtm_code(value),
    }
}

/// `rb_probe_wdl` of a position given as FEN (six fields or four-field EPD).
///
/// # Safety
/// `tb` is NULL or an open tablebase; `fen` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rb_probe_wdl_fen(tb: *const RbTablebase, fen: *const c_char) -> i32 {
    guarded(RB_FAILED, || {
        let pos = fen_position(fen)?;
        with_tb(tb, |tb| tb.probe_wdl(&pos).ok().map(wdl_code))
    })
}

/// `rb_probe_wdl50` of a position given as FEN.
///
/// # Safety
/// `tb` is NULL or an open tablebase; `fen` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rb_probe_wdl50_fen(tb: *const RbTablebase, fen: *const c_char) -> i32 {
    guarded(RB_FAILED, || {
        let pos = fen_position(fen)?;
        with_tb(tb, |tb| tb.probe_wdl5(&pos).ok().map(wdl50_code))
    })
}

/// `rb_probe_dtm` of a position given as FEN.
///
/// # Safety
/// `tb` is NULL or an open tablebase; `fen` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rb_probe_dtm_fen(tb: *const RbTablebase, fen: *const c_char) -> i32 {
    guarded(RB_FAILED, || {
        let pos = fen_position(fen)?;
        with_tb(tb, |tb| tb.probe_dtm(&pos).ok().map(dtm_code))
    })
}

/// Adds castling rights (the bits of the module documentation) to `pos`; None if a right has
/// no king and rook on their home squares.
fn with_castling(mut pos: Position, castling: u32) -> Option<Position> {
    if castling > 15 {
        return None;
    }
    for (flag, color, rook_file) in [
        (Castling::WHITE_KING, Side::White, 7),
        (Castling::WHITE_QUEEN, Side::White, 0),
        (Castling::BLACK_KING, Side::Black, 7),
        (Castling::BLACK_QUEEN, Side::Black, 0),
    ] {
        if castling & u32::from(flag) != 0 {
            let rank = if color == Side::White { 0 } else { 7 };
            let home = |file, role| {
                pos.piece_at(Square::from_coords(file, rank))
                    .is_some_and(|p| p.color == color && p.role == role)
            };
            if !home(4, Role::King) || !home(rook_file, Role::Rook) {
                return None;
            }
        }
    }
    pos.set_castling(Castling(castling as u8));
    Some(pos)
}

/// Opens a chess book file (`retrobook book build`). Returns NULL if it cannot be read, is
/// damaged, or is a book of another game. Close with `rb_book_close`.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rb_book_open(path: *const c_char) -> *mut RbBook {
    guarded(std::ptr::null_mut(), || {
        let book = Book::open(text(path)?).ok()?;
        (book.info().game == crate::Game::Chess).then_some(())?;
        Some(Box::into_raw(Box::new(RbBook(book))))
    })
}

/// Closes a book opened by `rb_book_open`; NULL is ignored.
///
/// # Safety
/// `book` is NULL or a pointer from `rb_book_open` not yet closed, no longer in use.
#[no_mangle]
pub unsafe extern "C" fn rb_book_close(book: *mut RbBook) {
    if !book.is_null() {
        // SAFETY: the pointer came from Box::into_raw in `rb_book_open`, closed once.
        drop(unsafe { Box::from_raw(book) });
    }
}

fn book_moves(
    book: *const RbBook,
    pos: &Position,
    moves: *mut RbBookMove,
    capacity: usize,
) -> Option<i32> {
    // SAFETY: the caller passes NULL or an open book.
    let book = unsafe { book.as_ref() }?;
    let answer = book.0.probe(pos);
    let entries = answer.moves.iter().map(|m| {
        let (from, to, promotion) = move_fields(&m.mv);
        let e = &m.entry;
        RbBookMove {
            from,
            to,
            promotion,
            games: e.games,
            win: e.win,
            draw: e.draw,
            loss: e.loss,
            repetitions: e.repeats,
            value: e.backup.map_or(-1, |b| i32::from(b.value_permille)),
            path_dependent: u8::from(e.backup.is_some_and(|b| b.path_dependent)),
        }
    });
    write_list(moves, capacity, entries)
}

/// Writes the first `capacity` of `items` to the C array `out` and returns how many there
/// are in all; None when `out` is NULL with room claimed.
fn write_list<T>(
    out: *mut T,
    capacity: usize,
    items: impl ExactSizeIterator<Item = T>,
) -> Option<i32> {
    if out.is_null() && capacity > 0 {
        return None;
    }
    let all = items.len();
    for (i, item) in items.take(capacity).enumerate() {
        // SAFETY: the caller passes `out` pointing to `capacity` entries, and i < capacity.
        unsafe { out.add(i).write(item) };
    }
    Some(all as i32)
}

/// The book's moves for a position, best first: writes at most `capacity` to `moves` and
/// returns how many the book has (0: position unknown), or `RB_FAILED`.
///
/// # Safety
/// `book` is NULL or an open book; `moves` is NULL or points to `capacity` writable
/// `RbBookMove`s.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn rb_book_probe(
    book: *const RbBook,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: u32,
    castling: u32,
    white_to_move: bool,
    moves: *mut RbBookMove,
    capacity: usize,
) -> i32 {
    guarded(RB_FAILED, || {
        let board = Board([white, black, kings, queens, rooks, bishops, knights, pawns]);
        let pos = board.position(ep, castling, white_to_move)?;
        book_moves(book, &pos, moves, capacity)
    })
}

/// `rb_book_probe` of a position given as FEN.
///
/// # Safety
/// `book` is NULL or an open book; `fen` is NULL or a NUL-terminated string; `moves` is NULL
/// or points to `capacity` writable `RbBookMove`s.
#[no_mangle]
pub unsafe extern "C" fn rb_book_probe_fen(
    book: *const RbBook,
    fen: *const c_char,
    moves: *mut RbBookMove,
    capacity: usize,
) -> i32 {
    guarded(RB_FAILED, || {
        let pos = fen_position(fen)?;
        book_moves(book, &pos, moves, capacity)
    })
}

/// An open folder of xiangqi tables; opaque to C. Thread-safe.
pub struct RbXiangqi(Tablebase<Xiangqi>);

/// A xiangqi position's value for its side to move, as `rb_xiangqi_probe_fen` reports it.
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RbXiangqiValue {
    /// `RB_WIN`, `RB_DRAW` or `RB_LOSS`.
    pub wdl: i32,
    /// Plies to a forced mate (odd: the side to move mates; even: it is mated), or
    /// `RB_NO_MATE` for a draw and for a value by a repetition rule.
    pub dtm: i32,
    /// 1 where the value rests on a repetition rule's verdict (perpetual check or
    /// perpetual chase; no distance is given for it), else 0.
    pub by_rule: u8,
}

/// Opens the xiangqi tables of folder `dir` (`retrobook gen --game xiangqi`). Returns NULL
/// if `dir` cannot be read or holds a damaged table. Close with `rb_xiangqi_close`.
///
/// # Safety
/// `dir` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rb_xiangqi_open(dir: *const c_char) -> *mut RbXiangqi {
    guarded(std::ptr::null_mut(), || {
        let tb = Tablebase::open(text(dir)?).ok()?;
        Some(Box::into_raw(Box::new(RbXiangqi(tb))))
    })
}

/// Closes tables opened by `rb_xiangqi_open`; NULL is ignored.
///
/// # Safety
/// `tb` is NULL or a pointer from `rb_xiangqi_open` not yet closed, no longer in use.
#[no_mangle]
pub unsafe extern "C" fn rb_xiangqi_close(tb: *mut RbXiangqi) {
    if !tb.is_null() {
        // SAFETY: the pointer came from Box::into_raw in `rb_xiangqi_open`, closed once.
        drop(unsafe { Box::from_raw(tb) });
    }
}

/// The value of a xiangqi position given as FEN (`rnbakabnr/9/... w`, clocks optional):
/// returns `RB_WIN`, `RB_DRAW` or `RB_LOSS` for the side to move, and fills `value` when it
/// is not NULL; `RB_FAILED` for a bad FEN, an illegal position, a missing or damaged table.
///
/// # Safety
/// `tb` is NULL or open; `fen` is NULL or a NUL-terminated string; `value` is NULL or
/// points to an `RbXiangqiValue`.
#[no_mangle]
pub unsafe extern "C" fn rb_xiangqi_probe_fen(
    tb: *const RbXiangqi,
    fen: *const c_char,
    value: *mut RbXiangqiValue,
) -> i32 {
    guarded(RB_FAILED, || {
        // SAFETY: the caller passes NULL or open tables.
        let tb = unsafe { tb.as_ref() }?;
        let pos = crate::xiangqi::Position::from_fen(text(fen)?).ok()?;
        let v = tb.0.probe(&pos).ok()?;
        let out = RbXiangqiValue {
            wdl: wdl_code(v.wdl()),
            dtm: match v {
                Verdict::Plain(d) => dtm_code(d),
                _ => RB_NO_MATE,
            },
            by_rule: u8::from(v.by_rule()),
        };
        // SAFETY: the caller passes NULL or a valid pointer.
        if let Some(slot) = unsafe { value.as_mut() } {
            *slot = out;
        }
        Some(out.wdl)
    })
}
