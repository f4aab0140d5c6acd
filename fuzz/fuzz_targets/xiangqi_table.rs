//! Xiangqi table files copied from elsewhere: opening any bytes as a table, then probing
//! and verifying, must give an answer or an error, never a panic (nor a hang). The header
//! checksum is recomputed over the input, so that the fuzzer reaches the header's fields,
//! the streams and the rule list.
#![no_main]

mod scratch;

use libfuzzer_sys::fuzz_target;
use retrobook::probe::{Tablebase, Xiangqi};
use retrobook::table::xiangqi::XiangqiFile;
use retrobook::table::HEADER_LEN;
use retrobook::xiangqi::Position;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Positions of KRvK, both sides to move, and one of another table.
const FENS: [&str; 4] = [
    "9/9/4k4/9/9/9/9/9/9/R2K5 w",
    "9/9/4k4/9/9/9/9/9/9/R2K5 b",
    "3k5/9/9/9/9/9/9/9/9/4K3r b",
    "4k4/9/9/9/9/9/9/9/9/3K1C3 w",
];

fn positions() -> &'static [Position] {
    static P: OnceLock<Vec<Position>> = OnceLock::new();
    P.get_or_init(|| FENS.iter().map(|f| Position::from_fen(f).expect("fixed FEN")).collect())
}

/// A folder of this process's own, reused by every input (a table named like one).
fn file() -> &'static (PathBuf, PathBuf) {
    static F: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    F.get_or_init(|| {
        let dir = scratch::folder("fuzz-xiangqi-table");
        let path = dir.join("KRvK.rbx");
        (dir, path)
    })
}

fuzz_target!(|data: &[u8]| {
    let (dir, path) = file();
    scratch::write_table(path, data, HEADER_LEN);

    // The file alone: every value, where the table is small.
    if let Ok(t) = XiangqiFile::open(path) {
        if t.header().size <= 1 << 16 {
            let _ = t.codes(retrobook::Side::White);
            let _ = t.codes(retrobook::Side::Black);
        }
    }
    // As a prober opens it: by folder, each position, its moves, its line, and `verify`.
    let Ok(tb) = Tablebase::<Xiangqi>::open(dir) else {
        return;
    };
    for pos in positions() {
        let _ = tb.probe(pos);
        let _ = tb.moves(pos);
        let _ = tb.mainline(pos);
    }
    let _ = tb.verify(&"KRvK".parse().expect("a signature"), None);
});
