//! Xiangqi tables through the command line: `gen --game xiangqi` (sub-tables first,
//! resumed at the table), `info`, `probe` with the perpetual-check rule's marks and a
//! line of best play, `verify`, and damaged files.

use crate::common::{run, run_ok};
use serde_json::Value;
use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rb-xqt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn json(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

#[test]
fn xiangqi_tables_from_the_command_line() {
    let dir = temp_dir("cli");
    let d = dir.to_str().unwrap();
    // The plan: the tables in the order they will be built, nothing built yet.
    let plan = |extra: &[&str]| {
        let mut args = vec!["gen", "--game", "xiangqi", "KNvKR", "--plan", "--tables", d];
        args.extend_from_slice(extra);
        run_ok(&args)
    };
    let planned: Vec<Value> = plan(&["--json"]).lines().map(json).collect();
    let names: Vec<&str> = planned
        .iter()
        .map(|t| t["signature"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["KvK", "KNvK", "KRvK", "KRvKN"]);
    assert_eq!(planned[3]["indices"], 729_000);
    assert_eq!(planned[3]["estimated_peak_memory_bytes"], 12 * 729_000);
    assert!(plan(&[]).lines().nth(3).unwrap().starts_with("KRvKN"));
    assert!(!dir.exists());
    let out = run_ok(&["gen", "--game", "xiangqi", "KNvKR", "--tables", d, "--json"]);
    let built: Vec<String> = out
        .lines()
        .map(|l| json(l)["signature"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(built, ["KvK", "KNvK", "KRvK", "KRvKN"]);
    // In words, as chess's `gen` says it: the plan, a header, a row of aligned columns
    // per table (the chess columns and the positions the rule decides), the summary.
    let words = temp_dir("words");
    let said = run_ok(&[
        "gen",
        "--game",
        "xiangqi",
        "KRvKN",
        "--tables",
        words.to_str().unwrap(),
    ]);
    let lines: Vec<&str> = said.lines().collect();
    assert!(
        lines[0].starts_with("plan: 4 tables to build (0 already present), 745290 indices"),
        "{said}"
    );
    let chess = run_ok(&[
        "gen",
        "KQvK",
        "--tables",
        words.join("chess").to_str().unwrap(),
    ]);
    let chess_header = chess
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect::<Vec<_>>();
    let header: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(header[..chess_header.len()], chess_header[..], "{said}");
    assert!(
        lines[1].ends_with("by the rule  by chase  not judged"),
        "{said}"
    );
    let column = |line: &str, heading: &str| {
        let at = lines[1].find(heading).unwrap() + heading.len();
        line[..at].rsplit(' ').next().unwrap().to_string()
    };
    let row = lines.iter().find(|l| l.starts_with("KRvKN ")).unwrap();
    assert_eq!(column(row, "indices"), "729000", "{said}");
    assert_eq!(column(row, "longest mate (plies)"), "25", "{said}");
    assert_eq!(column(row, "by the rule"), "1597", "{said}");
    assert_eq!(column(row, "by chase"), "0", "{said}");
    assert_eq!(column(row, "not judged"), "0", "{said}");
    assert!(
        lines[6].starts_with("built 4 tables (0 already present) in "),
        "{said}"
    );
    std::fs::remove_dir_all(&words).unwrap();
    // Again: every table is there, nothing is built.
    let again = run_ok(&["gen", "--game", "xiangqi", "KRvKN", "--tables", d]);
    assert!(again.contains("built 0 tables"), "{again}");
    assert!(plan(&[]).starts_with("nothing to build"));

    let info = json(&run_ok(&[
        "info", "--game", "xiangqi", "KRvKN", "--tables", d, "--json",
    ]));
    assert_eq!(info["red"]["win_by_rule"], 312);
    assert_eq!(info["black"]["loss_by_rule"], 1285);
    let marks = |c: &Value| {
        (
            c["by_chase"].clone(),
            c["path_dependent"].clone(),
            c["unjudged"].clone(),
        )
    };
    assert_eq!(marks(&info["red"]), (0.into(), 6.into(), 0.into()));
    assert_eq!(marks(&info["black"]), (0.into(), 3.into(), 0.into()));
    assert_eq!(info["max_dtm"]["plies"], 25);
    // A file names its own game.
    let file = dir.join("KRvKN.rbx");
    let by_file = json(&run_ok(&["info", file.to_str().unwrap(), "--json"]));
    assert_eq!(by_file, info);

    // The horse checks forever unless it gives up: a win for Red by the rule alone.
    let probe = |fen: &str| {
        json(&run_ok(&[
            "probe", "--game", "xiangqi", "--tables", d, "--json", fen,
        ]))
    };
    let p = probe("9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1");
    assert_eq!(
        (&p["wdl"], &p["by_rule"], &p["dtm_plies"], &p["dtm"]),
        (&"win".into(), &true.into(), &Value::Null, &Value::Null)
    );
    assert_eq!(
        (&p["rule"], &p["path_dependent"], &p["chases_judged"]),
        (&"perpetual-check".into(), &false.into(), &true.into())
    );
    assert_eq!(p["moves"][0]["uci"], "d0d1");
    assert_eq!(p["moves"][0]["by_rule"], true);
    // A draw that an earlier position, repeated, turns: the search with full history
    // (`retro::xiangqi`'s tests) marks it so.
    let p = probe("9/9/4k4/9/9/9/2n6/9/3K5/3R5 w - - 0 1");
    assert_eq!(
        (
            &p["wdl"],
            &p["rule"],
            &p["path_dependent"],
            &p["chases_judged"]
        ),
        (&"draw".into(), &Value::Null, &true.into(), &true.into())
    );
    // A horse against two advisors: one component of nearly every draw, with chases in
    // it, too large to search. Each side can play on with a move that neither checks nor
    // chases at every turn, so every draw is judged (a history may still change it:
    // marked).
    let built = run_ok(&[
        "gen", "--game", "xiangqi", "KNvKAA", "--tables", d, "--json",
    ]);
    let knvkaa = (built.lines().map(json))
        .find(|t| t["signature"] == "KNvKAA")
        .unwrap();
    assert_eq!(
        (&knvkaa["by_rule"], &knvkaa["by_chase"], &knvkaa["unjudged"]),
        (&0.into(), &0.into(), &0.into()),
        "{built}"
    );
    let fen = "3a5/4a4/3k5/9/9/9/3N5/9/9/3K5 w - - 0 1";
    let p = probe(fen);
    let marks = (&p["rule"], &p["path_dependent"], &p["chases_judged"]);
    assert_eq!(p["wdl"], "draw", "{fen}");
    assert_eq!(marks, (&Value::Null, &true.into(), &true.into()), "{fen}");
    let words = run_ok(&["probe", "--game", "xiangqi", "--tables", d, fen]);
    assert!(
        words.contains("to move: draw (path-dependent)\n"),
        "{words}"
    );
    // The same with the colours the other way round, through the flip.
    let flipped = probe("r2k5/1N7/9/9/9/9/9/4K4/9/9 b - - 0 1");
    assert_eq!(
        (&flipped["wdl"], &flipped["by_rule"]),
        (&"win".into(), &true.into())
    );

    // The longest mate, and its line: each move one ply nearer mate.
    let fen = info["max_dtm"]["fen"].as_str().unwrap().to_string();
    let longest = probe(&fen);
    assert_eq!(longest["dtm_plies"], 25);
    let line: Vec<String> = longest["mainline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    assert_eq!(line.len(), 25);
    let mut pos = retrobook::xiangqi::Position::from_fen(&fen).unwrap();
    for (ply, m) in line.iter().enumerate() {
        let here = probe(&pos.to_fen());
        let left = 25 - ply as u64;
        assert_eq!(here["dtm_plies"], left, "{}", pos.to_fen());
        assert_eq!(here["wdl"], if left % 2 == 1 { "win" } else { "loss" });
        // Signed as /standard signs it: the side that mates counts up, the other down.
        let signed = if left % 2 == 1 {
            left as i64
        } else {
            -(left as i64)
        };
        assert_eq!(here["dtm"], signed, "{}", pos.to_fen());
        pos = pos.play(&m.parse().unwrap());
    }
    let mated = probe(&pos.to_fen());
    assert_eq!(
        (&mated["dtm_plies"], &mated["dtm"], &mated["moves"]),
        (&0.into(), &0.into(), &Value::Array(vec![]))
    );

    // Every move's value, in JSON and in words, is the value of the position it leads to,
    // for the side to move there. The rook's mate along the d-file first.
    let mate = "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1";
    let p = probe(mate);
    assert_eq!(p["moves"][0]["uci"], "e1d1");
    assert_eq!(
        (&p["moves"][0]["wdl"], &p["moves"][0]["dtm_plies"]),
        (&"loss".into(), &0.into())
    );
    assert_eq!(p["moves"][0]["checkmate"], true);
    let text = |fen: &str| run_ok(&["probe", "--game", "xiangqi", "--tables", d, fen]);
    let own_words = |fen: &str| {
        let t = text(fen);
        let line = t.lines().nth(1).unwrap().to_string();
        line.split_once(" to move: ").unwrap().1.to_string()
    };
    for fen in [mate, fen.as_str(), "9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1"] {
        let root = probe(fen);
        let pos = retrobook::xiangqi::Position::from_fen(fen).unwrap();
        let said = text(fen);
        let lines: Vec<&str> = said.lines().filter(|l| l.starts_with("    ")).collect();
        let moves = root["moves"].as_array().unwrap();
        assert_eq!(lines.len(), moves.len(), "{said}");
        assert_eq!(moves.len(), pos.legal_moves().len());
        for (m, line) in moves.iter().zip(lines) {
            let uci = m["uci"].as_str().unwrap();
            let next = pos.play(&uci.parse().unwrap()).to_fen();
            let there = probe(&next);
            for key in [
                "wdl",
                "dtm_plies",
                "dtm",
                "by_rule",
                "checkmate",
                "stalemate",
            ] {
                assert_eq!(m[key], there[key], "{fen} {uci} -> {next}: {key}");
            }
            let words = line
                .split_whitespace()
                .skip(3)
                .collect::<Vec<_>>()
                .join(" ");
            assert_eq!(words, own_words(&next), "{fen} {uci}: {line}");
            assert!(line.contains(uci) && line.contains(m["wxf"].as_str().unwrap()));
        }
    }
    assert!(text(mate).contains("e1d1   checkmated"), "{}", text(mate));

    let verified = run_ok(&["verify", "--game", "xiangqi", "--tables", d]);
    assert!(verified.contains("verified 8 tables"), "{verified}");
    // A table whose header is damaged fails `verify` of the whole folder, named.
    let mut krvk = std::fs::read(dir.join("KRvK.rbx")).unwrap();
    let good = krvk.clone();
    krvk[100] ^= 1;
    std::fs::write(dir.join("KRvK.rbx"), &krvk).unwrap();
    let failed = run(&["verify", "--game", "xiangqi", "--tables", d]);
    assert_eq!(failed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&failed.stderr).contains("KRvK.rbx: header checksum"));
    std::fs::write(dir.join("KRvK.rbx"), &good).unwrap();

    // Too large for the memory allowed: skipped, the tables below it built, exit 1.
    let small = temp_dir("memory");
    let within = |sig: &str, mib: &str| {
        let tables = small.to_str().unwrap();
        run(&[
            "gen", "--game", "xiangqi", sig, "--memory", mib, "--tables", tables,
        ])
    };
    let skipped = |out: std::process::Output, sig: &str, why: &str| {
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("{sig}: skipped, {why}"))
                && stderr.contains(&format!("1 tables skipped for memory: {sig}")),
            "{stderr}"
        );
    };
    skipped(within("KRvKN", "1"), "KRvKN", "it needs about");
    let mut kept: Vec<String> = std::fs::read_dir(&small)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    kept.sort();
    assert_eq!(kept, ["KNvK.rbx", "KRvK.rbx", "KvK.rbx"]);
    // KNvKN's solve fits 20 MiB (about 9 MB), the perpetual-check rule's graph of its
    // 373,736 drawn positions does not: skipped once that is known, not built to the end.
    skipped(
        within("KNvKN", "20"),
        "KNvKN",
        "the perpetual-check rule's graph of its 373736 drawn positions needs about",
    );
    assert!(!small.join("KNvKN.rbx").exists());
    let out = within("KNvKN", "200");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(small.join("KNvKN.rbx").exists());
    std::fs::remove_dir_all(&small).unwrap();

    // Chess tables beside them: each game keeps its own files.
    run_ok(&["gen", "KRvK", "--tables", d]);
    let chess = run_ok(&["probe", "--tables", d, "8/8/8/8/8/3k4/8/K1R5 w - - 0 1"]);
    assert!(chess.contains("win"), "{chess}");
    assert_eq!(
        probe("9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1")["by_rule"],
        true
    );
    // A file under another table's name is built again; a killed run's temporary is
    // swept.
    std::fs::copy(dir.join("KRvKN.rbx"), dir.join("KRvKC.rbx")).unwrap();
    let stale = dir.join(".KRvKC.rbx.4000000000.tmp");
    std::fs::write(&stale, b"half a table").unwrap();
    let rebuilt = run(&["gen", "--game", "xiangqi", "KRvKC", "--tables", d]);
    let stderr = String::from_utf8_lossy(&rebuilt.stderr);
    let named = "KRvKC.rbx: holds KRvKN, not KRvKC as its name says; built again";
    assert!(
        rebuilt.status.success()
            && stderr.contains(named)
            && stderr.contains("removed 1 unfinished file"),
        "{stderr}"
    );
    assert!(!stale.exists());
    let info = json(&run_ok(&[
        "info", "--game", "xiangqi", "KRvKC", "--tables", d, "--json",
    ]));
    assert_eq!(info["signature"], "KRvKC");

    // Bad input: a clear error, no panic.
    let bad = run(&["probe", "--game", "xiangqi", "--tables", d, "9/9/9 w"]);
    assert_eq!(
        bad.status.code(),
        Some(2),
        "a FEN that cannot be read is a usage error"
    );
    assert!(String::from_utf8_lossy(&bad.stderr).contains("9/9/9"));
    let missing = run(&[
        "probe",
        "--game",
        "xiangqi",
        "--tables",
        d,
        "4k4/9/9/9/9/9/9/9/4C4/3K1R3 w",
    ]);
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no table for KRCvK"));
    let usage = run(&["gen", "--all-attackers", "1", "--tables", d]);
    assert_eq!(usage.status.code(), Some(2));
    // A damaged block: verify fails naming the file, never passes.
    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.len() / 3;
    bytes[at] ^= 0x40;
    std::fs::write(&file, &bytes).unwrap();
    let failed = run(&["verify", "--game", "xiangqi", "KRvKN", "--tables", d]);
    assert_eq!(failed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&failed.stderr).contains("KRvKN.rbx"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `/xiangqi?fen=` answers as `probe --game xiangqi --json` does, field for field, on
/// random KRvKN positions and one the perpetual-check rule decides; a chess FEN
/// there, and a xiangqi FEN at `/standard`, are 400s that say what is wrong.
#[test]
fn the_server_answers_xiangqi_positions_as_probe_does() {
    use crate::common::http::{get, with_query};
    use retrobook::side::Side;
    use retrobook::xiangqi::{Piece, Position, Role, Square};
    let dir = temp_dir("serve");
    let d = dir.to_str().unwrap();
    run_ok(&["gen", "--game", "xiangqi", "KRvKN", "--tables", d]);
    // Random placements, kept where legal with the side to move's opponent not in check.
    let mut rng = crate::common::Rng(0x9e37);
    let mut next = move |n: u64| rng.below(n as usize) as u64;
    let palace = |side: Side, i: u64| {
        let rank = (i / 3) as i8 + if side == Side::White { 0 } else { 7 };
        Square::new(3 + (i % 3) as i8, rank).unwrap()
    };
    // The horse on b1 holds the draw only by checking forever, and loses by the rule.
    let mut fens = vec!["9/9/4k4/9/9/9/9/9/1n7/R2K5 w - - 0 1".to_string()];
    while fens.len() < 150 {
        let piece = |color, role| Piece { color, role };
        let any = |i: u64| Square::from_index(i as usize).unwrap();
        let pieces = [
            (palace(Side::White, next(9)), piece(Side::White, Role::King)),
            (palace(Side::Black, next(9)), piece(Side::Black, Role::King)),
            (any(next(90)), piece(Side::White, Role::Chariot)),
            (any(next(90)), piece(Side::Black, Role::Horse)),
        ];
        let turn = if next(2) == 0 {
            Side::White
        } else {
            Side::Black
        };
        let Some(pos) = Position::from_pieces(turn, pieces) else {
            continue;
        };
        if !pos.in_check(!turn) {
            fens.push(pos.to_fen());
        }
    }
    let mut args = vec!["probe", "--game", "xiangqi", "--tables", d, "--json"];
    args.extend(fens.iter().map(String::as_str));
    let probed: Vec<Value> = run_ok(&args).lines().map(json).collect();
    assert_eq!(probed.len(), fens.len());
    let (mut child, url) =
        crate::common::serve(&["--tables", d], &dir, std::process::Stdio::null());
    let mut by_rule = 0;
    for (fen, cli) in fens.iter().zip(&probed) {
        let answer = get(&with_query(&format!("{url}/xiangqi"), "fen", fen)).unwrap();
        assert_eq!(answer.status, 200, "{fen}: {}", answer.body);
        assert_eq!(json(&answer.body), *cli, "{fen}");
        by_rule += usize::from(cli["rule"] == "perpetual-check");
    }
    assert!(by_rule > 0, "a position decided by the rule");
    let chess = get(&with_query(
        &format!("{url}/xiangqi"),
        "fen",
        "8/8/8/8/8/3k4/8/K1R5 w - - 0 1",
    ))
    .unwrap();
    assert_eq!(chess.status, 400);
    assert!(
        chess.body.contains("not a Chinese chess FEN") && chess.body.contains("/standard"),
        "{}",
        chess.body
    );
    let wrong = get(&with_query(&format!("{url}/standard"), "fen", &fens[0])).unwrap();
    assert_eq!(wrong.status, 400, "{}", wrong.body);
    // What the explorer page reads: the tables open, and a position's moves in WXF with
    // the FEN each leads to (`/position?game=xiangqi`); the mainline in WXF too.
    let health = json(&get(&format!("{url}/health")).unwrap().body);
    assert_eq!(
        (
            health["xiangqi_tables"].as_u64(),
            health["xiangqi_max_pieces"].as_u64()
        ),
        (Some(4), Some(4))
    );
    assert_eq!(health["tables"], 0);
    for (fen, cli) in fens.iter().zip(&probed).take(40) {
        let pos = Position::from_fen(fen).unwrap();
        let url = with_query(&format!("{url}/position?game=xiangqi"), "fen", fen);
        let answer = json(&get(&url).unwrap().body);
        assert_eq!(answer["fen"], pos.to_fen());
        assert_eq!(answer["check"], pos.in_check(pos.turn()));
        assert_eq!(answer["pieces"], 4);
        let legal = pos.legal_moves();
        let moves = answer["moves"].as_array().unwrap();
        assert_eq!(moves.len(), legal.len(), "{fen}");
        for (m, x) in legal.iter().zip(moves) {
            assert_eq!(x["uci"], m.to_string(), "{fen}");
            assert_eq!(
                x["san"],
                pos.wxf(m, retrobook::xiangqi::Script::Ascii),
                "{fen}"
            );
            assert_eq!(x["fen"], pos.play(m).to_fen(), "{fen}");
        }
        let mut at = pos.clone();
        let line = cli["mainline"].as_array().unwrap();
        for (uci, wxf) in line.iter().zip(cli["mainline_wxf"].as_array().unwrap()) {
            let m = uci.as_str().unwrap().parse().unwrap();
            assert_eq!(*wxf, at.wxf(&m, retrobook::xiangqi::Script::Ascii), "{fen}");
            at = at.play(&m);
        }
        assert_eq!(line.len(), cli["mainline_wxf"].as_array().unwrap().len());
    }
    for (query, needle) in [
        (
            "game=xiangqi&fen=8/8/8/8/8/3k4/8/K1R5%20w%20-%20-%200%201",
            "ask /standard",
        ),
        (
            "game=shogi&fen=9/9/4k4/9/9/9/9/9/1n7/R2K5%20w",
            "(known: chess, xiangqi)",
        ),
    ] {
        let answer = get(&format!("{url}/position?{query}")).unwrap();
        assert_eq!(answer.status, 400, "{query}");
        assert!(answer.body.contains(needle), "{query}: {}", answer.body);
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
