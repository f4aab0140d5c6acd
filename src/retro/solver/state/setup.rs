//! Setting up a part's positions before the levels: each position's moves summed up, and
//! its value where the moves that leave the graph decide it.

use super::*;

/// What the setup learns of a position's moves (`State::init`).
#[derive(Default)]
pub(super) struct Scan {
    /// The best fixed move, moves into earlier parts included.
    pub(super) best: Option<Dtm>,
    /// The best move that leaves the graph.
    pub(super) best_exit: Option<Dtm>,
    /// Moves inside the graph.
    pub(super) inside: u32,
    /// The position's value when it has no move at all.
    pub(super) no_moves: Option<Dtm>,
}

impl<'g, G: RetroGame> State<'g, G> {
    /// Stores `idx`'s value before the levels start, marked to be taken back at the level
    /// after its own.
    pub(super) fn preset(&self, side: usize, idx: u64, value: Dtm) {
        self.values[side][self.at(idx)].store(value.encode(), Relaxed);
        if let Some(p) = value.plies() {
            self.mark(side, idx, p + 1);
        }
    }

    /// The best fixed move and best exit of `idx`, a legal position, found from the
    /// moves that may be fixed only (`RetroGame::fixed_successors`).
    pub(super) fn scan_fixed(&self, side: usize, idx: u64) -> Scan {
        let mut sum = Scan::default();
        self.game
            .fixed_successors(Side::from_index(side), idx, &mut |s| {
                self.add_move(&mut sum, side, idx, s, None)
            });
        sum
    }

    /// Adds move `s` of `idx` to `sum` (with mail to `schedule` in, see `init`).
    #[inline]
    pub(super) fn add_move(
        &self,
        sum: &mut Scan,
        side: usize,
        idx: u64,
        s: Successor,
        schedule: Option<&mut Mail>,
    ) {
        let earlier = |j: u64| {
            let e = self.earlier.as_ref();
            e.expect("a move into an earlier part reads its values")
                .value(1 - side, j)
        };
        let first = self.part.start;
        let fixed = match s {
            Successor::Table(j) if j < first => Some(earlier(j)),
            Successor::Either(j, alt) if j < first => Some(earlier(j).max(alt)),
            _ => None,
        };
        if let Some(d) = fixed {
            // Into an earlier part: the value found there, counted as a fixed move.
            sum.best = sum.best.max(Some(d.back()));
            return;
        }
        match s {
            Successor::Table(_) => sum.inside += 1,
            Successor::Fixed(d) => {
                let mine = d.back();
                if sum.best.is_none_or(|b| mine > b) {
                    sum.best = Some(mine);
                }
                sum.best_exit = sum.best_exit.max(Some(mine));
            }
            Successor::Either(j, alt) => {
                sum.inside += 1;
                // The opponent's extra option wins for him: this move loses by then.
                if let (Dtm::Win(w), Some(mail)) = (alt, schedule) {
                    let note = Note::MoveLosesAt(side as u8, idx, j, w + 1);
                    self.route(mail, note, 0);
                }
            }
        }
    }

    /// Sets up `idx` for both sides to move: its moves summed up, and its value where they
    /// decide it. A move whose extra option wins for the opponent is set to lose at its
    /// level here, once.
    pub(super) fn init(&self, idx: u64, mail: &mut Mail) {
        let mut sums = [Scan::default(), Scan::default()];
        let mut any = [false; 2];
        let found = self.game.successors_counted_both(idx, &mut |side, s| {
            let side = side.index();
            any[side] = true;
            self.add_move(&mut sums[side], side, idx, s, Some(&mut *mail));
        });
        for (side, (found, mut sum)) in found.into_iter().zip(sums).enumerate() {
            let scan = found.map(|(terminal, counted)| {
                sum.inside += counted;
                sum.no_moves = (!any[side] && counted == 0).then_some(terminal);
                sum
            });
            self.init_side(side, idx, scan);
        }
    }

    /// Sets up `idx` with `side` to move from the sum of its moves (None: not a legal
    /// position).
    pub(super) fn init_side(&self, side: usize, idx: u64, scan: Option<Scan>) {
        let at = self.at(idx);
        let best_exit = scan.as_ref().and_then(|s| s.best_exit);
        match &scan {
            None => self.illegal[side].set(at),
            Some(Scan {
                no_moves: Some(t), ..
            }) => self.preset(side, idx, *t),
            Some(scan) => self.init_moves(side, idx, scan),
        }
        if let Some(classes) = &self.exit_class {
            classes[side].set(at, class_of(best_exit));
        }
        if let Some(p) = best_exit.and_then(Dtm::plies) {
            raise(&self.longest_exit, p);
            if p > SUMMARY_PLIES {
                lock(&self.exits_beyond[side]).push((idx, p));
            }
        }
    }

    /// Sets up `idx`, which has moves, from their sum `scan`.
    pub(super) fn init_moves(&self, side: usize, idx: u64, scan: &Scan) {
        let at = self.at(idx);
        self.class[side].set(at, class_of(scan.best));
        match scan.best.and_then(Dtm::plies) {
            Some(p) if p > SUMMARY_PLIES => {
                self.defer(p, Deferred::Exit(side as u8, idx));
            }
            Some(p) => {
                self.note_static(p);
                if p % 2 == 1 {
                    // Provisional until level p (see the module doc).
                    self.preset(side, idx, Dtm::from_plies(p));
                    self.decided(side, at, scan);
                } else if scan.inside == 0 {
                    // Every move leaves the graph, the best losing: nothing can change it.
                    self.preset(side, idx, Dtm::from_plies(p));
                    self.decided(side, at, scan);
                }
            }
            None => {}
        }
        if self.search == LossSearch::Counters {
            let counter = u8::try_from(scan.inside).expect("fewer than 256 moves");
            self.counters[side][at].store(counter, Relaxed);
        }
    }

    /// Notes that `at`'s best fixed move has its value (as far as known: a move inside the
    /// graph that wins sooner takes it back, `set`): so has its best exit, if that is the
    /// best fixed move (`scan`).
    pub(super) fn decided(&self, side: usize, at: usize, scan: &Scan) {
        if scan.best_exit == scan.best {
            self.decides[side].set(at);
        }
    }
}
