//! `gen`'s plan: what each table to build is expected to cost, shown before the run starts,
//! and the memory limit a run is held to (so that a table that cannot fit is refused at
//! once, not after hours of work on the tables before it).

use retrobook::generate::{estimate, Estimate};
use retrobook::index::TableIndex;
use retrobook::material::Material;
use retrobook::Tablebase;
use serde_json::json;

/// One table of a run.
pub struct Planned {
    pub material: Material,
    /// Indices over both sides to move.
    pub indices: u64,
    pub estimate: Estimate,
    /// True when every sub-table exists already, so that the estimate is final; otherwise
    /// it assumes the costlier stored side of the missing ones, and is made again before
    /// the table starts.
    pub settled: bool,
}

/// The tables of a run, in order.
pub struct Plan {
    pub tables: Vec<Planned>,
}

impl Plan {
    /// Estimates `todo` in order, with the sub-tables `tb` holds.
    pub fn new(todo: &[Material], tb: &Tablebase) -> Plan {
        let tables = todo
            .iter()
            .map(|&material| Planned {
                material,
                indices: 2 * TableIndex::new(material).size(),
                estimate: estimate(material, tb),
                settled: material
                    .dependencies()
                    .iter()
                    .all(|d| tb.table(d).is_some()),
            })
            .collect();
        Plan { tables }
    }

    /// Indices over all tables.
    pub fn indices(&self) -> u64 {
        self.tables.iter().map(|t| t.indices).sum()
    }

    /// Seconds left before table `i` starts, `spent` seconds into the run: the plan's time
    /// for tables `i..` on `threads` threads, scaled by how the tables before `i` kept to
    /// theirs (the model is a rough mean: tables with a 50-move pass take longer).
    pub fn left(&self, i: usize, spent: f64, threads: usize) -> f64 {
        let wall =
            |t: &[Planned]| t.iter().map(|t| t.estimate.cpu_seconds).sum::<f64>() / threads as f64;
        let (done, todo) = self.tables.split_at(i.min(self.tables.len()));
        let pace = if wall(done) > 0.0 {
            spent / wall(done)
        } else {
            1.0
        };
        wall(todo) * pace
    }

    /// The table with the largest peak, and that peak.
    fn largest(&self) -> Option<(Material, u64)> {
        self.tables
            .iter()
            .map(|t| (t.material, t.estimate.peak_bytes))
            .max_by_key(|t| t.1)
    }

    /// One line: tables, indices, time on `threads` threads, largest peak.
    pub fn summary(&self, threads: usize, present: usize) -> String {
        let cpu: f64 = self.tables.iter().map(|t| t.estimate.cpu_seconds).sum();
        let largest = self.largest().map(|(m, b)| (m.to_string(), b));
        summary_line(
            self.tables.len(),
            present,
            self.indices(),
            cpu,
            threads,
            largest,
        )
    }

    /// Seconds table `i` is expected to take, `spent` seconds into the run (as `left`).
    pub fn table_seconds(&self, i: usize, spent: f64, threads: usize) -> f64 {
        self.left(i, spent, threads) - self.left(i + 1, spent, threads)
    }

    /// One line per table, for `gen --plan`.
    pub fn lines(&self, threads: usize) -> impl Iterator<Item = String> + '_ {
        self.tables.iter().map(move |t| {
            let note = if t.settled {
                ""
            } else {
                " (sub-tables to build first)"
            };
            planned_line(
                &t.material.to_string(),
                t.indices,
                &t.estimate,
                threads,
                note,
            )
        })
    }

    /// One JSON object per table, for `gen --plan --json`.
    pub fn json(&self) -> impl Iterator<Item = serde_json::Value> + '_ {
        self.tables
            .iter()
            .map(|t| planned_json(&t.material.to_string(), t.indices, &t.estimate, t.settled))
    }

    /// An error message naming the first table whose final estimate exceeds `limit`, or
    /// None.
    pub fn refused(&self, limit: &Limit) -> Option<String> {
        let t = self
            .tables
            .iter()
            .find(|t| t.settled && t.estimate.peak_bytes > limit.bytes)?;
        Some(over(t.material, &t.estimate, limit, "no table was built"))
    }

    /// A warning naming the tables whose estimate, not yet final, exceeds `limit`.
    pub fn at_risk(&self, limit: &Limit) -> Option<String> {
        let names: Vec<String> = self
            .tables
            .iter()
            .filter(|t| !t.settled && t.estimate.peak_bytes > limit.bytes)
            .map(|t| format!("{} ({})", t.material, bytes(t.estimate.peak_bytes)))
            .collect();
        (!names.is_empty()).then(|| {
            format!(
                "may need more than {}: {}; each is estimated again once its sub-tables exist",
                limit.describe(),
                names.join(", ")
            )
        })
    }
}

/// The line a run of `gen` (either game) starts with: `tables` to build, `present`
/// already there, their `indices`, time on `threads` threads, and the largest peak.
pub fn summary_line(
    tables: usize,
    present: usize,
    indices: u64,
    cpu_seconds: f64,
    threads: usize,
    largest: Option<(String, u64)>,
) -> String {
    let peak = largest.map_or(String::new(), |(name, b)| {
        format!(", peak memory at most {} ({name})", bytes(b))
    });
    format!(
        "plan: {tables} tables to build ({present} already present), {indices} indices, about {} on {threads} thread(s){peak}",
        duration(cpu_seconds / threads as f64),
    )
}

/// The header of the table `report_row` fills, its first column `width` wide, and `extra`
/// headings after (with the spaces before them).
pub fn report_header(width: usize, extra: &str) -> String {
    format!(
        "{:<width$} {:>12} {:>8} {:>8} {:>9} {:>11}  longest mate (plies){extra}",
        "table", "indices", "seconds", "M idx/s", "peak MiB", "bytes"
    )
}

/// One built table's row under `report_header` (either game).
pub fn report_row(
    name: &str,
    width: usize,
    indices: u64,
    seconds: f64,
    peak_bytes: u64,
    bytes: u64,
    longest: u32,
) -> String {
    format!(
        "{name:<width$} {indices:>12} {seconds:>8.2} {:>8.2} {:>9} {bytes:>11}  {longest:>20}",
        indices as f64 / seconds.max(1e-9) / 1e6,
        peak_bytes >> 20,
    )
}

/// `gen --plan`'s line when every table asked for is in `dir`.
pub fn nothing_to_build(dir: &std::path::Path) -> String {
    format!(
        "nothing to build: every table asked for is in {}",
        dir.display()
    )
}

/// A table's line of `gen --plan` (either game): its name, indices over both sides, time
/// on `threads` threads, peak, and `note`.
pub fn planned_line(name: &str, indices: u64, e: &Estimate, threads: usize, note: &str) -> String {
    format!(
        "{name:<8} {indices:>12} indices  about {:>8} on {threads} thread(s)  peak at most {:>9}{note}",
        duration(e.cpu_seconds / threads as f64),
        bytes(e.peak_bytes),
    )
}

/// A table's object of `gen --plan --json`; `settled` when the estimate is final.
pub fn planned_json(name: &str, indices: u64, e: &Estimate, settled: bool) -> serde_json::Value {
    json!({
        "signature": name,
        "indices": indices,
        "estimated_cpu_seconds": e.cpu_seconds,
        "estimated_peak_memory_bytes": e.peak_bytes,
        "final": settled,
    })
}

/// The message refusing `material`, whose estimate exceeds `limit`; `kept` says what
/// happened to the run so far.
pub fn over(material: Material, e: &Estimate, limit: &Limit, kept: &str) -> String {
    format!(
        "{material} needs up to {} of memory by the estimate, more than {}; {kept} \
         (a larger --memory MIB builds it anyway, at the risk of running out of memory)",
        bytes(e.peak_bytes),
        limit.describe()
    )
}

/// The memory a run may use.
pub struct Limit {
    /// Bytes.
    pub bytes: u64,
    /// True when given by `--memory`, false when read from the machine.
    pub given: bool,
}

impl Limit {
    /// `--memory` (MiB) if given, else the memory the machine has available now; None
    /// where that is unknown (no limit).
    pub fn new(memory_mib: Option<u64>) -> Option<Limit> {
        match memory_mib {
            Some(mib) => Some(Limit {
                bytes: mib.saturating_mul(1 << 20),
                given: true,
            }),
            None => available_memory().map(|bytes| Limit {
                bytes,
                given: false,
            }),
        }
    }

    fn describe(&self) -> String {
        if self.given {
            format!("the limit of {} (--memory)", bytes(self.bytes))
        } else {
            format!("the {} this machine has available", bytes(self.bytes))
        }
    }
}

/// The memory available to new work (Linux `MemAvailable`), or None.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Bytes in MiB or GiB.
pub fn bytes(b: u64) -> String {
    let mib = b as f64 / f64::from(1 << 20);
    if mib >= 1024.0 {
        format!("{:.1} GiB", mib / 1024.0)
    } else {
        format!("{mib:.0} MiB")
    }
}

/// Seconds as `42 s`, `3.5 min` or `2.1 h`.
pub(crate) fn duration(s: f64) -> String {
    if s < 90.0 {
        format!("{s:.0} s")
    } else if s < 5400.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(peaks: &[(&str, u64, bool)]) -> Plan {
        Plan {
            tables: peaks
                .iter()
                .map(|&(s, p, settled)| Planned {
                    material: s.parse().unwrap(),
                    indices: 2,
                    estimate: Estimate {
                        peak_bytes: p,
                        cpu_seconds: 1.0,
                    },
                    settled,
                })
                .collect(),
        }
    }

    #[test]
    fn the_first_final_estimate_over_the_limit_is_refused() {
        let p = plan(&[
            ("KQvK", 10 << 20, true),
            ("KQvKQ", 900 << 20, false),
            ("KRvKN", 300 << 20, true),
            ("KQvKR", 400 << 20, true),
        ]);
        let limit = Limit {
            bytes: 200 << 20,
            given: true,
        };
        let msg = p.refused(&limit).expect("over the limit");
        assert!(msg.starts_with("KRvKN needs up to 300 MiB"), "{msg}");
        assert!(msg.contains("200 MiB (--memory)"), "{msg}");
        let warning = p.at_risk(&limit).expect("one table at risk");
        assert!(warning.contains("KQvKQ (900 MiB)"), "{warning}");
        assert!(!warning.contains("KRvKN"), "{warning}");
        let roomy = Limit {
            bytes: 1 << 30,
            given: false,
        };
        assert_eq!(p.refused(&roomy), None);
        assert_eq!(p.at_risk(&roomy), None);
    }

    #[test]
    fn sizes_and_durations_read_well() {
        assert_eq!(bytes(958 << 20), "958 MiB");
        assert_eq!(bytes(3 << 29), "1.5 GiB");
        assert_eq!(duration(42.4), "42 s");
        assert_eq!(duration(210.0), "3.5 min");
        assert_eq!(duration(7560.0), "2.1 h");
    }
}
