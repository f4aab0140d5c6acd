//! The games retrobook plays: each table and book file names its game, so that a reader
//! refuses a file of a game it was not asked for: chess, and Chinese chess (xiangqi,
//! `docs/design.md`, Chinese chess), each with its rules, tables and books.

use std::fmt;
use std::str::FromStr;

/// A game with tables.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Game {
    /// Western chess (FIDE rules; `docs/design.md`, Values).
    #[default]
    Chess,
    /// Chinese chess (`docs/design.md`, Chinese chess).
    Xiangqi,
}

impl Game {
    /// Every game, in the order `--game` lists them.
    pub const ALL: [Game; 2] = [Game::Chess, Game::Xiangqi];

    /// The game's name: in table headers and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Game::Chess => "chess",
            Game::Xiangqi => "xiangqi",
        }
    }

    /// The game's number in book headers: its place in `ALL`.
    pub fn code(self) -> u32 {
        Game::ALL.iter().position(|&g| g == self).unwrap_or(0) as u32
    }

    /// The game of a book header's number.
    pub fn from_code(code: u32) -> Option<Game> {
        Game::ALL.get(code as usize).copied()
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A game name this build does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown game {0:?} (known: {known})", known = known())]
pub struct UnknownGame(pub String);

/// The names of `Game::ALL`, for messages.
fn known() -> String {
    Game::ALL.map(Game::name).join(", ")
}

impl FromStr for Game {
    type Err = UnknownGame;

    fn from_str(s: &str) -> Result<Game, UnknownGame> {
        Game::ALL
            .into_iter()
            .find(|g| g.name() == s)
            .ok_or_else(|| UnknownGame(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for g in Game::ALL {
            assert_eq!(g.name().parse::<Game>(), Ok(g));
        }
        assert_eq!("shogi".parse::<Game>(), Err(UnknownGame("shogi".into())));
        for g in Game::ALL {
            assert_eq!(Game::from_code(g.code()), Some(g));
        }
        assert_eq!(Game::from_code(2), None);
    }
}
