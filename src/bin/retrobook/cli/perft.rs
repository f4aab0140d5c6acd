//! `retrobook perft`: the move generator's standard check, for each game.

use super::args::GameArg;
use crate::output::{usage, write_failed, Failure};
use retrobook::{chess, xiangqi};
use std::io::Write;

/// Prints the number of legal move sequences of `depth` plies from `fen` under `game`'s
/// rules; a FEN the game cannot read is a usage error naming what is wrong.
pub fn cmd_perft(game: GameArg, fen: &str, depth: u32) -> Result<(), Failure> {
    let bad = |e: &dyn std::fmt::Display| usage(format!("bad FEN {fen:?}: {e}"));
    let count = match game {
        GameArg::Chess => {
            let pos: chess::Position = fen.parse().map_err(|e| bad(&e))?;
            chess::perft(&pos, depth)
        }
        GameArg::Xiangqi => {
            let pos = xiangqi::Position::from_fen(fen).map_err(|e| bad(&e))?;
            xiangqi::perft(&pos, depth)
        }
    };
    writeln!(std::io::stdout(), "{count}").map_err(write_failed)
}
