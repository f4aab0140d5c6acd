//! Load benchmark of `retrobook serve`: many clients at once over loopback, from a second
//! process, with the server's answers checked against the command line's.
//!
//! ```text
//! cargo build --release
//! cargo run --release -- serve --tables DIR --book FILE --bind 127.0.0.1:0
//!     (in another terminal; the last word of the line it prints is its URL)
//! cargo run --release -p retrobook-bench --example serve_load -- URL DIR FILE [--clients 64] [--requests 20000]
//!     [--seconds 30] [--check 200] [--out summary.json]
//! ```
//!
//! `DIR` and `FILE` are the tables folder and the book the server was started with: the
//! benchmark opens them itself to make its requests, all made before the clock starts.
//! `/standard` requests ask about random legal positions (no castling, no en passant) of 3
//! to 5 pieces whose tables, and all their sub-tables, are in `DIR` (a piece count first,
//! at random among those present, then a material of that count); `/book` requests ask
//! about positions reached by random book moves from the start position, one in eight
//! then taken one random legal move off the book (`--book-percent` of the requests).
//!
//! `--clients` threads, each with its own HTTP agent keeping its connection alive, send
//! the requests one after another until all `--requests` are sent or `--seconds` have
//! passed. Any answer but 200 or any transport failure is an error. `--check` of the answers
//! received under load, taken at random over the whole run, are compared with the command
//! line's once the clock has stopped (`--bin`: `retrobook probe FEN --tables DIR --json`
//! for `/standard`, `retrobook book probe FEN --book FILE --json` for `/book`), and each
//! `/standard` answer is also checked against itself (best move first, the position's
//! distance one ply beyond its best move's). It prints a summary (and writes it as JSON
//! with `--out`), and exits 1 on any error or mismatch, naming the position. `--bin`'s
//! default, `target/release/retrobook`, is the one built above when run from the
//! repository's root.

use clap::Parser;
use retrobook::book::Book;
use retrobook::chess::{MoveList, Piece, Position, Role, Square};
use retrobook::material::Material;
use retrobook::Side;
use retrobook::{Game, Tablebase};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(about = "Load benchmark of `retrobook serve`, with its answers checked")]
struct Args {
    /// The server's URL (the last word of the line `retrobook serve` prints).
    url: String,
    /// The tables folder the server was started with.
    tables: PathBuf,
    /// The book the server was started with.
    book: PathBuf,
    /// Clients sending requests at once.
    #[arg(long, default_value_t = 64)]
    clients: usize,
    /// Requests in all (the run ends when they are sent or at --seconds).
    #[arg(long, default_value_t = 20_000)]
    requests: usize,
    /// Longest run, in seconds.
    #[arg(long, default_value_t = 30.0)]
    seconds: f64,
    /// Answers compared with the command line's.
    #[arg(long, default_value_t = 200)]
    check: usize,
    /// Share of the requests asking the book, in percent (the others ask the tables).
    #[arg(long, default_value_t = 25)]
    book_percent: u64,
    /// The `retrobook` binary the answers are compared with.
    #[arg(long, default_value = "target/release/retrobook")]
    bin: PathBuf,
    /// Seed of the positions and of the sample checked.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the summary as JSON to this file.
    #[arg(long)]
    out: Option<PathBuf>,
}

/// xorshift64*: the same requests for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    Standard,
    Book,
}

impl Kind {
    fn path(self) -> &'static str {
        match self {
            Kind::Standard => "/standard",
            Kind::Book => "/book",
        }
    }
}

struct Request {
    kind: Kind,
    fen: String,
}

/// The materials of `tb` whose table and sub-tables (all the way down) are all present.
fn complete_materials(tb: &Tablebase) -> Vec<Material> {
    fn complete(m: &Material, present: &HashSet<Material>) -> bool {
        present.contains(m) && m.subtables().iter().all(|s| complete(s, present))
    }
    let present: HashSet<Material> = tb.materials().collect();
    let mut out: Vec<Material> = present
        .iter()
        .filter(|m| (3..=5).contains(&m.pieces()) && complete(m, &present))
        .copied()
        .collect();
    out.sort();
    out
}

/// A random legal position of `m` (either colour holding either side, either to move), or
/// None when the pieces drawn collide or the placement is illegal.
fn random_position(m: &Material, rng: &mut Rng) -> Option<Position> {
    let flip = rng.below(2) == 1;
    let mut pos = Position::empty(Side::from_index(rng.below(2)));
    for color in Side::ALL {
        for role in Role::ALL {
            for _ in 0..m.count(color, role) {
                let color = if flip { !color } else { color };
                let sq = if role == Role::Pawn {
                    Square::from_index(8 + rng.below(48) as u32)
                } else {
                    Square::from_index(rng.below(64) as u32)
                };
                if pos.piece_at(sq).is_some() {
                    return None;
                }
                pos.put(sq, Piece { color, role });
            }
        }
    }
    let (w, b) = (pos.king(Side::White)?, pos.king(Side::Black)?);
    (w.distance(b) > 1 && pos.validate().is_ok()).then_some(pos)
}

/// A position of the book: random book moves from the start (up to 24 plies, until the
/// book has none), then one time in eight a random legal move.
fn book_position(book: &Book, rng: &mut Rng) -> Position {
    let mut pos = Position::start();
    for _ in 0..rng.below(25) {
        let moves = book.probe(&pos).moves;
        if moves.is_empty() {
            break;
        }
        pos = pos.play(&moves[rng.below(moves.len())].mv);
    }
    if rng.below(8) == 0 {
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        if !list.is_empty() {
            pos = pos.play(&list.as_slice()[rng.below(list.len())]);
        }
    }
    pos
}

/// The requests, in the order they are sent.
fn make_requests(args: &Args, tb: &Tablebase, book: &Book) -> Result<Vec<Request>, String> {
    let materials = complete_materials(tb);
    let mut counts: Vec<u32> = materials.iter().map(Material::pieces).collect();
    counts.sort_unstable();
    counts.dedup();
    if materials.is_empty() && args.book_percent < 100 {
        return Err(format!(
            "{}: no table of 3 to 5 pieces with all its sub-tables",
            args.tables.display()
        ));
    }
    let mut rng = Rng(args.seed.max(1));
    let mut out = Vec::with_capacity(args.requests);
    while out.len() < args.requests {
        if (rng.below(100) as u64) < args.book_percent {
            let fen = book_position(book, &mut rng).to_string();
            out.push(Request {
                kind: Kind::Book,
                fen,
            });
            continue;
        }
        let n = counts[rng.below(counts.len())];
        let of_n: Vec<&Material> = materials.iter().filter(|m| m.pieces() == n).collect();
        let m = of_n[rng.below(of_n.len())];
        let pos = loop {
            if let Some(p) = random_position(m, &mut rng) {
                break p;
            }
        };
        out.push(Request {
            kind: Kind::Standard,
            fen: pos.to_string(),
        });
    }
    Ok(out)
}

/// One request: its answer's body, or what went wrong.
fn send(agent: &ureq::Agent, base: &str, r: &Request) -> Result<String, String> {
    match agent
        .get(&format!("{base}{}", r.kind.path()))
        .query("fen", &r.fen)
        .call()
    {
        Ok(resp) => resp
            .into_string()
            .map_err(|e| format!("reading the answer: {e}")),
        Err(ureq::Error::Status(code, resp)) => Err(format!(
            "HTTP {code}: {}",
            resp.into_string().unwrap_or_default().trim()
        )),
        Err(ureq::Error::Transport(t)) => Err(format!("transport: {t}")),
    }
}

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(60))
        .build()
}

/// What one client saw.
#[derive(Default)]
struct Seen {
    /// (request, latency in microseconds).
    done: Vec<(usize, u64)>,
    /// (request, what went wrong).
    errors: Vec<(usize, String)>,
    /// (request, answer): a uniform sample of the client's answers (reservoir sampling).
    sampled: Vec<(usize, String)>,
}

/// Runs the clients; returns what they saw and the seconds from start to the last answer.
fn run_clients(args: &Args, base: &str, requests: &[Request]) -> (Vec<Seen>, f64) {
    let next = AtomicUsize::new(0);
    let barrier = Barrier::new(args.clients + 1);
    let bound = Duration::from_secs_f64(args.seconds);
    // Each client keeps its share of the answers to check, so that the union holds
    // `--check` answers taken evenly over the run, whichever bound ends it.
    let quota = args.check.div_ceil(args.clients);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..args.clients)
            .map(|c| {
                let (next, barrier) = (&next, &barrier);
                s.spawn(move || {
                    let mut rng = Rng((args.seed ^ ((c as u64 + 1) << 32)) | 1);
                    let mut answered = 0;
                    let agent = agent();
                    // Opens the client's connection before the clock starts.
                    let warm = agent
                        .get(&format!("{base}/health"))
                        .call()
                        .map(|r| r.into_string());
                    barrier.wait();
                    let deadline = Instant::now() + bound;
                    let mut seen = Seen::default();
                    if let Err(e) = warm {
                        seen.errors.push((usize::MAX, format!("/health: {e}")));
                    }
                    while Instant::now() < deadline {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(r) = requests.get(i) else { break };
                        let t = Instant::now();
                        let answer = send(&agent, base, r);
                        let micros = t.elapsed().as_micros() as u64;
                        seen.done.push((i, micros));
                        match answer {
                            Ok(body) if quota > 0 => {
                                answered += 1;
                                if seen.sampled.len() < quota {
                                    seen.sampled.push((i, body));
                                } else if let Some(kept) = seen.sampled.get_mut(rng.below(answered))
                                {
                                    *kept = (i, body);
                                }
                            }
                            Ok(_) => {}
                            Err(e) => seen.errors.push((i, e)),
                        }
                    }
                    seen
                })
            })
            .collect();
        barrier.wait();
        let start = Instant::now();
        let seen: Vec<Seen> = handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| Seen {
                    errors: vec![(usize::MAX, "a client panicked".into())],
                    ..Seen::default()
                })
            })
            .collect();
        (seen, start.elapsed().as_secs_f64())
    })
}

/// The latency (milliseconds) at the fraction `p` of `sorted` microseconds (nearest rank).
fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64 / 1000.0
}

fn latency_json(mut micros: Vec<u64>) -> Value {
    micros.sort_unstable();
    let mean = micros.iter().sum::<u64>() as f64 / micros.len().max(1) as f64 / 1000.0;
    json!({
        "requests": micros.len(),
        "p50_ms": percentile(&micros, 0.50),
        "p90_ms": percentile(&micros, 0.90),
        "p99_ms": percentile(&micros, 0.99),
        "max_ms": percentile(&micros, 1.0),
        "mean_ms": mean,
    })
}

/// The CLI's JSON lines for `fens`, by FEN (in batches, one process each).
fn cli_answers(
    bin: &Path,
    before: &[&str],
    fens: &[&str],
) -> Result<HashMap<String, Value>, String> {
    let mut out = HashMap::new();
    for batch in fens.chunks(100) {
        let run = Command::new(bin)
            .args(before)
            .args(batch)
            .output()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        let stderr = String::from_utf8_lossy(&run.stderr);
        if !stderr.trim().is_empty() {
            eprintln!("serve_load: {} said: {}", bin.display(), stderr.trim());
        }
        for line in String::from_utf8_lossy(&run.stdout).lines() {
            let v: Value = serde_json::from_str(line)
                .map_err(|e| format!("{}: not JSON ({e}): {line}", bin.display()))?;
            let fen = v["fen"].as_str().unwrap_or_default().to_string();
            out.insert(fen, v);
        }
    }
    Ok(out)
}

/// A signed distance (positive: the side to move mates) of the CLI's `wdl` and `dtm_plies`.
fn cli_signed(v: &Value) -> Result<Option<i64>, String> {
    match (v["wdl"].as_str(), v["dtm_plies"].as_i64()) {
        (Some("win"), Some(p)) => Ok(Some(p)),
        (Some("loss"), Some(p)) => Ok(Some(-p)),
        (Some("draw"), None) if v["dtm_plies"].is_null() => Ok(None),
        _ => Err(format!(
            "the CLI's value {} {} is no value",
            v["wdl"], v["dtm_plies"]
        )),
    }
}

/// The win/draw/loss part of a Lichess category.
fn category_wdl(c: &Value) -> Option<&'static str> {
    match c.as_str()? {
        "win" | "cursed-win" => Some("win"),
        "draw" => Some("draw"),
        "loss" | "blessed-loss" => Some("loss"),
        _ => None,
    }
}

/// A server's signed distance: None for null (a draw), Err if neither.
fn server_signed(v: &Value) -> Result<Option<i64>, String> {
    match &v["dtm"] {
        Value::Null => Ok(None),
        d => d
            .as_i64()
            .map(Some)
            .ok_or(format!("dtm {d} is no distance")),
    }
}

/// The value, for the side playing it, of a move into a position of signed distance `after`
/// (its category's win/draw/loss part telling a loss at 0 from a draw): (signed distance,
/// preference, faster wins and slower losses first).
fn mover_value(after: Option<i64>) -> (Option<i64>, i64) {
    match after {
        None => (None, 0),
        Some(d) if d <= 0 => (Some(1 - d), 1_000_000 - (1 - d)),
        Some(d) => (Some(-(d + 1)), -1_000_000 + (d + 1)),
    }
}

fn show(d: Option<i64>) -> String {
    d.map_or("null".into(), |d| d.to_string())
}

/// How the server's `/standard` answer and the CLI's disagree, and how the server's answer
/// disagrees with itself.
fn compare_standard(server: &Value, cli: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if server["category"] != cli["wdl50"] {
        problems.push(format!(
            "category {} but the CLI's wdl50 {}",
            server["category"], cli["wdl50"]
        ));
    }
    let sd = server_signed(server);
    match (&sd, &cli_signed(cli)) {
        (Ok(s), Ok(c)) if s != c => problems.push(format!(
            "dtm {} but the CLI's {} {} (signed {})",
            show(*s),
            cli["wdl"],
            cli["dtm_plies"],
            show(*c)
        )),
        (Err(e), _) | (_, Err(e)) => problems.push(e.clone()),
        _ => {}
    }
    if let Ok(s) = sd {
        let by_category = category_wdl(&server["category"]);
        let by_dtm = match s {
            None => "draw",
            Some(d) if d > 0 => "win",
            Some(_) => "loss",
        };
        if by_category != Some(by_dtm) {
            problems.push(format!(
                "category {} and dtm {} disagree",
                server["category"],
                show(s)
            ));
        }
    }
    let empty = Vec::new();
    let sm = server["moves"].as_array().unwrap_or(&empty);
    let cm = cli["moves"].as_array().unwrap_or(&empty);
    let ucis = |m: &[Value]| -> Vec<String> {
        m.iter()
            .map(|x| x["uci"].as_str().unwrap_or("?").to_string())
            .collect()
    };
    let (su, cu) = (ucis(sm), ucis(cm));
    if su != cu {
        let (mut a, mut b) = (su.clone(), cu.clone());
        a.sort();
        b.sort();
        let how = if a == b {
            "the same moves in another order"
        } else {
            "other moves"
        };
        problems.push(format!(
            "{how}: server [{}], CLI [{}]",
            su.join(" "),
            cu.join(" ")
        ));
    }
    for (s, c) in sm.iter().zip(cm) {
        if s["uci"] != c["uci"] {
            continue;
        }
        let uci = s["uci"].as_str().unwrap_or("?");
        match (server_signed(s), cli_signed(c)) {
            (Ok(a), Ok(b)) if a != b => problems.push(format!(
                "move {uci}: dtm {} but the CLI's {} {} (signed {})",
                show(a),
                c["wdl"],
                c["dtm_plies"],
                show(b)
            )),
            (Err(e), _) | (_, Err(e)) => problems.push(format!("move {uci}: {e}")),
            _ => {}
        }
        if category_wdl(&s["category"]) != c["wdl"].as_str() {
            problems.push(format!(
                "move {uci}: category {} but the CLI's wdl {}",
                s["category"], c["wdl"]
            ));
        }
    }
    // The server's answer by itself: best move first, and the position one ply beyond it.
    let values: Vec<Option<i64>> = sm.iter().filter_map(|m| server_signed(m).ok()).collect();
    if values.len() == sm.len() {
        let prefs: Vec<i64> = values.iter().map(|&v| mover_value(v).1).collect();
        if prefs.windows(2).any(|w| w[0] < w[1]) {
            problems.push(format!("moves not best first: [{}]", su.join(" ")));
        }
        let stuck = sm.is_empty();
        if server["checkmate"] != json!(stuck && sd == Ok(Some(0)))
            || server["stalemate"] != json!(stuck && sd == Ok(None))
        {
            problems.push(format!(
                "checkmate {} and stalemate {} with {} moves and dtm {}",
                server["checkmate"],
                server["stalemate"],
                sm.len(),
                server["dtm"]
            ));
        }
        if let (Some(&best), Ok(d)) = (values.first(), &sd) {
            let expected = mover_value(best).0;
            if expected != *d {
                problems.push(format!(
                    "dtm {} but its best move {} gives {}",
                    show(*d),
                    su[0],
                    show(expected)
                ));
            }
        }
    }
    problems
}

/// How two JSON objects differ, key by key.
fn differences(server: &Value, cli: &Value) -> String {
    let (Some(s), Some(c)) = (server.as_object(), cli.as_object()) else {
        return format!("server {server}, CLI {cli}");
    };
    let keys: std::collections::BTreeSet<&String> = s.keys().chain(c.keys()).collect();
    keys.into_iter()
        .filter(|k| s.get(*k) != c.get(*k))
        .map(|k| {
            format!(
                "{k}: server {}, CLI {}",
                s.get(k).unwrap_or(&Value::Null),
                c.get(k).unwrap_or(&Value::Null)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn run(args: &Args) -> Result<bool, String> {
    if args.clients == 0 || args.requests == 0 || args.book_percent > 100 {
        return Err("--clients and --requests must be positive, --book-percent 0 to 100".into());
    }
    let base = args.url.trim_end_matches('/').to_string();
    let tb = Tablebase::open(&args.tables).map_err(|e| e.to_string())?;
    let book = Book::open(&args.book).map_err(|e| e.to_string())?;
    if book.info().game != Game::Chess {
        return Err(format!("{}: not a chess book", args.book.display()));
    }
    let health: Value = agent()
        .get(&format!("{base}/health"))
        .call()
        .map_err(|e| e.to_string())?
        .into_json()
        .map_err(|e| format!("{base}/health: {e}"))?;
    let local = tb.materials().count();
    if health["tables"] != json!(local) {
        eprintln!(
            "serve_load: warning: the server has {} tables, {} has {local}",
            health["tables"],
            args.tables.display()
        );
    }

    let t = Instant::now();
    let requests = make_requests(args, &tb, &book)?;
    let mut pieces: BTreeMap<String, usize> = BTreeMap::new();
    for r in requests.iter().filter(|r| r.kind == Kind::Standard) {
        let pos: Position = r.fen.parse().map_err(|e| format!("{}: {e}", r.fen))?;
        *pieces
            .entry(pos.occupied().count().to_string())
            .or_default() += 1;
    }
    println!(
        "serve_load: {} requests made in {:.2} s ({} /standard by pieces {:?}, {} /book); {} clients, at most {} s, against {base}",
        requests.len(),
        t.elapsed().as_secs_f64(),
        pieces.values().sum::<usize>(),
        pieces,
        requests.iter().filter(|r| r.kind == Kind::Book).count(),
        args.clients,
        args.seconds
    );
    drop(tb);

    let (seen, secs) = run_clients(args, &base, &requests);
    let mut all = Vec::new();
    let mut by_kind: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    let mut errors: Vec<(usize, String)> = Vec::new();
    let mut pool: Vec<(usize, String)> = Vec::new();
    for s in seen {
        for (i, micros) in s.done {
            all.push(micros);
            by_kind[usize::from(requests[i].kind == Kind::Book)].push(micros);
        }
        errors.extend(s.errors);
        pool.extend(s.sampled);
    }
    let sent = all.len();
    let rps = sent as f64 / secs.max(1e-9);

    // `--check` of the clients' samples, at random.
    let mut rng = Rng(args.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    for k in (1..pool.len()).rev() {
        pool.swap(k, rng.below(k + 1));
    }
    pool.truncate(args.check);
    pool.sort_unstable_by_key(|(i, _)| *i);
    let bodies: HashMap<usize, String> = pool.into_iter().collect();
    let mut sample: Vec<usize> = bodies.keys().copied().collect();
    sample.sort_unstable();
    let tables = args.tables.to_string_lossy().into_owned();
    let book_path = args.book.to_string_lossy().into_owned();
    let fens_of = |kind: Kind| -> Vec<&str> {
        let mut v: Vec<&str> = sample
            .iter()
            .filter(|i| requests[**i].kind == kind)
            .map(|&i| requests[i].fen.as_str())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let standard_cli = cli_answers(
        &args.bin,
        &["probe", "--tables", &tables, "--json"],
        &fens_of(Kind::Standard),
    )?;
    let book_cli = cli_answers(
        &args.bin,
        &["book", "probe", "--book", &book_path, "--json"],
        &fens_of(Kind::Book),
    )?;
    let mut mismatches: Vec<String> = Vec::new();
    let mut checked = [0usize; 2];
    for &i in &sample {
        let Some(body) = bodies.get(&i) else { continue };
        let r = &requests[i];
        let server: Value = match serde_json::from_str(body) {
            Ok(v) => v,
            Err(e) => {
                mismatches.push(format!("{} {}: not JSON ({e})", r.kind.path(), r.fen));
                continue;
            }
        };
        let cli = match r.kind {
            Kind::Standard => standard_cli.get(&r.fen),
            Kind::Book => book_cli.get(&r.fen),
        };
        let Some(cli) = cli else {
            mismatches.push(format!(
                "{} {}: the CLI gave no answer",
                r.kind.path(),
                r.fen
            ));
            continue;
        };
        checked[usize::from(r.kind == Kind::Book)] += 1;
        match r.kind {
            Kind::Standard => {
                let problems = compare_standard(&server, cli);
                if !problems.is_empty() {
                    mismatches.push(format!("/standard {}: {}", r.fen, problems.join("; ")));
                }
            }
            Kind::Book => {
                if server != *cli {
                    mismatches.push(format!("/book {}: {}", r.fen, differences(&server, cli)));
                }
            }
        }
    }

    let [standard_ms, book_ms] = by_kind;
    let summary = json!({
        "url": base,
        "clients": args.clients,
        "requests_planned": requests.len(),
        "requests_sent": sent,
        "seconds_bound": args.seconds,
        "seconds": secs,
        "requests_per_second": rps,
        "book_percent": args.book_percent,
        "planned_standard_by_pieces": pieces,
        "latency": latency_json(all),
        "standard": latency_json(standard_ms),
        "book": latency_json(book_ms),
        "errors": errors.len(),
        "error_samples": errors.iter().take(10).map(|(i, e)| {
            let fen = requests.get(*i).map_or("", |r| r.fen.as_str());
            json!({"fen": fen, "error": e})
        }).collect::<Vec<_>>(),
        "checked": {
            "standard": checked[0],
            "book": checked[1],
        },
        "mismatches": mismatches,
        "seed": args.seed,
    });
    let l = |k: &str, f: &str| summary[k][f].as_f64().unwrap_or(0.0);
    println!(
        "serve_load: {sent} requests in {secs:.2} s: {rps:.1} requests/s, {} errors",
        errors.len()
    );
    for (name, key) in [
        ("all", "latency"),
        ("/standard", "standard"),
        ("/book", "book"),
    ] {
        println!(
            "  {name:<10} {:>6} requests  latency ms: p50 {:.2}  p90 {:.2}  p99 {:.2}  max {:.2}",
            summary[key]["requests"],
            l(key, "p50_ms"),
            l(key, "p90_ms"),
            l(key, "p99_ms"),
            l(key, "max_ms")
        );
    }
    for (i, e) in errors.iter().take(10) {
        let fen = requests.get(*i).map_or("(connecting)", |r| r.fen.as_str());
        println!("  error: {fen}: {e}");
    }
    println!(
        "  checked against {}: {} /standard and {} /book answers received under load: {}",
        args.bin.display(),
        checked[0],
        checked[1],
        if mismatches.is_empty() {
            "all agree".to_string()
        } else {
            format!("{} disagree", mismatches.len())
        }
    );
    for m in &mismatches {
        println!("  mismatch: {m}");
    }
    if let Some(out) = &args.out {
        std::fs::write(out, format!("{summary:#}\n"))
            .map_err(|e| format!("{}: {e}", out.display()))?;
    }
    Ok(errors.is_empty() && mismatches.is_empty())
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("serve_load: {e}");
            ExitCode::FAILURE
        }
    }
}
