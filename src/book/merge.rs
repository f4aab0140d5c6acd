//! Exact merge of books built from disjoint archives: counts are summed entry by entry, so
//! merging is associative and commutative and equals building from all the games at once.
//! Books that would count a game twice are refused: the same book given twice, and books
//! whose sources (the archives read, and the share of each) overlap.

use super::error::BookError;
use super::format::{BookInfo, Entry, Source};
use super::reader::Book;
use super::runs::{merge_into, EntryStream};
use super::writer::BookWriter;
use std::path::{Path, PathBuf};

/// Merges `books` into `out`; returns the number of entries and the file size. Books must
/// be of one game, share `--max-ply` and keep every entry (`--min-games 1`), or the sum would not be exact.
pub fn merge(books: &[PathBuf], out: &Path) -> Result<(u64, u64), BookError> {
    let opened: Vec<Book> = books.iter().map(Book::open).collect::<Result<_, _>>()?;
    let Some(first) = opened.first() else {
        return Err(BookError::NothingToMerge);
    };
    let (max_ply, game) = (first.info().max_ply, first.info().game);
    for b in &opened {
        if b.info().game != game {
            return Err(BookError::WrongGame {
                path: b.path().to_path_buf(),
                found: b.info().game,
                expected: game,
            });
        }
        if b.info().max_ply != max_ply {
            return Err(BookError::MaxPlyDiffers {
                path: b.path().to_path_buf(),
                found: b.info().max_ply,
                first: first.path().to_path_buf(),
                expected: max_ply,
            });
        }
        if b.info().min_games > 1 {
            return Err(BookError::Incomplete {
                path: b.path().to_path_buf(),
                min_games: b.info().min_games,
            });
        }
    }
    let sources = disjoint(&opened)?;
    let fail = |e| BookError::write(out, e);
    let mut writer = BookWriter::create(out).map_err(fail)?;
    writer.set_sources(sources);
    let streams: Vec<EntryStream<'_>> = opened
        .iter()
        .map(|b| {
            // Sums are not what a back-up was made from: a merged book is not backed up.
            let unvalued = b.iter().map(|e| Ok(Entry { backup: None, ..e }));
            Box::new(unvalued) as EntryStream<'_>
        })
        .collect();
    match merge_into(streams, 1, &mut |e| writer.push(e)) {
        Ok(entries) => {
            let info = BookInfo {
                game,
                games: opened.iter().map(|b| b.info().games).sum(),
                max_ply,
                min_games: 1,
            };
            let bytes = writer.finish(info).map_err(fail)?;
            Ok((entries, bytes))
        }
        // The writer, dropped unfinished, removes its temporary.
        Err(e) => Err(fail(e)),
    }
}

/// The sources of `books` together, or the error naming two books that count some game
/// twice: the same file, copies of one book, or books built from the same archive (and
/// shares of it that meet).
fn disjoint(books: &[Book]) -> Result<Vec<Source>, BookError> {
    let same = |a: &Book, b: &Book, archive: String| BookError::SameGames {
        path: b.path().to_path_buf(),
        other: a.path().to_path_buf(),
        archive,
    };
    for (i, a) in books.iter().enumerate() {
        for b in &books[..i] {
            let same_file = match (a.path().canonicalize(), b.path().canonicalize()) {
                (Ok(x), Ok(y)) => x == y,
                _ => false,
            };
            if same_file || a.fingerprint() == b.fingerprint() {
                return Err(same(b, a, "the same book".into()));
            }
            let (Some(sa), Some(sb)) = (a.sources(), b.sources()) else {
                continue;
            };
            if let Some(s) = sb.iter().find(|s| sa.iter().any(|t| t.overlaps(s))) {
                let share = match s.parts {
                    1 => String::new(),
                    n => format!(", share {} of {n}", s.part + 1),
                };
                let archive = format!(
                    "games of an archive of {} bytes, CRC-32 {:08x}{share}",
                    s.bytes, s.crc
                );
                return Err(same(b, a, archive));
            }
        }
    }
    Ok(books
        .iter()
        .flat_map(|b| b.sources().unwrap_or_default().iter().cloned())
        .collect())
}
