//! Table files copied from elsewhere: opening any bytes as a table, then probing, must give
//! an answer or an error, never a panic. The header checksum is recomputed over the input,
//! so that the fuzzer reaches the header's fields and the streams (the checksum check
//! itself is exercised by `table_flip`).
#![no_main]

mod scratch;

use libfuzzer_sys::fuzz_target;
use retrobook::chess::Position;
use retrobook::table::{TableFile, HEADER_LEN};
use retrobook::Tablebase;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Positions of every 3-piece material, both sides to move, one with an en-passant right.
const FENS: [&str; 12] = [
    "8/8/8/8/8/3k4/8/K1R5 w - - 0 1",
    "8/8/8/8/8/3k4/8/K1R5 b - - 0 1",
    "8/8/8/8/8/3K4/8/k1r5 b - - 0 1",
    "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1",
    "k7/8/1K6/8/8/8/8/7Q b - - 0 1",
    "8/8/8/8/8/2k5/4P3/K7 w - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
    "8/8/8/8/8/3k4/8/KB6 b - - 0 1",
    "8/8/8/8/8/3k4/8/KN6 b - - 0 1",
    "8/8/8/8/8/3k4/8/K7 w - - 0 1",
    "8/8/8/8/3k4/8/8/K1R4r w - - 0 1",
    "8/8/8/3pP3/8/8/8/K1k5 w - d6 0 1",
];

fn positions() -> &'static [Position] {
    static P: OnceLock<Vec<Position>> = OnceLock::new();
    P.get_or_init(|| FENS.iter().map(|f| f.parse().expect("fixed FEN")).collect())
}

/// A folder of this process's own, reused by every input (a table named like one).
fn file() -> &'static (PathBuf, PathBuf) {
    static F: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    F.get_or_init(|| {
        let dir = scratch::folder("fuzz-table");
        let path = dir.join("KRvK.rbt");
        (dir, path)
    })
}

fuzz_target!(|data: &[u8]| {
    let (dir, path) = file();
    scratch::write_table(path, data, HEADER_LEN);

    // The file alone: every value of both layers, where the table is small.
    if let Ok(t) = TableFile::open(path) {
        if t.index().size() <= 1 << 20 {
            let _ = t.decode_wdl(retrobook::Side::White);
            let _ = t.decode_wdl(retrobook::Side::Black);
            let _ = t.decode_dtm();
        }
    }

    // As a probing library opens it: by folder.
    let mut tb = Tablebase::with_cache_bytes(1 << 12).expect("a small cache");
    if tb.add_dir(dir).is_err() {
        return;
    }
    for pos in positions() {
        let _ = tb.probe_wdl(pos);
        let _ = tb.probe_wdl5(pos);
        let _ = tb.probe_dtm(pos);
        let _ = tb.probe_root(pos);
        let _ = tb.best_moves(pos);
    }
});
