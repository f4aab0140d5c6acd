//! The header of a xiangqi table file: its counts, longest mate and streams' places.

use super::{GAME, INDEX_SCHEME, VALUE_ENCODING};
use crate::field;
use crate::retro::{Solved, Verdict};
use crate::side::Side;
use crate::table::error::FileFault;
use crate::table::format::{HEADER_LEN, MAGIC, VERSION};
use crate::value::{Dtm, Wdl};
use crate::xiangqi::Rule;
use crate::xiangqi::{Signature, XiangqiIndex};
use rayon::prelude::*;

/// One side to move's counts, as the header holds them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SideCounts {
    /// Legal indices.
    pub positions: u64,
    /// Forced mates for the side to move.
    pub win: u64,
    /// Draws, the rule's verdicts aside.
    pub draw: u64,
    /// Forced mates against the side to move.
    pub loss: u64,
    /// Won by the repetition rules alone (counted in none of the above).
    pub win_by_rule: u64,
    /// Lost by the rules alone.
    pub loss_by_rule: u64,
    /// Of those won or lost by the rules, the ones the chase rule decides.
    pub by_chase: u64,
    /// Positions whose value an earlier position, repeated, can change.
    pub path_dependent: u64,
    /// Positions the chase rule was not applied to (`retro::Ruled::chases_judged`).
    pub unjudged: u64,
}

/// Everything the header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XiangqiHeader {
    /// The table's material, Red the stronger side.
    pub signature: Signature,
    /// Indices per side to move.
    pub size: u64,
    /// Counts with Red and with Black to move.
    pub sides: [SideCounts; 2],
    /// Plies of the longest mate, its side to move and index.
    pub longest: (u32, Side, u64),
    /// Red's stream, Black's stream and the rule list: offset and length.
    pub extents: [(u64, u64); 3],
}

const SIDES_AT: [usize; 2] = [56, 104];
const RULES_AT: [usize; 2] = [216, 240];
const EXTENTS_AT: usize = 168;
pub(super) const CRC_AT: usize = HEADER_LEN - 4;

impl XiangqiHeader {
    /// The header of `solved`, its parts to be placed at `extents`.
    pub fn of(solved: &Solved, extents: [(u64, u64); 3]) -> XiangqiHeader {
        let n = solved.index.size();
        let per_side = Side::ALL.map(|side| {
            (0..n)
                .into_par_iter()
                .filter(|&i| !solved.solution.is_illegal(side, i))
                .map(|i| {
                    let v = solved.verdict(side, i);
                    let mate = match v {
                        Verdict::Plain(Dtm::Win(p)) => Some((p, i)),
                        _ => None,
                    };
                    (SideCounts::of(v), mate)
                })
                .reduce(
                    || (SideCounts::default(), None),
                    |(a, ma), (b, mb)| (a.plus(b), longer(ma, mb)),
                )
        });
        let sides = per_side.map(|(c, _)| c);
        let longest = match (per_side[0].1, per_side[1].1) {
            (Some((p0, i0)), b) if b.is_none_or(|(p1, _)| p0 >= p1) => (p0, Side::White, i0),
            (_, Some((p1, i1))) => (p1, Side::Black, i1),
            _ => (0, Side::White, 0),
        };
        XiangqiHeader {
            signature: solved.index.signature(),
            size: n,
            sides,
            longest,
            extents,
        }
    }

    /// The 512 header bytes, checksum included.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&MAGIC);
        field::put::<u32>(&mut b, 8, VERSION);
        field::put::<u32>(&mut b, 12, HEADER_LEN as u32);
        b[16..16 + GAME.len()].copy_from_slice(GAME.as_bytes());
        let sig = self.signature.to_string();
        b[24..24 + sig.len()].copy_from_slice(sig.as_bytes());
        field::put::<u32>(&mut b, 40, INDEX_SCHEME);
        field::put::<u32>(&mut b, 44, VALUE_ENCODING);
        field::put::<u64>(&mut b, 48, self.size);
        for (c, at) in self.sides.iter().zip(SIDES_AT) {
            let counts = [
                c.positions,
                c.win,
                c.draw,
                c.loss,
                c.win_by_rule,
                c.loss_by_rule,
            ];
            for (i, v) in counts.into_iter().enumerate() {
                field::put::<u64>(&mut b, at + 8 * i, v);
            }
        }
        for (c, at) in self.sides.iter().zip(RULES_AT) {
            for (i, v) in [c.by_chase, c.path_dependent, c.unjudged]
                .into_iter()
                .enumerate()
            {
                field::put::<u64>(&mut b, at + 8 * i, v);
            }
        }
        field::put::<u32>(&mut b, 152, self.longest.0);
        field::put::<u32>(&mut b, 156, self.longest.1.index() as u32);
        field::put::<u64>(&mut b, 160, self.longest.2);
        for (i, &(offset, len)) in self.extents.iter().enumerate() {
            field::put::<u64>(&mut b, EXTENTS_AT + 16 * i, offset);
            field::put::<u64>(&mut b, EXTENTS_AT + 16 * i + 8, len);
        }
        let crc = crc32fast::hash(&b[..CRC_AT]);
        field::put::<u32>(&mut b, CRC_AT, crc);
        b
    }

    /// Parses and checks a header; the error says what is wrong.
    pub fn from_bytes(b: &[u8]) -> Result<XiangqiHeader, FileFault> {
        if b.len() < HEADER_LEN {
            return Err(FileFault::ShorterThanHeader {
                len: b.len() as u64,
            });
        }
        if b[0..8] != MAGIC {
            return Err(FileFault::NotATable);
        }
        let version = field::get::<u32>(b, 8);
        if version != VERSION {
            let fault = FileFault::Version {
                found: version,
                oldest: VERSION,
                newest: VERSION,
            };
            return Err(fault.within("xiangqi table"));
        }
        if field::get::<u32>(b, CRC_AT) != crc32fast::hash(&b[..CRC_AT]) {
            return Err(FileFault::Checksum { part: "header" });
        }
        if field::get::<u32>(b, 12) as usize != HEADER_LEN {
            return Err(FileFault::corrupt("unexpected header length"));
        }
        let text = |at: usize, len: usize| {
            let f = &b[at..at + len];
            let end = f.iter().position(|&c| c == 0).unwrap_or(len);
            String::from_utf8_lossy(&f[..end]).into_owned()
        };
        let game = text(16, 8);
        if game != GAME {
            return Err(FileFault::Game {
                found: game,
                expected: GAME,
            });
        }
        let signature: Signature = text(24, 16)
            .parse()
            .map_err(|e| FileFault::corrupt(format!("bad signature in header: {e}")))?;
        if field::get::<u32>(b, 40) != INDEX_SCHEME || field::get::<u32>(b, 44) != VALUE_ENCODING {
            return Err(FileFault::corrupt("unknown index scheme or value encoding"));
        }
        let size = field::get::<u64>(b, 48);
        let fits = XiangqiIndex::try_new(signature).is_some_and(|i| i.size() == size);
        if !signature.is_canonical() || !fits {
            return Err(FileFault::corrupt(format!(
                "the header's signature {signature} and size {size} do not fit"
            )));
        }
        let sides = [0, 1].map(|s| {
            let v = |i: usize| field::get::<u64>(b, SIDES_AT[s] + 8 * i);
            let r = |i: usize| field::get::<u64>(b, RULES_AT[s] + 8 * i);
            SideCounts {
                by_chase: r(0),
                path_dependent: r(1),
                unjudged: r(2),
                positions: v(0),
                win: v(1),
                draw: v(2),
                loss: v(3),
                win_by_rule: v(4),
                loss_by_rule: v(5),
            }
        });
        let side = Side::try_from_index(field::get::<u32>(b, 156) as usize);
        let (plies, idx) = (field::get::<u32>(b, 152), field::get::<u64>(b, 160));
        let longest = match side {
            Some(side) if idx < size.max(1) => (plies, side, idx),
            _ => return Err(FileFault::corrupt("bad longest mate in header")),
        };
        let extents = [0, 1, 2].map(|i| {
            (
                field::get::<u64>(b, EXTENTS_AT + 16 * i),
                field::get::<u64>(b, EXTENTS_AT + 16 * i + 8),
            )
        });
        Ok(XiangqiHeader {
            signature,
            size,
            sides,
            longest,
            extents,
        })
    }
}

impl SideCounts {
    /// The counts of one legal position of value `v`.
    pub fn of(v: Verdict) -> SideCounts {
        let mut c = SideCounts {
            positions: 1,
            ..Default::default()
        };
        match v {
            Verdict::Plain(Dtm::Win(_)) => c.win = 1,
            Verdict::Plain(Dtm::Loss(_)) => c.loss = 1,
            Verdict::Plain(Dtm::Draw) => c.draw = 1,
            Verdict::Ruled(r) => {
                match r.wdl {
                    Wdl::Win => c.win_by_rule = 1,
                    Wdl::Draw => c.draw = 1,
                    Wdl::Loss => c.loss_by_rule = 1,
                }
                c.by_chase = u64::from(r.rule == Some(Rule::PerpetualChase));
                c.path_dependent = u64::from(r.path_dependent);
                c.unjudged = u64::from(!r.chases_judged);
            }
        }
        c
    }

    /// The counts of both.
    pub fn plus(self, b: SideCounts) -> SideCounts {
        SideCounts {
            positions: self.positions + b.positions,
            win: self.win + b.win,
            draw: self.draw + b.draw,
            loss: self.loss + b.loss,
            win_by_rule: self.win_by_rule + b.win_by_rule,
            loss_by_rule: self.loss_by_rule + b.loss_by_rule,
            by_chase: self.by_chase + b.by_chase,
            path_dependent: self.path_dependent + b.path_dependent,
            unjudged: self.unjudged + b.unjudged,
        }
    }
}

/// The longer of two mates (plies, index), the first on equal plies.
fn longer(a: Option<(u32, u64)>, b: Option<(u32, u64)>) -> Option<(u32, u64)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if y.0 > x.0 || (y.0 == x.0 && y.1 < x.1) {
            y
        } else {
            x
        }),
        _ => a.or(b),
    }
}
