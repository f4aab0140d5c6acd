//! `retrobook gen | info | probe | verify`: the table commands.

use super::args::{parse_signature, threads_arg};
use super::plan::{nothing_to_build, report_header, report_row, Limit, Plan};
use super::progress::Bars;
use super::said::{merge, words, Ending};
use crate::output::{runtime, say, usage, write_failed, Failure, Failures};
use retrobook::chess::{Move, Position};
use retrobook::generate::{estimate, Built, GenOptions, PhaseTime, Report, Session};
use retrobook::index::TableIndex;
use retrobook::material::{sort_for_generation, Material};
use retrobook::probe::{
    verify_table, verify_work, DtzCheck, PositionReport, ProbeError, VerifyError,
};
use retrobook::table::{table_path, TableFile};
use retrobook::Side;
use retrobook::{Tablebase, Threads, Wdl};
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Width of the table column of `gen`'s report (chess signatures are at most 8 long).
const NAME_WIDTH: usize = 8;

fn report_line(r: &Report) -> String {
    report_row(
        &r.material.to_string(),
        NAME_WIDTH,
        r.indices,
        r.seconds,
        r.peak_memory,
        r.bytes,
        r.stats.max_plies,
    )
}

fn report_json(r: &Report) -> serde_json::Value {
    let mut v = json!({
        "signature": r.material.to_string(),
        "indices": r.indices,
        "seconds": r.seconds,
        "positions_per_second": r.indices as f64 / r.seconds.max(1e-9),
        "peak_memory_bytes": r.peak_memory,
        "bytes": r.bytes,
        "file": r.path.display().to_string(),
        "max_dtm_plies": r.stats.max_plies,
        "phases": r.phases.iter().map(phase_json).collect::<Vec<_>>(),
    });
    if r.processes > 1 {
        v["processes"] = r.processes.into();
        v["bytes_exchanged"] = r.exchanged.into();
    }
    v
}

/// A phase's times, to the millisecond.
fn phase_json(p: &PhaseTime) -> serde_json::Value {
    let ms = |s: f64| (s * 1000.0).round() / 1000.0;
    json!({
        "name": p.name,
        "cpu_seconds": ms(p.cpu_seconds),
        "wall_seconds": ms(p.wall_seconds),
        "peak_memory_bytes": p.peak_memory,
    })
}

pub fn cmd_gen(
    signatures: &[String],
    all: Option<u32>,
    dir: &Path,
    threads: Option<usize>,
    memory: Option<u64>,
    show_plan: bool,
    json: bool,
) -> Result<(), Failure> {
    let threads = threads_arg(threads)?;
    let mut targets = Vec::new();
    for s in signatures {
        targets.push(parse_signature(s)?);
    }
    if let Some(n) = all {
        if !(3..=retrobook::material::MAX_PIECES).contains(&n) {
            return Err(usage(format!(
                "--all takes 3 to {} pieces, not {n}",
                retrobook::material::MAX_PIECES
            )));
        }
        targets.extend(Material::all_up_to(n));
    } else if signatures.is_empty() {
        targets.extend(Material::all_up_to(4));
    }
    #[cfg(feature = "mpi")]
    if let Some(cluster) = retrobook::cluster::Cluster::join() {
        let peers = std::sync::Arc::new(retrobook::cluster::peers::MpiPeers::new(cluster));
        let opts = GenOptions {
            threads,
            peers: peers.clone(),
        };
        let Err(e) = gen_tables(&targets, dir, &opts, memory, show_plan, json) else {
            return Ok(());
        };
        let cluster = peers.cluster();
        eprintln!(
            "retrobook: process {} of {}: {}",
            cluster.rank(),
            cluster.size(),
            e.0
        );
        cluster.abort(1);
    }
    let opts = GenOptions {
        threads,
        ..Default::default()
    };
    gen_tables(&targets, dir, &opts, memory, show_plan, json)
}

/// `gen` of `targets` into `dir` with `opts`; split across processes, each builds its
/// share of every table and the first speaks and writes.
fn gen_tables(
    targets: &[Material],
    dir: &Path,
    opts: &GenOptions,
    memory: Option<u64>,
    show_plan: bool,
    json: bool,
) -> Result<(), Failure> {
    let root = opts.peers.rank() == 0;
    let say = |line: String| if root { say(line) } else { Ok(()) };
    let mut session = Session::open(dir, targets);
    for problem in session.damaged.iter().filter(|_| root) {
        eprintln!("retrobook: {problem}; built again");
    }
    let todo = session.todo().to_vec();
    let estimates = Plan::new(&todo, session.tables());
    let threads = opts.threads.count();
    if show_plan {
        if json {
            estimates.json().map(|l| l.to_string()).try_for_each(say)?;
        } else if todo.is_empty() {
            say(nothing_to_build(dir))?;
        } else {
            estimates
                .lines(threads)
                .map(|l| l.to_string())
                .try_for_each(say)?;
        }
        return Ok(());
    }
    let limit = Limit::new(memory);
    if let Some(msg) = limit.as_ref().and_then(|l| estimates.refused(l)) {
        return Err(runtime(msg));
    }
    // One process clears the folder of a killed run's files before the others build; it
    // meets them at the barrier before it reports a failure, so that none waits there.
    let prepared = root.then(|| session.prepare());
    opts.peers.barrier();
    if let Some(stale) = prepared.transpose().map_err(runtime)? {
        if stale > 0 {
            eprintln!("retrobook: removed {stale} unfinished file(s) of an interrupted run");
        }
    }
    let needed = session.order().len();
    if !json && !todo.is_empty() {
        say(estimates.summary(threads, needed - todo.len()))?;
    }
    if let Some(warning) = limit
        .as_ref()
        .and_then(|l| estimates.at_risk(l))
        .filter(|_| root)
    {
        eprintln!("retrobook: {warning}");
    }
    let bars = Bars::new(!json && root, estimates.indices());
    if !json && !todo.is_empty() {
        say(report_header(NAME_WIDTH, ""))?;
    }
    let mut exchanged = 0;
    let (mut total_secs, mut total_indices) = (0.0, 0u64);
    while let Some(m) = session.next() {
        let i = session.done();
        bars.start(
            &m,
            (i + 1, todo.len()),
            estimates.tables[i].indices,
            Some(estimates.left(i, total_secs, threads)),
            Some(estimates.table_seconds(i, total_secs, threads)),
        );
        let e = estimate(m, session.tables());
        if let Some(l) = limit.as_ref().filter(|l| e.peak_bytes > l.bytes) {
            let kept = "the tables built before it are kept";
            return Err(runtime(super::plan::over(m, &e, l, kept)));
        }
        let built = session
            .build_next(opts, &bars)
            .expect("a table left to build");
        let report = match built {
            Ok(Built::Table(report)) => report,
            // The session is given no memory limit (`gen` refuses such a table above), so
            // it skips nothing; were it to, the run stops as for a failed table.
            Ok(Built::Skipped(m, why)) => {
                return Err(runtime(format!(
                    "{m}: skipped ({why:?}); finished tables are kept"
                )))
            }
            Err(e) => {
                return Err(runtime(format!(
                    "{e} (finished tables are kept; run the same command again to resume)"
                )))
            }
        };
        total_secs += report.seconds;
        total_indices += report.indices;
        exchanged += report.exchanged;
        let line = if json {
            report_json(&report).to_string()
        } else {
            report_line(&report)
        };
        bars.multi.suspend(|| say(line))?;
        bars.finish_table(report.indices);
    }
    bars.table.finish_and_clear();
    bars.total.finish_and_clear();
    if !json {
        say(format!(
            "built {} tables ({} already present) in {:.2} s, {} indices, into {}",
            todo.len(),
            needed - todo.len(),
            total_secs,
            total_indices,
            dir.display()
        ))?;
        if opts.peers.count() > 1 {
            say(format!(
                "split across {} processes, {} bytes exchanged",
                opts.peers.count(),
                exchanged
            ))?;
        }
    }
    Ok(())
}

fn open_info_table(arg: &str, dir: &Path) -> Result<TableFile, Failure> {
    let as_path = Path::new(arg);
    // A path that is there and not a folder is opened, and refused if it is not a file.
    if std::fs::metadata(as_path).is_ok_and(|m| !m.is_dir()) {
        return TableFile::open(as_path).map_err(runtime);
    }
    let m = parse_signature(arg)?.canonical();
    let path = table_path(dir, &m);
    if !path.exists() {
        if !dir.is_dir() {
            return Err(runtime(format!(
                "tables folder {} does not exist",
                dir.display()
            )));
        }
        return Err(runtime(no_table(&m, dir, "")));
    }
    TableFile::open(&path).map_err(runtime)
}

/// That `dir` has no table of `sig`, and the command that builds it (`game` is the flag
/// naming a game other than chess, with a space before it, or "").
pub fn no_table(sig: &dyn std::fmt::Display, dir: &Path, game: &str) -> String {
    let d = dir.display();
    format!("no table for {sig} in {d} (build it: retrobook gen{game} {sig} --tables {d})")
}

/// A probe's error for the command line: a missing table with the command that builds it.
pub fn with_hint(e: ProbeError, dir: &Path, game: &str) -> String {
    match e {
        ProbeError::MissingTable(m) => no_table(&m, dir, game),
        ProbeError::NoXiangqiTable(sig) => no_table(&sig, dir, game),
        e => e.to_string(),
    }
}

pub fn cmd_info(arg: &str, dir: &Path, json: bool) -> Result<(), Failure> {
    let t = open_info_table(arg, dir)?;
    let h = t.header();
    let st = &h.stats;
    let index = t.index();
    let fen = (index.from_record_number(st.max_index))
        .and_then(|idx| index.decode(idx, Side::from_index(st.max_side as usize)))
        .filter(|_| st.max_plies > 0)
        .map_or("-".to_string(), |p| p.to_string());
    let counts = |s: usize| {
        let x = &st.sides[s];
        json!({
            "positions": x.positions,
            "win": x.win,
            "draw": x.draw,
            "loss": x.loss,
            "cursed_win": x.cursed_win,
            "blessed_loss": x.blessed_loss,
        })
    };
    if json {
        let v = json!({
            "signature": h.material.to_string(),
            "pieces": h.material.pieces(),
            "bytes": t.bytes(),
            "wdl_bytes": t.layer_bytes().0,
            "dtm_bytes": t.layer_bytes().1,
            "dtz_bytes": t.layer_bytes().2,
            "dtm_side": side(t.dtm_side()),
            "dtz_side": t.dtz_side().map(side),
            "white": counts(0),
            "black": counts(1),
            "max_dtm": {"plies": st.max_plies, "moves": st.max_plies.div_ceil(2), "fen": fen},
        });
        say(format!("{v}"))?;
    } else {
        say(format!(
            "{} ({} pieces, {} bytes, {})",
            h.material,
            h.material.pieces(),
            t.bytes(),
            t.path().display()
        ))?;
        let (wdl, dtm, dtz) = t.layer_bytes();
        let dtz = match t.dtz_side() {
            Some(s) => format!("DTZ {dtz} bytes ({} to move stored)", side(s)),
            None => "no DTZ (built before DTZ layers: rebuild it with gen)".into(),
        };
        say(format!(
            "  layers: WDL {wdl} bytes, DTM {dtm} bytes ({} to move stored), {dtz}",
            side(t.dtm_side())
        ))?;
        for (s, name) in [(0, "white to move"), (1, "black to move")] {
            let x = &st.sides[s];
            say(format!(
                "  {name}: {} positions, {} win ({} cursed), {} draw, {} loss ({} blessed)",
                x.positions, x.win, x.cursed_win, x.draw, x.loss, x.blessed_loss
            ))?;
        }
        say(format!(
            "  longest mate: {} plies ({} moves), e.g. {fen}",
            st.max_plies,
            st.max_plies.div_ceil(2)
        ))?;
    }
    Ok(())
}

/// A chess position's report (`Tablebase::report`) as `probe` gives it, in JSON (`json`)
/// or in words (`text`), with the move count the words name.
struct ChessValue {
    report: PositionReport,
    /// The move count (plies since the last capture or pawn move).
    clock: u32,
}

impl ChessValue {
    /// The position asked about.
    fn of(tb: &Tablebase, pos: &Position) -> Result<ChessValue, ProbeError> {
        Ok(ChessValue {
            report: tb.report(pos)?,
            clock: pos.halfmoves(),
        })
    }

    /// The position `m` leads to from `pos`.
    fn after(tb: &Tablebase, pos: &Position, m: &Move) -> Result<ChessValue, ProbeError> {
        Ok(ChessValue {
            report: tb.report_after(pos, m)?,
            clock: pos.play(m).halfmoves(),
        })
    }

    fn end(&self) -> Option<Ending> {
        match (self.report.checkmate, self.report.stalemate) {
            (true, _) => Some(Ending::Checkmate),
            (_, true) => Some(Ending::Stalemate),
            _ => None,
        }
    }

    fn json(&self) -> serde_json::Value {
        let r = &self.report;
        let mut o = json!({
            "wdl": r.dtm.wdl().as_str(),
            "wdl50": r.wdl50.as_str(),
            "dtz": r.dtz.0,
            "category": r.category.as_str(),
            "outcome": r.outcome().as_str(),
            "dtm_plies": r.dtm.plies(),
        });
        merge(&mut o, Ending::json(self.end()));
        o
    }

    fn text(&self) -> String {
        let r = &self.report;
        let mut s = words(r.dtm, self.end(), "a draw");
        if r.wdl50.is_cursed() {
            s += &format!(
                ", a {} (drawn by the 50-move rule)",
                r.wdl50.as_str().replace('-', " ")
            );
        }
        if r.dtz.0 != 0 && self.end().is_none() {
            let at = r.dtz.0.unsigned_abs();
            s += &format!(
                "; {at} {} to a capture, pawn move or mate: {} with the move count at {}",
                if at == 1 { "ply" } else { "plies" },
                match r.outcome() {
                    Wdl::Win => "a win",
                    Wdl::Loss => "a loss",
                    Wdl::Draw => "a draw by the 50-move rule",
                },
                self.clock
            );
        }
        s
    }
}

/// The side to move's name, as the text output says it.
fn side(c: Side) -> &'static str {
    match c {
        Side::White => "white",
        Side::Black => "black",
    }
}

pub fn cmd_probe(fens: &[String], dir: &Path, json: bool) -> Result<(), Failure> {
    let tb = Tablebase::open(dir).map_err(runtime)?;
    let mut failures = Failures::default();
    let mut stdout = std::io::stdout().lock();
    for fen in fens {
        let Some(pos) = failures.read(fen, fen.parse::<Position>()) else {
            continue;
        };
        let answer = (|| {
            let v = ChessValue::of(&tb, &pos)?;
            let mut moves = Vec::new();
            for m in tb.probe_root_clock(&pos, false)? {
                let after = ChessValue::after(&tb, &pos, &m.mv)?;
                moves.push((m.mv, pos.san(&m.mv), after));
            }
            Ok((v, moves))
        })()
        .map_err(|e| with_hint(e, dir, ""));
        let Some((v, moves)) = failures.probed(fen, answer) else {
            continue;
        };
        let line = if json {
            let mut o = json!({"fen": fen});
            merge(&mut o, v.json());
            o["moves"] = moves
                .iter()
                .map(|(m, san, after)| {
                    let mut x = json!({"uci": m.to_string(), "san": san});
                    merge(&mut x, after.json());
                    x
                })
                .collect();
            o.to_string()
        } else {
            let mut s = format!("{fen}\n  {} to move: {}", side(pos.turn()), v.text());
            if !moves.is_empty() {
                s += &format!("\n  after each move, {} to move:", side(!pos.turn()));
            }
            for (m, san, after) in &moves {
                s += &format!("\n    {san:<7} {:<6} {}", m.to_string(), after.text());
            }
            s
        };
        writeln!(stdout, "{line}").map_err(write_failed)?;
    }
    failures.end(fens.len())
}

pub fn cmd_verify(signatures: &[String], dir: &Path, all_dtz: bool) -> Result<(), Failure> {
    let mut targets = Vec::new();
    for s in signatures {
        targets.push(parse_signature(s)?.canonical());
    }
    let mut tb = Tablebase::open(dir).map_err(runtime)?;
    if targets.is_empty() {
        targets = tb.materials().collect();
        sort_for_generation(&mut targets);
    }
    if targets.is_empty() {
        return Err(runtime(format!("no tables in {}", dir.display())));
    }
    // A table missing is refused when its turn comes.
    let sizes: Vec<u64> = targets
        .iter()
        .map(|m| {
            tb.table(m)
                .map_or(2 * TableIndex::new(*m).size(), verify_work)
        })
        .collect();
    let dtz = match all_dtz {
        true => DtzCheck::Every,
        false => DtzCheck::Sample,
    };
    let all: u64 = sizes.iter().sum();
    let bars = Bars::new(true, all);
    let (start, mut done) = (Instant::now(), 0u64);
    for (i, (m, size)) in targets.iter().zip(&sizes).enumerate() {
        let left =
            (done > 0).then(|| start.elapsed().as_secs_f64() * (all - done) as f64 / done as f64);
        bars.start(m, (i + 1, targets.len()), *size, left, None);
        verify_table(&mut tb, m, Threads::PerCore, dtz, &bars).map_err(|e| match e {
            VerifyError::Missing(m) => runtime(no_table(&m, dir, "")),
            e => runtime(format!("verify failed: {e}")),
        })?;
        bars.multi.suspend(|| say(format!("{m:<8} ok")))?;
        bars.finish_table(*size);
        done += size;
    }
    bars.total.finish_and_clear();
    bars.table.finish_and_clear();
    say(format!("verified {} tables", targets.len()))?;
    Ok(())
}
