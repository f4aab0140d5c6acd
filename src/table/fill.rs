//! Chooses, for every position with several allowed stored values (`values`), the one that
//! compresses best: fewer runs of equal values mean fewer and longer grammar symbols.
//!
//! WDL codes: a shortest-path search over the ten codes minimizes runs plus a cost for each
//! probed position stored as "or better through a conversion" (each such probe looks at
//! the position's conversions), so the writer trades file size against probe time.
//!
//! DTM moves: each position keeps the previous value when allowed; otherwise a new run
//! starts with a value allowed over as many of the following positions as possible.
//!
//! The writer fills each chunk of `FILL_CHUNK` positions on its own as it gathers them, so
//! that a whole stream's choice sets are never held; the result does not depend on the
//! threads, at a cost in size too small to matter (`docs/measurements.md`).

use super::values::{dtm_range, UNPROBED, WDL_ANY, WDL_CODES};
use rayon::prelude::*;

/// Positions filled as one sequence: fills of different chunks are independent.
pub(super) const FILL_CHUNK: usize = 1 << 16;
const STATES: usize = WDL_CODES as usize;

/// Replaces each WDL choice set (bit c: code c allowed; `UNPROBED`: never probed) by the
/// chosen code. A run costs 16, a probed "or conversion" code `conversion_cost`.
pub(super) fn fill_wdl(choices: &mut [u16], conversion_cost: u32) {
    choices
        .par_chunks_mut(FILL_CHUNK)
        .for_each(|chunk| fill_wdl_chunk(chunk, conversion_cost));
}

fn fill_wdl_chunk(chunk: &mut [u16], conversion_cost: u32) {
    const RUN: u32 = 16;
    const INF: u32 = u32::MAX / 4;
    let n = chunk.len();
    // Per position: which states continued their own run (bit s), and the best state.
    let mut kept = vec![0u16; n];
    let mut best_at = vec![0u8; n];
    // The cost of the best filling so far that ends in each state; only the states of the
    // previous position's allowed codes (`live`) hold one.
    let mut cost = [0u32; STATES];
    let mut live = 0u16;
    let mut best = 0u32;
    for (i, &allowed) in chunk.iter().enumerate() {
        if i > 0 && allowed == WDL_ANY && chunk[i - 1] == WDL_ANY {
            // After a position that allows every code for free, another one changes no
            // cost: every state keeps its run.
            best_at[i] = best_at[i - 1];
            kept[i] = (1 << STATES) - 1;
            continue;
        }
        let star = if allowed & UNPROBED != 0 {
            0
        } else {
            conversion_cost
        };
        // Only the allowed states (two or three for most positions) are looked at; the
        // first of the cheapest is the best.
        let mut k = 0u16;
        let (mut b, mut c) = (0, INF);
        let codes = allowed & ((1 << STATES) - 1);
        let mut rest = codes;
        while rest != 0 {
            let s = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let (from, keep) = if i == 0 {
                (0, true)
            } else if live >> s & 1 == 1 && cost[s] <= best + RUN {
                (cost[s], true)
            } else {
                (best + RUN, false)
            };
            k |= u16::from(keep) << s;
            cost[s] = from + if s >= STATES / 2 { star } else { 0 };
            if cost[s] < c {
                (b, c) = (s, cost[s]);
            }
        }
        live = codes;
        best = c;
        best_at[i] = b as u8;
        kept[i] = k;
    }
    // Walk back: a state kept its run, or came from the best state of the position before.
    let mut s = best_at[n - 1] as usize;
    for i in (0..n).rev() {
        let keep = kept[i] >> s & 1 == 1;
        chunk[i] = s as u16;
        if !keep && i > 0 {
            s = best_at[i - 1] as usize;
        }
    }
}

/// Replaces each DTM choice (`values::dtm_choice`, `DTM_ANY`) by the moves to store.
pub(super) fn fill_dtm(choices: &mut [u16]) {
    let n = choices.len();
    let mut i = 0;
    let mut current = 0u16;
    while i < n {
        let (lo, hi, zero) = dtm_range(choices[i]);
        if (lo..=hi).contains(&current) || (zero && current == 0) {
            choices[i] = current;
            i += 1;
            continue;
        }
        // A new run: narrow the allowed set over the positions ahead while it stays
        // non-empty, then take a value from it.
        let (mut lo, mut hi, mut zero) = (lo, hi, zero);
        let mut j = i + 1;
        while j < n {
            let (l, h, z) = dtm_range(choices[j]);
            let (nl, nh, nz) = (lo.max(l), hi.min(h), zero && z);
            if nl > nh && !nz {
                break;
            }
            (lo, hi, zero) = (nl, nh, nz);
            j += 1;
        }
        current = if lo <= hi { lo } else { 0 };
        for c in &mut choices[i..j] {
            *c = current;
        }
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::values::{dtm_choice, wdl_choices, DRAW, DTM_ANY, LOSS, WDL_ANY, WIN};
    use crate::value::{Dtm, Wdl5};

    #[test]
    fn wdl_fill_respects_choices_and_merges_runs() {
        let lost = wdl_choices(Wdl5::Loss, false);
        let drawn_by_capture = wdl_choices(Wdl5::Draw, true);
        let drawn = wdl_choices(Wdl5::Draw, false);
        let input: Vec<u16> = [lost, lost, WDL_ANY, lost, drawn_by_capture, lost, lost]
            .into_iter()
            .chain([drawn, WDL_ANY, drawn])
            .collect();
        // Cheap conversions: one run of "loss or a conversion" then the draws.
        let mut cheap = input.clone();
        fill_wdl(&mut cheap, 1);
        let l = (LOSS + 5) as u16;
        assert_eq!(cheap[..7], [l; 7]);
        assert_eq!(cheap[7..], [DRAW as u16; 3]);
        // Dear conversions: exact losses around the one drawn by a capture.
        let mut dear = input.clone();
        fill_wdl(&mut dear, 1000);
        assert_eq!(dear[0], LOSS as u16);
        for (c, &allowed) in dear.iter().zip(&input) {
            assert!(allowed >> c & 1 == 1);
        }
        let mut wins = vec![wdl_choices(Wdl5::Win, false); 100_000];
        fill_wdl(&mut wins, 16);
        assert!(wins.iter().all(|&c| c == WIN as u16));
    }

    #[test]
    fn dtm_fill_respects_choices() {
        let input = vec![
            dtm_choice(Dtm::Win(5), false),
            DTM_ANY,
            dtm_choice(Dtm::Win(7), true),
            dtm_choice(Dtm::Win(3), false),
            dtm_choice(Dtm::Win(9), true),
            dtm_choice(Dtm::Loss(6), true),
        ];
        let mut out = input.clone();
        fill_dtm(&mut out);
        assert_eq!(out, [3, 3, 4, 2, 0, 0]);
        for (&o, &c) in out.iter().zip(&input) {
            let (lo, hi, zero) = dtm_range(c);
            assert!((lo..=hi).contains(&o) || (zero && o == 0));
        }
    }
}
