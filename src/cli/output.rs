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

/// The end of a run over `total` positions of which `failures` could not be probed (each
/// already named on stderr).
pub fn probed(failures: usize, total: usize) -> Result<(), Failure> {
    match failures {
        0 => Ok(()),
        _ => Err(runtime(format!(
            "{failures} of {total} positions could not be probed"
        ))),
    }
}

/// Writes one line to stdout.
pub fn say(line: impl std::fmt::Display) -> Result<(), Failure> {
    writeln!(std::io::stdout().lock(), "{line}").map_err(write_failed)
}
