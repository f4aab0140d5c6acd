//! Dense numbering of the positions of one material signature, with symmetry reduction.
//!
//! index = pawns * (king pairs * product of other group sizes) + king_pair * (product of other
//! group sizes) + mixed-radix digits of the other piece groups, where a group is all pieces of
//! one colour and role (identical pieces are ranked as a set, so they are counted once).
//! Pawns range over the 48 squares of ranks 2-7, other pieces over all 64. Indices whose
//! pieces overlap are "broken": they decode to nothing. The side to move is not part of the
//! index: a table holds one array per side to move.
//!
//! The pawns come first, numbered so that every pawn move leads to a smaller index range: the
//! placements of all pawn groups are sorted by their file group (the file, a to d, of the
//! leading pawn, up to the left-right mirror: `file_group`), then by how far the pawns
//! stand advanced, most advanced first, and those of one file group and advance form one
//! part (`parts`). Moves other than captures never change a pawn's file, and moves other
//! than pawn moves keep the ranks of the pawns (the mirror changes only files, and gives
//! the same group), so a part is closed under them, and a solver can take the parts one
//! after another, each reading the values of the parts before it of its own file group:
//! one group's parts never read another's, so a solver holds the values of a few small
//! parts at a time (a table with one pawn has four groups of six parts).

pub(crate) mod combinations;
pub(crate) mod divisor;
mod layout;
mod symmetry;

pub use layout::{Layout, LayoutError, Part, LAYOUT_BYTES};
pub use symmetry::{KingPairs, Symmetry};

use crate::chess::{Bitboard, Piece, Position, Role, Square};
use crate::material::Material;
use crate::side::Side;
use divisor::Divisor;

#[derive(Copy, Clone, Debug)]
struct Group {
    color: Side,
    role: Role,
    count: u32,
    /// Squares are shifted down by this much (8 for pawns: a2 becomes 0).
    shift: u32,
    /// Number of squares in the domain.
    domain: u32,
    /// C(domain, count).
    size: u64,
    /// `size` as a divisor, to split indices into digits.
    size_div: Divisor,
    /// Product of the sizes of the later groups of its kind (pawn groups, or the others):
    /// what one step of this group's rank adds to the pawn placement's number, or to the
    /// index.
    stride: u64,
}

impl Group {
    fn is_pawn(&self) -> bool {
        self.role == Role::Pawn
    }
}

/// The indices a king's moves lead to from one position (`TableIndex::king_steps`).
pub struct KingSteps<'a> {
    index: &'a TableIndex,
    /// The position's index less its king pair's part.
    base: u64,
    color: Side,
    other: Square,
    /// Where the king forms a canonical pair with the other king.
    canonical: Bitboard,
}

impl KingSteps<'_> {
    /// The index after the king went to `to` (see `TableIndex::king_step`).
    #[inline]
    pub fn to(&self, to: Square) -> Option<u64> {
        if !self.canonical.contains(to) {
            return None;
        }
        let (wk, bk) = match self.color {
            Side::White => (to, self.other),
            Side::Black => (self.other, to),
        };
        if !self.index.steps_apply(wk, bk) {
            return None;
        }
        let pair = self.index.kings.number(wk, bk)? as u64;
        Some(self.base + pair * self.index.per_king_pair)
    }
}

/// The placements of a table's pawn groups in their solving order (see the module doc).
struct Pawns {
    /// Place in the order of each placement (numbered mixed-radix over the pawn groups).
    place: Vec<u32>,
    /// The placement at each place.
    placement: Vec<u32>,
    /// Places where a part begins, and the number of places at the end.
    part_starts: Vec<u32>,
    /// How far the pawns of each part stand advanced in all.
    part_advance: Vec<u32>,
    /// The file group of each part (`file_group`): parts of different groups never read
    /// each other.
    part_group: Vec<u8>,
    /// The record place of each place, and the place of each record place
    /// (`TableIndex::record_number`).
    record: Vec<u32>,
    from_record: Vec<u32>,
}

/// Most piece groups an index has (one per colour and role besides the kings).
pub const MAX_GROUPS: usize = 6;

/// The parts of an index: where the kings stand (in the canonical orientation) and the rank
/// of each piece group's squares. A file `Layout` orders them as it likes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Digits {
    /// Number of the king pair in the index's `KingPairs`.
    pub pair: u32,
    /// White and black king.
    pub kings: (Square, Square),
    /// Rank of each group's squares, in the index's group order.
    pub groups: [u64; MAX_GROUPS],
}

impl Pawns {
    /// The solving order of the `placements` placements of the pawn groups among `groups`.
    fn new(groups: &[Group], placements: u64) -> Pawns {
        // A placement's part: its file group (`file_group`), then how far its pawns stand
        // advanced in all (a pawn move adds to it; at most six pawns of six ranks each),
        // most first; in a part, placements go by the ranks of each group's pawns in
        // square order, three bits each.
        let key = |placement: u64| {
            let (mut advance, mut ranks) = (0u64, 0u64);
            let mut files = [Vec::new(), Vec::new()];
            for g in groups.iter().filter(|g| g.is_pawn()) {
                let set = combinations::unrank(placement / g.stride % g.size, g.count, g.domain);
                let at = files[0].len();
                for sq in Bitboard(set << g.shift) {
                    let forward = match g.color {
                        Side::White => sq.rank(),
                        Side::Black => 7 - sq.rank(),
                    } as u64;
                    advance += forward;
                    ranks = ranks << 3 | forward;
                    files[0].push(sq.file() as u8);
                    files[1].push(7 - sq.file() as u8);
                }
                files.iter_mut().for_each(|f| f[at..].sort_unstable());
            }
            ((file_group(&files), 64 - advance as u32), ranks)
        };
        let mut order: Vec<(PartKey, u32)> = (0..placements).map(|p| (key(p), p as u32)).collect();
        order.sort_unstable();
        let mut place = vec![0; placements as usize];
        for (at, &(_, p)) in order.iter().enumerate() {
            place[p as usize] = at as u32;
        }
        let part = |i: usize| order[i].0 .0;
        let mut part_starts: Vec<u32> = (0..order.len())
            .filter(|&i| i == 0 || part(i) != part(i - 1))
            .map(|i| i as u32)
            .collect();
        let part_advance = part_starts
            .iter()
            .map(|&i| 64 - part(i as usize).1)
            .collect();
        let part_group = part_starts.iter().map(|&i| part(i as usize).0).collect();
        part_starts.push(order.len() as u32);
        // The record order: the same keys without the file group.
        let mut by_record: Vec<u32> = (0..order.len() as u32).collect();
        by_record.sort_unstable_by_key(|&at| {
            let (((_, advance), ranks), p) = order[at as usize];
            (advance, ranks, p)
        });
        let mut record = vec![0; order.len()];
        for (r, &at) in by_record.iter().enumerate() {
            record[at as usize] = r as u32;
        }
        Pawns {
            place,
            part_advance,
            part_group,
            record,
            from_record: by_record,
            placement: order.into_iter().map(|(_, p)| p).collect(),
            part_starts,
        }
    }
}

/// Where a pawn placement goes in the solving order: its part (file group, 64 less its
/// advance), then the ranks of its pawns.
type PartKey = ((u8, u32), u64);

/// The file group of a pawn placement, from the files of its pawns group by group (each
/// group's sorted) as they stand and as the left-right mirror puts them: the file, a to d,
/// of the first pawn of the smaller of the two. Moves inside a table never change a
/// pawn's file (captures leave it), and the mirror gives the same group, so the placements
/// of one group never reach another's: the file of Syzygy's leading pawn.
fn file_group(files: &[Vec<u8>; 2]) -> u8 {
    files[0].as_slice().min(files[1].as_slice())[0]
}

/// The index of one material signature (in its canonical orientation).
#[derive(Clone)]
pub struct TableIndex {
    material: Material,
    kings: &'static KingPairs,
    groups: Vec<Group>,
    /// Product of the sizes of the groups other than pawns: the stride of the king pair.
    per_king_pair: u64,
    /// King pairs times `per_king_pair`: the stride of the pawn placement.
    per_placement: u64,
    /// The number of king pairs as a divisor.
    pairs_div: Divisor,
    /// `per_king_pair` as a divisor (None when it is 1: no pieces besides kings and pawns).
    per_king_pair_div: Option<Divisor>,
    /// Without pawns, None (one placement).
    pawns: Option<std::sync::Arc<Pawns>>,
    size: u64,
    /// The group of each colour and role (`NO_GROUP` for none), for index arithmetic.
    group_of: [[u8; 6]; 2],
}

const NO_GROUP: u8 = u8::MAX;

/// The squares of the a1-h8 diagonal, and of the a8-h1 one.
const A1H8: Bitboard = Bitboard(0x8040_2010_0804_0201);
const A8H1: Bitboard = Bitboard(0x0102_0408_1020_4080);

impl TableIndex {
    /// The index scheme of `material` (as given: callers pass canonical material).
    pub fn new(material: Material) -> TableIndex {
        let pawns = material.has_pawns();
        let kings = if pawns {
            KingPairs::with_pawns()
        } else {
            KingPairs::pawnless()
        };
        let mut groups = Vec::new();
        for color in Side::ALL {
            for role in [
                Role::Queen,
                Role::Rook,
                Role::Bishop,
                Role::Knight,
                Role::Pawn,
            ] {
                let count = material.count(color, role) as u32;
                if count > 0 {
                    let (shift, domain) = if role == Role::Pawn { (8, 48) } else { (0, 64) };
                    let size = combinations::binomial(domain, count);
                    groups.push(Group {
                        color,
                        role,
                        count,
                        shift,
                        domain,
                        size,
                        size_div: Divisor::new(size),
                        stride: 0,
                    });
                }
            }
        }
        let (mut stride, mut placements) = (1, 1);
        for g in groups.iter_mut().rev() {
            let s = if g.is_pawn() {
                &mut placements
            } else {
                &mut stride
            };
            g.stride = *s;
            *s *= g.size;
        }
        let per_king_pair = stride;
        let per_placement = per_king_pair * kings.len() as u64;
        let size = per_placement * placements;
        let mut group_of = [[NO_GROUP; 6]; 2];
        for (i, g) in groups.iter().enumerate() {
            group_of[g.color.index()][g.role.index()] = i as u8;
        }
        let pawns = pawns.then(|| std::sync::Arc::new(Pawns::new(&groups, placements)));
        TableIndex {
            pairs_div: Divisor::new(kings.len() as u64),
            per_king_pair_div: (per_king_pair > 1).then(|| Divisor::new(per_king_pair)),
            group_of,
            material,
            kings,
            groups,
            per_king_pair,
            per_placement,
            pawns,
            size,
        }
    }

    /// The parts of the index, in increasing order: ranges of indices that moves other
    /// than pawn moves never leave, and that pawn moves leave only for an earlier one.
    /// Without pawns, the whole index.
    pub fn parts(&self) -> Vec<std::ops::Range<u64>> {
        match &self.pawns {
            None => std::iter::once(0..self.size).collect(),
            Some(p) => p
                .part_starts
                .windows(2)
                .map(|w| w[0] as u64 * self.per_placement..w[1] as u64 * self.per_placement)
                .collect(),
        }
    }

    /// For each part (`parts`), the last part whose moves lead into it: a pawn move
    /// advances the pawns by one step or two, so the parts that read a part's values are
    /// those one and two steps less advanced, all after it. Once the last of them is
    /// solved, nothing reads the part until the table is whole. A part no other reads
    /// names itself.
    pub fn last_readers(&self) -> Vec<usize> {
        let Some(p) = &self.pawns else {
            return vec![0];
        };
        let (advance, group) = (&p.part_advance, &p.part_group);
        (0..advance.len())
            .map(|j| {
                let reads = |k: &usize| {
                    group[*k] == group[j]
                        && (advance[*k] + 1 == advance[j] || advance[*k] + 2 == advance[j])
                };
                (j..advance.len()).rev().find(reads).unwrap_or(j)
            })
            .collect()
    }

    /// For White and Black, whether some position of `part` (one of `parts`) has a pawn
    /// of that colour one step from promotion: the part's moves can promote.
    pub fn promoting(&self, part: std::ops::Range<u64>) -> [bool; 2] {
        let mut out = [false; 2];
        if self.pawns.is_none() || part.is_empty() {
            return out;
        }
        let places = part.start / self.per_placement..part.end.div_ceil(self.per_placement);
        for place in places {
            let placement = self.placement_at(place);
            let (mut occupied, mut promotes) = (Bitboard::EMPTY, [false; 2]);
            for g in self.groups.iter().filter(|g| g.is_pawn()) {
                let set = Bitboard(
                    combinations::unrank(placement / g.stride % g.size, g.count, g.domain)
                        << g.shift,
                );
                if !(set & occupied).is_empty() {
                    // Two pawns on one square: no position has this placement.
                    promotes = [false; 2];
                    break;
                }
                occupied |= set;
                let before_last = Bitboard::rank(match g.color {
                    Side::White => 6,
                    Side::Black => 1,
                });
                promotes[g.color.index()] |= !(set & before_last).is_empty();
            }
            out = [out[0] || promotes[0], out[1] || promotes[1]];
        }
        out
    }

    /// The record number of index `idx`: its index in format 4, whose pawn placements went
    /// by advance alone (most advanced first), then by the ranks of each group's pawns and
    /// the placement's number; the index itself without pawns. A file names its longest
    /// mate by record number, so that files do not change with the solver's order (`parts`).
    pub fn record_number(&self, idx: u64) -> u64 {
        let Some(p) = &self.pawns else {
            return idx;
        };
        let place = self.place_of(idx);
        // The placement's own number is `place` (`place_of`): swap it for its record's.
        idx - place * self.per_placement + p.record[place as usize] as u64 * self.per_placement
    }

    /// The index of record number `record` (`record_number`), or None beyond the table.
    pub fn from_record_number(&self, record: u64) -> Option<u64> {
        if record >= self.size {
            return None;
        }
        let Some(p) = &self.pawns else {
            return Some(record);
        };
        let r = record / self.per_placement;
        Some(
            record - r * self.per_placement + p.from_record[r as usize] as u64 * self.per_placement,
        )
    }

    /// The place of the pawn placement numbered `placement` (0 without pawns).
    #[inline]
    fn place(&self, placement: u64) -> u64 {
        self.pawns
            .as_ref()
            .map_or(0, |p| p.place[placement as usize] as u64)
    }

    /// The pawn placement at place `place` (0 without pawns).
    #[inline]
    fn placement_at(&self, place: u64) -> u64 {
        self.pawns
            .as_ref()
            .map_or(0, |p| p.placement[place as usize] as u64)
    }

    /// `idx / per_placement`: the place of its pawn placement.
    #[inline]
    fn place_of(&self, idx: u64) -> u64 {
        self.pairs_div.div(self.above_pair(idx))
    }

    /// `idx / per_king_pair`: its king pair and pawn placement.
    #[inline]
    fn above_pair(&self, idx: u64) -> u64 {
        self.per_king_pair_div.map_or(idx, |d| d.div(idx))
    }

    /// The material this index numbers.
    pub fn material(&self) -> Material {
        self.material
    }

    /// Number of indices per side to move.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The index of `pos`, which must have this material (in this orientation). Every
    /// symmetry class has exactly one index: without pawns, when both kings stand on the
    /// a1-h8 diagonal, the position and its mirror image across it are both in canonical king
    /// form, and the smaller of their two indices is taken. Returns None for positions the
    /// index leaves out (adjacent kings, missing kings).
    #[inline]
    pub fn encode(&self, pos: &Position) -> Option<u64> {
        let (wk, bk) = (pos.king(Side::White)?, pos.king(Side::Black)?);
        let sym = self.kings.canonicalizer(wk, bk);
        let (wk, bk) = (sym.square(wk), sym.square(bk));
        let pair = self.kings.number(wk, bk)? as u64;
        let idx = self.rank_index(pair, pos, sym, false);
        if self.both_on_diagonal(wk, bk) {
            // The mirror across a1-h8 keeps the kings where they are.
            let twin = self.rank_index(pair, pos, sym, true);
            return Some(idx.min(twin));
        }
        Some(idx)
    }

    /// True when index arithmetic (`step`, `king_step`) applies to positions whose kings
    /// stand on `wk` and `bk` (in the index's canonical orientation): without pawns, both
    /// kings on the a1-h8 diagonal make an index and its mirror image compete, which only
    /// `encode` settles.
    #[inline]
    pub fn steps_apply(&self, wk: Square, bk: Square) -> bool {
        !self.both_on_diagonal(wk, bk)
    }

    /// The index of the position that differs from the one of index `idx` (a legal,
    /// canonical index whose kings `steps_apply`) only in where one of its `piece`s stands:
    /// `before` is the set of those pieces' squares, and one of them moved from `from` to the
    /// empty square `to`. One step of index arithmetic instead of an `encode`; None for a
    /// king (see `king_step`).
    #[inline]
    pub fn step(
        &self,
        idx: u64,
        piece: Piece,
        before: Bitboard,
        from: Square,
        to: Square,
    ) -> Option<u64> {
        let g = match self.group_of[piece.color.index()][piece.role.index()] {
            NO_GROUP => return None,
            g => &self.groups[g as usize],
        };
        let (old, new) = if g.count == 1 {
            // A lone piece's rank is its square (less the shift, which cancels out).
            (from.index() as u64, to.index() as u64)
        } else {
            let after = (before & !Bitboard::from_square(from)) | Bitboard::from_square(to);
            (
                combinations::rank(before.0 >> g.shift),
                combinations::rank(after.0 >> g.shift),
            )
        };
        Some(self.add_to_group(g, idx, new.wrapping_sub(old)))
    }

    /// What one square more adds to the index when `piece` stands alone in its group and is
    /// not a pawn: the index moves by this much per square the piece moves (wrapping), as
    /// `step` finds it. None for other pieces.
    #[inline]
    pub fn lone_stride(&self, piece: Piece) -> Option<u64> {
        match self.group_of[piece.color.index()][piece.role.index()] {
            NO_GROUP => None,
            g => {
                let g = &self.groups[g as usize];
                (g.count == 1 && !g.is_pawn()).then_some(g.stride)
            }
        }
    }

    /// The squares of `piece`'s group in the position of index `idx`, by index arithmetic
    /// (a test on one group costs two divisions where `decode` places every piece), and
    /// how many indices from `idx` on have the group on the same squares (the rest of its
    /// stride), so that a walk over consecutive indices asks again only where the group
    /// moves. The squares may overlap other pieces' (the index may be illegal). None for
    /// pawns and for pieces the table lacks.
    #[inline]
    pub fn squares_of_run(&self, idx: u64, piece: Piece) -> Option<(Bitboard, u64)> {
        let g = match self.group_of[piece.color.index()][piece.role.index()] {
            NO_GROUP => return None,
            g => &self.groups[g as usize],
        };
        if g.is_pawn() {
            return None;
        }
        let (placement, within) = (idx / g.stride, idx % g.stride);
        let (_, digit) = g.size_div.div_rem(placement);
        let squares = Bitboard(combinations::unrank(digit, g.count, g.domain) << g.shift);
        Some((squares, g.stride - within))
    }

    /// The index whose group `g` has `delta` added to its rank (wrapping), all else as in
    /// `idx`.
    #[inline]
    fn add_to_group(&self, g: &Group, idx: u64, delta: u64) -> u64 {
        if !g.is_pawn() {
            return idx.wrapping_add(delta.wrapping_mul(g.stride));
        }
        let place = self.place_of(idx);
        let placement = self
            .placement_at(place)
            .wrapping_add(delta.wrapping_mul(g.stride));
        self.place(placement) * self.per_placement + idx - place * self.per_placement
    }

    /// The index whose group `g`'s rank is `k` more than in `idx`, all else alike: a row
    /// of a layout whose last part is that group.
    #[inline]
    pub fn group_step(&self, g: usize, idx: u64, k: u64) -> u64 {
        self.add_to_group(&self.groups[g], idx, k)
    }

    /// True when indices `a` and `b` place the kings alike.
    #[inline]
    pub fn same_king_pair(&self, a: u64, b: u64) -> bool {
        self.pair_of(a) == self.pair_of(b)
    }

    /// The number of the king pair that `encode` gives a position whose kings stand on `wk`
    /// and `bk` (None for adjacent kings): equal indices have equal numbers.
    #[inline]
    pub fn king_pair_number(&self, wk: Square, bk: Square) -> Option<u64> {
        self.kings.canonical_number(wk, bk).map(|n| n as u64)
    }

    /// The number of the king pair of index `idx`.
    #[inline]
    fn pair_of(&self, idx: u64) -> u64 {
        self.pairs_div.div_rem(self.above_pair(idx)).1
    }

    /// The index of the position that differs from the one of index `idx` (as for `step`)
    /// only in that the king of `color` moved to `to`, the other king on `other`, or None
    /// when the new king pair needs a symmetry (or makes mirror images compete): `encode`.
    #[inline]
    pub fn king_step(&self, idx: u64, color: Side, to: Square, other: Square) -> Option<u64> {
        self.king_steps(idx, color, other).to(to)
    }

    /// `king_step` for every square the king of `color` may go to from the position of
    /// index `idx`, the other king on `other`: what they share is found once.
    #[inline]
    pub fn king_steps(&self, idx: u64, color: Side, other: Square) -> KingSteps<'_> {
        KingSteps {
            index: self,
            base: idx - self.pair_of(idx) * self.per_king_pair,
            color,
            other,
            canonical: self.kings.canonical_squares(color, other),
        }
    }

    /// The digits of `pos`'s index (see `encode`).
    #[inline]
    pub fn digits(&self, pos: &Position) -> Option<Digits> {
        let (wk, bk) = (pos.king(Side::White)?, pos.king(Side::Black)?);
        let sym = self.kings.canonicalizer(wk, bk);
        let (wk, bk) = (sym.square(wk), sym.square(bk));
        let pair = self.kings.number(wk, bk)? as u32;
        let mut d = Digits {
            pair,
            kings: (wk, bk),
            groups: self.rank_groups(pos, sym, false),
        };
        if self.both_on_diagonal(wk, bk) {
            // The mirror across a1-h8 keeps the kings where they are.
            let twin = Digits {
                groups: self.rank_groups(pos, sym, true),
                ..d
            };
            if self.index_of(&twin) < self.index_of(&d) {
                d = twin;
            }
        }
        Some(d)
    }

    /// The index with these digits.
    #[inline]
    pub fn index_of(&self, d: &Digits) -> u64 {
        self.compose(d.pair as u64, &d.groups)
    }

    /// The index of king pair number `pair` and group ranks `ranks`.
    #[inline]
    fn compose(&self, pair: u64, ranks: &[u64; MAX_GROUPS]) -> u64 {
        let (mut placement, mut rest) = (0, 0);
        for (g, &r) in self.groups.iter().zip(ranks) {
            if g.is_pawn() {
                placement += r * g.stride;
            } else {
                rest += r * g.stride;
            }
        }
        self.place(placement) * self.per_placement + pair * self.per_king_pair + rest
    }

    /// How far apart the indices of two positions stand that differ only in their king
    /// pair's number (by one): `index_of` is linear in it.
    #[inline]
    pub fn king_pair_stride(&self) -> u64 {
        self.per_king_pair
    }

    /// The digits of index `idx` (< `size()`), whether or not it is broken.
    #[inline]
    pub fn split(&self, idx: u64) -> Digits {
        let mut groups = [0; MAX_GROUPS];
        let pair = self.split_digits(idx, &mut groups);
        Digits {
            pair: pair as u32,
            kings: self.kings.pair(pair as usize),
            groups,
        }
    }

    /// The king pair's number of index `idx`, and the rank of each group into `groups`:
    /// its mixed-radix digits taken off from the last (stride 1), one division each. The
    /// ranks go to the caller's array: copied as a block right after being written one by
    /// one, they would wait for the stores.
    #[inline(always)]
    fn split_digits(&self, idx: u64, groups: &mut [u64; MAX_GROUPS]) -> u64 {
        let mut rest = idx;
        for (o, g) in groups.iter_mut().zip(&self.groups).rev() {
            if !g.is_pawn() {
                (rest, *o) = g.size_div.div_rem(rest);
            }
        }
        let (place, pair) = self.pairs_div.div_rem(rest);
        if self.pawns.is_some() {
            let mut placement = self.placement_at(place);
            for (o, g) in groups.iter_mut().zip(&self.groups).rev() {
                if g.is_pawn() {
                    (placement, *o) = g.size_div.div_rem(placement);
                }
            }
        }
        pair
    }

    /// The king pairs this index numbers.
    pub fn king_pairs(&self) -> &'static KingPairs {
        self.kings
    }

    /// Number of piece groups.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// Number of ranks of group `g` (the squares its pieces can take, as a set).
    pub fn group_size(&self, g: usize) -> u64 {
        self.groups[g].size
    }

    /// The colour and role of group `g`.
    pub fn group_piece(&self, g: usize) -> Piece {
        Piece {
            color: self.groups[g].color,
            role: self.groups[g].role,
        }
    }

    /// True when two different positions reached by moves of one position (or un-moves)
    /// can have one index: without pawns, a symmetry maps one onto the other. With pawns
    /// no two meet, so a position's quiet moves can be counted without looking at them.
    #[inline]
    pub fn moves_may_meet(&self) -> bool {
        !self.material.has_pawns()
    }

    /// `moves_may_meet` for the quiet moves (or un-moves) of one side of `pos`, the king
    /// of `still` standing still. A symmetry mapping one move's position onto another's
    /// keeps that king's square, so it is the mirror across a main diagonal through it,
    /// and it maps each piece neither move touched onto a piece of its kind: every piece
    /// but two, or, where identical pieces can trade places, but three. Elsewhere (most
    /// positions) moves are counted with no index found for them.
    #[inline]
    pub fn moves_may_meet_at(&self, pos: &Position, still: Side) -> bool {
        if !self.moves_may_meet() {
            return false;
        }
        let Some(k) = pos.king(still) else {
            return true;
        };
        // a8-h1's mirror is a1-h8's followed by both mid-lines'.
        let (line, across_a8h1) = match (k.file(), k.rank()) {
            (f, r) if f == r => (A1H8, false),
            (f, r) if f + r == 7 => (A8H1, true),
            _ => return false,
        };
        let mirror = Symmetry {
            diagonal: true,
            horizontal: across_a8h1,
            vertical: across_a8h1,
        };
        let pieces = pos.occupied().count();
        let mut kept = (pos.occupied() & line).count();
        let mut identical = false;
        for g in self.groups.iter().filter(|g| g.count > 1) {
            identical = true;
            let b = pos.pieces(g.color, g.role) & !line;
            kept += (mirror.bitboard(b) & b).count();
        }
        kept + 2 + u32::from(identical) >= pieces
    }

    /// Without pawns: true when both kings stand on the a1-h8 diagonal.
    #[inline]
    fn both_on_diagonal(&self, wk: Square, bk: Square) -> bool {
        !self.material.has_pawns() && wk.file() == wk.rank() && bk.file() == bk.rank()
    }

    /// True when the kings of `pos` (as they stand) are both on the a1-h8 diagonal, in a
    /// table without pawns.
    #[inline]
    fn kings_on_diagonal(&self, pos: &Position) -> bool {
        match (pos.king(Side::White), pos.king(Side::Black)) {
            (Some(wk), Some(bk)) => self.both_on_diagonal(wk, bk),
            _ => false,
        }
    }

    /// The full index from the king pair's number and the piece groups, each group's squares
    /// taken through `sym` (then mirrored across a1-h8 where `twin`).
    #[inline]
    fn rank_index(&self, pair: u64, pos: &Position, sym: Symmetry, twin: bool) -> u64 {
        self.compose(pair, &self.rank_groups(pos, sym, twin))
    }

    /// The rank of each piece group's squares, taken through `sym` (then mirrored across
    /// a1-h8 where `twin`). A lone piece's rank is its square's image (pawns aside, whose
    /// squares are shifted): one square is mirrored in a few operations, a board in many.
    #[inline(always)]
    fn rank_groups(&self, pos: &Position, sym: Symmetry, twin: bool) -> [u64; MAX_GROUPS] {
        let mut out = [0u64; MAX_GROUPS];
        for (o, g) in out.iter_mut().zip(&self.groups) {
            let pieces = pos.pieces(g.color, g.role);
            *o = match (g.count, g.is_pawn(), pieces.first()) {
                (1, false, Some(sq)) => {
                    let sq = sym.square(sq);
                    let sq = if twin { sq.flip_diagonal() } else { sq };
                    sq.index() as u64
                }
                _ => {
                    let b = sym.bitboard(pieces);
                    let b = if twin { b.flip_diagonal() } else { b };
                    combinations::rank(b.0 >> g.shift)
                }
            };
        }
        out
    }

    /// The position with index `idx` and `turn` to move if it is legal (the side not to
    /// move not in check) and canonical: the positions a table holds values for.
    #[inline]
    pub fn legal(&self, idx: u64, turn: Side) -> Option<Position> {
        let pos = self.decode(idx, turn)?;
        self.is_legal(idx, &pos).then_some(pos)
    }

    /// True when `pos`, which index `idx` decodes to, is a legal position of the index:
    /// the side not to move is not in check, and `idx` is its class's index.
    #[inline]
    pub fn is_legal(&self, idx: u64, pos: &Position) -> bool {
        !pos.opponent_in_check() && self.is_canonical(idx, pos)
    }

    /// True when `idx` (decoding to `pos`) is the index `encode` gives its class; the other
    /// indices (mirror images of canonical ones) are never used and count as broken.
    #[inline]
    pub fn is_canonical(&self, idx: u64, pos: &Position) -> bool {
        if !self.kings_on_diagonal(pos) {
            return true;
        }
        self.encode(pos) == Some(idx)
    }

    /// The position with index `idx` and `turn` to move, or None if the index is broken
    /// (pieces overlap) or out of range. The position may still be illegal (side not to move
    /// in check).
    #[inline]
    pub fn decode(&self, idx: u64, turn: Side) -> Option<Position> {
        if idx >= self.size {
            return None;
        }
        let mut pos = Position::empty(turn);
        let mut ranks = [0; MAX_GROUPS];
        let pair = self.split_digits(idx, &mut ranks);
        let (wk, bk) = self.kings.pair(pair as usize);
        pos.put(
            wk,
            Piece {
                color: Side::White,
                role: Role::King,
            },
        );
        pos.put(
            bk,
            Piece {
                color: Side::Black,
                role: Role::King,
            },
        );
        let mut occupied = pos.occupied();
        for (g, &digit) in self.groups.iter().zip(&ranks) {
            let set = Bitboard(combinations::unrank(digit, g.count, g.domain) << g.shift);
            if !(set & occupied).is_empty() {
                return None;
            }
            occupied |= set;
            pos.put_all(
                set,
                Piece {
                    color: g.color,
                    role: g.role,
                },
            );
        }
        Some(pos)
    }

    /// `class_weight` of a legal index whose position need not be looked at: Some for every
    /// index whose kings are not both on the a1-h8 diagonal of a table without pawns (the
    /// index is then its class's only one, and no mirror maps the position to itself).
    #[inline]
    pub fn weight_without_position(&self, idx: u64) -> Option<u64> {
        let (wk, bk) = self.kings.pair(self.pair_of(idx) as usize);
        (!self.both_on_diagonal(wk, bk)).then(|| self.labelled())
    }

    /// The end of the run of indices from `idx` that share its king pair (and pawns): each
    /// has `idx`'s `weight_without_position`, found once for the run.
    #[inline]
    pub fn king_pair_run_end(&self, idx: u64) -> u64 {
        ((idx / self.per_king_pair + 1) * self.per_king_pair).min(self.size)
    }

    /// Labelled positions per position: k! for each group of k identical pieces.
    fn labelled(&self) -> u64 {
        self.groups
            .iter()
            .map(|g| (1..=g.count as u64).product::<u64>())
            .product()
    }

    /// How many positions `idx` (decoding to `pos`) counts for in the statistics, in the
    /// convention Syzygy publishes: each symmetry class once, identical pieces told apart
    /// (k identical pieces give k! labelled positions, half as many when the position is its
    /// own mirror image and the mirror swaps identical pieces). 0 for non-canonical indices.
    pub fn class_weight(&self, idx: u64, pos: &Position) -> u64 {
        let labelled = self.labelled();
        if !self.is_canonical(idx, pos) {
            return 0;
        }
        if !self.kings_on_diagonal(pos) {
            return labelled;
        }
        // Its own mirror image: the mirror swaps the identical pieces off the diagonal, so
        // their labellings pair up.
        if pos.transformed(true, false, false) == *pos && !(pos.occupied() & !A1H8).is_empty() {
            labelled / 2
        } else {
            labelled
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A part promotes for a colour exactly when one of its positions has a pawn of that
    /// colour one step from promotion.
    #[test]
    fn parts_promote_where_a_pawn_stands_one_step_from_promotion() {
        for sig in ["KPvKP", "KRPvKR", "KPPvK", "KBvKP"] {
            let idx = TableIndex::new(sig.parse().unwrap());
            let mut promoting_parts = 0;
            for part in idx.parts() {
                let mut seen = [false; 2];
                let step = ((part.end - part.start) / 100_000).max(1) as usize | 1;
                for i in part.clone().step_by(step) {
                    let Some(pos) = idx.decode(i, Side::White) else {
                        continue;
                    };
                    for (c, rank) in [(Side::White, 6), (Side::Black, 1)] {
                        let pawns = pos.pieces(c, Role::Pawn);
                        seen[c.index()] |= !(pawns & Bitboard::rank(rank)).is_empty();
                    }
                }
                assert_eq!(idx.promoting(part.clone()), seen, "{sig} {part:?}");
                promoting_parts += usize::from(seen != [false; 2]);
            }
            assert!(promoting_parts > 0, "{sig}");
            assert!(promoting_parts < idx.parts().len(), "{sig}");
        }
        let pawnless = TableIndex::new("KRvKN".parse().unwrap());
        assert_eq!(pawnless.promoting(0..pawnless.size()), [false; 2]);
    }

    /// Every pawn move that stays in the table leads into an earlier part whose last
    /// reader is no earlier than the part the move starts from.
    #[test]
    fn pawn_moves_lead_to_parts_read_up_to_their_last_reader() {
        use crate::chess::{MoveKind, MoveList};
        for sig in ["KPvKP", "KRPvKR", "KPPvK", "KPPvKP"] {
            let idx = TableIndex::new(sig.parse().unwrap());
            let (parts, last) = (idx.parts(), idx.last_readers());
            assert_eq!(parts.len(), last.len(), "{sig}");
            let part_of = |i: u64| parts.iter().position(|p| p.contains(&i)).unwrap();
            let mut moves_seen = 0;
            for (k, part) in parts.iter().enumerate() {
                let step = ((part.end - part.start) / 20_000).max(1) as usize | 1;
                for i in part.clone().step_by(step) {
                    for turn in Side::ALL {
                        let Some(pos) = idx.legal(i, turn) else {
                            continue;
                        };
                        let mut list = MoveList::new();
                        pos.legal_moves(&mut list);
                        for m in list.as_slice() {
                            let quiet = matches!(m.kind, MoveKind::Normal | MoveKind::DoublePush);
                            if m.role != Role::Pawn
                                || !quiet
                                || m.capture.is_some()
                                || m.promotion.is_some()
                            {
                                continue;
                            }
                            let to = idx.encode(&pos.play(m)).expect("a position of the table");
                            let j = part_of(to);
                            assert!(
                                j < k && last[j] >= k,
                                "{sig}: {pos} {m:?} from part {k} to {j}"
                            );
                            moves_seen += 1;
                        }
                    }
                }
            }
            assert!(moves_seen > 100, "{sig}: {moves_seen}");
            // Some part is let go before the last is solved.
            assert!(last.iter().any(|&r| r + 1 < parts.len()), "{sig}: {last:?}");
        }
        assert_eq!(
            TableIndex::new("KRvKN".parse().unwrap()).last_readers(),
            vec![0]
        );
    }

    /// Moves of pieces other than pawns, captures apart, keep a position in its part
    /// (the left-right mirror included), and a table with one pawn has six parts, one
    /// per rank, for each of its four file groups.
    #[test]
    fn quiet_moves_of_pieces_stay_in_their_part() {
        use crate::chess::MoveList;
        for sig in ["KPvKP", "KRPvKR", "KPPvK", "KPPvKP", "KNPvKB"] {
            let idx = TableIndex::new(sig.parse().unwrap());
            let parts = idx.parts();
            let part_of = |i: u64| parts.iter().position(|p| p.contains(&i)).unwrap();
            let mut mirrored = 0;
            for (k, part) in parts.iter().enumerate() {
                let step = ((part.end - part.start) / 2_000).max(1) as usize | 1;
                for i in part.clone().step_by(step) {
                    let Some(pos) = idx.legal(i, Side::White) else {
                        continue;
                    };
                    let mut list = MoveList::new();
                    pos.legal_moves(&mut list);
                    for m in list.as_slice() {
                        if m.is_zeroing() {
                            continue;
                        }
                        let after = pos.play(m);
                        let to = idx.encode(&after).expect("a position of the table");
                        assert_eq!(part_of(to), k, "{sig}: {pos} {m:?}");
                        mirrored +=
                            usize::from(after.king(Side::White).is_some_and(|k| k.file() > 3));
                    }
                }
            }
            assert!(mirrored > 0, "{sig}: no move crossed the mirror");
        }
        assert_eq!(TableIndex::new("KRPvKR".parse().unwrap()).parts().len(), 24);
    }

    /// Wherever two quiet moves of a position, or two quiet un-moves, lead to one index,
    /// `moves_may_meet_at` says they may: every index of three-piece tables and samples of
    /// larger ones (identical pieces, both kings on a diagonal), each position's moves and
    /// un-moves encoded one by one.
    #[test]
    fn moves_meet_only_where_they_may() {
        use crate::chess::MoveList;
        for (sig, sample) in [
            ("KQvK", 1),
            ("KRRvK", 3),
            ("KQvKR", 7),
            ("KBNvK", 7),
            ("KRRvKR", 1009),
            ("KQRvKR", 1013),
        ] {
            let index = TableIndex::new(sig.parse().unwrap());
            let (mut met, mut may, mut asked) = (0, 0, 0);
            for side in Side::ALL {
                for i in (0..index.size()).step_by(sample) {
                    let Some(pos) = index.legal(i, side) else {
                        continue;
                    };
                    let mut list = MoveList::new();
                    pos.legal_moves(&mut list);
                    let moves = list.as_slice().iter().filter(|m| !m.is_zeroing());
                    let forward = moves.map(|m| index.encode(&pos.play(m)).unwrap());
                    let mut back = Vec::new();
                    pos.for_each_unmove(&[], false, |u| back.push(index.encode(&pos.unplay(&u))));
                    for (found, still) in [
                        (forward.collect::<Vec<_>>(), !side),
                        (back.into_iter().map(Option::unwrap).collect(), side),
                    ] {
                        let mut unique = found.clone();
                        unique.sort_unstable();
                        unique.dedup();
                        let meet = unique.len() < found.len();
                        let may_meet = index.moves_may_meet_at(&pos, still);
                        assert!(may_meet || !meet, "{sig} {pos}: {found:?}");
                        met += usize::from(meet);
                        may += usize::from(may_meet);
                        asked += 1;
                    }
                }
            }
            // Moves do meet, and the test spares most positions.
            assert!(met > 0, "{sig}: no two moves met");
            assert!(may * 2 < asked, "{sig}: {may} of {asked} may meet");
        }
    }

    /// Record numbers are a bijection that goes by the pawns' advance, most advanced first
    /// (format 4's order), and leaves tables without pawns as they are.
    #[test]
    fn record_numbers_go_by_advance_and_come_back() {
        for sig in ["KPvK", "KPPvK", "KPvKP", "KRPvKR", "KQvKR"] {
            let idx = TableIndex::new(sig.parse().unwrap());
            let advance = |i: u64| -> u32 {
                let pos = idx.decode(i, Side::White).unwrap();
                Square::all()
                    .filter_map(|sq| pos.piece_at(sq).map(|p| (sq, p)))
                    .filter(|(_, p)| p.role == Role::Pawn)
                    .map(|(sq, p)| match p.color {
                        Side::White => sq.rank(),
                        Side::Black => 7 - sq.rank(),
                    })
                    .sum()
            };
            let step = (idx.size() / 5_000).max(1) | 1;
            let mut last = None;
            for r in (0..idx.size()).step_by(step as usize) {
                let i = idx.from_record_number(r).unwrap();
                assert_eq!(idx.record_number(i), r, "{sig} {r}");
                if idx.pawns.is_none() {
                    assert_eq!(i, r, "{sig}");
                    continue;
                }
                if idx.decode(i, Side::White).is_some() {
                    let a = advance(i);
                    assert!(
                        last.is_none_or(|l| a <= l),
                        "{sig} record {r}: advance rose"
                    );
                    last = Some(a);
                }
            }
            assert_eq!(idx.from_record_number(idx.size()), None, "{sig}");
        }
    }

    /// One group's squares by arithmetic are where `decode` puts that group, for every
    /// piece but pawns (each group, identical pieces and pawn tables included).
    #[test]
    fn squares_of_a_group_are_where_decode_puts_it() {
        for sig in ["KQvKR", "KRRvKB", "KRPvKR", "KNNvKP", "KBBvKQ"] {
            let index = TableIndex::new(sig.parse().unwrap());
            let mut checked = 0;
            for idx in (0..index.size()).step_by(997) {
                let Some(pos) = index.decode(idx, Side::White) else {
                    continue;
                };
                for color in [Side::White, Side::Black] {
                    for role in Role::ALL {
                        let piece = Piece { color, role };
                        let wanted = match role {
                            Role::Pawn | Role::King => None,
                            _ if pos.pieces(color, role).is_empty() => None,
                            _ => Some(pos.pieces(color, role)),
                        };
                        assert_eq!(
                            index.squares_of_run(idx, piece).map(|(s, _)| s),
                            wanted,
                            "{sig} {idx}"
                        );
                        checked += usize::from(wanted.is_some());
                    }
                }
            }
            assert!(checked > 1000, "{sig}: {checked}");
        }
    }

    #[test]
    fn sizes() {
        let idx = TableIndex::new("KQvKR".parse().unwrap());
        assert_eq!(idx.size(), 462 * 64 * 64);
        let idx = TableIndex::new("KPPvK".parse().unwrap());
        assert_eq!(idx.size(), 1806 * 48 * 47 / 2);
    }
}
