//! Where the commands and the server read and write when not told: `tables/` and the books
//! in `books/`.

use retrobook::Game;
use std::path::PathBuf;

/// Default folder of tables.
pub const DEFAULT_TABLES: &str = "tables";
/// Default book file.
pub const DEFAULT_BOOK: &str = "books/book.rbb";
/// Default book file of Chinese chess.
pub const DEFAULT_XIANGQI_BOOK: &str = "books/xiangqi.rbb";

/// The book `given`, or the default one of `game`.
pub fn book_path(given: Option<PathBuf>, game: Game) -> PathBuf {
    given.unwrap_or_else(|| {
        PathBuf::from(match game {
            Game::Chess => DEFAULT_BOOK,
            Game::Xiangqi => DEFAULT_XIANGQI_BOOK,
        })
    })
}
