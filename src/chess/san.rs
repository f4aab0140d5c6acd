//! Standard algebraic notation (SAN) as game records write it: reading the many spellings
//! real archives contain (`Nbd7`, `exd6 e.p.`, `e8=Q`, `e8Q`, `O-O`, `0-0`, `Qh4#`, `Nf3!?`)
//! and writing the canonical form (`Nbd7`, `exd6`, `e8=Q+`, `O-O`).

use super::moves::{Move, MoveKind, MoveList};
use super::position::Position;
use super::role::Role;
use super::square::Square;
use std::fmt;

/// Why a SAN string is not a legal move of a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SanError {
    /// Not SAN at all.
    Syntax(String),
    /// Well formed, but no legal move matches.
    Illegal(String),
    /// Several legal moves match (missing disambiguation).
    Ambiguous(String),
}

impl fmt::Display for SanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SanError::Syntax(s) => write!(f, "unreadable move {s:?}"),
            SanError::Illegal(s) => write!(f, "illegal move {s:?}"),
            SanError::Ambiguous(s) => write!(f, "ambiguous move {s:?}"),
        }
    }
}

impl std::error::Error for SanError {}

/// What a SAN string asks for.
struct Pattern {
    role: Role,
    from_file: Option<u32>,
    from_rank: Option<u32>,
    to: Square,
    promotion: Option<Role>,
}

fn file_of(c: u8) -> Option<u32> {
    (b'a'..=b'h').contains(&c).then(|| u32::from(c - b'a'))
}

fn rank_of(c: u8) -> Option<u32> {
    (b'1'..=b'8').contains(&c).then(|| u32::from(c - b'1'))
}

/// The move text without check, mate, annotation marks and an `e.p.` suffix.
fn core(san: &str) -> &str {
    let s = san.trim_ascii();
    let s = s.strip_suffix("e.p.").unwrap_or(s).trim_ascii_end();
    let marks = s
        .bytes()
        .rev()
        .take_while(|b| matches!(b, b'+' | b'#' | b'!' | b'?'))
        .count();
    &s[..s.len() - marks]
}

fn parse_pattern(s: &str) -> Option<Pattern> {
    let b = s.as_bytes();
    let (role, rest) = match b.first()? {
        c @ (b'N' | b'B' | b'R' | b'Q' | b'K') => (Role::from_char(*c as char)?, &b[1..]),
        _ => (Role::Pawn, b),
    };
    // Promotion at the end: "=Q", "Q" (pawns only), also "(Q)" and "/Q" seen in old files.
    let (rest, promotion) = match rest {
        [head @ .., b'=' | b'/', p] | [head @ .., b'(', p, b')'] => {
            (head, Some(Role::from_char(*p as char)?))
        }
        [head @ .., p @ (b'N' | b'B' | b'R' | b'Q')] if role == Role::Pawn => {
            (head, Some(Role::from_char(*p as char)?))
        }
        _ => (rest, None),
    };
    // Destination: the last two characters; before them an optional capture mark and an
    // optional origin file and/or rank.
    let [head @ .., tf, tr] = rest else {
        return None;
    };
    let to = Square::from_coords(file_of(*tf)?, rank_of(*tr)?);
    let head = match head {
        [h @ .., b'x' | b':'] => h,
        h => h,
    };
    let (from_file, from_rank) = match head {
        [] => (None, None),
        [c] => match (file_of(*c), rank_of(*c)) {
            (Some(f), _) => (Some(f), None),
            (_, Some(r)) => (None, Some(r)),
            _ => return None,
        },
        [f, r] => (Some(file_of(*f)?), Some(rank_of(*r)?)),
        _ => return None,
    };
    if promotion.is_some() && role != Role::Pawn {
        return None;
    }
    Some(Pattern {
        role,
        from_file,
        from_rank,
        to,
        promotion,
    })
}

impl Position {
    /// The legal move written `san` in this position.
    ///
    /// ```
    /// use retrobook::chess::Position;
    /// let p = Position::start();
    /// assert_eq!(p.parse_san("Nf3").unwrap().to_string(), "g1f3");
    /// assert_eq!(p.parse_san("e4!?").unwrap().to_string(), "e2e4");
    /// ```
    pub fn parse_san(&self, san: &str) -> Result<Move, SanError> {
        let s = core(san);
        let mut list = MoveList::new();
        let castle = match s {
            "O-O" | "0-0" => Some(MoveKind::CastleKing),
            "O-O-O" | "0-0-0" => Some(MoveKind::CastleQueen),
            _ => None,
        };
        if let Some(kind) = castle {
            self.castling_moves(&mut list);
            return list
                .as_slice()
                .iter()
                .copied()
                .find(|m| m.kind == kind)
                .ok_or_else(|| SanError::Illegal(san.to_string()));
        }
        let p = parse_pattern(s).ok_or_else(|| SanError::Syntax(san.to_string()))?;
        // Narrowed by the written disambiguation first: fewer legality checks.
        self.pseudo_legal_moves_to(p.role, p.to, &mut list);
        list.retain(|m| {
            m.promotion == p.promotion
                && p.from_file.is_none_or(|f| m.from.file() == f)
                && p.from_rank.is_none_or(|r| m.from.rank() == r)
        });
        self.keep_legal(&mut list);
        match list.as_slice() {
            [m] => Ok(*m),
            [] => Err(SanError::Illegal(san.to_string())),
            _ => Err(SanError::Ambiguous(san.to_string())),
        }
    }

    /// The canonical SAN of the legal move `m`, with `+` or `#`.
    ///
    /// ```
    /// use retrobook::chess::Position;
    /// let p: Position = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1".parse().unwrap();
    /// assert_eq!(p.san(&p.parse_uci("a1a8").unwrap()), "Ra8#");
    /// ```
    pub fn san(&self, m: &Move) -> String {
        let mut s = match m.kind {
            MoveKind::CastleKing => "O-O".to_string(),
            MoveKind::CastleQueen => "O-O-O".to_string(),
            _ => {
                let mut s = String::new();
                let capture = m.capture.is_some();
                if m.role == Role::Pawn {
                    if capture {
                        s.push((b'a' + m.from.file() as u8) as char);
                    }
                } else {
                    s.push(m.role.upper_char());
                    let mut list = MoveList::new();
                    self.legal_moves(&mut list);
                    let rivals: Vec<&Move> = list
                        .as_slice()
                        .iter()
                        .filter(|o| o.role == m.role && o.to == m.to && o.from != m.from)
                        .collect();
                    if !rivals.is_empty() {
                        let file_unique = rivals.iter().all(|o| o.from.file() != m.from.file());
                        let rank_unique = rivals.iter().all(|o| o.from.rank() != m.from.rank());
                        let from = m.from.to_string();
                        if file_unique {
                            s.push_str(&from[..1]);
                        } else if rank_unique {
                            s.push_str(&from[1..]);
                        } else {
                            s.push_str(&from);
                        }
                    }
                }
                if capture {
                    s.push('x');
                }
                s.push_str(&m.to.to_string());
                if let Some(p) = m.promotion {
                    s.push('=');
                    s.push(p.upper_char());
                }
                s
            }
        };
        let after = self.play(m);
        if after.is_check() {
            s.push(if after.has_legal_move() { '+' } else { '#' });
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        fen.parse().unwrap()
    }

    #[test]
    fn reads_the_spellings_of_real_archives() {
        let p = pos("r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1");
        for (san, uci) in [
            ("O-O", "e1g1"),
            ("0-0", "e1g1"),
            ("O-O-O", "e1c1"),
            ("0-0-0+", "e1c1"),
            ("exd6", "e5d6"),
            ("exd6 e.p.", "e5d6"),
            ("exd6e.p.", "e5d6"),
            ("ed6", "e5d6"),
            ("b8=Q", "b7b8q"),
            ("b8Q", "b7b8q"),
            ("b8=N+", "b7b8n"),
            ("bxa8=Q", "b7a8q"),
            ("bxa8Q+", "b7a8q"),
            ("b8(R)", "b7b8r"),
            ("Rxa8+", "a1a8"),
            ("Rb1!", "a1b1"),
            ("Rab1", "a1b1"),
            ("Ra1b1", "a1b1"),
            ("Kf1?!", "e1f1"),
        ] {
            assert_eq!(
                p.parse_san(san).map(|m| m.to_string()),
                Ok(uci.into()),
                "{san}"
            );
        }
    }

    #[test]
    fn refuses_what_is_not_one_legal_move() {
        let p = pos("r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1");
        let knights = pos("k7/8/8/8/8/8/8/1N1N2K1 w - - 0 1");
        assert!(matches!(
            knights.parse_san("Nc3"),
            Err(SanError::Ambiguous(_))
        ));
        assert_eq!(
            knights.parse_san("Nbc3").map(|m| m.to_string()),
            Ok("b1c3".into())
        );
        assert!(matches!(p.parse_san("Nf3"), Err(SanError::Illegal(_))));
        assert!(matches!(p.parse_san("b8"), Err(SanError::Illegal(_))));
        assert!(matches!(p.parse_san("e4"), Err(SanError::Illegal(_))));
        for bad in ["", "Z9", "e9", "xx", "Rdd", "Qe8=Q", "--"] {
            assert!(
                matches!(p.parse_san(bad), Err(SanError::Syntax(_))),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn writes_canonical_san_that_reads_back() {
        // Every legal move of a few busy positions: written, then read back to itself.
        for fen in [
            "r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "1k6/8/8/8/8/8/8/RN1KN1R1 w - - 0 1",
            "8/2Q1Q3/8/2Q5/8/8/1k6/4K3 w - - 0 1",
        ] {
            let p = pos(fen);
            let mut list = MoveList::new();
            p.legal_moves(&mut list);
            for m in list.as_slice() {
                let san = p.san(m);
                assert_eq!(p.parse_san(&san), Ok(*m), "{fen}: {san}");
            }
        }
        let p = pos("8/2Q1Q3/8/2Q5/8/8/1k6/4K3 w - - 0 1");
        assert_eq!(p.san(&p.parse_uci("c7d6").unwrap()), "Qc7d6");
        assert_eq!(p.san(&p.parse_uci("e7e5").unwrap()), "Qee5+");
        assert_eq!(p.san(&p.parse_uci("c5c6").unwrap()), "Q5c6");
    }
}
