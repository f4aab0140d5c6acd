//! The command line's grammar: commands and their arguments (clap), and the reading of
//! arguments clap leaves as text.

use crate::output::{usage, Failure};
use clap::{Parser, Subcommand, ValueEnum};
use retrobook::material::Material;
use retrobook::{Game, Threads};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "retrobook",
    version,
    about = "Distance-to-mate endgame tables and opening books: generate, inspect, probe, verify, build"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Build tables (sub-tables first). Without signatures: every table of up to 4 pieces.
    Gen {
        /// Signatures such as KQvKR.
        signatures: Vec<String>,
        /// Build every table of up to N pieces.
        #[arg(long, value_name = "N")]
        all: Option<u32>,
        #[arg(long, value_name = "DIR", default_value = crate::defaults::DEFAULT_TABLES)]
        tables: PathBuf,
        /// Worker threads (default: all cores).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Refuse to start if a table's estimated peak memory exceeds this many MiB
        /// (default: the memory available when the run starts).
        #[arg(long, value_name = "MIB")]
        memory: Option<u64>,
        /// Print the tables to build with their estimated time and peak memory, and stop.
        #[arg(long)]
        plan: bool,
        /// One JSON object per table on stdout.
        #[arg(long)]
        json: bool,
        /// The game whose tables to build.
        #[arg(long, value_enum, default_value = "chess")]
        game: GameArg,
        /// Xiangqi: every table with N attacking pieces (R, N, C, P) against advisors and
        /// elephants, both sides with any of theirs.
        #[arg(long, value_name = "N")]
        all_attackers: Option<u32>,
    },
    /// Show a table's statistics (from its header).
    Info {
        /// A signature (KRvKN) or a table file.
        table: String,
        #[arg(long, value_name = "DIR", default_value = crate::defaults::DEFAULT_TABLES)]
        tables: PathBuf,
        #[arg(long)]
        json: bool,
        /// The game of the table (a table file names its own).
        #[arg(long, value_enum, default_value = "chess")]
        game: GameArg,
    },
    /// Probe positions: value and every legal move's value, best first. A move's values
    /// are those of the position it leads to, for the side to move there (as in `--json`
    /// and the server's answers).
    Probe {
        /// Positions as FEN or EPD.
        #[arg(required = true)]
        fens: Vec<String>,
        #[arg(long, value_name = "DIR", default_value = crate::defaults::DEFAULT_TABLES)]
        tables: PathBuf,
        /// One JSON object per position (JSON Lines).
        #[arg(long)]
        json: bool,
        /// The game of the positions.
        #[arg(long, value_enum, default_value = "chess")]
        game: GameArg,
    },
    /// Re-check tables one ply deep against their successors. Without signatures: all tables.
    Verify {
        signatures: Vec<String>,
        #[arg(long, value_name = "DIR", default_value = crate::defaults::DEFAULT_TABLES)]
        tables: PathBuf,
        /// Check the distance to zeroing of every position the DTZ layer stores, not one in
        /// 256 (each two plies deep: the whole check about four times as long).
        #[arg(long)]
        all_dtz: bool,
        /// The game of the tables.
        #[arg(long, value_enum, default_value = "chess")]
        game: GameArg,
    },
    /// Rule every repetition in the games of a Chinese chess archive by the Asian rules:
    /// who must change, by which rule (perpetual check or chase), from which move; or one
    /// loop given by its position and moves.
    Judge {
        /// PGN archive (plain or .zst, UTF-8 or Big5; `-` for stdin); or --fen and --moves.
        #[arg(required_unless_present = "fen", conflicts_with = "fen")]
        archive: Option<PathBuf>,
        /// Rule one loop instead: the position it starts from (a Chinese chess FEN).
        #[arg(long, requires = "moves")]
        fen: Option<String>,
        /// With --fen: the loop's moves in UCCI, space-separated, which must bring the
        /// position back.
        #[arg(long, requires = "fen")]
        moves: Option<String>,
        /// The game whose rules apply: only Chinese chess rules repetitions so.
        #[arg(long, value_enum, default_value = "chess")]
        game: GameArg,
        /// One JSON object on stdout: the loops and the counts.
        #[arg(long)]
        json: bool,
    },
    /// Count the legal move sequences of DEPTH plies from a position (perft).
    Perft {
        /// The position as FEN.
        fen: String,
        /// Plies.
        depth: u32,
        /// The game whose rules apply.
        #[arg(long, value_enum, default_value = "chess")]
        game: GameArg,
    },
    /// Opening books: build from PGN archives, probe, merge, export, back up values.
    #[command(subcommand)]
    Book(BookCommand),
    /// Explicit game graphs with repetitions (graph history interaction).
    #[command(subcommand)]
    Graph(GraphCommand),
    /// Serve the tables and a book over HTTP: a JSON API and an explorer page at `/`.
    Serve {
        /// Folder of chess tables (default: tables/; the server runs without tables if the
        /// default folder has none).
        #[arg(long, value_name = "DIR")]
        tables: Option<PathBuf>,
        /// Opening book (default: books/book.rbb; the server runs without a book if the
        /// default file is missing).
        #[arg(long, value_name = "FILE")]
        book: Option<PathBuf>,
        /// Address and port to listen on (port 0: any free port, printed at start).
        #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
        bind: String,
        /// Connections open at once; when all are taken, the one idle longest gives way
        /// (default: 1024, fewer if the process may open fewer files).
        #[arg(long, value_name = "N")]
        max_connections: Option<usize>,
        /// Seconds a client has to send a whole request, head and body, once it has begun
        /// (a body not come by then is answered 408).
        #[arg(long, value_name = "SECS", default_value_t = 10.0)]
        read_timeout: f64,
        /// Seconds a kept-alive connection may wait for its next request (or for its client
        /// to read an answer) before it is closed.
        #[arg(long, value_name = "SECS", default_value_t = 30.0)]
        idle_timeout: f64,
    },
}

#[derive(Subcommand)]
pub enum GraphCommand {
    /// Exact value of every node (or the root) from an empty history, and whether some path
    /// reaching it changes it.
    Solve {
        /// A graph file (`node`, `edge` and `repetition` lines).
        file: PathBuf,
        /// Report this node only.
        #[arg(long, value_name = "NODE")]
        root: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub enum BookCommand {
    /// Build a book from PGN archives (.pgn, .pgn.zst, or - for stdin).
    Build {
        #[arg(required = true)]
        archives: Vec<PathBuf>,
        /// The book to write (default: books/book.rbb, books/xiangqi.rbb for xiangqi).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Plies of each game taken into the book.
        #[arg(long, value_name = "N", default_value_t = 40)]
        max_ply: u32,
        /// Leave out moves and positions seen in fewer games.
        #[arg(long, value_name = "N", default_value_t = 1)]
        min_games: u32,
        /// Skip games unless both players' Elo tags are at least N.
        #[arg(long, value_name = "N")]
        min_elo: Option<u32>,
        /// Memory for statistics before spilling sorted runs to disk, in MiB.
        #[arg(long, value_name = "MIB", default_value_t = 1024)]
        memory: usize,
        /// Worker threads (default: all cores).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// The game the archives hold (xiangqi archives may be UTF-8 or Big5).
        #[arg(long, value_enum, default_value = "chess")]
        game: GameArg,
        /// The summary as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// The book's moves for positions, best first.
    Probe {
        #[arg(required = true)]
        fens: Vec<String>,
        /// The book (default: books/book.rbb, books/xiangqi.rbb with --game xiangqi).
        #[arg(long, value_name = "FILE")]
        book: Option<PathBuf>,
        /// The game of the positions (default: the book's).
        #[arg(long, value_enum)]
        game: Option<GameArg>,
        /// One JSON object per position (JSON Lines).
        #[arg(long)]
        json: bool,
    },
    /// Merge books built from disjoint archives (exact sums).
    Merge {
        #[arg(required = true)]
        books: Vec<PathBuf>,
        #[arg(long, value_name = "FILE", required = true)]
        out: PathBuf,
    },
    /// Export a book to another format (Polyglot .bin).
    Export {
        /// Output format: polyglot.
        #[arg(long, value_name = "FORMAT")]
        format: String,
        #[arg(long, value_name = "FILE", default_value = crate::defaults::DEFAULT_BOOK)]
        book: PathBuf,
        #[arg(long, value_name = "FILE", required = true)]
        out: PathBuf,
    },
    /// Ask a UCI engine about the book's positions, most played first, and keep its score,
    /// depth, best move and line beside the book (BOOK.evals); a killed run resumes.
    Analyse {
        #[arg(long, value_name = "FILE", default_value = crate::defaults::DEFAULT_BOOK)]
        book: PathBuf,
        /// The engine's program (Stockfish for chess, Fairy-Stockfish for xiangqi).
        #[arg(long, value_name = "PATH")]
        engine: PathBuf,
        /// An argument for the engine's program (repeat for more).
        #[arg(long, value_name = "ARG", allow_hyphen_values = true)]
        engine_arg: Vec<String>,
        /// Search each position to this depth (default: 12).
        #[arg(long, value_name = "N", conflicts_with = "nodes")]
        depth: Option<u32>,
        /// Search each position this many nodes.
        #[arg(long, value_name = "N")]
        nodes: Option<u64>,
        /// Leave out positions played in fewer games.
        #[arg(long, value_name = "K", default_value_t = 1)]
        min_games: u32,
        /// Engine processes at once, one thread each (default: one per core).
        #[arg(long, value_name = "N")]
        threads: Option<usize>,
        /// Each engine's hash table, in MiB.
        #[arg(long, value_name = "MIB", default_value_t = 16)]
        hash: u32,
        /// The longest wait for one position's answer, in seconds.
        #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
        timeout: f64,
        /// The summary as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Back values up through the book graph from the start position (negamax, repetitions
    /// scored as draws) and store them, with path-dependence marks, in the book.
    Backup {
        #[arg(long, value_name = "FILE", default_value = crate::defaults::DEFAULT_BOOK)]
        book: PathBuf,
        /// Follow only moves played in at least N games (others get no value).
        #[arg(long, value_name = "N", default_value_t = 1)]
        min_games: u32,
        /// The summary as one JSON object.
        #[arg(long)]
        json: bool,
    },
}

/// The threads `--threads` asks for (default: one per core).
pub fn threads_arg(threads: Option<usize>) -> Result<Threads, Failure> {
    match threads {
        None => Ok(Threads::PerCore),
        Some(0) => Err(usage("--threads must be at least 1")),
        Some(t) => Ok(Threads::new(t)),
    }
}

/// A time limit of `seconds` given to `flag`: above 0 and at most a day, or a usage error.
pub fn seconds_arg(flag: &str, seconds: f64) -> Result<std::time::Duration, Failure> {
    match seconds.is_finite() && seconds > 0.0 && seconds <= 86_400.0 {
        true => Ok(std::time::Duration::from_secs_f64(seconds)),
        false => Err(usage(format!(
            "{flag} takes seconds above 0, at most a day"
        ))),
    }
}

/// A signature given on the command line, or a usage error.
pub fn parse_signature(s: &str) -> Result<Material, Failure> {
    let m: Material = s
        .parse()
        .map_err(|e: retrobook::material::MaterialError| usage(e.to_string()))?;
    if m.is_bare_kings() {
        return Err(usage(format!(
            "{s}: two bare kings need no table (always a draw)"
        )));
    }
    Ok(m)
}

/// The games `--game` names: chess, and Chinese chess, whose rules and books come before
/// its tables.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum GameArg {
    /// Western chess.
    Chess,
    /// Chinese chess.
    Xiangqi,
}

impl From<GameArg> for Game {
    fn from(g: GameArg) -> Game {
        match g {
            GameArg::Chess => Game::Chess,
            GameArg::Xiangqi => Game::Xiangqi,
        }
    }
}
