//! The loop judge of the Asian rules (`docs/xiangqi-rules.md`): who, if anyone, loses a
//! repetition. Everything that meets a repetition (tables, books, game graphs, the
//! referee) asks it.
//!
//! A side breaks the rule when every move it makes round the loop checks (perpetual
//! check), or when every one chases and they hunt one and the same piece of the other
//! side all the way round (perpetual chase; one piece chasing two in turn does not, nor
//! "one check, one chase", nor "one chase, one idle"). One side breaking the rule loses;
//! when both do, the side that checks at every move loses against a side that chases, and
//! the loop is drawn otherwise, as it is when neither breaks it.

use super::chase::{colour, Colour, Squares};
use super::moves::Move;
use super::position::Position;
use crate::side::{BySide, Side};

/// The rule a side breaks.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Every move of the side round the loop checks.
    PerpetualCheck,
    /// Every move of the side chases, and they hunt one piece.
    PerpetualChase,
}

impl Rule {
    /// The rule's name in JSON and text: `perpetual-check`, `perpetual-chase`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::PerpetualCheck => "perpetual-check",
            Rule::PerpetualChase => "perpetual-chase",
        }
    }
}

/// The judge's ruling on a loop.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ruling {
    /// Neither side must change: the repetition draws.
    Draw,
    /// `side` breaks `rule` and loses unless it changes.
    Loses {
        /// The side that must change.
        side: Side,
        /// The rule it breaks.
        rule: Rule,
    },
}

/// A loop the judge cannot rule on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoopError {
    /// A move of the loop is not legal where it is played.
    #[error("move {ply} of the loop, {mv}, is not legal there")]
    Illegal {
        /// Its place in the loop, from 1.
        ply: usize,
        /// The move.
        mv: Move,
    },
    /// The moves do not come back to the position they start from.
    #[error("the {plies} moves do not come back to the position they start from")]
    NotALoop {
        /// How many moves were given.
        plies: usize,
    },
}

/// What each side did round a loop: the colour of each of its moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The moves, from the first position, and each one's colour.
    moves: Vec<(Move, Colour)>,
    /// The side to move at the first position.
    first: Side,
}

impl Loop {
    /// The loop of `moves` played from `start`, which they must bring back to `start`.
    pub fn new(start: &Position, moves: &[Move]) -> Result<Loop, LoopError> {
        let mut pos = start.clone();
        let mut coloured = Vec::with_capacity(moves.len());
        for (i, &m) in moves.iter().enumerate() {
            if !pos.legal_moves().contains(&m) {
                return Err(LoopError::Illegal { ply: i + 1, mv: m });
            }
            coloured.push((m, colour(&pos, m)));
            pos = pos.play(&m);
        }
        if moves.is_empty() || pos != *start {
            return Err(LoopError::NotALoop { plies: moves.len() });
        }
        Ok(Loop {
            moves: coloured,
            first: start.turn(),
        })
    }

    /// The loop of `moves`, each with its colour where it is played, the side to move at
    /// their first position `first`: for callers that played and coloured them already.
    pub fn of_coloured(first: Side, moves: Vec<(Move, Colour)>) -> Loop {
        Loop { moves, first }
    }

    /// The colours of the moves, in order.
    pub fn colours(&self) -> impl Iterator<Item = Colour> + '_ {
        self.moves.iter().map(|&(_, c)| c)
    }

    /// The rule `side` breaks round the loop, if any.
    pub fn broken_by(&self, side: Side) -> Option<Rule> {
        let first = usize::from(self.first != side);
        let mut colours = self.moves.iter().skip(first).step_by(2).map(|&(_, c)| c);
        let all_check = colours.clone().all(|c| c == Colour::Check);
        let chases = colours.all(|c| matches!(c, Colour::Chase(_)));
        Rule::broken(all_check, chases && !self.hunted(side).is_empty())
    }

    /// The pieces of the other side that every move of `side` round the loop chases,
    /// each followed as it moves, and round the loop again until no more drop out (where
    /// like pieces trade places, one lap may hand the chase from one to the other): their
    /// squares at the first position.
    pub fn hunted(&self, side: Side) -> Squares {
        let mut hunted = Squares::ALL;
        loop {
            let mut set = hunted;
            let mut mover = self.first;
            for &(m, c) in &self.moves {
                if mover == side {
                    if let Colour::Chase(chased) = c {
                        set = set.and(chased);
                    }
                } else {
                    set = set.moved(m.from, m.to);
                }
                mover = !mover;
            }
            if set == hunted || set.is_empty() {
                return set;
            }
            hunted = set;
        }
    }

    /// The ruling: who must change, by which rule.
    pub fn ruling(&self) -> Ruling {
        Ruling::of(BySide::new_with(|side| self.broken_by(side)))
    }
}

impl Rule {
    /// The rule a side breaks whose moves round a loop (one or more) all check
    /// (`all_check`), or all chase with one piece hunted throughout (`hunt_one`).
    pub fn broken(all_check: bool, hunt_one: bool) -> Option<Rule> {
        if all_check {
            Some(Rule::PerpetualCheck)
        } else {
            hunt_one.then_some(Rule::PerpetualChase)
        }
    }
}

impl Ruling {
    /// The ruling on a loop where each side broke the rule given, if any: one side breaking
    /// a rule loses; when both do, a side checking at every move loses against a side that
    /// chases, and the loop draws otherwise.
    pub fn of(broken: BySide<Option<Rule>>) -> Ruling {
        let loses = |side: Side, rule: Rule| Ruling::Loses { side, rule };
        match (broken[Side::White], broken[Side::Black]) {
            (Some(rule), None) => loses(Side::White, rule),
            (None, Some(rule)) => loses(Side::Black, rule),
            (Some(Rule::PerpetualCheck), Some(Rule::PerpetualChase)) => {
                loses(Side::White, Rule::PerpetualCheck)
            }
            (Some(Rule::PerpetualChase), Some(Rule::PerpetualCheck)) => {
                loses(Side::Black, Rule::PerpetualCheck)
            }
            _ => Ruling::Draw,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ruling on the loop of `moves` (UCCI) from `fen`.
    fn ruling(fen: &str, moves: &str) -> Ruling {
        let start = Position::from_fen(fen).unwrap();
        let moves: Vec<Move> = moves.split(' ').map(|m| m.parse().unwrap()).collect();
        Loop::new(&start, &moves).unwrap().ruling()
    }

    const RED_CHASES: Ruling = Ruling::Loses {
        side: Side::White,
        rule: Rule::PerpetualChase,
    };

    #[test]
    fn a_rook_may_not_chase_an_unprotected_cannon() {
        // Asian rules, rule 18; protected, the same chase is allowed (rule 17).
        let moves = "h6h7 b7b6 h7h6 b6b7";
        assert_eq!(ruling("4k4/9/1c7/7R1/9/9/9/9/9/3K5 w", moves), RED_CHASES);
        assert_eq!(
            ruling("1r2k4/9/1c7/7R1/9/9/9/9/9/3K5 w", moves),
            Ruling::Draw
        );
    }

    #[test]
    fn a_cannon_may_not_chase_a_rook_protected_or_not() {
        // Rule 15: the black rook on a7 protects the other one on g7 and h7.
        let moves = "h2g2 g7h7 g2h2 h7g7";
        assert_eq!(
            ruling("4k4/9/r5r2/9/6PP1/9/9/7C1/9/3K5 w", moves),
            RED_CHASES
        );
        assert_eq!(
            ruling("4k4/9/6r2/9/6PP1/9/9/7C1/9/3K5 w", moves),
            RED_CHASES
        );
    }

    #[test]
    fn perpetual_check_loses_and_one_check_one_idle_draws() {
        // Rules 6 and 13.
        let lost = ruling("4k4/8R/9/9/9/9/9/9/9/3K5 w", "i8i9 e9e8 i9i8 e8e9");
        let rule = Rule::PerpetualCheck;
        assert_eq!(
            lost,
            Ruling::Loses {
                side: Side::White,
                rule
            }
        );
        let idle = ruling("4k4/9/8R/9/9/9/9/9/9/3K5 w", "i7i9 e9e8 i9i7 e8e9");
        assert_eq!(idle, Ruling::Draw);
    }

    #[test]
    fn rooks_that_can_take_each_other_do_not_chase() {
        // Rule 24: a perpetual offer of the exchange draws.
        let moves = "h6h7 b7b6 h7h6 b6b7";
        assert_eq!(ruling("4k4/9/1r7/7R1/9/9/9/9/9/3K5 w", moves), Ruling::Draw);
    }

    #[test]
    fn one_piece_chasing_two_in_turn_draws() {
        // Rule 32: the rook chases the cannon on b7 and the horse on c6 in turn.
        let moves = "h7h6 e9e8 h6h7 e8e9";
        assert_eq!(
            ruling("4k4/9/1c5R1/2n6/9/9/9/9/9/3K5 w", moves),
            Ruling::Draw
        );
    }

    #[test]
    fn the_colours_of_a_chase_loop() {
        let start = Position::from_fen("4k4/9/1c7/7R1/9/9/9/9/9/3K5 w").unwrap();
        let moves: Vec<Move> = ["h6h7", "b7b6", "h7h6", "b6b7"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        let at = |s: &str| Squares::EMPTY.with(s.parse().unwrap());
        let colours: Vec<Colour> = Loop::new(&start, &moves).unwrap().colours().collect();
        let want = [
            Colour::Chase(at("b7")),
            Colour::Idle,
            Colour::Chase(at("b6")),
            Colour::Idle,
        ];
        assert_eq!(colours, want);
        assert_eq!(
            Loop::new(&start, &moves).unwrap().hunted(Side::White),
            at("b7")
        );
    }

    #[test]
    fn what_is_not_a_loop_is_refused() {
        let start = Position::from_fen("4k4/9/1c7/7R1/9/9/9/9/9/3K5 w").unwrap();
        let parse = |s: &str| -> Vec<Move> { s.split(' ').map(|m| m.parse().unwrap()).collect() };
        let open = Loop::new(&start, &parse("h6h7 b7b6"));
        assert_eq!(open, Err(LoopError::NotALoop { plies: 2 }));
        let illegal = Loop::new(&start, &parse("h6h7 b7c8"));
        let mv = "b7c8".parse().unwrap();
        assert_eq!(illegal, Err(LoopError::Illegal { ply: 2, mv }));
        assert_eq!(
            Loop::new(&start, &[]),
            Err(LoopError::NotALoop { plies: 0 })
        );
    }
}
