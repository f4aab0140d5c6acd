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
