//! The index round-trips: every canonical index of several tables, pawnless and with pawns,
//! decodes to a position that encodes back to it, every symmetric image of that position has
//! the same index, and the non-canonical indices are the few mirror images left over.

use retrobook::chess::Color;
use retrobook::index::TableIndex;
use retrobook::material::Material;

fn round_trip(sig: &str) {
    let index = TableIndex::new(sig.parse::<Material>().unwrap());
    let mut decoded = 0u64;
    for idx in 0..index.size() {
        let Some(pos) = index.decode(idx, Color::White) else {
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
            let other = index.decode(canonical, Color::White).unwrap();
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
    assert!(
        decoded * 10 > index.size() * 8,
        "{sig}: {decoded} of {}",
        index.size()
    );
}

#[test]
fn pawnless_tables_round_trip() {
    for sig in ["KQvK", "KRvKN", "KBBvK", "KQvKQ"] {
        round_trip(sig);
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
            for turn in Color::ALL {
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
