//! Table files damaged on disk or in transfer: a valid table with up to three bits flipped
//! must open with an error, or answer every probe and decode every value exactly as the
//! intact table does, or fail that probe or decode with an error. CRC-32 catches every
//! error of up to three bits in the blocks it covers, so a different answer means a part of
//! the file that no checksum covers.
#![no_main]

mod scratch;

use libfuzzer_sys::fuzz_target;
use retrobook::chess::Position;
use retrobook::generate::{GenOptions, Session};
use retrobook::material::Material;
use retrobook::progress::Silent;
use retrobook::table::TableFile;
use retrobook::{Dtm, Tablebase, Threads, Wdl};
use std::path::PathBuf;
use std::sync::OnceLock;

/// The table damaged: with promotions, so probes also read its sub-tables.
const TARGET: &str = "KPvK";

const FENS: [&str; 8] = [
    "8/8/8/8/8/2k5/4P3/K7 w - - 0 1",
    "8/8/8/8/8/3k4/4P3/K7 b - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    "8/4P3/8/8/8/8/k7/2K5 w - - 0 1",
    "8/3kP3/8/8/8/8/8/2K5 b - - 0 1",
    "8/8/8/8/8/8/4p3/K1k5 w - - 0 1",
    "8/8/8/8/2k5/8/1P6/K7 b - - 0 1",
];

type Answers = Vec<(Option<Wdl>, Option<Dtm>)>;

struct Fixture {
    /// The intact file.
    bytes: Vec<u8>,
    /// Where damaged copies are written, beside the intact sub-tables.
    path: PathBuf,
    dir: PathBuf,
    positions: Vec<Position>,
    answers: Answers,
    /// Every WDL code of both sides and every DTM move count, as the intact file decodes.
    values: (Vec<u8>, Vec<u8>, Vec<u16>),
}

fn answers(tb: &Tablebase, positions: &[Position]) -> Answers {
    positions
        .iter()
        .map(|p| (tb.probe_wdl(p).ok(), tb.probe_dtm(p).ok()))
        .collect()
}

fn decode(t: &TableFile) -> (Option<Vec<u8>>, Option<Vec<u8>>, Option<Vec<u16>>) {
    let dtm = t.decode_dtm().ok().map(|d| {
        (0..t.index().size())
            .map(|i| d.get(i))
            .collect::<Vec<u16>>()
    });
    (t.decode_wdl(retrobook::Side::White).ok(), t.decode_wdl(retrobook::Side::Black).ok(), dtm)
}

/// Builds the target and its sub-tables once per process.
fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = scratch::folder("fuzz-table-flip");
        let opts = GenOptions {
            threads: Threads::new(1),
            ..Default::default()
        };
        let target: Material = TARGET.parse().expect("material");
        let tb = Session::open(&dir, &[target])
            .build_all(&opts, &Silent)
            .expect("generate");
        let path = dir.join(format!("{TARGET}.rbt"));
        let positions: Vec<Position> = FENS.iter().map(|f| f.parse().expect("FEN")).collect();
        let answers = answers(&tb, &positions);
        assert!(answers.iter().all(|(w, d)| w.is_some() && d.is_some()));
        let bytes = std::fs::read(&path).expect("read the table");
        let t = TableFile::open(&path).expect("open");
        let (w, b, d) = decode(&t);
        let values = (w.expect("wdl"), b.expect("wdl"), d.expect("dtm"));
        Fixture {
            bytes,
            path,
            dir,
            positions,
            answers,
            values,
        }
    })
}

fuzz_target!(
    // Built before fuzzing starts, so that the build does not count against the timeout.
    init: {
        fixture();
    },
    |data: &[u8]| {
    let f = fixture();
    let mut bytes = f.bytes.clone();
    let bits = bytes.len() as u64 * 8;
    // Up to three bit positions, four bytes each.
    for chunk in data.chunks_exact(4).take(3) {
        let bit = u64::from(u32::from_le_bytes(chunk.try_into().expect("4"))) % bits;
        bytes[(bit / 8) as usize] ^= 1 << (bit % 8);
    }
    std::fs::write(&f.path, &bytes).expect("write");

    if let Ok(t) = TableFile::open(&f.path) {
        let (w, b, d) = decode(&t);
        assert!(w.is_none_or(|v| v == f.values.0), "white WDL values differ");
        assert!(b.is_none_or(|v| v == f.values.1), "black WDL values differ");
        assert!(d.is_none_or(|v| v == f.values.2), "DTM values differ");
    }
    let mut tb = Tablebase::with_cache_bytes(1 << 12).expect("a small cache");
    if tb.add_dir(&f.dir).is_err() {
        return;
    }
    let got = answers(&tb, &f.positions);
    for ((pos, want), have) in f.positions.iter().zip(&f.answers).zip(&got) {
        assert!(
            have.0.is_none() || have.0 == want.0,
            "{pos}: WDL {have:?}, intact {want:?}"
        );
        assert!(
            have.1.is_none() || have.1 == want.1,
            "{pos}: DTM {have:?}, intact {want:?}"
        );
    }
}
);
