//! The games retrobook plays: each table file names its game, so that a reader refuses a
//! table of a game it was not asked for. Chess is the first; a second game (Chinese chess,
//! DESIGN.md §10) adds its rules beside `chess/`, its `RetroGame` beside `retro/chess.rs`,
//! and a variant here, and shares the solver, the table format and the floor.

use std::fmt;
use std::str::FromStr;

/// A game with tables.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Game {
    /// Western chess (FIDE rules, DESIGN.md §2).
    #[default]
    Chess,
}

impl Game {
    /// Every game, in the order `--game` lists them.
    pub const ALL: [Game; 1] = [Game::Chess];

    /// The game's name: in table headers and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Game::Chess => "chess",
        }
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
        assert_eq!(
            "xiangqi".parse::<Game>(),
            Err(UnknownGame("xiangqi".into()))
        );
    }
}
