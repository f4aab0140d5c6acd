//! The engine's process: started, spoken to line by line, read with a time limit, and
//! stopped (asked to quit, then killed) when dropped.

use super::answer::{Analysis, Limit, Reading};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How to start an engine: its program, arguments and UCI options (name, value), set in
/// order after the handshake.
#[derive(Clone, Debug)]
pub struct EngineSpec {
    /// The program, found on the `PATH` when given without a folder.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// UCI options, set in order.
    pub options: Vec<(String, String)>,
    /// The longest wait for any answer: the handshake, `readyok`, a position's search.
    pub timeout: Duration,
}

/// What went wrong with an engine. Its process is not asked again after any of them.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The program could not be run.
    #[error("cannot start engine {program}: {source}")]
    Start {
        /// The program.
        program: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The engine's process ended (or closed its input or output).
    #[error("engine {program} stopped (while waiting for {waiting})")]
    Died {
        /// The program.
        program: PathBuf,
        /// What it was asked for, or the answer awaited.
        waiting: String,
    },
    /// No answer within the time limit.
    #[error("engine {program} gave no {waiting} within {seconds} s")]
    Hung {
        /// The program.
        program: PathBuf,
        /// The answer awaited.
        waiting: String,
        /// The time limit.
        seconds: f64,
    },
    /// An answer out of form.
    #[error("engine {program}: {what}")]
    Garbage {
        /// The program.
        program: PathBuf,
        /// What was wrong with it.
        what: String,
    },
}

/// A running engine.
pub struct Engine {
    spec: EngineSpec,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    name: String,
}

impl Engine {
    /// Starts the engine, says `uci` and sets the options; ready for `analyse` once it
    /// answered `readyok`.
    pub fn start(spec: &EngineSpec) -> Result<Engine, EngineError> {
        let mut child = Command::new(&spec.program)
            .args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| EngineError::Start {
                program: spec.program.clone(),
                source,
            })?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (send, lines) = channel();
        // The reader ends with the engine's output: the channel then says it died.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = Engine {
            spec: spec.clone(),
            child,
            stdin,
            lines,
            name: String::new(),
        };
        engine.say("uci")?;
        let deadline = Instant::now() + spec.timeout;
        loop {
            let line = engine.next_line(deadline, "uciok")?;
            if let Some(name) = line.strip_prefix("id name ") {
                engine.name = name.trim().to_string();
            }
            if line.trim_end() == "uciok" {
                break;
            }
        }
        for (name, value) in &spec.options {
            engine.say(&format!("setoption name {name} value {value}"))?;
        }
        engine.ready()?;
        Ok(engine)
    }

    /// The engine's program.
    pub fn program(&self) -> &std::path::Path {
        &self.spec.program
    }

    /// The name the engine gave (`id name`), or its program's.
    pub fn name(&self) -> String {
        match self.name.is_empty() {
            true => self.spec.program.display().to_string(),
            false => self.name.clone(),
        }
    }

    /// The engine's answer for the position `fen`, searched to `limit` from a new game
    /// (`ucinewgame`: nothing kept from the positions before), so that one engine thread
    /// answers as a fresh engine would.
    pub fn analyse(&mut self, fen: &str, limit: Limit) -> Result<Analysis, EngineError> {
        self.say("ucinewgame")?;
        self.ready()?;
        self.say(&format!("position fen {fen}"))?;
        self.say(&limit.go())?;
        let deadline = Instant::now() + self.spec.timeout;
        let mut reading = Reading::default();
        loop {
            let line = self.next_line(deadline, "bestmove")?;
            if let Some(answer) = reading.line(&line) {
                return answer.map_err(|what| EngineError::Garbage {
                    program: self.spec.program.clone(),
                    what,
                });
            }
        }
    }

    /// `isready`, and waits for `readyok`.
    fn ready(&mut self) -> Result<(), EngineError> {
        self.say("isready")?;
        let deadline = Instant::now() + self.spec.timeout;
        while self.next_line(deadline, "readyok")?.trim_end() != "readyok" {}
        Ok(())
    }

    fn say(&mut self, line: &str) -> Result<(), EngineError> {
        let written = writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush());
        written.map_err(|_| self.died(line))
    }

    /// The next line of output before `deadline`, waiting for `waiting`.
    fn next_line(&mut self, deadline: Instant, waiting: &str) -> Result<String, EngineError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Disconnected) => Err(self.died(waiting)),
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Hung {
                program: self.spec.program.clone(),
                waiting: waiting.to_string(),
                seconds: self.spec.timeout.as_secs_f64(),
            }),
        }
    }

    fn died(&self, waiting: &str) -> EngineError {
        EngineError::Died {
            program: self.spec.program.clone(),
            waiting: waiting.to_string(),
        }
    }
}

impl Drop for Engine {
    /// Asks the engine to quit and gives it a moment, then kills it: a hung engine must
    /// not outlive its run.
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit").and_then(|()| self.stdin.flush());
        let until = Instant::now() + Duration::from_millis(500);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
