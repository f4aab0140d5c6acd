//! The book file: fixed-size entries sorted by (position key, move), memory-mapped and
//! binary-searched. All integers little-endian.
//!
//! ```text
//! offset  size  field
//!      0     8  magic b"RBBOOK\x1a\0"
//!      8     4  format version (2; 1 before the sources section, read as well)
//!     12     4  entry size (32)
//!     16     8  number of entries
//!     24     8  games used to build the book
//!     32     4  --max-ply the book was built with
//!     36     4  --min-games the book was built with
//!     40     4  CRC-32 of all entries
//!     44     4  flags: bit 0 = the entries carry back-up values (`book backup`); others 0
//!     48     4  game: 0 chess, 1 xiangqi (books before xiangqi have 0 here)
//!     52     8  reserved, zero
//!     60     4  CRC-32 of bytes 0..60
//!     64        entries, 32 bytes each:
//!
//!               offset size field
//!                    0    8 key: of the position (chess: Polyglot's; xiangqi: ours, in
//!                           `xiangqi::position_key`)
//!                    8    2 move: chess: Polyglot's encoding; xiangqi: origin square
//!                           + 128 * destination (squares 0-89); 0 = the position itself
//!                   10    2 back-up: 0 = none; else bit 15 set, bit 14 = path-dependent,
//!                           bits 0..10 = value in per-mille (0..=1000), bits 10..14 zero
//!                   12    4 games
//!                   16    4 win  } side to move's view
//!                   20    4 draw }
//!                   24    4 loss }
//!                   28    4 repeats
//!
//!         then (version 2) the sources: the archives whose games the book counts
//!          4  number of sources
//!             per source:
//!                    0    8 bytes of the archive (as read: compressed for `.zst`)
//!                    8    4 CRC-32 of those bytes
//!                   12    4 share: this part of the games ...
//!                   16    4        ... of so many parts (1: every game)
//!          4  CRC-32 of the sources section before this field
//!             (sources sorted, shares that make up a whole archive written as the whole:
//!             the same games give the same bytes, however the book was built or merged)
//! ```
//! The sources let `book merge` refuse books that count the same games twice (the same
//! book, or books built from the same archive), while it merges shares of one archive.
//!
//! A position's own entry (move 0) counts the games that reached it; each move entry counts
//! the games that played that move there. A game counts once per position and per move even
//! when the position recurs in it.
//!
//! `repeats` of a move entry: the games that played the move into a repetition of a position
//! already seen in that game; of a position entry: the games through the position that ended
//! by threefold repetition.
//!
//! The back-up (written by `book backup`, zero in a freshly built or merged book, so older
//! books read the same with the same format version) is the value of the book graph by
//! negamax with repetitions scored as draws: in a position entry the position's value for
//! the side to move, in a move entry the value of the position after the move for the side
//! that played it (for a move to a position without its own entry, the move's own score).
//! Path-dependent: some path in the book graph reaching the position (for a move entry: the
//! position after the move), taken as history, changes the value. Details in `backup.rs`.

use crate::field;
use crate::game::Game;

/// Identifies a retrobook book file.
pub(crate) const BOOK_MAGIC: [u8; 8] = *b"RBBOOK\x1a\0";
/// The book format version this code writes (it reads 1 too).
pub(crate) const BOOK_VERSION: u32 = 2;
/// The oldest book format version this code reads: without sources.
pub(crate) const OLDEST_BOOK_VERSION: u32 = 1;
/// Bytes of the header, before the entries.
pub(crate) const HEADER: usize = 64;
/// Header flag: the entries carry back-up values.
pub(crate) const FLAG_BACKED_UP: u32 = 1;
/// Bytes per entry.
pub(crate) const ENTRY_LEN: usize = 32;

/// One entry: statistics of a position (`mv == 0`) or of one move played from it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// Polyglot key of the position.
    pub key: u64,
    /// Polyglot move, or 0 for the position's own entry.
    pub mv: u16,
    /// Games counted.
    pub games: u32,
    /// Of those, won by the side to move.
    pub win: u32,
    /// Drawn.
    pub draw: u32,
    /// Lost by the side to move.
    pub loss: u32,
    /// Of a move entry: games that played the move into a repetition of a position already
    /// seen in that game. Of a position entry: games through the position that ended by
    /// threefold repetition.
    pub repeats: u32,
    /// The back-up value (`book backup`), if the book has one for this entry.
    pub backup: Option<Backup>,
}

/// A value backed up through the book graph (`book backup`), stored in an entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Backup {
    /// Score in per-mille (0..=1000, wins plus half the draws): in a position entry for the
    /// side to move, in a move entry for the side that plays the move.
    pub value_permille: u16,
    /// True when some path in the book graph reaching the position valued (for a move entry,
    /// the position after the move), taken as history, changes the value. Conservative for
    /// games from the start position: such a path need not start there.
    pub path_dependent: bool,
}

impl Backup {
    const PRESENT: u16 = 1 << 15;
    const PATH_DEPENDENT: u16 = 1 << 14;
    const VALUE: u16 = (1 << 10) - 1;

    /// The value as a fraction, 0.0 to 1.0.
    pub fn value(&self) -> f64 {
        f64::from(self.value_permille) / 1000.0
    }

    /// The two bytes' value in an entry: 0 for none.
    pub fn encode(b: Option<Backup>) -> u16 {
        b.map_or(0, |b| {
            Backup::PRESENT
                | if b.path_dependent {
                    Backup::PATH_DEPENDENT
                } else {
                    0
                }
                | b.value_permille.min(1000)
        })
    }

    /// The back-up the two bytes hold; None for 0 or a value beyond 1000.
    pub fn decode(bits: u16) -> Option<Backup> {
        let value_permille = bits & Backup::VALUE;
        (bits & Backup::PRESENT != 0 && value_permille <= 1000).then_some(Backup {
            value_permille,
            path_dependent: bits & Backup::PATH_DEPENDENT != 0,
        })
    }
}

impl Entry {
    /// Adds `o`'s counts (same key and move); the sum has no back-up value (its counts are
    /// not those the value was backed up from).
    pub fn add(&mut self, o: &Entry) {
        self.games += o.games;
        self.win += o.win;
        self.draw += o.draw;
        self.loss += o.loss;
        self.repeats += o.repeats;
        self.backup = None;
    }

    /// The 32 bytes of the entry.
    pub fn to_bytes(&self) -> [u8; ENTRY_LEN] {
        let mut b = [0u8; ENTRY_LEN];
        field::put(&mut b, 0, self.key);
        field::put(&mut b, 8, self.mv);
        field::put(&mut b, 10, Backup::encode(self.backup));
        for (i, v) in [self.games, self.win, self.draw, self.loss, self.repeats]
            .into_iter()
            .enumerate()
        {
            field::put(&mut b, 12 + 4 * i, v);
        }
        b
    }

    /// An entry from its 32 bytes.
    pub fn from_bytes(b: &[u8]) -> Entry {
        let u32_at = |at| field::get::<u32>(b, at);
        Entry {
            key: field::get(b, 0),
            mv: field::get(b, 8),
            games: u32_at(12),
            win: u32_at(16),
            draw: u32_at(20),
            loss: u32_at(24),
            repeats: u32_at(28),
            backup: Backup::decode(field::get(b, 10)),
        }
    }
}

/// Bytes of a source in the sources section.
const SOURCE_LEN: usize = 20;

/// An archive whose games a book counts (all of them, or one share of a split build),
/// known by its length and checksum, whatever its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// Bytes of the archive as read (compressed for `.zst`).
    pub bytes: u64,
    /// CRC-32 of those bytes.
    pub crc: u32,
    /// The share of its games counted: part `part` of `parts` (`parts` 1: every game).
    pub part: u32,
    /// How many parts the games were shared into.
    pub parts: u32,
}

impl Source {
    /// Whether the two count some game of one archive twice: the same archive, and the
    /// same share of it or shares cut another way.
    pub fn overlaps(&self, o: &Source) -> bool {
        self.bytes == o.bytes && self.crc == o.crc && (self.parts != o.parts || self.part == o.part)
    }

    /// `sources` in the one order the file keeps, every archive all of whose shares are
    /// there as one whole source.
    pub(crate) fn normalized(mut sources: Vec<Source>) -> Vec<Source> {
        sources.sort_by_key(|s| (s.bytes, s.crc, s.parts, s.part));
        sources.dedup();
        let mut out: Vec<Source> = Vec::with_capacity(sources.len());
        let mut i = 0;
        while i < sources.len() {
            let s = &sources[i];
            let n = s.parts as usize;
            let whole = n > 1
                && sources.get(i..i + n).is_some_and(|run| {
                    run.iter().enumerate().all(|(k, t)| {
                        (t.bytes, t.crc, t.parts, t.part as usize) == (s.bytes, s.crc, s.parts, k)
                    })
                });
            if whole {
                out.push(Source {
                    part: 0,
                    parts: 1,
                    ..s.clone()
                });
                i += n;
            } else {
                out.push(s.clone());
                i += 1;
            }
        }
        if out.len() < sources.len() {
            return Source::normalized(out);
        }
        out
    }

    /// The sources section's bytes for `sources` (its checksum last).
    pub(crate) fn section(sources: &[Source]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&(sources.len() as u32).to_le_bytes());
        for s in sources {
            b.extend_from_slice(&s.bytes.to_le_bytes());
            b.extend_from_slice(&s.crc.to_le_bytes());
            b.extend_from_slice(&s.part.to_le_bytes());
            b.extend_from_slice(&s.parts.to_le_bytes());
        }
        let crc = crc32fast::hash(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    /// The sources of a section that is the whole of `b`, or None if it is not one.
    pub(crate) fn read_section(b: &[u8]) -> Option<Vec<Source>> {
        let (body, crc) = b.split_at_checked(b.len().checked_sub(4)?)?;
        if crc32fast::hash(body) != field::get::<u32>(crc, 0) {
            return None;
        }
        let n = field::get::<u32>(body.get(0..4)?, 0) as usize;
        let rest = body.get(4..)?;
        if Some(rest.len()) != n.checked_mul(SOURCE_LEN) {
            return None;
        }
        let source = |b: &[u8]| Source {
            bytes: field::get(b, 0),
            crc: field::get(b, 8),
            part: field::get(b, 12),
            parts: field::get(b, 16),
        };
        Some(rest.chunks_exact(SOURCE_LEN).map(source).collect())
    }
}

/// What a book header records besides its entries.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct BookInfo {
    /// The game of the book's positions and moves.
    pub game: Game,
    /// Games used to build the book.
    pub games: u64,
    /// Plies per game taken into the book.
    pub max_ply: u32,
    /// Entries with fewer games were left out.
    pub min_games: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_round_trip_and_tell_overlaps() {
        let a = Source {
            bytes: 601_573,
            crc: 0xdead_beef,
            part: 0,
            parts: 1,
        };
        let shares: Vec<Source> = (0..3)
            .map(|part| Source {
                part,
                parts: 3,
                ..a.clone()
            })
            .collect();
        for list in [vec![], vec![a.clone()], shares.clone()] {
            let b = Source::section(&list);
            assert_eq!(Source::read_section(&b), Some(list.clone()));
            let mut damaged = b.clone();
            damaged[4] ^= 1;
            assert_eq!(Source::read_section(&damaged), None);
            assert_eq!(Source::read_section(&b[..b.len() - 1]), None);
        }
        assert!(a.overlaps(&a) && a.overlaps(&shares[1]) && shares[1].overlaps(&a));
        assert!(!shares[0].overlaps(&shares[1]) && shares[2].overlaps(&shares[2]));
        let other = Source {
            crc: 1,
            ..a.clone()
        };
        assert!(!a.overlaps(&other));
        // Shares that make up the archive are the archive; some of them are not.
        let mut all = shares.clone();
        all.reverse();
        all.push(other.clone());
        assert_eq!(Source::normalized(all), [other.clone(), a.clone()]);
        let some = vec![shares[2].clone(), shares[0].clone()];
        assert_eq!(
            Source::normalized(some),
            [shares[0].clone(), shares[2].clone()]
        );
    }

    #[test]
    fn entries_round_trip_with_and_without_a_back_up() {
        for backup in [
            None,
            Some(Backup {
                value_permille: 0,
                path_dependent: false,
            }),
            Some(Backup {
                value_permille: 1000,
                path_dependent: true,
            }),
            Some(Backup {
                value_permille: 537,
                path_dependent: false,
            }),
        ] {
            let e = Entry {
                key: 0x0123_4567_89ab_cdef,
                mv: 0x1234,
                games: 7,
                win: 3,
                draw: 2,
                loss: 2,
                repeats: 1,
                backup,
            };
            let b = e.to_bytes();
            assert_eq!(Entry::from_bytes(&b), e);
            // Bytes 10..12: 0 without a back-up, else bit 15, bit 14 for the mark, value.
            let bits = field::get::<u16>(&b, 10);
            let expected = backup.map_or(0, |x| {
                0x8000 | u16::from(x.path_dependent) << 14 | x.value_permille
            });
            assert_eq!(bits, expected);
        }
        // Values beyond 1000 are not back-ups.
        assert_eq!(Backup::decode(0x8000 | 1001), None);
        assert_eq!(Backup::decode(0x4000 | 300), None);
    }
}
