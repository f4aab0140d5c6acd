//! Explicit game graphs and their text format:
//!
//! ```text
//! # comment
//! node A max            # the first player (max) moves at A
//! node B min            # the second player (min) moves at B
//! node D loss           # terminal: its value for max (win | draw | loss)
//! edge A B              # a move from A to B
//! repetition loss       # value for max when a move reaches a node already on the path:
//!                       # win | draw | loss, or mover-loses | mover-wins
//! ```
//!
//! Under `repetition asian` a repetition is judged as the Asian rules of Chinese chess judge
//! the loop it closes ([`crate::xiangqi::Ruling::of`]), and an edge may name its colour:
//! `edge A B check`, `edge A B chase P Q` (it chases the pieces named P and Q), or `edge A B`
//! (idle). A side loses a loop whose moves of its all check, or all chase one same piece
//! while the other side's do not; a side checking at every move loses against one chasing;
//! every other loop draws.

use crate::side::{BySide, Side};
use crate::xiangqi::{Rule, Ruling};
use std::collections::HashMap;
use std::fmt;

/// A game value from the first player's (max's) view.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    /// Max loses.
    Loss,
    /// Draw.
    Draw,
    /// Max wins.
    Win,
}

impl Value {
    /// `win`, `draw` or `loss`.
    pub fn as_str(self) -> &'static str {
        match self {
            Value::Win => "win",
            Value::Draw => "draw",
            Value::Loss => "loss",
        }
    }

    fn parse(s: &str) -> Option<Value> {
        match s {
            "win" => Some(Value::Win),
            "draw" => Some(Value::Draw),
            "loss" => Some(Value::Loss),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who moves at a node, or its value if the game ends there. Values are win, draw or loss
/// in graph files; the solver takes any totally ordered value ([`solve_with`](super::solve_with)).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind<V = Value> {
    /// Max chooses the move.
    Max,
    /// Min chooses the move.
    Min,
    /// The game ends with this value.
    Terminal(V),
}

/// The value of reaching a node already on the path.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Repetition {
    /// A fixed value for max.
    Fixed(Value),
    /// The player who made the repeating move loses.
    MoverLoses,
    /// The player who made the repeating move wins.
    MoverWins,
    /// The loop is judged by the Asian rules from its moves' colours.
    Asian,
}

impl Repetition {
    /// The value of a repeating move made at a node of kind `mover` (Max or Min), for the
    /// rules that look at the mover alone (the Asian rules look at the loop: see
    /// [`Graph::repetition_value`]; here they give a draw).
    pub fn value(self, mover: Kind) -> Value {
        let max_moved = mover == Kind::Max;
        match self {
            Repetition::Fixed(v) => v,
            Repetition::Asian => Value::Draw,
            Repetition::MoverLoses if max_moved => Value::Loss,
            Repetition::MoverLoses => Value::Win,
            Repetition::MoverWins if max_moved => Value::Win,
            Repetition::MoverWins => Value::Loss,
        }
    }

    /// The five rules that look at the mover alone (for tests and benchmarks).
    pub const ALL: [Repetition; 5] = [
        Repetition::Fixed(Value::Win),
        Repetition::Fixed(Value::Draw),
        Repetition::Fixed(Value::Loss),
        Repetition::MoverLoses,
        Repetition::MoverWins,
    ];
}

/// What a move does under the Asian rules of Chinese chess.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Colour {
    /// Neither checks nor chases.
    #[default]
    Idle,
    /// Gives check.
    Check,
    /// Chases the pieces numbered here (numbered by first mention in the file).
    Chase(Vec<u32>),
}

/// A game graph: nodes numbered 0.., with names, kinds and moves.
#[derive(Clone, Debug)]
pub struct Graph {
    /// Node names, by number.
    pub names: Vec<String>,
    /// Node kinds, by number.
    pub kinds: Vec<Kind>,
    /// Moves of each node (target numbers), in file order.
    pub edges: Vec<Vec<usize>>,
    /// The colour of each move, as `edges` (all idle unless the rule is `Asian`).
    pub colours: Vec<Vec<Colour>>,
    /// The repetition rule.
    pub repetition: Repetition,
}

/// What is wrong with a graph file. The fields say where and what: `line` the line at
/// fault (1-based), `name`, `kind`, `rule` or `text` the words found there.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    /// A node's kind is none of those the format knows.
    #[error("line {line}: node kind {kind:?} is not max, min, win, draw or loss")]
    UnknownKind { line: usize, kind: String },
    /// A node name is given a second time.
    #[error("line {line}: node {name} is defined twice")]
    DefinedTwice { line: usize, name: String },
    /// A second `repetition` line.
    #[error("line {line}: repetition rule given twice")]
    RepetitionTwice { line: usize },
    /// A repetition rule the format does not know.
    #[error(
        "line {line}: repetition rule {rule:?} is not win, draw, loss, mover-loses, mover-wins or asian"
    )]
    UnknownRepetition { line: usize, rule: String },
    /// A line that is none of `node`, `edge` and `repetition`.
    #[error(
        "line {line}: expected `node NAME KIND`, `edge FROM TO` or `repetition RULE`, got {text:?}"
    )]
    Unexpected { line: usize, text: String },
    /// An edge names a node that no `node` line defines.
    #[error("line {line}: unknown node {name}")]
    UnknownNode { line: usize, name: String },
    /// An edge leaves a node whose value is given.
    #[error("line {line}: terminal node {name} cannot have moves")]
    TerminalMoves { line: usize, name: String },
    /// A node without a value has no move.
    #[error("node {name} has no move and is not terminal (give it a value: win, draw or loss)")]
    NoMove { name: String },
    /// The file has no `repetition` line.
    #[error("no `repetition` rule given")]
    NoRepetition,
    /// An edge's colour is none of check, chase (with the pieces chased) and idle.
    #[error("line {line}: edge colour {text:?} is not check, idle or chase followed by the pieces chased")]
    UnknownColour { line: usize, text: String },
    /// An edge has a colour where the rule does not look at colours.
    #[error("line {line}: edge colours count only under `repetition asian`")]
    ColourWithoutAsian { line: usize },
    /// Two edges join the same two nodes where a loop is known by its nodes.
    #[error("line {line}: a second edge from {from} to {to} (under `repetition asian` a loop is known by its nodes)")]
    EdgeTwice {
        line: usize,
        from: String,
        to: String,
    },
}

impl Graph {
    /// A graph built in code; every non-terminal node must have a move. Its moves are idle.
    pub fn new(kinds: Vec<Kind>, edges: Vec<Vec<usize>>, repetition: Repetition) -> Graph {
        let names = (0..kinds.len()).map(|i| format!("n{i}")).collect();
        let colours = edges.iter().map(|e| vec![Colour::Idle; e.len()]).collect();
        Graph {
            names,
            kinds,
            edges,
            colours,
            repetition,
        }
    }

    /// The value for max of the move from the last node of `cycle` back to its first, which
    /// closes the loop of `cycle`'s nodes (in order) under the graph's rule.
    pub fn repetition_value(&self, cycle: &[usize]) -> Value {
        let mover = self.kinds[*cycle.last().expect("a loop has a node")];
        if self.repetition != Repetition::Asian {
            return self.repetition.value(mover);
        }
        let side = |v: usize| match self.kinds[v] {
            Kind::Max => Side::White,
            _ => Side::Black,
        };
        let colour = |i: usize| {
            let (v, w) = (cycle[i], cycle[(i + 1) % cycle.len()]);
            let at = self.edges[v].iter().position(|&t| t == w);
            &self.colours[v][at.expect("the loop's moves are edges")]
        };
        let broken = BySide::new_with(|s| {
            let mut own = (0..cycle.len()).filter(|&i| side(cycle[i]) == s).peekable();
            own.peek()?;
            let all_check = own.clone().all(|i| *colour(i) == Colour::Check);
            let mut hunted: Option<Vec<u32>> = None;
            let chases = own.all(|i| match colour(i) {
                Colour::Chase(p) => {
                    let h = hunted.get_or_insert_with(|| p.clone());
                    h.retain(|x| p.contains(x));
                    true
                }
                _ => false,
            });
            Rule::broken(all_check, chases && hunted.is_some_and(|h| !h.is_empty()))
        });
        match Ruling::of(broken) {
            Ruling::Draw => Value::Draw,
            Ruling::Loses {
                side: Side::White, ..
            } => Value::Loss,
            Ruling::Loses { .. } => Value::Win,
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// True for a graph without nodes.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// The number of the node named `name`.
    pub fn node(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Parses the text format; errors name the line (1-based) and what is wrong.
    pub fn parse(text: &str) -> Result<Graph, GraphError> {
        let mut names: Vec<String> = Vec::new();
        let mut kinds = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut edge_lines: Vec<(usize, String, String, Colour)> = Vec::new();
        let mut pieces: HashMap<String, u32> = HashMap::new();
        let mut repetition = None;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let text = raw.split('#').next().unwrap_or("").trim();
            if text.is_empty() {
                continue;
            }
            let words: Vec<&str> = text.split_whitespace().collect();
            match words.as_slice() {
                ["node", name, kind] => {
                    let kind = match *kind {
                        "max" => Kind::Max,
                        "min" => Kind::Min,
                        v => Kind::Terminal(Value::parse(v).ok_or_else(|| {
                            GraphError::UnknownKind {
                                line,
                                kind: v.to_string(),
                            }
                        })?),
                    };
                    if index.contains_key(*name) {
                        return Err(GraphError::DefinedTwice {
                            line,
                            name: name.to_string(),
                        });
                    }
                    index.insert(name.to_string(), names.len());
                    names.push(name.to_string());
                    kinds.push(kind);
                }
                ["edge", from, to, colour @ ..] => {
                    let colour = match colour {
                        [] | ["idle"] => Colour::Idle,
                        ["check"] => Colour::Check,
                        ["chase", chased @ ..] if !chased.is_empty() => {
                            let mut ids: Vec<u32> = chased
                                .iter()
                                .map(|p| {
                                    let next = pieces.len() as u32;
                                    *pieces.entry(p.to_string()).or_insert(next)
                                })
                                .collect();
                            ids.sort_unstable();
                            ids.dedup();
                            Colour::Chase(ids)
                        }
                        _ => {
                            return Err(GraphError::UnknownColour {
                                line,
                                text: colour.join(" "),
                            })
                        }
                    };
                    edge_lines.push((line, from.to_string(), to.to_string(), colour))
                }
                ["repetition", rule] => {
                    if repetition.is_some() {
                        return Err(GraphError::RepetitionTwice { line });
                    }
                    repetition = Some(match *rule {
                        "mover-loses" => Repetition::MoverLoses,
                        "mover-wins" => Repetition::MoverWins,
                        "asian" => Repetition::Asian,
                        v => Repetition::Fixed(Value::parse(v).ok_or_else(|| {
                            GraphError::UnknownRepetition {
                                line,
                                rule: v.to_string(),
                            }
                        })?),
                    });
                }
                _ => {
                    return Err(GraphError::Unexpected {
                        line,
                        text: text.to_string(),
                    })
                }
            }
        }
        let repetition = repetition.ok_or(GraphError::NoRepetition)?;
        let asian = repetition == Repetition::Asian;
        let mut edges = vec![Vec::new(); names.len()];
        let mut colours = vec![Vec::new(); names.len()];
        for (line, from, to, colour) in edge_lines {
            let find = |n: &str| {
                index
                    .get(n)
                    .copied()
                    .ok_or_else(|| GraphError::UnknownNode {
                        line,
                        name: n.to_string(),
                    })
            };
            let (f, t) = (find(&from)?, find(&to)?);
            if let Kind::Terminal(_) = kinds[f] {
                return Err(GraphError::TerminalMoves { line, name: from });
            }
            if !asian && colour != Colour::Idle {
                return Err(GraphError::ColourWithoutAsian { line });
            }
            if asian && edges[f].contains(&t) {
                return Err(GraphError::EdgeTwice { line, from, to });
            }
            edges[f].push(t);
            colours[f].push(colour);
        }
        for (i, k) in kinds.iter().enumerate() {
            if !matches!(k, Kind::Terminal(_)) && edges[i].is_empty() {
                return Err(GraphError::NoMove {
                    name: names[i].clone(),
                });
            }
        }
        Ok(Graph {
            names,
            kinds,
            edges,
            colours,
            repetition,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_what_is_wrong_and_where() {
        let err = |text: &str| Graph::parse(text).unwrap_err();
        assert_eq!(
            err("node A max\nedge A B\nrepetition draw\n"),
            GraphError::UnknownNode {
                line: 2,
                name: "B".into()
            }
        );
        assert_eq!(
            err("node A win\nnode B max\n\nedge A B\nrepetition draw\n"),
            GraphError::TerminalMoves {
                line: 4,
                name: "A".into()
            }
        );
        assert_eq!(
            err("repetition draw\n# two\nrepetition loss\n"),
            GraphError::RepetitionTwice { line: 3 }
        );
        assert_eq!(
            err("node A max # a comment\nfrobnicate now # another\n"),
            GraphError::Unexpected {
                line: 2,
                text: "frobnicate now".into()
            }
        );
        assert_eq!(err("node A win\n"), GraphError::NoRepetition);
        assert_eq!(
            err("node A min\nrepetition draw\n").to_string(),
            "node A has no move and is not terminal (give it a value: win, draw or loss)"
        );
    }
}
