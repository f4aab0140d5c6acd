//! The server's JSON answers as types: each field once, with its meaning, and the shape a
//! client reads fixed by the compiler rather than by literals spread over the routes.

use serde::Serialize;

/// An error: what went wrong (with the status the route sets).
#[derive(Serialize)]
pub struct ErrorResponse {
    pub error: String,
}

/// `/health`: what the server holds.
#[derive(Serialize)]
pub struct HealthResponse {
    pub status: &'static str,
    /// Tables open (0 without a tables folder).
    pub tables: usize,
    /// The most pieces of a table open.
    pub max_pieces: u32,
    /// Chinese chess tables open (0 without any in the tables folder).
    pub xiangqi_tables: usize,
    /// The most pieces of a Chinese chess table open, kings included.
    pub xiangqi_max_pieces: u32,
    /// The book served, if any.
    pub book: Option<String>,
    /// Its game, if it opens.
    pub book_game: Option<&'static str>,
}

/// `/position`: the position read back, and its legal moves with the FEN each leads to.
#[derive(Serialize)]
pub struct PositionResponse {
    pub fen: String,
    /// "w" or "b".
    pub turn: String,
    pub check: bool,
    pub pieces: u32,
    pub moves: Vec<PositionMove>,
}

/// A legal move of `/position`.
#[derive(Serialize)]
pub struct PositionMove {
    /// UCI (chess) or UCCI, that is ICCS in lower case (Chinese chess).
    pub uci: String,
    /// SAN (chess) or WXF notation in Latin letters (Chinese chess).
    pub san: String,
    /// The position it leads to.
    pub fen: String,
}

/// What the Lichess tablebase API says of any position, besides its moves (`/standard`).
#[derive(Serialize)]
pub struct Facts {
    pub checkmate: bool,
    pub stalemate: bool,
    pub variant_win: bool,
    pub variant_loss: bool,
    pub insufficient_material: bool,
    /// Distance to zeroing in plies, signed from the side to move's view (0: a draw; null
    /// outside the tables).
    pub dtz: Option<i32>,
    /// The same: ours is always exact.
    pub precise_dtz: Option<i32>,
    /// Distance to mate in plies, signed (null: a draw).
    pub dtm: Option<i64>,
    /// Lichess's distance to win (antichess) and to conversion: null, as Lichess gives
    /// them for standard chess without those tables.
    pub dtw: Option<i64>,
    pub dtc: Option<i64>,
    /// The value under the 50-move rule from the FEN's move count.
    pub category: Category,
}

/// A value under the 50-move rule as Lichess names it, in Lichess's order of preference for
/// the side that moves into it (its opponent's loss first; what is not known right after).
#[derive(Serialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    Loss,
    /// Outside the tables: castling rights, more pieces than any table, a table not built.
    Unknown,
    BlessedLoss,
    Draw,
    CursedWin,
    Win,
}

impl Category {
    /// The same value for the other side.
    pub fn flipped(self) -> Category {
        match self {
            Category::Loss => Category::Win,
            Category::BlessedLoss => Category::CursedWin,
            Category::CursedWin => Category::BlessedLoss,
            Category::Win => Category::Loss,
            other => other,
        }
    }

    /// A win, cursed or not.
    pub fn is_positive(self) -> bool {
        matches!(self, Category::CursedWin | Category::Win)
    }
}

impl From<retrobook::Wdl5> for Category {
    fn from(class: retrobook::Wdl5) -> Category {
        use retrobook::Wdl5;
        match class {
            Wdl5::Loss => Category::Loss,
            Wdl5::BlessedLoss => Category::BlessedLoss,
            Wdl5::Draw => Category::Draw,
            Wdl5::CursedWin => Category::CursedWin,
            Wdl5::Win => Category::Win,
        }
    }
}

/// `/standard`: a position's facts and every legal move's, in the order of play.
#[derive(Serialize)]
pub struct StandardResponse {
    #[serde(flatten)]
    pub facts: Facts,
    pub moves: Vec<StandardMove>,
}

/// A move of `/standard`: the facts of the position it leads to, for the side to move there.
#[derive(Serialize)]
pub struct StandardMove {
    pub uci: String,
    pub san: String,
    /// A capture or pawn move: the move count starts again.
    pub zeroing: bool,
    /// A capture or promotion: the material changes.
    pub conversion: bool,
    #[serde(flatten)]
    pub facts: Facts,
}

/// An answer of `/standard/batch`: the position's, or why it has none.
#[derive(Serialize)]
#[serde(untagged)]
pub enum BatchAnswer {
    Answered(StandardResponse),
    Failed { fen: String, error: String },
}

/// `/standard/mainline`: the line of play to mate under the move count (empty, `winner`
/// null, where the position is drawn from its count).
#[derive(Serialize)]
pub struct MainlineResponse {
    pub dtm: Option<i64>,
    pub dtz: i32,
    /// `dtz`, which is always exact here (Lichess's is null where Syzygy's files round).
    pub precise_dtz: i32,
    /// "w" or "b", null for a draw.
    pub winner: Option<String>,
    pub mainline: Vec<MainlineStep>,
}

/// A step of `/standard/mainline`, with the distances of the position it leads to, for
/// the side to move there, as Lichess gives them.
#[derive(Serialize)]
pub struct MainlineStep {
    pub uci: String,
    pub san: String,
    pub dtm: Option<i64>,
    pub dtz: i32,
    pub precise_dtz: i32,
}
