//! Distances beyond what a byte holds (six-piece mates reach 523 plies) survive the writer,
//! the file and the readers: a real table's distances lengthened by 400 plies (beyond a byte
//! of plies) and by 600 (beyond a byte of moves too) are read back the same, from the DTM
//! layer, through the decoder of whole tables and through probes.

use retrobook::index::TableIndex;
use retrobook::material::Material;
use retrobook::probe::LoadedTables;
use retrobook::progress::Silent;
use retrobook::retro::{solve, ChessGame};
use retrobook::table::values::dtm_value;
use retrobook::table::TableStats;
use retrobook::table::{write_table, Moves, TableFile, WriteOptions};
use retrobook::value::LongDistances;
use retrobook::{BySide, Dtm, Tablebase};

/// `v` lengthened by `extra` plies, mates on the board left as they are.
fn longer(v: Dtm, extra: u32) -> Dtm {
    match v.plies() {
        Some(p) if p > 0 => Dtm::from_plies(p + extra),
        _ => v,
    }
}

#[test]
fn distances_beyond_a_byte_round_trip_through_the_file() {
    for extra in [400, 600] {
        round_trip(extra);
    }
}

fn round_trip(extra: u32) {
    let m: Material = "KRvK".parse().unwrap();
    let empty = Tablebase::new();
    let subtables = LoadedTables::for_building(&empty, m, &Silent).unwrap();
    let game = ChessGame::new(TableIndex::new(m), &subtables);
    let mut solution = solve(&game, &Silent);
    let n = TableIndex::new(m).size();
    let expected: BySide<Vec<Dtm>> = BySide::new_with(|side| {
        (0..n)
            .map(|i| longer(solution.value(side, i).0, extra))
            .collect()
    });
    for (side, want) in expected.iter() {
        let mut long = Vec::new();
        for (i, v) in want.iter().enumerate() {
            let code = v.encode();
            if code == Dtm::LONG {
                long.push((i as u64, v.plies().unwrap()));
            }
            solution.values[side][i] = code;
        }
        assert!(!long.is_empty());
        solution.long[side] = LongDistances::new(long);
    }
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write_table(
        dir.path(),
        &m,
        solution.clone(),
        TableStats::default(),
        &WriteOptions::default(),
    )
    .unwrap();
    let file = TableFile::open(&path).unwrap();
    let side = file.dtm_side();
    let moves = file.decode_dtm().unwrap();
    let tb = Tablebase::open(dir.path()).unwrap();
    let loaded = LoadedTables::load(&tb, &[m]).unwrap();
    let mut checked = 0;
    for idx in 0..n {
        if solution.is_illegal(side, idx) {
            continue;
        }
        let want = expected[side][idx as usize];
        let stored = dtm_value(want.wdl(), moves.get(idx)).unwrap_or(Dtm::Draw);
        assert_eq!(stored, want, "index {idx}: the DTM layer");
        assert_eq!(
            loaded.dtm_at(&m, side, idx),
            Some(want),
            "index {idx}: decoded"
        );
        if checked % 97 == 0 {
            let pos = TableIndex::new(m).legal(idx, side);
            let pos = pos.expect("a legal index");
            assert_eq!(tb.probe_dtm(&pos).unwrap(), want, "{pos}: probed");
        }
        checked += usize::from(want.plies() > Some(Dtm::BYTE_PLIES));
    }
    assert!(checked > 1000, "{checked} long distances checked");
    let longest = (0..n).map(|idx| moves.get(idx)).max().unwrap_or(0);
    assert_eq!(
        longest > 255,
        extra > 510,
        "{extra}: longest {longest} moves"
    );
    // The loader holds a byte per number unless some number needs more.
    assert_eq!(matches!(moves, Moves::Wide(_)), longest > 255);
}
