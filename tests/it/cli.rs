//! The command line's contract: exit statuses, one clear error line for bad input (never a
//! panic), the JSON shapes of `docs/design.md` (Command line), and `gen` building sub-tables
//! first.

use crate::common::run;
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
    let verify_all = ["verify", "--game", "xiangqi", "--all-dtz", "--tables", d];
    fails(&verify_all, 2, "no distances to zeroing");
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

/// A FEN that cannot be read is a usage error (2) wherever it is given.
#[test]
fn bad_fen_is_named() {
    let d = small_tables().to_str().unwrap();
    fails(&["probe", "--tables", d, "not a fen"], 2, "not a fen");
    fails(
        &["probe", "--tables", d, "8/8/8/8/8/8/8/8 w - - 0 1"],
        2,
        "king",
    );
    fails(
        &["probe", "--tables", d, "8/8/8/8/8/8/8/K1kQ4 w - - 0 1"],
        2,
        "not to move is in check",
    );
    fails(
        &["probe", "--tables", d, "8/8/8/8/8/3k4/8/K1Q5 x - - 0 1"],
        2,
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
    // Each table's phases, in the order they ran, account for its time.
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let phases = v["phases"].as_array().unwrap();
        let names: Vec<&str> = phases.iter().map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "loading",
                "dtm_solve",
                "zeroing_solve",
                "packing",
                "releasing",
                "dtz_layer",
                "counting",
                "layouts",
                "wdl_layer",
                "dtm_layer",
                "file"
            ],
            "{line}"
        );
        let time = |key: &str| -> f64 { phases.iter().map(|p| p[key].as_f64().unwrap()).sum() };
        let seconds = v["seconds"].as_f64().unwrap();
        assert!(time("wall_seconds") <= seconds + 0.01, "{line}");
        assert!(time("wall_seconds") > seconds - 0.5, "{line}");
        assert!(time("cpu_seconds") > 0.0, "{line}");
        // Each phase's peak is one the process reached, so none is above the table's.
        let peak = v["peak_memory_bytes"].as_u64().unwrap();
        for p in phases {
            let phase_peak = p["peak_memory_bytes"].as_u64().unwrap();
            assert!(phase_peak > 0 && phase_peak <= peak, "{line}");
        }
    }
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
/// C(64, 2) for the pair of knights), and its estimate is the largest, and at most 20 GiB.
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
    // Within a 24 GiB machine: the distances to zeroing hold no more than the solve.
    assert!(peak(last) <= 20 << 30, "{last}");
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

/// Runs the binary with `args` in `cwd`, killed if it has not ended within a minute (the
/// bound of a hang, not a measure of speed).
fn run_bounded(args: &[&str]) -> std::process::Output {
    use std::time::{Duration, Instant};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_retrobook"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("retrobook {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A FIFO, a folder or another table's file under a table's name is refused at once,
/// naming what it is, by every command that opens the folder; `gen` builds over it.
#[test]
fn what_is_not_a_table_file_of_its_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    for (name, bytes) in crate::common::tables(small_tables()) {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let fen = "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1";
    let refused = |needle: &str| {
        for args in [
            vec!["probe", "--tables", d, fen],
            vec!["verify", "--tables", d],
            vec!["serve", "--tables", d, "--bind", "127.0.0.1:0"],
        ] {
            let out = run_bounded(&args);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains(needle), "{args:?}: {err}");
            assert_eq!(err.trim().lines().count(), 1, "{err}");
        }
    };
    let fifo = dir.path().join("KBvK.rbt");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    refused("KBvK.rbt: is a FIFO, not a regular file");
    let out = run_bounded(&["info", fifo.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    // `gen` names it and builds the table over it.
    let out = run_bounded(&["gen", "KBvK", "--tables", d]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(fifo.metadata().unwrap().is_file());

    std::fs::create_dir(dir.path().join("KNvK.rbt")).unwrap();
    refused("KNvK.rbt: is a folder, not a regular file");
    std::fs::remove_dir(dir.path().join("KNvK.rbt")).unwrap();

    std::fs::copy(dir.path().join("KQvK.rbt"), dir.path().join("KRvK.rbt")).unwrap();
    refused("KRvK.rbt: holds KQvK, not KRvK as its name says");
    // A name that is no signature is taken as it is; one that is the table's own, in the
    // other colour orientation, too.
    std::fs::rename(dir.path().join("KRvK.rbt"), dir.path().join("queen.rbt")).unwrap();
    std::fs::rename(dir.path().join("KBvK.rbt"), dir.path().join("KvKB.rbt")).unwrap();
    let out = run_bounded(&["probe", "--tables", d, fen]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Messages a new user meets: each one line that names what is wrong and what to do.
#[test]
fn messages_name_what_is_wrong() {
    let d = small_tables().to_str().unwrap();
    // clap's list of what is missing, on the one line.
    fails(&["probe", "--tables", d], 2, "not provided: <FENS>...");
    // A missing table: how to build it.
    fails(
        &["probe", "--tables", d, "8/8/8/8/8/5k2/8/KNB5 w - - 0 1"],
        1,
        &format!("no table for KBNvK in {d} (build it: retrobook gen KBNvK --tables {d})"),
    );
    fails(
        &["info", "KBNvK", "--tables", d],
        1,
        "(build it: retrobook gen KBNvK",
    );
    // Part of an output path is a file.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let inside = file.join("sub/book.rbb");
    let archive = concat!(env!("CARGO_MANIFEST_DIR"), "/books/masters-3000.pgn.zst");
    fails(
        &["book", "build", archive, "--out", inside.to_str().unwrap()],
        1,
        &format!("{} is a file, not a folder", file.display()),
    );
    let tables = file.join("tables");
    for game in ["chess", "xiangqi"] {
        let target = if game == "chess" { "KQvK" } else { "KRvK" };
        let args = ["gen", "--game", game, target, "--tables"];
        fails(
            &[&args[..], &[tables.to_str().unwrap()]].concat(),
            1,
            &format!("{} is a file, not a folder", file.display()),
        );
    }
    // `book probe` of garbage: one line naming it, and no empty `retrobook: ` line.
    let book = dir.path().join("b.rbb");
    crate::common::run_ok(&[
        "book",
        "build",
        archive,
        "--max-ply",
        "2",
        "--out",
        book.to_str().unwrap(),
    ]);
    let out = run(&["book", "probe", "--book", book.to_str().unwrap(), "garbage"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.lines().all(|l| l.trim() != "retrobook:"), "{err:?}");
    assert!(err.contains("\"garbage\""), "{err}");
    // A FEN of the other game than the book's.
    let xiangqi = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    fails(
        &["book", "probe", "--book", book.to_str().unwrap(), xiangqi],
        2,
        "a xiangqi position, but",
    );
}

/// FENs are read strictly, the same way by every command: a bad one is one line and exit 2.
#[test]
fn fens_are_read_strictly_and_alike_everywhere() {
    let d = small_tables().to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("b.rbb");
    let archive = concat!(env!("CARGO_MANIFEST_DIR"), "/books/masters-3000.pgn.zst");
    crate::common::run_ok(&[
        "book",
        "build",
        archive,
        "--max-ply",
        "2",
        "--out",
        book.to_str().unwrap(),
    ]);
    let b = book.to_str().unwrap();
    let seventeen =
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".replace("8/8/8/8", "8/8/8/7N");
    for (fen, needle) in [
        ("8/8/8/8/8/3k4/8/K1Q5 w - - -5 1", "halfmove clock \"-5\""),
        ("8/8/8/8/8/3k4/8/K1Q5 w - - 0 0", "fullmove number \"0\""),
        (
            "8/8/8/8/8/3k4/8/K1Q5 w - - 0 1 x",
            "a FEN has 6 fields, found 7",
        ),
        ("8/8/8/8/8/3k4/8/K1Q5 w - - 0", "fullmove number is missing"),
        (
            "8/8/8/8/8/3k4/8/K1Q5 w - - x",
            "neither a halfmove clock nor an EPD operation",
        ),
        (
            "8/8/8/8/8/3k4/8/K1Q5 w K - 0 1",
            "castling right 'K' needs the white king on e1",
        ),
        ("8/8/8/8/8/3k4/8/K1Q5 w - -", ""),
        (seventeen.as_str(), "more than 16 pieces"),
    ] {
        for args in [
            vec!["probe", "--tables", d, fen],
            vec!["perft", fen, "1"],
            vec!["book", "probe", "--book", b, fen],
        ] {
            if needle.is_empty() {
                // The EPD form (no clocks) is read.
                let out = run(&args);
                assert!(out.status.code() != Some(2), "{args:?}");
                continue;
            }
            fails(&args, 2, needle);
        }
    }
    // Underscores for spaces, as Lichess writes FENs in addresses.
    let out = crate::common::run_ok(&["probe", "--tables", d, "8/8/8/8/8/3k4/8/K1Q5_w_-_-_0_1"]);
    assert!(out.contains("white to move: win in"), "{out}");
}

/// A temporary held by a live writer elsewhere is kept, whatever process id its name
/// gives: here another process (as a `gen` in another PID namespace, or on another host
/// sharing the folder, would) holds the lock of a temporary named with an id nobody has
/// on this machine. Once it lets go, the next run sweeps it.
#[test]
fn gen_keeps_a_temporary_another_live_process_holds() {
    let dir = tempfile::tempdir().unwrap();
    let held = dir.path().join(".KQvK.rbt.4000000000.0.tmp");
    std::fs::write(&held, b"half a table").unwrap();
    // `-o`: the lock stays with `flock` itself, not with its `sleep`, so it ends with it.
    let mut holder = std::process::Command::new("flock")
        .arg("-o")
        .arg(&held)
        .args(["sleep", "120"])
        .spawn()
        .expect("flock (util-linux) runs");
    // Wait until the lock is taken: the holder's `sleep` is then running.
    let started = std::time::Instant::now();
    loop {
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&held)
            .unwrap();
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this test owns.
        let free = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        if !free {
            break;
        }
        drop(f);
        assert!(
            started.elapsed().as_secs() < 60,
            "flock never took the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let d = dir.path().to_str().unwrap();
    let out = run(&["gen", "KQvK", "--tables", d]);
    assert!(out.status.success());
    assert!(held.exists(), "a live writer's temporary was removed");
    holder.kill().unwrap();
    holder.wait().unwrap();
    let out = run(&["gen", "KRvK", "--tables", d]);
    assert!(out.status.success());
    assert!(!held.exists());
    assert!(String::from_utf8_lossy(&out.stderr).contains("removed 1 unfinished file"));
}
