//! Progress bars on stderr: drawn only for an interactive terminal and never with `--json`,
//! all in one style; plain lines, spaced in time, when stderr is a log file.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use retrobook::progress::Observer;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Where bars draw: stderr when `show` and stderr is a terminal, else nowhere.
pub fn target(show: bool) -> ProgressDrawTarget {
    if show && std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

/// The house style with `template` (an indicatif template).
pub fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template)
        .expect("valid template")
        .progress_chars("=> ")
}

/// A bar of `len` steps (None: unknown yet) in `template`, drawn when `show`.
pub fn bar(len: Option<u64>, show: bool, template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(len, target(show));
    bar.set_style(style(template));
    bar
}

/// Progress for a log file (stderr not a terminal, where bars stay hidden): a line at the
/// start of a pass once an interval has passed since the last line (or the start), so that
/// an overnight run shows where it is and a short one writes nothing.
pub struct LogLines {
    every: Duration,
    state: Mutex<LogState>,
}

struct LogState {
    /// When the last line was written, or the run started.
    last: Instant,
    /// What is being worked on, and since when.
    subject: String,
    since: Instant,
    /// The pass under way.
    pass: String,
}

impl LogLines {
    /// Lines at most every `every`; None when `show` is false or stderr is a terminal
    /// (bars draw there instead).
    pub fn new(show: bool, every: Duration) -> Option<LogLines> {
        (show && !std::io::stderr().is_terminal()).then(|| LogLines::always(every))
    }

    fn always(every: Duration) -> LogLines {
        LogLines {
            every,
            state: Mutex::new(LogState {
                last: Instant::now(),
                subject: String::new(),
                since: Instant::now(),
                pass: String::new(),
            }),
        }
    }

    /// Starts work on `subject` (a table): later lines name it and the time spent on it.
    pub fn start(&self, subject: &str) {
        let mut s = self.state.lock().expect("log state");
        s.subject = subject.to_string();
        s.since = Instant::now();
    }

    /// The line for the start of pass `name`, if one is due; `run` says how far the
    /// whole run is.
    pub fn pass_line(&self, name: &str, run: impl FnOnce() -> String) -> Option<String> {
        let mut s = self.state.lock().expect("log state");
        s.pass = name.to_string();
        self.due(&mut s, String::new, run)
    }

    /// The line for the pass under way, if one is due, with how far it is (`steps`: done
    /// and total, asked only then): a long pass (a setup, a level of billions of indices,
    /// `verify`) shows its progress. None also while another thread holds the state, so
    /// that workers never wait on it.
    pub fn progress_line(
        &self,
        steps: impl FnOnce() -> (u64, u64),
        run: impl FnOnce() -> String,
    ) -> Option<String> {
        let mut s = self.state.try_lock().ok()?;
        let detail = || {
            let (done, total) = steps();
            let percent = 100 * u128::from(done) / u128::from(total.max(1));
            format!(", {percent}%")
        };
        self.due(&mut s, detail, run)
    }

    /// The line for the pass under way with `detail` and the run's progress (`run`), if
    /// the interval is over.
    fn due(
        &self,
        s: &mut LogState,
        detail: impl FnOnce() -> String,
        run: impl FnOnce() -> String,
    ) -> Option<String> {
        let now = Instant::now();
        if now.duration_since(s.last) < self.every {
            return None;
        }
        s.last = now;
        let on_it = now.duration_since(s.since).as_secs_f64();
        // A line due as a table starts says so, not "0 s on it".
        let spent = match on_it < 1.0 {
            true => "just started".to_string(),
            false => format!("{} on it", super::plan::duration(on_it)),
        };
        let run = run();
        let run = if run.is_empty() {
            run
        } else {
            format!("; {run}")
        };
        Some(format!(
            "retrobook: {}: {}{} ({spent}{run})",
            s.subject,
            s.pass,
            detail()
        ))
    }
}

/// Progress on stderr: bars for an interactive terminal, lines for a log file.
pub struct Bars {
    pub multi: MultiProgress,
    pub total: ProgressBar,
    pub table: ProgressBar,
    log: Option<LogLines>,
    /// When the run is expected to end, as last estimated (none before an estimate).
    end: Arc<Mutex<Option<Instant>>>,
    /// The table under way, for the whole-run bar to count inside it.
    current: Mutex<Option<Current>>,
}

/// The table under way: where the whole run stood when it started, its indices, and how
/// long it is expected to take (None: its passes' steps are its indices, as `verify`'s).
struct Current {
    before: u64,
    indices: u64,
    seconds: Option<f64>,
    since: Instant,
}

impl Current {
    /// Indices of the table counted done so far: by its steps, or by the time spent against
    /// the time expected; never the whole table before it is finished.
    fn done(&self, steps: u64) -> u64 {
        let part = match self.seconds {
            Some(s) if s > 0.0 => self.since.elapsed().as_secs_f64() / s,
            Some(_) => 0.0,
            None => steps as f64 / self.indices.max(1) as f64,
        };
        (self.indices as f64 * part.clamp(0.0, 0.99)) as u64
    }
}

impl Bars {
    /// Bars (drawn when `show` and stderr is a terminal) for a run of `indices` indices in
    /// all (the whole run's ETA is weighted by table size, not by table count).
    pub fn new(show: bool, indices: u64) -> Bars {
        let multi = MultiProgress::with_draw_target(target(show));
        let total = multi.add(ProgressBar::new(indices));
        let end = Arc::new(Mutex::new(None::<Instant>));
        let expected = end.clone();
        // Time left counts down from each table's estimate, between tables too.
        let left = move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
            let Some(end) = *expected.lock().unwrap_or_else(|e| e.into_inner()) else {
                return;
            };
            let _ = match end.checked_duration_since(Instant::now()) {
                Some(d) => write!(w, ", about {} left", super::plan::duration(d.as_secs_f64())),
                None => write!(w, ", past the estimate"),
            };
        };
        total.set_style(
            style(
                "{prefix:>8} [{bar:30}] {percent:>3}% of {human_len} indices  {elapsed} elapsed, {msg}{left}",
            )
            .with_key("left", left),
        );
        total.set_prefix("all");
        let table = multi.add(ProgressBar::new(1));
        // Passes count steps of their own (levels, chunks): a rate of them means nothing.
        table.set_style(style(
            "{prefix:>8} [{bar:30}] {msg:<24} {elapsed:>4} on it, ETA {eta}",
        ));
        // The bars move between updates too: a long level or a long write still shows time.
        total.enable_steady_tick(Duration::from_secs(1));
        table.enable_steady_tick(Duration::from_secs(1));
        Bars {
            multi,
            total,
            table,
            log: LogLines::new(show, Duration::from_secs(60)),
            end,
            current: Mutex::new(None),
        }
    }

    /// Starts table `m`, the `i`-th of `n`, of `indices` indices, with `left` seconds
    /// expected left in the run and `seconds` for this table (None: the table's passes
    /// count its indices).
    pub fn start(
        &self,
        m: &dyn std::fmt::Display,
        (i, n): (usize, usize),
        indices: u64,
        left: Option<f64>,
        seconds: Option<f64>,
    ) {
        self.table.set_prefix(m.to_string());
        self.table.reset();
        self.total.set_message(format!("table {i}/{n}"));
        *self.end.lock().unwrap_or_else(|e| e.into_inner()) =
            left.map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(Current {
            before: self.total.position(),
            indices,
            seconds,
            since: Instant::now(),
        });
        if let Some(log) = &self.log {
            log.start(&format!("{m} (table {i} of {n})"));
        }
    }

    /// Ends the table under way (or one skipped): the whole-run bar counts all of it.
    pub fn finish_table(&self, indices: u64) {
        let current = self
            .current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let before = current.map_or(self.total.position(), |c| c.before);
        self.total.set_position(before + indices);
    }

    /// Moves the whole-run bar to what is done of the table under way.
    fn count_inside(&self) {
        let Ok(current) = self.current.try_lock() else {
            return;
        };
        if let Some(c) = current.as_ref() {
            self.total
                .set_position(c.before + c.done(self.table.position()));
        }
    }

    /// The whole run so far, for a log line: "the run 37%".
    fn run_so_far(&self) -> String {
        let all = self.total.length().unwrap_or(0).max(1);
        format!(
            "the run {}%",
            100 * u128::from(self.total.position()) / u128::from(all)
        )
    }
}

impl Observer for Bars {
    fn pass(&self, name: &str, total: u64) {
        self.table.set_length(total);
        self.table.set_position(0);
        self.table.reset_eta();
        self.table.set_message(name.to_string());
        self.count_inside();
        let run = || self.run_so_far();
        if let Some(line) = self.log.as_ref().and_then(|l| l.pass_line(name, run)) {
            eprintln!("{line}");
        }
    }

    fn advance(&self, n: u64) {
        self.table.inc(n);
        self.count_inside();
        let Some(log) = &self.log else { return };
        let steps = || (self.table.position(), self.table.length().unwrap_or(0));
        if let Some(line) = log.progress_line(steps, || self.run_so_far()) {
            eprintln!("{line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_are_spaced() {
        let none = String::new;
        let hourly = LogLines::always(Duration::from_secs(3600));
        hourly.start("KRvK");
        assert_eq!(
            hourly.pass_line("ply 3", none),
            None,
            "a short run writes nothing"
        );
        let every = LogLines::always(Duration::ZERO);
        every.start("KQvK");
        let line = every
            .pass_line("ply 1", || "the run 40%".into())
            .expect("a line once the interval is over");
        assert_eq!(line, "retrobook: KQvK: ply 1 (just started; the run 40%)");
        assert!(every.pass_line("ply 2", none).is_some());
        every.state.lock().unwrap().since -= Duration::from_secs(75);
        assert_eq!(
            every.progress_line(|| (50, 200), none).as_deref(),
            Some("retrobook: KQvK: ply 2, 25% (75 s on it)")
        );
        assert_eq!(hourly.progress_line(|| (1, 2), none), None, "not due");
    }

    /// The whole-run bar counts inside the table under way: by its steps where they are
    /// its indices, by the time spent against the time expected otherwise, never all of
    /// it before it ends; then all of it.
    #[test]
    fn the_run_bar_counts_inside_the_table_under_way() {
        let bars = Bars::new(false, 1000);
        bars.start(&"KQvK", (1, 2), 400, None, None);
        bars.pass("verify KQvK", 400);
        bars.advance(100);
        assert_eq!(bars.total.position(), 100);
        bars.advance(300);
        assert_eq!(bars.total.position(), 396, "99% at most before the end");
        bars.finish_table(400);
        assert_eq!(bars.total.position(), 400);
        bars.start(&"KRvK", (2, 2), 600, None, Some(3600.0));
        if let Some(c) = bars.current.lock().unwrap().as_mut() {
            c.since -= Duration::from_secs(1800);
        }
        bars.pass("ply 1", 10);
        let at = bars.total.position();
        assert!(
            (698..=702).contains(&at),
            "half the time: half the table, {at}"
        );
        assert!(
            bars.run_so_far().starts_with("the run 7"),
            "{}",
            bars.run_so_far()
        );
        bars.finish_table(600);
        assert_eq!(bars.total.position(), 1000);
    }
}
