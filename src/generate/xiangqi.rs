//! Building Chinese chess tables: the order (sub-tables first), the solve with the
//! perpetual-check rule (`retro::solve_table`) and the file (`table::xiangqi`), one table
//! at a time. A table the memory allowed cannot hold is skipped, with the tables above it,
//! and the run goes on with what fits.

use super::session::{Built, Skip, TableName, Tables};
use super::{peak_memory, Estimate};
use crate::probe::{ProbeError, Tablebase, Xiangqi};
use crate::progress::Observer;
use crate::retro::{solve_table, SolveError};
use crate::table::xiangqi::{table_path, write};
use crate::table::TableError;
use crate::threads::Threads;
use crate::xiangqi::{Signature, XiangqiIndex};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Peak memory of a xiangqi solve per index (both sides counted), with some room: the
/// values, the solver's state and the index's work. Measured peaks, each table alone:
/// KCAABBvKAABB 10.6 bytes an index (357 million indices, 3.6 GiB), KCAABBvKAB 11.5,
/// KPAABBvKAAB 10.9.
const BYTES_PER_INDEX: u64 = 12;

/// CPU time of a xiangqi solve per index (both sides counted), roughly: the two-attacker
/// tables against KAABB took 0.5-1.1 microseconds (KPP the least, KNC the most).
const CPU_SECONDS_PER_INDEX: f64 = 1.0e-6;

/// Bytes per index (both sides counted) a solved table holds while the perpetual-check
/// rule's graph is built: a value byte and three bits, rounded up.
const SOLVED_BYTES_PER_INDEX: u64 = 2;

/// The attacking pieces: the roles that can give check.
const ATTACKERS: [&str; 4] = ["R", "N", "C", "P"];

/// The defender sets one side may have: up to two advisors and two elephants.
const DEFENDERS: [&str; 9] = ["", "A", "AA", "B", "AB", "AAB", "BB", "ABB", "AABB"];

/// Every table with `attackers` attacking pieces (R, N, C, P) on Red's side, none on
/// Black's, and any advisors and elephants on both; None unless `attackers` is 1 or 2.
pub fn with_attackers(attackers: u32) -> Option<Vec<Signature>> {
    let sets: Vec<String> = match attackers {
        1 => ATTACKERS.iter().map(|a| a.to_string()).collect(),
        2 => (0..4)
            .flat_map(|i| (i..4).map(move |j| format!("{}{}", ATTACKERS[i], ATTACKERS[j])))
            .collect(),
        _ => return None,
    };
    let mut out = Vec::new();
    for attack in &sets {
        for red in DEFENDERS {
            for black in DEFENDERS {
                let sig: Signature = format!("K{attack}{red}vK{black}")
                    .parse()
                    .expect("a signature of a king, attackers and defenders");
                out.push(sig.canonical());
            }
        }
    }
    Some(out)
}

/// `targets` and their sub-tables, each once under its canonical signature, every table
/// after those its captures lead to.
pub fn in_order(targets: &[Signature]) -> Vec<Signature> {
    fn visit(sig: Signature, out: &mut Vec<Signature>) {
        if out.contains(&sig) {
            return;
        }
        for sub in sig.captures() {
            visit(sub.canonical(), out);
        }
        out.push(sig);
    }
    let mut out = Vec::new();
    for &t in targets {
        visit(t.canonical(), &mut out);
    }
    out
}

/// The indices of `signature`'s table, both sides to move counted.
pub fn indices(signature: Signature) -> u64 {
    XiangqiIndex::new(signature).size().saturating_mul(2)
}

/// What building `signature`'s table is expected to cost: the solve's (a table's
/// perpetual-check graph, sized only once its draws are counted, comes on top).
pub fn estimate(signature: Signature) -> Estimate {
    let indices = indices(signature);
    Estimate {
        peak_bytes: indices.saturating_mul(BYTES_PER_INDEX),
        cpu_seconds: indices as f64 * CPU_SECONDS_PER_INDEX,
    }
}

/// How xiangqi tables are built.
#[derive(Clone, Copy, Debug, Default)]
pub struct XiangqiOptions {
    /// Threads solving and compressing.
    pub threads: Threads,
    /// Bytes a table may take (None: no limit): a table that needs more is skipped.
    pub memory: Option<u64>,
}

/// What one xiangqi table cost and gave.
#[derive(Clone, Debug)]
pub struct XiangqiReport {
    /// The table built.
    pub signature: Signature,
    /// Indices over both sides to move.
    pub indices: u64,
    /// Wall time in seconds.
    pub seconds: f64,
    /// File size in bytes.
    pub bytes: u64,
    /// Where the file was written.
    pub path: PathBuf,
    /// Peak resident memory of the process so far, in bytes (0 where unknown).
    pub peak_memory: u64,
    /// The longest mate, in plies.
    pub longest_plies: u32,
    /// Positions the repetition rules make won or lost, both sides to move.
    pub by_rule: u64,
    /// Of those, the ones the chase rule decides.
    pub by_chase: u64,
    /// Positions the chase rule was not applied to (`retro::Ruled::chases_judged`).
    pub unjudged: u64,
}

/// Why a xiangqi table could not be built (the run stops; tables finished are kept).
#[derive(Debug, thiserror::Error)]
pub enum XiangqiGenError {
    /// A sub-table could not be read.
    #[error("{signature}: a sub-table: {source}")]
    SubTable {
        /// The table to build.
        signature: Signature,
        /// What failed.
        source: ProbeError,
    },
    /// The table could not be written, or the folder prepared.
    #[error(transparent)]
    Table(#[from] TableError),
}

impl TableName for Signature {
    type Tables = Tablebase<Xiangqi>;
}

/// Xiangqi tables to build: the tablebase they are read from.
impl Tables for Tablebase<Xiangqi> {
    type Name = Signature;
    type Options = XiangqiOptions;
    type Report = XiangqiReport;
    type Error = XiangqiGenError;

    fn of_folder(_: &Path) -> Tablebase<Xiangqi> {
        Tablebase::new()
    }

    fn in_order(targets: &[Signature]) -> Vec<Signature> {
        in_order(targets)
    }

    fn sub_tables(signature: Signature) -> Vec<Signature> {
        signature
            .captures()
            .iter()
            .map(Signature::canonical)
            .collect()
    }

    fn path(dir: &Path, signature: Signature) -> PathBuf {
        table_path(dir, &signature)
    }

    fn take(&mut self, _: Signature, path: &Path) -> Result<(), TableError> {
        // A file named after a table must hold it (`Tablebase::add_file`).
        self.add_file(path)
    }

    fn estimate(&self, signature: Signature) -> Estimate {
        estimate(signature)
    }

    fn memory(opts: &XiangqiOptions) -> Option<u64> {
        opts.memory
    }

    fn build(
        &mut self,
        signature: Signature,
        dir: &Path,
        opts: &XiangqiOptions,
        observer: &dyn Observer,
    ) -> Result<Built<Tablebase<Xiangqi>>, XiangqiGenError> {
        let built = opts
            .threads
            .run(|| build(self, signature, dir, opts, observer))?;
        if let Built::Table(report) = &built {
            self.add_file(&report.path)?;
        }
        Ok(built)
    }
}

/// Solves and writes `sig`'s table into `dir`, its sub-tables read from `tb`, in the pool
/// of `opts.threads`.
fn build(
    tb: &Tablebase<Xiangqi>,
    sig: Signature,
    dir: &Path,
    opts: &XiangqiOptions,
    observer: &dyn Observer,
) -> Result<Built<Tablebase<Xiangqi>>, XiangqiGenError> {
    let start = Instant::now();
    // The rule's graph may use what the solved values leave.
    let solved_bytes = indices(sig).saturating_mul(SOLVED_BYTES_PER_INDEX);
    let rule_memory = opts.memory.map(|a| a.saturating_sub(solved_bytes));
    // A sub-table that cannot be read fails the table, which is then not written.
    let solved = match solve_table(sig, &|pos| tb.probe(pos), observer, rule_memory) {
        Ok(solved) => solved,
        Err(SolveError::SubTable(source)) => {
            return Err(XiangqiGenError::SubTable {
                signature: sig,
                source,
            })
        }
        Err(SolveError::RuleGraph(e)) => return Ok(Built::Skipped(sig, Skip::RuleGraph(e))),
    };
    let written = write(dir, &solved)?;
    let h = &written.header;
    Ok(Built::Table(XiangqiReport {
        signature: sig,
        indices: 2 * h.size,
        seconds: start.elapsed().as_secs_f64(),
        bytes: written.bytes,
        path: written.path,
        peak_memory: peak_memory(),
        longest_plies: h.longest.0,
        by_rule: h.sides.iter().map(|c| c.win_by_rule + c.loss_by_rule).sum(),
        by_chase: h.sides.iter().map(|c| c.by_chase).sum(),
        unjudged: h.sides.iter().map(|c| c.unjudged).sum(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Session;
    use crate::progress::Silent;

    /// One attacker: 4 attackers x 9 defender sets of Red's x 9 of Black's, all distinct,
    /// with 45 sub-tables more (advisors and elephants alone, bare kings); every table
    /// after its sub-tables.
    #[test]
    fn one_attacker_tables_and_their_order() {
        let targets = with_attackers(1).unwrap();
        assert_eq!(targets.len(), 324);
        let order = in_order(&targets);
        assert_eq!(order.len(), 369);
        for (i, sig) in order.iter().enumerate() {
            assert!(sig.is_canonical());
            for sub in sig.captures() {
                assert!(order[..i].contains(&sub.canonical()), "{sig} before {sub}");
            }
        }
        assert!(order.contains(&"KRAABBvKAABB".parse().unwrap()));
        assert_eq!(with_attackers(2).unwrap().len(), 10 * 81);
        assert!(with_attackers(0).is_none() && with_attackers(3).is_none());
    }

    /// A session builds the sub-tables first, resumes where a run stopped, sweeps the
    /// temporaries of killed runs, and skips a table above one skipped for memory.
    #[test]
    fn a_session_builds_in_order_resumes_and_skips() {
        let dir = tempfile::tempdir().unwrap();
        let krvkn: Signature = "KRvKN".parse().unwrap();
        let mut session = Session::open(dir.path(), &[krvkn]);
        let names = |s: &[Signature]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(names(session.todo()), ["KvK", "KNvK", "KRvK", "KRvKN"]);
        assert!(!dir.path().join("KvK.rbx").exists());
        let stale = dir.path().join(".KvK.rbx.4000000000.tmp");
        std::fs::write(&stale, b"half a table").unwrap();
        assert_eq!(session.prepare().unwrap(), 1);
        assert!(!stale.exists());
        // KvK built; KNvK, allowed less than it needs, skipped; KRvK built; KRvKN skipped
        // for KNvK, before its solve.
        let mut next = |memory: Option<u64>| {
            let opts = XiangqiOptions {
                memory,
                ..Default::default()
            };
            match session.build_next(&opts, &Silent).unwrap().unwrap() {
                Built::Table(r) => r.signature.to_string(),
                Built::Skipped(s, Skip::Memory { .. }) => format!("{s} skipped for memory"),
                Built::Skipped(s, Skip::SubTable(sub)) => format!("{s} skipped for {sub}"),
                Built::Skipped(s, why) => panic!("{s} skipped: {why:?}"),
            }
        };
        let knvk = estimate("KNvK".parse().unwrap()).peak_bytes;
        let said = [next(None), next(Some(knvk - 1)), next(None), next(None)];
        assert_eq!(
            said,
            [
                "KvK",
                "KNvK skipped for memory",
                "KRvK",
                "KRvKN skipped for KNvK"
            ]
        );
        assert!(session
            .build_next(&XiangqiOptions::default(), &Silent)
            .is_none());
        assert_eq!(names(session.skipped()), ["KNvK", "KRvKN"]);
        // A new session keeps what was built and builds the rest; a file under another
        // table's name is named and built again.
        std::fs::copy(dir.path().join("KRvK.rbx"), dir.path().join("KNvK.rbx")).unwrap();
        let again = Session::open(dir.path(), &[krvkn]);
        assert_eq!(names(again.todo()), ["KNvK", "KRvKN"]);
        assert_eq!(again.damaged.len(), 1);
        let damaged = again.damaged[0].to_string();
        assert!(damaged.contains("holds KRvK, not KNvK"), "{damaged}");
    }
}
