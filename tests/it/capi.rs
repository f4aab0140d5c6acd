//! The C ABI: the checked-in header is what cbindgen generates from `src/capi/mod.rs`, and a C
//! program compiled with the system C compiler against that header and linked with the
//! static library probes Gaviota-checked positions correctly and gets the failure value for
//! bad input, and reads a book's statistics and back-up values as the Rust API does.

use crate::common::gaviota_samples;
use retrobook::chess::{Position, Role};
use retrobook::generate::Session;
use retrobook::material::Material;
use retrobook::probe::Tablebase;
use retrobook::progress::Silent;
use retrobook::Side;
use retrobook::{Dtm, Wdl};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn header_is_current() {
    let config = cbindgen::Config::from_file(manifest().join("cbindgen.toml")).unwrap();
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(manifest().join("src/capi/mod.rs"))
        .generate()
        .expect("cbindgen reads src/capi/mod.rs")
        .write(&mut generated);
    let path = manifest().join("include/retrobook.h");
    if std::env::var_os("RETROBOOK_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "include/retrobook.h is out of date: run `RETROBOOK_BLESS=1 cargo test --release \
         --test it capi::header_is_current` and commit the header"
    );
}

/// The static library Cargo built with the binary under test: in `deps/`, or in the binary's
/// folder when Cargo has copied it up — the newer of the two (`cargo test` rebuilds the one
/// in `deps/` and leaves an older copy from `cargo build` in place).
fn static_library() -> PathBuf {
    let dir = Path::new(env!("CARGO_BIN_EXE_retrobook")).parent().unwrap();
    [dir.join("libretrobook.a"), dir.join("deps/libretrobook.a")]
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .max()
        .map(|(_, p)| p)
        .expect("cargo builds the static library (crate-type staticlib)")
}

/// What a program linked with a library built with the `mpi` feature also links: Open
/// MPI's libraries, as its compiler wrapper names them (nothing without the feature).
fn mpi_libraries() -> Vec<String> {
    if !cfg!(feature = "mpi") {
        return Vec::new();
    }
    let out = Command::new("mpicc")
        .arg("--showme:link")
        .output()
        .expect("mpicc names Open MPI's libraries (scripts/install-mpi installs it)");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// Compiles `tests/c/SOURCE` with the system C compiler (`CC`, else `cc`) against the
/// checked-in header and the static library, into `exe`.
fn compile_c(source: &str, exe: &Path) {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror", "-O1", "-I"])
        .arg(manifest().join("include"))
        .arg(manifest().join("tests/c").join(source))
        .arg(static_library())
        .args(mpi_libraries())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {cc}: {e}"));
    assert!(
        out.status.success(),
        "C compile failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs the compiled program `exe` with `args`, `input` on its standard input.
fn run_c(exe: &Path, args: &[&Path], input: &str) -> std::process::Output {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Fed from a thread: a program that reports failures as it reads would otherwise fill
    // its output pipes while this one still writes.
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let feeder = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    // A program that stops reading early (a bad line) closes the pipe: not this test's
    // failure, which its output shows.
    let _ = feeder.join().unwrap();
    out
}

/// One case line for the C program (see tests/c/probe.c): the position, its values, and
/// the move `probe_root_clock` ranks first from `clock`.
fn case_line(tb: &Tablebase, pos: &Position, dtm: Dtm, clock: u32) -> String {
    let mut timed = *pos;
    timed.set_clocks(clock, 1);
    let ranked = tb.probe_root_clock(&timed, false).unwrap();
    let first = match ranked.first() {
        Some(m) => format!(
            "{} {} {} {}",
            m.mv.from.index(),
            m.mv.to.index(),
            match m.root_outcome {
                Wdl::Win => 1,
                Wdl::Draw => 0,
                Wdl::Loss => -1,
            },
            m.root_dtz.0
        ),
        None => "-1 -1 0 0".into(),
    };
    let hex = |b: u64| format!("{b:x}");
    let c = |c: Side| pos.by_color(c).0;
    let r = |r: Role| pos.by_role(r).0;
    let wdl = match dtm.wdl() {
        Wdl::Win => 1,
        Wdl::Draw => 0,
        Wdl::Loss => -1,
    };
    let dtm_code = dtm.plies().map_or(-1, |p| p as i64);
    let dtz = tb.probe_dtz(pos).unwrap();
    let mated = pos.is_checkmate();
    let class = dtz.class_of_position(clock, mated) as i32;
    let dtz = dtz.0;
    format!(
        "{} {} {} {} {} {} {} {} {} {} {wdl} {dtm_code} {clock} {first} {dtz} {class} {timed}\n",
        hex(c(Side::White)),
        hex(c(Side::Black)),
        hex(r(Role::King)),
        hex(r(Role::Queen)),
        hex(r(Role::Rook)),
        hex(r(Role::Bishop)),
        hex(r(Role::Knight)),
        hex(r(Role::Pawn)),
        pos.ep_square().map_or(0, |s| s.index()),
        u8::from(pos.turn() == Side::White),
    )
}

#[test]
fn a_c_program_probes_through_the_header_and_the_static_library() {
    // Tables: every 3-piece one and KBNvK, built through the library.
    let tables = tempfile::tempdir().unwrap();
    let targets: Vec<Material> = ["KQvK", "KRvK", "KPvK", "KBNvK"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    let tb = Session::open(tables.path(), &targets)
        .build_all(&Default::default(), &Silent)
        .unwrap();

    // Cases: the Gaviota samples of those tables, with Gaviota's values (both colours).
    let mut cases = String::new();
    let mut count = 0;
    for (fen, dtm) in gaviota_samples() {
        let pos: Position = fen.parse().unwrap();
        if tb.probe_dtm(&pos).is_ok() {
            // Clocks across the whole range, so that some wins no longer fit.
            let clock = (count as u32 * 37) % 101;
            cases.push_str(&case_line(&tb, &pos, dtm, clock));
            cases.push_str(&case_line(&tb, &pos.color_flipped(), dtm, 100 - clock));
            count += 2;
        }
    }
    assert!(count > 2000, "{count} cases");

    // Compile with the system C compiler against the checked-in header.
    let work = tempfile::tempdir().unwrap();
    let exe = work.path().join("probe");
    compile_c("probe.c", &exe);

    // A book from the sample archive, a copy backed up, and what the Rust API says of the
    // start position.
    let plain_path = work.path().join("sample.rbb");
    let out = Command::new(env!("CARGO_BIN_EXE_retrobook"))
        .args(["book", "build"])
        .arg(manifest().join("books/masters-3000.pgn.zst"))
        .arg("--out")
        .arg(&plain_path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let book_path = work.path().join("backed-up.rbb");
    std::fs::copy(&plain_path, &book_path).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_retrobook"))
        .args(["book", "backup", "--book"])
        .arg(&book_path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let book = retrobook::book::Book::open(&book_path).unwrap();
    let answer = book.probe(&Position::start());
    let best = &answer.moves[0];
    let expected_book_line = format!(
        "book start {} {} {} {} {} {} {}",
        answer.moves.len(),
        best.mv.from.index(),
        best.mv.to.index(),
        best.entry.games,
        best.entry.win,
        best.entry.draw,
        best.entry.loss
    );
    let expected_move_lines: Vec<String> = answer
        .moves
        .iter()
        .map(|m| {
            let b = m
                .entry
                .backup
                .expect("a backed-up book values every start move");
            format!(
                "book move {} {} {} {} {} {}",
                m.mv.from.index(),
                m.mv.to.index(),
                m.entry.games,
                m.entry.repeats,
                b.value_permille,
                u8::from(b.path_dependent)
            )
        })
        .collect();

    let args = [tables.path(), book_path.as_path(), plain_path.as_path()];
    let out = run_c(&exe, &args, &cases);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // The library prints nothing, even for what it refuses.
    assert!(stderr.is_empty(), "{stderr}");
    assert!(stdout.contains("largest 4"), "{stdout}");
    assert!(
        stdout.contains(&expected_book_line),
        "{stdout}\nwant {expected_book_line}"
    );
    for line in &expected_move_lines {
        assert!(stdout.contains(line), "{stdout}\nwant {line}");
    }
    assert_eq!(
        stdout.matches("book move ").count(),
        answer.moves.len(),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("cases {count} failures 0")),
        "{stdout}\n{stderr}"
    );
}

/// Xiangqi tables through the C ABI: a C program probes KRvKN by FEN (every position the
/// perpetual-check rule decides, and a sample of the others, both colours) and gets what
/// the Rust API gives, and the failure value for bad input (the kings facing each other
/// included).
#[test]
fn a_c_program_probes_xiangqi_tables_by_fen() {
    use retrobook::probe::{Tablebase, Xiangqi};
    use retrobook::retro::Verdict;
    use retrobook::xiangqi::Signature;
    let tables = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_retrobook"))
        .args(["gen", "--game", "xiangqi", "KRvKN", "--tables"])
        .arg(tables.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tb = Tablebase::<Xiangqi>::open(tables.path()).unwrap();
    let file = tb.table(&"KRvKN".parse::<Signature>().unwrap()).unwrap();
    let (mut cases, mut count, mut by_rule) = (String::new(), 0, 0);
    for side in 0..2 {
        let turn = Side::from_index(side);
        for idx in 0..file.index().size() {
            let Some(pos) = file.index().decode(idx, turn) else {
                continue;
            };
            let Ok(v) = tb.probe(&pos) else {
                continue;
            };
            if !v.by_rule() && idx % 97 != 0 {
                continue;
            }
            let wdl = match v.wdl() {
                Wdl::Win => 1,
                Wdl::Draw => 0,
                Wdl::Loss => -1,
            };
            let dtm = match v {
                Verdict::Plain(d) => d.plies().map_or(-1, |p| p as i64),
                _ => -1,
            };
            for p in [pos.clone(), pos.flipped()] {
                cases.push_str(&format!(
                    "{wdl} {dtm} {} {}\n",
                    u8::from(v.by_rule()),
                    p.to_fen()
                ));
                count += 1;
            }
            by_rule += usize::from(v.by_rule());
        }
    }
    assert_eq!(by_rule, 1597);
    let work = tempfile::tempdir().unwrap();
    let exe = work.path().join("xiangqi");
    compile_c("xiangqi.c", &exe);
    let out = run_c(&exe, &[tables.path()], &cases);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(&format!("cases {count} failures 0")),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A list of tests/c/fathom.c's answer line: `(move, number, number)` each, None for
/// "failed".
type Listed = Option<Vec<(String, i32, i32)>>;

/// One answer line of tests/c/fathom.c, read.
struct FathomAnswer {
    /// tb_probe_wdl's class, -1 where it failed.
    wdl: i32,
    /// tb_probe_root's result: "failed", "checkmate", "stalemate", or class, move and
    /// distance.
    root: Vec<String>,
    /// tb_probe_root's `(move, class, distance)` of every move.
    moves: Vec<(String, i32, i32)>,
    /// tb_probe_root_dtz's `(move, rank, score)` of every move.
    by_dtz: Listed,
    /// tb_probe_root_wdl's.
    by_class: Listed,
}

fn fathom_answer(line: &str) -> FathomAnswer {
    let mut parts = line.split(" |");
    let mut fields = parts.next().unwrap().split_whitespace();
    let wdl = fields.next().unwrap().parse().unwrap();
    let root = fields.map(String::from).collect();
    let mut list = || -> Listed {
        let text = parts.next().unwrap_or("");
        let triple = |m: &str| {
            let mut p = m.split(':');
            let mv = p.next().unwrap().to_string();
            let mut number = || p.next().unwrap().parse().unwrap();
            (mv, number(), number())
        };
        (text.trim() != "failed").then(|| text.split_whitespace().map(triple).collect())
    };
    let moves = list().unwrap();
    let (by_dtz, by_class) = (list(), list());
    FathomAnswer {
        wdl,
        root,
        moves,
        by_dtz,
        by_class,
    }
}

/// Fathom's API: a program written against Fathom's header alone (tests/c/fathom.c),
/// compiled against ours and linked with the static library, answers as Fathom answered on
/// Syzygy's files (tests/data/fathom-root.tsv, `scripts/record-fathom`), position by
/// position: tb_probe_wdl's class; tb_probe_root's class, and its distance within the ply
/// Syzygy's files may round; the same moves, each of the same class and distance within a
/// ply; a suggested move whose class is the one Fathom gives the position; every move's
/// rank by tb_probe_root_dtz, off by no more than its distance, and its score where the
/// rank is the same; tb_probe_root_wdl's ranks and scores.
#[test]
fn a_program_written_for_fathom_answers_as_fathom() {
    let recorded = std::fs::read_to_string(manifest().join("tests/data/fathom-root.tsv")).unwrap();
    let (fens, answers): (Vec<&str>, Vec<&str>) = recorded
        .lines()
        .map(|l| l.split_once('\t').unwrap())
        .unzip();
    let work = tempfile::tempdir().unwrap();
    let exe = work.path().join("fathom");
    compile_c("fathom.c", &exe);
    let input: String = fens.iter().map(|f| format!("{f}\n")).collect();
    let out = run_c(&exe, &[crate::tables::krbvkr()], &input);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("largest 5"));
    let ours: Vec<&str> = lines.collect();
    assert_eq!(ours.len(), fens.len());
    let (mut compared, mut moves_compared) = (0, 0);
    for ((fen, theirs), ours) in fens.iter().zip(&answers).zip(&ours) {
        let context = format!("{fen}: {ours}\nFathom: {theirs}");
        let us = fathom_answer(ours);
        if *theirs == "aborted" {
            // Fathom asserts on a position of a table it lacks; we have none either.
            assert_eq!(
                (us.wdl, us.root.join(" ")),
                (-1, "failed".into()),
                "{context}"
            );
            continue;
        }
        let clock: u64 = fen.split_whitespace().nth(4).unwrap().parse().unwrap();
        if clock > 254 {
            // Fathom keeps the count in a byte, which wraps after a move from 255.
            continue;
        }
        let them = fathom_answer(theirs);
        assert_eq!(us.wdl, them.wdl, "tb_probe_wdl: {context}");
        assert_eq!(
            us.root.first(),
            them.root.first(),
            "tb_probe_root: {context}"
        );
        if us.root.len() == 3 {
            let dtz = |a: &FathomAnswer| a.root[2].parse::<i32>().unwrap();
            assert!((dtz(&us) - dtz(&them)).abs() <= 1, "root DTZ: {context}");
            // The suggested move keeps the position's class by Fathom's own account.
            let by_fathom = them.moves.iter().find(|m| m.0 == us.root[1]);
            let by_fathom = by_fathom.unwrap_or_else(|| panic!("suggested: {context}"));
            assert_eq!(by_fathom.1.to_string(), us.root[0], "suggested: {context}");
        }
        assert_eq!(us.moves.len(), them.moves.len(), "{context}");
        for (m, f) in us.moves.iter().zip(&them.moves) {
            assert_eq!((&m.0, m.1), (&f.0, f.1), "{context}");
            assert!((m.2 - f.2).abs() <= 1, "{context}");
        }
        assert_eq!(us.by_class, them.by_class, "tb_probe_root_wdl: {context}");
        let ranked = us.by_dtz.zip(them.by_dtz);
        let (ours_ranked, theirs_ranked) = ranked.expect("tb_probe_root_dtz answers");
        assert_eq!(ours_ranked.len(), them.moves.len(), "{context}");
        for (((r, f), m), u) in ours_ranked
            .iter()
            .zip(&theirs_ranked)
            .zip(&them.moves)
            .zip(&us.moves)
        {
            assert_eq!(r.0, f.0, "tb_probe_root_dtz: {context}");
            assert!(
                (r.1 - f.1).abs() <= (u.2 - m.2).abs(),
                "tb_probe_root_dtz: {context}"
            );
            // Where the rule draws a win or loss, the score is Stockfish's 1-49 centipawns
            // from the rank (Fathom's macros turn that formula into the rank less 400).
            let drawn_by_rule = |rank: i32| (1..900).contains(&rank.abs());
            let stockfish = |rank: i32| match rank > 0 {
                true => (rank - 800).max(3) * 100 / 200,
                false => (rank + 800).min(-3) * 100 / 200,
            };
            match (r.1 == f.1, drawn_by_rule(f.1)) {
                (false, _) => {}
                (true, false) => assert_eq!(r.2, f.2, "tb_probe_root_dtz: {context}"),
                (true, true) => assert_eq!(r.2, stockfish(f.1), "tb_probe_root_dtz: {context}"),
            }
        }
        compared += 1;
        moves_compared += us.moves.len();
    }
    assert!(
        compared >= 260 && moves_compared > 3000,
        "{compared} {moves_compared}"
    );
}

/// The library as an engine installs it: `scripts/install-lib` puts both libraries, both
/// headers and a pkg-config file in a prefix; `examples/probe.c` builds with the flags
/// pkg-config gives and prints what the Rust API answers of a position and its moves.
#[test]
fn the_installed_library_builds_the_c_example_through_pkg_config() {
    let prefix = tempfile::tempdir().unwrap();
    let built = static_library().parent().unwrap().to_path_buf();
    let out = Command::new(manifest().join("scripts/install-lib"))
        .arg(prefix.path())
        .env("LIB_DIR", &built)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in [
        "lib/libretrobook.a",
        "lib/libretrobook.so",
        "include/retrobook/tbprobe.h",
    ] {
        assert!(prefix.path().join(f).is_file(), "{f}");
    }
    let flags = Command::new("pkg-config")
        .args(["--cflags", "--libs", "retrobook"])
        .env("PKG_CONFIG_PATH", prefix.path().join("lib/pkgconfig"))
        .output()
        .expect("pkg-config runs");
    assert!(
        flags.status.success(),
        "{}",
        String::from_utf8_lossy(&flags.stderr)
    );
    let flags = String::from_utf8(flags.stdout).unwrap();
    let work = tempfile::tempdir().unwrap();
    let exe = work.path().join("probe");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Wextra", "-Werror"])
        .arg(manifest().join("examples/probe.c"))
        .args(flags.split_whitespace())
        .args(mpi_libraries())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let tables = crate::tables::tables();
    let fen = "8/8/8/8/8/3k4/8/K1Q5 w - - 37 1";
    let out = Command::new(&exe)
        .arg(tables)
        .arg(fen)
        .env("LD_LIBRARY_PATH", prefix.path().join("lib"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let tb = Tablebase::open(tables).unwrap();
    let pos: Position = fen.parse().unwrap();
    let dtz = tb.probe_dtz(&pos).unwrap();
    let word = |w: Wdl| match w {
        Wdl::Win => "win",
        Wdl::Draw => "draw",
        Wdl::Loss => "loss",
    };
    let mut want = vec![format!(
        "{}, mate in {} plies, zeroing in {} plies, class {} under the 50-move rule",
        word(tb.probe_wdl(&pos).unwrap()),
        tb.probe_dtm(&pos).unwrap().plies().unwrap(),
        dtz.0,
        dtz.class_of_position(37, false) as i32,
    )];
    for m in tb.probe_root_clock(&pos, false).unwrap() {
        let dtm = m.root_dtm.plies().map_or(-1, |p| p as i64);
        let uci = m.mv.to_string();
        want.push(format!(
            "{uci} {} dtz {} dtm {dtm}",
            word(m.root_outcome),
            m.root_dtz.0
        ));
    }
    assert_eq!(stdout.lines().collect::<Vec<_>>(), want);
}
