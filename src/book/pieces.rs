//! Parallel parsing of one archive with the result of a sequential read.
//!
//! A reader thread cuts the input into pieces of about [`PIECE`] bytes, each ending after a
//! line whose last token is a game result; worker threads parse the pieces from a fresh
//! reading state. The pieces' results are taken in input order, and a piece is used as
//! parsed only if the piece before it ended in a fresh state (no game under way, no comment
//! or variation open). Otherwise (a result inside a comment, a cut forced in a long stretch
//! without results) it is parsed again from the true state, so every game reads exactly as
//! a sequential reader reads it, whatever the cuts.

use super::pgn::{ends_with_result, PgnState};
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc::{channel, sync_channel};
use std::sync::Mutex;

/// Bytes per piece: large enough to keep the workers' hand-over rare, small enough that
/// pieces in flight stay a few megabytes.
pub(super) const PIECE: usize = 1 << 20;

/// A stretch without a line ending in a result longer than this many pieces is cut at a
/// line end anyway (and then parsed from the true state), so memory stays bounded.
const MAX_PIECES: usize = 64;

/// A piece of the input: whole lines, numbered from `lines_before + 1`.
struct Piece {
    index: u64,
    lines_before: u64,
    bytes: Vec<u8>,
}

/// Where to cut `buf`: after the last complete line that ends with a game result.
fn cut_point(buf: &[u8]) -> Option<usize> {
    let mut end = buf.len();
    while let Some(nl) = memchr::memrchr(b'\n', &buf[..end]) {
        let start = memchr::memrchr(b'\n', &buf[..nl]).map_or(0, |p| p + 1);
        if ends_with_result(&buf[start..nl]) {
            return Some(nl + 1);
        }
        end = start;
    }
    None
}

/// Cuts an input into pieces.
struct Cutter<R> {
    input: R,
    piece: usize,
    buf: Vec<u8>,
    lines: u64,
    index: u64,
    eof: bool,
}

impl<R: Read> Cutter<R> {
    /// Reads until `buf` holds `want` bytes or the input ends.
    fn fill(&mut self, want: usize) -> io::Result<()> {
        while !self.eof && self.buf.len() < want {
            let need = (want - self.buf.len()) as u64;
            let n = (&mut self.input).take(need).read_to_end(&mut self.buf)?;
            if (n as u64) < need {
                self.eof = true;
            }
        }
        Ok(())
    }

    /// The next piece; after a read error, what was read before it is the last piece and
    /// the error comes with it.
    fn next(&mut self) -> Option<(Piece, Option<io::Error>)> {
        let mut want = self.piece;
        let mut error = None;
        loop {
            if let Err(e) = self.fill(want) {
                self.eof = true;
                error = Some(e);
            }
            if self.buf.is_empty() && error.is_none() {
                return None;
            }
            let cut = if self.eof {
                Some(self.buf.len())
            } else {
                cut_point(&self.buf).or_else(|| {
                    (self.buf.len() >= MAX_PIECES * self.piece)
                        .then(|| memchr::memrchr(b'\n', &self.buf).map(|p| p + 1))
                        .flatten()
                })
            };
            let Some(cut) = cut else {
                want = self.buf.len() * 2;
                continue;
            };
            let rest = self.buf[cut..].to_vec();
            let mut bytes = std::mem::replace(&mut self.buf, rest);
            bytes.truncate(cut);
            let piece = Piece {
                index: self.index,
                lines_before: self.lines,
                bytes,
            };
            self.index += 1;
            self.lines += memchr::memchr_iter(b'\n', &piece.bytes).count() as u64;
            return Some((piece, error));
        }
    }
}

/// Reads bytes on from a state: what they produced, and the state after them.
pub(super) type Work<'a, T> = dyn Fn(PgnState, &[u8]) -> (T, PgnState) + Sync + 'a;

/// What a piece produced.
struct Parsed<T> {
    piece: Piece,
    out: T,
    end: PgnState,
    error: Option<io::Error>,
}

/// Parses `input` on `threads` workers, in pieces of about `piece` bytes. `work(state, bytes)` reads `bytes` on from `state`
/// and returns its output and the state after; `accept` gets the outputs in input order,
/// each parsed from the true reading state. `finish(state)` reads the end of the input on
/// from the last state (a game under way at the end). A read error ends the input: the
/// error goes to `accept_error` with the line it happened after, and what was read before
/// it is kept.
pub(super) fn parse_in_order<T: Send, E>(
    input: Box<dyn Read + Send + '_>,
    threads: usize,
    piece: usize,
    work: &Work<'_, T>,
    finish: &dyn Fn(PgnState) -> T,
    accept: &mut dyn FnMut(T) -> Result<(), E>,
    accept_error: &mut dyn FnMut(io::Error, u64),
) -> Result<(), E> {
    let stop = AtomicBool::new(false);
    let (piece_tx, piece_rx) = sync_channel::<(Piece, Option<io::Error>)>(threads * 2);
    let piece_rx = Mutex::new(piece_rx);
    std::thread::scope(|s| {
        let (done_tx, done_rx) = channel::<Parsed<T>>();
        let stop = &stop;
        s.spawn(move || {
            let mut cutter = Cutter {
                input,
                piece,
                buf: Vec::new(),
                lines: 0,
                index: 0,
                eof: false,
            };
            while !stop.load(Relaxed) {
                let Some(next) = cutter.next() else { break };
                if piece_tx.send(next).is_err() {
                    break;
                }
            }
        });
        for _ in 0..threads.max(1) {
            let done_tx = done_tx.clone();
            let piece_rx = &piece_rx;
            s.spawn(move || loop {
                let next = piece_rx.lock().map(|rx| rx.recv());
                let Ok(Ok((piece, error))) = next else { break };
                if stop.load(Relaxed) {
                    continue; // drain, so that the reader is never stuck
                }
                let (out, end) = work(PgnState::after_line(piece.lines_before), &piece.bytes);
                let parsed = Parsed {
                    piece,
                    out,
                    end,
                    error,
                };
                if done_tx.send(parsed).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        let mut take_in_order = || -> Result<(), E> {
            let mut waiting = std::collections::BTreeMap::new();
            let mut next = 0;
            let mut carry: Option<PgnState> = None;
            for parsed in done_rx.iter() {
                waiting.insert(parsed.piece.index, parsed);
                while let Some(p) = waiting.remove(&next) {
                    next += 1;
                    let (out, end) = match carry.take() {
                        Some(state) => work(state, &p.piece.bytes),
                        None => (p.out, p.end),
                    };
                    accept(out)?;
                    if !end.is_fresh() {
                        carry = Some(end);
                    }
                    if let Some(e) = p.error {
                        let line = p.piece.lines_before
                            + memchr::memchr_iter(b'\n', &p.piece.bytes).count() as u64;
                        accept_error(e, line);
                    }
                }
            }
            if let Some(state) = carry {
                accept(finish(state))?;
            }
            Ok(())
        };
        let result = take_in_order();
        if result.is_err() {
            stop.store(true, Relaxed);
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_after_result_lines_only() {
        let text = b"[Event \"a\"]\n1. e4 e5 1-0\n[Event \"b\"]\n1. d4 {0-1\n} d5 *\n1. c4";
        assert_eq!(cut_point(text), Some(text.len() - 5));
        assert_eq!(cut_point(&text[..20]), None);
        assert_eq!(cut_point(b"1. e4 1/2-1/2\n"), Some(14));
    }

    /// A game as (first line, tags, moves with lines, result), for comparing readings.
    type Described = (
        u64,
        Vec<(String, String)>,
        Vec<(String, u64)>,
        Option<&'static str>,
    );
    type Seen = Vec<Described>;

    fn describe(g: &super::super::pgn::RawGame) -> Described {
        (
            g.line,
            g.tags().map(|(k, v)| (k.into(), v.into())).collect(),
            g.moves().map(|(m, l)| (m.into(), l)).collect(),
            g.result(),
        )
    }

    /// Reads `text` in pieces of `piece` bytes on three workers.
    fn in_pieces(text: &[u8], piece: usize) -> Seen {
        let work = |mut state: PgnState, bytes: &[u8]| {
            let mut games = Vec::new();
            state.feed(bytes, |g| games.push(describe(g)));
            (games, state)
        };
        let finish = |mut state: PgnState| {
            let mut games = Vec::new();
            state.end(|g| games.push(describe(g)));
            games
        };
        let mut all = Vec::new();
        parse_in_order(
            Box::new(text),
            3,
            piece,
            &work,
            &finish,
            &mut |games| {
                all.extend(games);
                Ok::<(), std::convert::Infallible>(())
            },
            &mut |e, _| panic!("{e}"),
        )
        .unwrap();
        all
    }

    #[test]
    fn pieces_read_exactly_as_one_sequential_reading() {
        // Results inside comments and variations, across lines; games without results or
        // tags; a stretch without results; CRLF and a byte-order mark.
        let parts: [&[u8]; 9] = [
            b"[Event \"a\"]\n1. e4 e5 {a comment\nthat ends 1-0\n} 2. Nf3 1-0\n",
            b"1. d4 (1. c4 e5\n0-1\n) d5 1/2-1/2\n",
            b"[Event \"no result\"]\n1. Nf3\n\n[Event \"b\"]\r\n1. g3 *\r\n",
            b"1. e4 ; a rest-of-line comment 0-1\ne5 0-1\n",
            b"[Event \"c\"]\n\n[Site \"?\"]\n1. b3 1-0 1. a3 0-1\n",
            b"1. h3 h6 2. h4 h5 3. Nh3 Nh6 4. Ng5 Ng4 5. Nf3 Nf6 6. Nd4 Nd5\n",
            b"{ 1-0\n1-0\n1-0\n}\n1. f4 1-0\n",
            b"%escape 1-0\n1. c3 1-0\n",
            b"1. e4 {never closed 1-0\n1/2-1/2\n",
        ];
        let mut text = b"\xef\xbb\xbf".to_vec();
        let mut seed = 99u64;
        for _ in 0..300 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            text.extend_from_slice(parts[(seed >> 33) as usize % parts.len()]);
        }
        let mut reader = super::super::pgn::PgnReader::new(&text[..]);
        let mut whole = Vec::new();
        while let Some(g) = reader.next_game().unwrap() {
            whole.push(describe(g));
        }
        assert!(whole.len() > 200, "{}", whole.len());
        for piece in [1, 7, 40, 333, 4096, 1 << 20] {
            assert_eq!(in_pieces(&text, piece), whole, "pieces of {piece} bytes");
        }
    }
}
