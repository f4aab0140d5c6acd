//! Pair grammar (Re-Pair): the most frequent pairs of adjacent symbols are replaced by new
//! symbols, round after round, until no pair repeats often enough or the symbol budget is
//! spent. Runs of one value collapse into a handful of symbols of doubling length, and the
//! patterns that piece placements repeat (a rank, a file, a whole board of one piece)
//! become single symbols, so that the entropy coder after it sees far fewer, better
//! separated symbols.
//!
//! The result is the same whatever the number of threads: the sequence is cut into chunks
//! of a fixed size, pairs are only replaced inside a chunk, and counts are sums.

use crate::keyed::KeyedMap;
use rayon::prelude::*;

/// Chunk of the sequence that one task counts or rewrites.
const CHUNK: usize = 1 << 20;

/// The grammar: leaf symbols `0..leaves` are values; symbol `leaves + i` expands to the
/// expansion of `pairs[i][0]` followed by that of `pairs[i][1]`, both smaller symbols.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Grammar {
    /// Number of leaf symbols.
    pub leaves: u16,
    /// The pair each non-leaf symbol stands for.
    pub pairs: Vec<[u16; 2]>,
}

impl Grammar {
    /// Number of symbols, leaves included.
    pub(super) fn symbols(&self) -> usize {
        self.leaves as usize + self.pairs.len()
    }

    /// How many values each symbol expands to.
    pub(super) fn lengths(&self) -> Vec<u64> {
        let mut len = vec![1u64; self.leaves as usize];
        for &[a, b] in &self.pairs {
            len.push(len[a as usize] + len[b as usize]);
        }
        len
    }

    /// Appends the values `sym` expands to.
    #[cfg(test)]
    pub(super) fn expand(&self, sym: u16, out: &mut Vec<u16>) {
        if sym < self.leaves {
            out.push(sym);
        } else {
            let [a, b] = self.pairs[(sym - self.leaves) as usize];
            self.expand(a, out);
            self.expand(b, out);
        }
    }
}

/// Limits of the grammar.
#[derive(Copy, Clone, Debug)]
pub struct PairOptions {
    /// Most symbols, leaves included (at most 65,536).
    pub max_symbols: usize,
    /// A pair is replaced only if it occurs at least this often.
    pub min_count: u32,
    /// Most pairs replaced in one round.
    pub per_round: usize,
    /// A pair is replaced in a round only if it occurs at least 1/`spread` as often as the
    /// most frequent pair of the round (so that rare pairs wait for better partners).
    pub spread: u32,
    /// The same for the rounds that begin with the alphabet grown beyond a byte: the
    /// sequence is short by then, and the rounds many. KRPvKR's streams (segments of
    /// 2^24): 8 instead of 4 takes 0.80x the grammar's time, for 0.22% more bytes.
    pub wide_spread: u32,
    /// Longest expansion of a symbol.
    pub max_len: u64,
}

impl Default for PairOptions {
    fn default() -> Self {
        PairOptions {
            max_symbols: 4096,
            min_count: 8,
            per_round: 256,
            spread: 4,
            wide_spread: 8,
            max_len: u32::MAX as u64,
        }
    }
}

/// A symbol of the sequence being rewritten: a byte while the alphabet fits in one, so
/// that a stream's first, longest rounds take one byte per value; 16 bits after.
pub trait Symbol: Copy + Eq + Send + Sync + Into<usize> + TryFrom<usize> {
    /// Symbols this type can hold.
    const LIMIT: usize = 1 << (8 * std::mem::size_of::<Self>());

    /// The symbol with number `s`, which must be below `LIMIT`.
    #[inline]
    fn from_usize(s: usize) -> Self {
        Self::try_from(s).ok().expect("a symbol below the limit")
    }

    /// This symbol's number.
    #[inline]
    fn get(self) -> usize {
        self.into()
    }

    /// The sequence as 16-bit symbols.
    fn widen(seq: Vec<Self>) -> Vec<u16>;
}

impl Symbol for u8 {
    fn widen(seq: Vec<u8>) -> Vec<u16> {
        widen_by(seq, WIDEN_SLICE)
    }
}

/// Bytes widened at a time by `widen_by`.
const WIDEN_SLICE: usize = 1 << 26;

/// The bytes as 16-bit symbols, copied from the back a slice at a time while the bytes
/// copied are given back, so that the copy holds 2 bytes per symbol at most, not 3: the
/// zeroed output takes memory only where it is written.
fn widen_by(mut seq: Vec<u8>, slice: usize) -> Vec<u16> {
    let mut out = vec![0u16; seq.len()];
    let mut end = seq.len();
    while end > 0 {
        let start = end.saturating_sub(slice);
        out[start..end]
            .par_iter_mut()
            .zip(&seq[start..end])
            .for_each(|(o, &b)| *o = u16::from(b));
        seq.truncate(start);
        seq.shrink_to_fit();
        end = start;
    }
    out
}

impl Symbol for u16 {
    fn widen(seq: Vec<u16>) -> Vec<u16> {
        seq
    }
}

/// Calls `f(a, b, times)` for the non-overlapping pairs of one chunk: a run of k equal
/// symbols holds k/2 pairs of them, told at once (counting them one by one waits on the
/// same counter at every step), and its last symbol pairs with the symbol after the run.
#[inline]
fn for_each_pair<S: Symbol>(chunk: &[S], mut f: impl FnMut(usize, usize, u32)) {
    let n = chunk.len();
    let mut i = 0;
    while i + 1 < n {
        let a = chunk[i];
        if chunk[i + 1] == a {
            let end = i + 2 + chunk[i + 2..].iter().take_while(|&&s| s == a).count();
            f(a.get(), a.get(), ((end - i) / 2) as u32);
            i = end - 1;
        } else {
            f(a.get(), chunk[i + 1].get(), 1);
            i += 1;
        }
    }
}

/// The pairs of `seq` (symbols below `alphabet`) that occur at least `min_count` times,
/// counted inside each chunk, as (count, first, second), in `memory`.
fn count_pairs<S: Symbol>(
    seq: &[S],
    alphabet: usize,
    min_count: u32,
    memory: &mut Counting,
) -> Vec<(u32, u16, u16)> {
    let Counting { tables, keys } = memory;
    let split = |key: usize, c: u32| (c, (key / alphabet) as u16, (key % alphabet) as u16);
    let size = alphabet * alphabet;
    if size <= 2 * seq.len() {
        // Dense counts, one table per group of chunks, each group too short to overflow
        // its counts; the sums saturate, which keeps the order of all but the pairs seen
        // more than 2^32 times, whatever the number of groups.
        let per = group_len(seq.len(), rayon::current_num_threads());
        let groups = seq.len().div_ceil(per);
        if tables.len() < groups {
            tables.resize_with(groups, Vec::new);
        }
        tables[..groups]
            .par_iter_mut()
            .zip(seq.par_chunks(per))
            .for_each(|(counts, part)| {
                counts.clear();
                counts.resize(size, 0);
                for chunk in part.chunks(CHUNK) {
                    for_each_pair(chunk, |a, b, k| counts[a * alphabet + b] += k);
                }
            });
        let Some((sum, others)) = tables[..groups].split_first_mut() else {
            return Vec::new();
        };
        sum.par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
            for other in others.iter() {
                let other = &other[c * CHUNK..];
                for (x, y) in out.iter_mut().zip(other) {
                    *x = x.saturating_add(*y);
                }
            }
        });
        sum.iter()
            .enumerate()
            .filter(|&(_, &c)| c >= min_count)
            .map(|(k, &c)| split(k, c))
            .collect()
    } else {
        // Few pairs for the alphabet: the dense tables are not needed again (the sequence
        // only shrinks and the alphabet only grows), and they go before the keys come.
        *tables = Vec::new();
        count_sparse(seq, alphabet, min_count, keys)
    }
}

/// log2 of the keys one bucket of `count_sparse` counts densely: its table fits the
/// first-level cache.
const LOW_BITS: u32 = 12;
const _: () = assert!(LOW_BITS <= u16::BITS, "a key's low bits are kept in a u16");

/// What `count_pairs` counts in, kept from round to round: a dense table is as large as
/// the alphabet squared (64 MiB at 4,096 symbols), the sparse keys two bytes per symbol,
/// and fresh ones each round would fault in every page again.
#[derive(Default)]
struct Counting {
    /// Dense counts, one table per group of chunks.
    tables: Vec<Vec<u32>>,
    /// Sparse counts' keys, per chunk.
    keys: Vec<ChunkKeys>,
}

/// One chunk's pairs, bucket by bucket, each as its key's low `LOW_BITS` (the bucket holds
/// the high bits), and where each bucket starts among them (`count_sparse`).
#[derive(Default)]
struct ChunkKeys {
    keys: Vec<u16>,
    starts: Vec<usize>,
}

/// Pairs per group of buckets `count_sparse` counts as one task: a short sequence (a
/// sample's) is counted as one, where tasks of a few buckets each cost more in their
/// making and their tables than in counting.
const GROUP_PAIRS: usize = 1 << 16;

/// The pairs of `seq` that occur at least `min_count` times, as (count, first, second) in
/// no set order, without a table of the alphabet squared: each chunk's
/// pair keys are laid out by bucket (the keys' high bits, a counting sort) in `chunks`,
/// then each bucket is counted in a table of `2^LOW_BITS` over every chunk's part of it. A
/// few passes over the keys, where sorting them took a comparison sort's many.
fn count_sparse<S: Symbol>(
    seq: &[S],
    alphabet: usize,
    min_count: u32,
    chunks: &mut Vec<ChunkKeys>,
) -> Vec<(u32, u16, u16)> {
    let low = LOW_BITS.min(usize::BITS - (alphabet * alphabet).leading_zeros());
    let buckets = ((alphabet * alphabet - 1) >> low) + 1;
    let mask = (1 << low) - 1;
    chunks.resize_with(seq.len().div_ceil(CHUNK), ChunkKeys::default);
    chunks.par_iter_mut().zip(seq.par_chunks(CHUNK)).for_each(
        |(ChunkKeys { keys, starts }, chunk)| {
            starts.clear();
            starts.resize(buckets + 1, 0);
            for_each_pair(chunk, |a, b, k| {
                starts[((a * alphabet + b) >> low) + 1] += k as usize
            });
            for i in 1..starts.len() {
                starts[i] += starts[i - 1];
            }
            let mut at = starts.clone();
            // Every key is written below.
            keys.resize(starts[buckets], 0);
            for_each_pair(chunk, |a, b, k| {
                let key = a * alphabet + b;
                let at = &mut at[key >> low];
                let slot = (key & mask) as u16;
                match k {
                    1 => keys[*at] = slot,
                    _ => keys[*at..*at + k as usize].fill(slot),
                }
                *at += k as usize;
            });
        },
    );
    let chunks = &*chunks;
    let split = |key: usize, c: u32| (c, (key / alphabet) as u16, (key % alphabet) as u16);
    let pairs = seq.len() / 2;
    let groups = (pairs / GROUP_PAIRS).clamp(1, buckets);
    let per = buckets.div_ceil(groups);
    (0..buckets.div_ceil(per))
        .into_par_iter()
        .map(|group| {
            let mut counts = vec![0u64; 1 << low];
            let mut out = Vec::new();
            for bucket in group * per..buckets.min((group + 1) * per) {
                let slots = || {
                    chunks
                        .iter()
                        .flat_map(move |c| &c.keys[c.starts[bucket]..c.starts[bucket + 1]])
                        .map(|&slot| slot as usize)
                };
                slots().for_each(|slot| counts[slot] += 1);
                // Each slot met once more, its count taken and cleared for the next bucket.
                for slot in slots() {
                    let c = std::mem::take(&mut counts[slot]);
                    if c > 0 && c >= u64::from(min_count) {
                        let key = bucket << low | slot;
                        out.push(split(key, u32::try_from(c).unwrap_or(u32::MAX)));
                    }
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .concat()
}

/// Most symbols one group of `count_pairs` counts: fewer pairs than a `u32` holds.
const GROUP_LIMIT: usize = 1 << 31;

/// Symbols per group when `len` symbols are counted by `threads` groups or more: whole
/// chunks, at most `GROUP_LIMIT`.
fn group_len(len: usize, threads: usize) -> usize {
    let chunks = len.div_ceil(CHUNK).max(1);
    let groups = threads.max(len.div_ceil(GROUP_LIMIT)).clamp(1, chunks);
    chunks.div_ceil(groups) * CHUNK
}

/// The pairs a round replaces, by their first symbols.
struct Chosen<S> {
    /// `second[a]`: the second symbol of the pair that starts with `a`, or `u32::MAX`.
    second: Vec<u32>,
    /// `new[a]`: the new symbol of the pair that starts with `a`, if one does.
    new: Vec<S>,
}

impl<S: Symbol> Chosen<S> {
    fn new(alphabet: usize) -> Chosen<S> {
        Chosen {
            second: vec![u32::MAX; alphabet],
            new: vec![S::from_usize(0); alphabet],
        }
    }

    fn add(&mut self, a: usize, b: S, new: S) {
        self.second[a] = b.get() as u32;
        self.new[a] = new;
    }
}

/// Replaces, chunk by chunk and left to right, every occurrence of a chosen pair. Returns
/// the new length.
fn replace<S: Symbol>(seq: &mut [S], chosen: &Chosen<S>) -> usize {
    let lens: Vec<usize> = seq
        .par_chunks_mut(CHUNK)
        .map(|chunk| rewrite(chunk, chosen, |_| {}))
        .collect();
    let mut at = 0;
    for (c, len) in lens.into_iter().enumerate() {
        seq.copy_within(c * CHUNK..c * CHUNK + len, at);
        at += len;
    }
    at
}

/// Positions `rewrite` looks at before it moves any symbol.
const REWRITE_BLOCK: usize = 1024;

/// Replaces every occurrence of a chosen pair in `chunk`, left to right (an occurrence
/// whose first symbol ends the one before is not one), telling `placed` where each new
/// symbol went. Returns the new length.
///
/// A block's occurrences are found first, each position on its own and with no branch (a
/// branch per symbol was mispredicted at most first symbols of a pair), then the
/// overlapping ones are dropped and the symbols between moved down: positions not yet
/// read are never written, as the chunk only shrinks.
#[inline]
fn rewrite<S: Symbol>(chunk: &mut [S], chosen: &Chosen<S>, mut placed: impl FnMut(usize)) -> usize {
    let n = chunk.len();
    let (mut read, mut write) = (0, 0);
    let mut found = [0u32; REWRITE_BLOCK];
    let mut start = 0;
    while start + 1 < n {
        let end = (start + REWRITE_BLOCK).min(n - 1);
        let mut k = 0;
        for i in start..end {
            found[k] = i as u32;
            let second = chosen.second[chunk[i].get()];
            k += usize::from(second == chunk[i + 1].get() as u32);
        }
        for &i in &found[..k] {
            let i = i as usize;
            if i < read {
                continue;
            }
            // Element by element, not `copy_within`: in the early rounds the symbols
            // between occurrences are a few, and a call per stretch made KQRvKR's writing
            // layers 1.08x slower.
            for j in read..i {
                chunk[write] = chunk[j];
                write += 1;
            }
            chunk[write] = chosen.new[chunk[i].get()];
            placed(write);
            write += 1;
            read = i + 2;
        }
        start = end;
    }
    for j in read..n {
        chunk[write] = chunk[j];
        write += 1;
    }
    write
}

/// A pair's key in `Tracked::counts`.
#[inline]
fn key(a: usize, b: usize) -> u32 {
    (a << 16 | b) as u32
}

/// A round keeps its counts (`Tracked`) only where it replaced fewer than one symbol in
/// this many: beyond, counting every pair again costs less than the windows.
const TRACK_BELOW: usize = 16;

/// The pairs of a sequence of one chunk that occur `min_count` times or more, with their
/// counts, kept from round to round from what each round's replacements changed around
/// them: counting every pair again took most of a round's time, where a round of the
/// late, wide rounds replaces one symbol in a hundred.
///
/// A round changes counts only in windows around its new symbols, each from the start of
/// the run before a new symbol to the end of the run after one (merged where they touch):
/// a window's ends are ends of runs before and after, so the pairs `for_each_pair` counts
/// outside the windows stay as they were. No pair of old symbols gains by a round (its
/// symbols meet only where they met, and runs only shorten), so a pair below `min_count`
/// is never needed again, and a pair with a new symbol is counted whole by the windows.
struct Tracked {
    counts: KeyedMap<u32, u32>,
    /// A window as it was before the round.
    before: Vec<u16>,
}

impl Tracked {
    fn new(candidates: &[(u32, u16, u16)]) -> Tracked {
        Tracked {
            counts: (candidates.iter())
                .map(|&(c, a, b)| (key(a.into(), b.into()), c))
                .collect(),
            before: Vec::new(),
        }
    }

    /// The pairs counted, as `count_pairs` gives them (in no set order).
    fn candidates(&self) -> Vec<(u32, u16, u16)> {
        (self.counts.iter())
            .map(|(&k, &c)| (c, (k >> 16) as u16, k as u16))
            .collect()
    }

    /// Brings the counts to `seq` after a round that placed its new symbols (`first_new`
    /// and above, standing for their pairs in `g`) at `placed`, in order.
    fn rewritten<S: Symbol>(
        &mut self,
        seq: &[S],
        placed: &[usize],
        first_new: usize,
        g: &Grammar,
        min_count: u32,
    ) {
        let Tracked { counts, before } = self;
        let n = seq.len();
        let is_new = |s: S| s.get() >= first_new;
        let mut add = |a: usize, b: usize, d: i64| {
            let k = key(a, b);
            match counts.get_mut(&k) {
                // The window's pairs before the round are among the sequence's: no count
                // goes below zero.
                Some(c) => *c = (i64::from(*c) + d) as u32,
                None if a >= first_new || b >= first_new => {
                    counts.insert(k, d as u32);
                }
                None => {}
            }
        };
        let mut k = 0;
        while k < placed.len() {
            let w = placed[k];
            k += 1;
            // Where the window starts: the run before its first new symbol (an old one:
            // a new one would have joined the window before).
            let first = match w.checked_sub(1) {
                None => 0,
                Some(prev) => {
                    let c = seq[prev];
                    let mut p = prev;
                    while p > 0 && seq[p - 1] == c {
                        p -= 1;
                    }
                    p
                }
            };
            // Where it ends: the run after its last new symbol, new symbols and the runs
            // between them taken in.
            let mut last = w;
            while last + 1 < n {
                let next = last + 1;
                if is_new(seq[next]) {
                    debug_assert_eq!(placed.get(k), Some(&next));
                    k += 1;
                    last = next;
                    continue;
                }
                let c = seq[next];
                last = next;
                while last + 1 < n && seq[last + 1] == c {
                    last += 1;
                }
                if placed.get(k) != Some(&(last + 1)) {
                    break;
                }
            }
            let window = &seq[first..=last];
            for_each_pair(window, |a, b, c| add(a, b, i64::from(c)));
            before.clear();
            for &s in window {
                match is_new(s) {
                    true => before.extend(g.pairs[s.get() - g.leaves as usize]),
                    false => before.push(s.get() as u16),
                }
            }
            for_each_pair(before, |a, b, c| add(a, b, -i64::from(c)));
        }
        counts.retain(|_, c| *c >= min_count);
    }
}

/// Builds a grammar for `seq` (symbols below `leaves`) and rewrites `seq` into it, as
/// 16-bit symbols. Byte sequences are rewritten in place until the alphabet outgrows a
/// byte, and widened then, when the rounds have shortened them.
pub(super) fn build<S: Symbol>(
    seq: Vec<S>,
    leaves: u16,
    opts: &PairOptions,
) -> (Grammar, Vec<u16>) {
    build_counting(seq, leaves, opts, true)
}

/// `build`, the counts kept from round to round (`Tracked`) where `track`.
fn build_counting<S: Symbol>(
    mut seq: Vec<S>,
    leaves: u16,
    opts: &PairOptions,
    track: bool,
) -> (Grammar, Vec<u16>) {
    let mut rounds = Rounds::new(leaves, track);
    let max_symbols = opts.max_symbols.min(1 << 16);
    rounds.run(&mut seq, opts, max_symbols.min(S::LIMIT));
    let mut seq = S::widen(seq);
    rounds.run(&mut seq, opts, max_symbols);
    (rounds.g, seq)
}

/// What the rounds of `build` carry from one to the next.
struct Rounds {
    g: Grammar,
    /// How many values each symbol expands to (`Grammar::lengths`, kept as symbols come).
    lengths: Vec<u64>,
    /// What `count_pairs` counts in.
    memory: Counting,
    /// Whether counts are kept from round to round.
    track: bool,
    /// The counts kept, once the sequence is one chunk.
    tracked: Option<Tracked>,
}

impl Rounds {
    fn new(leaves: u16, track: bool) -> Rounds {
        Rounds {
            g: Grammar {
                leaves,
                pairs: Vec::new(),
            },
            lengths: vec![1; leaves as usize],
            memory: Counting::default(),
            track,
            tracked: None,
        }
    }

    /// Runs rounds over `seq` until one replaces nothing or the grammar holds
    /// `max_symbols`.
    fn run<S: Symbol>(&mut self, seq: &mut Vec<S>, opts: &PairOptions, max_symbols: usize) {
        while self.round(seq, opts, max_symbols) {}
    }

    /// Replaces the most frequent pairs of `seq` by new symbols, keeping the grammar
    /// within `max_symbols`; false when nothing was replaced.
    fn round<S: Symbol>(
        &mut self,
        seq: &mut Vec<S>,
        opts: &PairOptions,
        max_symbols: usize,
    ) -> bool {
        let Rounds {
            g,
            lengths,
            memory,
            track,
            tracked,
        } = self;
        if g.symbols() >= max_symbols || seq.len() < 2 {
            return false;
        }
        let alphabet = g.symbols();
        let one_chunk = *track && seq.len() <= CHUNK;
        let mut candidates = match tracked {
            Some(t) => t.candidates(),
            None => {
                let counted = count_pairs(seq, alphabet, opts.min_count, memory);
                if one_chunk {
                    *tracked = Some(Tracked::new(&counted));
                }
                counted
            }
        };
        if candidates.is_empty() {
            return false;
        }
        // A round that begins with the alphabet beyond a byte takes `wide_spread`.
        let spread = if alphabet >= u8::LIMIT {
            opts.wide_spread
        } else {
            opts.spread
        };
        let most = candidates.iter().map(|c| c.0).max().unwrap_or(0);
        let floor = (most / spread.max(1)).max(opts.min_count);
        // Only the pairs at the floor or above can be taken: those alone are sorted.
        candidates.retain(|c| c.0 >= floor);
        candidates.sort_unstable_by(|x, y| y.0.cmp(&x.0).then((x.1, x.2).cmp(&(y.1, y.2))));
        let mut used = vec![false; alphabet];
        let mut chosen = Chosen::new(alphabet);
        let mut added = 0;
        for &(_, a, b) in &candidates {
            if added == opts.per_round || g.symbols() >= max_symbols {
                break;
            }
            let len = lengths[a as usize] + lengths[b as usize];
            if used[a as usize] || used[b as usize] || len > opts.max_len {
                continue;
            }
            used[a as usize] = true;
            used[b as usize] = true;
            let new = g.symbols();
            chosen.add(a as usize, S::from_usize(b as usize), S::from_usize(new));
            g.pairs.push([a, b]);
            lengths.push(len);
            added += 1;
        }
        if added == 0 {
            return false;
        }
        match tracked {
            Some(t) => {
                let mut placed = Vec::new();
                let n = rewrite(seq, &chosen, |w| placed.push(w));
                seq.truncate(n);
                if placed.len() * TRACK_BELOW <= n {
                    t.rewritten(seq, &placed, alphabet, g, opts.min_count);
                } else {
                    *tracked = None;
                }
            }
            None => {
                let n = replace(seq, &chosen);
                seq.truncate(n);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    fn expand_all(g: &Grammar, seq: &[u16]) -> Vec<u16> {
        let mut out = Vec::new();
        for &s in seq {
            g.expand(s, &mut out);
        }
        out
    }

    /// Values of very different frequencies (the k-th about 1/k^2 of the time), in runs:
    /// pairs of many counts, and many symbols.
    fn skewed_runs(n: usize) -> Vec<u16> {
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let x = next();
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            let v = ((1.0 / (1.0 - u * 0.97)).floor() as u16 - 1).min(31);
            out.extend(std::iter::repeat_n(v, 1 + (x & 3) as usize));
        }
        out.truncate(n);
        out
    }

    /// Runs, a few short patterns and noise over 5 values.
    fn mixed(n: u32) -> Vec<u16> {
        (0..n)
            .map(|i| match i % 1000 {
                0..=700 => 0,
                701..=900 => (i / 7 % 3) as u16,
                _ => (i.wrapping_mul(2_654_435_761) >> 29) as u16 % 5,
            })
            .collect()
    }

    #[test]
    fn count_groups_hold_fewer_pairs_than_a_u32_counts() {
        for len in [0, 1, CHUNK, 3 * CHUNK + 5, 5_300_000_000, 10_737_418_240] {
            for threads in [1, 2, 64] {
                let per = group_len(len, threads);
                assert!(per >= CHUNK && per % CHUNK == 0, "{len} {threads}: {per}");
                assert!(per <= GROUP_LIMIT, "{len} {threads}: {per}");
                assert!(len.div_ceil(per) <= threads.max(len.div_ceil(GROUP_LIMIT)));
            }
        }
    }

    /// The pairs `for_each_pair` reports, one at a time, by the rule it implements.
    fn pairs_one_by_one(chunk: &[u16]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i + 1 < chunk.len() {
            let (a, b) = (chunk[i], chunk[i + 1]);
            out.push((a as usize, b as usize));
            // Inside a run, the next pair starts after this one; else it overlaps.
            i += if a == b && chunk.get(i + 2) == Some(&a) {
                2
            } else {
                1
            };
        }
        out
    }

    #[test]
    fn runs_report_their_pairs_at_once_as_one_by_one() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
        for len in [0, 1, 2, 3, 4, 5, 17, 1000] {
            for values in [1, 2, 3] {
                let chunk: Vec<u16> = (0..len).map(|_| (next() % values) as u16).collect();
                let mut told = Vec::new();
                for_each_pair(&chunk, |a, b, k| {
                    told.extend(std::iter::repeat_n((a, b), k as usize))
                });
                assert_eq!(told, pairs_one_by_one(&chunk), "{chunk:?}");
            }
        }
    }

    /// `count_pairs` by a map, one pair at a time.
    fn counted_by_map(seq: &[u16], min_count: u32) -> Vec<(u32, u16, u16)> {
        let mut map = std::collections::BTreeMap::new();
        for chunk in seq.chunks(CHUNK) {
            for (a, b) in pairs_one_by_one(chunk) {
                *map.entry((a as u16, b as u16)).or_insert(0u32) += 1;
            }
        }
        map.into_iter()
            .filter(|&(_, c)| c >= min_count)
            .map(|((a, b), c)| (c, a, b))
            .collect()
    }

    #[test]
    fn dense_counts_summed_over_groups_and_rounds_match_a_map() {
        // Three threads cut 3.5 chunks into groups of two chunks; the tables, kept from
        // call to call, serve a smaller alphabet after a larger one.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let mut memory = Counting::default();
        for alphabet in [40u16, 7, 300] {
            let seq: Vec<u16> = mixed(7 * CHUNK as u32 / 2)
                .iter()
                .enumerate()
                .map(|(i, &v)| (v + (i as u16 % 3)) % alphabet)
                .collect();
            let mut counted = pool.install(|| count_pairs(&seq, alphabet as usize, 8, &mut memory));
            counted.sort_by_key(|&(_, a, b)| (a, b));
            assert_eq!(counted, counted_by_map(&seq, 8), "alphabet {alphabet}");
            assert_eq!(memory.tables.len(), 2);
        }
    }

    #[test]
    fn sparse_counts_match_a_map() {
        // Alphabets of one bucket and of many, a sequence of one chunk and of several
        // (pairs across chunk ends are not counted), and long runs; the keys kept from call
        // to call, a shorter sequence's after a longer one's.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let mut keys = Vec::new();
        for (alphabet, len) in [(3000u16, 5 * CHUNK as u32 / 2), (2, 100), (40, 5000)] {
            let seq: Vec<u16> = mixed(len)
                .iter()
                .enumerate()
                .map(|(i, &v)| (v * 7 + (i as u16 % 5) * (i as u16 % 11)) % alphabet)
                .collect();
            for min_count in [1, 8] {
                let mut counted =
                    pool.install(|| count_sparse(&seq, alphabet as usize, min_count, &mut keys));
                counted.sort_by_key(|&(_, a, b)| (a, b));
                let expected = counted_by_map(&seq, min_count);
                assert!(!expected.is_empty());
                assert_eq!(counted, expected, "alphabet {alphabet}, min {min_count}");
            }
        }
    }

    #[test]
    fn widening_keeps_every_symbol_across_slices() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 37 % 251) as u8).collect();
        let expected: Vec<u16> = bytes.iter().map(|&b| u16::from(b)).collect();
        for slice in [1, 7, 999, 1000, 4096] {
            assert_eq!(widen_by(bytes.clone(), slice), expected, "slice {slice}");
        }
        assert!(widen_by(Vec::new(), 7).is_empty());
    }

    #[test]
    fn runs_and_patterns_round_trip() {
        let input = mixed(300_000);
        let (g, seq) = build(input.clone(), 5, &PairOptions::default());
        assert!(seq.len() < input.len() / 10, "{} symbols left", seq.len());
        assert_eq!(expand_all(&g, &seq), input);
        let lengths = g.lengths();
        let total: u64 = seq.iter().map(|&s| lengths[s as usize]).sum();
        assert_eq!(total, input.len() as u64);
    }

    #[test]
    fn byte_sequences_widen_when_the_alphabet_outgrows_a_byte() {
        let input = mixed(300_000);
        let bytes: Vec<u8> = input.iter().map(|&v| v as u8).collect();
        // Within a byte's alphabet, bytes and 16-bit symbols give the same grammar.
        let small = PairOptions {
            max_symbols: 200,
            ..PairOptions::default()
        };
        assert_eq!(
            build(bytes.clone(), 5, &small),
            build(input.clone(), 5, &small)
        );
        // Beyond it (noise needs many symbols), the byte sequence is widened and goes on
        // to the same budget.
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
        let input: Vec<u16> = (0..300_000).map(|_| (next() >> 40) as u16 % 4).collect();
        let bytes: Vec<u8> = input.iter().map(|&v| v as u8).collect();
        let (g, seq) = build(bytes, 4, &PairOptions::default());
        assert!(g.symbols() > 256, "{} symbols", g.symbols());
        assert_eq!(expand_all(&g, &seq), input);
    }

    /// The byte rounds replace pairs by `spread`, the rounds after them by `wide_spread`.
    #[test]
    fn wide_rounds_take_their_own_spread() {
        let input = skewed_runs(400_000);
        let by = |spread: u32, wide_spread: u32| {
            let opts = PairOptions {
                spread,
                wide_spread,
                ..PairOptions::default()
            };
            let (g, seq) = build(input.clone(), 32, &opts);
            assert_eq!(expand_all(&g, &seq), input);
            g
        };
        let (narrow, wide) = (by(4, 4), by(4, 16));
        let bytes = 256 - 32;
        assert!(narrow.symbols() > 256 && wide.symbols() > 256);
        assert!(narrow.pairs[..bytes] == wide.pairs[..bytes]);
        assert!(narrow.pairs != wide.pairs);
        assert!(by(16, 4).pairs[..bytes] != narrow.pairs[..bytes]);
    }

    /// Inputs of every kind the rounds meet: runs, patterns, noise, skewed values.
    fn varied() -> Vec<(Vec<u16>, u16)> {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
        let noise: Vec<u16> = (0..200_000).map(|_| (next() >> 40) as u16 % 4).collect();
        let runs: Vec<u16> = (0..200_000u32).map(|i| (i / 5000 % 3) as u16).collect();
        vec![
            (mixed(300_000), 5),
            (skewed_runs(300_000), 32),
            (noise, 4),
            (runs, 3),
        ]
    }

    #[test]
    fn kept_counts_equal_a_recount_round_by_round() {
        // Rounds that replace many symbols (long runs halving) count again instead.
        let (mut kept, mut all) = (0, 0);
        for (input, leaves) in varied() {
            let opts = PairOptions::default();
            let mut rounds = Rounds::new(leaves, true);
            let mut seq = input.clone();
            while rounds.round(&mut seq, &opts, opts.max_symbols) {
                all += 1;
                if let Some(t) = &rounds.tracked {
                    kept += 1;
                    let mut counted = t.candidates();
                    counted.sort_by_key(|&(_, a, b)| (a, b));
                    let expected = counted_by_map(&seq, opts.min_count);
                    assert_eq!(counted, expected, "round {all}");
                }
            }
            assert_eq!(expand_all(&rounds.g, &seq), input);
        }
        assert!(kept * 2 > all, "{kept} of {all} rounds kept their counts");
    }

    #[test]
    fn kept_counts_build_the_grammar_a_recount_builds() {
        let mut inputs = varied();
        // Longer than a chunk: counted whole until it shrinks to one.
        inputs.push((mixed(3 * CHUNK as u32 / 2), 5));
        for (input, leaves) in inputs {
            let opts = PairOptions::default();
            let bytes: Vec<u8> = input.iter().map(|&v| v as u8).collect();
            let kept = build_counting(bytes.clone(), leaves, &opts, true);
            assert_eq!(kept, build_counting(bytes, leaves, &opts, false));
            assert_eq!(expand_all(&kept.0, &kept.1), input);
            let kept = build_counting(input.clone(), leaves, &opts, true);
            assert_eq!(kept, build_counting(input.clone(), leaves, &opts, false));
        }
    }

    /// Every chosen pair replaced by one pass left to right, a symbol at a time.
    fn replaced_one_by_one(seq: &[u16], pairs: &[(u16, u16, u16)]) -> Vec<u16> {
        let mut out = Vec::new();
        let mut r = 0;
        while r < seq.len() {
            let pair = pairs.iter().find(|p| p.0 == seq[r]);
            match pair {
                Some(&(_, b, new)) if seq.get(r + 1) == Some(&b) => {
                    out.push(new);
                    r += 2;
                }
                _ => {
                    out.push(seq[r]);
                    r += 1;
                }
            }
        }
        out
    }

    #[test]
    fn rewrite_replaces_as_one_pass_left_to_right() {
        // Runs of a pair of equal symbols overlap; occurrences across the blocks' ends.
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        let pairs = [(0u16, 0u16, 5u16), (1, 2, 6), (2, 1, 7), (3, 0, 8)];
        let mut chosen = Chosen::new(9);
        for &(a, b, new) in &pairs {
            chosen.add(a.into(), b, new);
        }
        for len in [
            0,
            1,
            2,
            3,
            REWRITE_BLOCK - 1,
            REWRITE_BLOCK + 1,
            5 * REWRITE_BLOCK + 7,
        ] {
            for values in [1, 3, 5] {
                let seq: Vec<u16> = (0..len).map(|_| (next() % values) as u16).collect();
                let expected = replaced_one_by_one(&seq, &pairs);
                let mut chunk = seq.clone();
                let mut placed = Vec::new();
                let n = rewrite(&mut chunk, &chosen, |w| placed.push(w));
                assert_eq!(chunk[..n], expected[..], "{len} {values}");
                let new: Vec<usize> = (0..n).filter(|&w| chunk[w] >= 5).collect();
                assert_eq!(placed, new);
            }
        }
    }

    #[test]
    fn respects_limits() {
        let input: Vec<u16> = (0..100_000u32).map(|i| (i % 2) as u16).collect();
        let opts = PairOptions {
            max_symbols: 10,
            max_len: 16,
            ..PairOptions::default()
        };
        let (g, seq) = build(input.clone(), 2, &opts);
        assert!(g.symbols() <= 10);
        assert!(g.lengths().iter().all(|&l| l <= 16));
        assert_eq!(expand_all(&g, &seq), input);
    }

    #[test]
    fn tiny_inputs() {
        for input in [vec![], vec![3u16], vec![1, 1]] {
            let (g, seq) = build(input.clone(), 4, &PairOptions::default());
            assert_eq!(expand_all(&g, &seq), input);
        }
    }
}
