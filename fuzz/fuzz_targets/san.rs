//! SAN moves from game records and users: from a few fixed positions, any text must be
//! refused or read as one of the position's legal moves.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrobook::chess::{MoveList, Position};
use std::sync::OnceLock;

/// The start position, middle games with castling, en passant, promotions and pins.
const FENS: [&str; 5] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/pppq1ppp/2n2n2/3pp3/1b1PP1b1/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1",
    "r1bqk2r/pp1n1ppp/2p1pn2/3pP3/1bPP4/2N2N2/PP3PPP/R1BQKB1R w KQkq d6 0 8",
    "2r1k2r/1P3ppp/8/3pP3/8/8/5PPP/R3K2R w KQk d6 0 1",
    "4k3/8/8/2N1N3/8/2N1N3/8/R3K2R w KQ - 0 1",
];

fn positions() -> &'static [(Position, Vec<retrobook::chess::Move>)] {
    static POSITIONS: OnceLock<Vec<(Position, Vec<retrobook::chess::Move>)>> = OnceLock::new();
    POSITIONS.get_or_init(|| {
        FENS.iter()
            .map(|f| {
                let pos: Position = f.parse().expect("fixed FEN");
                let mut list = MoveList::new();
                pos.legal_moves(&mut list);
                (pos, list.as_slice().to_vec())
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for (pos, legal) in positions() {
        if let Ok(m) = pos.parse_san(&text) {
            assert!(legal.contains(&m), "{pos}: {text:?} read as {m}, not legal");
            // What it read is written back as a SAN that reads the same move.
            assert_eq!(pos.parse_san(&pos.san(&m)).ok(), Some(m), "{pos}: {text:?}");
        }
    }
});
