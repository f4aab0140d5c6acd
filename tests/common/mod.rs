//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A file under `tests/data/`.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Runs the retrobook binary with `args`.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retrobook"))
        .args(args)
        .output()
        .expect("the retrobook binary runs")
}

/// Runs the binary and insists on success; returns stdout.
pub fn run_ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "retrobook {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Expected value of a line of the Gaviota sample files: `dm N` in the python-chess
/// convention and, when present, `wdl W` (needed to tell mate from draw when N = 0).
pub fn expected_dtm(line: &str) -> Option<(String, Option<retrobook::Dtm>)> {
    use retrobook::Dtm;
    let (fen, ops) = line.split_once(" dm ")?;
    let dm: i32 = ops.split(';').next()?.trim().parse().ok()?;
    let wdl: Option<i32> = ops
        .split("wdl ")
        .nth(1)
        .and_then(|w| w.split(';').next()?.trim().parse().ok());
    let v = match (dm, wdl) {
        (n, _) if n > 0 => Some(Dtm::Win(2 * n as u32 - 1)),
        (n, _) if n < 0 => Some(Dtm::Loss(2 * (-n) as u32)),
        (_, Some(-1)) => Some(Dtm::Loss(0)),
        (_, Some(_)) => Some(Dtm::Draw),
        (_, None) => None, // draw or mated: the test checks by rules
    };
    Some((fen.trim().to_string(), v))
}

/// Overwrites the checksums of a table file (format version 1) so that a deliberately
/// altered value passes the file checks and only `verify` can catch it.
pub fn reseal_table(path: &Path) {
    let mut b = std::fs::read(path).unwrap();
    let n = u64::from_le_bytes(b[48..56].try_into().unwrap()) as usize;
    let c0 = crc32fast::hash(&b[256..256 + n]);
    let c1 = crc32fast::hash(&b[256 + n..256 + 2 * n]);
    b[136..140].copy_from_slice(&c0.to_le_bytes());
    b[140..144].copy_from_slice(&c1.to_le_bytes());
    let h = crc32fast::hash(&b[..252]);
    b[252..256].copy_from_slice(&h.to_le_bytes());
    std::fs::write(path, b).unwrap();
}
