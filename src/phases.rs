//! CPU time, wall time and peak memory of the phases of a table's build (`gen --json`'s
//! `phases`), so that speed and memory work is measured where the cost is, not guessed.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The time one phase took, over every time it ran (a pawn table solves part by part).
#[derive(Clone, Debug, PartialEq)]
pub struct PhaseTime {
    /// The phase, a name fixed in the code (`Phases::lap`).
    pub name: &'static str,
    /// CPU time of the process, all its threads, in seconds.
    pub cpu_seconds: f64,
    /// Wall time in seconds.
    pub wall_seconds: f64,
    /// The most memory the process held resident while the phase ran, in bytes (Linux;
    /// 0 elsewhere).
    pub peak_memory: u64,
}

/// A stopwatch over phases: each `lap` charges the time and the peak memory since the
/// one before (or since `start`) to the phase it names; phases keep the order they first
/// ran in.
#[derive(Debug)]
pub(crate) struct Phases {
    times: Vec<PhaseTime>,
    wall: Instant,
    cpu: f64,
    /// The system's peak count at the last lap.
    peak: u64,
    /// None where nobody reads the laps' peaks (`unread`).
    watch: Option<Watch>,
}

impl Phases {
    /// A stopwatch started now.
    pub(crate) fn start() -> Phases {
        Phases {
            watch: Some(Watch::start()),
            ..Phases::unread()
        }
    }

    /// A stopwatch started now whose laps nobody reads (a table written outside `gen`):
    /// no thread watches the memory, so a phase that reaches no new peak of the process
    /// reads 0.
    pub(crate) fn unread() -> Phases {
        Phases {
            times: Vec::new(),
            wall: Instant::now(),
            cpu: process_cpu_seconds(),
            peak: peak_memory(),
            watch: None,
        }
    }

    /// Charges the time and the peak memory since the last lap to `name`, and starts the
    /// next.
    pub(crate) fn lap(&mut self, name: &'static str) {
        let (wall, cpu) = (Instant::now(), process_cpu_seconds());
        let (wall_seconds, cpu_seconds) = ((wall - self.wall).as_secs_f64(), cpu - self.cpu);
        (self.wall, self.cpu) = (wall, cpu);
        // A new peak of the process was reached in this phase; else the highest seen.
        let peak = peak_memory();
        let seen = self.watch.as_ref().map_or(0, Watch::highest_since_asked);
        let peak_memory = match peak > self.peak {
            true => peak,
            false => seen,
        };
        self.peak = peak;
        match self.times.iter_mut().find(|t| t.name == name) {
            Some(t) => {
                t.cpu_seconds += cpu_seconds;
                t.wall_seconds += wall_seconds;
                t.peak_memory = t.peak_memory.max(peak_memory);
            }
            None => self.times.push(PhaseTime {
                name,
                cpu_seconds,
                wall_seconds,
                peak_memory,
            }),
        }
    }

    /// The phases timed, in the order they first ran.
    pub(crate) fn times(&self) -> &[PhaseTime] {
        &self.times
    }

    /// The process's peak so far: the system's count, or a phase's if the watch saw more
    /// (the system's count can lag behind the resident memory read by the watch).
    pub(crate) fn peak(&self) -> u64 {
        (self.times.iter().map(|t| t.peak_memory)).fold(peak_memory(), u64::max)
    }
}

/// Peak resident memory of this process so far, in bytes (Linux; 0 elsewhere).
pub fn peak_memory() -> u64 {
    status_bytes("VmHWM:")
}

/// How often `Watch` reads the resident memory.
const SAMPLE: Duration = Duration::from_millis(10);

/// A thread that reads the process's resident memory every `SAMPLE` and keeps the highest
/// since it was last asked; stopped when dropped. The system's own peak cannot be set back
/// without setting back what `getrusage` and `time -v` report too.
#[derive(Debug)]
struct Watch {
    highest: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watch {
    fn start() -> Watch {
        let highest = Arc::new(AtomicU64::new(resident()));
        let stop = Arc::new(AtomicBool::new(false));
        let (h, s) = (highest.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("memory watch".into())
            .spawn(move || {
                while !s.load(Relaxed) {
                    h.fetch_max(resident(), Relaxed);
                    std::thread::sleep(SAMPLE);
                }
            })
            .ok();
        Watch {
            highest,
            stop,
            thread,
        }
    }

    /// The highest resident memory read since the last call (or the start), now
    /// included; the next call counts from now.
    fn highest_since_asked(&self) -> u64 {
        let now = resident();
        self.highest.swap(now, Relaxed).max(now)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// This process's resident memory now, in bytes, or 0.
fn resident() -> u64 {
    status_bytes("VmRSS:")
}

/// A figure in kB of this process's status (Linux), in bytes, or 0.
fn status_bytes(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with(key)).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|kb| kb.parse::<u64>().ok())
            })
        })
        .map_or(0, |kb| kb * 1024)
}

/// CPU time this process has used, user and system, over all its threads (0 where the
/// system does not say).
fn process_cpu_seconds() -> f64 {
    #[cfg(target_os = "linux")]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: getrusage fills the struct it is given, which lives through the call.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } == 0 {
            // SAFETY: filled above.
            let u = unsafe { usage.assume_init() };
            let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
            return seconds(u.ru_utime) + seconds(u.ru_stime);
        }
    }
    0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spins until the process has used `seconds` more CPU time.
    fn spin(seconds: f64) {
        let until = process_cpu_seconds() + seconds;
        let mut x = 0u64;
        while process_cpu_seconds() < until {
            x = std::hint::black_box(x.wrapping_add(1));
        }
    }

    #[test]
    fn laps_add_up_by_phase_in_the_order_first_run() {
        let mut phases = Phases::start();
        spin(0.02);
        phases.lap("first");
        spin(0.01);
        phases.lap("second");
        spin(0.02);
        phases.lap("first");
        let names: Vec<_> = phases.times().iter().map(|t| t.name).collect();
        assert_eq!(names, ["first", "second"]);
        let [first, second] = phases.times() else {
            unreachable!()
        };
        assert!(first.cpu_seconds >= 0.04, "{first:?}");
        assert!(second.cpu_seconds >= 0.01, "{second:?}");
        // The wall clock ran at least while this thread was on a CPU.
        assert!(second.wall_seconds > 0.0 && first.wall_seconds > 0.0);
    }

    #[test]
    fn a_phase_that_holds_memory_reports_it_and_so_does_the_process() {
        const HELD: usize = 96 << 20;
        let mut phases = Phases::start();
        phases.lap("before");
        // Written, so that every page is resident.
        let held = std::hint::black_box(vec![1u8; HELD]);
        // Held long enough to be seen by the watch where it is not a new peak.
        std::thread::sleep(5 * SAMPLE);
        drop(held);
        phases.lap("holding");
        let holding = &phases.times()[1];
        assert!(holding.peak_memory >= HELD as u64, "{holding:?}");
        assert!(peak_memory() >= holding.peak_memory);
    }
}
