//! FEN text from users, files and network clients: parsing must refuse bad input with an
//! error, and a position it accepts must write back to a FEN that reads the same position,
//! and generate its moves without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrobook::chess::{MoveList, Position};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(pos) = text.parse::<Position>() else {
        return;
    };
    let fen = pos.to_string();
    let again: Position = fen
        .parse()
        .unwrap_or_else(|e| panic!("{fen:?} written from {text:?} does not parse: {e}"));
    assert_eq!(again, pos, "round trip of {text:?} through {fen:?}");
    assert_eq!(again.to_string(), fen);

    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    assert_eq!(pos.has_legal_move(), !list.is_empty(), "{fen}");
    for m in list.as_slice() {
        // Every legal move writes a SAN and a UCI that read back as the same move.
        let san = pos.san(m);
        assert_eq!(pos.parse_san(&san).ok(), Some(*m), "{fen}: SAN {san}");
        let uci = m.to_string();
        assert_eq!(pos.parse_uci(&uci).ok(), Some(*m), "{fen}: UCI {uci}");
        let next = pos.play(m);
        assert!(
            !next.opponent_in_check(),
            "{fen}: {uci} leaves the king in check"
        );
    }
});
