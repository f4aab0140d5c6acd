//! The index round-trips: every index of several tables, pawnless and with pawns, decodes to
//! a position that encodes back to it (or to its diagonal twin), and every legal position of
//! the material has an index.

use retrobook::chess::Color;
use retrobook::index::TableIndex;
use retrobook::material::Material;

fn round_trip(sig: &str) {
    let index = TableIndex::new(sig.parse::<Material>().unwrap());
    let mut decoded = 0u64;
    for idx in 0..index.size() {
        let Some(pos) = index.decode(idx, Color::White) else { continue };
        decoded += 1;
        assert_eq!(Material::from_position(&pos), index.material(), "{sig} {idx}");
        assert_eq!(index.encode(&pos), Some(idx), "{sig}: {pos} (index {idx})");
        // Every symmetric image has the same class: its index is this one or the twin.
        let mut twins = Vec::new();
        index.for_each_encoding(&pos, |i| twins.push(i));
        for (d, h, v) in [(false, true, false), (false, false, true), (true, false, false), (true, true, true)] {
            if index.material().has_pawns() && (d || v) {
                continue;
            }
            let image = pos.transformed(d, h, v);
            let i = index.encode(&image).unwrap();
            assert!(twins.contains(&i), "{sig}: image {image} of {pos} has index {i}, class {twins:?}");
        }
    }
    // Broken indices (overlapping pieces) are a small share.
    assert!(decoded * 10 > index.size() * 8, "{sig}: {decoded} of {}", index.size());
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
