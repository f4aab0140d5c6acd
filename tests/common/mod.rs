//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod http;
pub mod netns;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;

/// A file under `tests/data/`.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The Python of `target/python`, where `scripts/install-python` puts the programs the
/// tests hold retrobook against (`what` names them, for the failure).
pub fn python(what: &str) -> PathBuf {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/python/bin/python");
    assert!(python.exists(), "scripts/install-python installs {what}");
    python
}

/// A program of Debian's games packages (`scripts/install-engines` installs them): in
/// /usr/games, or on the `PATH`.
pub fn game_program(name: &str) -> PathBuf {
    let games = Path::new("/usr/games").join(name);
    if games.exists() {
        return games;
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(name))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("scripts/install-engines installs {name}"))
}

/// Runs the retrobook binary with `args`.
pub fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retrobook"))
        .args(args)
        .output()
        .expect("the retrobook binary runs")
}

/// Runs the binary and insists on success; returns stdout.
pub fn run_ok(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "retrobook {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// `retrobook serve ARGS --bind 127.0.0.1:0` started in `cwd` (its stderr to `stderr`), and
/// the address its first line ends with.
pub fn serve(args: &[&str], cwd: &Path, stderr: Stdio) -> (Child, String) {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrobook"))
        .arg("serve")
        .args(args)
        .args(["--bind", "127.0.0.1:0"])
        .current_dir(cwd)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("the retrobook binary runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .last()
        .unwrap_or_default()
        .to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "serve said {line:?}");
    (child, url)
}

/// Damaged copies of a good book file's `bytes`, by name: cut short, a byte flipped in the
/// last entry and one in an earlier entry, and a foreign file as long as a header.
pub fn damaged_books(bytes: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let flipped = |at: usize, bit: u8| {
        let mut b = bytes.to_vec();
        b[at] ^= bit;
        b
    };
    let n = bytes.len();
    vec![
        ("truncated", bytes[..n - 5].to_vec()),
        ("flipped", flipped(n - 3, 1)),
        ("flipped-earlier", flipped(n - 20, 4)),
        (
            "foreign",
            b"not a book at all, but long enough to hold a header..........".to_vec(),
        ),
    ]
}

/// Expected value of a line of the Gaviota sample files: `dm N` in the python-chess
/// convention and, when present, `wdl W` (needed to tell mate from draw when N = 0).
pub fn expected_dtm(line: &str) -> Option<(String, Option<retrobook::Dtm>)> {
    use retrobook::Dtm;
    let (fen, ops) = line.split_once(" dm ")?;
    let dm: i32 = ops.split(';').next()?.trim().parse().ok()?;
    let wdl: Option<i32> = ops
        .split("wdl ")
        .nth(1)
        .and_then(|w| w.split(';').next()?.trim().parse().ok());
    let v = match (dm, wdl) {
        (n, _) if n > 0 => Some(Dtm::Win(2 * n as u32 - 1)),
        (n, _) if n < 0 => Some(Dtm::Loss(2 * (-n) as u32)),
        (_, Some(-1)) => Some(Dtm::Loss(0)),
        (_, Some(_)) => Some(Dtm::Draw),
        (_, None) => None, // draw or mated: the test checks by rules
    };
    Some((fen.trim().to_string(), v))
}

/// Rewrites the table of `signature` in `dir` through the library's writer after `edit` has
/// changed its values (`Dtm::encode`, by side to move and solver index), so that a
/// deliberately altered value passes every file check and only `verify` can catch it.
pub fn rewrite_table(dir: &Path, signature: &str, edit: impl FnOnce(&mut [Vec<u8>; 2])) {
    use retrobook::probe::LoadedTables;
    use retrobook::retro::Solution;
    use retrobook::table::{write_table, WriteOptions};
    use retrobook::Side;
    let m: retrobook::material::Material = signature.parse().unwrap();
    let tb: retrobook::Tablebase = retrobook::Tablebase::open(dir).unwrap();
    let table = tb.table(&m).unwrap();
    let (index, stats) = (table.index().clone(), table.header().stats);
    let loaded = LoadedTables::load(&tb, &[m]).unwrap();
    let mut values = retrobook::Side::ALL.map(|s| loaded.values(&m, s).unwrap().to_vec());
    drop(loaded);
    drop(tb);
    let n = index.size();
    let illegal = Side::ALL.map(|turn| {
        let mut bits = vec![0u64; n.div_ceil(64) as usize];
        for i in 0..n {
            let legal = index
                .decode(i, turn)
                .is_some_and(|p| !p.opponent_in_check() && index.is_canonical(i, &p));
            if !legal {
                bits[(i / 64) as usize] |= 1 << (i % 64);
            }
        }
        bits
    });
    edit(&mut values);
    let solution = Solution::from_parts(values.into(), illegal.into());
    write_table(dir, &m, solution, stats, &WriteOptions::default()).unwrap();
}

/// The 17,500 Gaviota DTM samples of `dtm-samples-34.epd` (500 per 3-4-piece table).
pub fn gaviota_samples() -> Vec<(String, retrobook::Dtm)> {
    let text = std::fs::read_to_string(data("dtm-samples-34.epd")).unwrap();
    let samples: Vec<(String, retrobook::Dtm)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (fen, v) = expected_dtm(l).expect("sample line parses");
            (fen, v.expect("samples carry wdl"))
        })
        .collect();
    assert_eq!(samples.len(), 17_500);
    samples
}

/// `mpirun --oversubscribe -np 3 retrobook ARGS` (as root too, as CI runs it).
pub fn mpirun(args: &[&str]) -> Output {
    let _alone = one_job();
    mpirun_command(args)
        .output()
        .expect("mpirun runs (scripts/install-mpi installs Open MPI)")
}

/// One job at a time: three processes on two cores already wait on each other, and more
/// would spend the test's time waiting.
pub fn one_job() -> std::sync::MutexGuard<'static, ()> {
    static JOB: Mutex<()> = Mutex::new(());
    JOB.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn mpirun_command(args: &[&str]) -> Command {
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

/// The tables of folder `dir`, by file name, with their bytes.
pub fn tables(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
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
pub fn same_tables(split: &Path, alone: &Path, what: &str) -> usize {
    let (split, alone) = (tables(split), tables(alone));
    for (name, bytes) in &split {
        assert!(alone.get(name) == Some(bytes), "{what}: {name} differs");
    }
    split.len()
}

/// A small seeded generator (splitmix64): the same draws on every run.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Whether some simple path ending at node `v` (`v` excluded), walked back through `preds`
/// (each node's predecessors), taken as history (in the order played) gives `value` another
/// answer at `v` than `free`: a value's path dependence, by trying every such path.
pub fn some_path_changes<T: PartialEq>(
    v: usize,
    preds: &dyn Fn(usize) -> Vec<usize>,
    value: &mut dyn FnMut(&mut Vec<usize>) -> T,
    free: &T,
) -> bool {
    fn grow<T: PartialEq>(
        v: usize,
        preds: &dyn Fn(usize) -> Vec<usize>,
        value: &mut dyn FnMut(&mut Vec<usize>) -> T,
        free: &T,
        rev: &mut Vec<usize>,
    ) -> bool {
        let at = *rev.last().unwrap_or(&v);
        for p in preds(at) {
            if p == v || rev.contains(&p) {
                continue;
            }
            rev.push(p);
            let mut history: Vec<usize> = rev.iter().rev().copied().collect();
            if value(&mut history) != *free || grow(v, preds, value, free, rev) {
                return true;
            }
            rev.pop();
        }
        false
    }
    grow(v, preds, value, free, &mut Vec::new())
}
