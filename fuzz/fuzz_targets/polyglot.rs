//! Polyglot books from third parties: any bytes must open as a book or give an error, and
//! every move decoded from an entry must be a legal move that encodes back to its code.
#![no_main]

mod scratch;

use libfuzzer_sys::fuzz_target;
use retrobook::book::polyglot::PolyglotBook;
use retrobook::book::{decode_move, encode_move, polyglot_key};
use retrobook::chess::{MoveList, Position};
use std::path::PathBuf;
use std::sync::OnceLock;

const FENS: [&str; 5] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
    "r3k2r/pppq1ppp/2n2n2/3pp3/1b1PP1b1/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1",
    "r3k2r/pppq1ppp/2n2n2/3pp3/1b1PP1b1/2N2N2/PPPQ1PPP/R3K2R b KQkq - 0 1",
    "2r1k2r/1P3ppp/8/3pP3/8/8/5PPP/R3K2R w KQk d6 0 1",
];

fn positions() -> &'static [(Position, u64, Vec<retrobook::chess::Move>)] {
    static P: OnceLock<Vec<(Position, u64, Vec<retrobook::chess::Move>)>> = OnceLock::new();
    P.get_or_init(|| {
        FENS.iter()
            .map(|f| {
                let pos: Position = f.parse().expect("fixed FEN");
                let mut list = MoveList::new();
                pos.legal_moves(&mut list);
                (pos, polyglot_key(&pos), list.as_slice().to_vec())
            })
            .collect()
    })
}

fn file() -> &'static PathBuf {
    static F: OnceLock<PathBuf> = OnceLock::new();
    F.get_or_init(|| {
        scratch::folder("fuzz-polyglot").join("book.bin")
    })
}

fn check(pos: &Position, legal: &[retrobook::chess::Move], code: u16) {
    if let Some(m) = decode_move(pos, code) {
        assert!(
            legal.contains(&m),
            "{pos}: {code:#06x} decodes to {m}, not legal"
        );
        assert_eq!(encode_move(&m), code, "{pos}: {m}");
    }
}

fuzz_target!(|data: &[u8]| {
    let path = file();
    std::fs::write(path, data).expect("write the book");
    let Ok(book) = PolyglotBook::open(path) else {
        return;
    };
    assert_eq!(book.len() * 16, data.len());
    for (pos, key, legal) in positions() {
        for e in book.entries(*key) {
            assert_eq!(e.key, *key);
            check(pos, legal, e.mv);
        }
        // Every code of the file, whatever its key, in every position.
        for e in book.all().iter().take(64) {
            check(pos, legal, e.mv);
        }
    }
});
