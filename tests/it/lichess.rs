//! `/standard` and `/standard/mainline` (its line move for move) held against lila-tablebase,
//! Lichess's tablebase server, on the positions `scripts/record-lila` drew: its answers for Syzygy's files of
//! the same tables are recorded in `tests/data/lila-standard.jsonl` (random positions with
//! random move counts, 100 and more among them, mates, stalemates, positions a mate away
//! with the count about 100, positions outside the tables, FENs read leniently). DTM, which
//! lila takes from tables it was not given, is not compared; Syzygy's DTZ may be a ply off
//! where its files round, where lila says so (`precise_dtz` null). berserk, the Lichess API
//! client, is pointed at our server for the same positions.

use crate::common::{data, http};
use serde_json::Value;
use std::collections::HashMap;
use std::process::{Child, Stdio};

/// A server over the tables of up to 4 pieces and KRBvKR, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start() -> Server {
        let dir = crate::tables::krbvkr().to_str().unwrap();
        let (child, url) = crate::common::serve(
            &["--tables", dir],
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
            Stdio::inherit(),
        );
        Server { child, url }
    }

    /// `route`'s answer for `fen`: its status and JSON body.
    fn ask(&self, route: &str, fen: &str) -> (u64, Value) {
        let url = http::with_query(&format!("{}{route}", self.url), "fen", fen);
        let r = http::get(&url).unwrap();
        (u64::from(r.status), r.json().unwrap_or(Value::Null))
    }
}

/// A DTZ of ours against lila's: equal to its `precise_dtz` where it has one, else within
/// the ply Syzygy's files may round by; null where lila's is.
fn same_dtz(ours: &Value, lila: &Value, what: &str) {
    let (dtz, precise) = (&lila["dtz"], &lila["precise_dtz"]);
    if dtz.is_null() {
        assert!(
            ours["dtz"].is_null(),
            "{what}: dtz {} against null",
            ours["dtz"]
        );
        assert!(ours["precise_dtz"].is_null(), "{what}");
        return;
    }
    let mine = ours["dtz"]
        .as_i64()
        .unwrap_or_else(|| panic!("{what}: no dtz"));
    assert_eq!(ours["precise_dtz"], ours["dtz"], "{what}");
    match precise.as_i64() {
        Some(p) => assert_eq!(mine, p, "{what}: dtz"),
        None => {
            let d = dtz.as_i64().unwrap();
            assert!(
                (mine - d).abs() <= 1 && mine.signum() == d.signum(),
                "{what}: dtz {mine} against a rounded {d}"
            );
        }
    }
}

/// What a position's answer says besides its moves and distances.
const FACTS: [&str; 6] = [
    "category",
    "checkmate",
    "stalemate",
    "insufficient_material",
    "variant_win",
    "variant_loss",
];

#[test]
fn standard_and_mainline_answer_as_lichess_does() {
    let server = Server::start();
    let text = std::fs::read_to_string(data("lila-standard.jsonl")).unwrap();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let (mut lines, mut steps_seen) = (0, 0);
    for line in text.lines() {
        let rec: Value = serde_json::from_str(line).unwrap();
        let fen = rec["fen"].as_str().unwrap();
        let (status, ours) = server.ask("/standard", fen);
        let lila = &rec["standard"];
        assert_eq!(status, lila["status"], "{fen}: {ours}");
        if status != 200 {
            continue;
        }
        let lila = &lila["body"];
        for key in FACTS {
            assert_eq!(ours[key], lila[key], "{fen}: {key}");
        }
        for key in ["dtw", "dtc"] {
            assert_eq!(ours.get(key), Some(&Value::Null), "{fen}: {key}");
        }
        same_dtz(&ours, lila, fen);
        let (mine, theirs) = (
            ours["moves"].as_array().unwrap(),
            lila["moves"].as_array().unwrap(),
        );
        assert_eq!(mine.len(), theirs.len(), "{fen}: moves");
        let by_uci: HashMap<&str, &Value> = (mine.iter())
            .map(|m| (m["uci"].as_str().unwrap(), m))
            .collect();
        for want in theirs {
            let uci = want["uci"].as_str().unwrap();
            let got = by_uci.get(uci).unwrap_or_else(|| panic!("{fen}: no {uci}"));
            for key in FACTS.iter().chain(&["san", "zeroing", "conversion"]) {
                assert_eq!(got[*key], want[*key], "{fen} {uci}: {key}");
            }
            same_dtz(got, want, &format!("{fen} {uci}"));
        }
        // The best move is as good; outside the tables the order is Lichess's.
        if let (Some(m), Some(t)) = (mine.first(), theirs.first()) {
            assert_eq!(m["category"], t["category"], "{fen}: the best move");
        }
        if lila["dtz"].is_null() {
            // Moves Lichess cannot tell apart come in the order its move generator gives
            // them; what it orders by must come in the same order.
            let keys = |moves: &[Value]| -> Vec<Vec<Value>> {
                let by = FACTS.iter().chain(&["conversion", "zeroing", "dtz"]);
                let key = |m: &Value| by.clone().map(|k| m[*k].clone()).collect();
                moves.iter().map(key).collect()
            };
            assert_eq!(keys(mine), keys(theirs), "{fen}: Lichess's order");
        }
        let clock: u64 = fen.split(' ').nth(4).unwrap().parse().unwrap();
        let category = ours["category"].as_str().unwrap().to_string();
        *seen.entry(category).or_default() += 1;
        let count = if clock >= 100 {
            "clock 100+"
        } else {
            "clock < 100"
        };
        *seen.entry(count.to_string()).or_default() += 1;
        for (key, name) in [("checkmate", "mates"), ("stalemate", "stalemates")] {
            *seen.entry(name.to_string()).or_default() += usize::from(ours[key] == true);
        }
        let (status, ours) = server.ask("/standard/mainline", fen);
        let lila = &rec["mainline"];
        assert_eq!(status, lila["status"], "{fen}: mainline {ours}");
        if status == 200 {
            let lila = &lila["body"];
            same_dtz(&ours, lila, &format!("{fen}: mainline"));
            // Lichess's line, move for move, each step's distances its.
            let steps = |body: &Value| body["mainline"].as_array().unwrap().clone();
            let (mine, theirs) = (steps(&ours), steps(lila));
            let ucis = |line: &[Value]| line.iter().map(|s| s["uci"].clone()).collect::<Vec<_>>();
            assert_eq!(ucis(&mine), ucis(&theirs), "{fen}: the line");
            for (m, t) in mine.iter().zip(&theirs) {
                assert_eq!(m["san"], t["san"], "{fen}: {}", t["uci"]);
                same_dtz(m, t, &format!("{fen}: mainline {}", t["uci"]));
            }
            assert_eq!(ours["winner"], lila["winner"], "{fen}: winner");
            lines += 1;
            steps_seen += mine.len();
        }
    }
    assert!(
        lines >= 200 && steps_seen >= 1000,
        "{lines} lines, {steps_seen} steps"
    );
    // The sample holds what it is meant to.
    let at_least = [
        ("clock < 100", 120),
        ("clock 100+", 60),
        ("win", 20),
        ("loss", 20),
        ("draw", 20),
        ("cursed-win", 10),
        ("blessed-loss", 5),
        ("unknown", 3),
        ("mates", 5),
        ("stalemates", 4),
    ];
    for (what, n) in at_least {
        let got = seen.get(what).copied().unwrap_or(0);
        assert!(
            got >= n,
            "{got} {what} in the sample (at least {n}): {seen:?}"
        );
    }
}

/// berserk, the Lichess API client (`scripts/install-python` puts it in `target/python`),
/// looks up every recorded position on our server as it does on Lichess's, by both its
/// calls (`look_up` and `standard`; it has none for a mainline): an answer, with lila's
/// category, where lila answers; the same error status where it refuses.
#[test]
fn berserk_looks_up_every_position_as_on_lichess() {
    use std::io::Write;
    const LOOK_UP: &str = r#"
import json, sys, berserk, requests
client = berserk.Client(session=requests.Session(), tablebase_url=sys.argv[1])
for line in sys.stdin:
    fen = line.strip()
    try:
        looked = client.tablebase.look_up(fen)["category"]
        print(json.dumps({"category": looked, "standard": client.tablebase.standard(fen)["category"]}))
    except berserk.exceptions.ResponseError as e:
        print(json.dumps({"status": e.status_code}))
"#;
    let python = crate::common::python("berserk");
    let server = Server::start();
    let text = std::fs::read_to_string(data("lila-standard.jsonl")).unwrap();
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut child = std::process::Command::new(python)
        .args(["-c", LOOK_UP, &server.url])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for rec in &records {
        writeln!(stdin, "{}", rec["fen"].as_str().unwrap()).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "berserk ran");
    let answers: Vec<Value> = (String::from_utf8(out.stdout).unwrap().lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), records.len());
    for (rec, got) in records.iter().zip(&answers) {
        let lila = &rec["standard"];
        match lila["status"].as_u64() {
            Some(200) => {
                assert_eq!(got["category"], lila["body"]["category"], "{rec}");
                assert_eq!(got["standard"], lila["body"]["category"], "{rec}");
            }
            status => assert_eq!(got["status"].as_u64(), status, "{}", rec["fen"]),
        }
    }
}
