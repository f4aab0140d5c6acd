//! Archives in other encodings than UTF-8: Chinese chess records are mostly Big5 (traditional
//! characters) or UTF-8. [`Utf8Reader`] looks at the start of the input and hands on UTF-8
//! either way, so that the PGN reader sees one encoding: Big5 cannot be read byte by byte,
//! since its second bytes include `[`, `]`, `{`, `}` and `\`.

use encoding_rs::{Decoder, BIG5};
use std::io::{self, Read};

/// Bytes looked at to tell UTF-8 from Big5, and read at a time.
const CHUNK: usize = 64 << 10;

/// What the input was found to be.
enum Mode {
    /// Not looked at yet.
    Unknown,
    /// UTF-8: handed on as it is.
    Utf8,
    /// Big5, decoded.
    Big5(Decoder),
}

/// Reads UTF-8 from an input in UTF-8 (with or without a byte-order mark) or in Big5: the
/// input is taken for UTF-8 when its first 64 KiB are (a character cut at their end aside),
/// else decoded from Big5, with U+FFFD for bytes that are not Big5.
pub(super) struct Utf8Reader<R> {
    inner: R,
    mode: Mode,
    /// Input read but not yet decoded.
    input: Vec<u8>,
    /// Output decoded but not yet handed on, from `out_at`.
    out: Vec<u8>,
    out_at: usize,
    eof: bool,
}

impl<R: Read> Utf8Reader<R> {
    /// Wraps `inner`.
    pub(super) fn new(inner: R) -> Utf8Reader<R> {
        Utf8Reader {
            inner,
            mode: Mode::Unknown,
            input: Vec::new(),
            out: Vec::new(),
            out_at: 0,
            eof: false,
        }
    }

    /// Reads up to a chunk more input; false at its end.
    fn fill(&mut self) -> io::Result<bool> {
        let have = self.input.len();
        self.input.resize(have + CHUNK, 0);
        let read = loop {
            match self.inner.read(&mut self.input[have..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => break r,
            }
        };
        self.input.truncate(have + *read.as_ref().unwrap_or(&0));
        Ok(read? > 0)
    }

    /// Looks at the start of the input and chooses UTF-8 or Big5.
    fn sniff(&mut self) -> io::Result<()> {
        while self.input.len() < CHUNK && !self.eof {
            self.eof = !self.fill()?;
        }
        if self.input.starts_with(b"\xef\xbb\xbf") {
            self.input.drain(..3);
            self.mode = Mode::Utf8;
            return Ok(());
        }
        let utf8 = match std::str::from_utf8(&self.input) {
            Ok(_) => true,
            // A character cut at the end of what was read is no proof against UTF-8.
            Err(e) => e.error_len().is_none() && !self.eof,
        };
        self.mode = match utf8 {
            true => Mode::Utf8,
            false => Mode::Big5(BIG5.new_decoder_without_bom_handling()),
        };
        Ok(())
    }
}

impl<R: Read> Read for Utf8Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if matches!(self.mode, Mode::Unknown) {
            self.sniff()?;
        }
        loop {
            if self.out_at < self.out.len() {
                let n = buf.len().min(self.out.len() - self.out_at);
                buf[..n].copy_from_slice(&self.out[self.out_at..self.out_at + n]);
                self.out_at += n;
                return Ok(n);
            }
            if matches!(self.mode, Mode::Utf8) {
                // UTF-8: what was read while looking, then the input itself.
                if self.input.is_empty() {
                    return self.inner.read(buf);
                }
                self.out = std::mem::take(&mut self.input);
                self.out_at = 0;
                continue;
            }
            if self.input.is_empty() && self.eof {
                return Ok(0);
            }
            if self.input.len() < CHUNK && !self.eof {
                self.eof = !self.fill()?;
            }
            let Mode::Big5(decoder) = &mut self.mode else {
                unreachable!("the input was looked at");
            };
            let room = decoder
                .max_utf8_buffer_length(self.input.len())
                .unwrap_or(4 * CHUNK);
            self.out.clear();
            self.out.resize(room.max(4), 0);
            self.out_at = 0;
            let (_, read, written, _) =
                decoder.decode_to_utf8(&self.input, &mut self.out, self.eof);
            self.input.drain(..read);
            self.out.truncate(written);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8], piece: usize) -> String {
        // A reader that hands out `piece` bytes at a time, to cut characters.
        struct Pieces<'a>(&'a [u8], usize);
        impl Read for Pieces<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.1.min(buf.len()).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut s = String::new();
        Utf8Reader::new(Pieces(bytes, piece))
            .read_to_string(&mut s)
            .unwrap();
        s
    }

    #[test]
    fn big5_and_utf8_read_the_same() {
        let text = "[Event \"友誼賽\"]\n[Red \"許銀川\"]\n1. 炮二平五 馬８進７ 2. 車一平二 {評}\n"
            .repeat(3000);
        let (big5, _, unmappable) = BIG5.encode(&text);
        assert!(!unmappable);
        // Big5 second bytes include PGN's marks: this text's must not reach the reader.
        assert!(big5
            .windows(2)
            .any(|w| w[0] >= 0x81 && b"[]{}\\".contains(&w[1])));
        for piece in [1, 7, 4096, 1 << 20] {
            assert_eq!(read_all(&big5, piece), text, "Big5 in pieces of {piece}");
            assert_eq!(
                read_all(text.as_bytes(), piece),
                text,
                "UTF-8 in pieces of {piece}"
            );
        }
        let bom = [b"\xef\xbb\xbf".as_slice(), text.as_bytes()].concat();
        assert_eq!(read_all(&bom, 100), text);
        assert_eq!(read_all(b"", 1), "");
    }
}
