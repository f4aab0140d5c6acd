//! Opening an archive of games: a PGN file, a zstd-compressed `.zst` file, or `-` for
//! stdin; a xiangqi archive is read as UTF-8 when it is, else as Big5. A `.zst` archive is
//! decoded frame by frame, so that damage is named by its frame and the byte where that
//! frame starts: a build stops at the first damaged byte it meets rather than counting the
//! text a damaged frame decodes to (zstd's checksum only speaks at the frame's end).

use super::encoding::Utf8Reader;
use crate::game::Game;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// What has been read of an archive: its bytes as read (compressed ones for `.zst`), and
/// their checksum, which with the length tells the archive apart from others (`Source`).
#[derive(Default)]
pub(crate) struct Tally {
    /// Bytes read so far (the progress bar reads it as they come).
    pub(crate) bytes: AtomicU64,
    crc: Mutex<crc32fast::Hasher>,
}

impl Tally {
    /// The CRC-32 of the bytes read.
    pub(crate) fn crc(&self) -> u32 {
        self.crc.lock().expect("not poisoned").clone().finalize()
    }
}

/// Counts and checksums the bytes read through it.
struct Counting<R> {
    inner: R,
    tally: Arc<Tally>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.tally.bytes.fetch_add(n as u64, Relaxed);
        self.tally
            .crc
            .lock()
            .expect("not poisoned")
            .update(&buf[..n]);
        Ok(n)
    }
}

/// Opens `path` (`-`: stdin) as text of `game`, its bytes counted in `tally`.
pub(crate) fn open_archive(
    path: &Path,
    tally: Arc<Tally>,
    game: Game,
) -> io::Result<Box<dyn Read + Send>> {
    let input: Box<dyn Read + Send> = match path == Path::new("-") {
        true => Box::new(io::stdin()),
        false => Box::new(File::open(path)?),
    };
    let file = Counting {
        inner: input,
        tally: tally.clone(),
    };
    let raw: Box<dyn Read + Send> = if path.extension().is_some_and(|e| e == "zst") {
        Box::new(Frames::new(file, tally))
    } else {
        Box::new(file)
    };
    Ok(match game {
        Game::Chess => raw,
        Game::Xiangqi => Box::new(Utf8Reader::new(raw)),
    })
}

/// The decoder of one frame, reading from the compressed input.
type FrameDecoder<R> = zstd::stream::read::Decoder<'static, BufReader<R>>;

/// A zstd stream decoded one frame at a time, each frame's number and first byte known.
struct Frames<R: Read> {
    /// The input between two frames.
    between: Option<BufReader<R>>,
    /// The frame being decoded.
    decoder: Option<FrameDecoder<R>>,
    /// The number of the frame being decoded (1 for the first).
    frame: u64,
    /// The offset of its first byte in the input.
    start: u64,
    /// Bytes decoded from it so far.
    decoded: u64,
    /// What has been read of the input.
    tally: Arc<Tally>,
}

impl<R: Read> Frames<R> {
    fn new(input: R, tally: Arc<Tally>) -> Frames<R> {
        Frames {
            between: Some(BufReader::with_capacity(1 << 17, input)),
            decoder: None,
            frame: 0,
            start: 0,
            decoded: 0,
            tally,
        }
    }

    /// The error `e` met decoding the current frame, naming it.
    fn damaged(&self, e: io::Error) -> io::Error {
        let what = if self.frame == 1 && self.decoded == 0 {
            "not zstd data, or damaged"
        } else {
            "damaged zstd data"
        };
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{what} in frame {} (from byte {}): {e}",
                self.frame, self.start
            ),
        )
    }
}

impl<R: Read> Read for Frames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(decoder) = &mut self.decoder {
                match decoder.read(buf) {
                    Ok(0) if !buf.is_empty() => {
                        let decoder = self.decoder.take().expect("decoding a frame");
                        self.between = Some(decoder.finish());
                    }
                    Ok(n) => {
                        self.decoded += n as u64;
                        return Ok(n);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(self.damaged(e)),
                }
                continue;
            }
            let Some(mut input) = self.between.take() else {
                return Ok(0);
            };
            let buffered = match input.fill_buf() {
                Ok([]) => return Ok(0), // the end, between two frames
                Ok(b) => b.len() as u64,
                Err(e) => return Err(e),
            };
            self.frame += 1;
            self.start = self.tally.bytes.load(Relaxed) - buffered;
            self.decoded = 0;
            let decoder = zstd::stream::read::Decoder::with_buffer(input)
                .map_err(|e| self.damaged(e))?
                .single_frame();
            self.decoder = Some(decoder);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: Vec<u8>) -> io::Result<Vec<u8>> {
        let tally = Arc::new(Tally::default());
        let reader = Counting {
            inner: io::Cursor::new(bytes.clone()),
            tally: tally.clone(),
        };
        let mut out = Vec::new();
        Frames::new(reader, tally.clone()).read_to_end(&mut out)?;
        assert_eq!(tally.bytes.load(Relaxed), bytes.len() as u64);
        assert_eq!(tally.crc(), crc32fast::hash(&bytes));
        Ok(out)
    }

    /// Three frames back to back read as one text; damage is named by its frame and the
    /// byte that frame starts at; text that is not zstd is said to be so.
    #[test]
    fn frames_are_read_in_turn_and_damage_is_placed() {
        let texts: Vec<Vec<u8>> = (0..3)
            .map(|i| {
                format!("[Event \"{i}\"]\n\n1. e4 e5 1-0\n\n")
                    .repeat(500)
                    .into_bytes()
            })
            .collect();
        let frames: Vec<Vec<u8>> = texts
            .iter()
            .map(|t| {
                let mut e = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
                e.include_checksum(true).unwrap();
                io::Write::write_all(&mut e, t).unwrap();
                e.finish().unwrap()
            })
            .collect();
        let whole = frames.concat();
        assert_eq!(read_all(whole.clone()).unwrap(), texts.concat());
        // A flipped byte inside the second frame: its number and first byte.
        let mut damaged = whole.clone();
        let second = frames[0].len();
        damaged[second + frames[1].len() / 2] ^= 0x10;
        let e = read_all(damaged).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "damaged zstd data in frame 2 (from byte {second}): "
            )),
            "{e}"
        );
        // Cut short inside the last frame.
        let cut = whole[..whole.len() - 3].to_vec();
        let e = read_all(cut).unwrap_err().to_string();
        let third = second + frames[1].len();
        assert!(e.contains(&format!("frame 3 (from byte {third})")), "{e}");
        let e = read_all(b"1. e4 e5 1-0\n".to_vec())
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("not zstd data, or damaged in frame 1 (from byte 0)"),
            "{e}"
        );
        assert_eq!(read_all(Vec::new()).unwrap(), b"");
    }
}
