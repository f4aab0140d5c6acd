//! The book graph: the positions a book reaches from the start position by its moves, found
//! by walking forward through the book (`walk`), transpositions merged (one node per key).
//! Back-ups solve it; the off-line analysis asks an engine about the positions it reaches.

use super::error::BookError;
use super::reader::Book;
use super::rules::{BookRules, Xiangqi};
use crate::game::Game;
use crate::progress::Observer;
use crate::xiangqi;

/// Sorted keys with a table of where each run of leading bits begins: a key's number in one
/// or two probes, at about 12 bytes per key (a hash map takes more).
struct KeyIndex {
    keys: Vec<u64>,
    shift: u32,
    buckets: Vec<u32>,
}

impl KeyIndex {
    fn new(keys: Vec<u64>) -> KeyIndex {
        let bits = (usize::BITS - keys.len().leading_zeros()).clamp(1, 32);
        let shift = 64 - bits;
        let mut buckets = Vec::with_capacity((1 << bits) + 1);
        let mut i = 0;
        for b in 0..=(1u64 << bits) {
            while i < keys.len() && keys[i] >> shift < b {
                i += 1;
            }
            buckets.push(i as u32);
        }
        KeyIndex {
            keys,
            shift,
            buckets,
        }
    }

    /// The number of `key` (its rank among the keys), if present.
    fn find(&self, key: u64) -> Option<u32> {
        let b = (key >> self.shift) as usize;
        let (lo, hi) = (self.buckets[b] as usize, self.buckets[b + 1] as usize);
        self.keys[lo..hi]
            .binary_search(&key)
            .ok()
            .map(|i| (lo + i) as u32)
    }
}

/// `child` of an entry that is no edge: a position entry, or a move that does not decode.
pub(super) const NO_EDGE: u32 = u32::MAX;
/// `child` of a move to a position without its own entry (before leaves are numbered).
const LEAF: u32 = u32::MAX - 1;

/// The book graph: positions (numbered by key order among the positions with their own
/// entry), then one leaf per move to a position outside the book.
pub(super) struct BookGraph {
    /// First entry (the own entry) of each position.
    pub(super) first: Vec<u32>,
    /// Side to move of each position is white.
    pub(super) white: Vec<bool>,
    /// Reached from the start position.
    pub(super) reached: Vec<bool>,
    /// In a xiangqi book, for every reached position but the start, the entry of the move it
    /// was first reached by: the walk's tree, along which a position is set up again.
    pub(super) parent: Vec<u32>,
    /// For every entry: the node its move leads to, or `NO_EDGE`.
    pub(super) child: Vec<u32>,
    /// Number of leaves numbered after the positions.
    pub(super) leaves: u32,
    /// The start position, if the book has it.
    pub(super) start: Option<usize>,
}

/// Walks the book from the start position (depth first, in the book's move order), noting
/// where every move with at least `min_games` games leads; `reach` is shown each position
/// when it is first reached, with its key and its own entry's number in the book.
pub(super) fn walk<R: BookRules>(
    book: &Book,
    min_games: u32,
    progress: &dyn Observer,
    reach: &mut impl FnMut(&R::Position, u64, usize),
) -> Result<BookGraph, BookError> {
    let n = book.len();
    if n >= LEAF as usize {
        return Err(BookError::TooLarge {
            path: book.path().to_path_buf(),
            entries: n as u64,
        });
    }
    // Keys and own entries of the positions, and the move codes of their entries in a dense
    // copy (0 for entries of keys without an own entry): the walk reads them in random order.
    let (mut keys, mut first, mut codes) = (Vec::new(), Vec::new(), Vec::with_capacity(n));
    for (i, e) in book.iter().enumerate() {
        if e.mv == 0 && keys.last() != Some(&e.key) {
            keys.push(e.key);
            first.push(i as u32);
        }
        let edge = keys.last() == Some(&e.key) && e.games >= min_games;
        codes.push(if edge { e.mv } else { 0 });
    }
    let positions = keys.len();
    let index = KeyIndex::new(keys);
    let mut g = BookGraph {
        first,
        white: vec![false; positions],
        reached: vec![false; positions],
        // Only a xiangqi book's loops are set up again (chess books spare the memory).
        parent: vec![
            NO_EDGE;
            if R::GAME == Game::Xiangqi {
                positions
            } else {
                0
            }
        ],
        child: vec![NO_EDGE; n],
        leaves: 0,
        start: None,
    };
    progress.pass("walk", positions as u64);
    let start = R::start();
    let mut stack: Vec<(R::Position, u32)> = Vec::new();
    let key = R::key(&start);
    if let Some(p) = index.find(key) {
        g.start = Some(p as usize);
        g.reached[p as usize] = true;
        g.white[p as usize] = R::first_to_move(&start);
        reach(&start, key, g.first[p as usize] as usize);
        stack.push((start, p));
    }
    let mut done = 0u64;
    while let Some((pos, p)) = stack.pop() {
        let p = p as usize;
        let (start, end) = (
            g.first[p] as usize + 1,
            g.first.get(p + 1).map_or(n, |&f| f as usize),
        );
        for (i, &code) in (start..end).zip(&codes[start..end]) {
            // (code 0, a1a1, never decodes)
            let Some(m) = R::decode(&pos, code) else {
                continue;
            };
            let next = R::play(&pos, &m);
            let key = R::key(&next);
            g.child[i] = match index.find(key) {
                None => LEAF,
                Some(c) => {
                    if !g.reached[c as usize] {
                        g.reached[c as usize] = true;
                        if let Some(parent) = g.parent.get_mut(c as usize) {
                            *parent = i as u32;
                        }
                        g.white[c as usize] = R::first_to_move(&next);
                        reach(&next, key, g.first[c as usize] as usize);
                        stack.push((next, c));
                    }
                    c
                }
            };
        }
        done += 1;
        if done % 4096 == 0 {
            progress.advance(4096);
        }
    }
    progress.advance(done % 4096);
    // Leaves after the positions, in entry order.
    let mut next_leaf = positions as u32;
    for c in g.child.iter_mut().filter(|c| **c == LEAF) {
        *c = next_leaf;
        next_leaf += 1;
    }
    g.leaves = next_leaf - positions as u32;
    Ok(g)
}

impl BookGraph {
    /// The position whose own entry is entry `e`, or whose move it is.
    pub(super) fn owner(&self, e: usize) -> usize {
        self.first.partition_point(|&f| f as usize <= e) - 1
    }

    /// The entry of position `p`'s move to position `c`.
    pub(super) fn move_to(&self, p: usize, c: usize, entries: usize) -> usize {
        let end = self.first.get(p + 1).map_or(entries, |&f| f as usize);
        (self.first[p] as usize + 1..end)
            .find(|&i| self.child[i] as usize == c)
            .expect("a loop's moves are edges of the book graph")
    }
}

/// Reached position `p` of a xiangqi book, set up again by playing the walk's moves to it.
pub(super) fn xiangqi_position(book: &Book, g: &BookGraph, p: usize) -> xiangqi::Position {
    let mut line = Vec::new();
    let mut at = p;
    while g.parent[at] != NO_EDGE {
        let e = g.parent[at] as usize;
        line.push(e);
        at = g.owner(e);
    }
    line.iter().rev().fold(Xiangqi::start(), |pos, &e| {
        let m = Xiangqi::decode(&pos, book.entry(e).mv).expect("the walk played it");
        pos.play(&m)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_index_finds_exactly_the_keys_it_holds() {
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        let mut keys: Vec<u64> = (0..5000).map(|_| next()).collect();
        keys.extend([0, 1, u64::MAX, u64::MAX - 1]);
        keys.sort_unstable();
        keys.dedup();
        let index = KeyIndex::new(keys.clone());
        for (i, &k) in keys.iter().enumerate() {
            assert_eq!(index.find(k), Some(i as u32));
            if !keys.contains(&k.wrapping_add(2)) {
                assert_eq!(index.find(k.wrapping_add(2)), None);
            }
        }
        for small in [vec![], vec![7]] {
            let index = KeyIndex::new(small.clone());
            assert_eq!(index.find(7), small.first().map(|_| 0));
            assert_eq!(index.find(8), None);
        }
    }
}
