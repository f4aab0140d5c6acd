//! A resumable build of one game's tables into a folder (`Session`), the same for chess and
//! Chinese chess: what each game brings is its `Tables`.
//!
//! A session reads the folder when it opens: the tables the targets need that are there are
//! kept (a file that does not open, or holds another table, is named in `damaged` and built
//! again), the others are built sub-tables first, one `build_next` at a time, each kept as
//! soon as it is written. `prepare` makes the folder ready first (created if missing, the
//! temporaries of killed runs removed), so that a killed run loses at most the table in
//! progress and the same command resumes it. A table whose estimated memory exceeds the
//! game's limit is skipped, with the tables that need it, and the session goes on.

use super::Estimate;
use crate::progress::Observer;
use crate::retro::GraphTooLarge;
use crate::table::TableError;
use std::fmt;
use std::path::{Path, PathBuf};

/// The name of a table (chess's `Material`, xiangqi's `Signature`), which says whose tables
/// it names, so that `Session::open` knows the game from its targets.
pub trait TableName: Copy + Eq + fmt::Display + fmt::Debug {
    /// The tables of the game.
    type Tables: Tables<Name = Self>;
}

/// What a `Session` needs of a game's tables: the open tables themselves (the tablebase the
/// tables to build read their sub-tables from), their order, files and cost, and the build
/// of one table.
pub trait Tables: Sized {
    /// A table's name, canonical.
    type Name: TableName<Tables = Self>;
    /// How tables are built (threads, processes, memory allowed).
    type Options;
    /// What building one table gives.
    type Report;
    /// Why a table could not be built (the session stops; tables finished are kept).
    type Error: From<TableError>;

    /// The tables of `dir`, none taken yet.
    fn of_folder(dir: &Path) -> Self;

    /// `targets` and every sub-table they need, each once, every table after its
    /// sub-tables.
    fn in_order(targets: &[Self::Name]) -> Vec<Self::Name>;

    /// The tables `name`'s conversions lead to.
    fn sub_tables(name: Self::Name) -> Vec<Self::Name>;

    /// Where `name`'s table is in `dir`.
    fn path(dir: &Path, name: Self::Name) -> PathBuf;

    /// Takes the file at `path` as `name`'s table: an error where it does not open or holds
    /// another table.
    fn take(&mut self, name: Self::Name, path: &Path) -> Result<(), TableError>;

    /// What building `name` is expected to cost, the tables taken so far read.
    fn estimate(&self, name: Self::Name) -> Estimate;

    /// The memory a table may take under `opts` (None: no limit).
    fn memory(opts: &Self::Options) -> Option<u64>;

    /// Builds `name` into `dir` (its sub-tables taken) and takes it, or tells why it could
    /// not be built after all.
    fn build(
        &mut self,
        name: Self::Name,
        dir: &Path,
        opts: &Self::Options,
        observer: &dyn Observer,
    ) -> Result<Built<Self>, Self::Error>;
}

/// What `Session::build_next` did with a table.
pub enum Built<T: Tables> {
    /// Built and written.
    Table(T::Report),
    /// Not built, and why.
    Skipped(T::Name, Skip<T::Name>),
}

impl<T: Tables<Report: fmt::Debug>> fmt::Debug for Built<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Built::Table(report) => f.debug_tuple("Table").field(report).finish(),
            Built::Skipped(name, why) => f.debug_tuple("Skipped").field(name).field(why).finish(),
        }
    }
}

/// Why a table was skipped rather than built.
#[derive(Debug)]
pub enum Skip<N> {
    /// It needs more memory than allowed.
    Memory {
        /// Bytes it needs, about.
        need: u64,
        /// Bytes allowed.
        allowed: u64,
    },
    /// One of its sub-tables was skipped.
    SubTable(N),
    /// Xiangqi: the perpetual-check rule's graph does not fit the memory allowed.
    RuleGraph(GraphTooLarge),
}

/// A resumable build of tables into a folder (see the module doc).
pub struct Session<T: Tables> {
    dir: PathBuf,
    tables: T,
    /// Every table the targets need, in order.
    order: Vec<T::Name>,
    /// Those of `order` to build.
    todo: Vec<T::Name>,
    /// How many of `todo` were built or skipped.
    done: usize,
    skipped: Vec<T::Name>,
    /// Whether `prepare` ran.
    prepared: bool,
    /// The files found that do not open or hold another table, with why (built again).
    pub damaged: Vec<TableError>,
}

impl<T: Tables> Session<T> {
    /// The session that builds `targets` into `dir` and the sub-tables they need. Reads the
    /// folder only: `prepare` makes it ready before the first table is built.
    pub fn open<N>(dir: &Path, targets: &[N]) -> Session<T>
    where
        N: TableName<Tables = T>,
        T: Tables<Name = N>,
    {
        let order = T::in_order(targets);
        let mut tables = T::of_folder(dir);
        let mut damaged = Vec::new();
        let todo = (order.iter().copied())
            .filter(|&name| {
                let path = T::path(dir, name);
                if !path.exists() {
                    return true;
                }
                let taken = tables.take(name, &path);
                taken.map_err(|e| damaged.push(e)).is_err()
            })
            .collect();
        Session {
            dir: dir.to_path_buf(),
            tables,
            order,
            todo,
            done: 0,
            skipped: Vec::new(),
            prepared: false,
            damaged,
        }
    }

    /// Creates the folder if missing and removes the temporaries killed runs left there;
    /// how many it removed. The first `build_next` does it where the caller did not.
    pub fn prepare(&mut self) -> Result<usize, TableError> {
        let dir = &self.dir;
        let stale = crate::atomic_file::prepare_folder(dir).map_err(|source| {
            let path = dir.clone();
            TableError::CreateFolder { path, source }
        })?;
        self.prepared = true;
        Ok(stale)
    }

    /// Every table the targets need, in order, those present included.
    pub fn order(&self) -> &[T::Name] {
        &self.order
    }

    /// The tables to build, in order (those done so far included).
    pub fn todo(&self) -> &[T::Name] {
        &self.todo
    }

    /// How many of `todo` were built or skipped so far.
    pub fn done(&self) -> usize {
        self.done
    }

    /// The table `build_next` takes, None once all are done.
    pub fn next(&self) -> Option<T::Name> {
        self.todo.get(self.done).copied()
    }

    /// The tables skipped so far.
    pub fn skipped(&self) -> &[T::Name] {
        &self.skipped
    }

    /// The tables taken: those found, and those built so far.
    pub fn tables(&self) -> &T {
        &self.tables
    }

    /// Builds every table left and returns them with those found. Under a memory limit
    /// (`Tables::memory`) a table may be skipped and is left out: `build_next` tells of it.
    pub fn build_all(mut self, opts: &T::Options, observer: &dyn Observer) -> Result<T, T::Error> {
        while let Some(built) = self.build_next(opts, observer) {
            built?;
        }
        Ok(self.tables)
    }

    /// Builds the next table of `todo`, or skips it (None once all are done).
    pub fn build_next(
        &mut self,
        opts: &T::Options,
        observer: &dyn Observer,
    ) -> Option<Result<Built<T>, T::Error>> {
        let name = self.next()?;
        if !self.prepared {
            if let Err(e) = self.prepare() {
                return Some(Err(e.into()));
            }
        }
        let built = match self.why_skip(name, opts) {
            Some(why) => Ok(Built::Skipped(name, why)),
            None => self.tables.build(name, &self.dir, opts, observer),
        };
        // A table that failed is not done: the same session may try it again.
        match &built {
            Ok(Built::Skipped(name, _)) => {
                self.skipped.push(*name);
                self.done += 1;
            }
            Ok(Built::Table(_)) => self.done += 1,
            Err(_) => {}
        }
        Some(built)
    }

    /// Why `name` cannot be built under `opts`, known before it is built.
    fn why_skip(&self, name: T::Name, opts: &T::Options) -> Option<Skip<T::Name>> {
        let mut subs = T::sub_tables(name).into_iter();
        if let Some(sub) = subs.find(|s| self.skipped.contains(s)) {
            return Some(Skip::SubTable(sub));
        }
        let allowed = T::memory(opts)?;
        let need = self.tables.estimate(name).peak_bytes;
        (need > allowed).then_some(Skip::Memory { need, allowed })
    }
}
