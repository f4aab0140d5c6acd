//! The index round-trips: every canonical index of several tables, pawnless and with pawns,
//! decodes to a position that encodes back to it, every symmetric image of that position has
//! the same index, and the non-canonical indices are the few mirror images left over.

use retrobook::index::TableIndex;
use retrobook::material::Material;
use retrobook::Side;

fn round_trip(sig: &str) {
    round_trip_every(sig, 1, 80);
}

/// `round_trip` on every `step`-th index only, for tables too large to walk whole, at least
/// `percent` of the indices looked at decoding to canonical positions.
fn round_trip_every(sig: &str, step: usize, percent: u64) {
    let index = TableIndex::new(sig.parse::<Material>().unwrap());
    let (mut decoded, mut seen) = (0u64, 0u64);
    for idx in (0..index.size()).step_by(step) {
        seen += 1;
        let Some(pos) = index.decode(idx, Side::White) else {
            continue;
        };
        assert_eq!(
            Material::from_position(&pos),
            index.material(),
            "{sig} {idx}"
        );
        if !index.is_canonical(idx, &pos) {
            // A left-over mirror image: its class is encoded elsewhere, and back to itself.
            let canonical = index.encode(&pos).unwrap();
            assert_ne!(canonical, idx);
            let other = index.decode(canonical, Side::White).unwrap();
            assert_eq!(index.encode(&other), Some(canonical));
            continue;
        }
        decoded += 1;
        assert_eq!(index.encode(&pos), Some(idx), "{sig}: {pos} (index {idx})");
        // Every symmetric image of the position has the same index.
        for (d, h, v) in [
            (false, true, false),
            (false, false, true),
            (true, false, false),
            (true, true, true),
        ] {
            if index.material().has_pawns() && (d || v) {
                continue;
            }
            let image = pos.transformed(d, h, v);
            assert_eq!(
                index.encode(&image),
                Some(idx),
                "{sig}: image {image} of {pos}"
            );
        }
    }
    // Broken and non-canonical indices are a small share.
    assert!(decoded * 100 > seen * percent, "{sig}: {decoded} of {seen}");
}

#[test]
fn pawnless_tables_round_trip() {
    for sig in ["KQvK", "KRvKN", "KBBvK", "KQvKQ"] {
        round_trip(sig);
    }
}

/// Six pieces: the same index scheme, two groups of identical pieces on one side included,
/// sampled at a prime step. Four pieces besides the kings, each indexed over
/// all 64 squares (48 for pawns), stand on distinct free squares in about 81% of the
/// indices of KRNvKNN (62 * 61 * C(60, 2) of 64 * 64 * C(64, 2) placements), so fewer
/// indices decode than with five pieces.
#[test]
fn six_piece_tables_round_trip() {
    for sig in ["KRNvKNN", "KQRvKRR", "KRBvKRP", "KPPvKPP"] {
        round_trip_every(sig, 100_003, 75);
    }
}

#[test]
fn pawn_tables_round_trip() {
    for sig in ["KPvK", "KPvKP", "KPPvK", "KRvKP"] {
        round_trip(sig);
    }
}

/// The part (of `TableIndex::parts`) that holds `idx`.
fn part_of(parts: &[std::ops::Range<u64>], idx: u64) -> usize {
    parts.iter().position(|p| p.contains(&idx)).unwrap()
}

/// The parts cover the index in order, every move other than a pawn move stays in its
/// part, and every pawn move that stays in the table leads to an earlier part: what lets
/// the solver take the parts one after another.
#[test]
fn pawn_moves_lead_to_earlier_parts_and_no_other_move_leaves_one() {
    use retrobook::chess::{MoveList, Role};
    for sig in ["KPvK", "KPvKP", "KPPvK", "KRvKP", "KPvKPP"] {
        let material: Material = sig.parse().unwrap();
        let index = TableIndex::new(material.canonical());
        let parts = index.parts();
        assert!(parts.len() > 1, "{sig}");
        assert_eq!(parts[0].start, 0);
        assert!(parts
            .windows(2)
            .all(|w| w[0].end == w[1].start && !w[0].is_empty()));
        assert_eq!(parts.last().unwrap().end, index.size());
        let (mut pawn_moves, mut others) = (0u64, 0u64);
        for idx in (0..index.size()).step_by(7) {
            for turn in Side::ALL {
                let Some(pos) = index.legal(idx, turn) else {
                    continue;
                };
                let mut list = MoveList::new();
                pos.legal_moves(&mut list);
                for m in list.as_slice().iter().filter(|m| !m.is_conversion()) {
                    let j = index.encode(&pos.play(m)).unwrap();
                    let (from, to) = (part_of(&parts, idx), part_of(&parts, j));
                    if m.role == Role::Pawn {
                        assert!(to < from, "{sig}: {pos} {m:?}");
                        pawn_moves += 1;
                    } else {
                        assert_eq!(to, from, "{sig}: {pos} {m:?}");
                        others += 1;
                    }
                }
            }
        }
        assert!(pawn_moves > 1000 && others > 10_000, "{sig}");
    }
}

#[test]
fn tables_without_pawns_are_one_part() {
    let index = TableIndex::new("KRvKN".parse().unwrap());
    assert_eq!(index.parts(), vec![0..index.size()]);
}
