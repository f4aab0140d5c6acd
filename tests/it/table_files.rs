//! Damaged table files are refused or fail their probes with an error naming the file (and
//! block); they never answer a wrong value and never panic. A killed `gen` leaves no file
//! under a final name.

use crate::common::run;
use retrobook::chess::Position;
use retrobook::generate::{Built, Session};
use retrobook::material::Material;
use retrobook::probe::Chess;
use retrobook::progress::Silent;
use retrobook::table::codec::StreamError;
use retrobook::table::{FileFault, TableError, TableFile};
use retrobook::Side;
use retrobook::{ProbeError, Tablebase};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// KRvKN and its sub-tables, built once through the library.
fn built() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        Session::open(dir.path(), &["KRvKN".parse::<Material>().unwrap()])
            .build_all(&Default::default(), &Silent)
            .unwrap();
        dir
    })
    .path()
}

/// A fresh folder with the built tables, and the path of its KRvKN file.
fn copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    for sig in ["KRvKN", "KRvK", "KNvK"] {
        let name = format!("{sig}.rbt");
        std::fs::copy(built().join(&name), dir.path().join(&name)).unwrap();
    }
    let path = dir.path().join("KRvKN.rbt");
    (dir, path)
}

fn edit(path: &Path, f: impl FnOnce(&mut Vec<u8>)) {
    let mut bytes = std::fs::read(path).unwrap();
    f(&mut bytes);
    std::fs::write(path, bytes).unwrap();
}

fn reseal_header(b: &mut [u8]) {
    let crc = crc32fast::hash(&b[..508]);
    b[508..512].copy_from_slice(&crc.to_le_bytes());
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Opening fails, naming the file and containing `needle`; so does the CLI, in one line.
fn refused(dir: &Path, path: &Path, needle: &str) {
    let err = match TableFile::open(path) {
        Ok(_) => panic!("{} opened", path.display()),
        Err(e) => e,
    };
    assert!(
        matches!(&err, TableError::Refused { path: p, .. } if p == path),
        "{err:?}"
    );
    let err = err.to_string();
    assert!(err.contains("KRvKN.rbt") && err.contains(needle), "{err}");
    let out = run(&["info", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(needle) && !stderr.contains("panicked"),
        "{stderr}"
    );
    assert!(Tablebase::<Chess>::open(dir).is_err());
}

#[test]
fn truncated_files_are_refused() {
    let (dir, path) = copy();
    edit(&path, |b| b.truncate(b.len() - 1000));
    refused(dir.path(), &path, "truncated");
    edit(&path, |b| b.truncate(100));
    refused(dir.path(), &path, "shorter than a table header");
    edit(&path, |b| b.truncate(0));
    refused(dir.path(), &path, "shorter than a table header");
}

/// Where stream `stream` (0, 1: white and black WDL, 2: DTM) starts, from the header.
fn stream_at(b: &[u8], stream: usize) -> usize {
    u64_at(b, 200 + 16 * stream) as usize
}

#[test]
fn damaged_header_and_stream_index_are_refused() {
    let (dir, path) = copy();
    let original = std::fs::read(&path).unwrap();
    edit(&path, |b| b[60] ^= 0x10); // a statistics byte
    refused(dir.path(), &path, "header checksum");
    for stream in 0..3 {
        std::fs::write(&path, &original).unwrap();
        edit(&path, |b| {
            let at = stream_at(b, stream) + 64; // the first leaf value
            b[at] ^= 0x01;
        });
        refused(dir.path(), &path, "index checksum");
    }
    std::fs::write(&path, &original).unwrap();
    edit(&path, |b| {
        b[8] = 4; // streams said to be cut into segments, which they are not
        reseal_header(b);
    });
    refused(dir.path(), &path, "segment");
    std::fs::write(&path, &original).unwrap();
    edit(&path, |b| {
        b[8] = 5; // a future format version, header checksum valid
        reseal_header(b);
    });
    refused(dir.path(), &path, "version 5");
    std::fs::write(&path, &original).unwrap();
    edit(&path, |b| {
        b[16..24].copy_from_slice(b"xiangqi\0"); // another game's table, checksum valid
        reseal_header(b);
    });
    let err = TableFile::open(&path)
        .err()
        .expect("another game is refused");
    assert!(
        matches!(&err, TableError::Refused { fault: FileFault::Game { found, .. }, .. } if found == "xiangqi"),
        "{err:?}"
    );
    refused(dir.path(), &path, "xiangqi");
}

#[test]
fn an_older_format_is_refused_with_a_hint_to_regenerate() {
    // A real version-2 file (one zstd-compressed DTM stream for both sides).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("KBvK.rbt");
    std::fs::copy(crate::common::data("v2/KBvK.rbt"), &path).unwrap();
    let err = TableFile::open(&path)
        .err()
        .expect("a version-2 file is refused");
    assert!(
        matches!(
            err,
            TableError::Refused {
                fault: FileFault::Version { found: 2, .. },
                ..
            }
        ),
        "{err:?}"
    );
    let err = err.to_string();
    assert!(
        err.contains("KBvK.rbt") && err.contains("version 2") && err.contains("regenerate"),
        "{err}"
    );
    let out = run(&["info", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("KBvK.rbt") && stderr.contains("regenerate"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn foreign_files_are_refused() {
    let (dir, path) = copy();
    std::fs::write(&path, b"\x89PNG\r\n\x1a\n".repeat(200)).unwrap();
    refused(dir.path(), &path, "not a retrobook table");
    std::fs::write(&path, "[Event \"not a table\"]\n".repeat(100)).unwrap();
    refused(dir.path(), &path, "not a retrobook table");
}

/// Legal positions of KRvKN with `turn` to move, spread over the whole index.
fn spread_positions(tb: &Tablebase, turn: Side) -> Vec<Position> {
    let m: Material = "KRvKN".parse().unwrap();
    let index = tb.table(&m).unwrap().index();
    (0..index.size())
        .step_by(7)
        .filter_map(|i| {
            let p = index.decode(i, turn)?;
            (!p.opponent_in_check() && index.is_canonical(i, &p)).then_some(p)
        })
        .collect()
}

/// Flips a bit in the middle of the blocks of `stream` of the file at `path`.
fn damage_blocks(path: &Path, stream: usize) {
    edit(path, |b| {
        let at = stream_at(b, stream);
        let blocks = at + u32_at(b, at + 24);
        let crcs = at + u32_at(b, at + 28);
        b[(blocks + crcs) / 2] ^= 0x04;
    });
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

/// Every probe of `positions` through `probe` either answers what the undamaged tables
/// answer or fails naming the file, a block and its checksum (again when repeated: a
/// failure is not remembered as a value); some fail and some answer. Returns a position
/// whose probe fails.
fn some_fail_none_lie<T: PartialEq + std::fmt::Debug>(
    positions: &[Position],
    probe: impl Fn(&Position) -> Result<T, ProbeError>,
    good: impl Fn(&Position) -> Result<T, ProbeError>,
) -> Position {
    let (mut failed, mut answered) = (None, 0);
    for p in positions {
        match probe(p) {
            Ok(v) => {
                assert_eq!(v, good(p).unwrap(), "{p}");
                answered += 1;
            }
            Err(ProbeError::Table(e)) => {
                assert!(
                    matches!(
                        &e,
                        TableError::Block {
                            block: StreamError::Checksum(_),
                            ..
                        }
                    ),
                    "{e:?}"
                );
                let e = e.to_string();
                assert!(
                    e.contains("KRvKN.rbt") && e.contains("block") && e.contains("checksum"),
                    "{e}"
                );
                assert!(probe(p).is_err(), "{p} failed once, then answered");
                failed.get_or_insert(*p);
            }
            Err(e) => panic!("{p}: {e:?}"),
        }
    }
    assert!(
        answered > positions.len() / 2,
        "{answered} of {} answered",
        positions.len()
    );
    failed.expect("some probe reads the damaged block")
}

#[test]
fn a_damaged_block_fails_its_probes_and_only_those() {
    let good = Tablebase::open(built()).unwrap();
    let white = spread_positions(&good, Side::White);
    let black = spread_positions(&good, Side::Black);
    for stream in 0..3 {
        let (dir, path) = copy();
        damage_blocks(&path, stream);
        // The file opens (blocks are checked when read) ...
        let tb = Tablebase::open(dir.path()).unwrap();
        let failing = match stream {
            // A damaged WDL block fails the WDL probes of its side ...
            0 | 1 => {
                let positions = if stream == 0 { &white } else { &black };
                some_fail_none_lie(positions, |p| tb.probe_wdl(p), |p| good.probe_wdl(p))
            }
            // ... and a damaged DTM block the distance probes of both sides.
            _ => {
                let stored = tb.table(&"KRvKN".parse().unwrap()).unwrap().dtm_side();
                let (mine, theirs) = if stored == Side::White {
                    (&white, &black)
                } else {
                    (&black, &white)
                };
                let some: Vec<Position> = theirs.iter().step_by(4).copied().collect();
                some_fail_none_lie(&some, |p| tb.probe_dtm(p), |p| good.probe_dtm(p));
                some_fail_none_lie(mine, |p| tb.probe_dtm(p), |p| good.probe_dtm(p))
            }
        };
        // The CLI says so in one line per position, and `verify` fails.
        let fen = failing.to_string();
        let d = dir.path().to_str().unwrap();
        let out = run(&["probe", &fen, "--tables", d]);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("block") && err.contains("checksum") && !err.contains("panicked"),
            "{err}"
        );
        assert!(err.lines().next().unwrap().contains("checksum"), "{err}");
        let out = run(&["verify", "KRvKN", "--tables", d]);
        assert_eq!(out.status.code(), Some(1));
    }
}

#[test]
fn a_killed_gen_leaves_no_file_under_a_final_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let exe = env!("CARGO_BIN_EXE_retrobook");
    // Kill runs at growing ages: early ones die while solving, later ones while writing or
    // between tables. Every file under a final name must be complete.
    for delay_ms in [50u64, 150, 300, 500, 800, 1200] {
        let mut child = std::process::Command::new(exe)
            .args(["gen", "KQvKR", "--tables", d])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        for entry in std::fs::read_dir(dir.path()).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue; // a temporary file, never taken for a table
            }
            let t = TableFile::open(&path).unwrap_or_else(|e| panic!("after kill: {e}"));
            t.decode_wdl(Side::White).unwrap();
            t.decode_wdl(Side::Black).unwrap();
            t.decode_dtm().unwrap();
        }
    }
    let out = run(&["gen", "KQvKR", "--tables", d]);
    assert!(out.status.success());
    let out = run(&["verify", "--tables", d]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A table whose pages were taken out of memory (`Tablebase::release_pages`, as a build
/// does once its sub-tables are decoded) answers every probe as before.
#[test]
fn probes_after_pages_are_released_answer_the_same() {
    let (dir, _) = copy();
    // No DTM cache: every probe reads the file.
    let mut tb = Tablebase::with_cache_bytes(0).unwrap();
    for sig in ["KRvKN", "KRvK", "KNvK"] {
        tb.add_file(&dir.path().join(format!("{sig}.rbt"))).unwrap();
    }
    let positions = spread_positions(&tb, Side::Black);
    let probe = |tb: &Tablebase| -> Vec<_> {
        (positions.iter())
            .map(|p| (tb.probe_wdl(p).unwrap(), tb.probe_dtm(p).unwrap()))
            .collect()
    };
    let before = probe(&tb);
    tb.release_pages();
    assert_eq!(probe(&tb), before);
    assert!(before.len() > 1000);
}

/// A build session resumes a folder: a table that does not open is named and built again,
/// a killed run's temporary is removed, and only what is missing is built.
#[test]
fn a_session_resumes_a_folder() {
    let (dir, path) = copy();
    edit(&path, |b| b.truncate(100));
    let stale = dir.path().join(format!(".KRvKN.rbt.{}.tmp", u32::MAX));
    std::fs::write(&stale, b"partial").unwrap();
    let target: Material = "KRvKN".parse().unwrap();
    let mut session = Session::open(dir.path(), &[target]);
    assert!(
        matches!(&session.damaged[..], [TableError::Refused { path: p, .. }] if *p == path),
        "{:?}",
        session.damaged
    );
    // Opening reads the folder only.
    assert!(stale.exists());
    assert_eq!(session.prepare().unwrap(), 1);
    assert!(!stale.exists());
    assert_eq!(session.todo(), [target]);
    let report = match session.build_next(&Default::default(), &Silent).unwrap() {
        Ok(Built::Table(report)) => report,
        other => panic!("{other:?}"),
    };
    assert_eq!(report.path, path);
    assert!(session.build_next(&Default::default(), &Silent).is_none());
    assert_eq!(session.done(), 1);
    assert!(session.tables().table(&target).is_some());
    let clean = std::fs::read(built().join("KRvKN.rbt")).unwrap();
    assert!(
        std::fs::read(&path).unwrap() == clean,
        "rebuilt differently"
    );
}
