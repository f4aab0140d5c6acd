//! `retrobook serve`: the tables and a book over HTTP. One `Tablebase` and one book are
//! opened at start and shared by every request (`routes`); the answers' shapes are in
//! `standard` (tables, as the Lichess tablebase API) and `crate::shown` (book, as `book
//! probe --json`); the explorer page and the API's description are compiled in (`assets`).

mod assets;
mod connections;
mod responses;
mod routes;
mod standard;

pub use connections::Limits;

use crate::cli::args::seconds_arg;
use crate::defaults::{DEFAULT_BOOK, DEFAULT_TABLES};
use crate::output::{runtime, usage, Failure};
use retrobook::book::evals::Evals;
use retrobook::book::Book;
use retrobook::probe::{Tablebase, Xiangqi};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What every request reads: the tables and the book, either possibly absent.
pub struct Shared {
    tables: Option<Tablebase>,
    /// The Chinese chess tables of the same folder, if it holds any.
    xiangqi: Option<Tablebase<Xiangqi>>,
    missing_xiangqi: String,
    book: Option<Book>,
    /// The book's engine values, if it has them (`book analyse`).
    evals: Option<Evals>,
    /// Why the tables or the book are absent, for the errors that ask for them.
    missing_tables: String,
    missing_book: String,
    /// Batch positions probed at once, a chunk per permit: a batch answer is worked out
    /// only as its client reads it, and never by more chunks at a time than there are
    /// cores, however many batches are open.
    batch_work: tokio::sync::Semaphore,
}

/// `retrobook serve`: opens the tables and the book, listens on `bind`, and answers until
/// SIGINT or SIGTERM, then finishes the requests under way and exits 0. A folder or book
/// named on the command line must open; the defaults may be missing (with a warning).
pub fn cmd_serve(
    tables: Option<PathBuf>,
    book: Option<PathBuf>,
    bind: &str,
    limits: Limits,
) -> Result<(), Failure> {
    let addr: std::net::SocketAddr = bind.parse().map_err(|_| {
        usage(format!(
            "--bind {bind:?}: expected ADDR:PORT, as 127.0.0.1:8080"
        ))
    })?;
    let shared = Arc::new(open_shared(tables, book)?);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(runtime)?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| runtime(format!("cannot listen on {addr}: {e}")))?;
        let local = listener.local_addr().map_err(runtime)?;
        announce(&shared, local)?;
        connections::serve(listener, routes::router(shared), limits, stop_signal()).await;
        eprintln!("retrobook: stopped");
        Ok(())
    })
}

/// The limits `--max-connections`, `--read-timeout` and `--idle-timeout` ask for.
pub fn limits(
    max_connections: Option<usize>,
    read_timeout: f64,
    idle_timeout: f64,
) -> Result<Limits, Failure> {
    Ok(Limits {
        max_connections: match max_connections {
            Some(0) => return Err(usage("--max-connections must be at least 1")),
            Some(n) => n,
            None => Limits::default_max_connections(),
        },
        read_timeout: seconds_arg("--read-timeout", read_timeout)?,
        idle_timeout: seconds_arg("--idle-timeout", idle_timeout)?,
    })
}

/// Opens the tables and the book; a path given must open, a default may be missing.
fn open_shared(tables: Option<PathBuf>, book: Option<PathBuf>) -> Result<Shared, Failure> {
    let dir = tables.as_deref().unwrap_or(Path::new(DEFAULT_TABLES));
    let xiangqi = (Tablebase::<Xiangqi>::open(dir).ok()).filter(|tb| tb.keys().next().is_some());
    let missing_xiangqi = format!("no Chinese chess tables in {}", dir.display());
    let (tables, missing_tables) = match tables {
        Some(dir) => (Some(Tablebase::open(&dir).map_err(runtime)?), String::new()),
        None => lenient("tables", Tablebase::open(DEFAULT_TABLES)),
    };
    let (book, missing_book) = match book {
        Some(path) => (Some(Book::open(&path).map_err(runtime)?), String::new()),
        None => lenient("book", Book::open(DEFAULT_BOOK)),
    };
    let evals = match &book {
        Some(b) => Evals::beside(b.path()).map_err(runtime)?,
        None => None,
    };
    let tables = tables.filter(|tb| tb.materials().next().is_some());
    let missing_tables = if tables.is_none() && missing_tables.is_empty() {
        format!("no tables in {DEFAULT_TABLES}/")
    } else {
        missing_tables
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    Ok(Shared {
        tables,
        xiangqi,
        missing_xiangqi,
        book,
        evals,
        missing_tables,
        missing_book,
        batch_work: tokio::sync::Semaphore::new(cores),
    })
}

/// A default that did not open: a warning on stderr, and the reason kept for the API.
fn lenient<T, E: std::fmt::Display>(what: &str, opened: Result<T, E>) -> (Option<T>, String) {
    match opened {
        Ok(t) => (Some(t), String::new()),
        Err(e) => {
            let why = format!("no {what} loaded: {e} (--{what} names another)");
            eprintln!("retrobook: warning: {why}");
            (None, why)
        }
    }
}

/// One line on stdout naming what is served and where: its last word is the address
/// (with port 0, the port chosen), for the people and scripts that start the server.
fn announce(shared: &Shared, addr: std::net::SocketAddr) -> Result<(), Failure> {
    let tables = match &shared.tables {
        Some(tb) => format!(
            "{} tables of up to {} pieces",
            tb.materials().count(),
            tb.max_pieces()
        ),
        None => "no tables".into(),
    };
    let book = match &shared.book {
        Some(b) => format!("the book {}", b.path().display()),
        None => "no book".into(),
    };
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "retrobook: serving {tables} and {book} on http://{addr}"
    )
    .and_then(|()| out.flush())
    .map_err(crate::output::write_failed)
}

/// Resolves at the first SIGINT (Ctrl-C) or SIGTERM.
async fn stop_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
    eprintln!("retrobook: stopping (finishing the requests under way, 5 seconds at most)");
}

impl Shared {
    /// The tables, or why there are none.
    fn tables(&self) -> Result<&Tablebase, &str> {
        self.tables.as_ref().ok_or(&self.missing_tables)
    }

    /// The Chinese chess tables, or why there are none.
    fn xiangqi(&self) -> Result<&Tablebase<Xiangqi>, &str> {
        self.xiangqi.as_ref().ok_or(&self.missing_xiangqi)
    }

    /// The book, or why there is none.
    fn book(&self) -> Result<&Book, &str> {
        self.book.as_ref().ok_or(&self.missing_book)
    }

    /// The book's engine values, if it has them.
    fn evals(&self) -> Option<&Evals> {
        self.evals.as_ref()
    }

    /// The book's path, if one is open.
    fn book_path(&self) -> Option<&Path> {
        self.book.as_ref().map(|b| b.path())
    }
}
