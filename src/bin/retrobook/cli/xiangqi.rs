//! `retrobook gen | info | probe | verify --game xiangqi`: the table commands for Chinese
//! chess.

use super::plan::{
    available_memory, bytes as plan_bytes, nothing_to_build, planned_json, planned_line,
    report_header, report_row, summary_line,
};
use super::progress::Bars;
use super::tables::{no_table, with_hint};
use crate::output::{runtime, say, usage, write_failed, Failure, Failures};
use crate::xiangqi_answer::XiangqiAnswer;
use retrobook::generate::xiangqi::{estimate, in_order, indices, with_attackers, XiangqiOptions};
use retrobook::generate::{Built, Session, Skip};
use retrobook::probe::{Tablebase, Xiangqi};
use retrobook::table::xiangqi::{table_path, SideCounts, XiangqiFile, EXTENSION};
use retrobook::xiangqi::{side_name, Position, Script, Signature, XiangqiIndex};
use retrobook::Threads;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Width of the table column of `gen --game xiangqi`'s report (KRRAABBvKAABB is 13 long).
const NAME_WIDTH: usize = 14;

fn parse(s: &str) -> Result<Signature, Failure> {
    let sig: Signature = s
        .parse()
        .map_err(|e| usage(format!("bad xiangqi signature {s:?}: {e}")))?;
    let sig = sig.canonical();
    match XiangqiIndex::try_new(sig) {
        Some(_) => Ok(sig),
        None => Err(usage(format!(
            "{sig}: too large a table (2^64 indices or more)"
        ))),
    }
}

pub fn cmd_gen(
    signatures: &[String],
    all_attackers: Option<u32>,
    dir: &Path,
    threads: Threads,
    memory_mib: Option<u64>,
    show_plan: bool,
    json: bool,
) -> Result<(), Failure> {
    let mut targets = signatures
        .iter()
        .map(|s| parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(n) = all_attackers {
        targets.extend(with_attackers(n).ok_or_else(|| usage("--all-attackers takes 1 or 2"))?);
    }
    if targets.is_empty() {
        return Err(usage(
            "name the xiangqi tables to build (KRvKAABB) or give --all-attackers 1",
        ));
    }
    let mut session = Session::open(dir, &targets);
    for problem in &session.damaged {
        eprintln!("retrobook: {problem}; built again");
    }
    let todo = session.todo().to_vec();
    if show_plan {
        return plan(&todo, dir, threads.count(), json);
    }
    let stale = session.prepare().map_err(runtime)?;
    if stale > 0 {
        eprintln!("retrobook: removed {stale} unfinished file(s) of an interrupted run");
    }
    let all: u64 = todo.iter().map(|&s| indices(s)).sum();
    let threads_count = threads.count();
    if !json && !todo.is_empty() {
        let cpu = todo.iter().map(|&s| estimate(s).cpu_seconds).sum();
        let largest = (todo.iter())
            .max_by_key(|&&s| indices(s))
            .map(|s| (s.to_string(), estimate(*s).peak_bytes));
        let present = session.order().len() - todo.len();
        say(summary_line(
            todo.len(),
            present,
            all,
            cpu,
            threads_count,
            largest,
        ))?;
        say(report_header(
            NAME_WIDTH,
            "  by the rule  by chase  not judged",
        ))?;
    }
    let bars = Bars::new(!json, all);
    let start = Instant::now();
    let (mut built, mut bytes, mut done, mut built_indices) = (0, 0u64, 0u64, 0u64);
    while let Some(&sig) = todo.get(session.done()) {
        let size = indices(sig);
        // The pace so far (the estimate's at first) for what is left and for this table.
        let pace = match done {
            0 => estimate(sig).cpu_seconds / threads_count as f64 / size.max(1) as f64,
            _ => start.elapsed().as_secs_f64() / done as f64,
        };
        let left = pace * (all - done) as f64;
        bars.start(
            &sig,
            (session.done() + 1, todo.len()),
            size,
            Some(left),
            Some(pace * size as f64),
        );
        // The memory there is now, unless a limit is given.
        let memory = memory_mib
            .map(|m| m.saturating_mul(1 << 20))
            .or_else(available_memory);
        let opts = XiangqiOptions { threads, memory };
        let next = session.build_next(&opts, &bars).expect("a table left");
        done += size;
        bars.finish_table(size);
        let report = match next.map_err(runtime)? {
            Built::Table(report) => report,
            Built::Skipped(sig, why) => {
                let why = match why {
                    Skip::SubTable(sub) => format!("its sub-table {sub} was skipped"),
                    Skip::Memory { need, allowed } => format!(
                        "it needs about {} of memory, {} allowed",
                        plan_bytes(need),
                        plan_bytes(allowed)
                    ),
                    Skip::RuleGraph(e) => e.to_string(),
                };
                bars.multi
                    .suspend(|| eprintln!("retrobook: {sig}: skipped, {why}"));
                continue;
            }
        };
        let line = if json {
            json!({
                "signature": report.signature.to_string(),
                "indices": report.indices,
                "seconds": report.seconds,
                "bytes": report.bytes,
                "longest_mate_plies": report.longest_plies,
                "by_rule": report.by_rule,
                "by_chase": report.by_chase,
                "unjudged": report.unjudged,
            })
            .to_string()
        } else {
            let row = report_row(
                &report.signature.to_string(),
                NAME_WIDTH,
                report.indices,
                report.seconds,
                report.peak_memory,
                report.bytes,
                report.longest_plies,
            );
            let rules = (report.by_rule, report.by_chase, report.unjudged);
            format!("{row}  {:>11}  {:>8}  {:>10}", rules.0, rules.1, rules.2)
        };
        bars.multi.suspend(|| say(line))?;
        built += 1;
        bytes += report.bytes;
        built_indices += report.indices;
    }
    bars.total.finish_and_clear();
    bars.table.finish_and_clear();
    if !json {
        say(format!(
            "built {built} tables ({} already present) in {:.2} s, {built_indices} indices, {bytes} bytes, into {}",
            session.order().len() - todo.len(),
            start.elapsed().as_secs_f64(),
            dir.display()
        ))?;
    }
    let skipped = session.skipped();
    if !skipped.is_empty() {
        let names: Vec<String> = skipped.iter().map(|s| s.to_string()).collect();
        return Err(runtime(format!(
            "{} tables skipped for memory: {}",
            skipped.len(),
            names.join(" ")
        )));
    }
    Ok(())
}

/// `gen --plan`: each table to build, in order, with its estimate (the solve's; a table's
/// perpetual-check graph, sized only once its draws are counted, comes on top).
fn plan(todo: &[Signature], dir: &Path, threads: usize, json: bool) -> Result<(), Failure> {
    if todo.is_empty() && !json {
        return say(nothing_to_build(dir));
    }
    for &sig in todo {
        let (n, e, name) = (indices(sig), estimate(sig), sig.to_string());
        let line = if json {
            planned_json(&name, n, &e, true).to_string()
        } else {
            planned_line(&name, n, &e, threads, "")
        };
        say(line)?;
    }
    Ok(())
}

/// True if `arg` names a file whose header says xiangqi.
pub fn is_xiangqi_file(arg: &str) -> bool {
    let mut head = [0u8; 24];
    // Only a regular file is opened: a FIFO would wait for a writer.
    let opened = if std::fs::metadata(arg).is_ok_and(|m| m.is_file()) {
        std::fs::File::open(arg)
    } else {
        Err(std::io::ErrorKind::InvalidInput.into())
    };
    opened
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| head[16..24].starts_with(retrobook::table::xiangqi::GAME.as_bytes()))
}

fn open(arg: &str, dir: &Path) -> Result<XiangqiFile, Failure> {
    let as_path = Path::new(arg);
    let path = if std::fs::metadata(as_path).is_ok_and(|m| !m.is_dir()) {
        as_path.to_path_buf()
    } else {
        table_path(dir, &parse(arg)?)
    };
    if !path.exists() {
        return Err(runtime(match parse(arg) {
            Ok(sig) => no_table(&sig, dir, " --game xiangqi"),
            Err(_) => format!("no table {}", path.display()),
        }));
    }
    XiangqiFile::open(&path).map_err(runtime)
}

pub fn cmd_info(arg: &str, dir: &Path, json: bool) -> Result<(), Failure> {
    let file = open(arg, dir)?;
    let h = file.header();
    let (plies, turn, idx) = h.longest;
    let fen = (plies > 0)
        .then(|| file.index().decode(idx, turn))
        .flatten()
        .map_or("-".to_string(), |p| p.to_fen());
    let bytes = std::fs::metadata(file.path()).map_or(0, |m| m.len());
    if json {
        let v = json!({
            "game": "xiangqi",
            "signature": h.signature.to_string(),
            "bytes": bytes,
            "red": h.sides[0],
            "black": h.sides[1],
            "max_dtm": {"plies": plies, "moves": plies.div_ceil(2), "fen": fen},
        });
        return say(v);
    }
    say(format!(
        "{} ({bytes} bytes, {})",
        h.signature,
        file.path().display()
    ))?;
    for (c, name) in h.sides.iter().zip(["red to move", "black to move"]) {
        let SideCounts {
            positions,
            win,
            draw,
            loss,
            win_by_rule,
            loss_by_rule,
            by_chase,
            path_dependent,
            unjudged,
        } = *c;
        say(format!(
            "  {name}: {positions} positions, {win} win, {draw} draw, {loss} loss; by the repetition rules {win_by_rule} win, {loss_by_rule} loss ({by_chase} by perpetual chase); {path_dependent} path-dependent; {unjudged} not judged for chases"
        ))?;
    }
    say(format!(
        "  longest mate: {plies} plies ({} moves), e.g. {fen}",
        plies.div_ceil(2)
    ))
}

/// The side to move's name, as the text output says it.
pub fn cmd_probe(fens: &[String], dir: &Path, json: bool) -> Result<(), Failure> {
    let tb = Tablebase::<Xiangqi>::open(dir).map_err(runtime)?;
    let mut failures = Failures::default();
    let mut stdout = std::io::stdout().lock();
    for fen in fens {
        let Some(pos) = failures.read(fen, Position::from_fen(fen)) else {
            continue;
        };
        let answer =
            XiangqiAnswer::probe(&tb, &pos).map_err(|e| with_hint(e, dir, " --game xiangqi"));
        let Some(answer) = failures.probed(fen, answer) else {
            continue;
        };
        let line = if json {
            answer.json(fen, &pos).to_string()
        } else {
            let (v, moves, mainline) = (&answer.value, &answer.moves, &answer.mainline);
            let mut s = format!("{fen}\n  {} to move: {}", side_name(pos.turn()), v.text());
            if !moves.is_empty() {
                s += &format!("\n  after each move, {} to move:", side_name(!pos.turn()));
            }
            for (m, after) in moves {
                s += &format!(
                    "\n    {:<6} {:<8} {:<6} {}",
                    pos.wxf(m, Script::Chinese),
                    pos.wxf(m, Script::Ascii),
                    m.to_string(),
                    after.text()
                );
            }
            if !mainline.is_empty() {
                let line: Vec<String> = mainline.iter().map(|m| m.to_string()).collect();
                s += &format!("\n  mainline: {}", line.join(" "));
            }
            s
        };
        writeln!(stdout, "{line}").map_err(write_failed)?;
    }
    failures.end(fens.len())
}

pub fn cmd_verify(signatures: &[String], dir: &Path) -> Result<(), Failure> {
    let mut targets = signatures
        .iter()
        .map(|s| parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    if targets.is_empty() {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| runtime(format!("cannot read tables folder {}: {e}", dir.display())))?;
        for e in entries.flatten() {
            let path = e.path();
            if path.extension().is_some_and(|x| x == EXTENSION) {
                // A file that does not open fails the check, as a wrong value would.
                let f =
                    XiangqiFile::open(&path).map_err(|e| runtime(format!("verify failed: {e}")))?;
                targets.push(f.header().signature);
            }
        }
        targets = in_order(&targets)
            .into_iter()
            .filter(|s| table_path(dir, s).exists())
            .collect();
    }
    if targets.is_empty() {
        return Err(runtime(format!("no xiangqi tables in {}", dir.display())));
    }
    let tb = Tablebase::<Xiangqi>::open(dir).map_err(runtime)?;
    for sig in &targets {
        tb.verify(sig, available_memory())
            .map_err(|e| runtime(format!("verify failed: {e}")))?;
        say(format!("{sig:<14} ok"))?;
    }
    say(format!("verified {} tables", targets.len()))
}
