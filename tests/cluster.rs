//! Builds across the processes of an MPI job (`--features mpi`): `mpirun -np 3` on this
//! machine writes, byte for byte, the book one process writes, whatever the memory (runs
//! spilled or not), the archives and `--min-games`, and the tables one process writes
//! (KQvKR and KRvKN with their sub-tables, and a 5-piece pawn table); a job that cannot
//! finish, or loses a process, fails with a clear message and leaves no file under the
//! final name, and the same command run again resumes it.
#![cfg(feature = "mpi")]

mod common;

use common::run_ok;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// `mpirun --oversubscribe -np 3 retrobook ARGS` (as root too, as CI runs it).
fn mpirun(args: &[&str]) -> Output {
    let _alone = one_job();
    mpirun_command(args)
        .output()
        .expect("mpirun runs (scripts/install-mpi installs Open MPI)")
}

/// One job at a time: three processes on two cores already wait on each other, and more
/// would spend the test's time waiting.
fn one_job() -> std::sync::MutexGuard<'static, ()> {
    static JOB: Mutex<()> = Mutex::new(());
    JOB.lock().unwrap_or_else(|e| e.into_inner())
}

fn mpirun_command(args: &[&str]) -> Command {
    let mut command = Command::new("mpirun");
    command
        .args([
            "--oversubscribe",
            "-np",
            "3",
            env!("CARGO_BIN_EXE_retrobook"),
        ])
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    command
}

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

/// The tables of folder `dir`, by file name, with their bytes.
fn tables(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rbt"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Checks that every table of `split` is the one-process table of that name in `alone`.
fn same_tables(split: &Path, alone: &Path, what: &str) -> usize {
    let (split, alone) = (tables(split), tables(alone));
    for (name, bytes) in &split {
        assert!(alone.get(name) == Some(bytes), "{what}: {name} differs");
    }
    split.len()
}

/// KPvKP: parts (pawn moves), en passant (moves with an extra option), promotions.
const PAWNS: &str = "KPvKP";

/// The tables of one process: KQvKR, KRvKN, KPvKP and their sub-tables.
fn alone() -> &'static Path {
    static ONE: OnceLock<tempfile::TempDir> = OnceLock::new();
    ONE.get_or_init(|| {
        let one = tempfile::tempdir().unwrap();
        let dir = one.path().to_str().unwrap();
        run_ok(&["gen", "KQvKR", "KRvKN", PAWNS, "--tables", dir]);
        one
    })
    .path()
}

/// The job is killed once its 4-piece tables are under way (one process lost): it fails
/// with Open MPI's message naming it, and every file under a table's name is whole. Run
/// again, it resumes, and every table is the one process's, byte for byte.
#[test]
fn tables_built_by_three_processes_are_one_process_tables_killed_or_not() {
    let one = alone();
    let three = tempfile::tempdir().unwrap();
    // KPvKP's sub-tables given (their promotions make them the costliest to build);
    // KQvKR's and KRvKN's built by the job too, and read back by every process.
    for (name, bytes) in tables(one) {
        if name.contains('P') && name != format!("{PAWNS}.rbt") {
            std::fs::write(three.path().join(name), bytes).unwrap();
        }
    }
    let given = tables(three.path()).len();
    let split = three.path().display().to_string();
    let args = [
        "gen",
        "KQvKR",
        "KRvKN",
        PAWNS,
        "--tables",
        &split,
        "--threads",
        "1",
    ];
    let kept = {
        let _alone = one_job();
        let job = mpirun_command(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let ranks = loop {
            let children = Command::new("pgrep")
                .args(["-P", &job.id().to_string()])
                .output()
                .unwrap();
            let pids: Vec<String> = String::from_utf8_lossy(&children.stdout)
                .split_whitespace()
                .map(String::from)
                .collect();
            // KQvK, KRvK and KNvK written: KQvKR is under way.
            if pids.len() == 3 && tables(three.path()).len() >= given + 3 {
                break pids;
            }
            let waited = started.elapsed();
            assert!(waited < Duration::from_secs(300), "the job starts");
            std::thread::sleep(Duration::from_millis(20));
        };
        Command::new("kill")
            .args(["-9", &ranks[2]])
            .status()
            .unwrap();
        let out = job.wait_with_output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("rank") && err.contains("exited on signal 9"),
            "the process lost is named: {err}"
        );
        // Whatever is under a table's name is whole: the table of one process.
        let kept = same_tables(three.path(), one, "after the kill");
        assert!(kept < tables(one).len(), "the job stopped early");
        kept
    };
    let out = mpirun(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Rank 0 alone speaks: a line for each table left.
    assert_eq!(stdout.matches("built ").count(), 1, "{stdout}");
    assert!(stdout.contains("split across 3 processes"), "{stdout}");
    let left = stdout.lines().filter(|l| l.starts_with('K')).count();
    assert_eq!(left, tables(one).len() - kept, "{stdout}");
    assert_eq!(same_tables(three.path(), one, "resumed"), tables(one).len());
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
