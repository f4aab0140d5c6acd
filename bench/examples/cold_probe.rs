//! Cold probes as an engine makes them: positions scattered over a whole table, each probed
//! once, in a fresh process, on one thread.
//!
//! ```text
//! cargo run --release -p retrobook-bench --example cold_probe -- positions KQRvKR 1000000 > kqrvkr.fen
//! cargo run --release -p retrobook-bench --example cold_probe -- wdl tables kqrvkr.fen [--out results.txt]
//! cargo run --release -p retrobook-bench --example cold_probe -- dtm tables kqrvkr.fen
//! cargo run --release -p retrobook-bench --example cold_probe -- dtz tables kqrvkr.fen [--out results.txt]
//! cargo run --release -p retrobook-bench --example cold_probe -- root tables kqrvkr.fen [--out results.txt]
//! ```
//!
//! `positions` writes uniformly random legal positions of a material (pieces on distinct
//! random squares, either side to move, kept when legal: one line of FEN each, a fixed
//! pseudo-random sequence per `--seed`). `wdl`, `dtm`, `dtz` and `root` read such a file,
//! open the tables, then time one probe of every position and print the time per probe
//! (reading the file and opening the tables are not timed; `dtm` also prints the median of
//! single probes): `wdl` probes `probe_wdl`, `dtm` `probe_dtm`, `dtz` `probe_dtz`, and
//! `root` ranks every move with `probe_root_clock` from the FEN's halfmove clock (no
//! repetition). With `--out`, each writes one line per position so that answers can be
//! compared with another prober's, `?` for a failed probe: `wdl` a letter, `W` win, `D`
//! draw, `L` loss (without the 50-move rule); `dtz` the signed distance to zeroing in plies
//! (positive: the side to move wins; beyond 100 the rule spoils it); `root` the first
//! (best) move's outcome under the rule from the clock as a letter, its distance to zeroing
//! from the root signed for the side to move (the root's own when that move resets
//! soonest), and the move in UCI, as `W 13 a1a8`, or `-` when the side to move has no move.

use retrobook::chess::{Piece, Position, Role, Square};
use retrobook::material::Material;
use retrobook::Side;
use retrobook::{Tablebase, Wdl};
use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;
use std::time::Instant;

/// xorshift64: a fixed sequence per seed, so files are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn random_positions(material: &Material, count: usize, seed: u64) -> Vec<Position> {
    let mut pieces = Vec::new();
    for color in Side::ALL {
        for role in Role::ALL {
            for _ in 0..material.count(color, role) {
                pieces.push(Piece { color, role });
            }
        }
    }
    let mut rng = Rng(seed.max(1));
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let turn = Side::from_index(rng.below(2) as usize);
        let mut pos = Position::empty(turn);
        let mut ok = true;
        for &p in &pieces {
            let sq = Square::from_index(rng.below(64) as u32);
            if pos.piece_at(sq).is_some() {
                ok = false;
                break;
            }
            pos.put(sq, p);
        }
        if ok && pos.validate().is_ok() {
            out.push(pos);
        }
    }
    out
}

fn read_positions(path: &str) -> Result<Vec<Position>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let mut out = Vec::new();
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{path}: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let pos = line.parse().map_err(|e| format!("{path}:{}: {e}", n + 1))?;
        out.push(pos);
    }
    Ok(out)
}

fn letter(w: Result<Wdl, retrobook::ProbeError>) -> u8 {
    match w {
        Ok(Wdl::Win) => b'W',
        Ok(Wdl::Draw) => b'D',
        Ok(Wdl::Loss) => b'L',
        Err(_) => b'?',
    }
}

fn create(path: &str) -> Result<BufWriter<std::fs::File>, String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?;
    Ok(BufWriter::new(file))
}

/// Probes every position once (`probe`), the whole loop timed, and prints the time per
/// probe and how many answers are `failed`; with `out`, writes each answer's `line`.
fn timed<T>(
    kind: &str,
    positions: &[Position],
    mut probe: impl FnMut(&Position) -> T,
    failed: impl Fn(&T) -> bool,
    out: Option<String>,
    line: impl Fn(&T) -> String,
) -> Result<(), String> {
    let mut answers = Vec::with_capacity(positions.len());
    let start = Instant::now();
    for pos in positions {
        answers.push(probe(pos));
    }
    let ns = start.elapsed().as_nanos() as f64 / positions.len().max(1) as f64;
    let failed = answers.iter().filter(|a| failed(a)).count();
    println!(
        "retrobook {kind}: {} probes, {ns:.1} ns/probe, failed {failed}",
        positions.len()
    );
    if let Some(out) = out {
        let mut w = create(&out)?;
        for a in &answers {
            writeln!(w, "{}", line(a)).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

fn run(args: &[String]) -> Result<(), String> {
    let usage = "usage: cold_probe positions SIG COUNT [--seed N] | wdl TABLES FILE [--out FILE] | dtm TABLES FILE | dtz TABLES FILE [--out FILE] | root TABLES FILE [--out FILE]";
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    match args.first().map(String::as_str) {
        Some("positions") if args.len() >= 3 => {
            let material: Material = args[1].parse().map_err(|e| format!("{e}"))?;
            let count: usize = args[2].parse().map_err(|_| usage.to_string())?;
            let seed = flag("--seed").map_or(Ok(1), |s| s.parse().map_err(|_| usage))?;
            let stdout = std::io::stdout();
            let mut w = BufWriter::new(stdout.lock());
            for pos in random_positions(&material, count, seed) {
                writeln!(w, "{pos}").map_err(|e| e.to_string())?;
            }
            Ok(())
        }
        Some(kind @ ("wdl" | "dtm" | "dtz" | "root")) if args.len() >= 3 => {
            let positions = read_positions(&args[2])?;
            let tb = Tablebase::open(&args[1]).map_err(|e| e.to_string())?;
            let n = positions.len().max(1) as f64;
            let out = flag("--out");
            if kind == "wdl" {
                let probe = |pos: &Position| letter(tb.probe_wdl(pos));
                timed(
                    kind,
                    &positions,
                    probe,
                    |&a| a == b'?',
                    out,
                    |&a| (a as char).to_string(),
                )?;
            } else if kind == "dtz" {
                let probe = |pos: &Position| tb.probe_dtz(pos).ok();
                timed(kind, &positions, probe, Option::is_none, out, |a| match a {
                    Some(d) => d.to_string(),
                    None => "?".into(),
                })?;
            } else if kind == "root" {
                let probe = |pos: &Position| {
                    tb.probe_root_clock(pos, false)
                        .map(|moves| moves.first().map(|m| (m.root_outcome, m.root_dtz, m.mv)))
                };
                timed(kind, &positions, probe, Result::is_err, out, |a| match a {
                    Ok(Some((outcome, dtz, mv))) => {
                        format!("{} {dtz} {mv}", letter(Ok(*outcome)) as char)
                    }
                    Ok(None) => "-".into(),
                    Err(_) => "?".into(),
                })?;
            } else {
                let mut times = Vec::with_capacity(positions.len());
                let mut failed = 0;
                let start = Instant::now();
                for pos in &positions {
                    let t = Instant::now();
                    failed += usize::from(tb.probe_dtm(pos).is_err());
                    times.push(t.elapsed().as_nanos() as u64);
                }
                let ns = start.elapsed().as_nanos() as f64 / n;
                times.sort_unstable();
                let median = times.get(times.len() / 2).copied().unwrap_or(0);
                println!(
                    "retrobook dtm: {} probes, {ns:.1} ns/probe, median {median} ns, failed {failed}",
                    positions.len()
                );
            }
            Ok(())
        }
        _ => Err(usage.into()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
