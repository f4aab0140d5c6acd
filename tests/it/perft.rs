//! The move generator against published perft figures (chessprogramming.org's standard set).

use retrobook::chess::{perft, Position};

fn check(fen: &str, depth: u32, expected: u64) {
    let pos: Position = fen.parse().expect("test FEN parses");
    assert_eq!(perft(&pos, depth), expected, "perft({depth}) of {fen}");
}

#[test]
fn start_position_depth_5() {
    check(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        5,
        4_865_609,
    );
}

#[test]
fn kiwipete_depth_4() {
    check(
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -",
        4,
        4_085_603,
    );
}

#[test]
fn endgame_position_3_depth_6() {
    check("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -", 6, 11_030_083);
}

#[test]
fn position_4_depth_5() {
    check(
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        5,
        15_833_292,
    );
}

#[test]
fn position_4_mirrored_depth_4() {
    check(
        "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
        4,
        422_333,
    );
}

#[test]
fn position_5_depth_3() {
    check(
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        3,
        62_379,
    );
}

#[test]
fn moves_to_a_square_equal_the_filtered_legal_moves() {
    use retrobook::chess::{MoveKind, MoveList, Position, Role, Square};
    // Positions along pseudo-random walks from the published perft positions.
    let starts = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    ];
    let mut seed = 99u64;
    let mut checked = 0;
    for fen in starts {
        let mut pos: Position = fen.parse().unwrap();
        for _ in 0..60 {
            let mut all = MoveList::new();
            pos.legal_moves(&mut all);
            if all.is_empty() {
                break;
            }
            for role in Role::ALL {
                for to in Square::all() {
                    let mut got = MoveList::new();
                    pos.legal_moves_to(role, to, &mut got);
                    let want: Vec<_> = all
                        .as_slice()
                        .iter()
                        .filter(|m| {
                            m.role == role
                                && m.to == to
                                && !matches!(m.kind, MoveKind::CastleKing | MoveKind::CastleQueen)
                        })
                        .collect();
                    let got: Vec<_> = got.as_slice().iter().collect();
                    assert_eq!(got.len(), want.len(), "{pos} {role:?} {to}");
                    assert!(want.iter().all(|m| got.contains(m)), "{pos} {role:?} {to}");
                    checked += 1;
                }
            }
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            let m = all.as_slice()[(seed >> 33) as usize % all.len()];
            pos = pos.play(&m);
        }
    }
    assert!(checked > 50_000);
}

/// Perft whose last ply counts through `legal_moves_counting_quiet`, which must list
/// exactly the legal moves other than the quiet moves of pieces and king, count those of
/// knights, bishops, rooks and queens, and give the king's (castling apart) as its squares.
fn perft_counting_quiet(pos: &retrobook::chess::Position, depth: u32) -> u64 {
    use retrobook::chess::{MoveKind, MoveList, Role};
    let mut all = MoveList::new();
    pos.legal_moves(&mut all);
    if depth > 1 {
        return all
            .as_slice()
            .iter()
            .map(|m| perft_counting_quiet(&pos.play(m), depth - 1))
            .sum();
    }
    let mut listed = MoveList::new();
    let (counted, king_quiet) = pos.legal_moves_counting_quiet(&mut listed);
    // Castling is listed.
    let quiet_king = |m: &&retrobook::chess::Move| {
        m.role == Role::King && !m.is_conversion() && m.kind == MoveKind::Normal
    };
    let want: Vec<_> = all
        .as_slice()
        .iter()
        .filter(|m| m.is_conversion() || matches!(m.role, Role::Pawn | Role::King))
        .filter(|m| !quiet_king(m))
        .collect();
    assert_eq!(listed.len(), want.len(), "{pos}");
    assert!(want.iter().all(|m| listed.as_slice().contains(m)), "{pos}");
    let king_to: Vec<_> = all
        .as_slice()
        .iter()
        .filter(quiet_king)
        .map(|m| m.to)
        .collect();
    assert_eq!(king_to, king_quiet.into_iter().collect::<Vec<_>>(), "{pos}");
    listed.len() as u64 + u64::from(counted) + king_to.len() as u64
}

#[test]
fn counted_quiet_moves_give_the_published_figures() {
    for (fen, depth, expected) in [
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -",
            3,
            97_862,
        ),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -", 5, 674_624),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            4,
            422_333,
        ),
        (
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            3,
            62_379,
        ),
        (
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            3,
            89_890,
        ),
    ] {
        let pos: Position = fen.parse().expect("test FEN parses");
        assert_eq!(perft_counting_quiet(&pos, depth), expected, "{fen}");
    }
}
