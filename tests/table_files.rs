//! Damaged table files are refused or fail their probes with an error naming the file (and
//! block); they never answer a wrong value and never panic. A killed `gen` leaves no file
//! under a final name.

mod common;

use common::run;
use retrobook::chess::{Color, Position};
use retrobook::generate::{generate, plan};
use retrobook::material::Material;
use retrobook::retro::Silent;
use retrobook::table::{TableFile, HEADER_LEN};
use retrobook::{ProbeError, Tablebase};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// KRvKN and its sub-tables, built once through the library.
fn built() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let mut tb = Tablebase::new();
        for m in plan(&["KRvKN".parse().unwrap()], &tb) {
            let report = generate(m, &tb, dir.path(), &Silent).unwrap();
            tb.add_file(&report.path).unwrap();
        }
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
    let crc = crc32fast::hash(&b[..252]);
    b[252..256].copy_from_slice(&crc.to_le_bytes());
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
    assert!(err.contains("KRvKN.rbt") && err.contains(needle), "{err}");
    let out = run(&["info", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(needle) && !stderr.contains("panicked"),
        "{stderr}"
    );
    assert!(Tablebase::open(dir).is_err());
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

#[test]
fn damaged_header_and_block_table_are_refused() {
    let (dir, path) = copy();
    let original = std::fs::read(&path).unwrap();
    edit(&path, |b| b[60] ^= 0x10); // a statistics byte
    refused(dir.path(), &path, "header checksum");
    std::fs::write(&path, &original).unwrap();
    edit(&path, |b| b[HEADER_LEN + 9] ^= 0x01); // the second byte of an offset
    refused(dir.path(), &path, "block table checksum");
    std::fs::write(&path, &original).unwrap();
    edit(&path, |b| {
        b[8] = 3; // a future format version, header checksum valid
        reseal_header(b);
    });
    refused(dir.path(), &path, "version 3");
}

#[test]
fn foreign_files_are_refused() {
    let (dir, path) = copy();
    std::fs::write(&path, b"\x89PNG\r\n\x1a\n".repeat(200)).unwrap();
    refused(dir.path(), &path, "not a retrobook table");
    std::fs::write(&path, "[Event \"not a table\"]\n".repeat(100)).unwrap();
    refused(dir.path(), &path, "not a retrobook table");
}

/// A legal white-to-move position of KRvKN at an index in block `block`.
fn position_in_block(tb: &Tablebase, block: u64) -> (u64, Position) {
    let m: Material = "KRvKN".parse().unwrap();
    let index = tb.table(&m).unwrap().index();
    let log = tb.table(&m).unwrap().header().block_log;
    ((block << log)..((block + 1) << log))
        .find_map(|i| {
            let p = index.decode(i, Color::White)?;
            (!p.opponent_in_check() && index.is_canonical(i, &p)).then_some((i, p))
        })
        .unwrap()
}

#[test]
fn a_damaged_block_fails_its_probes_and_only_those() {
    let (dir, path) = copy();
    let good = Tablebase::open(built()).unwrap();
    let (_, in_block_3) = position_in_block(&good, 3);
    let (_, in_block_5) = position_in_block(&good, 5);
    let expected = good.probe_dtm(&in_block_3).unwrap();
    edit(&path, |b| {
        let start = u64_at(b, HEADER_LEN + 8 * 5) as usize;
        let end = u64_at(b, HEADER_LEN + 8 * 6) as usize;
        b[(start + end) / 2] ^= 0x04;
    });
    // The file opens (blocks are checked when read) ...
    let tb = Tablebase::open(dir.path()).unwrap();
    // ... its other blocks answer ...
    assert_eq!(tb.probe_dtm(&in_block_3).unwrap(), expected);
    // ... and every probe into the damaged block fails, naming file and block, again and
    // again (a failed decode is not cached).
    for _ in 0..3 {
        match tb.probe_dtm(&in_block_5) {
            Err(ProbeError::Table(e)) => assert!(
                e.contains("KRvKN.rbt") && e.contains("block 5") && e.contains("checksum"),
                "{e}"
            ),
            other => panic!("damaged block answered {other:?}"),
        }
    }
    // The CLI says so in one line, and `verify` fails.
    let fen = in_block_5.to_string();
    let d = dir.path().to_str().unwrap();
    let out = run(&["probe", &fen, "--tables", d]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("block 5") && !err.contains("panicked"),
        "{err}"
    );
    let out = run(&["verify", "KRvKN", "--tables", d]);
    assert_eq!(out.status.code(), Some(1));
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
            t.decode_side(0).unwrap();
            t.decode_side(1).unwrap();
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
