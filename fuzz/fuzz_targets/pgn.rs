//! PGN archives downloaded from anywhere, read the way the book builder reads them: every
//! game is split off, its start position found and its moves replayed; nothing may panic or
//! loop. Reading the text in two pieces cut at a line end gives the same games as reading it
//! whole (the builder reads archives in parallel pieces).
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrobook::book::pgn::{start_position, PgnReader, PgnState, RawGame};
use retrobook::book::rules::{replay_from, Chess};

fuzz_target!(|data: &[u8]| {
    let mut whole = Vec::new();
    let mut reader = PgnReader::new(data);
    while let Some(game) = reader.next_game().expect("reading from memory") {
        whole.push(game.clone());
        // The builder's use of a game: tags, start position, replay.
        let _ = game.tags().count();
        let _ = game.result();
        if let Ok(start) = start_position(game) {
            let mut plies = 0usize;
            let _ = replay_from::<Chess>(game, start, |_, _, _| plies += 1);
            assert!(plies <= game.moves().len());
        }
    }
    assert!(
        reader.next_game().expect("in memory").is_none(),
        "a game after the end"
    );

    // The same games, read by the state that the parallel builder carries between pieces.
    let cut = data.len() / 2;
    let cut = data[..cut]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let mut pieces: Vec<RawGame> = Vec::new();
    let mut state = PgnState::default();
    state.feed(&data[..cut], |g| pieces.push(g.clone()));
    state.feed(&data[cut..], |g| pieces.push(g.clone()));
    state.end(|g| pieces.push(g.clone()));
    assert_eq!(pieces, whole, "read in two pieces cut at byte {cut}");
});
