//! Book files copied from elsewhere: opening any bytes as a book, probing it, and backing
//! up values through it must give an answer or an error, never a panic. Both checksums are
//! recomputed over the input, so that the fuzzer reaches the entries (a changed byte with
//! its checksums left alone is refused at open, which is simple code).
#![no_main]

mod scratch;

use libfuzzer_sys::fuzz_target;
use retrobook::book::{backup, score_permille, Book};
use retrobook::chess::{MoveList, Position};
use retrobook::progress::Silent;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Header bytes, before the entries; the checksums' offsets in it.
const HEADER: usize = 64;
const ENTRIES_CRC_AT: usize = 40;
const HEADER_CRC_AT: usize = 60;

/// Positions of the first moves of common openings, which the seed books hold.
const LINES: [&[&str]; 8] = [
    &[],
    &["e2e4"],
    &["d2d4"],
    &["e2e4", "e7e5"],
    &["e2e4", "c7c5"],
    &["d2d4", "g8f6"],
    &["g1f3"],
    &["e2e4", "e7e5", "g1f3"],
];

fn positions() -> &'static [Position] {
    static P: OnceLock<Vec<Position>> = OnceLock::new();
    P.get_or_init(|| {
        LINES
            .iter()
            .map(|line| {
                line.iter().fold(Position::start(), |p, m| {
                    p.play(&p.parse_uci(m).expect("legal"))
                })
            })
            .collect()
    })
}

fn file() -> &'static PathBuf {
    static F: OnceLock<PathBuf> = OnceLock::new();
    F.get_or_init(|| {
        scratch::folder("fuzz-book").join("book.rbb")
    })
}

fuzz_target!(|data: &[u8]| {
    let path = file();
    let mut bytes = data.to_vec();
    if bytes.len() >= HEADER {
        let crc = crc32fast::hash(&bytes[HEADER..]);
        bytes[ENTRIES_CRC_AT..ENTRIES_CRC_AT + 4].copy_from_slice(&crc.to_le_bytes());
        let crc = crc32fast::hash(&bytes[..HEADER_CRC_AT]);
        bytes[HEADER_CRC_AT..HEADER].copy_from_slice(&crc.to_le_bytes());
    }
    std::fs::write(path, &bytes).expect("write the book");
    let Ok(book) = Book::open(path) else {
        return;
    };
    let _ = book.info();
    for e in book.iter() {
        let _ = score_permille(&e);
    }
    for pos in positions() {
        let answer = book.probe(pos);
        let mut legal = MoveList::new();
        pos.legal_moves(&mut legal);
        for m in &answer.moves {
            assert!(
                legal.as_slice().contains(&m.mv),
                "{pos}: {} not legal",
                m.mv
            );
            let (_, _) = (m.score(), m.goodness());
        }
    }
    let small = book.len() <= 4096;
    drop(book);
    if small {
        // Rewrites the file in place with back-up values, reading it whole first.
        let _ = backup(path, 1, &Silent);
        let _ = Book::open(path).map(|b| b.probe(&Position::start()));
    }
});
