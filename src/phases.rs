//! CPU time, wall time and peak memory of the phases of a table's build (`gen --json`'s
//! `phases`), so that speed and memory work is measured where the cost is, not guessed.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

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

/// A stopwatch over phases: each `lap` charges the time since the one before (or since
/// `start`) to the phase it names; phases keep the order they first ran in.
#[derive(Clone, Debug)]
pub(crate) struct Phases {
    times: Vec<PhaseTime>,
    wall: Instant,
    cpu: f64,
}

impl Phases {
    /// A stopwatch started now.
    pub(crate) fn start() -> Phases {
        Phases {
            times: Vec::new(),
            wall: Instant::now(),
            cpu: process_cpu_seconds(),
        }
    }

    /// Charges the time and the peak memory since the last lap to `name`, and starts the
    /// next.
    pub(crate) fn lap(&mut self, name: &'static str) {
        let (wall, cpu) = (Instant::now(), process_cpu_seconds());
        let (wall_seconds, cpu_seconds) = ((wall - self.wall).as_secs_f64(), cpu - self.cpu);
        (self.wall, self.cpu) = (wall, cpu);
        let peak_memory = peak_since_lap();
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
}

/// The highest peak the system reported before a lap set its count back (`peak_since_lap`).
static PEAK_BEFORE_LAPS: AtomicU64 = AtomicU64::new(0);

/// Peak resident memory of this process so far, in bytes (Linux; 0 elsewhere).
pub fn peak_memory() -> u64 {
    PEAK_BEFORE_LAPS.load(Relaxed).max(resident_peak())
}

/// The peak resident memory since the last lap (since the start, for the first), and sets
/// the system's count back to what is resident now, so that the next lap reads its own
/// phase's peak. Where the count cannot be set back, the process's peak so far.
fn peak_since_lap() -> u64 {
    let peak = resident_peak();
    PEAK_BEFORE_LAPS.fetch_max(peak, Relaxed);
    // "5" sets the peak resident size (VmHWM) back to the resident size (Linux 4.0 on).
    #[cfg(target_os = "linux")]
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    peak
}

/// The system's count of this process's peak resident memory (VmHWM), in bytes, or 0.
fn resident_peak() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
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
        drop(held);
        phases.lap("holding");
        let holding = &phases.times()[1];
        assert!(holding.peak_memory >= HELD as u64, "{holding:?}");
        // The count set back at each lap, the process's peak is still the highest.
        assert!(peak_memory() >= holding.peak_memory);
    }
}
