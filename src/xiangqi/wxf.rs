//! Moves as players write them: WXF notation, in Chinese characters as game records print it
//! (`炮二平五`, `馬８進７`, `前車進一`) and in its ASCII form (`C2=5`, `H8+7`, `R+-1`).
//!
//! A move names the piece, where it stands, which way it goes and a number. Files are
//! counted 1-9 from the mover's right: Red's a-file is its 9 (`九`), Black's a-file its 1
//! (`１`). Going forward (`進`, `+`), back (`退`, `-`) or sideways (`平`, `=` or `.`); the
//! number is the file arrived on for a sideways move and for the pieces that move
//! diagonally (advisor, elephant, horse), else the ranks travelled.
//!
//! Two or more like pieces on one file are told apart by their place from the front
//! instead of the file: `前`/`後` (two), `前`/`中`/`後` (three), in ASCII `+`, `.`, `-`
//! after the letter (`C+=5`). Pieces of one kind on several such files (soldiers, mostly)
//! are numbered right to left, then front to back: `一兵`, `二兵`..., in ASCII `Pa`, `Pb`....
//! Advisors and elephants always name their file: their moves tell them apart.
//!
//! Reading is lenient where records are: traditional or simplified characters, either
//! side's piece names and digits, ASCII or full-width digits, `.` or `=`, the place mark
//! before or after the letter, and a file given where the strict form would use a place, as
//! long as one legal move fits.

use super::moves::Move;
use super::position::{Position, Role, Square};
use crate::side::Side;

/// How a move is written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Script {
    /// Chinese characters, traditional, as the master archive prints them (`炮二平五`).
    Chinese,
    /// The ASCII form (`C2=5`).
    Ascii,
}

/// Why a WXF move cannot be read or played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WxfError {
    /// The text is not a WXF move.
    #[error("{0:?} is not a WXF move")]
    Syntax(String),
    /// No legal move fits the text.
    #[error("{0:?}: no legal move fits")]
    NoMove(String),
    /// Several legal moves fit the text.
    #[error("{0:?}: several legal moves fit")]
    Ambiguous(String),
}

/// Where a move says its piece stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Origin {
    /// On this file, in the mover's numbering.
    File(i8),
    /// The front piece of its file's group.
    Front,
    /// The middle one of three.
    Middle,
    /// The rear piece.
    Rear,
    /// The n-th (from 0) of all grouped pieces, right to left then front to back.
    Nth(usize),
}

/// Which way the piece goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Way {
    Forward,
    Back,
    Sideways,
}

/// A move as written, before the position is consulted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Written {
    role: Role,
    origin: Origin,
    way: Way,
    number: i8,
}

const RED_DIGITS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
const BLACK_DIGITS: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];

/// The number 1-9 a digit character stands for: Chinese numeral, full-width or ASCII.
fn digit(c: char) -> Option<i8> {
    let from = |table: &[char; 9]| table.iter().position(|&d| d == c);
    from(&RED_DIGITS)
        .or_else(|| from(&BLACK_DIGITS))
        .or_else(|| {
            c.to_digit(10)
                .filter(|d| (1..=9).contains(d))
                .map(|d| d as usize - 1)
        })
        .map(|i| i as i8 + 1)
}

/// The role a Chinese piece name stands for (either side, traditional or simplified).
fn chinese_role(c: char) -> Option<Role> {
    Some(match c {
        '帥' | '帅' | '將' | '将' => Role::King,
        '仕' | '士' => Role::Advisor,
        '相' | '象' => Role::Elephant,
        '馬' | '马' | '傌' => Role::Horse,
        '車' | '车' | '俥' => Role::Chariot,
        '炮' | '砲' => Role::Cannon,
        '兵' | '卒' => Role::Soldier,
        _ => return None,
    })
}

/// The Chinese name of `color`'s piece of `role`, as the archive writes it.
fn chinese_name(color: Side, role: Role) -> char {
    match (role, color) {
        (Role::King, Side::White) => '帥',
        (Role::King, Side::Black) => '將',
        (Role::Advisor, Side::White) => '仕',
        (Role::Advisor, Side::Black) => '士',
        (Role::Elephant, Side::White) => '相',
        (Role::Elephant, Side::Black) => '象',
        (Role::Horse, _) => '馬',
        (Role::Chariot, _) => '車',
        (Role::Cannon, _) => '炮',
        (Role::Soldier, Side::White) => '兵',
        (Role::Soldier, Side::Black) => '卒',
    }
}

/// The role of an ASCII letter (WXF's E and H, and FEN's B and N).
fn ascii_role(c: char) -> Option<Role> {
    Role::from_letter(c)
}

/// The WXF letter of a role.
fn ascii_name(role: Role) -> char {
    match role {
        Role::Elephant => 'E',
        Role::Horse => 'H',
        r => r.letter(),
    }
}

fn way_of(c: char) -> Option<Way> {
    Some(match c {
        '進' | '进' | '+' => Way::Forward,
        '退' | '-' => Way::Back,
        '平' | '=' | '.' => Way::Sideways,
        _ => return None,
    })
}

/// A place mark: `前`/`中`/`後` or `+`/`.`/`-`.
fn place_of(c: char) -> Option<Origin> {
    Some(match c {
        '前' | '+' => Origin::Front,
        '中' | '.' => Origin::Middle,
        '後' | '后' | '-' => Origin::Rear,
        _ => return None,
    })
}

impl Written {
    /// Reads the four signs of a WXF move.
    fn parse(text: &str) -> Option<Written> {
        let c: Vec<char> = text.trim().chars().collect();
        let &[a, b, way, number] = c.as_slice() else {
            return None;
        };
        let role = |c: char| chinese_role(c).or_else(|| ascii_role(c));
        let (role, origin) = if let Some(r) = role(a) {
            // Piece first: its file, a place mark, or a grouped piece's letter (`Pb`).
            let origin = match (digit(b), place_of(b)) {
                (Some(d), _) => Origin::File(d),
                (None, Some(p)) => p,
                _ if b.is_ascii_lowercase() && b <= 'e' => Origin::Nth((b as u8 - b'a') as usize),
                _ => return None,
            };
            (r, origin)
        } else {
            // A place mark or a count first, then the piece.
            let origin = place_of(a).or_else(|| digit(a).map(|d| Origin::Nth(d as usize - 1)))?;
            (role(b)?, origin)
        };
        Some(Written {
            role,
            origin,
            way: way_of(way)?,
            number: digit(number)?,
        })
    }
}

/// The file of `sq` in `color`'s numbering: 1-9 from its right.
fn own_file(sq: Square, color: Side) -> i8 {
    match color {
        Side::White => 9 - sq.file(),
        Side::Black => sq.file() + 1,
    }
}

/// Ranks from `from` to `to` in `color`'s forward direction.
fn advance(from: Square, to: Square, color: Side) -> i8 {
    match color {
        Side::White => to.rank() - from.rank(),
        Side::Black => from.rank() - to.rank(),
    }
}

/// Whether the piece moves diagonally, so that its number is the file it arrives on.
fn diagonal(role: Role) -> bool {
    matches!(role, Role::Advisor | Role::Elephant | Role::Horse)
}

impl Position {
    /// `color`'s pieces of `role` that share a file with another, right to left (in the
    /// mover's numbering) and front to back.
    fn grouped(&self, color: Side, role: Role) -> Vec<Square> {
        let squares: Vec<Square> = self.squares_of(color, role).collect();
        let shares = |s: &Square| squares.iter().filter(|t| t.file() == s.file()).count() >= 2;
        let mut kept: Vec<Square> = squares.iter().copied().filter(shares).collect();
        // Front first: the higher rank for Red, the lower for Black.
        let depth = |s: Square| match color {
            Side::White => -s.rank(),
            Side::Black => s.rank(),
        };
        kept.sort_by_key(|&s| (own_file(s, color), depth(s)));
        kept
    }

    /// Whether `m` fits `w`.
    fn fits(&self, m: &Move, w: &Written, grouped: &[Square]) -> bool {
        let color = self.turn();
        if self.at(m.from).map(|p| p.role) != Some(w.role) {
            return false;
        }
        let file_mates: Vec<Square> = grouped
            .iter()
            .copied()
            .filter(|s| s.file() == m.from.file())
            .collect();
        let place = file_mates.iter().position(|&s| s == m.from);
        let origin = match w.origin {
            Origin::File(f) => own_file(m.from, color) == f,
            Origin::Front => place == Some(0),
            Origin::Middle => file_mates.len() == 3 && place == Some(1),
            Origin::Rear => place.is_some() && place == file_mates.len().checked_sub(1),
            Origin::Nth(n) => grouped.get(n) == Some(&m.from),
        };
        let ahead = advance(m.from, m.to, color);
        let way = match w.way {
            Way::Forward => ahead > 0,
            Way::Back => ahead < 0,
            Way::Sideways => ahead == 0,
        };
        let number = if w.way == Way::Sideways || diagonal(w.role) {
            own_file(m.to, color)
        } else {
            ahead.abs()
        };
        origin && way && number == w.number
    }

    /// The legal move `text` (WXF, Chinese or ASCII) names.
    pub fn parse_wxf(&self, text: &str) -> Result<Move, WxfError> {
        let w = Written::parse(text).ok_or_else(|| WxfError::Syntax(text.to_string()))?;
        let grouped = self.grouped(self.turn(), w.role);
        let mut fitting = self
            .legal_moves_of(w.role)
            .into_iter()
            .filter(|m| self.fits(m, &w, &grouped));
        match (fitting.next(), fitting.next()) {
            (Some(m), None) => Ok(m),
            (None, _) => Err(WxfError::NoMove(text.to_string())),
            (Some(_), Some(_)) => Err(WxfError::Ambiguous(text.to_string())),
        }
    }

    /// The legal move `text` names, in WXF or in UCCI coordinates (`h2e2`).
    pub fn parse_move(&self, text: &str) -> Result<Move, WxfError> {
        match text.parse::<Move>() {
            Ok(m) if self.legal_moves().contains(&m) => Ok(m),
            Ok(_) => Err(WxfError::NoMove(text.to_string())),
            Err(_) => self.parse_wxf(text),
        }
    }

    /// `m` (legal here) in WXF notation.
    pub fn wxf(&self, m: &Move, script: Script) -> String {
        let color = self.turn();
        let role = self.at(m.from).map_or(Role::King, |p| p.role);
        let grouped = match diagonal(role) && role != Role::Horse {
            true => Vec::new(),
            false => self.grouped(color, role),
        };
        let on_file = grouped.iter().filter(|s| s.file() == m.from.file()).count();
        let group_files = grouped.len()
            - grouped
                .windows(2)
                .filter(|w| w[0].file() == w[1].file())
                .count();
        let origin = match grouped.iter().position(|&s| s == m.from) {
            None => Origin::File(own_file(m.from, color)),
            Some(n) if group_files > 1 || on_file > 3 => Origin::Nth(n),
            Some(n) => {
                let place = grouped[..n]
                    .iter()
                    .filter(|s| s.file() == m.from.file())
                    .count();
                match (place, on_file) {
                    (0, _) => Origin::Front,
                    (1, 3) => Origin::Middle,
                    _ => Origin::Rear,
                }
            }
        };
        let ahead = advance(m.from, m.to, color);
        let way = match ahead {
            0 => Way::Sideways,
            a if a > 0 => Way::Forward,
            _ => Way::Back,
        };
        let number = if way == Way::Sideways || diagonal(role) {
            own_file(m.to, color)
        } else {
            ahead.abs()
        };
        let w = Written {
            role,
            origin,
            way,
            number,
        };
        match script {
            Script::Chinese => w.chinese(color),
            Script::Ascii => w.ascii(),
        }
    }
}

impl Written {
    fn chinese(&self, color: Side) -> String {
        let digits = match color {
            Side::White => &RED_DIGITS,
            Side::Black => &BLACK_DIGITS,
        };
        let d = |n: i8| digits[n as usize - 1];
        let name = chinese_name(color, self.role);
        let way = match self.way {
            Way::Forward => '進',
            Way::Back => '退',
            Way::Sideways => '平',
        };
        let head = match self.origin {
            Origin::File(f) => [name, d(f)],
            Origin::Front => ['前', name],
            Origin::Middle => ['中', name],
            Origin::Rear => ['後', name],
            Origin::Nth(n) => [RED_DIGITS[n], name],
        };
        [head[0], head[1], way, d(self.number)].iter().collect()
    }

    fn ascii(&self) -> String {
        let origin = match self.origin {
            Origin::File(f) => (b'0' + f as u8) as char,
            Origin::Front => '+',
            Origin::Middle => '.',
            Origin::Rear => '-',
            Origin::Nth(n) => (b'a' + n as u8) as char,
        };
        let way = match self.way {
            Way::Forward => '+',
            Way::Back => '-',
            Way::Sideways => '=',
        };
        format!("{}{origin}{way}{}", ascii_name(self.role), self.number)
    }
}

#[cfg(test)]
mod tests {
    use super::super::moves::along_random_games;
    use super::*;

    fn after(fen: &str, moves: &[&str]) -> Position {
        let mut pos = Position::from_fen(fen).unwrap();
        for m in moves {
            pos = pos.play(&pos.parse_move(m).unwrap());
        }
        pos
    }

    const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w";

    /// The opening of the archive's first game, each move in both scripts and UCCI.
    #[test]
    fn reads_and_writes_a_game_record() {
        let line = [
            ("炮二平五", "C2=5", "h2e2"),
            ("馬８進７", "H8+7", "h9g7"),
            ("馬二進三", "H2+3", "h0g2"),
            ("車９平８", "R9=8", "i9h9"),
            ("車一平二", "R1=2", "i0h0"),
            ("卒７進１", "P7+1", "g6g5"),
            ("車二進六", "R2+6", "h0h6"),
            ("馬２進３", "H2+3", "b9c7"),
            ("炮八平六", "C8=6", "b2d2"),
            ("車１平２", "R1=2", "a9b9"),
            ("馬八進七", "H8+7", "b0c2"),
            ("炮２平１", "C2=1", "b7a7"),
            ("兵五進一", "P5+1", "e3e4"),
            ("炮８退１", "C8-1", "h7h8"),
        ];
        let mut pos = Position::from_fen(START).unwrap();
        for (chinese, ascii, ucci) in line {
            let m = pos.parse_move(ucci).unwrap();
            assert_eq!(pos.parse_wxf(chinese), Ok(m), "{chinese}");
            assert_eq!(pos.parse_wxf(ascii), Ok(m), "{ascii}");
            assert_eq!(pos.wxf(&m, Script::Chinese), chinese);
            assert_eq!(pos.wxf(&m, Script::Ascii), ascii);
            pos = pos.play(&m);
        }
        // Simplified characters and the other side's digits read the same.
        let pos = Position::from_fen(START).unwrap();
        assert_eq!(pos.parse_wxf("马二进三"), pos.parse_move("h0g2"));
        assert_eq!(pos.parse_wxf("馬2進3"), pos.parse_move("h0g2"));
    }

    #[test]
    fn tells_pieces_on_one_file_apart_by_place() {
        // Red's other cannon on h4, before the one on h2.
        let pos = after(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/7C1/P1P1P1P1P/7C1/9/RNBAKABNR w",
            &[],
        );
        let front = pos.parse_move("h4e4").unwrap();
        let rear = pos.parse_move("h2e2").unwrap();
        assert_eq!(pos.parse_wxf("前炮平五"), Ok(front));
        assert_eq!(pos.parse_wxf("後炮平五"), Ok(rear));
        assert_eq!(pos.parse_wxf("后炮平五"), Ok(rear));
        assert_eq!(pos.parse_wxf("C+=5"), Ok(front));
        assert_eq!(pos.parse_wxf("-C.5"), Ok(rear));
        assert_eq!(pos.wxf(&front, Script::Chinese), "前炮平五");
        assert_eq!(pos.wxf(&rear, Script::Ascii), "C-=5");
        assert_eq!(
            pos.parse_wxf("炮二平五"),
            Err(WxfError::Ambiguous("炮二平五".into()))
        );
        assert_eq!(
            pos.parse_wxf("炮二平十"),
            Err(WxfError::Syntax("炮二平十".into()))
        );
        assert_eq!(
            pos.parse_wxf("炮三平五"),
            Err(WxfError::NoMove("炮三平五".into()))
        );
        // Three soldiers on one file: front, middle, rear; on two files: numbered.
        let three = Position::from_fen("3k5/9/9/4P4/4P4/4P4/9/9/9/4K4 w").unwrap();
        let middle = three.parse_move("e5d5").unwrap();
        assert_eq!(three.wxf(&middle, Script::Chinese), "中兵平六");
        assert_eq!(three.wxf(&middle, Script::Ascii), "P.=6");
        let two_files = Position::from_fen("3k5/9/9/2P1P4/2P1P4/9/9/9/9/4K4 w").unwrap();
        let m = two_files.parse_move("c5b5").unwrap();
        // Right to left: the e-file (Red's 5) first, then the c-file: c6, c5 are 三, 四.
        assert_eq!(two_files.wxf(&m, Script::Chinese), "四兵平八");
        assert_eq!(two_files.wxf(&m, Script::Ascii), "Pd=8");
        assert_eq!(two_files.parse_wxf("四兵平八"), Ok(m));
    }

    /// Every legal move of positions along pseudo-random games is written so that it reads
    /// back as itself, in both scripts, and no other move reads as it.
    #[test]
    fn every_move_reads_back_as_written() {
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        let mut checked = 0;
        along_random_games(START, 40, 120, &mut next, |pos, moves| {
            for m in moves {
                for script in [Script::Chinese, Script::Ascii] {
                    let text = pos.wxf(m, script);
                    assert_eq!(pos.parse_wxf(&text), Ok(*m), "{text} in {}", pos.to_fen());
                    checked += 1;
                }
            }
        });
        assert!(checked > 100_000, "{checked}");
    }
}
