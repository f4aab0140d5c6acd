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
}

impl Repetition {
    /// The value of a repeating move made at a node of kind `mover` (Max or Min).
    pub fn value(self, mover: Kind) -> Value {
        let max_moved = mover == Kind::Max;
        match self {
            Repetition::Fixed(v) => v,
            Repetition::MoverLoses if max_moved => Value::Loss,
            Repetition::MoverLoses => Value::Win,
            Repetition::MoverWins if max_moved => Value::Win,
            Repetition::MoverWins => Value::Loss,
        }
    }

    /// All five rules (for tests and benchmarks).
    pub const ALL: [Repetition; 5] = [
        Repetition::Fixed(Value::Win),
        Repetition::Fixed(Value::Draw),
        Repetition::Fixed(Value::Loss),
        Repetition::MoverLoses,
        Repetition::MoverWins,
    ];
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
        "line {line}: repetition rule {rule:?} is not win, draw, loss, mover-loses or mover-wins"
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
}

impl Graph {
    /// A graph built in code; every non-terminal node must have a move.
    pub fn new(kinds: Vec<Kind>, edges: Vec<Vec<usize>>, repetition: Repetition) -> Graph {
        let names = (0..kinds.len()).map(|i| format!("n{i}")).collect();
        Graph {
            names,
            kinds,
            edges,
            repetition,
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
        let mut edge_lines: Vec<(usize, String, String)> = Vec::new();
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
                ["edge", from, to] => edge_lines.push((line, from.to_string(), to.to_string())),
                ["repetition", rule] => {
                    if repetition.is_some() {
                        return Err(GraphError::RepetitionTwice { line });
                    }
                    repetition = Some(match *rule {
                        "mover-loses" => Repetition::MoverLoses,
                        "mover-wins" => Repetition::MoverWins,
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
        let mut edges = vec![Vec::new(); names.len()];
        for (line, from, to) in edge_lines {
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
            edges[f].push(t);
        }
        for (i, k) in kinds.iter().enumerate() {
            if !matches!(k, Kind::Terminal(_)) && edges[i].is_empty() {
                return Err(GraphError::NoMove {
                    name: names[i].clone(),
                });
            }
        }
        let repetition = repetition.ok_or(GraphError::NoRepetition)?;
        Ok(Graph {
            names,
            kinds,
            edges,
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
