//! `retrobook gen | info | probe | verify --game xiangqi`: the table commands for Chinese
//! chess.

use super::plan::{
    available_memory, bytes as plan_bytes, nothing_to_build, planned_json, planned_line,
    report_header, report_row, summary_line,
};
use super::progress::Bars;
use super::said::{merge, words, Ending};
use super::tables::{no_table, with_hint};
use crate::output::{runtime, say, usage, write_failed, Failure, Failures};
use retrobook::chess::Color;
use retrobook::generate::{peak_memory, Estimate};
use retrobook::probe::{ProbeError, XiangqiTablebase};
use retrobook::retro::{solve_table, Verdict};
use retrobook::table::xiangqi::{table_path, write, SideCounts, XiangqiFile, EXTENSION};
use retrobook::xiangqi::{Move, Position, Script, Signature, XiangqiIndex};
use retrobook::Dtm;
use serde_json::json;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

/// Width of the table column of `gen --game xiangqi`'s report (KRRAABBvKAABB is 13 long).
const NAME_WIDTH: usize = 14;

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

fn parse(s: &str) -> Result<Signature, Failure> {
    let sig: Signature = s
        .parse()
        .map_err(|e| usage(format!("bad xiangqi signature {s:?}: {e}")))?;
    let sig = if sig.is_canonical() {
        sig
    } else {
        sig.flipped()
    };
    match XiangqiIndex::try_new(sig) {
        Some(_) => Ok(sig),
        None => Err(usage(format!(
            "{sig}: too large a table (2^64 indices or more)"
        ))),
    }
}

/// Whether the table of `sig` is in `dir`, whole and of that material; a file there that
/// is not is named on stderr, to be built again.
fn built(dir: &Path, sig: &Signature) -> bool {
    let path = table_path(dir, sig);
    if !path.exists() {
        return false;
    }
    match XiangqiFile::open(&path) {
        Ok(f) if f.header().signature == *sig => true,
        Ok(f) => {
            eprintln!(
                "retrobook: {} holds {}, not {sig}: built again",
                path.display(),
                f.header().signature
            );
            false
        }
        Err(e) => {
            eprintln!("retrobook: {e}: built again");
            false
        }
    }
}

/// Every table with `attackers` attacking pieces (R, N, C, P) on Red's side, none on
/// Black's, and any advisors and elephants on both.
fn with_attackers(attackers: u32) -> Result<Vec<Signature>, Failure> {
    if attackers == 0 || attackers > 2 {
        return Err(usage("--all-attackers takes 1 or 2"));
    }
    let mut sets: Vec<String> = ATTACKERS.iter().map(|a| a.to_string()).collect();
    if attackers == 2 {
        sets = (0..4)
            .flat_map(|i| (i..4).map(move |j| format!("{}{}", ATTACKERS[i], ATTACKERS[j])))
            .collect();
    }
    let mut out = Vec::new();
    for attack in &sets {
        for red in DEFENDERS {
            for black in DEFENDERS {
                out.push(parse(&format!("K{attack}{red}vK{black}"))?);
            }
        }
    }
    Ok(out)
}

/// `targets` and their sub-tables, each once, every table after those its captures lead to.
fn in_order(targets: &[Signature]) -> Vec<Signature> {
    fn visit(sig: Signature, out: &mut Vec<Signature>) {
        if out.contains(&sig) {
            return;
        }
        for sub in sig.captures() {
            visit(
                if sub.is_canonical() {
                    sub
                } else {
                    sub.flipped()
                },
                out,
            );
        }
        out.push(sig);
    }
    let mut out = Vec::new();
    for &t in targets {
        visit(t, &mut out);
    }
    out
}

pub fn cmd_gen(
    signatures: &[String],
    all_attackers: Option<u32>,
    dir: &Path,
    memory_mib: Option<u64>,
    show_plan: bool,
    json: bool,
) -> Result<(), Failure> {
    let mut targets = signatures
        .iter()
        .map(|s| parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(n) = all_attackers {
        targets.extend(with_attackers(n)?);
    }
    if targets.is_empty() {
        return Err(usage(
            "name the xiangqi tables to build (KRvKAABB) or give --all-attackers 1",
        ));
    }
    let order = in_order(&targets);
    let tb = XiangqiTablebase::new(dir);
    let todo: Vec<&Signature> = order.iter().filter(|sig| !built(dir, sig)).collect();
    let size = |sig: &Signature| XiangqiIndex::new(*sig).size().saturating_mul(2);
    if show_plan {
        return plan(&todo, size, dir, json);
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        runtime(format!(
            "cannot create tables folder {}: {e}",
            dir.display()
        ))
    })?;
    let all: u64 = todo.iter().map(|s| size(s)).sum();
    let threads = rayon::current_num_threads();
    let estimate = |sig: &Signature| estimate_of(size(sig));
    if !json && !todo.is_empty() {
        let cpu = todo.iter().map(|s| estimate(s).cpu_seconds).sum();
        let largest = todo
            .iter()
            .max_by_key(|s| size(s))
            .map(|s| (s.to_string(), estimate(s).peak_bytes));
        let present = order.len() - todo.len();
        say(summary_line(
            todo.len(),
            present,
            all,
            cpu,
            threads,
            largest,
        ))?;
        say(report_header(NAME_WIDTH, "  by the rule"))?;
    }
    let bars = Bars::new(!json, all);
    let (start, mut built, mut bytes, mut done) = (Instant::now(), 0, 0u64, 0u64);
    let mut built_indices = 0u64;
    let mut skipped: Vec<Signature> = Vec::new();
    let skip = |sig: &Signature, why: &str| {
        bars.multi
            .suspend(|| eprintln!("retrobook: {sig}: skipped, {why}"));
    };
    for (i, sig) in todo.iter().enumerate() {
        // A table too large for the memory there is, or above one that was, is skipped:
        // the run builds what fits.
        let need = size(sig).saturating_mul(BYTES_PER_INDEX);
        let available = memory_mib
            .map(|m| m.saturating_mul(1 << 20))
            .or_else(available_memory);
        let missing = sig.captures().into_iter().find(|sub| {
            let sub = if sub.is_canonical() {
                *sub
            } else {
                sub.flipped()
            };
            skipped.contains(&sub)
        });
        if available.is_some_and(|a| need > a) || missing.is_some() {
            let why = match missing {
                Some(sub) => format!("its sub-table {sub} was skipped"),
                None => format!(
                    "it needs about {} of memory, {} allowed",
                    plan_bytes(need),
                    plan_bytes(available.unwrap_or(0))
                ),
            };
            skip(sig, &why);
            skipped.push(**sig);
            done += size(sig);
            bars.finish_table(size(sig));
            continue;
        }
        let t0 = Instant::now();
        // The pace so far (the estimate's at first) for what is left and for this table.
        let pace = match done {
            0 => estimate(sig).cpu_seconds / threads as f64 / size(sig).max(1) as f64,
            _ => start.elapsed().as_secs_f64() / done as f64,
        };
        let left = pace * (all - done) as f64;
        bars.start(
            sig,
            (i + 1, todo.len()),
            size(sig),
            Some(left),
            Some(pace * size(sig) as f64),
        );
        // A sub-table that cannot be read fails the table, which is then not written.
        let failed: Mutex<Option<ProbeError>> = Mutex::new(None);
        let sub = |pos: &Position| {
            tb.probe(pos).unwrap_or_else(|e| {
                failed.lock().expect("not poisoned").get_or_insert(e);
                Verdict::Plain(Dtm::Draw)
            })
        };
        // The rule's graph may use what the solved values leave.
        let rule_memory = available.map(|a| a.saturating_sub(size(sig) * SOLVED_BYTES_PER_INDEX));
        let solved = solve_table(**sig, &sub, &bars, rule_memory);
        if let Some(e) = failed.into_inner().expect("not poisoned") {
            return Err(runtime(format!("{sig}: a sub-table: {e}")));
        }
        let solved = match solved {
            Ok(solved) => solved,
            Err(e) => {
                skip(sig, &e.to_string());
                skipped.push(**sig);
                done += size(sig);
                bars.finish_table(size(sig));
                continue;
            }
        };
        let written = write(dir, &solved).map_err(runtime)?;
        let (h, size) = (&written.header, written.bytes);
        let seconds = t0.elapsed().as_secs_f64();
        let by_rule: u64 = h.sides.iter().map(|c| c.win_by_rule + c.loss_by_rule).sum();
        let line = if json {
            json!({
                "signature": sig.to_string(),
                "indices": 2 * h.size,
                "seconds": seconds,
                "bytes": size,
                "longest_mate_plies": h.longest.0,
                "by_rule": by_rule,
            })
            .to_string()
        } else {
            let row = report_row(
                &sig.to_string(),
                NAME_WIDTH,
                2 * h.size,
                seconds,
                peak_memory(),
                size,
                h.longest.0,
            );
            format!("{row}  {by_rule:>11}")
        };
        bars.multi.suspend(|| say(line))?;
        bars.finish_table(2 * h.size);
        built += 1;
        bytes += size;
        done += 2 * h.size;
        built_indices += 2 * h.size;
    }
    bars.total.finish_and_clear();
    bars.table.finish_and_clear();
    if !json {
        say(format!(
            "built {built} tables ({} already present) in {:.2} s, {built_indices} indices, {bytes} bytes, into {}",
            order.len() - todo.len(),
            start.elapsed().as_secs_f64(),
            dir.display()
        ))?;
    }
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
/// What a xiangqi table of `indices` indices (both sides) is expected to cost.
fn estimate_of(indices: u64) -> Estimate {
    Estimate {
        peak_bytes: indices.saturating_mul(BYTES_PER_INDEX),
        cpu_seconds: indices as f64 * CPU_SECONDS_PER_INDEX,
    }
}

fn plan(
    todo: &[&Signature],
    size: impl Fn(&Signature) -> u64,
    dir: &Path,
    json: bool,
) -> Result<(), Failure> {
    let threads = rayon::current_num_threads();
    if todo.is_empty() && !json {
        return say(nothing_to_build(dir));
    }
    for sig in todo {
        let indices = size(sig);
        let e = estimate_of(indices);
        let name = sig.to_string();
        let line = if json {
            planned_json(&name, indices, &e, true).to_string()
        } else {
            planned_line(&name, indices, &e, threads, "")
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
    let (plies, side, idx) = h.longest;
    let turn = retrobook::chess::Color::from_index(side);
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
        } = *c;
        say(format!(
            "  {name}: {positions} positions, {win} win, {draw} draw, {loss} loss; by the perpetual-check rule {win_by_rule} win, {loss_by_rule} loss"
        ))?;
    }
    say(format!(
        "  longest mate: {plies} plies ({} moves), e.g. {fen}",
        plies.div_ceil(2)
    ))
}

/// A xiangqi position's value as `probe` gives it: its verdict and how the game stands
/// when there is no move, in JSON (`json`) or in words (`text`).
struct XiangqiValue {
    verdict: Verdict,
    end: Option<Ending>,
}

impl XiangqiValue {
    fn of(pos: &Position, verdict: Verdict) -> XiangqiValue {
        let end = Ending::of(!pos.legal_moves().is_empty(), pos.in_check(pos.turn()));
        XiangqiValue { verdict, end }
    }

    fn json(&self) -> serde_json::Value {
        let v = self.verdict;
        let mut o = json!({
            "wdl": v.wdl().as_str(),
            "dtm_plies": v.plain().plies(),
            "by_rule": v.by_rule(),
        });
        merge(&mut o, Ending::json(self.end));
        o
    }

    fn text(&self) -> String {
        match self.verdict {
            Verdict::Plain(d) => words(d, self.end, "a loss"),
            Verdict::WinByRule => "win by the perpetual-check rule (path-dependent)".into(),
            Verdict::LossByRule => "loss by the perpetual-check rule (path-dependent)".into(),
        }
    }
}

/// The side to move's name, as the text output says it.
fn side(c: Color) -> &'static str {
    match c {
        Color::White => "red",
        Color::Black => "black",
    }
}

pub fn cmd_probe(fens: &[String], dir: &Path, json: bool) -> Result<(), Failure> {
    let tb = XiangqiTablebase::new(dir);
    let mut failures = Failures::default();
    let mut stdout = std::io::stdout().lock();
    for fen in fens {
        let Some(pos) = failures.read(fen, Position::from_fen(fen)) else {
            continue;
        };
        let answer = (|| {
            let v = XiangqiValue::of(&pos, tb.probe(&pos)?);
            let moves: Vec<(Move, XiangqiValue)> = tb
                .moves(&pos)?
                .into_iter()
                .map(|(m, after)| (m, XiangqiValue::of(&pos.play(&m), after)))
                .collect();
            Ok::<_, ProbeError>((v, moves, tb.mainline(&pos)?))
        })()
        .map_err(|e| with_hint(e, dir, " --game xiangqi"));
        let Some((v, moves, mainline)) = failures.probed(fen, answer) else {
            continue;
        };
        let line = if json {
            let mut o = json!({"fen": fen});
            merge(&mut o, v.json());
            o["moves"] = moves
                .iter()
                .map(|(m, after)| {
                    let mut x = json!({
                        "uci": m.to_string(),
                        "wxf": pos.wxf(m, Script::Chinese),
                        "wxf_ascii": pos.wxf(m, Script::Ascii),
                    });
                    merge(&mut x, after.json());
                    x
                })
                .collect();
            o["mainline"] = mainline.iter().map(|m| m.to_string()).collect();
            o.to_string()
        } else {
            let mut s = format!("{fen}\n  {} to move: {}", side(pos.turn()), v.text());
            if !moves.is_empty() {
                s += &format!("\n  after each move, {} to move:", side(!pos.turn()));
            }
            for (m, after) in &moves {
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
    let tb = XiangqiTablebase::new(dir);
    for sig in &targets {
        tb.verify(sig, available_memory())
            .map_err(|e| runtime(format!("verify failed: {e}")))?;
        say(format!("{sig:<14} ok"))?;
    }
    say(format!("verified {} tables", targets.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--all-attackers 1`: 4 attackers x 9 defender sets of Red's x 9 of Black's, all
    /// distinct, with 45 sub-tables more (advisors and elephants alone, bare kings);
    /// every table after its sub-tables.
    #[test]
    fn one_attacker_tables_and_their_order() {
        let targets = with_attackers(1).ok().unwrap();
        assert_eq!(targets.len(), 324);
        let order = in_order(&targets);
        assert_eq!(order.len(), 369);
        for (i, sig) in order.iter().enumerate() {
            assert!(sig.is_canonical());
            for sub in sig.captures() {
                let sub = if sub.is_canonical() {
                    sub
                } else {
                    sub.flipped()
                };
                assert!(order[..i].contains(&sub), "{sig} before {sub}");
            }
        }
        assert!(order.contains(&"KRAABBvKAABB".parse().unwrap()));
        assert_eq!(with_attackers(2).ok().unwrap().len(), 10 * 81);
        assert!(with_attackers(3).is_err());
    }
}
