//! Reliability campaign: hundreds of damaged copies of real table and book files (bit
//! flips in the header, the stream indexes and the compressed blocks, truncations, empty and
//! foreign files, wrong versions), each opened and probed in full against the intact file's
//! answers. Every answer must be the intact one or an error: never another value, never a
//! panic. Killed and disk-full runs of the binary must leave only whole files under final
//! names, and a rerun must finish them byte for byte as a clean run does.
//!
//! The 3-piece tables are probed at every position (both sides to move); the 4-piece one at
//! a fixed random sample of its positions, so that hundreds of copies fit in the suite's
//! time. A damaged sub-table is also probed through the promotions of its parent. WDL and
//! DTM probes are made at every position, DTZ probes at one in four; root and move-list
//! probes (by distance to mate, and for play from the move count) at every 16th, compared
//! by a 64-bit fingerprint.

use retrobook::book::pgn::{start_position, PgnReader};
use retrobook::book::rules::replay_from;
use retrobook::book::rules::Chess;
use retrobook::book::{build as build_book, polyglot_key, Book, BookAnswer, BuildOptions};
use retrobook::chess::Position;
use retrobook::generate::{GenOptions, Session};
use retrobook::material::Material;
use retrobook::progress::Silent;
use retrobook::Side;
use retrobook::{ProbeError, Tablebase, Threads};
use std::collections::{BTreeMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// The campaign's seed: every damaged copy is the same from run to run.
const SEED: u64 = 0x5EED_DA3A_6E00_0001;
/// Positions probed in each copy of the 4-piece table.
const SAMPLE_4: usize = 20_000;

/// xorshift64*: a deterministic stream of damage, without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn in_range(&mut self, r: &std::ops::Range<usize>) -> usize {
        r.start + self.below(r.len())
    }
    fn bit(&mut self) -> u8 {
        1 << (self.next() % 8)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// One way of damaging a file.
#[derive(Clone, Debug)]
enum Damage {
    /// XOR these masks in at these offsets.
    Flips(Vec<(usize, u8)>),
    /// Keep the first n bytes.
    Truncate(usize),
    /// Zero a run of bytes (a lost page).
    Zero(usize, usize),
    /// Another file altogether.
    Replace(Vec<u8>),
    /// Random bytes after the end.
    Append(Vec<u8>),
    /// The version field set to this, the header checksum made valid again.
    Version(u32),
}

/// Where a format keeps the version and the header checksum (over the bytes before it).
#[derive(Copy, Clone)]
struct Format {
    version_at: usize,
    crc_at: usize,
}

const TABLE_FORMAT: Format = Format {
    version_at: 8,
    crc_at: 508,
};
const BOOK_FORMAT: Format = Format {
    version_at: 8,
    crc_at: 60,
};

struct Case {
    class: &'static str,
    label: String,
    damage: Damage,
}

impl Case {
    fn new(class: &'static str, label: impl Into<String>, damage: Damage) -> Case {
        Case {
            class,
            label: label.into(),
            damage,
        }
    }

    fn apply(&self, good: &[u8], format: Format) -> Vec<u8> {
        let mut b = good.to_vec();
        match &self.damage {
            Damage::Flips(flips) => flips.iter().for_each(|&(at, m)| b[at] ^= m),
            Damage::Truncate(n) => b.truncate(*n),
            Damage::Zero(at, n) => b[*at..(*at + *n).min(good.len())].fill(0),
            Damage::Replace(other) => b = other.clone(),
            Damage::Append(tail) => b.extend_from_slice(tail),
            Damage::Version(v) => {
                let (at, crc_at) = (format.version_at, format.crc_at);
                b[at..at + 4].copy_from_slice(&v.to_le_bytes());
                let crc = crc32fast::hash(&b[..crc_at]);
                b[crc_at..crc_at + 4].copy_from_slice(&crc.to_le_bytes());
            }
        }
        b
    }
}

/// `n` cases of flips at random offsets of `region`: one bit each, or (`multi`) 2 to 8
/// flips of random bits each.
fn flips_in(
    cases: &mut Vec<Case>,
    rng: &mut Rng,
    class: &'static str,
    region: std::ops::Range<usize>,
    n: usize,
    multi: bool,
) {
    if region.is_empty() {
        return;
    }
    for _ in 0..n {
        let (flips, what) = if multi {
            let k = 2 + rng.below(7);
            let mut seen = HashSet::new();
            let flips: Vec<(usize, u8)> = (0..k)
                .map(|_| (rng.in_range(&region), rng.next() as u8 | 1))
                .filter(|&(at, _)| seen.insert(at))
                .collect();
            let what = format!("{class}: {flips:?}");
            (flips, what)
        } else {
            let (at, m) = (rng.in_range(&region), rng.bit());
            (vec![(at, m)], format!("{class}: byte {at} ^= {m:#04x}"))
        };
        cases.push(Case::new(class, what, Damage::Flips(flips)));
    }
}

/// Damage that fits any file: flips anywhere, truncations, lost pages, tails, empty and
/// foreign files, and versions from the past and the future.
fn generic_cases(rng: &mut Rng, good: &[u8], foreign: &[(&str, Vec<u8>)]) -> Vec<Case> {
    let n = good.len();
    // The control: an intact copy answers everything.
    let mut cases = vec![Case::new("intact", "intact copy", Damage::Flips(vec![]))];
    flips_in(&mut cases, rng, "flip anywhere", 0..n, 12, false);
    flips_in(&mut cases, rng, "flips anywhere", 0..n, 12, true);
    let mut lengths: Vec<usize> = vec![0, 1, 7, 8, 12, 63, 64, 65, 511, 512, 513, n - 8, n - 1];
    lengths.extend((0..30).map(|_| rng.below(n)));
    lengths.retain(|&l| l < n);
    lengths.sort_unstable();
    lengths.dedup();
    for l in lengths {
        let class = if l == 0 { "empty" } else { "truncated" };
        cases.push(Case::new(
            class,
            format!("cut to {l} of {n} bytes"),
            Damage::Truncate(l),
        ));
    }
    for _ in 0..6 {
        let (at, len) = (rng.below(n), 1 + rng.below(4096));
        cases.push(Case::new(
            "zeroed run",
            format!("{len} bytes zeroed from {at}"),
            Damage::Zero(at, len),
        ));
    }
    for len in [1, 64, 4096] {
        cases.push(Case::new(
            "appended",
            format!("{len} random bytes appended"),
            Damage::Append(rng.bytes(len)),
        ));
    }
    let current = u32_at(good, 8) as u32;
    for v in [0, 1, 2, 3, 4, 5, 0x0300_0000, u32::MAX] {
        if v == current {
            continue;
        }
        cases.push(Case::new(
            "wrong version",
            format!("version {v}, header checksum valid"),
            Damage::Version(v),
        ));
    }
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend(rng.bytes(600));
    let mut others = vec![
        ("PNG header".to_string(), png),
        ("random bytes, same length".to_string(), rng.bytes(n)),
        ("512 random bytes".to_string(), rng.bytes(512)),
        (
            "PGN text".to_string(),
            "[Event \"?\"]\n\n1. e4 e5 1-0\n".repeat(40).into_bytes(),
        ),
    ];
    others.extend(foreign.iter().map(|(l, b)| (l.to_string(), b.clone())));
    for (label, bytes) in others {
        cases.push(Case::new(
            "foreign",
            format!("foreign file: {label}"),
            Damage::Replace(bytes),
        ));
    }
    cases
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

fn u64_at(b: &[u8], at: usize) -> usize {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize
}

/// The damage of a table file: the generic kinds, and flips aimed at the header, at each
/// stream's descriptor and index, its compressed blocks and its block checksums.
fn table_cases(rng: &mut Rng, good: &[u8], foreign: &[(&str, Vec<u8>)]) -> Vec<Case> {
    assert_eq!(
        u32_at(good, 8),
        3,
        "the aimed flips read a whole-stream layout"
    );
    let mut cases = generic_cases(rng, good, foreign);
    flips_in(&mut cases, rng, "header", 0..512, 40, false);
    // The WDL streams, the DTM stream and the DTZ stream (its extent at byte 264).
    for at in [200, 216, 232, 264] {
        let (off, len) = (u64_at(good, at), u64_at(good, at + 8));
        let (blocks, crcs) = (off + u32_at(good, off + 24), off + u32_at(good, off + 28));
        flips_in(&mut cases, rng, "stream index", off..blocks, 15, false);
        // The blocks end with 8 zero bytes that a decoder may read but never uses.
        flips_in(&mut cases, rng, "blocks", blocks..crcs - 8, 10, false);
        flips_in(&mut cases, rng, "blocks", blocks..crcs - 8, 2, true);
        flips_in(&mut cases, rng, "block slack", crcs - 8..crcs, 1, false);
        flips_in(
            &mut cases,
            rng,
            "block checksums",
            crcs..off + len,
            5,
            false,
        );
    }
    cases
}

const KINDS: [&str; 7] = [
    "wdl",
    "wdl5",
    "dtm",
    "dtz",
    "root",
    "best_moves",
    "root_clock",
];

fn fingerprint(h: impl Hash) -> u64 {
    let mut s = DefaultHasher::new();
    h.hash(&mut s);
    s.finish()
}

/// Root and move-list probes (one DTM probe per move) are made at every `LISTS_EVERY`-th
/// position only; the others at every position.
const LISTS_EVERY: usize = 16;

/// Each probe's answer (a fingerprint for the lists), or its error; None for the list
/// probes unless `lists`.
fn probe(tb: &Tablebase, p: &Position, lists: bool) -> [Option<Result<u64, ProbeError>>; 7] {
    // DTZ at every fourth position: each probe of the unstored side searches a ply.
    let dtz = fingerprint(p) % 4 == 0;
    [
        Some(tb.probe_wdl(p).map(fingerprint)),
        Some(tb.probe_wdl5(p).map(fingerprint)),
        Some(tb.probe_dtm(p).map(fingerprint)),
        (dtz || lists).then(|| tb.probe_dtz(p).map(fingerprint)),
        lists.then(|| {
            tb.probe_root(p).map(|v| {
                fingerprint(
                    v.iter()
                        .map(|r| (r.mv, r.root_wdl, r.root_dtm))
                        .collect::<Vec<_>>(),
                )
            })
        }),
        lists.then(|| tb.best_moves(p).map(fingerprint)),
        lists.then(|| tb.probe_root_clock(p, false).map(fingerprint)),
    ]
}

fn answers(tb: &Tablebase, p: &Position, lists: bool) -> [u64; 7] {
    probe(tb, p, lists).map(|r| match r {
        None => 0,
        Some(r) => r.unwrap_or_else(|e| panic!("intact tables fail on {p}: {e}")),
    })
}

/// What the copies of a campaign (or one copy) gave.
#[derive(Default)]
struct Tally {
    cases: u64,
    refused: u64,
    correct: u64,
    errors: u64,
    wrong: u64,
    panics: u64,
    /// By class: copies, and copies whose damage was noticed (refused or some error).
    classes: BTreeMap<&'static str, (u64, u64)>,
    /// The first faults, described.
    faults: Vec<String>,
}

impl Tally {
    fn fault(&mut self, s: String) {
        if self.faults.len() < 20 {
            self.faults.push(s);
        }
    }

    fn add(&mut self, o: Tally) {
        self.cases += o.cases;
        self.refused += o.refused;
        self.correct += o.correct;
        self.errors += o.errors;
        self.wrong += o.wrong;
        self.panics += o.panics;
        for (k, (a, b)) in o.classes {
            let e = self.classes.entry(k).or_default();
            e.0 += a;
            e.1 += b;
        }
        for f in o.faults {
            self.fault(f);
        }
    }

    fn detected(&self, class: &str) -> (u64, u64) {
        self.classes.get(class).copied().unwrap_or_default()
    }

    fn line(&self, what: &str) -> String {
        let classes: Vec<String> = (self.classes.iter())
            .map(|(k, (n, d))| format!("{k} {d}/{n}"))
            .collect();
        format!(
            "{what}: {} cases, {} refused at open, {} probes: {} intact answers, {} errors, \
             {} wrong, {} panics (damage noticed by class: {})",
            self.cases,
            self.refused,
            self.correct + self.errors + self.wrong,
            self.correct,
            self.errors,
            self.wrong,
            self.panics,
            classes.join(", ")
        )
    }
}

/// Runs `each` over the cases on two threads, each with its own scratch value; sums tallies.
fn run_cases<S>(
    cases: &[Case],
    scratch: impl Fn() -> S + Sync,
    each: impl Fn(&mut S, &Case, &mut Tally) + Sync,
) -> Tally {
    let next = AtomicUsize::new(0);
    let total = Mutex::new(Tally::default());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let mut state = scratch();
                let mut mine = Tally::default();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let mut t = Tally {
                        cases: 1,
                        ..Tally::default()
                    };
                    let done = catch_unwind(AssertUnwindSafe(|| each(&mut state, case, &mut t)));
                    if done.is_err() {
                        t.panics += 1;
                        t.fault(format!("panic in case {:?}", case.label));
                    }
                    let noticed = t.refused + t.errors + t.panics > 0;
                    let e = t.classes.entry(case.class).or_default();
                    e.0 += 1;
                    e.1 += u64::from(noticed);
                    mine.add(t);
                }
                total.lock().unwrap().add(mine);
            });
        }
    });
    total.into_inner().unwrap()
}

/// KRvK, KPvK and KRvKN with their sub-tables, built once through the library.
fn built() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let opts = GenOptions {
            threads: Threads::new(2),
            ..Default::default()
        };
        let targets: Vec<Material> = ["KRvK", "KPvK", "KRvKN"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        Session::open(dir.path(), &targets)
            .build_all(&opts, &Silent)
            .unwrap();
        dir
    })
    .path()
}

/// The legal positions of `sig` with either side to move (one per symmetry class): all of
/// them, or `sample` of them drawn at random.
fn positions(tb: &Tablebase, sig: &str, sample: Option<usize>, rng: &mut Rng) -> Vec<Position> {
    let m: Material = sig.parse().unwrap();
    let index = tb.table(&m).unwrap().index();
    let at = |i: u64, turn: Side| {
        let p = index.decode(i, turn)?;
        (!p.opponent_in_check() && index.is_canonical(i, &p)).then_some(p)
    };
    match sample {
        None => (0..index.size())
            .flat_map(|i| Side::ALL.map(|c| at(i, c)))
            .flatten()
            .collect(),
        Some(n) => {
            let mut out = Vec::with_capacity(n);
            while out.len() < n {
                let i = rng.next() % index.size();
                out.extend(at(i, Side::ALL[rng.below(2)]));
            }
            out
        }
    }
}

/// Opens the folder `dir` holding the damaged copy of `file` and probes `positions`,
/// tallying each answer against `expect`.
fn probe_copy(
    dir: &Path,
    file: &str,
    label: &str,
    positions: &[Position],
    expect: &[[u64; 7]],
    t: &mut Tally,
) {
    let tb = match Tablebase::open(dir) {
        Ok(tb) => tb,
        Err(e) => {
            t.refused += 1;
            let msg = e.to_string();
            if !msg.contains(file) || msg.lines().count() != 1 {
                t.fault(format!(
                    "{label}: refusal does not name {file} in one line: {msg}"
                ));
            }
            return;
        }
    };
    for (i, (p, want)) in positions.iter().zip(expect).enumerate() {
        for (k, got) in probe(&tb, p, i % LISTS_EVERY == 0).into_iter().enumerate() {
            match got {
                None => {}
                Some(Ok(v)) if v == want[k] => t.correct += 1,
                Some(Ok(_)) => {
                    t.wrong += 1;
                    t.fault(format!(
                        "{label}: {} of {p} answers a wrong value",
                        KINDS[k]
                    ));
                }
                Some(Err(_)) => t.errors += 1,
            }
        }
    }
}

/// The damage campaign over one table: hundreds of copies, each probed at `positions`.
fn table_campaign(sig: &str, sample: Option<usize>) -> Tally {
    table_campaign_through(sig, sig, sample, |_| true)
}

/// The damage campaign over the table `sig`, probed at the positions of `probed` (the
/// table itself, or one whose conversions read it) that `keep` keeps.
fn table_campaign_through(
    sig: &str,
    probed: &str,
    sample: Option<usize>,
    keep: impl Fn(&Position) -> bool,
) -> Tally {
    let dir = built();
    let file = format!("{sig}.rbt");
    let good = std::fs::read(dir.join(&file)).unwrap();
    let tb = Tablebase::open(dir).unwrap();
    let mut rng = Rng(SEED ^ fingerprint(sig));
    let mut positions = positions(&tb, probed, sample, &mut rng);
    positions.retain(keep);
    let expect: Vec<[u64; 7]> = (positions.iter().enumerate())
        .map(|(i, p)| answers(&tb, p, i % LISTS_EVERY == 0))
        .collect();
    drop(tb);
    let others: Vec<String> = final_names(dir)
        .into_iter()
        .filter(|n| n != &file)
        .collect();
    let other_table = std::fs::read(dir.join(&others[0])).unwrap();
    let mut spliced = other_table[..512].to_vec();
    spliced.extend_from_slice(&good[512..]);
    let foreign = [
        ("a book", book().1.clone()),
        ("another table", other_table),
        ("another table's header", spliced),
    ];
    let cases = table_cases(&mut rng, &good, &foreign);
    run_cases(
        &cases,
        || {
            let scratch = tempfile::tempdir().unwrap();
            for n in &others {
                std::fs::copy(dir.join(n), scratch.path().join(n)).unwrap();
            }
            scratch
        },
        |scratch, case, t| {
            let path = scratch.path().join(&file);
            let _ = std::fs::remove_file(&path);
            std::fs::write(&path, case.apply(&good, TABLE_FORMAT)).unwrap();
            probe_copy(scratch.path(), &file, &case.label, &positions, &expect, t);
        },
    )
}

/// Wrong answers and panics are none, the damage is mostly noticed, and the copies that
/// opened were probed through.
fn assert_campaign(t: &Tally, aimed: &str, min_noticed: f64) {
    assert!(t.faults.is_empty(), "{:#?}", t.faults);
    assert_eq!((t.wrong, t.panics), (0, 0));
    assert_eq!(t.detected("intact"), (1, 0));
    let (n, noticed) = t.detected(aimed);
    assert!(n >= 20, "only {n} copies damaged in {aimed}");
    assert!(
        noticed as f64 >= min_noticed * n as f64,
        "{noticed} of {n} copies damaged in {aimed} noticed"
    );
    assert!(
        t.refused > t.cases / 10 && t.refused < t.cases,
        "{}",
        t.refused
    );
    assert!(t.errors > 0);
}

fn full_table_campaign(sig: &str) {
    let t = table_campaign(sig, None);
    println!("{}", t.line(&format!("tables {sig} (every position)")));
    assert_campaign(&t, "blocks", 0.9);
}

#[test]
fn damaged_krvk_answers_intact_or_fails() {
    full_table_campaign("KRvK");
}

#[test]
fn damaged_kpvk_answers_intact_or_fails() {
    full_table_campaign("KPvK");
}

/// A damaged sub-table read through the promotions of KPvK (every position with the pawn
/// on the seventh rank) answers intact or fails there too.
#[test]
fn damaged_sub_table_answers_intact_or_fails_through_conversions() {
    let t = table_campaign_through("KQvK", "KPvK", None, |p| {
        p.to_string()
            .split('/')
            .nth(1)
            .is_some_and(|r| r.contains('P'))
    });
    println!(
        "{}",
        t.line("tables KQvK probed through KPvK (pawn on the 7th rank)")
    );
    assert_campaign(&t, "blocks", 0.5);
}

#[test]
fn damaged_4_piece_table_answers_intact_or_fails() {
    let t = table_campaign("KRvKN", Some(SAMPLE_4));
    println!(
        "{}",
        t.line(&format!("tables KRvKN ({SAMPLE_4} sampled positions)"))
    );
    assert_campaign(&t, "blocks", 0.5);
}

/// A book file's path and bytes, and positions to probe in it.
type BookFixture = (PathBuf, Vec<u8>, Vec<Position>);

/// A book of the first 8 plies of `books/masters-3000.pgn.zst`, built once through the
/// library: its path and bytes, and the positions of its games up to one ply past the book.
fn book() -> &'static BookFixture {
    static BOOK: OnceLock<(tempfile::TempDir, BookFixture)> = OnceLock::new();
    &BOOK
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("masters.rbb");
            let opts = BuildOptions {
                max_ply: MAX_PLY,
                threads: Threads::new(2),
                ..BuildOptions::default()
            };
            build_book(&[archive()], &out, &opts, &Silent).unwrap();
            let bytes = std::fs::read(&out).unwrap();
            let positions = book_positions(MAX_PLY + 1);
            (dir, (out, bytes, positions))
        })
        .1
}

const MAX_PLY: u32 = 8;

fn archive() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("books/masters-3000.pgn.zst")
}

/// The distinct positions of the archive's games at plies 0..=plies.
fn book_positions(plies: u32) -> Vec<Position> {
    let file = std::fs::File::open(archive()).unwrap();
    let text = std::io::BufReader::new(zstd::Decoder::new(file).unwrap());
    let mut reader = PgnReader::new(text);
    let (mut seen, mut out) = (HashSet::new(), Vec::new());
    while let Some(game) = reader.next_game().unwrap() {
        let Ok(start) = start_position(game) else {
            continue;
        };
        let mut ply = 0;
        let mut keep = |p: &Position| {
            if ply <= plies && seen.insert(polyglot_key(p)) {
                out.push(*p);
            }
            ply += 1;
        };
        keep(&start);
        let _ = replay_from::<Chess>(game, start, |_, _, next| keep(next));
    }
    out
}

/// Everything a book says: per position its answer, and its header and entries.
fn book_answers(b: &Book, positions: &[Position]) -> (Vec<BookAnswer>, u64) {
    let listing = fingerprint((
        b.len(),
        b.backed_up(),
        format!("{:?}", b.info()),
        b.iter().map(|e| e.to_bytes()).collect::<Vec<_>>(),
    ));
    (positions.iter().map(|p| b.probe(p)).collect(), listing)
}

/// A book is checked whole when opened (a checksum over its header and one over its
/// entries), so damaged copies are expected to be refused there; any that opens is probed
/// at every position of the games and listed entry by entry.
#[test]
fn damaged_books_answer_intact_or_are_refused() {
    let (path, good, positions) = book();
    let intact = Book::open(path).unwrap();
    let (expect, listing) = book_answers(&intact, positions);
    assert!(expect.iter().filter(|a| a.games > 0).count() > 1000);
    assert!(expect.iter().any(|a| a.games == 0));
    drop(intact);
    let mut rng = Rng(SEED ^ 0xB00C);
    let table = std::fs::read(built().join("KRvK.rbt")).unwrap();
    let mut cases = generic_cases(&mut rng, good, &[("a table", table)]);
    let n = good.len();
    flips_in(&mut cases, &mut rng, "header", 0..64, 40, false);
    flips_in(&mut cases, &mut rng, "entries", 64..n, 100, false);
    flips_in(&mut cases, &mut rng, "entries", 64..n, 20, true);
    let name = "masters.rbb";
    let t = run_cases(
        &cases,
        || tempfile::tempdir().unwrap(),
        |scratch, case, t| {
            let path = scratch.path().join(name);
            let _ = std::fs::remove_file(&path);
            std::fs::write(&path, case.apply(good, BOOK_FORMAT)).unwrap();
            let b = match Book::open(&path) {
                Ok(b) => b,
                Err(e) => {
                    t.refused += 1;
                    let msg = e.to_string();
                    if !msg.contains(name) || msg.lines().count() != 1 {
                        t.fault(format!("{}: refusal without the name: {msg}", case.label));
                    }
                    return;
                }
            };
            let (got, got_listing) = book_answers(&b, positions);
            for (g, e) in got.iter().zip(&expect) {
                if g == e {
                    t.correct += 1;
                } else {
                    t.wrong += 1;
                    t.fault(format!("{}: wrong answer for key {:#x}", case.label, e.key));
                }
            }
            if got_listing == listing {
                t.correct += 1;
            } else {
                t.wrong += 1;
                t.fault(format!("{}: header or entries differ", case.label));
            }
        },
    );
    println!(
        "{}",
        t.line(&format!(
            "books ({} positions, {} bytes)",
            positions.len(),
            n
        ))
    );
    assert!(t.faults.is_empty(), "{:#?}", t.faults);
    assert_eq!((t.wrong, t.panics), (0, 0));
    assert_eq!(t.detected("intact"), (1, 0));
    let (flipped, noticed) = t.detected("entries");
    assert!(
        flipped >= 100 && noticed == flipped,
        "{noticed} of {flipped}"
    );
    assert!(t.refused > t.cases / 2, "{}", t.refused);
}

/// Names of the files of `dir` under a final name (temporaries start with a dot).
fn final_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// Names of the temporaries of `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// Every table under a final name in `dir` opens and answers every probe of every one of
/// its positions as the same table of `clean` does. Returns the tables checked.
fn answers_as_clean(dir: &Path, clean: &Path) -> Vec<String> {
    let names = final_names(dir);
    let tb = Tablebase::open(dir).unwrap_or_else(|e| panic!("a file does not open: {e}"));
    let good = Tablebase::open(clean).unwrap();
    let mut rng = Rng(SEED);
    for name in &names {
        let sig = name.strip_suffix(".rbt").expect("only tables");
        for (i, p) in positions(&good, sig, None, &mut rng).iter().enumerate() {
            let lists = i % LISTS_EVERY == 0;
            let got = probe(&tb, p, lists).map(|r| r.map(|r| r.map_err(|e| e.to_string())));
            let want = answers(&good, p, lists);
            for k in 0..KINDS.len() {
                if let Some(got) = &got[k] {
                    assert_eq!(got, &Ok(want[k]), "{} of {p} in {name}", KINDS[k]);
                }
            }
        }
    }
    names
}

/// The files of `a` and `b` under final names are the same, byte for byte.
fn assert_same_files(a: &Path, b: &Path) {
    assert_eq!(final_names(a), final_names(b));
    for n in final_names(a) {
        let same = std::fs::read(a.join(&n)).unwrap() == std::fs::read(b.join(&n)).unwrap();
        assert!(same, "{n} differs from a clean build's");
    }
}

const GEN: [&str; 3] = ["gen", "KRvK", "KPvK"];

fn gen_args(dir: &Path) -> Vec<&str> {
    let mut args = GEN.to_vec();
    args.extend(["--tables", dir.to_str().unwrap(), "--threads", "2"]);
    args
}

/// `gen` runs killed (SIGKILL) while writing a table and at spread moments of the build
/// leave only whole tables under final names, answering as a clean build's; running the
/// command again finishes the folder, byte for byte as a clean build.
#[test]
fn killed_gen_runs_leave_whole_tables_and_resume_to_a_clean_build() {
    let clean = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    crate::common::run_ok(&gen_args(clean.path()));
    let duration = started.elapsed();
    let dir = tempfile::tempdir().unwrap();
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_retrobook"))
            .args(gen_args(dir.path()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    // Each run finishes one more table and dies as soon as it has a temporary of the
    // next, while writing it, until a run has nothing left to write.
    let mut seen = Vec::new();
    loop {
        let before = final_names(dir.path()).len();
        let mut child = spawn();
        let mine = format!(".{}.tmp", child.id());
        let writing = || {
            final_names(dir.path()).len() > before
                && temporaries(dir.path()).iter().any(|n| n.ends_with(&mine))
        };
        while !writing() && child.try_wait().unwrap().is_none() {
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
        let _ = child.kill();
        let finished = child.wait().unwrap().success();
        seen.push(answers_as_clean(dir.path(), clean.path()).len());
        if finished || seen.len() == 12 {
            break;
        }
    }
    let out = crate::common::run_ok(&gen_args(dir.path()));
    assert!(out.contains("already present"), "{out}");
    assert!(temporaries(dir.path()).is_empty());
    assert_same_files(dir.path(), clean.path());
    // In fresh folders, runs die at spread moments of a build, whatever it is doing then.
    let mut seen2 = Vec::new();
    for k in 1..=3 {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrobook"))
            .args(gen_args(dir.path()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(duration * k / 4);
        let _ = child.kill();
        child.wait().unwrap();
        seen2.push(answers_as_clean(dir.path(), clean.path()).len());
        crate::common::run_ok(&gen_args(dir.path()));
        assert!(temporaries(dir.path()).is_empty());
        assert_same_files(dir.path(), clean.path());
    }
    println!(
        "killed gen runs: whole tables under final names after each kill: \
         {seen:?} (killed while writing the next), {seen2:?} (killed at 1/4, 1/2, 3/4 of a \
         clean build's time)"
    );
}

/// Runs the binary with files limited to `max_bytes` and SIGXFSZ ignored, so that a write
/// past the limit fails with EFBIG as on a full disk.
#[cfg(target_os = "linux")]
fn run_with_file_limit(args: &[&str], max_bytes: u64) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_retrobook"));
    cmd.args(args);
    // SAFETY: the closure runs in the child before exec and calls only setrlimit and
    // signal, both async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: max_bytes as libc::rlim_t,
                rlim_max: max_bytes as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    cmd.output().unwrap()
}

/// A run that failed cleanly: exit status 1 and one line on stderr naming `needle`.
fn failed_in_one_line(out: &std::process::Output, needle: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(needle) && !err.contains("panicked"), "{err}");
    err
}

/// A full disk: `gen` fails in one line, keeps the tables finished before, leaves nothing
/// under the failed table's name, and a rerun with room finishes as a clean build.
#[cfg(target_os = "linux")]
#[test]
fn gen_on_a_full_disk_fails_cleanly_and_keeps_finished_tables() {
    let clean = tempfile::tempdir().unwrap();
    crate::common::run_ok(&gen_args(clean.path()));
    let size = |n: &str| std::fs::metadata(clean.path().join(n)).unwrap().len();
    // Room for every table but KPvK, the largest.
    let largest = size("KPvK.rbt");
    let others = final_names(clean.path());
    let second = (others.iter().filter(|n| *n != "KPvK.rbt"))
        .map(|n| size(n))
        .max()
        .unwrap();
    assert!(second < largest);
    let limit = (second + largest) / 2;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    crate::common::run_ok(&["gen", "KRvK", "--tables", d]); // finished before the disk fills
    let before = std::fs::read(dir.path().join("KRvK.rbt")).unwrap();
    let out = run_with_file_limit(&gen_args(dir.path()), limit);
    let err = failed_in_one_line(&out, "KPvK");
    println!("gen on a full disk ({limit}-byte files): {err}");
    assert_eq!(std::fs::read(dir.path().join("KRvK.rbt")).unwrap(), before);
    assert!(!dir.path().join("KPvK.rbt").exists());
    assert!(
        temporaries(dir.path()).is_empty(),
        "{:?}",
        temporaries(dir.path())
    );
    let kept = answers_as_clean(dir.path(), clean.path());
    assert_eq!(kept.len(), others.len() - 1, "{kept:?}");
    for n in &kept {
        assert_eq!(
            std::fs::read(dir.path().join(n)).unwrap(),
            std::fs::read(clean.path().join(n)).unwrap(),
            "{n}"
        );
    }
    // No room at all: nothing under a final name.
    let empty = tempfile::tempdir().unwrap();
    let out = run_with_file_limit(&gen_args(empty.path()), 64);
    failed_in_one_line(&out, ".rbt");
    assert!(final_names(empty.path()).is_empty() && temporaries(empty.path()).is_empty());
    // With room again the same command finishes as a clean build.
    crate::common::run_ok(&gen_args(dir.path()));
    assert_same_files(dir.path(), clean.path());
}

/// A full disk: `book build --out` fails in one line, leaves the book that stood under
/// that name and the folder's other books as they were, and a rerun with room writes the
/// book a clean build writes.
#[cfg(target_os = "linux")]
#[test]
fn book_build_on_a_full_disk_fails_cleanly_and_keeps_finished_books() {
    let archive = archive();
    let a = archive.to_str().unwrap();
    let args = |out: &Path, plies: u32| -> Vec<String> {
        ["book", "build", a, "--out", out.to_str().unwrap()]
            .iter()
            .map(|s| s.to_string())
            .chain(["--max-ply".to_string(), plies.to_string()])
            .collect()
    };
    let run =
        |v: &[String]| crate::common::run_ok(&v.iter().map(|s| s.as_str()).collect::<Vec<_>>());
    let clean = tempfile::tempdir().unwrap();
    let clean_book = clean.path().join("book.rbb");
    run(&args(&clean_book, MAX_PLY));
    let full = std::fs::metadata(&clean_book).unwrap().len();
    let dir = tempfile::tempdir().unwrap();
    let (book, other) = (dir.path().join("book.rbb"), dir.path().join("other.rbb"));
    run(&args(&book, 2));
    run(&args(&other, 3));
    let (old, other_bytes) = (
        std::fs::read(&book).unwrap(),
        std::fs::read(&other).unwrap(),
    );
    assert!((old.len() as u64) < full / 2);
    let v = args(&book, MAX_PLY);
    let v: Vec<&str> = v.iter().map(|s| s.as_str()).collect();
    let out = run_with_file_limit(&v, full / 2);
    let err = failed_in_one_line(&out, "book.rbb");
    println!("book build on a full disk ({}-byte files): {err}", full / 2);
    assert_eq!(std::fs::read(&book).unwrap(), old);
    assert_eq!(std::fs::read(&other).unwrap(), other_bytes);
    assert!(
        temporaries(dir.path()).is_empty(),
        "{:?}",
        temporaries(dir.path())
    );
    crate::common::run_ok(&v);
    assert_eq!(
        std::fs::read(&book).unwrap(),
        std::fs::read(&clean_book).unwrap()
    );
    assert_eq!(final_names(dir.path()), ["book.rbb", "other.rbb"]);
}
