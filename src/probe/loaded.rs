//! Tables decoded whole into memory, for generation and verification: the solver reads
//! sub-tables hundreds of millions of times in no useful order, where probing the files
//! one position at a time would search and decode far too often.
//!
//! A table's file stores distances for one side to move. Decoding it gives that side's
//! distances (the stored numbers, or the conversions where they are better); the other
//! side's come from a one-ply search over them and the sub-tables. Only the sides that are
//! asked for, and what they need, are decoded; of a side only promotions reach, only the
//! positions they reach (`Reach`).

use super::en_passant::with_en_passant;
use super::error::ProbeError;
use super::sparse::{Piece, SparseBytes, PIECE_LOG};
use super::tablebase::Tablebase;
use crate::chess::{self, Bitboard, MoveKind, MoveList, Position, Role};
use crate::index::TableIndex;
use crate::material::{sort_for_generation, Material};
use crate::progress::{Observer, Silent};
use crate::retro::{bit, ChessGame, SubTables};
use crate::side::{BySide, Side};
use crate::table::values::{dtm_value, DRAW, OR_CONVERSION};
use crate::table::TableFile;
use crate::value::{Dtm, LongDistances, Wdl, Wdl5};
use rayon::prelude::*;

/// Decoded values (`Dtm::encode`, one byte per index) of some sides of some tables of a
/// `Tablebase`, and which of them the 50-move rule spoils.
pub struct LoadedTables<'a> {
    /// Each loaded table's material and the sides decoded.
    tables: Vec<(Material, BySide<Option<Decoded>>)>,
    /// For each loaded table and each orientation of its material: the material's key,
    /// the table's place in `values`, the table, and whether positions are colour-flipped
    /// to reach it.
    keys: Vec<(u64, usize, &'a TableFile, bool)>,
    /// Open addressing over `keys` (`slot`): 1 + the place of the key a slot holds, 0 for
    /// none. The solver looks materials up hundreds of millions of times; a scan of the
    /// list took most of each look-up (KRPvKR's tables: some thirty keys).
    slots: Vec<u16>,
}

/// The first slot of `key` in `slots` of length `len` (a power of two): a multiplicative
/// hash, its top bits.
#[inline]
fn slot(key: u64, len: usize) -> usize {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - len.trailing_zeros())) as usize
}

/// The sides of tables (canonical material, side to move) that `(material, side)` needs
/// decoded first, given the side its file stores: where the conversions of `side` lead,
/// and, when it is not `side`, the stored side and the capture en passant after each
/// double push of `side` (which the search reads too).
fn needs(material: Material, side: Side, stored: Side) -> Vec<(Material, Side)> {
    // Each once (conversions are): an en-passant capture may lead where a conversion
    // does, and a step's needs are counted down once each (`Schedule::new`).
    let mut out = material.conversions(side);
    if stored != side {
        for x in std::iter::once((material, stored)).chain(material.en_passant(stored)) {
            if !out.contains(&x) {
                out.push(x);
            }
        }
    }
    out
}

/// `wanted` and every side it needs, transitively (`stored` of each material).
fn closure(wanted: &[TableSide], stored: impl Fn(&Material) -> Side) -> Vec<TableSide> {
    let mut all: Vec<TableSide> = Vec::new();
    let mut stack = wanted.to_vec();
    while let Some(x) = stack.pop() {
        if !all.contains(&x) {
            stack.extend(needs(x.0, x.1, stored(&x.0)));
            all.push(x);
        }
    }
    all
}

/// A side of a table: canonical material and side to move.
type TableSide = (Material, Side);

/// Words of 64 indices a thread decodes at a time, telling the observer once.
const CHUNK_WORDS: usize = 64;

/// The squares a promotion may put a piece on, in every orientation of the board.
const EDGES: Bitboard = Bitboard(0xff81_8181_8181_81ff);

/// Which positions of a side are decoded: those a build can read. A side reached only by
/// promotions is read only where the promoting side has a piece of a promoted role on the
/// last rank: an edge of the board in the canonical orientation of a table without pawns,
/// the last rank itself in one with pawns; the moves of the other side keep that piece
/// where it stands, so the side a search of it reads needs no more. KRPvKR reads fewer
/// than half of KQRvKR's positions, KPPvKP an eighth of KQPvKP's.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Reach {
    /// Every position.
    All,
    /// The positions where `color` has a piece of one of `roles` (bits by `Role::index`)
    /// on one of `squares` (`Reach::promoted`).
    Promoted {
        color: Side,
        roles: u8,
        squares: Bitboard,
    },
}

impl Reach {
    /// The positions of a side of `material` that a promotion by `color` to `role` reaches:
    /// the piece on the last rank, which is any edge in the orientations of a table without
    /// pawns and the last rank itself in one with pawns, whose orientations keep the ranks.
    fn promoted(material: &Material, color: Side, role: Role) -> Reach {
        let squares = match (material.has_pawns(), color) {
            (false, _) => EDGES,
            (true, Side::White) => Bitboard::rank(7),
            (true, Side::Black) => Bitboard::rank(0),
        };
        Reach::Promoted {
            color,
            roles: 1 << role.index(),
            squares,
        }
    }

    /// Whether the position of index `idx` of `index` may be in this set (exact where the
    /// pieces are placed legally, found from the promoted pieces' squares alone, so that
    /// an index out of reach is never decoded), and how many indices from it on have the
    /// same answer: the promoted pieces' groups stand still over runs of indices (their
    /// strides), so that a walk over a side tests each run once.
    #[inline]
    fn may_hold_run(self, index: &TableIndex, idx: u64) -> (bool, u64) {
        let mut run = u64::MAX;
        let holds = self.has_promoted(|color, role| {
            let (squares, same) = index
                .squares_of_run(idx, chess::Piece { color, role })
                .unwrap_or((Bitboard::EMPTY, u64::MAX));
            run = run.min(same);
            squares
        });
        (holds, run)
    }

    /// Whether a piece of a promoted role stands on a square of the set, `pieces` giving
    /// the squares of each colour and role.
    #[inline]
    fn has_promoted(self, mut pieces: impl FnMut(Side, Role) -> Bitboard) -> bool {
        match self {
            Reach::All => true,
            Reach::Promoted {
                color,
                roles,
                squares,
            } => Role::PROMOTIONS.iter().any(|&role| {
                roles & (1 << role.index()) != 0 && !(pieces(color, role) & squares).is_empty()
            }),
        }
    }

    /// Both sets of positions (of one side of one table).
    fn union(self, other: Reach) -> Reach {
        match (self, other) {
            (
                Reach::Promoted {
                    color,
                    roles,
                    squares,
                },
                Reach::Promoted {
                    color: c,
                    roles: r,
                    squares: q,
                },
            ) if color == c && squares == q => Reach::Promoted {
                color,
                roles: roles | r,
                squares,
            },
            _ => Reach::All,
        }
    }

    /// True when `pos` (in its table's canonical colours) is decoded.
    #[inline]
    fn holds(self, pos: &Position) -> bool {
        self.has_promoted(|color, role| pos.pieces(color, role))
    }
}

/// The conversions of `side`, each with the positions of it they can reach; promotions
/// only when `promotions` holds.
fn reached_by(side: TableSide, promotions: bool) -> impl Iterator<Item = (TableSide, Reach)> {
    side.0
        .conversions_promoting(side.1)
        .into_iter()
        .filter(move |(_, _, promoted)| promotions || promoted.is_none())
        .map(|(m, to_move, promoted)| {
            // The side that promoted has just moved.
            let reach = promoted.map_or(Reach::All, |r| Reach::promoted(&m, !to_move, r));
            ((m, to_move), reach)
        })
}

/// The positions of each side of `closure(wanted)` that are read, `wanted` reaching those
/// given: a side's conversions reach what `reached_by` says, a searched side's stored side
/// what it reaches itself.
fn reaches(
    wanted: &[(TableSide, Reach)],
    stored: impl Fn(&Material) -> Side,
) -> Vec<(TableSide, Reach)> {
    let mut all: Vec<(TableSide, Reach)> = Vec::new();
    let mut stack = wanted.to_vec();
    // The walk of `closure`, each side with what reaches it.
    while let Some((x, reach)) = stack.pop() {
        let now = match all.iter_mut().find(|e| e.0 == x) {
            Some(e) if e.1.union(reach) == e.1 => continue,
            Some(e) => {
                e.1 = e.1.union(reach);
                e.1
            }
            None => {
                all.push((x, reach));
                reach
            }
        };
        stack.extend(reached_by(x, true));
        let s = stored(&x.0);
        if s != x.1 {
            stack.push(((x.0, s), now));
        }
    }
    all
}

/// Bytes per index the decoder holds while it decodes a stored side (the WDL codes, the
/// DTM moves in a byte or, past 255 moves, two, the values and cursed bits it makes: at
/// most 4.125; each stream goes block by block to its indices) and while it searches the
/// other side (the codes, the values and bits), rounded up.
const DECODE_BYTES: u64 = 5;
const SEARCH_BYTES: u64 = 3;

/// The order in which sides are decoded, and when each is let go: a side that is only
/// needed to decode others (a sub-table's stored side, where the solver reads the other;
/// the conversions of a side found by search) is freed once the last of them is done, so
/// that only the sides asked for stay.
pub(crate) struct Schedule {
    steps: Vec<Step>,
}

/// One side of a `Schedule`.
struct Step {
    side: TableSide,
    /// Indices of the table.
    size: u64,
    /// Found by a one-ply search rather than decoded from the file.
    searched: bool,
    /// The positions decoded.
    reach: Reach,
    /// The earlier steps whose sides may be freed once this one is done.
    free: Vec<usize>,
}

impl Schedule {
    /// The schedule that decodes `wanted` and what it needs (`needs`, transitively),
    /// smaller tables first and each table's stored side before the other, and keeps
    /// `wanted` and `keep`. Of a table not yet built (for estimates), the stored side is
    /// unknown: where one side is asked for, the other is taken as stored, the costlier
    /// case. Each side is decoded where it is read (`reaches`, from the positions of
    /// `wanted` asked for).
    fn new(tb: &Tablebase, wanted: &[(TableSide, Reach)], keep: &[TableSide]) -> Schedule {
        let sides: Vec<TableSide> = wanted.iter().map(|w| w.0).collect();
        let known = |m: &Material| tb.table(m).map(|t| t.dtm_side());
        let asked = closure(&sides, |m| known(m).unwrap_or(Side::White));
        let stored = |m: &Material| {
            known(m).unwrap_or_else(|| {
                let only_white = !asked.contains(&(*m, Side::Black));
                if only_white {
                    Side::Black
                } else {
                    Side::White
                }
            })
        };
        // The sides to decode, each with the positions read of it.
        let reach = reaches(wanted, stored);
        let all: Vec<TableSide> = reach.iter().map(|e| e.0).collect();
        let mut materials: Vec<Material> = all.iter().map(|x| x.0).collect();
        sort_for_generation(&mut materials);
        materials.dedup();
        let order: Vec<TableSide> = materials
            .iter()
            .flat_map(|&m| [(m, stored(&m)), (m, !stored(&m))])
            .filter(|x| all.contains(x))
            .collect();
        let deps: Vec<Vec<TableSide>> = order
            .iter()
            .map(|x| needs(x.0, x.1, stored(&x.0)))
            .collect();
        let mut users: Vec<usize> = order
            .iter()
            .map(|x| deps.iter().filter(|d| d.contains(x)).count())
            .collect();
        let mut steps = Vec::with_capacity(order.len());
        for (i, &side) in order.iter().enumerate() {
            let mut free = Vec::new();
            for d in &deps[i] {
                let j = order.iter().position(|y| y == d).expect("needs are closed");
                users[j] -= 1;
                if users[j] == 0 && !sides.contains(d) && !keep.contains(d) {
                    free.push(j);
                }
            }
            steps.push(Step {
                side,
                size: TableIndex::new(side.0).size(),
                searched: side.1 != stored(&side.0),
                reach: reach
                    .iter()
                    .find(|e| e.0 == side)
                    .map_or(Reach::All, |e| e.1),
                free,
            });
        }
        Schedule { steps }
    }

    /// The bytes held once done of the sides building `material` still reads when only the
    /// colours `promoting` marks can promote (`LoadedTables::release_unread`).
    pub(crate) fn held_reading(&self, material: Material, promoting: [bool; 2]) -> u64 {
        let read = sides_read(material, promoting);
        let freed: Vec<usize> = self.steps.iter().flat_map(|s| s.free.clone()).collect();
        (self.steps.iter().enumerate())
            .filter(|(i, s)| !freed.contains(i) && read.contains(&s.side))
            .map(|(_, s)| s.held())
            .sum()
    }

    /// Indices of all the sides decoded.
    pub(crate) fn indices(&self) -> u64 {
        self.steps.iter().map(|s| s.size).sum()
    }

    /// The most bytes held while decoding, and the bytes held once done.
    pub(crate) fn bytes(&self) -> (u64, u64) {
        let (mut held, mut peak) = (0u64, 0u64);
        for step in &self.steps {
            let work = if step.searched {
                SEARCH_BYTES
            } else {
                DECODE_BYTES
            };
            peak = peak.max(held + work * step.size);
            held += step.held();
            held -= step.free.iter().map(|&j| self.steps[j].held()).sum::<u64>();
        }
        (peak, held)
    }
}

impl Step {
    /// Bytes the decoded side holds: its cursed bits and its values, all of them or, of a
    /// side only promotions reach (`SparseBytes`), at most those where a piece of a
    /// promoted role stands on one of the squares a promotion reaches (`Reach::promoted`:
    /// 28, or 8 with pawns), and their bitmap.
    fn held(&self) -> u64 {
        let n = self.size;
        let bits = n.div_ceil(64) * 8;
        let values = match self.reach {
            Reach::All => n,
            Reach::Promoted {
                color,
                roles,
                squares,
            } => {
                let pieces: i32 = (Role::PROMOTIONS.iter())
                    .filter(|r| roles & (1 << r.index()) != 0)
                    .map(|&r| i32::from(self.side.0.count(color, r)))
                    .sum();
                let reached = 1.0 - (1.0 - f64::from(squares.count()) / 64.0).powi(pieces);
                (n as f64 * reached).ceil() as u64 + bits + n / 128
            }
        };
        values + bits
    }
}

/// The sides building `material` reads when only the colours `promoting` marks can
/// promote.
fn sides_read(material: Material, promoting: [bool; 2]) -> Vec<TableSide> {
    Side::ALL
        .into_iter()
        .flat_map(|c| reached_by((material, c), promoting[c.index()]))
        .map(|(side, _)| side)
        .collect()
}

/// The schedule that decodes what building `material` needs: the sides its conversions
/// reach, and what those need in turn.
pub(crate) fn schedule_for_building(tb: &Tablebase, material: Material) -> Schedule {
    let wanted: Vec<(TableSide, Reach)> = Side::ALL
        .into_iter()
        .flat_map(|c| reached_by((material, c), true))
        .collect();
    Schedule::new(tb, &wanted, &[])
}

impl<'a> LoadedTables<'a> {
    /// Decodes both sides of the tables of `materials` (canonical) that `tb` has open,
    /// and keeps what a one-ply search over them reads (`one_ply`, as `verify` runs it).
    pub fn load(tb: &'a Tablebase, materials: &[Material]) -> Result<LoadedTables<'a>, ProbeError> {
        let wanted: Vec<(TableSide, Reach)> = materials
            .iter()
            .filter(|m| tb.table(m).is_some())
            .flat_map(|&m| Side::ALL.map(|c| ((m, c), Reach::All)))
            .collect();
        let keep: Vec<TableSide> = wanted
            .iter()
            .flat_map(|x| x.0 .0.conversions(x.0 .1))
            .collect();
        LoadedTables::run(tb, &Schedule::new(tb, &wanted, &keep), &Silent)
    }

    /// Decodes what the solver needs to build `material`: the sides its conversions reach,
    /// telling `observer` of each index looked at (one pass over them all).
    pub fn for_building(
        tb: &'a Tablebase,
        material: Material,
        observer: &dyn Observer,
    ) -> Result<LoadedTables<'a>, ProbeError> {
        LoadedTables::run(tb, &schedule_for_building(tb, material), observer)
    }

    /// Decodes the sides of `schedule` in its order, freeing those it lets go.
    fn run(
        tb: &'a Tablebase,
        schedule: &Schedule,
        observer: &dyn Observer,
    ) -> Result<LoadedTables<'a>, ProbeError> {
        observer.pass("loading sub-tables", schedule.indices());
        // Two keys at most per step, in at most a quarter of the slots.
        let slots = (8 * schedule.steps.len()).next_power_of_two().max(16);
        let mut loaded = LoadedTables {
            tables: Vec::new(),
            keys: Vec::new(),
            slots: vec![0; slots],
        };
        for step in &schedule.steps {
            let (m, side) = step.side;
            let table = tb.needed(m)?;
            let at = loaded.at(&m).unwrap_or_else(|| {
                let at = loaded.tables.len();
                loaded.tables.push((m, BySide::default()));
                loaded.add_key((m.key(), at, table, false));
                if m.flipped() != m {
                    loaded.add_key((m.flipped().key(), at, table, true));
                }
                at
            });
            let decoded = if step.searched {
                loaded.search_other(table, step.reach, observer)?
            } else {
                loaded.decode_stored(table, step.reach, observer)?
            };
            loaded.tables[at].1[side] = Some(decoded);
            for &j in &step.free {
                let (fm, fside) = schedule.steps[j].side;
                if let Some(f) = loaded.at(&fm) {
                    loaded.tables[f].1[fside] = None;
                }
            }
        }
        Ok(loaded)
    }

    /// Lets go of the sides that building `material` reads only through promotions, once
    /// the colours `promoting` marks are the only ones still to promote (the parts left
    /// of a pawn table: `TableIndex::promoting`). The promotion tables of KRPvKR are most
    /// of what it loads, and only its first part reads them.
    pub fn release_unread(&mut self, material: Material, promoting: [bool; 2]) {
        let read = sides_read(material, promoting);
        for (m, sides) in &mut self.tables {
            for (side, decoded) in sides.iter_mut() {
                if !read.contains(&(*m, side)) {
                    *decoded = None;
                }
            }
        }
    }

    /// Adds `entry` to `keys` and its place to `slots`.
    fn add_key(&mut self, entry: (u64, usize, &'a TableFile, bool)) {
        if let Err(free) = self.probe(entry.0) {
            self.keys.push(entry);
            self.slots[free] = u16::try_from(self.keys.len()).expect("fewer keys than slots");
        }
    }

    /// The place in `keys` of `key`, or the free slot where the probe for it ended.
    #[inline]
    fn probe(&self, key: u64) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut i = slot(key, self.slots.len());
        loop {
            match self.slots[i] {
                0 => return Err(i),
                k if self.keys[k as usize - 1].0 == key => return Ok(k as usize - 1),
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// The place of `material`'s table among those loaded.
    fn at(&self, material: &Material) -> Option<usize> {
        self.tables.iter().position(|(m, _)| m == material)
    }

    /// The value of every legal position of `table` with `side` to move, by solver index,
    /// with the cursed ones and the long distances: draws as the WDL layer says, the others
    /// by `value` (given the index, the position, its class under the 50-move rule and its
    /// best conversions, looked at when the WDL code asks or `all_conversions`); illegal
    /// indices, and those outside `reach`, hold 0.
    fn by_position(
        &self,
        table: &TableFile,
        turn: Side,
        reach: Reach,
        all_conversions: bool,
        observer: &dyn Observer,
        value: impl Fn(u64, &Position, Wdl5, Option<(Dtm, Wdl5)>) -> Result<Dtm, ProbeError> + Sync,
    ) -> Result<Decoded, ProbeError> {
        let codes = table.decode_wdl(turn)?;
        let index = table.index();
        // The values of the indices from word `w` on (64 a word, fewer in the last), their
        // cursed bits and their distances beyond a byte; then the progress made.
        let words = |w: usize, values: &mut [u8], cursed: &mut [u64], long: &mut Vec<_>| {
            let first = w as u64 * 64;
            // Whether the indices below `run_end` may be in reach.
            let (mut in_reach, mut run_end) = (false, first);
            for (idx, slot) in (first..).zip(values.iter_mut()) {
                let code = codes[idx as usize];
                if code != DRAW && idx >= run_end {
                    let (holds, run) = reach.may_hold_run(index, idx);
                    (in_reach, run_end) = (holds, idx.saturating_add(run));
                }
                // A draw is known without the position, and a position out of reach
                // is not tested for legality (the squares' test is exact where it is).
                let read = (code != DRAW && in_reach)
                    .then(|| index.decode(idx, turn))
                    .flatten()
                    .filter(|pos| index.is_legal(idx, pos));
                debug_assert!(read.is_none_or(|pos| reach.holds(&pos)), "{idx}");
                let v = match read {
                    None => Dtm::Draw,
                    Some(pos) => {
                        let conv = if all_conversions || code >= OR_CONVERSION {
                            self.conversions(&pos)?
                        } else {
                            None
                        };
                        let class = if code < OR_CONVERSION {
                            Wdl5::from_code(code)
                        } else {
                            let floor = Wdl5::from_code(code - OR_CONVERSION);
                            conv.map_or(floor, |c| c.1.max(floor))
                        };
                        cursed[(idx - first) as usize / 64] |=
                            u64::from(class.is_cursed()) << (idx % 64);
                        let v = value(idx, &pos, class, conv)?;
                        if v.wdl() != class.wdl() {
                            return Err(super::error::disagree(table.path(), &pos));
                        }
                        v
                    }
                };
                let code = v.encode();
                if code == Dtm::LONG {
                    long.push((idx, v.plies().expect("a distance")));
                }
                *slot = code;
            }
            observer.advance(values.len() as u64);
            Ok::<_, ProbeError>(())
        };
        let n = index.size() as usize;
        let mut cursed = vec![0u64; n.div_ceil(64)];
        let (values, long) = match reach {
            // Written in place, `CHUNK_WORDS` words at a time: the decoder holds the codes,
            // what `value` reads, and the values and bits it makes, nothing per chunk.
            Reach::All => {
                let mut values = vec![0u8; n];
                let long = values
                    .par_chunks_mut(64 * CHUNK_WORDS)
                    .zip(cursed.par_chunks_mut(CHUNK_WORDS))
                    .enumerate()
                    .try_fold(Vec::new, |mut long, (c, (values, cursed))| {
                        words(c * CHUNK_WORDS, values, cursed, &mut long).map(|()| long)
                    })
                    .try_reduce(Vec::new, |mut a, b| {
                        a.extend(b);
                        Ok(a)
                    })?;
                (Values::Whole(values), long)
            }
            // Most of the side is out of reach and holds 0: a piece at a time, squeezed.
            Reach::Promoted { .. } => {
                let per_piece = 1 << (PIECE_LOG - 6);
                let pieces: Vec<(Piece, Vec<(u64, u32)>)> = cursed
                    .par_chunks_mut(per_piece)
                    .enumerate()
                    .map(|(p, cursed)| {
                        let first = p << PIECE_LOG;
                        let mut values = vec![0u8; (n - first).min(1 << PIECE_LOG)];
                        let mut long = Vec::new();
                        words(p * per_piece, &mut values, cursed, &mut long)?;
                        Ok((Piece::squeeze(&values), long))
                    })
                    .collect::<Result<_, ProbeError>>()?;
                let (pieces, long): (Vec<Piece>, Vec<_>) = pieces.into_iter().unzip();
                let sparse = SparseBytes::new(pieces);
                (Values::Sparse(sparse), long.concat())
            }
        };
        let long = LongDistances::new(long);
        Ok(Decoded {
            values,
            cursed,
            long,
            reach,
        })
    }

    /// The best conversion of `pos` by distance and, apart, by class under the 50-move rule
    /// (a capture or promotion restarts the count, so classes compare as they are).
    fn conversions(&self, pos: &Position) -> Result<Option<(Dtm, Wdl5)>, ProbeError> {
        let mut list = MoveList::new();
        pos.conversion_moves(&mut list);
        let mut best: Option<(Dtm, Wdl5)> = None;
        for m in list.as_slice() {
            let (v, c) = self.value50(&pos.play(m))?;
            let (v, c) = (v.back(), c.back());
            best = Some(best.map_or((v, c), |(bv, bc)| (bv.max(v), bc.max(c))));
        }
        Ok(best)
    }

    /// The distances of the stored side of `table`: the stored number or the conversions,
    /// whichever is better.
    fn decode_stored(
        &self,
        table: &TableFile,
        reach: Reach,
        observer: &dyn Observer,
    ) -> Result<Decoded, ProbeError> {
        let moves = table.decode_dtm()?;
        self.by_position(
            table,
            table.dtm_side(),
            reach,
            true,
            observer,
            |idx, _, class, conv| {
                let wdl = class.wdl();
                Ok(match (wdl, dtm_value(wdl, moves.get(idx)), conv) {
                    (Wdl::Draw, _, _) => Dtm::Draw,
                    (_, Some(s), Some((c, _))) => s.max(c),
                    (_, Some(s), None) => s,
                    (_, None, Some((c, _))) => c,
                    (_, None, None) => Dtm::Draw,
                })
            },
        )
    }

    /// The distances of the side `table` does not store, by a one-ply search where the WDL
    /// layer does not already say draw.
    fn search_other(
        &self,
        table: &TableFile,
        reach: Reach,
        observer: &dyn Observer,
    ) -> Result<Decoded, ProbeError> {
        let stored = table.dtm_side();
        // It is read only where this side's positions reach (`Reach`).
        let own = (self.side_of(&table.material(), stored))
            .expect("a schedule decodes the stored side before the other");
        let game = ChessGame::new(table.index().clone(), self);
        let side = !stored;
        let decoded = self.by_position(table, side, reach, false, observer, |idx, pos, _, _| {
            Ok(game
                .one_ply(idx, pos, |j| own.value(j))
                .unwrap_or(Dtm::Draw))
        })?;
        match game.take_error() {
            Some(e) => Err(e),
            None => Ok(decoded),
        }
    }

    /// The best value over the moves of `pos` (no en-passant right), each read from the
    /// loaded values; mate or stalemate without moves.
    pub(crate) fn one_ply(&self, pos: &Position) -> Result<Dtm, ProbeError> {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        if list.is_empty() {
            return Ok(Dtm::without_moves(pos.is_check()));
        }
        // A move that is not a conversion keeps the material: its table is found once.
        let own = self.find(pos)?;
        let mut best = Dtm::Loss(0);
        for m in list.as_slice() {
            let after = pos.play(m);
            let v = if m.kind == MoveKind::DoublePush {
                self.dtm(&after)?
            } else if m.is_conversion() {
                self.value(&after)?
            } else {
                self.value_in(own, &after)?
            };
            best = best.max(v.back());
        }
        Ok(best)
    }

    /// The value of any position of these tables, en-passant right included.
    pub fn dtm(&self, pos: &Position) -> Result<Dtm, ProbeError> {
        with_en_passant(pos, &|p| self.value(p), Dtm::back, Dtm::Draw)
    }

    /// The side of a loaded table with `side` to move, where decoded.
    fn side_of(&self, material: &Material, side: Side) -> Option<&Decoded> {
        self.tables[self.at(material)?].1[side].as_ref()
    }

    /// The side of a loaded table with `side` to move, where decoded whole.
    fn decoded(&self, material: &Material, side: Side) -> Option<&Decoded> {
        self.side_of(material, side)
            .filter(|d| d.reach == Reach::All)
    }

    /// The encoded values (`Dtm::encode`) of a loaded table with `side` to move, where
    /// decoded.
    pub fn values(&self, material: &Material, side: Side) -> Option<&[u8]> {
        match &self.decoded(material, side)?.values {
            Values::Whole(v) => Some(&v[..]),
            Values::Sparse(_) => None,
        }
    }

    /// The value of index `idx` of a loaded table and side, where decoded.
    pub fn dtm_at(&self, material: &Material, side: Side, idx: u64) -> Option<Dtm> {
        let d = self.decoded(material, side)?;
        Some(d.long.value(d.values.get(idx)?, idx))
    }

    /// The cursed wins and blessed losses of a loaded table with `side` to move (one bit
    /// per index), where decoded.
    pub fn cursed(&self, material: &Material, side: Side) -> Option<&[u64]> {
        self.decoded(material, side).map(|d| &d.cursed[..])
    }
}

/// A side's values (`Dtm::encode`) by index.
enum Values {
    /// Each index's byte.
    Whole(Vec<u8>),
    /// The bytes that are not zero: a side only promotions read, most of it out of reach.
    Sparse(SparseBytes),
}

impl Values {
    #[inline]
    fn get(&self, idx: u64) -> Option<u8> {
        match self {
            Values::Whole(v) => v.get(idx as usize).copied(),
            Values::Sparse(s) => Some(s.get(idx)),
        }
    }
}

/// One side of a table as decoded.
struct Decoded {
    /// `Dtm::encode` of each index.
    values: Values,
    /// One bit per index: a cursed win or blessed loss.
    cursed: Vec<u64>,
    /// The distances whose byte is `Dtm::LONG`.
    long: LongDistances,
    /// The positions decoded: the others hold 0.
    reach: Reach,
}

impl Decoded {
    #[inline]
    fn value(&self, idx: u64) -> Dtm {
        let code = self.values.get(idx).expect("an index of the table");
        self.long.value(code, idx)
    }
}

/// A loaded side and a position's index in it.
type Slot<'s> = (&'s Decoded, u64);

/// A loaded table: its place in `LoadedTables::tables`, the table, and whether positions
/// are colour-flipped to reach it.
type Found<'s> = (usize, &'s TableFile, bool);

impl LoadedTables<'_> {
    /// The loaded table of `pos`'s material (any orientation): its place in `tables`, the
    /// table, and whether positions are colour-flipped to reach it; None for bare kings.
    #[inline]
    fn find(&self, pos: &Position) -> Result<Option<Found<'_>>, ProbeError> {
        let material = Material::from_position(pos);
        let key = material.key();
        if let Ok(k) = self.probe(key) {
            let (_, at, table, flip) = self.keys[k];
            return Ok(Some((at, table, flip)));
        }
        match material.is_bare_kings() {
            true => Ok(None),
            false => Err(ProbeError::NotLoaded {
                fen: pos.to_string(),
                material,
            }),
        }
    }

    /// The decoded values and cursed bits of the table and side `pos` (any orientation)
    /// belongs to, and its index there; None for bare kings.
    #[inline]
    fn slot(&self, pos: &Position) -> Result<Option<Slot<'_>>, ProbeError> {
        self.slot_in(self.find(pos)?, pos)
    }

    /// The value of `pos`, whose material's table `find` gave as `found`.
    #[inline]
    fn value_in(&self, found: Option<Found<'_>>, pos: &Position) -> Result<Dtm, ProbeError> {
        Ok(self
            .slot_in(found, pos)?
            .map_or(Dtm::Draw, |(d, idx)| d.value(idx)))
    }

    /// `slot` of `pos`, whose material's table `find` gave as `found`.
    #[inline]
    fn slot_in(
        &self,
        found: Option<Found<'_>>,
        pos: &Position,
    ) -> Result<Option<Slot<'_>>, ProbeError> {
        let Some((at, table, flip)) = found else {
            return Ok(None);
        };
        let flipped;
        let p = match flip {
            true => {
                flipped = pos.color_flipped();
                &flipped
            }
            false => pos,
        };
        let side = p.turn();
        let not_loaded = || ProbeError::NotLoaded {
            fen: pos.to_string(),
            material: table.material(),
        };
        let d = self.tables[at].1[side].as_ref().ok_or_else(not_loaded)?;
        if !d.reach.holds(p) {
            return Err(not_loaded());
        }
        // Positions reached by legal moves keep their kings apart: one that does not is
        // outside what was loaded.
        let idx = (table.index().encode(p)).ok_or_else(not_loaded)?;
        Ok(Some((d, idx)))
    }
}

impl SubTables for LoadedTables<'_> {
    type Error = ProbeError;

    #[inline]
    fn value(&self, pos: &Position) -> Result<Dtm, ProbeError> {
        self.value_in(self.find(pos)?, pos)
    }

    #[inline]
    fn value50(&self, pos: &Position) -> Result<(Dtm, Wdl5), ProbeError> {
        Ok(match self.slot(pos)? {
            None => (Dtm::Draw, Wdl5::Draw),
            Some((d, idx)) => {
                let v = d.value(idx);
                (v, Wdl5::new(v.wdl(), bit(&d.cursed, idx)))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replays `schedule`: each side's needs are held when it is decoded, nothing is freed
    /// twice or before it is decoded, and the sides held at the end are exactly `wanted`.
    fn check(schedule: &Schedule, wanted: &[TableSide], stored: impl Fn(&Material) -> Side) {
        let mut held: Vec<TableSide> = Vec::new();
        for step in &schedule.steps {
            let x = &step.side;
            for d in needs(x.0, x.1, stored(&x.0)) {
                assert!(held.contains(&d), "{x:?} needs {d:?}, not held");
            }
            // A search reads, after each double push, the capture en passant.
            if stored(&x.0) != x.1 {
                if let Some(d) = x.0.en_passant(stored(&x.0)) {
                    assert!(held.contains(&d), "{x:?} searched without {d:?}");
                }
            }
            assert!(!held.contains(x), "{x:?} decoded twice");
            held.push(*x);
            for f in step.free.iter().map(|&j| &schedule.steps[j].side) {
                let at = held.iter().position(|h| h == f);
                held.remove(at.unwrap_or_else(|| panic!("{f:?} freed but not held")));
            }
        }
        held.sort_by_key(|x| (x.0.key(), x.1.index()));
        let mut want = wanted.to_vec();
        want.sort_by_key(|x| (x.0.key(), x.1.index()));
        want.dedup();
        assert_eq!(held, want);
    }

    #[test]
    fn schedules_hold_what_each_step_needs_and_keep_only_what_is_wanted() {
        let tb = Tablebase::new();
        for sig in ["KPPvKP", "KRPvKR", "KQvKR", "KBNvK"] {
            let m: Material = sig.parse().unwrap();
            let wanted: Vec<TableSide> = Side::ALL
                .into_iter()
                .flat_map(|c| m.conversions(c))
                .collect();
            let schedule = schedule_for_building(&tb, m);
            let asked = closure(&wanted, |_| Side::White);
            // The stored sides the schedule assumed for tables not yet built.
            let stored = |x: &Material| {
                if asked.contains(&(*x, Side::Black)) {
                    Side::White
                } else {
                    Side::Black
                }
            };
            check(&schedule, &wanted, stored);
            let (peak, end) = schedule.bytes();
            assert!(peak >= end, "{sig}: {peak} < {end}");
        }
    }

    #[test]
    fn sides_reached_only_by_promotions_are_decoded_where_the_promoted_piece_stands() {
        let tb = Tablebase::new();
        let m: Material = "KRPvKR".parse().unwrap();
        let schedule = schedule_for_building(&tb, m);
        let reach = |sig: &str, side: Side| {
            let m: Material = sig.parse().unwrap();
            let step = schedule.steps.iter().find(|s| s.side == (m, side));
            step.map(|s| s.reach)
        };
        let kqrvkr: Material = "KQRvKR".parse().unwrap();
        let queen = Reach::promoted(&kqrvkr, Side::White, Role::Queen);
        // White promotes: black moves next, and the search of that side reads the other.
        assert_eq!(reach("KQRvKR", Side::Black), Some(queen));
        assert_eq!(reach("KQRvKR", Side::White), Some(queen));
        // Captures reach anything.
        assert_eq!(reach("KRvKR", Side::White), Some(Reach::All));
        let on = |fen: &str| queen.holds(&fen.parse::<Position>().unwrap());
        assert!(on("4k2r/8/8/8/8/8/8/Q1R1K3 b - - 0 1"));
        assert!(on("4k2r/8/8/7Q/8/8/8/2R1K3 b - - 0 1"));
        assert!(!on("4k2r/8/8/6Q1/8/8/8/2R1K3 b - - 0 1"));
        // A black queen on the edge is not white's.
        assert!(!on("q3k3/8/8/8/8/8/8/2R1K3 b - - 0 1"));
        // With pawns, whose tables keep the ranks, only the promoting side's last rank.
        let with_pawns: Material = "KQPvKP".parse().unwrap();
        let holds = |reach: Reach, fen: &str| reach.holds(&fen.parse::<Position>().unwrap());
        let pawn_queen = Reach::promoted(&with_pawns, Side::White, Role::Queen);
        assert!(holds(pawn_queen, "Q3k3/8/8/8/8/8/P7/4K3 b - - 0 1"));
        assert!(!holds(pawn_queen, "4k3/8/8/7Q/8/8/P7/4K3 b - - 0 1"));
        assert!(!holds(pawn_queen, "4k3/8/8/8/8/8/P7/Q3K3 b - - 0 1"));
        let pawn_black_queen = Reach::promoted(&with_pawns, Side::Black, Role::Queen);
        assert!(holds(pawn_black_queen, "4k3/p7/8/8/8/8/8/q3K3 w - - 0 1"));
        assert!(!holds(pawn_black_queen, "q3k3/p7/8/8/8/8/8/4K3 w - - 0 1"));
        // A side reached both ways is decoded whole; promotions of both colours too.
        let black_queen = Reach::promoted(&kqrvkr, Side::Black, Role::Queen);
        let rook = Reach::promoted(&kqrvkr, Side::White, Role::Rook);
        assert_eq!(queen.union(Reach::All), Reach::All);
        assert_eq!(queen.union(black_queen), Reach::All);
        assert_eq!(
            queen.union(rook),
            Reach::Promoted {
                color: Side::White,
                roles: (1 << Role::Queen.index()) | (1 << Role::Rook.index()),
                squares: EDGES,
            }
        );
    }

    /// Over every index of tables with and without pawns and with a pair of one role, the
    /// run-wise answer is each index's own (from the decoded position where it is legal,
    /// from the promoted pieces' squares everywhere) and holds over its whole run.
    #[test]
    fn reach_is_answered_run_by_run_as_index_by_index() {
        for (sig, color, roles) in [
            ("KQvKR", Side::White, vec![Role::Queen]),
            ("KRvKQ", Side::Black, vec![Role::Queen, Role::Rook]),
            ("KQRvK", Side::White, vec![Role::Queen, Role::Knight]),
            ("KRRvK", Side::White, vec![Role::Rook]),
            ("KQvKP", Side::White, vec![Role::Queen]),
            ("KPvKQ", Side::Black, vec![Role::Queen]),
        ] {
            let m: Material = sig.parse().unwrap();
            let index = TableIndex::new(m);
            let reach = (roles.iter())
                .map(|&r| Reach::promoted(&m, color, r))
                .reduce(Reach::union)
                .unwrap();
            let own = |idx: u64| {
                reach.has_promoted(|color, role| {
                    let piece = chess::Piece { color, role };
                    index
                        .squares_of_run(idx, piece)
                        .map_or(Bitboard::EMPTY, |(s, _)| s)
                })
            };
            let (mut idx, mut runs, mut held) = (0, 0, 0);
            while idx < index.size() {
                let (holds, run) = reach.may_hold_run(&index, idx);
                assert!(run >= 1, "{sig} {idx}");
                let end = idx.saturating_add(run).min(index.size());
                for i in idx..end {
                    assert_eq!(own(i), holds, "{sig} {i} (run from {idx})");
                    if let Some(pos) = index.decode(i, Side::White) {
                        assert_eq!(reach.holds(&pos), holds, "{sig} {i}");
                    }
                }
                held += if holds { end - idx } else { 0 };
                (idx, runs) = (end, runs + 1);
            }
            assert!(held > 0 && held < index.size(), "{sig}: {held}");
            // Far fewer tests than indices, unless a promoted piece is the index's last
            // group, which moves at every index.
            let last_group = roles.iter().any(|&role| {
                let piece = chess::Piece { color, role };
                index
                    .squares_of_run(0, piece)
                    .is_some_and(|(_, run)| run == 1)
            });
            assert_eq!(runs * 4 < index.size(), !last_group, "{sig}: {runs} runs");
        }
    }

    /// The passes begun and the positions done, as an observer is told of them.
    #[derive(Default)]
    struct Seen {
        passes: std::sync::Mutex<Vec<(String, u64)>>,
        done: std::sync::atomic::AtomicU64,
    }

    impl Observer for Seen {
        fn pass(&self, name: &str, total: u64) {
            self.passes.lock().unwrap().push((name.to_string(), total));
        }
        fn advance(&self, n: u64) {
            self.done.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Once no colour can promote, the sides reached only by promotions are let go, and a
    /// look-up there is an error, never a silent draw; while White can, they stay.
    #[test]
    fn sides_reached_only_by_promotions_go_when_no_part_left_promotes() {
        let dir = tempfile::tempdir().unwrap();
        let mut tb = Tablebase::new();
        for sig in ["KQvK", "KRvK", "KBvK", "KNvK"] {
            let m: Material = sig.parse().unwrap();
            crate::generate::generate(
                m,
                &tb,
                dir.path(),
                &Default::default(),
                &crate::progress::Silent,
            )
            .unwrap();
            tb = Tablebase::open(dir.path()).unwrap();
        }
        let m: Material = "KPvK".parse().unwrap();
        let seen = Seen::default();
        let mut loaded = LoadedTables::for_building(&tb, m, &seen).unwrap();
        // Progress: one pass over every index decoded, promotion sides (sparse) included.
        let schedule = schedule_for_building(&tb, m);
        assert!(schedule.steps.iter().any(|s| s.reach != Reach::All));
        let passes = seen.passes.lock().unwrap().clone();
        assert_eq!(
            passes,
            [("loading sub-tables".to_string(), schedule.indices())]
        );
        assert_eq!(
            seen.done.load(std::sync::atomic::Ordering::Relaxed),
            schedule.indices()
        );
        let promoted: Position = "Q3k3/8/8/8/8/8/8/4K3 b - - 0 1".parse().unwrap();
        let value = loaded.value(&promoted).unwrap();
        assert_eq!(value, tb.probe_dtm(&promoted).unwrap());
        loaded.release_unread(m, [true, false]);
        assert_eq!(loaded.value(&promoted).ok(), Some(value));
        loaded.release_unread(m, [false, false]);
        assert!(loaded.value(&promoted).is_err());
        assert!(loaded
            .tables
            .iter()
            .all(|(_, sides)| sides.iter().all(|(_, d)| d.is_none())));
    }

    #[test]
    fn a_side_needed_only_to_decode_another_is_freed() {
        // KRPvKR's promotions lead to KQRvKR with black to move; stored as white to move, its
        // white side is decoded, searched over, and let go.
        let tb = Tablebase::new();
        let m: Material = "KRPvKR".parse().unwrap();
        let schedule = schedule_for_building(&tb, m);
        let q: Material = "KQRvKR".parse().unwrap();
        let freed: Vec<TableSide> = schedule
            .steps
            .iter()
            .flat_map(|s| s.free.iter().map(|&j| schedule.steps[j].side))
            .collect();
        assert!(freed.contains(&(q, Side::White)), "{freed:?}");
        let (peak, end) = schedule.bytes();
        assert!(end < peak, "less is held at the end than while decoding");
    }
}
