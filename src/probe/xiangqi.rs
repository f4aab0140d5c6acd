//! Probing xiangqi tables (`Tablebase<Xiangqi>`): values by position (through the colour
//! flip when Black has the stronger side), every move's value, and `verify`'s one-ply check.

use super::error::ProbeError;
use super::game::Xiangqi;
use super::tablebase::Tablebase;
use crate::retro::{by_rule, GraphTooLarge, Verdict};
use crate::side::{BySide, Side};
use crate::table::xiangqi::{SideCounts, XiangqiFile};
use crate::table::TableError;
use crate::value::Dtm;
use crate::xiangqi::{Move, Position, Signature};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::Mutex;

impl Tablebase<Xiangqi> {
    /// The value of `pos` for its side to move.
    pub fn probe(&self, pos: &Position) -> Result<Verdict, ProbeError> {
        let signature = Signature::of(pos);
        if !signature.is_canonical() {
            return self.probe(&pos.flipped());
        }
        if pos.in_check(!pos.turn()) {
            return Err(ProbeError::IllegalPosition(
                "the side not to move is in check, or the kings face each other",
            ));
        }
        let file = self.needed(signature)?;
        let idx = file.index().encode(pos).ok_or(ProbeError::IllegalPosition(
            "a piece stands where it never can",
        ))?;
        Ok(file.verdict(pos.turn(), idx)?)
    }

    /// Every legal move of `pos` with the value of the position it leads to (for the side
    /// to move there, as chess's `Tablebase::best_moves` gives it), best move first (on
    /// equal values, in move order).
    pub fn moves(&self, pos: &Position) -> Result<Vec<(Move, Verdict)>, ProbeError> {
        let mut moves = pos
            .legal_moves()
            .into_iter()
            .map(|m| Ok((m, self.probe(&pos.play(&m))?)))
            .collect::<Result<Vec<_>, ProbeError>>()?;
        moves.sort_by_key(|(_, v)| -v.back().preference());
        Ok(moves)
    }

    /// A line of best moves from `pos` to mate (empty if it is not a forced mate): each
    /// move keeps the distance exact, one ply nearer. Tables that do not agree (one of
    /// them damaged, or from another build) end the line with an error, never a loop.
    pub fn mainline(&self, pos: &Position) -> Result<Vec<Move>, ProbeError> {
        let mut line = Vec::new();
        let mut pos = pos.clone();
        let mut value = self.probe(&pos)?;
        while let Verdict::Plain(d @ (Dtm::Win(_) | Dtm::Loss(_))) = value {
            let Some(&(m, after)) = self.moves(&pos)?.first() else {
                break;
            };
            let next = pos.play(&m);
            let expected = d
                .plies()
                .and_then(|p| p.checked_sub(1))
                .map(Dtm::from_plies);
            value = self.probe(&next)?;
            if after.back() != Verdict::Plain(d) || Some(value.plain()) != expected {
                return Err(ProbeError::Inconsistent { fen: pos.to_fen() });
            }
            line.push(m);
            pos = next;
        }
        Ok(line)
    }

    /// Checks the table of `signature` one ply deep: every legal position's value is the
    /// best of its moves' values (no move: lost), read back from the tables; and the
    /// header's counts are those of the values stored. The first position at fault is
    /// named. With `memory`, bytes the check may hold: the perpetual-check rule's graph,
    /// solved again, is refused if it would need more than the values decoded leave.
    pub fn verify(
        &self,
        signature: &Signature,
        memory: Option<u64>,
    ) -> Result<(), XiangqiVerifyError> {
        let file = self.needed(*signature)?;
        // The table's own values decoded whole; captures are probed in the sub-tables.
        let codes = BySide::from([file.codes(Side::White)?, file.codes(Side::Black)?]);
        let n = file.index().size();
        let counts = Side::ALL.map(|side| {
            (0..n)
                .into_par_iter()
                .map(|idx| self.check(file, &codes, side, idx))
                .try_reduce(SideCounts::default, |a, b| Ok(a.plus(b)))
        });
        let [red, black] = counts;
        let sides = [red?, black?];
        if file.header().sides != sides {
            return Err(XiangqiVerifyError::Counts {
                path: file.path().to_path_buf(),
            });
        }
        // The rule's verdicts solved again from the distances stored (the one-ply check
        // cannot tell a verdict from a consistent wrong one), and held against the list.
        let index = file.index();
        let plain = |side: Side, idx: u64| {
            let pos = index.decode(idx, side)?;
            let legal = !pos.in_check(!pos.turn());
            legal.then(|| {
                let code = codes[side][idx as usize];
                file.verdict_of(side, idx, code).plain()
            })
        };
        let failed: Mutex<Option<ProbeError>> = Mutex::new(None);
        let sub = |pos: &Position| {
            self.probe(pos).unwrap_or_else(|e| {
                failed.lock().expect("not poisoned").get_or_insert(e);
                Verdict::Plain(Dtm::Draw)
            })
        };
        let decoded = 4 * index.size();
        let solved = by_rule(
            index,
            &plain,
            &sub,
            memory.map(|m| m.saturating_sub(decoded)),
        )
        .map_err(|source| XiangqiVerifyError::Memory {
            path: file.path().to_path_buf(),
            source,
        })?;
        if let Some(e) = failed.into_inner().expect("not poisoned") {
            return Err(e.into());
        }
        // Every legal position's verdict as the rules solved again give it, against the
        // file's (an illegal index's code is whatever compressed best: it is not read).
        let differs = |side: Side| {
            (0..n).into_par_iter().find_first(|&idx| {
                let stored = file.verdict_of(side, idx, codes[side][idx as usize]);
                solved[side].verdict(stored.plain(), idx) != stored && plain(side, idx).is_some()
            })
        };
        if let Some((side, idx)) = Side::ALL
            .into_iter()
            .find_map(|side| differs(side).map(|idx| (side, idx)))
        {
            let fen = index
                .decode(idx, side)
                .map_or_else(String::new, |p| p.to_fen());
            return Err(XiangqiVerifyError::Rule {
                path: file.path().to_path_buf(),
                fen,
            });
        }
        Ok(())
    }

    /// One index checked, counted as the header counts it.
    fn check(
        &self,
        file: &XiangqiFile,
        codes: &BySide<Vec<u16>>,
        turn: Side,
        idx: u64,
    ) -> Result<SideCounts, XiangqiVerifyError> {
        let Some(pos) = file.index().decode(idx, turn) else {
            return Ok(SideCounts::default());
        };
        if pos.in_check(!turn) {
            return Ok(SideCounts::default());
        }
        // The values with every repetition a draw: the best of the moves' (the rules'
        // verdicts are checked by solving them again, as a position's value under them
        // need not be the best of its moves' values with no history).
        let stored = file.verdict_of(turn, idx, codes[turn][idx as usize]);
        let mut best = Dtm::Loss(0);
        for (i, m) in pos.legal_moves().iter().enumerate() {
            let next = pos.play(m);
            let value = match pos.at(m.to) {
                Some(_) => self.probe(&next)?,
                None => {
                    let j = file
                        .index()
                        .encode(&next)
                        .expect("a quiet move keeps the material");
                    file.verdict_of(!turn, j, codes[!turn][j as usize])
                }
            }
            .plain()
            .back();
            if i == 0 || value.preference() > best.preference() {
                best = value;
            }
        }
        if stored.plain() != best {
            return Err(XiangqiVerifyError::Wrong {
                path: file.path().to_path_buf(),
                fen: pos.to_fen(),
                stored,
                moves: Verdict::Plain(best),
            });
        }
        Ok(SideCounts::of(stored))
    }
}

/// Why a xiangqi table failed its check.
#[derive(Debug, thiserror::Error)]
pub enum XiangqiVerifyError {
    /// The table or a sub-table could not be read.
    #[error("cannot read: {0}")]
    Unreadable(#[from] ProbeError),
    /// A position's stored value is not the best of its moves'.
    #[error("{}: {fen}: stored {stored:?}, but its moves give {moves:?}", path.display())]
    Wrong {
        /// The table.
        path: PathBuf,
        /// The position, as FEN.
        fen: String,
        /// The value stored.
        stored: Verdict,
        /// The best of its moves' values.
        moves: Verdict,
    },
    /// The rule's verdicts, solved again, are not those the file lists.
    #[error("{}: the perpetual-check verdicts differ from a new solve, first at {fen}", path.display())]
    Rule {
        /// The table.
        path: PathBuf,
        /// A position where they differ, as FEN.
        fen: String,
    },
    /// The rule's verdicts could not be solved again in the memory allowed.
    #[error("{}: cannot check the perpetual-check verdicts: {source}", path.display())]
    Memory {
        /// The table.
        path: PathBuf,
        /// What the rule's graph would need.
        source: GraphTooLarge,
    },
    /// The header's counts are not those of the values stored.
    #[error("{}: header counts differ from a recount", path.display())]
    Counts {
        /// The table.
        path: PathBuf,
    },
}

impl From<TableError> for XiangqiVerifyError {
    fn from(e: TableError) -> Self {
        XiangqiVerifyError::Unreadable(e.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retro::{Solved, XiangqiTables};
    use crate::table::xiangqi::write;

    /// `verify` passes KRvKN as solved, and fails it written without its 1,597 verdicts of
    /// the rule (counts adjusted): every position then passes the one-ply check, as each
    /// is drawn by its moves, and only the rule solved again finds the fault.
    #[test]
    fn verify_solves_the_rule_again() {
        let dir = std::env::temp_dir().join(format!("rb-xq-verify-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let sig: Signature = "KRvKN".parse().unwrap();
        let mut tables = XiangqiTables::default();
        tables.solve(sig);
        for s in ["KvK", "KNvK", "KRvK", "KRvKN"] {
            write(&dir, tables.table(&s.parse().unwrap()).unwrap()).unwrap();
        }
        Tablebase::<Xiangqi>::open(&dir)
            .unwrap()
            .verify(&sig, None)
            .unwrap();
        // Memory for the values decoded and not for the rule's graph: refused, named.
        let decoded = 4 * tables.table(&sig).unwrap().index.size();
        let err = Tablebase::<Xiangqi>::open(&dir)
            .unwrap()
            .verify(&sig, Some(decoded))
            .unwrap_err();
        assert!(matches!(err, XiangqiVerifyError::Memory { .. }), "{err}");
        assert!(err.to_string().contains("KRvKN.rbx"), "{err}");

        let solved = tables.table(&sig).unwrap();
        let stripped = Solved {
            index: solved.index.clone(),
            solution: solved.solution.clone(),
            by_rule: Default::default(),
        };
        write(&dir, &stripped).unwrap();
        let err = Tablebase::<Xiangqi>::open(&dir)
            .unwrap()
            .verify(&sig, None)
            .unwrap_err();
        assert!(matches!(err, XiangqiVerifyError::Rule { .. }), "{err}");
        assert!(
            err.to_string().contains("perpetual-check verdicts differ"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
