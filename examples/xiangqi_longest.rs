//! The longest mate of every xiangqi table in a folder, with its line of best play, as a
//! Markdown table (the one in `docs/xiangqi-longest-mates.md`):
//!
//! ```text
//! cargo run --release --example xiangqi_longest -- tables-folder > longest.md
//! ```
//!
//! Each line is played out from the table's longest mate, and every position along it is
//! probed again: the distance must fall by exactly one ply at each move, down to mate
//! (the program stops with an error otherwise).

use retrobook::probe::{Tablebase, Xiangqi};
use retrobook::retro::Verdict;
use retrobook::table::xiangqi::XiangqiFile;
use retrobook::xiangqi::Script;
use retrobook::Dtm;
use std::path::Path;

fn main() -> Result<(), String> {
    let dir = std::env::args()
        .nth(1)
        .ok_or("usage: xiangqi_longest TABLES-FOLDER")?;
    let dir = Path::new(&dir);
    let tb = Tablebase::<Xiangqi>::open(dir).map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let Ok(file) = XiangqiFile::open(&entry.path()) else {
            continue;
        };
        let h = file.header();
        let by_rule: u64 = h.sides.iter().map(|c| c.win_by_rule + c.loss_by_rule).sum();
        let (plies, turn, idx) = h.longest;
        if plies == 0 {
            rows.push((h.signature.to_string(), 0, "-".into(), "-".into(), by_rule));
            continue;
        }
        let start = file
            .index()
            .decode(idx, turn)
            .ok_or("the header's longest mate names no position")?;
        let line = tb.mainline(&start).map_err(|e| e.to_string())?;
        let mut pos = start.clone();
        let mut moves = Vec::new();
        for (ply, m) in line.iter().enumerate() {
            let expected = Dtm::from_plies(plies - ply as u32);
            let found = tb.probe(&pos).map_err(|e| e.to_string())?;
            if found != Verdict::Plain(expected) {
                return Err(format!("{}: {found:?}, not {expected:?}", pos.to_fen()));
            }
            moves.push(format!("{} {}", m, pos.wxf(m, Script::Ascii)));
            pos = pos.play(m);
        }
        if tb.probe(&pos).map_err(|e| e.to_string())? != Verdict::Plain(Dtm::Loss(0))
            || line.len() != plies as usize
        {
            return Err(format!("{}: the line does not end in mate", start.to_fen()));
        }
        rows.push((
            h.signature.to_string(),
            plies,
            start.to_fen(),
            moves.join(", "),
            by_rule,
        ));
    }
    rows.sort();
    println!("| table | longest mate (plies) | position | line of best play (UCCI and WXF) | values by the perpetual-check rule |");
    println!("|---|---:|---|---|---:|");
    for (sig, plies, fen, line, by_rule) in rows {
        println!("| {sig} | {plies} | `{fen}` | {line} | {by_rule} |");
    }
    Ok(())
}
