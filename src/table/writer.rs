//! Writes a table file (layout in `format`): under a temporary name first, renamed once
//! complete and synced, so that a killed run never leaves a half-written file under the
//! final name.
//!
//! Each stream is built the same way: the values of the solver's indices are gathered in the
//! order of a layout of the index parts, positions with a choice of stored values (illegal
//! positions, holes of the layout, positions a conversion decides) get the one that
//! compresses best (`fill`), and the result is compressed (`codec`). The layout of each
//! stream, and the side the DTM layer stores, are chosen by compressing samples of every
//! candidate: which order of the parts compresses best depends on the material.
//!
//! Choices (`docs/measurements.md` has what each was measured to give):
//! - WDL blocks of 32 bytes: a cold probe decodes at most one, tens of codes. DTM blocks of
//!   256 bytes: smaller files than 32-byte blocks, and a cold DTM probe may cost more.
//! - Positions whose value a conversion reaches store "or better through a conversion"
//!   where that merges runs, at a cost of 1 against one more run (`fill`): a smaller WDL
//!   layer for little more probe time, which keeps probes of pawn tables, whose
//!   conversions reach larger tables, cheap.
//! - Distances as moves, the sign read from the WDL layer: wins and losses share symbols.

use super::codec::{encode, encode_by_frequency, join, StreamOptions, Symbol};
use super::error::TableError;
use super::fill::{fill_dtm, fill_wdl, FILL_CHUNK};
use super::format::{DtzLayer, Extent, Header, EXTENSION, HEADER_LEN};
use super::stats::TableStats;
use super::values::{dtm_choice, dtm_moves, wdl_choices, DTM_ANY, WDL_ANY, WDL_CODES};
use crate::atomic_file::AtomicFile;
use crate::game::Game;
use crate::index::{Layout, Part, TableIndex};
use crate::material::Material;
use crate::peers::{Alone, Owners, Peers};
use crate::phases::Phases;
use crate::prefetch::prefetch_at;
use crate::retro::{Packed, PackedShares, PackedSide, Solution};
use crate::side::{BySide, Side};
use crate::value::{Dtm, Wdl5};
use crate::zeroed::give_back_free_memory;
use rayon::prelude::*;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// How a table is compressed.
#[derive(Clone, Debug)]
pub struct WriteOptions {
    /// Compression of the WDL streams.
    pub wdl: StreamOptions,
    /// Compression of the DTM stream.
    pub dtm: StreamOptions,
    /// Compression of the DTZ stream of a table of more than `SMALL_PIECES` pieces:
    /// blocks of 256 bytes, as a probe decodes from its block's start. On KQRvKR the
    /// layer is 1.014x the bytes of 1 KiB blocks, and 20,000 random DTZ probes take 0.72x
    /// the time.
    pub dtz: StreamOptions,
    /// The same for a table of at most `SMALL_PIECES` pieces: blocks of 1 KiB (the most
    /// Syzygy's DTZ files have), as such a table's layer is small enough to be held in a
    /// cache whole and its probes are made at the root, not in the search; 256-byte
    /// blocks would make the 3-4-piece layers 1.04x larger.
    pub dtz_small: StreamOptions,
    /// What a probed "or better through a conversion" code costs against one more run of
    /// codes (16): higher values make faster, larger WDL streams.
    pub conversion_cost: u32,
    /// How each stream's layout is found.
    pub layouts: LayoutChoice,
    /// log2 of the most values a stream holds whole; a stream of more is cut into
    /// segments (`codec::segments`), and the writer holds a batch of segments' values at
    /// a time (`segments_at_once`).
    /// KQRvKR's streams (168 million values) whole take 0.92x the CPU time of the same
    /// streams cut into segments of 2^25.
    pub whole_log: u32,
    /// log2 of the values per segment of a stream cut into segments. KRPvKR's file is
    /// 0.9% smaller with 2^24 than with 2^25, and two segments at once hold what one of
    /// 2^25 held.
    pub segment_log: u32,
    /// Segments compressed at once: one compression alone keeps fewer than two threads
    /// busy, so segments go side by side; each holds its values and rounds meanwhile.
    pub segments_at_once: usize,
}

/// The most pieces of a table whose DTZ layer has the small tables' blocks
/// (`WriteOptions::dtz_small`).
const SMALL_PIECES: u32 = 4;

/// How the writer finds each stream's layout.
#[derive(Clone, Debug)]
pub enum LayoutChoice {
    /// Compress this many values of every order of the parts (a stream this short or
    /// shorter whole) and keep the smallest.
    Sampled(u64),
    /// This order of the parts for every stream.
    Fixed(Vec<Part>),
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            wdl: StreamOptions {
                block_log: 5,
                ..StreamOptions::default()
            },
            dtm: StreamOptions {
                block_log: 8,
                ..StreamOptions::default()
            },
            dtz: StreamOptions {
                block_log: 8,
                ..StreamOptions::default()
            },
            dtz_small: StreamOptions {
                block_log: 10,
                ..StreamOptions::default()
            },
            conversion_cost: 1,
            layouts: LayoutChoice::Sampled(1 << 18),
            whole_log: 28,
            segment_log: 24,
            segments_at_once: rayon::current_num_threads(),
        }
    }
}

/// The file name of `material`'s table in `dir`.
pub fn table_path(dir: &Path, material: &Material) -> PathBuf {
    dir.join(format!("{material}.{EXTENSION}"))
}

/// What one stream stores, before the choices are made.
#[derive(Copy, Clone)]
pub(super) enum Kind {
    /// WDL codes of one side to move.
    Wdl(Side),
    /// DTM moves of one side to move.
    Dtm(Side),
}

/// The choices of every index of a solved table, or, split across processes, of this
/// process's share of its indices (`split`).
pub(super) struct Choices<'a> {
    pub(super) index: &'a TableIndex,
    /// The solution of the indices this process holds (`Solution::first` on).
    solution: Solution,
    /// Of each side, its WDL inputs (`wdl_input`) where they stand in for the solution's
    /// side, else empty; the solution's indices from 0.
    wdl_inputs: BySide<Vec<u8>>,
    /// Some distance is longer than 255 moves (only distances listed as long can be).
    moves_beyond_a_byte: bool,
    /// The processes the writing is split across (`split`); each makes the choices of its
    /// share of the indices (`owners`), which its solution holds.
    pub(super) peers: &'a dyn Peers,
    pub(super) owners: Owners,
}

/// How many indices ahead of the one read the gathering of a stream asks for cache lines:
/// a layout's order visits the solution's arrays far apart, and each read would otherwise
/// wait on memory (KRPvKR: most of the writer's time).
pub(super) const PREFETCH_AHEAD: usize = 32;

/// The WDL input of a position that is none.
const NO_POSITION: u8 = u8::MAX;

/// What the WDL stream of `side` asks of the solution at `idx`, in a byte: its class under
/// the 50-move rule (`Wdl5::code`) twice, plus one where its best exit has that class too;
/// `NO_POSITION` for an illegal index. `code` is the byte its values hold or held there.
#[inline]
fn wdl_input(solution: &Solution, side: Side, idx: u64, code: u8) -> u8 {
    if solution.is_illegal(side, idx) {
        return NO_POSITION;
    }
    let (_, class) = solution.value_of(side, idx, code);
    2 * class.code() + u8::from(solution.exit_has_class(side, idx, class))
}

/// Turns `codes`, the bytes `side`'s values hold for the indices from `first`, into their
/// WDL inputs at the indices `owned`; the others' bytes are zeroed where `zero`, else
/// left as they are (not read, and their pages untouched).
fn inputs_in_place(
    solution: &Solution,
    side: Side,
    owned: &[Range<u64>],
    first: u64,
    codes: &mut [u8],
    zero: bool,
) {
    let mut next = 0;
    for own in within(owned, first..first + codes.len() as u64) {
        let at = (own.start - first) as usize..(own.end - first) as usize;
        if zero {
            codes[next..at.start].fill(0);
        }
        next = at.end;
        for (idx, code) in own.zip(&mut codes[at]) {
            *code = wdl_input(solution, side, idx, *code);
        }
    }
    if zero {
        codes[next..].fill(0);
    }
}

/// The WDL inputs of `side`, made in place of its values at the indices `owned` (this
/// process's; the others' bytes are not read, and their pages stay as they are), the rest
/// of the side let go: a byte per index where its WDL stream would read a byte and five
/// bits.
fn wdl_inputs_in_place(solution: &mut Solution, side: Side, owned: &[Range<u64>]) -> Vec<u8> {
    let mut codes = std::mem::take(&mut solution.values[side]);
    let s = &*solution;
    codes
        .par_chunks_mut(FILL_CHUNK)
        .enumerate()
        .for_each(|(c, chunk)| {
            let first = s.first + (c * FILL_CHUNK) as u64;
            inputs_in_place(s, side, owned, first, chunk, false);
        });
    solution.let_go(side);
    codes
}

/// The WDL inputs of `side` at the indices `owned`, packed as they are made (zero at the
/// others'): the side stays whole.
fn wdl_inputs_packed(solution: &Solution, side: Side, owned: &[Range<u64>]) -> Packed {
    let values = &solution.values[side];
    Packed::build(values.len(), |first, piece| {
        piece.copy_from_slice(&values[first..first + piece.len()]);
        inputs_in_place(
            solution,
            side,
            owned,
            solution.first + first as u64,
            piece,
            true,
        );
    })
}

/// The parts of the ranges `owned` (in order) inside `range`.
fn within<'a>(owned: &'a [Range<u64>], range: Range<u64>) -> impl Iterator<Item = Range<u64>> + 'a {
    owned
        .iter()
        .map(move |o| o.start.max(range.start)..o.end.min(range.end))
        .filter(|r| r.start < r.end)
}

impl<'a> Choices<'a> {
    /// The choices of `solution`'s indices, of a table of `index`, split across `peers`
    /// (collective).
    fn new(index: &'a TableIndex, solution: Solution, peers: &'a dyn Peers) -> Choices<'a> {
        let beyond = |&(_, plies): &(u64, u32)| dtm_moves(Dtm::from_plies(plies)) > u8::MAX as u16;
        let here = (solution.long.iter()).any(|(_, l)| l.entries().iter().any(beyond));
        Choices {
            index,
            solution,
            wdl_inputs: Default::default(),
            // Every process fills with the same symbols, whoever holds the long distances.
            moves_beyond_a_byte: peers.any_of(&[here])[0],
            peers,
            owners: Owners::new(&index.parts(), peers.count()),
        }
    }
}

impl Choices<'_> {
    /// The choice set of solver index `idx` for `kind`.
    #[inline]
    pub(super) fn at(&self, kind: Kind, idx: u64) -> u16 {
        let side = match kind {
            Kind::Wdl(s) | Kind::Dtm(s) => s,
        };
        match kind {
            Kind::Wdl(_) => {
                let inputs = &self.wdl_inputs[side];
                if !inputs.is_empty() {
                    return match inputs[(idx - self.solution.first) as usize] {
                        NO_POSITION => WDL_ANY,
                        input => wdl_choices(Wdl5::from_code(input / 2), input % 2 == 1),
                    };
                }
                if self.solution.is_illegal(side, idx) {
                    return WDL_ANY;
                }
                let (_, class) = self.solution.value(side, idx);
                wdl_choices(class, self.solution.exit_has_class(side, idx, class))
            }
            // An illegal index holds 0, a draw, and a draw stores any distance: the
            // illegal bitmap is not read, so the writer lets it go before this stream.
            Kind::Dtm(_) => {
                let (value, _) = self.solution.value(side, idx);
                dtm_choice(value, self.solution.exit_decides(side, idx))
            }
        }
    }

    /// Asks for the cache lines that `at(kind, idx)` reads.
    #[inline]
    pub(super) fn prefetch(&self, kind: Kind, idx: u64) {
        match kind {
            Kind::Wdl(side) if !self.wdl_inputs[side].is_empty() => {
                prefetch_at(&self.wdl_inputs[side], (idx - self.solution.first) as usize);
            }
            Kind::Wdl(side) | Kind::Dtm(side) => self.solution.prefetch(side, idx),
        }
    }

    /// The values stream `kind` stores for the numbers `range` of `layout`, in order. Each
    /// chunk of `FILL_CHUNK` numbers is gathered and filled (`fill`) on its own, so that a
    /// stream takes a value per number, never a choice set, while it is built.
    fn filled<S: Symbol>(
        &self,
        kind: Kind,
        layout: &Layout,
        range: Range<u64>,
        conversion_cost: u32,
    ) -> Vec<S> {
        let mut out = vec![S::from_usize(0); (range.end - range.start) as usize];
        // A task's chunks share one list of choices: a list per chunk would be a fresh
        // mapping each time (the binary maps blocks of 128 KiB and more apart), its pages
        // faulted in again and again.
        out.par_chunks_mut(FILL_CHUNK).enumerate().for_each_init(
            Vec::new,
            |choices, (c, chunk)| {
                let first = range.start + (c * FILL_CHUNK) as u64;
                let choice = |idx: Option<u64>| idx.map_or_else(|| any(kind), |i| self.at(kind, i));
                choices.clear();
                // The indices asked for and not yet read, oldest first.
                let mut ahead = VecDeque::with_capacity(PREFETCH_AHEAD);
                layout.for_each_index(self.index, first..first + chunk.len() as u64, |idx| {
                    if let Some(i) = idx {
                        self.prefetch(kind, i);
                    }
                    if ahead.len() == PREFETCH_AHEAD {
                        choices.push(choice(ahead.pop_front().flatten()));
                    }
                    ahead.push_back(idx);
                });
                choices.extend(ahead.into_iter().map(choice));
                fill_into(kind, choices, conversion_cost, chunk);
            },
        );
        out
    }

    /// The values stream `kind` stores for the numbers `range` of `layout`, filled: a byte
    /// per value, but for the distances of mates beyond 255 moves. Split across processes
    /// (collective), the whole stream, at process 0 (`split`), empty elsewhere.
    fn gather(
        &self,
        kind: Kind,
        layout: &Layout,
        range: Range<u64>,
        opts: &WriteOptions,
    ) -> Filled {
        let cost = opts.conversion_cost;
        // Split, only whole streams are gathered (at process 0); alone, any range, as the
        // layouts' samples are.
        if self.peers.count() > 1 {
            assert_eq!(range, 0..layout.size(), "split, whole streams only");
            return match self.wide(kind) {
                true => Filled::Wide(self.whole_at_root(kind, layout, opts)),
                false => Filled::Bytes(self.whole_at_root(kind, layout, opts)),
            };
        }
        match self.wide(kind) {
            true => Filled::Wide(self.filled(kind, layout, range, cost)),
            false => Filled::Bytes(self.filled(kind, layout, range, cost)),
        }
    }

    /// True when the values of `kind` take two bytes: distances beyond 255 moves.
    pub(super) fn wide(&self, kind: Kind) -> bool {
        matches!(kind, Kind::Dtm(_)) && self.moves_beyond_a_byte
    }

    /// The compressed size of the values of each of `jobs` (collective where split).
    fn sizes(&self, kind: Kind, jobs: &[Job], opts: &WriteOptions) -> Vec<u64> {
        // A process alone compresses each job where it stands; `split`'s path, which would
        // give the same sizes, copies every job's values through its batches.
        if self.peers.count() > 1 {
            return self.sizes_split(kind, jobs, opts);
        }
        let size = |job: &Job| self.stream(kind, job.layout, job.range.clone(), opts).len() as u64;
        jobs.par_iter().map(size).collect()
    }

    /// The compressed stream of `kind` for the numbers `range` of `layout`.
    fn stream(
        &self,
        kind: Kind,
        layout: &Layout,
        range: Range<u64>,
        opts: &WriteOptions,
    ) -> Vec<u8> {
        self.gather(kind, layout, range, opts).compress(kind, opts)
    }
}

impl Choices<'_> {
    /// The stream of `kind` in `layout`'s order: whole, or cut into segments
    /// (`codec::segments`) where it holds more than one, each gathered and compressed in
    /// turn. Segments start at multiples of `FILL_CHUNK`, so the values are those the
    /// whole stream would take.
    fn written(&self, kind: Kind, layout: &Layout, opts: &WriteOptions) -> Vec<u8> {
        // A process alone fills and compresses the stream in place: `split`'s path gives
        // the same bytes, but through batches of copied values it made KQRvKR's WDL and DTZ
        // layers take 1.2x the time.
        if self.peers.count() > 1 {
            return self.written_split(kind, layout, opts);
        }
        let (n, log) = (layout.size(), opts.segment_log);
        if !opts.is_cut(n) {
            return self.stream(kind, layout, 0..n, opts);
        }
        assert!(1 << log >= FILL_CHUNK, "segments of whole fill chunks");
        let len = 1u64 << log;
        let ranges: Vec<Range<u64>> = (0..n.div_ceil(len))
            .map(|k| k * len..n.min((k + 1) * len))
            .collect();
        // A batch at a time, so that no more than `segments_at_once` are held.
        let segments = ranges
            .chunks(opts.segments_at_once.max(1))
            .flat_map(|batch| {
                batch
                    .par_iter()
                    .map(|range| self.stream(kind, layout, range.clone(), opts))
                    .collect::<Vec<_>>()
            })
            .collect();
        join(n, log, segments)
    }
}

impl WriteOptions {
    /// True when a stream of `n` values is cut into segments.
    pub(super) fn is_cut(&self, n: u64) -> bool {
        n > 1 << self.whole_log
    }

    /// The most values of a stream of `n` the writer gathers at once: the whole stream,
    /// or a batch of segments of it.
    pub fn gathered(&self, n: u64) -> u64 {
        if self.is_cut(n) {
            (self.segments_at_once.max(1) as u64 * (1 << self.segment_log)).min(n)
        } else {
            n
        }
    }
}

/// The filled values of one stream, a byte or two each.
enum Filled {
    Bytes(Vec<u8>),
    Wide(Vec<u16>),
}

impl Filled {
    fn compress(self, kind: Kind, opts: &WriteOptions) -> Vec<u8> {
        match self {
            Filled::Bytes(v) => compress(kind, v, opts),
            Filled::Wide(v) => compress(kind, v, opts),
        }
    }
}

/// Fills the choice sets `choices` of one fill chunk (`fill`) and writes the values
/// chosen to `out`.
pub(super) fn fill_into<S: Symbol>(kind: Kind, choices: &mut [u16], cost: u32, out: &mut [S]) {
    match kind {
        Kind::Wdl(_) => fill_wdl(choices, cost),
        Kind::Dtm(_) => fill_dtm(choices),
    }
    for (o, &v) in out.iter_mut().zip(choices.iter()) {
        *o = S::from_usize(v.into());
    }
}

pub(super) fn any(kind: Kind) -> u16 {
    match kind {
        Kind::Wdl(_) => WDL_ANY,
        Kind::Dtm(_) => DTM_ANY,
    }
}

/// A range of a layout's numbers, and the process that fills them.
pub(super) struct Job<'l> {
    pub(super) layout: &'l Layout,
    pub(super) range: Range<u64>,
    pub(super) to: usize,
}

/// Compresses the filled values of one stream.
pub(super) fn compress<S: Symbol>(kind: Kind, values: Vec<S>, opts: &WriteOptions) -> Vec<u8> {
    match kind {
        Kind::Wdl(_) => {
            let leaves: Vec<u16> = (0..WDL_CODES as u16).collect();
            encode(values, &leaves, &opts.wdl)
        }
        Kind::Dtm(_) => encode_by_frequency(values, &opts.dtm),
    }
}

/// Sixteen evenly spread ranges of `layout`'s numbers, `sample` numbers in all.
fn sample_ranges(size: u64, sample: u64) -> Vec<Range<u64>> {
    if size <= sample {
        return std::iter::once(0..size).collect();
    }
    let len = sample / 16;
    (0..16)
        .map(|k| {
            let start = (size - len) / 15 * k;
            start..start + len
        })
        .collect()
}

/// The orders of the parts that a first, smaller sample keeps for the full one, where a
/// table has more.
const SHORTLIST: usize = 6;

/// Fewest numbers of a layout whose orders are shortlisted: below it, an eighth of the
/// sample is too small a slice to rank them (KQBvK's best order fell off the shortlist and
/// its file grew by 18%), and the trials of every order are cheap.
const SHORTLIST_FROM: u64 = 1 << 24;

/// The layout that compresses a sample of `kind` best, and the sample's compressed size.
///
/// Where the parts have more than `SHORTLIST` orders (24 or 120) and the layouts hold
/// `SHORTLIST_FROM` numbers or more (five pieces and more), each is first compressed from
/// an eighth of the sample, and only the `SHORTLIST` best go on to the whole sample: the
/// trials took a quarter of KQRvKR's writing time, and the best order at the whole sample
/// was among the shortlist's best (file sizes unchanged).
///
/// With `longer`, the `SHORTLIST` best orders on the sample, whatever the layouts' size,
/// are compared on that many values instead (`DTZ_SAMPLE`); where that is every value of
/// a stream written whole (a small table's), the chosen order's stream is kept, to be
/// written as it is rather than made again.
fn choose_layout(c: &Choices, kind: Kind, opts: &WriteOptions, longer: Option<u64>) -> Chosen {
    let (orders, sample) = match &opts.layouts {
        LayoutChoice::Sampled(sample) => (Layout::all_orders(c.index), *sample),
        LayoutChoice::Fixed(parts) => (vec![parts.clone()], 1 << 16),
    };
    let candidates: Vec<Layout> = orders
        .iter()
        .map(|parts| Layout::new(c.index, parts).expect("a permutation of the parts"))
        .collect();
    // Every sample range of every candidate at once: spread over the processes where the
    // writing is split.
    let measured = |candidates: Vec<Layout>, sample: u64| -> Vec<(Layout, u64)> {
        let jobs: Vec<(usize, Job)> = (candidates.iter().enumerate())
            .flat_map(|(k, layout)| {
                let ranges = sample_ranges(layout.size(), sample).into_iter();
                ranges.map(move |range| {
                    (
                        k,
                        Job {
                            layout,
                            range,
                            to: 0,
                        },
                    )
                })
            })
            .enumerate()
            .map(|(j, (k, job))| {
                (
                    k,
                    Job {
                        to: j % c.peers.count(),
                        ..job
                    },
                )
            })
            .collect();
        let (of, jobs): (Vec<usize>, Vec<Job>) = jobs.into_iter().unzip();
        let mut bytes = vec![0; candidates.len()];
        for (k, size) in of.into_iter().zip(c.sizes(kind, &jobs, opts)) {
            bytes[k] += size;
        }
        drop(jobs);
        candidates.into_iter().zip(bytes).collect()
    };
    let by_size = |(l, bytes): &(Layout, u64)| (*bytes, l.to_bytes());
    let large = candidates
        .first()
        .is_some_and(|l| l.size() >= SHORTLIST_FROM);
    let (first, last) = match longer {
        Some(longer) => (Some(sample), longer),
        None => (large.then_some(sample / 8), sample),
    };
    let candidates = match first {
        Some(first) if candidates.len() > SHORTLIST => {
            let mut first = measured(candidates, first);
            first.sort_by_cached_key(by_size);
            first.into_iter().take(SHORTLIST).map(|(l, _)| l).collect()
        }
        _ => candidates,
    };
    // Every order has as many numbers: where a DTZ layer's are all in the sample and its
    // stream is written whole by this process alone, each candidate's sample is its stream
    // (`Choices::written`), kept for the chosen one.
    let n = candidates.first().map_or(0, Layout::size);
    if longer.is_some() && c.peers.count() == 1 && n <= last && !opts.is_cut(n) {
        let streams = candidates.into_par_iter().map(|layout| {
            let stream = c.stream(kind, &layout, 0..n, opts);
            ((layout, stream.len() as u64), stream)
        });
        let ((layout, bytes), stream) = streams
            .min_by_key(|(chosen, _)| by_size(chosen))
            .expect("at least one layout");
        return Chosen {
            layout,
            bytes,
            stream: Some(stream),
        };
    }
    let (layout, bytes) = measured(candidates, last)
        .into_iter()
        .min_by_key(by_size)
        .expect("at least one layout");
    Chosen {
        layout,
        bytes,
        stream: None,
    }
}

/// What `choose_layout` chose: the layout, its sample's compressed size, and the stream
/// where the sample was the whole of it.
struct Chosen {
    layout: Layout,
    bytes: u64,
    stream: Option<Vec<u8>>,
}

/// The values the shortlisted orders of a DTZ layer are compared on: 16 ranges of 256K.
/// Distances to zeroing run long, and the sample's 16K-value ranges ranked the orders
/// wrongly (KRBvKR's black side: the order they chose wrote 710,112 bytes, the best of all
/// 120 575,392); their six best, compared on these, keep one within 1.01x of it (KQRvKR:
/// within 1.03x and 1.02x per side).
const DTZ_SAMPLE: u64 = 1 << 22;

/// The side a table's DTM layer stores, of the compressed sizes of each side's sample
/// (`dtm_trial`): the smaller's, white's where they are equal.
pub(crate) fn dtm_side(bytes: BySide<u64>) -> Side {
    match bytes.black < bytes.white {
        true => Side::Black,
        false => Side::White,
    }
}

/// The layout of side `side`'s DTM layer and its sample's compressed size, from the
/// side's values and exit decides bits (collective where split): which side the layer
/// stores is the one of the smaller sample (`dtm_side`).
pub(crate) fn dtm_trial(
    index: &TableIndex,
    solution: &mut Solution,
    side: Side,
    opts: &WriteOptions,
    peers: &dyn Peers,
) -> (Layout, u64) {
    let opts = &agreed(opts, peers);
    let taken = std::mem::replace(
        solution,
        Solution::from_parts(Default::default(), Default::default()),
    );
    let c = Choices::new(index, taken, peers);
    let chosen = choose_layout(&c, Kind::Dtm(side), opts, None);
    *solution = c.solution;
    (chosen.layout, chosen.bytes)
}

/// The WDL inputs (`wdl_input`) of the side `packed` holds, at the indices `owned` (0 at
/// the others'), made and packed a piece at a time from its packed values: its bitmaps
/// come whole into `solution` meanwhile and go after. All the WDL layer reads of a side.
pub(crate) fn wdl_inputs_of(
    packed: PackedSide,
    solution: &mut Solution,
    owned: &[Range<u64>],
) -> Packed {
    let side = packed.side();
    let values = packed.into_values(solution);
    let s = &*solution;
    let inputs = values.map_pieces(|first, piece| {
        inputs_in_place(s, side, owned, s.first + first as u64, piece, true);
    });
    let long = std::mem::take(&mut solution.long[side]);
    solution.let_go(side);
    solution.long[side] = long;
    inputs
}

/// Writes the table of `material` into `dir` and returns its path and size in bytes.
pub fn write_table(
    dir: &Path,
    material: &Material,
    solution: Solution,
    stats: TableStats,
    opts: &WriteOptions,
) -> Result<(PathBuf, u64), TableError> {
    let phases = &mut Phases::unread();
    write_table_sides(
        dir,
        material,
        solution,
        Sides::Whole,
        None,
        stats,
        opts,
        &Alone,
        phases,
    )
}

/// The sides of a solution as the writer takes them (one per table written: its size
/// does not matter).
#[allow(clippy::large_enum_variant)]
pub(crate) enum Sides {
    /// Both whole in the solution.
    Whole,
    /// The side the DTM layer stores, packed, with its DTM layout (`dtm_trial`), and the
    /// other side's WDL inputs, packed (`wdl_inputs_of`): all the layers read of them.
    Reduced {
        dtm: PackedSide,
        dtm_layout: Layout,
        other: Packed,
    },
}

/// The same for a solution whose sides come as `sides` says.
///
/// Each side's layouts are chosen from samples of it while it is at hand; then the streams
/// are made a side at a time, each side's WDL stream from a byte per index (`wdl_input`).
/// The side without DTM goes first, while the other is held compressed: its WDL inputs are
/// made in place of its values and the rest of it let go (or come made). The DTM side's
/// WDL inputs are made and held compressed, its DTM stream is made, the solution let go
/// once that stream's values are gathered (or its last segment compressed, where streams
/// are cut into segments), and its WDL stream comes last, from the inputs alone. The
/// writer holds one side and one stream at most (the memory model in `generate`); the
/// streams go to the file in their own order.
///
/// Split across `peers`, each process holds (at least) its share of each part's indices
/// (`Owners`), the work is spread over them (`split`), and process 0 writes the file; the
/// others return its path and 0 bytes (collective). Each step's time goes to `phases`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_table_sides(
    dir: &Path,
    material: &Material,
    solution: Solution,
    sides: Sides,
    dtz: Option<DtzStream>,
    stats: TableStats,
    opts: &WriteOptions,
    peers: &dyn Peers,
    phases: &mut Phases,
) -> Result<(PathBuf, u64), TableError> {
    let path = table_path(dir, material);
    let index = TableIndex::new(*material);
    let opts = &agreed(opts, peers);
    let mut c = Choices::new(&index, solution, peers);
    let owned = c.owners.of(peers.rank());
    let wdl_layout = |c: &Choices, side: Side| choose_layout(c, Kind::Wdl(side), opts, None).layout;
    let mut wdl_layouts: BySide<Option<Layout>> = BySide::default();
    let (dtm_side, dtm_layout, held) = match sides {
        Sides::Whole => {
            let trials = |c: &Choices, side: Side| {
                let wdl = wdl_layout(c, side);
                (wdl, choose_layout(c, Kind::Dtm(side), opts, None))
            };
            let [(wdl0, dtm0), (wdl1, dtm1)] = Side::ALL.map(|side| trials(&c, side));
            wdl_layouts = BySide::from([Some(wdl0), Some(wdl1)]);
            let dtm_side = dtm_side(BySide::from([dtm0.bytes, dtm1.bytes]));
            let dtm_layout = match dtm_side {
                Side::White => dtm0.layout,
                Side::Black => dtm1.layout,
            };
            let held = PackedSide::take(&mut c.solution, dtm_side);
            let other = !dtm_side;
            c.wdl_inputs[other] = wdl_inputs_in_place(&mut c.solution, other, &owned);
            (dtm_side, dtm_layout, held)
        }
        Sides::Reduced {
            dtm,
            dtm_layout,
            other,
        } => {
            let other_side = !dtm.side();
            c.wdl_inputs[other_side] = other.unpack();
            wdl_layouts[other_side] = Some(wdl_layout(&c, other_side));
            (dtm.side(), dtm_layout, dtm)
        }
    };
    // The trials' many small blocks go before the streams' large ones come.
    give_back_free_memory();
    phases.lap("layouts");
    // Every order of the parts has as many numbers.
    let segmented = opts.is_cut(dtm_layout.size());
    let other = !dtm_side;
    let mut streams: BySide<Vec<u8>> = BySide::default();
    let wdl_stream =
        |c: &Choices, side: Side, layout: &Layout| c.written(Kind::Wdl(side), layout, opts);
    streams[other] = wdl_stream(&c, other, wdl_layouts[other].as_ref().expect("chosen"));
    c.wdl_inputs[other] = Vec::new();
    give_back_free_memory();
    phases.lap("wdl_layer");
    held.restore(&mut c.solution);
    if wdl_layouts[dtm_side].is_none() {
        wdl_layouts[dtm_side] = Some(wdl_layout(&c, dtm_side));
        phases.lap("layouts");
    }
    let wdl_layouts = wdl_layouts.map(|l| l.expect("chosen"));
    let inputs = wdl_inputs_packed(&c.solution, dtm_side, &owned);
    // The DTM stream reads the values and the exits deciding, no more.
    let s = &mut c.solution;
    for bits in [
        &mut s.illegal,
        &mut s.exit_same_wdl,
        &mut s.cursed,
        &mut s.exit_cursed,
    ] {
        bits[dtm_side] = Vec::new();
    }
    let dtm_kind = Kind::Dtm(dtm_side);
    let dtm_stream = if segmented {
        let stream = c.written(dtm_kind, &dtm_layout, opts);
        c.solution.let_go(dtm_side);
        stream
    } else {
        // Whole, the solution goes before the values gathered are compressed (split,
        // gathered at process 0).
        let dtm_values = c.gather(dtm_kind, &dtm_layout, 0..dtm_layout.size(), opts);
        c.solution.let_go(dtm_side);
        match peers.rank() {
            0 => dtm_values.compress(dtm_kind, opts),
            _ => Vec::new(),
        }
    };
    phases.lap("dtm_layer");
    c.wdl_inputs[dtm_side] = inputs.unpack();
    streams[dtm_side] = wdl_stream(&c, dtm_side, &wdl_layouts[dtm_side]);
    phases.lap("wdl_layer");
    let mut header = Header {
        game: Game::Chess,
        material: *material,
        size: index.size(),
        stats,
        dtm_side,
        layouts: [
            wdl_layouts.white.to_bytes(),
            wdl_layouts.black.to_bytes(),
            dtm_layout.to_bytes(),
        ],
        streams: [Extent::default(); 3],
        segmented,
        dtz: None,
    };
    if peers.rank() != 0 {
        return Ok((path, 0));
    }
    let bytes = write_atomically(&path, |w| {
        // The header names where the streams lie: it is written last, over this space.
        w.write_all(&[0; HEADER_LEN])?;
        let mut at = HEADER_LEN as u64;
        let [wdl0, wdl1] = streams.into_array();
        let mut put = |stream: &[u8]| -> io::Result<Extent> {
            let offset = at.next_multiple_of(64);
            w.write_all(&vec![0u8; (offset - at) as usize])?;
            w.write_all(stream)?;
            at = offset + stream.len() as u64;
            Ok(Extent {
                offset,
                len: stream.len() as u64,
            })
        };
        for (extent, stream) in header.streams.iter_mut().zip([wdl0, wdl1, dtm_stream]) {
            *extent = put(&stream)?;
        }
        if let Some(dtz) = dtz {
            header.dtz = Some(DtzLayer {
                side: dtz.side,
                layout: dtz.layout.to_bytes(),
                stream: put(&dtz.stream)?,
            });
        }
        let end = at;
        w.seek(SeekFrom::Start(0))?;
        w.write_all(&header.to_bytes())?;
        Ok(end)
    })?;
    phases.lap("file");
    Ok((path, bytes))
}

/// A table's DTZ layer, compressed (at process 0; empty elsewhere).
pub(crate) struct DtzStream {
    /// The side to move stored.
    side: Side,
    /// Its layout.
    layout: Layout,
    /// Its stream.
    stream: Vec<u8>,
}

/// The DTZ layer of a table of `index` from its distances to zeroing (as
/// `retro::dtz::PartDtz::into_share` gives them, in the layout of the table's solution;
/// split across `peers`, each process's shares), written as the DTM layer is: the side
/// that compresses better (collective where split). Where `shares` holds the values
/// packed (a table with pawns), one side is unpacked at a time.
pub(crate) fn dtz_layer(
    index: &TableIndex,
    distances: Solution,
    mut shares: PackedShares,
    opts: &WriteOptions,
    peers: &dyn Peers,
) -> DtzStream {
    let opts = &agreed(opts, peers);
    let mut c = Choices::new(index, distances, peers);
    // Stored as the DTM layer's moves are, in blocks of their own size.
    let dtz = match index.material().pieces() <= SMALL_PIECES {
        true => opts.dtz_small,
        false => opts.dtz,
    };
    let opts = &WriteOptions {
        dtm: dtz,
        ..opts.clone()
    };
    // Each side's order of the parts is shortlisted on samples, as the other layers' are,
    // and the shortlist compared on longer ones (`DTZ_SAMPLE`): the DTM layer's order
    // instead makes the 3-4-piece layers 1.07x larger.
    let longer = match opts.layouts {
        LayoutChoice::Sampled(_) => Some(DTZ_SAMPLE),
        LayoutChoice::Fixed(_) => None,
    };
    // One side's values whole at a time where `shares` holds them packed: white's, then
    // black's, then white's again if its stream is written. A side's packed pieces go as
    // soon as nothing will unpack them again.
    shares.unpack(&mut c.solution, Side::White);
    let white = choose_layout(&c, Kind::Dtm(Side::White), opts, longer);
    shares.release(&mut c.solution, Side::White);
    shares.unpack_last(&mut c.solution, Side::Black);
    let black = choose_layout(&c, Kind::Dtm(Side::Black), opts, longer);
    let written = |c: &Choices, side: Side, chosen: Chosen| DtzStream {
        side,
        stream: (chosen.stream).unwrap_or_else(|| c.written(Kind::Dtm(side), &chosen.layout, opts)),
        layout: chosen.layout,
    };
    let black = match sides_apart(white.bytes, black.bytes) {
        Some(Side::Black) => {
            shares.forget(Side::White);
            return written(&c, Side::Black, black);
        }
        Some(Side::White) => None,
        None => Some(written(&c, Side::Black, black)),
    };
    shares.release(&mut c.solution, Side::Black);
    // White's values are read again only where its stream was not kept from its trials.
    match white.stream {
        Some(_) => shares.forget(Side::White),
        None => shares.unpack_last(&mut c.solution, Side::White),
    }
    let white = written(&c, Side::White, white);
    // The first of equals: white's side where the two take as many bytes.
    match black {
        Some(black) if black.stream.len() < white.stream.len() => black,
        _ => white,
    }
}

/// The side whose DTZ layer is the smaller by the samples' sizes of the two sides, where
/// they are `DTZ_APART` apart or more; None where the sides are to be written whole and
/// compared.
fn sides_apart(white: u64, black: u64) -> Option<Side> {
    let (num, den) = DTZ_APART;
    if white * num <= black * den {
        Some(Side::White)
    } else if black * num <= white * den {
        Some(Side::Black)
    } else {
        None
    }
}

/// How far apart (smaller to larger, as a fraction) two sides' samples must be for the
/// smaller to be taken without writing both whole: the samples of streams this
/// compressible rank near sides wrongly (KRNvKR's black side sampled 1.16x smaller than
/// white's and is 1.08x larger written whole), and the side not taken costs its writing
/// (KQRvKR's black side is 5.1x white's and took most of the layer's time). Samples
/// 1.25x apart or more ranked the sides of every table of up to 4 pieces and of KQRvKR,
/// KRBvKR, KRNvKR and KRRvKR as the whole streams do.
const DTZ_APART: (u64, u64) = (5, 4);

/// `opts` as every process of `peers` writes with: the streams are cut into the same
/// batches in every process, whatever its threads (collective where split).
fn agreed(opts: &WriteOptions, peers: &dyn Peers) -> WriteOptions {
    let all = peers.all_gather_words(&[opts.segments_at_once as u64]);
    WriteOptions {
        segments_at_once: all.iter().map(|theirs| theirs[0]).min().unwrap_or(1) as usize,
        ..opts.clone()
    }
}

/// Writes `path` through `body` as an `AtomicFile`.
fn write_atomically<T>(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<File>) -> io::Result<T>,
) -> Result<T, TableError> {
    let write = || {
        let mut file = AtomicFile::create(path)?;
        let out = body(file.writer())?;
        file.finish()?;
        Ok(out)
    };
    write().map_err(|source| TableError::Write {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use crate::retro::{solve, AllDrawn, ChessGame};
    use crate::table::TableFile;

    /// A DTZ layer's side is taken from the samples only where they are 1.25x apart or
    /// more, either way round; nearer (equal included), both sides are written.
    #[test]
    fn sides_are_taken_from_samples_only_when_far_apart() {
        assert_eq!(sides_apart(400, 500), Some(Side::White));
        assert_eq!(sides_apart(500, 400), Some(Side::Black));
        assert_eq!(sides_apart(401, 500), None);
        assert_eq!(sides_apart(500, 401), None);
        assert_eq!(sides_apart(136, 136), None);
    }

    /// The WDL inputs made a piece at a time from a side's packed values are those made
    /// from the whole side, at the indices a process owns, over several pieces.
    #[test]
    fn wdl_inputs_from_packed_values_are_those_of_the_whole_side() {
        let n = 9_000_123usize;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // Distances that are not long (no list needed), and runs of draws.
        let values: Vec<u8> = (0..n)
            .map(|i| match i % 7 {
                0 | 1 => 0,
                _ => (next() % 200) as u8,
            })
            .collect();
        let mut bits = || (0..n.div_ceil(64)).map(|_| next()).collect::<Vec<u64>>();
        let mut sides = || BySide::from([bits(), bits()]);
        let (illegal, exit_same_wdl, exit_decides) = (sides(), sides(), sides());
        let (cursed, exit_cursed) = (sides(), sides());
        let mut solution = Solution::from_parts([values.clone(), values].into(), illegal);
        solution.exit_same_wdl = exit_same_wdl;
        solution.exit_decides = exit_decides;
        solution.cursed = cursed;
        solution.exit_cursed = exit_cursed;
        let n = n as u64;
        let all = std::iter::once(0..n).collect::<Vec<_>>();
        for owned in [all, vec![100..4_500_000, 7_000_000..n]] {
            let whole = wdl_inputs_packed(&solution, Side::Black, &owned).unpack();
            // Index by index, as the WDL stream reads them.
            let codes = &solution.values.black;
            let expected: Vec<u8> = (0..n)
                .map(|idx| match owned.iter().any(|o| o.contains(&idx)) {
                    true => wdl_input(&solution, Side::Black, idx, codes[idx as usize]),
                    false => 0,
                })
                .collect();
            assert!(whole == expected, "owned {owned:?}");
            let mut reduced = solution.clone();
            let packed = PackedSide::take(&mut reduced, Side::Black);
            let made = wdl_inputs_of(packed, &mut reduced, &owned).unpack();
            assert!(made == whole, "owned {owned:?}");
            assert!(reduced.values.black.is_empty() && reduced.illegal.black.is_empty());
        }
    }

    /// A table whose streams are cut into segments reads back every value the whole one
    /// holds, through probes and through the decoders, and only it is version 4.
    #[test]
    fn segmented_streams_hold_the_values_of_whole_ones() {
        let m: Material = "KQvKR".parse().unwrap();
        let index = TableIndex::new(m);
        let solution = solve(&ChessGame::new(index.clone(), &AllDrawn), &Silent);
        let stats = TableStats::default();
        let write = |whole_log: u32, segment_log: u32, segments_at_once: usize| {
            let dir = tempfile::tempdir().unwrap();
            let opts = WriteOptions {
                whole_log,
                segment_log,
                segments_at_once,
                ..WriteOptions::default()
            };
            let (path, _) = write_table(dir.path(), &m, solution.clone(), stats, &opts).unwrap();
            (dir, TableFile::open(&path).unwrap())
        };
        let (_a, whole) = write(28, 25, 1);
        // Streams of more than 2^20 values, in segments of 2^16, compressed one by one
        // and three at once: the same bytes.
        let (_b, cut) = write(20, 16, 3);
        let (_c, one_by_one) = write(20, 16, 1);
        let bytes = |t: &TableFile| std::fs::read(t.path()).unwrap();
        assert_eq!(bytes(&cut), bytes(&one_by_one));
        assert!(!whole.header().segmented && cut.header().segmented);
        assert!(cut.layer_bytes().1 > 0 && whole.header().layouts == cut.header().layouts);
        for side in crate::Side::ALL {
            assert_eq!(
                cut.decode_wdl(side).unwrap(),
                whole.decode_wdl(side).unwrap()
            );
        }
        let moves = (whole.decode_dtm().unwrap(), cut.decode_dtm().unwrap());
        for idx in (0..index.size()).step_by(97) {
            assert_eq!(moves.0.get(idx), moves.1.get(idx), "index {idx}");
            let Some(pos) = index.decode(idx, crate::Side::White) else {
                continue;
            };
            let Some(digits) = index.digits(&pos) else {
                continue;
            };
            for side in crate::Side::ALL {
                assert_eq!(
                    cut.wdl_code(side, &digits).ok(),
                    whole.wdl_code(side, &digits).ok(),
                    "index {idx}"
                );
            }
            assert_eq!(cut.dtm_moves(&digits).ok(), whole.dtm_moves(&digits).ok());
        }
    }
}
