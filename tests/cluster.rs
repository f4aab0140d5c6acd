//! Builds across the processes of an MPI job (`--features mpi`): `mpirun -np 3` on this
//! machine writes, byte for byte, the book one process writes, whatever the memory (runs
//! spilled or not), the archives and `--min-games`; a job that cannot finish fails in
//! every process with a clear message and leaves no book. Tables across processes are
//! tested beside the one-process tables they are compared with (`tests/it/tables.rs`), and
//! here, by hand, a 5-piece pawn table. As root, a job is also run across two network
//! namespaces joined by a veth pair, its processes talking over TCP as on two machines.
#![cfg(feature = "mpi")]

mod common;

use common::{mpirun, run_ok, tables};
use std::path::Path;

fn sample() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("books/masters-3000.pgn.zst")
        .display()
        .to_string()
}

#[test]
fn books_built_by_three_processes_are_one_process_books() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name).display().to_string();
    // The sample, cut into two archives, the second with a broken game and an unfinished
    // one, so that the summary's skipped games are combined too.
    let mut text = String::new();
    use std::io::Read;
    zstd::stream::read::Decoder::new(std::fs::File::open(sample()).unwrap())
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    let cut = text.match_indices("[Event ").nth(1200).unwrap().0;
    std::fs::write(d("a.pgn"), &text[..cut]).unwrap();
    let broken = "[Event \"x\"]\n\n1. e4 e5 2. Ke3 1-0\n\n[Event \"y\"]\n\n1. d4 *\n\n";
    std::fs::write(d("b.pgn"), format!("{broken}{}", &text[cut..])).unwrap();
    let cases: [(&str, Vec<String>, &[&str]); 3] = [
        ("whole", vec![sample()], &[]),
        (
            "spilled",
            vec![sample()],
            &["--memory", "1", "--max-ply", "30"],
        ),
        ("two", vec![d("a.pgn"), d("b.pgn")], &["--min-games", "2"]),
    ];
    for (name, archives, extra) in cases {
        let (one, three) = (d(&format!("{name}-1.rbb")), d(&format!("{name}-3.rbb")));
        let mut args: Vec<&str> = vec!["book", "build"];
        args.extend(archives.iter().map(String::as_str));
        args.extend(extra);
        args.push("--json");
        let mut single = args.clone();
        single.extend(["--out", &one]);
        let mut across = args.clone();
        across.extend(["--out", &three]);
        let alone: serde_json::Value = serde_json::from_str(&run_ok(&single)).unwrap();
        let out = mpirun(&across);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Rank 0 alone speaks.
        assert_eq!(stdout.lines().count(), 1, "{name}: {stdout}");
        let mut split: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(split["processes"], 3, "{name}");
        assert!(split["bytes_exchanged"].as_u64().unwrap() > 0, "{name}");
        for key in ["processes", "bytes_exchanged", "runs_spilled"] {
            split.as_object_mut().unwrap().remove(key);
        }
        let mut alone = alone;
        alone.as_object_mut().unwrap().remove("runs_spilled");
        split["book"] = alone["book"].clone();
        assert_eq!(split, alone, "{name}: the summaries");
        assert!(
            std::fs::read(&one).unwrap() == std::fs::read(&three).unwrap(),
            "{name}: the books differ"
        );
        if name == "two" {
            assert_eq!(alone["skipped"].as_object().unwrap().len(), 2, "{alone}");
        }
    }
}

#[test]
fn a_job_that_cannot_finish_fails_clearly_and_leaves_no_book() {
    let dir = tempfile::tempdir().unwrap();
    // The book's folder is a file: no process can write there.
    let blocker = dir.path().join("not-a-folder");
    std::fs::write(&blocker, b"").unwrap();
    let out = blocker.join("book.rbb");
    let run = mpirun(&["book", "build", &sample(), "--out", out.to_str().unwrap()]);
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("process 0 of 3") && err.contains("not-a-folder"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(!out.exists());
    // Standard input cannot be read by every process: refused before anything starts.
    let run = mpirun(&[
        "book",
        "build",
        "-",
        "--out",
        dir.path().join("b.rbb").to_str().unwrap(),
    ]);
    assert_eq!(
        run.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// The sample's book built across two network namespaces joined by a veth pair (as root):
/// `mpirun` and two processes in the first, the third in the second, every message over
/// Open MPI's TCP transport; it is the one process's book, and the pair carried the third
/// process's share of the entries.
#[test]
fn a_book_built_across_two_network_namespaces_is_the_one_process_book() {
    let Some(pair) = common::netns::Namespaces::new() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (one, split) = (dir.path().join("one.rbb"), dir.path().join("split.rbb"));
    let sample = sample();
    run_ok(&["book", "build", &sample, "--out", one.to_str().unwrap()]);
    let (stdout, traffic) = pair.mpirun_ok(&[
        "book",
        "build",
        &sample,
        "--out",
        split.to_str().unwrap(),
        "--json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["processes"], 3, "{report}");
    assert!(
        std::fs::read(&one).unwrap() == std::fs::read(&split).unwrap(),
        "the books differ"
    );
    let exchanged = report["bytes_exchanged"].as_u64().unwrap();
    common::netns::assert_share_carried(traffic, exchanged);
}

/// The same for a 5-piece pawn table, its sub-tables (5-piece promotion tables among them)
/// built by one process and read by the job from the shared folder: about 6 minutes of
/// one process and 4 of the job on 2 cores, beyond the suite's budget.
#[test]
#[ignore]
fn a_five_piece_pawn_table_built_by_three_processes_is_the_one_process_table() {
    let one = tempfile::tempdir().unwrap();
    let given = tempfile::tempdir().unwrap();
    let pawns = "KNNvKP";
    let file = format!("{pawns}.rbt");
    run_ok(&["gen", pawns, "--tables", one.path().to_str().unwrap()]);
    for (name, bytes) in tables(one.path()) {
        if name != file {
            std::fs::write(given.path().join(name), bytes).unwrap();
        }
    }
    let out = mpirun(&[
        "gen",
        pawns,
        "--tables",
        given.path().to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["signature"], pawns);
    assert_eq!(report["processes"], 3);
    assert!(report["bytes_exchanged"].as_u64().unwrap() > 0, "{report}");
    println!("{report}");
    assert!(
        tables(given.path())[&file] == tables(one.path())[&file],
        "{pawns} differs"
    );
}
