//! Xiangqi table files: the chess tables' magic, header length, checksums and compressed
//! streams (`codec`), with their own index scheme and value encoding, all integers
//! little-endian.
//!
//! ```text
//! offset  size  field
//!      0     8  magic b"RBTABLE\x1a"
//!      8     4  format version (4)
//!     12     4  header length (512)
//!     16     8  game, zero-padded ASCII ("xiangqi")
//!     24    16  signature, zero-padded ASCII (e.g. "KRvKAABB", Red the stronger side)
//!     40     4  index scheme (2: `xiangqi::XiangqiIndex`)
//!     44     4  value encoding (5, below)
//!     48     8  indices per side to move (N)
//!     56    48  Red to move: positions, win, draw, loss, win by rule, loss by rule (u64;
//!               legal indices, a position and its mirror image once; win and loss
//!               count forced mates only)
//!    104    48  Black to move: the same
//!    152     4  longest mate in plies
//!    156     4  side to move of a longest mate (0 Red, 1 Black)
//!    160     8  index of that position
//!    168    16  Red-to-move stream: offset, length (u64 each)
//!    184    16  Black-to-move stream: offset, length
//!    200    16  rule list: offset, length
//!    216    24  Red to move: won or lost by the chase rule, path-dependent, not judged
//!               for chases (u64 each; `SideCounts`)
//!    240    24  Black to move: the same
//!    264   244  reserved, zero
//!    508     4  CRC-32 of bytes 0..508
//!    512        the streams and the list, each starting at a multiple of 64
//! ```
//!
//! Value encoding 5: each side's stream (cut into segments, `codec::segments`) holds a code
//! per index, the value with every repetition a draw and the marks of a draw: 0 a draw, 1
//! a draw whose value under the chase rule was not judged (`retro::Ruled::chases_judged`),
//! 2 a draw that a repetition of an earlier position can change (path-dependent), 3 both;
//! c >= 4 a forced mate in c - 4 plies (an odd number of plies a win, an even one a loss).
//! Illegal indices hold whatever compresses best. The rule list names the plain draws that
//! the Asian rules win or lose: for each side, a count (u64) and its entries in increasing
//! order (u64: index x 16 + flags: bits 0-1 the value, 1 win, 2 loss; bit 2 set where the
//! chase rule decides it, clear where the check rule does; bit 3 set where it depends on
//! the path), then a CRC-32 of the list's bytes; their codes in the stream are 0, or 1
//! where the chase rule was not judged. (Encoding 4 listed path-dependent draws too, eight
//! bytes each: a table whose draws are nearly all marked grew eightfold.)

mod header;
mod reader;
mod writer;

pub use header::{SideCounts, XiangqiHeader};
pub use reader::XiangqiFile;
pub use writer::{write, Written};

use crate::retro::{Ruled, Verdict};
use crate::value::{Dtm, Wdl};
use crate::xiangqi::{Rule, Signature};
use std::path::{Path, PathBuf};

/// The game field of xiangqi tables.
pub const GAME: &str = "xiangqi";
/// Index scheme number of `XiangqiIndex`.
pub const INDEX_SCHEME: u32 = 2;
/// Value encoding number described above.
pub const VALUE_ENCODING: u32 = 5;
/// File name extension of xiangqi tables: apart from chess's, since signatures such as
/// KRvKN name tables of both games.
pub const EXTENSION: &str = "rbx";
/// log2 of the values per segment of a stream.
const SEGMENT_LOG: u32 = 24;

/// A draw's code's bit set where the chase rule did not judge it.
const UNJUDGED: u16 = 1;
/// A draw's code's bit set where it depends on the path.
const PATH: u16 = 2;
/// The code of a mate in 0 plies (encoding 5).
const MATE_0: u16 = 4;

/// The code of `v` (encoding 5): a rule's win or loss is coded as a draw, and listed.
pub(super) fn code(v: Verdict) -> u16 {
    match v {
        Verdict::Plain(Dtm::Draw) => 0,
        Verdict::Plain(Dtm::Win(p) | Dtm::Loss(p)) => p as u16 + MATE_0,
        Verdict::Ruled(r) => {
            let path = r.wdl == Wdl::Draw && r.path_dependent;
            (u16::from(!r.chases_judged) * UNJUDGED) | (u16::from(path) * PATH)
        }
    }
}

/// The value with every repetition a draw of a code (encoding 5).
fn value_of(c: u16) -> Dtm {
    match c {
        0..MATE_0 => Dtm::Draw,
        c if c % 2 == 1 => Dtm::Win(u32::from(c - MATE_0)),
        c => Dtm::Loss(u32::from(c - MATE_0)),
    }
}

/// The value of index `idx` whose stream holds `c`, the rules' wins and losses of its side
/// to move listed in `by_rule` (encoding 5).
pub(super) fn verdict_of(c: u16, by_rule: &[(u64, Ruled)], idx: u64) -> Verdict {
    let v = Verdict::of(value_of(c), by_rule, idx);
    match c {
        0..MATE_0 => v.marked(c & PATH != 0, c & UNJUDGED == 0),
        _ => v,
    }
}

/// A rule list entry: index `idx`, listed as `r` says.
fn entry(idx: u64, r: &Ruled) -> u64 {
    let value = match r.wdl {
        Wdl::Draw => 0,
        Wdl::Win => 1,
        Wdl::Loss => 2,
    };
    let chase = u64::from(r.rule == Some(Rule::PerpetualChase)) << 2;
    idx << 4 | value | chase | u64::from(r.path_dependent) << 3
}

/// The index and listing of a rule list entry (judged for chases: the stream says where
/// not), or None for flags no entry holds.
fn from_entry(e: u64) -> Option<(u64, Ruled)> {
    let wdl = [Wdl::Win, Wdl::Loss].get((e & 3) as usize - 1).copied()?;
    let rule = match e >> 2 & 1 {
        0 => Some(Rule::PerpetualCheck),
        _ => Some(Rule::PerpetualChase),
    };
    let path_dependent = e >> 3 & 1 == 1;
    let r = Ruled {
        wdl,
        rule,
        path_dependent,
        chases_judged: true,
    };
    Some((e >> 4, r))
}

/// The file of `signature`'s table in `dir`.
pub fn table_path(dir: &Path, signature: &Signature) -> PathBuf {
    dir.join(format!("{signature}.{EXTENSION}"))
}

#[cfg(test)]
mod tests {
    use super::header::CRC_AT;
    use super::*;
    use crate::retro::XiangqiTables;
    use crate::side::Side;
    use crate::table::format::HEADER_LEN;
    use crate::table::TableError;

    /// KRvKN solved in memory, with its signature.
    fn krvkn() -> (XiangqiTables, Signature) {
        let sig: Signature = "KRvKN".parse().unwrap();
        let mut tables = XiangqiTables::default();
        tables.solve(sig);
        (tables, sig)
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rb-xq-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Every kind of verdict the rules give, written and read back as it was: a draw not
    /// judged for chases (in the stream alone, or listed where also path-dependent), a win
    /// and a loss by the chase rule, a path-dependent draw, and a win by the check rule
    /// not judged for chases; the header counts each kind.
    #[test]
    fn every_kind_of_verdict_reads_back() {
        let (tables, sig) = krvkn();
        let solved = tables.table(&sig).unwrap();
        let ruled = |wdl, rule, path_dependent, chases_judged| Ruled {
            wdl,
            rule,
            path_dependent,
            chases_judged,
        };
        let kinds = [
            ruled(Wdl::Draw, None, false, false),
            ruled(Wdl::Draw, None, true, false),
            ruled(Wdl::Win, Some(Rule::PerpetualChase), true, true),
            ruled(Wdl::Loss, Some(Rule::PerpetualChase), false, true),
            ruled(Wdl::Draw, None, true, true),
            ruled(Wdl::Win, Some(Rule::PerpetualCheck), true, false),
        ];
        // Red's plain draws, not yet listed, given each kind in turn.
        let draws = (0..solved.index.size())
            .filter(|&i| solved.verdict(Side::White, i) == Verdict::Plain(Dtm::Draw))
            .filter(|&i| !solved.solution.is_illegal(Side::White, i));
        let mut by_rule = solved.by_rule.clone();
        let chosen: Vec<(u64, Ruled)> = draws.zip(kinds).collect();
        for &(i, r) in &chosen {
            by_rule[Side::White].set(solved.index.size(), i, r);
        }
        let marked = crate::retro::Solved {
            index: solved.index.clone(),
            solution: solved.solution.clone(),
            by_rule,
        };
        let dir = temp_dir("kinds");
        let Written { path, header, .. } = write(&dir, &marked).unwrap();
        let file = XiangqiFile::open(&path).unwrap();
        for &(i, r) in &chosen {
            assert_eq!(
                file.verdict(Side::White, i).unwrap(),
                Verdict::Ruled(r),
                "{i}"
            );
        }
        let red = header.sides[0];
        let before = XiangqiFile::open(&write(&temp_dir("plain"), solved).unwrap().path)
            .unwrap()
            .header()
            .sides[0];
        assert_eq!(red.unjudged - before.unjudged, 3);
        assert_eq!(red.by_chase - before.by_chase, 2);
        assert_eq!(red.path_dependent - before.path_dependent, 4);
        assert_eq!(file.header().sides[0], red);
    }

    /// KRvKN written and read back: every legal index's value (1,597 by the rule among
    /// them), the header's counts and longest mate; then each part damaged in turn is
    /// refused at open or fails its probes, never giving another value.
    #[test]
    fn tables_read_back_and_damage_is_refused() {
        let (tables, sig) = krvkn();
        let solved = tables.table(&sig).unwrap();
        let dir = temp_dir("roundtrip");
        let Written { path, bytes, .. } = write(&dir, solved).unwrap();
        assert_eq!(bytes, std::fs::metadata(&path).unwrap().len());
        let file = XiangqiFile::open(&path).unwrap();
        let mut by_rule = 0;
        for side in Side::ALL {
            for i in 0..solved.index.size() {
                if !solved.solution.is_illegal(side, i) {
                    let v = solved.verdict(side, i);
                    let stored = file.verdict(side, i).unwrap();
                    assert_eq!(stored, v, "{side:?} {i}");
                    by_rule += usize::from(v.by_rule());
                }
            }
        }
        assert_eq!(by_rule, 1597);
        let h = file.header();
        let counted: u64 = h.sides.iter().map(|c| c.win_by_rule + c.loss_by_rule).sum();
        assert_eq!(counted, 1597);
        assert_eq!(h.longest.0, 25);
        let (_, side, idx) = h.longest;
        assert_eq!(solved.verdict(side, idx), Verdict::Plain(Dtm::Win(25)));

        let good = std::fs::read(&path).unwrap();
        let damaged = dir.join("KRvKN.rbx");
        let refused = |bytes: &[u8]| {
            std::fs::write(&damaged, bytes).unwrap();
            XiangqiFile::open(&damaged)
                .map(|_| ())
                .unwrap_err()
                .to_string()
        };
        assert!(refused(&good[..300]).contains("shorter than a table header"));
        let cut = refused(&good[..good.len() - 10]);
        assert!(cut.contains("truncated"), "{cut}");
        let mut b = good.clone();
        b[60] ^= 1;
        assert!(refused(&b).contains("header checksum"));
        let mut b = good.clone();
        let list = h.extents[2].0 as usize;
        b[list + 9] ^= 1;
        assert!(refused(&b).contains("rule list checksum"));
        let mut b = good.clone();
        b[16..24].copy_from_slice(b"chess\0\0\0");
        let crc = crc32fast::hash(&b[..CRC_AT]);
        b[CRC_AT..HEADER_LEN].copy_from_slice(&crc.to_le_bytes());
        assert!(refused(&b).contains("expected xiangqi"));
        // A flipped bit inside Red's stream: its probes fail, the others answer.
        let mut b = good.clone();
        let (at, len) = h.extents[0];
        b[(at + len / 2) as usize] ^= 0x10;
        std::fs::write(&damaged, &b).unwrap();
        let file = XiangqiFile::open(&damaged).unwrap();
        let (mut failed, mut wrong) = (0, 0);
        for i in 0..solved.index.size() {
            if !solved.solution.is_illegal(Side::White, i) {
                match file.verdict(Side::White, i) {
                    Err(TableError::Block { .. }) => failed += 1,
                    Err(e) => panic!("{e}"),
                    Ok(v) => wrong += usize::from(v != solved.verdict(Side::White, i)),
                }
            }
        }
        assert!(failed > 0 && wrong == 0, "{failed} failed, {wrong} wrong");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
