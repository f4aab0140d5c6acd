//! What the command line prints: lines on stdout, and failures as one line on stderr with
//! an exit status (1 runtime failure, 2 usage error).

use std::io::Write;

/// A failure to report: a message and an exit status.
pub struct Failure(pub String, pub u8);

pub fn runtime(msg: impl std::fmt::Display) -> Failure {
    Failure(msg.to_string(), 1)
}

pub fn usage(msg: impl std::fmt::Display) -> Failure {
    Failure(msg.to_string(), 2)
}

/// A failed write to stdout: a closed pipe (`retrobook ... | head`) ends the run quietly.
pub fn write_failed(e: std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Failure(String::new(), 0)
    } else {
        runtime(format!("cannot write the output: {e}"))
    }
}

/// The positions a run over several could not answer, each named on stderr as it comes: a
/// FEN that cannot be read makes the run a usage error (2), a position without an answer
/// (no table, a damaged one) a runtime failure (1).
#[derive(Default)]
pub struct Failures {
    unreadable: usize,
    unanswered: usize,
}

impl Failures {
    /// The position `read` from `fen`, or None after naming why it cannot be read.
    pub fn read<T, E: std::fmt::Display>(&mut self, fen: &str, read: Result<T, E>) -> Option<T> {
        read.map_err(|e| {
            eprintln!("retrobook: {fen:?}: {e}");
            self.unreadable += 1;
        })
        .ok()
    }

    /// The `answer` for `fen`, or None after naming why there is none.
    pub fn probed<T, E: std::fmt::Display>(
        &mut self,
        fen: &str,
        answer: Result<T, E>,
    ) -> Option<T> {
        answer
            .map_err(|e| {
                eprintln!("retrobook: {fen:?}: {e}");
                self.unanswered += 1;
            })
            .ok()
    }

    /// The end of the run over `total` positions: one line counting those at fault.
    pub fn end(self, total: usize) -> Result<(), Failure> {
        let Failures {
            unreadable,
            unanswered,
        } = self;
        let read =
            (unreadable > 0).then(|| format!("{unreadable} of {total} FENs could not be read"));
        let probed = (unanswered > 0)
            .then(|| format!("{unanswered} of {total} positions could not be probed"));
        match (read, probed) {
            (None, None) => Ok(()),
            (Some(r), None) => Err(usage(r)),
            (None, Some(p)) => Err(runtime(p)),
            (Some(r), Some(p)) => Err(usage(format!("{r}, {p}"))),
        }
    }
}

/// Writes one line to stdout.
pub fn say(line: impl std::fmt::Display) -> Result<(), Failure> {
    writeln!(std::io::stdout().lock(), "{line}").map_err(write_failed)
}
