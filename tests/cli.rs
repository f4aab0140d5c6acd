//! The command line's contract: exit statuses, one clear error line for bad input (never a
//! panic), the JSON shapes of DESIGN.md §3, and `gen` building sub-tables first.

mod common;

use common::run;
use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;

/// KQvK and KRvK only (built once, through their own `gen` calls).
fn small_tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let out = run(&[
            "gen",
            "KQvK",
            "KRvK",
            "--tables",
            dir.path().to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
    .path()
}

/// Runs and expects failure with `code` and a single error line containing `needle`.
fn fails(args: &[&str], code: i32, needle: &str) {
    let out = run(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: {err:?} should mention {needle:?}"
    );
    assert!(
        err.trim().lines().count() <= 2,
        "{args:?}: one clear line, got {err}"
    );
}

#[test]
fn malformed_signatures_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    fails(&["gen", "KXvK", "--tables", d], 2, "KXvK");
    fails(&["gen", "KQK", "--tables", d], 2, "KQK");
    fails(&["gen", "QvK", "--tables", d], 2, "QvK");
    fails(&["info", "KQvKvK", "--tables", d], 2, "KQvKvK");
    fails(&["gen", "KvK", "--tables", d], 2, "KvK");
    fails(&["gen", "--all", "9", "--tables", d], 2, "--all");
    fails(&["gen", "--frobnicate"], 2, "frobnicate");
}

/// `perft` counts by either game's rules; a FEN its game cannot read is a usage error.
#[test]
fn perft_counts_by_the_game_asked_for() {
    let count = |args: &[&str]| {
        let out = run(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let xiangqi = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    let chess = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    assert_eq!(
        count(&["perft", "--game", "xiangqi", xiangqi, "3"]),
        "79666"
    );
    assert_eq!(count(&["perft", chess, "3"]), "8902");
    assert_eq!(count(&["perft", "--game", "chess", chess, "2"]), "400");
    fails(&["perft", "--game", "xiangqi", chess, "1"], 2, "bad FEN");
    fails(&["perft", xiangqi, "1"], 2, "bad FEN");
    fails(&["perft", "--game", "shogi", xiangqi, "1"], 2, "shogi");
}

#[test]
fn too_many_pieces_is_a_usage_error() {
    fails(&["gen", "KQRBNvKN"], 2, "at most 6");
    fails(&["gen", "--all", "7"], 2, "--all takes 3 to 6");
}

#[test]
fn bad_fen_is_named() {
    let d = small_tables().to_str().unwrap();
    fails(&["probe", "--tables", d, "not a fen"], 1, "not a fen");
    fails(
        &["probe", "--tables", d, "8/8/8/8/8/8/8/8 w - - 0 1"],
        1,
        "king",
    );
    fails(
        &["probe", "--tables", d, "8/8/8/8/8/8/8/K1kQ4 w - - 0 1"],
        1,
        "not to move is in check",
    );
    fails(
        &["probe", "--tables", d, "8/8/8/8/8/3k4/8/K1Q5 x - - 0 1"],
        1,
        "side to move",
    );
}

#[test]
fn fen_without_table_is_named() {
    let d = small_tables().to_str().unwrap();
    fails(
        &["probe", "--tables", d, "8/8/8/8/8/5k2/8/KNB5 w - - 0 1"],
        1,
        "no table for KBNvK",
    );
    fails(&["info", "KBNvK", "--tables", d], 1, "no table for KBNvK");
    fails(
        &["verify", "KBNvK", "--tables", d],
        1,
        "no table for KBNvK in",
    );
    let nowhere = format!("{d}/nowhere");
    for cmd in ["probe", "verify"] {
        let mut args = vec![cmd, "--tables", &nowhere];
        if cmd == "probe" {
            args.push("8/8/8/8/8/5k2/8/KR6 w - - 0 1");
        }
        fails(&args, 1, "cannot read tables folder");
    }
}

#[test]
fn missing_tables_folder_is_named() {
    fails(
        &[
            "probe",
            "--tables",
            "/nonexistent/tables",
            "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1",
        ],
        1,
        "/nonexistent/tables",
    );
    fails(
        &["info", "KQvK", "--tables", "/nonexistent/tables"],
        1,
        "/nonexistent/tables",
    );
    fails(
        &["verify", "--tables", "/nonexistent/tables"],
        1,
        "/nonexistent/tables",
    );
}

#[test]
fn unwritable_output_folder_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let target = file.join("tables");
    fails(
        &["gen", "KQvK", "--tables", target.to_str().unwrap()],
        1,
        "a-file",
    );
}

#[test]
fn gen_builds_sub_tables_first_and_skips_finished_ones() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = run(&["gen", "KQvKN", "--tables", d, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let built: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["signature"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(built, ["KNvK", "KQvK", "KQvKN"]);
    for sig in &built {
        assert!(dir.path().join(format!("{sig}.rbt")).is_file());
    }
    let again = run(&["gen", "KQvKN", "--tables", d, "--json"]);
    assert!(again.status.success());
    assert_eq!(
        String::from_utf8_lossy(&again.stdout).trim(),
        "",
        "nothing left to build"
    );
}

/// `gen --plan --json` for `sig` in `dir`: each table's name and estimated peak in KiB.
fn planned_peaks(sig: &str, dir: &str) -> Vec<(String, u64)> {
    let out = run(&["gen", sig, "--tables", dir, "--plan", "--json"]);
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let peak = v["estimated_peak_memory_bytes"].as_u64().unwrap();
            (v["signature"].as_str().unwrap().to_string(), peak >> 10)
        })
        .collect()
}

#[test]
fn gen_plan_lists_the_tables_with_their_estimates_and_builds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let peaks = planned_peaks("KQvKN", dir.path().to_str().unwrap());
    let names: Vec<&str> = peaks.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(names, ["KNvK", "KQvK", "KQvKN"]);
    assert!(
        peaks[2].1 > peaks[1].1,
        "a larger table needs more: {peaks:?}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// Six pieces are planned like the others: KRNvKNN comes last, after its 3-5-piece
/// sub-tables, with its index size (king pairs times 64 squares for each lone piece and
/// C(64, 2) for the pair of knights), and its estimate is the largest.
#[test]
fn gen_plan_takes_six_piece_tables() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&[
        "gen",
        "KRNvKNN",
        "--tables",
        dir.path().to_str().unwrap(),
        "--plan",
        "--json",
    ]);
    assert!(out.status.success());
    let plan: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = plan.last().unwrap();
    assert_eq!(last["signature"], "KRNvKNN");
    assert_eq!(last["indices"], 2 * 462 * 64 * 64 * (64 * 63 / 2u64));
    for sub in ["KRNvKN", "KNNvKR", "KNNvKN", "KRNvK"] {
        assert!(plan.iter().any(|t| t["signature"] == sub), "{sub}");
    }
    let peak = |t: &Value| t["estimated_peak_memory_bytes"].as_u64().unwrap();
    assert!(plan.iter().all(|t| peak(t) <= peak(last)));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn gen_plan_estimates_become_final_once_the_sub_tables_exist() {
    let empty = tempfile::tempdir().unwrap();
    let before = planned_peaks("KQvKR", empty.path().to_str().unwrap());
    let after = planned_peaks("KQvKR", small_tables().to_str().unwrap());
    assert_eq!(before.len(), 3, "{before:?}");
    assert_eq!(after.len(), 1, "KQvK and KRvK exist: {after:?}");
    let out = run(&[
        "gen",
        "KQvKR",
        "--tables",
        small_tables().to_str().unwrap(),
        "--plan",
        "--json",
    ]);
    let v: Value = serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
    assert_eq!(v["final"], true);
    // Knowing which side each sub-table stores can only lower the estimate.
    assert!(after[0].1 <= before[2].1, "{after:?} {before:?}");
}

/// A plan with every table present says so, rather than printing nothing.
#[test]
fn gen_plan_says_when_there_is_nothing_to_build() {
    let dir = small_tables().to_str().unwrap();
    let out = run(&["gen", "KQvK", "--tables", dir, "--plan"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("nothing to build"), "{text}");
    let json = run(&["gen", "KQvK", "--tables", dir, "--plan", "--json"]);
    assert!(json.stdout.is_empty(), "an empty plan in JSON is no line");
}

#[test]
fn gen_refuses_a_table_over_the_memory_limit_before_building_anything() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    fails(
        &["gen", "KQvK", "--memory", "1", "--tables", d],
        1,
        "KQvK needs up to",
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn gen_stops_before_the_first_table_over_the_memory_limit_and_keeps_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let peaks = planned_peaks("KQvKN", d);
    // A limit between the sub-tables' estimates and KQvKN's.
    let limit = (((peaks[1].1 + peaks[2].1) / 2) >> 10).to_string();
    let out = run(&["gen", "KQvKN", "--memory", &limit, "--tables", d, "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("KQvKN needs up to"), "{err}");
    assert!(err.contains("built before it are kept"), "{err}");
    assert!(dir.path().join("KNvK.rbt").is_file());
    assert!(dir.path().join("KQvK.rbt").is_file());
    assert!(!dir.path().join("KQvKN.rbt").exists());
}

#[test]
fn info_json_has_the_contract_shape() {
    let d = small_tables().to_str().unwrap();
    let out = run(&["info", "KQvK", "--tables", d, "--json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["signature"], "KQvK");
    assert_eq!(v["pieces"], 3);
    assert!(v["bytes"].as_u64().unwrap() > 0);
    // The two layers, and the side whose distances the DTM layer stores.
    let layers = v["wdl_bytes"].as_u64().unwrap() + v["dtm_bytes"].as_u64().unwrap();
    assert!(layers > 0 && layers < v["bytes"].as_u64().unwrap(), "{v}");
    assert!(v["dtm_side"] == "white" || v["dtm_side"] == "black", "{v}");
    for side in ["white", "black"] {
        for k in ["positions", "win", "draw", "loss"] {
            assert!(v[side][k].is_u64(), "{side}.{k}");
        }
    }
    assert_eq!(v["max_dtm"]["plies"], 20);
    assert_eq!(v["max_dtm"]["moves"], 10);
    assert!(v["max_dtm"]["fen"].is_string());
    // A table file can be named directly.
    let path = small_tables().join("KQvK.rbt");
    let by_file = run(&["info", path.to_str().unwrap(), "--json"]);
    assert_eq!(by_file.stdout, out.stdout);
}

#[test]
fn probe_json_lines_have_the_contract_shape() {
    let d = small_tables().to_str().unwrap();
    let fens = [
        "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1",
        "8/8/8/8/8/3k4/8/K1Q5 b - -",
    ];
    let out = run(&["probe", "--json", "--tables", d, fens[0], fens[1]]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["fen"], fens[0]);
    assert_eq!(lines[0]["wdl"], "win");
    let plies = lines[0]["dtm_plies"].as_u64().unwrap();
    assert_eq!(plies % 2, 1);
    let best = &lines[0]["moves"][0];
    assert!(best["uci"].is_string());
    // The best move leads to a loss one ply shorter, for the side to move after it.
    assert_eq!(best["wdl"], "loss");
    assert_eq!(best["dtm_plies"].as_u64(), Some(plies - 1));
    // Black to move is not in check here: KxQ is impossible, so black loses.
    assert_eq!(lines[1]["wdl"], "loss");
}

#[test]
fn castling_rights_are_refused_clearly() {
    let d = small_tables().to_str().unwrap();
    fails(
        &["probe", "--tables", d, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"],
        1,
        "castling",
    );
}

#[test]
fn a_full_disk_ends_with_a_clear_error_and_keeps_finished_tables() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = run(&["gen", "KQvK", "KRvK", "--tables", d]);
    assert!(out.status.success());
    let finished: Vec<(std::path::PathBuf, Vec<u8>)> = ["KQvK", "KRvK"]
        .iter()
        .map(|s| {
            let p = dir.path().join(format!("{s}.rbt"));
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    // A file-size limit of 64 KiB stands in for a full disk: KQvKR's file is larger. The
    // shell ignores SIGXFSZ so that the write fails with an error instead of a signal.
    let script = format!(
        "trap '' XFSZ; ulimit -f 128; exec '{}' gen KQvKR --tables '{d}'",
        env!("CARGO_BIN_EXE_retrobook")
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write") && err.contains("KQvKR.rbt") && !err.contains("panicked"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // Finished tables untouched, no temporary file left, no KQvKR under its final name.
    for (p, b) in &finished {
        assert!(&std::fs::read(p).unwrap() == b, "{} changed", p.display());
    }
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.starts_with('.')), "{names:?}");
    assert!(!names.contains(&"KQvKR.rbt".to_string()), "{names:?}");
    // With room again, the run completes.
    let out = run(&["gen", "KQvKR", "--tables", d]);
    assert!(out.status.success());
}

#[test]
fn gen_removes_temporary_files_of_dead_runs() {
    let dir = tempfile::tempdir().unwrap();
    let stale = dir.path().join(".KQvK.rbt.4000000000.tmp");
    std::fs::write(&stale, b"half a table").unwrap();
    let out = run(&["gen", "KQvK", "--tables", dir.path().to_str().unwrap()]);
    assert!(out.status.success());
    assert!(!stale.exists());
    assert!(String::from_utf8_lossy(&out.stderr).contains("removed 1 unfinished file"));
}
