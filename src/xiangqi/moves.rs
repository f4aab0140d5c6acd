//! Legal moves of xiangqi: each piece's pseudo-legal moves, kept when the mover's king is
//! neither attacked nor facing the other king on an open file afterwards.

use super::position::{Position, Role, Square};
use crate::side::Side;
use std::fmt;

/// A move: the piece on `from` goes to `to`, taking what stands there.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// Where the piece stands.
    pub from: Square,
    /// Where it goes.
    pub to: Square,
}

impl fmt::Display for Move {
    /// UCCI coordinates (`h2e2`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

/// Text that is not a UCCI move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a UCCI move (as h2e2)")]
pub struct UcciError(pub String);

impl std::str::FromStr for Move {
    type Err = UcciError;

    /// UCCI coordinates: origin and destination squares (`h2e2`).
    fn from_str(s: &str) -> Result<Move, UcciError> {
        let bad = || UcciError(s.to_string());
        let (from, to) = (s.get(..2).ok_or_else(bad)?, s.get(2..).ok_or_else(bad)?);
        Ok(Move {
            from: from.parse().map_err(|_| bad())?,
            to: to.parse().map_err(|_| bad())?,
        })
    }
}

/// The four orthogonal steps.
pub(super) const ORTHOGONAL: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
/// The four diagonal steps.
pub(super) const DIAGONAL: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
/// The horse's eight jumps, each with its leg (the orthogonal square it passes).
pub(super) const HORSE: [((i8, i8), (i8, i8)); 8] = [
    ((1, 2), (0, 1)),
    ((-1, 2), (0, 1)),
    ((1, -2), (0, -1)),
    ((-1, -2), (0, -1)),
    ((2, 1), (1, 0)),
    ((2, -1), (1, 0)),
    ((-2, 1), (-1, 0)),
    ((-2, -1), (-1, 0)),
];

/// The squares where a piece that leaves or arrives can change whether the king on `king`
/// is attacked, one bit each (`Square::index`): its rank and file (chariots, cannons and
/// their screens, soldiers, the other king) and the four squares diagonally beside it
/// (horses' legs); `with_horses` adds the eight squares a horse attacks it from, for a
/// piece of the other side that arrives there. Elsewhere, a piece of the king's own side
/// that leaves lets no attack through, and one that takes only takes an attacker away.
fn exposed(king: Square, with_horses: bool) -> u128 {
    const RANK: u128 = (1 << 9) - 1;
    const FILE: u128 = {
        let (mut m, mut r) = (0u128, 0);
        while r < 10 {
            m |= 1 << (9 * r);
            r += 1;
        }
        m
    };
    let mut mask = RANK << (9 * king.rank() as u32) | FILE << king.file() as u32;
    let horses = HORSE.iter().map(|&(jump, _)| jump).filter(|_| with_horses);
    for (df, dr) in DIAGONAL.into_iter().chain(horses) {
        if let Some(sq) = king.offset(df, dr) {
            mask |= 1 << sq.index();
        }
    }
    mask
}

/// True when neither of `m`'s squares is in `mask`.
#[inline]
fn clear_of(mask: u128, m: &Move) -> bool {
    (1u128 << m.from.index() | 1u128 << m.to.index()) & mask == 0
}

/// The direction a soldier of `color` advances in, by rank.
fn forward(color: Side) -> i8 {
    match color {
        Side::White => 1,
        Side::Black => -1,
    }
}

impl Position {
    /// Whether `to` is empty or holds a piece of the side not to move from `color`'s view.
    fn open_to(&self, color: Side, to: Square) -> bool {
        self.at(to).is_none_or(|p| p.color != color)
    }

    /// The moves of the piece of `color` and `role` on `from`, legal or not for its king.
    fn piece_moves(&self, color: Side, role: Role, from: Square, out: &mut Vec<Move>) {
        let mut push = |to: Square| {
            if self.open_to(color, to) {
                out.push(Move { from, to });
            }
        };
        match role {
            Role::King => ORTHOGONAL
                .iter()
                .filter_map(|&(df, dr)| from.offset(df, dr))
                .filter(|to| to.in_palace(color))
                .for_each(&mut push),
            Role::Advisor => DIAGONAL
                .iter()
                .filter_map(|&(df, dr)| from.offset(df, dr))
                .filter(|to| to.in_palace(color))
                .for_each(&mut push),
            Role::Elephant => DIAGONAL
                .iter()
                .filter(|&&(df, dr)| {
                    from.offset(df, dr)
                        .is_some_and(|eye| self.at(eye).is_none())
                })
                .filter_map(|&(df, dr)| from.offset(2 * df, 2 * dr))
                .filter(|to| to.on_own_side(color))
                .for_each(&mut push),
            Role::Horse => HORSE
                .iter()
                .filter(|(_, (lf, lr))| {
                    from.offset(*lf, *lr)
                        .is_some_and(|leg| self.at(leg).is_none())
                })
                .filter_map(|&((df, dr), _)| from.offset(df, dr))
                .for_each(&mut push),
            Role::Chariot => {
                for (df, dr) in ORTHOGONAL {
                    let mut sq = from;
                    while let Some(to) = sq.offset(df, dr) {
                        push(to);
                        if self.at(to).is_some() {
                            break;
                        }
                        sq = to;
                    }
                }
            }
            Role::Cannon => {
                for (df, dr) in ORTHOGONAL {
                    let mut sq = from;
                    let mut screened = false;
                    while let Some(to) = sq.offset(df, dr) {
                        match (self.at(to), screened) {
                            (None, false) => out.push(Move { from, to }),
                            (None, true) => {}
                            (Some(_), false) => screened = true,
                            (Some(p), true) => {
                                if p.color != color {
                                    out.push(Move { from, to });
                                }
                                break;
                            }
                        }
                        sq = to;
                    }
                }
            }
            Role::Soldier => {
                let ahead = from.offset(0, forward(color));
                let sideways = match from.on_own_side(color) {
                    true => [None, None],
                    false => [from.offset(1, 0), from.offset(-1, 0)],
                };
                [ahead].into_iter().chain(sideways).flatten().for_each(push);
            }
        }
    }

    /// Whether `color`'s king is attacked by a piece of the other side, or faces the other
    /// king on a file with nothing between (which the rules forbid as if it were check).
    pub fn in_check(&self, color: Side) -> bool {
        let Some(king) = self.king(color) else {
            return false;
        };
        let them = !color;
        let enemy = |sq: Option<Square>, role: Role| {
            sq.and_then(|s| self.at(s))
                .is_some_and(|p| p.color == them && p.role == role)
        };
        // Along each line: the first piece met (a chariot attacks; on the file, a king
        // faces), then the next one behind it (a cannon attacks over its screen). Without
        // a chariot or a cannon, only the file towards the other king can hold a threat.
        let lines = self.count(them, Role::Chariot) + self.count(them, Role::Cannon) > 0;
        let towards_king = match color {
            Side::White => (0, 1),
            Side::Black => (0, -1),
        };
        for (df, dr) in ORTHOGONAL {
            if !lines && (df, dr) != towards_king {
                continue;
            }
            let mut sq = king;
            let mut screened = false;
            while let Some(to) = sq.offset(df, dr) {
                if let Some(p) = self.at(to) {
                    let theirs = p.color == them;
                    match screened {
                        false if theirs && (p.role == Role::Chariot || p.role == Role::King) => {
                            return true;
                        }
                        false if !lines => break,
                        false => screened = true,
                        true => {
                            if theirs && p.role == Role::Cannon {
                                return true;
                            }
                            break;
                        }
                    }
                }
                sq = to;
            }
        }
        // A horse attacks from a jump away, its leg beside the king diagonally.
        let horses = self.count(them, Role::Horse) > 0;
        for &((df, dr), _) in HORSE.iter().filter(|_| horses) {
            let leg = king.offset(df.signum(), dr.signum());
            if enemy(king.offset(df, dr), Role::Horse) && leg.is_some_and(|l| self.at(l).is_none())
            {
                return true;
            }
        }
        // A soldier attacks from in front of the king (by its own direction) or, across
        // the river, from beside it.
        let back = -forward(them);
        self.count(them, Role::Soldier) > 0
            && (enemy(king.offset(0, back), Role::Soldier)
                || (!king.on_own_side(them)
                    && (enemy(king.offset(1, 0), Role::Soldier)
                        || enemy(king.offset(-1, 0), Role::Soldier))))
    }

    /// The legal moves of the side to move.
    pub fn legal_moves(&self) -> Vec<Move> {
        self.legal_moves_from(self.pieces(self.turn()))
    }

    /// The legal moves of the side to move's pieces of `role`.
    pub fn legal_moves_of(&self, role: Role) -> Vec<Move> {
        let from = self.squares_of(self.turn(), role).map(|sq| (sq, role));
        self.legal_moves_from(from)
    }

    /// The legal moves of the side to move's `pieces` (square and role each).
    fn legal_moves_from(&self, pieces: impl Iterator<Item = (Square, Role)>) -> Vec<Move> {
        let mut moves = self.pseudo_moves_from(pieces);
        self.retain_legal(&mut moves, true);
        moves
    }

    /// The moves of the side to move's `pieces`, legal or not for its king.
    pub(super) fn pseudo_moves_from(
        &self,
        pieces: impl Iterator<Item = (Square, Role)>,
    ) -> Vec<Move> {
        let us = self.turn();
        let mut moves = Vec::with_capacity(64);
        for (from, role) in pieces {
            self.piece_moves(us, role, from, &mut moves);
        }
        moves
    }

    /// Keeps the moves of `list` after which the side to move is not in check: its own
    /// moves played (`forward`), or the other side's un-moves taken back. Each is played
    /// out only where it can matter: a king not in check now is attacked after a move of
    /// another piece only if the move starts or ends on the king's lines or horses' legs
    /// or, for a piece of the other side going back, on a square a horse attacks the king
    /// from (`exposed`); whether it is in check now is asked once, and only if a move is
    /// clear of them.
    pub(super) fn retain_legal(&self, list: &mut Vec<Move>, forward: bool) {
        let us = self.turn();
        let exposed = self.king(us).map_or(u128::MAX, |k| exposed(k, !forward));
        let moving_king = self.king(if forward { us } else { !us });
        let mut checked = None;
        let mut scratch = self.clone();
        list.retain(|m| {
            let (start, end) = if forward {
                (m.from, m.to)
            } else {
                (m.to, m.from)
            };
            let clear = Some(start) != moving_king && clear_of(exposed, m);
            (clear && !*checked.get_or_insert_with(|| self.in_check(us)))
                || !scratch.after(start, end, |p| p.in_check(us))
        });
    }

    /// The position after `m`.
    pub fn play(&self, m: &Move) -> Position {
        let mut next = self.clone();
        next.apply(m.from, m.to);
        next
    }
}

/// The number of move sequences of `depth` plies from `pos` (a side without moves has
/// none: it has lost).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves.iter().map(|m| perft(&pos.play(m), depth - 1)).sum()
}

/// Plays `games` pseudo-random games of up to `plies` plies from `fen`, each move drawn
/// by `next` (a `testing::xorshift` stream, carried on), showing `visit` each position
/// with its legal moves.
#[cfg(test)]
pub(super) fn along_random_games(
    fen: &str,
    games: usize,
    plies: usize,
    next: &mut impl FnMut() -> u64,
    mut visit: impl FnMut(&Position, &[Move]),
) {
    for _game in 0..games {
        let mut pos = Position::from_fen(fen).unwrap();
        for _ply in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            visit(&pos, &moves);
            pos = pos.play(&moves[(next() % moves.len() as u64) as usize]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published counts of the start position, depths 1-4.
    #[test]
    fn start_position_perft() {
        let start = Position::start();
        let counts: Vec<u64> = (1..=4).map(|d| perft(&start, d)).collect();
        assert_eq!(counts, [44, 1_920, 79_666, 3_290_240]);
    }

    /// Depth 5 of the start position, 133,312,995 (ten seconds in the suite's build).
    #[test]
    fn start_position_perft_5() {
        assert_eq!(perft(&Position::start(), 5), 133_312_995);
    }

    /// Published counts of other positions (the Chinese Chess perft results of the chess
    /// programming wiki, and the xiangqi positions of Fairy-Stockfish's perft tests): pins,
    /// cannon screens, horse legs, soldiers across the river, kings on open files.
    #[test]
    fn published_positions_perft() {
        let cases: [(&str, &[u64]); 5] = [
            (
                "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w",
                &[38, 1_128, 43_929, 1_339_047],
            ),
            (
                "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w",
                &[7, 281, 8_620, 326_201],
            ),
            (
                "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w",
                &[25, 424, 9_850, 202_884],
            ),
            (
                "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w",
                &[0, 0, 0, 4_485_547],
            ),
            (
                "4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w",
                &[0, 0, 0, 92_741],
            ),
        ];
        for (fen, counts) in cases {
            let pos = Position::from_fen(fen).unwrap();
            for (depth, &want) in (1..).zip(counts).filter(|(_, &n)| n > 0) {
                assert_eq!(perft(&pos, depth), want, "{fen} depth {depth}");
            }
        }
    }

    #[test]
    fn kings_may_not_face_each_other() {
        // Red's king steps onto the black king's open file: not allowed.
        let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/9/3K5 w").unwrap();
        let moves: Vec<String> = pos.legal_moves().iter().map(Move::to_string).collect();
        assert!(!moves.contains(&"d0e0".to_string()), "{moves:?}");
        assert!(moves.contains(&"d0d1".to_string()), "{moves:?}");
    }
}
