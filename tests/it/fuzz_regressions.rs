//! Inputs that the fuzz targets (fuzz/fuzz_targets, run by scripts/fuzz) found to crash,
//! hang or give a wrong value, kept as plain tests so that `cargo test` guards the fixes
//! without a fuzzer.

use retrobook::chess::{MoveList, Position};
use retrobook::index::TableIndex;

/// Every legal move of `pos` writes a SAN that reads back as the same move.
fn san_round_trips(pos: &Position) {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    for m in list.as_slice() {
        let san = pos.san(m);
        assert_eq!(pos.parse_san(&san).ok(), Some(*m), "{pos}: {san}");
    }
}

/// fen: an en-passant square with no pawn that could just have moved two squares (here
/// the side to move's own pawn stands in front of it) was accepted, and then that pawn's
/// push onto the square, a legal move, did not read back from its own SAN (`b3+`).
#[test]
fn fen_with_an_impossible_en_passant_square() {
    let inputs: [&[u8]; 2] = [
        b"8/8/8/8/Pp6/8/K7/7k b - b3 d.\x01\x00\x00\x00/8!/ b - b3 d3m",
        b"8/8/8/8/1p6/8/K7/7k b - b3 0 1",
    ];
    for input in inputs {
        let text = std::str::from_utf8(input).expect("UTF-8");
        if let Ok(pos) = text.parse::<Position>() {
            san_round_trips(&pos);
        }
    }
    // Refused now; the square behind a pawn that did just move two squares is kept.
    assert!("8/8/8/8/1p6/8/K7/7k b - b3 0 1"
        .parse::<Position>()
        .is_err());
    let pos: Position = "8/8/8/8/1P6/8/K7/7k b - b3 0 1"
        .parse()
        .expect("a double push");
    assert_eq!(
        pos.ep_square().map(|s| s.to_string()).as_deref(),
        Some("b3")
    );
    san_round_trips(&pos);
}

/// table_flip: building any table with pawns (here KPvK, the fuzz target's first choice)
/// panicked with "attempt to subtract with overflow" in `TableIndex::record_number` when
/// overflow checks are on (debug builds); release builds wrap and get the right number.
#[test]
fn record_numbers_of_pawn_tables_do_not_overflow() {
    for sig in ["KPvK", "KPvKP"] {
        let index = TableIndex::new(sig.parse().expect("material"));
        for idx in 0..index.size() {
            let record = index.record_number(idx);
            assert_eq!(index.from_record_number(record), Some(idx), "{sig} {idx}");
        }
    }
}
