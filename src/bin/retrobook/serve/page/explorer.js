"use strict";
// The retrobook explorer: a board, what the opening book and the endgame tables say of its
// position and of each move, and the line played (back and forth, as FEN and PGN). All of it
// comes from the server's JSON API (health, position, book, standard, standard/mainline,
// xiangqi); answers are kept by URL, so moving through a line asks the server nothing twice.
// Chess and Chinese chess share the page: the game is the FEN's (ten ranks: Chinese chess).

/** What the page needs of each game: its start, its board, its names. */
const GAMES = {
  chess: {
    initial: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    files: "abcdefgh",
    ranks: 8,
    firstRank: 1,
    position: "position",
    sides: { w: "White", b: "Black" },
    pieces: { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" },
    name: "chess",
  },
  xiangqi: {
    initial: "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    files: "abcdefghi",
    ranks: 10,
    firstRank: 0,
    position: "position?game=xiangqi",
    sides: { w: "Red", b: "Black" },
    pieces: {
      k: "king", a: "advisor", b: "elephant", n: "horse", r: "chariot", c: "cannon", p: "soldier",
    },
    name: "Chinese chess",
  },
};
/** The letter on a Chinese chess piece: WXF's, as the moves are written (E the elephant, H
 * the horse), drawn by the page with no font of Chinese characters needed. */
const XIANGQI_LETTER = { k: "K", a: "A", b: "E", n: "H", r: "R", c: "C", p: "P" };
/** A table category, as shown. */
const CATEGORY = {
  win: "Win",
  "cursed-win": "Cursed win",
  draw: "Draw",
  "blessed-loss": "Blessed loss",
  loss: "Loss",
};
/** A category seen by the other side. */
const OTHER_SIDE = {
  win: "loss",
  "cursed-win": "blessed-loss",
  draw: "draw",
  "blessed-loss": "cursed-win",
  loss: "win",
};
/** Answers kept at most (the oldest go first). */
const MAX_ANSWERS = 2000;
const DASH = "\u2014";

const $ = (id) => document.getElementById(id);

/** A new element: `props` are its attributes (`text` its text); `children` are appended. */
function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value == null || value === false) continue;
    if (name === "text") e.textContent = value;
    else e.setAttribute(name, value === true ? "" : value);
  }
  e.append(...children);
  return e;
}

/** A piece's picture (one of the page's own drawings): `code` is "wK", "bN", ...; a Chinese
 * chess piece is a disc with its character. */
function pieceSvg(code, game = "chess") {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", "0 0 45 45");
  svg.setAttribute("aria-hidden", "true");
  svg.dataset.piece = code;
  if (game === "xiangqi") {
    svg.setAttribute("class", `piece xq ${code[0]}`);
    const disc = document.createElementNS(ns, "circle");
    const ring = document.createElementNS(ns, "circle");
    for (const [c, r] of [[disc, 20.5], [ring, 17]]) {
      c.setAttribute("cx", "22.5");
      c.setAttribute("cy", "22.5");
      c.setAttribute("r", r);
    }
    ring.setAttribute("class", "ring");
    const text = document.createElementNS(ns, "text");
    text.setAttribute("x", "22.5");
    text.setAttribute("y", "23.5");
    text.textContent = XIANGQI_LETTER[code[1].toLowerCase()];
    svg.append(disc, ring, text);
    return svg;
  }
  svg.setAttribute("class", `piece ${code[0]}`);
  const use = document.createElementNS(ns, "use");
  use.setAttribute("href", `#piece-${code[1].toLowerCase()}`);
  svg.append(use);
  return svg;
}

/** A count as the page writes it: "1,616". */
const count = (n) => n.toLocaleString("en-US");

/** A score (0..1) as a percentage with one decimal; "*" marks a path-dependent value. */
const score = (x, pathDependent) => `${(100 * x).toFixed(1)}%${pathDependent ? "*" : ""}`;

/** The share of `part` in `whole`, rounded: "43%" ("<1%" for a small part, not none). */
function percent(part, whole) {
  const p = whole ? Math.round((100 * part) / whole) : 0;
  return p === 0 && part > 0 ? "<1%" : `${p}%`;
}

/** A signed number with a true minus sign. */
const signed = (n) => (n < 0 ? `\u2212${-n}` : String(n));

/** Mate in moves for a signed DTM in plies: "mate in 8", "mated in 7" ("" for a draw). */
function mateIn(dtm) {
  if (dtm == null) return "";
  const moves = Math.ceil(Math.abs(dtm) / 2);
  return dtm > 0 ? `mate in ${moves}` : `mated in ${moves}`;
}

// ---- The server ----

const answers = new Map();

/**
 * The server's answer at `path` for `fen`: {ok, status, body}, the body being the JSON
 * answer (an {error} when not ok). Never rejects: a server out of reach is an answer too
 * (one not kept, so that the next request asks again).
 */
function ask(path, fen) {
  const url = `${path}${path.includes("?") ? "&" : "?"}fen=${encodeURIComponent(fen)}`;
  let answer = answers.get(url);
  if (!answer) {
    answer = fetch(url)
      .then(async (r) => {
        let body;
        try {
          body = await r.json();
        } catch {
          body = { error: `${r.status} ${r.statusText}` };
        }
        return { ok: r.ok, status: r.status, body };
      })
      .catch((e) => {
        answers.delete(url);
        const error = `the server did not answer (${e.message})`;
        return { ok: false, status: 0, body: { error } };
      });
    if (answers.size >= MAX_ANSWERS) answers.delete(answers.keys().next().value);
    answers.set(url, answer);
  }
  return answer;
}

// ---- State ----

const state = {
  /** The server's /health, once known. */
  health: null,
  /** The line: its start, then one node per move ({fen, san, uci}). */
  line: [{ fen: GAMES.chess.initial, san: null, uci: null }],
  /** The node shown. */
  at: 0,
  flipped: false,
  /** The /position answer for the position shown, once in. */
  position: null,
  /** The square of the piece picked on the board, if any. */
  selected: null,
  /** Counts the positions shown, so that a late answer for an earlier one is dropped. */
  shown: 0,
  /** What the book's moves are sorted by: "games", "score" or "goodness". */
  bookSort: "games",
  /** The book's answer for the position shown, to sort again. */
  book: null,
};

/** The book's columns to sort by, as the caption names them. */
const SORTS = {
  games: "games",
  score: "score",
  goodness: "goodness (the score's 95% lower bound)",
};

const current = () => state.line[state.at];
const sideToMove = (fen) => fen.split(/\s+/)[1] || "w";
/** The game of a FEN: Chinese chess has ten ranks. */
const gameOf = (fen) => (fen.trim().split(/\s+/)[0].split("/").length === 10 ? "xiangqi" : "chess");
/** The game of the position shown, and what the page knows of it. */
const gameName = () => gameOf(current().fen);
const game = () => GAMES[gameName()];
const bookServed = () => Boolean(state.health && state.health.book_game === gameName());
/** A move's name as the page writes it: SAN, or WXF notation in Latin letters. */
const moveName = (m) => m.san ?? m.wxf_ascii;

/** The pieces of a FEN by square ("e4" -> "wP"), on the board of its game. */
function placement(fen) {
  const g = GAMES[gameOf(fen)];
  const pieces = new Map();
  const rows = fen.trim().split(/\s+/)[0].split("/");
  rows.forEach((row, i) => {
    let file = 0;
    for (const c of row) {
      if (c >= "1" && c <= "9") {
        file += Number(c);
      } else {
        const square = g.files[file] + (g.firstRank + g.ranks - 1 - i);
        if (file < g.files.length) pieces.set(square, (c < "a" ? "w" : "b") + c.toUpperCase());
        file += 1;
      }
    }
  });
  return pieces;
}

// ---- Showing a position ----

/** Shows the node `state.at`: the board at once, then the server's answers. */
async function show() {
  const number = ++state.shown;
  const { fen } = current();
  const app = $("app");
  app.dataset.state = "loading";
  state.position = null;
  select(null);
  drawBoard();
  drawLine();
  $("fen").value = fen;
  $("fen").removeAttribute("aria-invalid");
  $("fen-error").textContent = "";
  const health = state.health;
  const pieces = placement(fen).size;
  const xiangqi = gameName() === "xiangqi";
  const [count, most] = xiangqi
    ? [health && health.xiangqi_tables, health && health.xiangqi_max_pieces]
    : [health && health.tables, health && health.max_pieces];
  const inTables = Boolean(count > 0 && pieces <= most);
  $("game").value = gameName();
  const [position, book, table, mainline] = await Promise.all([
    ask(game().position, fen),
    bookServed() ? ask("book", fen) : null,
    inTables ? ask(xiangqi ? "xiangqi" : "standard", fen) : null,
    inTables && !xiangqi ? ask("standard/mainline?line=dtm", fen) : null,
  ]);
  if (number !== state.shown) return;
  state.position = position.ok ? position.body : null;
  drawTurn(position, table);
  drawBoard();
  drawBook(book);
  if (xiangqi) drawXiangqiTables(table, pieces);
  else drawTables(table, mainline, pieces);
  history.replaceState(null, "", `#${fen.replaceAll(" ", "_")}`);
  app.dataset.fen = fen;
  app.dataset.state = "ready";
}

/** The board: pieces, coordinates, the last move, check, the piece picked and its moves. */
function drawBoard() {
  const board = $("board");
  const { fen, uci } = current();
  const g = game();
  const [cols, rows] = [g.files.length, g.ranks];
  const xiangqi = gameName() === "xiangqi";
  const pieces = placement(fen);
  const turn = sideToMove(fen);
  const check = state.position && state.position.check;
  const targets = new Set();
  if (state.selected && state.position) {
    for (const m of state.position.moves) {
      if (m.uci.startsWith(state.selected)) targets.add(m.uci.slice(2, 4));
    }
  }
  const squares = [];
  for (let row = 0; row < rows; row++) {
    for (let col = 0; col < cols; col++) {
      const file = state.flipped ? cols - 1 - col : col;
      const rank = g.firstRank + (state.flipped ? row : rows - 1 - row);
      const name = g.files[file] + rank;
      const piece = pieces.get(name);
      const classes = ["sq", xiangqi ? "pt" : (file + rank) % 2 ? "dark" : "light"];
      if (uci && (uci.slice(0, 2) === name || uci.slice(2, 4) === name)) classes.push("last");
      if (check && piece === `${turn}K`) classes.push("check");
      if (state.selected === name) classes.push("selected");
      if (targets.has(name)) classes.push(piece ? "target capture" : "target");
      const square = el("div", { class: classes.join(" "), "data-square": name });
      if (col === 0) square.append(el("span", { class: "coord rank", text: String(rank) }));
      if (row === rows - 1) square.append(el("span", { class: "coord file", text: g.files[file] }));
      if (piece) square.append(pieceSvg(piece, gameName()));
      squares.push(square);
    }
  }
  board.closest(".board-wrap").classList.toggle("xiangqi", xiangqi);
  board.style.gridTemplate = `repeat(${rows}, 1fr) / repeat(${cols}, 1fr)`;
  board.setAttribute("aria-label", `${xiangqi ? "Chinese chess" : "Chess"} board`);
  board.replaceChildren(...squares);
  board.dataset.fen = fen;
  board.setAttribute("aria-label", describe(pieces, turn));
  drawArrow(null);
}

/** The position in words, for screen readers. */
function describe(pieces, turn) {
  const g = game();
  const of = (side) =>
    [...pieces]
      .filter(([, p]) => p[0] === side)
      .map(([square, p]) => `${g.pieces[p[1].toLowerCase()]} ${square}`)
      .join(", ") || "nothing";
  return `Board, ${g.sides[turn]} to move. ${g.sides.w}: ${of("w")}. Black: ${of("b")}.`;
}

/** An arrow on the board for the move `uci` (none for null). */
function drawArrow(uci) {
  const svg = $("arrows");
  const g = game();
  const [cols, rows] = [g.files.length, g.ranks];
  svg.setAttribute("viewBox", `0 0 ${cols} ${rows}`);
  svg.querySelectorAll("line").forEach((l) => l.remove());
  if (!uci) return;
  const centre = (square) => {
    const file = g.files.indexOf(square[0]);
    const up = Number(square[1]) - g.firstRank; // ranks from the first player's side
    return state.flipped ? [cols - 0.5 - file, up + 0.5] : [file + 0.5, rows - 0.5 - up];
  };
  const [x1, y1] = centre(uci.slice(0, 2));
  const [x2, y2] = centre(uci.slice(2, 4));
  const short = 0.3 / Math.hypot(x2 - x1, y2 - y1); // the head ends inside the square
  const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
  const ends = { x1, y1, x2: x2 - (x2 - x1) * short, y2: y2 - (y2 - y1) * short };
  for (const [name, value] of Object.entries(ends)) line.setAttribute(name, value);
  line.setAttribute("marker-end", "url(#arrowhead)");
  svg.append(line);
}

/** Who is to move, and whether the game is over. */
function drawTurn(position, table) {
  const turn = $("turn");
  turn.className = "";
  if (!position.ok) {
    turn.textContent = position.body.error;
    turn.className = "error";
    return;
  }
  const p = position.body;
  const sides = game().sides;
  const other = sides[p.turn === "w" ? "b" : "w"];
  let text = `${sides[p.turn]} to move${p.check ? ", in check" : ""}`;
  if (p.moves.length === 0 && gameName() === "xiangqi") {
    // A side without a move has lost in Chinese chess, in check or not.
    text = p.check ? `Checkmate: ${other} wins` : `No move left: ${other} wins`;
  } else if (p.moves.length === 0) {
    text = p.check ? `Checkmate: ${other} wins` : "Stalemate: a draw";
  } else if (table && table.ok && table.body.insufficient_material) {
    text += " (insufficient material: a draw)";
  }
  turn.textContent = text;
}

/** The PGN tags of the line: its start's, when that is not the initial position. */
function pgnTags() {
  const start = state.line[0].fen;
  const g = GAMES[gameOf(start)];
  const variant = g === GAMES.xiangqi ? '[Game "Chinese Chess"]\n' : "";
  const setup = start === g.initial ? "" : `[SetUp "1"]\n[FEN "${start}"]\n`;
  return variant || setup ? `${variant}${setup}\n` : "";
}

/** Calls `emit` with each word of the movetext of the moves `sans` played from `fen`: move
 * numbers, and moves with their index in `sans`. */
function movetext(fen, sans, emit) {
  const fields = fen.split(/\s+/);
  let turn = fields[1] || "w";
  let number = Number(fields[5]) || 1;
  sans.forEach((san, i) => {
    if (turn === "w") emit(`${number}.`);
    else if (i === 0) emit(`${number}...`);
    emit(san, i);
    if (turn === "b") number += 1;
    turn = turn === "w" ? "b" : "w";
  });
}

const lineSans = () => state.line.slice(1).map((node) => node.san);

/** The line as PGN: its tags, then its moves in SAN with move numbers, then "*". */
function pgnText() {
  const words = [];
  movetext(state.line[0].fen, lineSans(), (word) => words.push(word));
  words.push("*");
  return pgnTags() + words.join(" ");
}

/** The PGN box (its text is the line's PGN; each move in it is a button going there), and
 * the buttons that move through the line. */
function drawLine() {
  const box = $("pgn");
  const words = [];
  movetext(state.line[0].fen, lineSans(), (text, i) => {
    if (i == null) {
      words.push(el("span", { class: "number", text }));
    } else {
      const node = i + 1;
      const here = node === state.at ? "step" : null;
      const props = { type: "button", class: "ply", "data-node": node, "aria-current": here };
      words.push(el("button", { ...props, text }));
    }
  });
  words.push(el("span", { class: "result", text: "*" }));
  const tags = pgnTags();
  const items = tags ? [el("span", { class: "tags", text: tags })] : [];
  words.forEach((word, i) => items.push(...(i ? [" ", word] : [word])));
  box.replaceChildren(...items);
  // Keep the move shown in view, scrolling the box only (never the page).
  const here = box.querySelector("[aria-current]");
  if (here) {
    const above = here.offsetTop < box.scrollTop;
    const below = here.offsetTop + here.offsetHeight > box.scrollTop + box.clientHeight;
    if (above || below) box.scrollTop = here.offsetTop - box.clientHeight / 2;
  }
  $("first").disabled = $("back").disabled = state.at === 0;
  $("forward").disabled = $("last").disabled = state.at === state.line.length - 1;
}

/**
 * An engine's value of a book position (`book analyse`), for `side` to move: its score in
 * pawns or moves to mate, its best move and line in coordinates.
 */
function evalText(e, side) {
  const sign = (n) => (n > 0 ? "+" : n < 0 ? "−" : "");
  const shown = e.score.mate != null
    ? `mate in ${Math.abs(e.score.mate)} ${e.score.mate > 0 ? "for" : "against"} ${side}`
    : `${sign(e.score.cp)}${(Math.abs(e.score.cp) / 100).toFixed(2)} for ${side}`;
  return `${e.engine} at ${e.limit}: ${shown}; best ${e.best}, line ${e.line.join(" ")}.`;
}

/** The book's moves for the position shown. */
function drawBook(answer) {
  state.book = answer;
  const note = $("book-note");
  const table = $("book-moves");
  table.hidden = true;
  $("book-games").textContent = "";
  $("book-eval").textContent = "";
  note.className = "note";
  note.textContent = "";
  if (!answer) {
    const served = state.health && state.health.book_game;
    note.textContent = served
      ? `The book is a ${GAMES[served].name} book: this position is ${game().name}.`
      : "No book is loaded (the server's --book names one).";
    return;
  }
  if (!answer.ok) {
    note.textContent = answer.body.error;
    note.className = "note error";
    return;
  }
  const book = answer.body;
  const side = game().sides[sideToMove(current().fen)];
  $("book-games").textContent = `${count(book.games)} games`;
  if (book.moves.length === 0) {
    note.textContent = book.games
      ? "No moves from here in the book."
      : "This position is not in the book.";
    return;
  }
  if (book.value != null) {
    note.textContent = `Backed-up value: ${score(book.value, book.path_dependent)}`;
  }
  if (book.eval) $("book-eval").textContent = evalText(book.eval, side);
  const by = state.bookSort;
  const caption =
    `${side} to move: results and score for ${side}. Sorted by ${SORTS[by]}: ` +
    "choose a heading to sort by it, a move to play it.";
  $("book-caption").textContent = caption;
  for (const th of table.tHead.querySelectorAll("th[data-sort]")) {
    if (th.dataset.sort === by) th.setAttribute("aria-sort", "descending");
    else th.removeAttribute("aria-sort");
  }
  // Most first; on a tie, in the server's order (by goodness).
  const sorted = book.moves
    .map((m, i) => [m, i])
    .sort(([a, i], [b, j]) => b[by] - a[by] || i - j)
    .map(([m]) => m);
  const rows = sorted.map((m) => {
    const segments = [
      ["win", m.win, "wins"],
      ["draw", m.draw, "draws"],
      ["loss", m.loss, "losses"],
    ].map(([kind, n, words]) => {
      const share = m.games ? (100 * n) / m.games : 0;
      return el("span", {
        class: kind,
        "data-count": n,
        style: `width:${share}%`,
        title: `${count(n)} ${words} (${share.toFixed(1)}%)`,
        text: share >= 12 ? percent(n, m.games) : "",
      });
    });
    const results = `${m.win} wins, ${m.draw} draws, ${m.loss} losses`;
    const bar = el("div", { class: "bar", role: "img", "aria-label": results }, ...segments);
    const value = m.value == null ? null : `backed-up value ${score(m.value, m.path_dependent)}`;
    return el(
      "tr",
      { "data-uci": m.uci, title: value },
      el("th", { scope: "row" }, el("button", { type: "button", class: "san", text: moveName(m) })),
      el(
        "td",
        { class: "num games" },
        el("span", { class: "count", text: count(m.games) }),
        " ",
        el("span", { class: "share", text: percent(m.games, book.games) }),
      ),
      el("td", { class: "wdl" }, bar),
      el("td", { class: "num score", text: score(m.score) }),
      el("td", { class: "num goodness", text: score(m.goodness) }),
    );
  });
  table.tBodies[0].replaceChildren(...rows);
  table.dataset.fen = current().fen;
  table.hidden = false;
}

/** The FEN's halfmove clock (plies since the last capture or pawn move; 0 for EPD). */
function clockOf(fen) {
  const n = Number(fen.split(" ")[4]);
  return Number.isInteger(n) ? n : 0;
}

/** What the move count does to a decided position: the plies left, and a win or loss the
    rule draws, in words. */
function clockWords(tb, clock) {
  if (tb.dtz === 0 || tb.checkmate) return "";
  const plies = Math.abs(tb.dtz);
  const left = Math.max(0, 100 - clock);
  const drawn = tb.category === "cursed-win" || tb.category === "blessed-loss";
  const count = `${plies} ${plies === 1 ? "ply" : "plies"}`;
  if (!drawn) return `; ${count} to a capture, pawn move or mate, ${left} left by the move count`;
  if (plies > 100) return " (drawn by the 50-move rule)";
  return ` (drawn by the 50-move rule: ${count} to a capture, pawn move or mate, only ${left} left by the move count of ${clock})`;
}

/** A move's distance to zeroing for the side playing it, the move counted: a capture or
    pawn move (or a mate) is the reset itself; a quiet move is one ply more than the
    position it leads to. Its data (`m`) are those of that position, for the other side. */
function moveDtz(m) {
  if (m.dtz === 0) return 0;
  const sign = m.dtz < 0 ? 1 : -1;
  if (m.checkmate) return 1;
  if (m.zeroing) return sign * (Math.abs(m.dtz) > 100 ? 101 : 1);
  return sign * (Math.abs(m.dtz) + 1);
}

/** Empties the tables' panel for the position shown and says why nothing is there: no
 * tables of the game (`served.tables` 0: `served.none`), too many pieces (`served.most`), or
 * the server's error. Returns the answer's body when there is one to show. */
function tablesAnswer(answer, pieces, served) {
  const note = $("tb-note");
  $("tb-moves").hidden = true;
  $("tb-position").hidden = true;
  note.className = "note";
  note.textContent = "";
  $("tb-pieces").textContent = `${pieces} pieces`;
  if (!served.tables) {
    note.textContent = served.none;
    return null;
  }
  if (!answer) {
    note.textContent = served.most;
    return null;
  }
  if (!answer.ok) {
    note.textContent = answer.body.error;
    note.className = "note error";
    return null;
  }
  return answer.body;
}

/** The position's category as the badge shows it. */
function drawVerdict(category) {
  const verdict = $("verdict");
  verdict.textContent = CATEGORY[category] || category;
  verdict.className = `badge ${category}`;
  verdict.dataset.category = category;
}

/** Shows the position's signed distance to mate (`dtm`, null for a draw) and returns the
 * sentence it makes for `side`, the side to move. */
function drawDtm(dtm, side) {
  $("dtm").textContent = dtm == null ? DASH : signed(dtm);
  $("dtm").dataset.dtm = dtm ?? "";
  $("dtm-unit").textContent = dtm == null ? "" : Math.abs(dtm) === 1 ? "ply" : "plies";
  if (dtm == null) return "Drawn with best play";
  return `${side} ${dtm > 0 ? "mates" : "is mated"} in ${Math.ceil(Math.abs(dtm) / 2)}`;
}

/** A move's distance to mate for the side playing it: its data are those of the position it
 * leads to, for the other side, so the sign turns round and mate is one ply further. */
const moverDtm = (m) => (m.dtm == null ? null : m.dtm <= 0 ? 1 - m.dtm : -1 - m.dtm);

/** The tables' rows for `moves` of the position shown (`side` to move): each with its
 * result and distance to mate for the side playing it, and what `cells(m)` gives of the rest
 * (its name, its DTZ cell, the mate column, more attributes). */
function drawMoveRows(moves, side, cells) {
  if (moves.length === 0) return;
  const table = $("tb-moves");
  $("tb-caption").textContent = `Values for ${side}, playing each move. Choose a move to play it.`;
  const rows = moves.map((m) => {
    const category = OTHER_SIDE[m.category] || m.category;
    const dtm = moverDtm(m);
    const { name, dtz, mate, data } = cells(m);
    const badge = el("span", { class: `badge ${category}`, text: CATEGORY[category] || category });
    return el(
      "tr",
      { "data-uci": m.uci, "data-category": m.category, "data-dtm": m.dtm ?? "", ...data },
      el("th", { scope: "row" }, el("button", { type: "button", class: "san", text: name })),
      el("td", { class: "result" }, badge),
      el("td", { class: "num dtm", text: dtm == null ? DASH : signed(dtm) }),
      el("td", { class: "num dtz", text: dtz }),
      el("td", { class: "mate", text: mate }),
    );
  });
  table.tBodies[0].replaceChildren(...rows);
  table.dataset.fen = current().fen;
  table.hidden = false;
}

/** The tables' verdict on the position shown, and on each of its moves. */
function drawTables(answer, mainline, pieces) {
  const health = state.health;
  const served = {
    tables: health && health.tables,
    none: "No tables are loaded (the server's --tables names a folder of them).",
    most: `The tables hold positions of up to ${health && health.max_pieces} pieces.`,
  };
  const tb = tablesAnswer(answer, pieces, served);
  if (!tb) return;
  const side = GAMES.chess.sides[sideToMove(current().fen)];
  $("dtz").parentElement.hidden = false;
  drawVerdict(tb.category);
  let words = drawDtm(tb.dtm, side);
  if (tb.checkmate) words = `${side} is checkmated`;
  else if (tb.stalemate) words = "Stalemate";
  else if (tb.insufficient_material) words = "Insufficient material";
  $("dtz").textContent = tb.dtz === 0 ? DASH : signed(tb.dtz);
  $("dtz").dataset.dtz = tb.dtz;
  $("dtz-unit").textContent = tb.dtz === 0 ? "" : Math.abs(tb.dtz) === 1 ? "ply" : "plies";
  words += clockWords(tb, clockOf(current().fen));
  $("mate").textContent = words;
  drawMainline(mainline);
  $("tb-position").hidden = false;
  drawMoveRows(tb.moves, side, (m) => {
    const dtz = moveDtz(m);
    let mate = mateIn(moverDtm(m));
    if (m.checkmate) mate = "checkmate";
    else if (m.stalemate) mate = "stalemate";
    else if (m.insufficient_material) mate = "insufficient material";
    return { name: m.san, dtz: dtz === 0 ? DASH : signed(dtz), mate, data: { "data-dtz": m.dtz } };
  });
}

/** The Chinese chess tables' verdict on the position shown (`/xiangqi`), and on each of its
 * moves: win, draw or loss with the distance to mate, or a value the Asian rules decide. */
function drawXiangqiTables(answer, pieces) {
  const health = state.health;
  const served = {
    tables: health && health.xiangqi_tables,
    none: "No Chinese chess tables are loaded (the server's --tables folder has none).",
    most: `The Chinese chess tables hold positions of up to ${health && health.xiangqi_max_pieces} pieces.`,
  };
  const tb = tablesAnswer(answer, pieces, served);
  if (!tb) return;
  const side = GAMES.xiangqi.sides[sideToMove(current().fen)];
  drawVerdict(tb.category);
  $("dtz").textContent = "";
  $("dtz").parentElement.hidden = true; // no distance to zeroing in Chinese chess
  let words = drawDtm(tb.dtm, side);
  if (tb.rule) {
    const result = tb.category === "win" ? "wins" : "loses";
    words = `${side} ${result} by the ${tb.rule} rule`;
  }
  if (tb.path_dependent) words += " (the value depends on the path)";
  if (!tb.chases_judged) words += " (chases not judged here: the check rule's value)";
  if (tb.checkmate) words = `${side} is checkmated`;
  else if (tb.stalemate) words = `${side} has no move and loses`;
  $("mate").textContent = words;
  drawMainline(tb.mainline.map((uci, i) => ({ uci, san: tb.mainline_wxf[i] })));
  $("tb-position").hidden = false;
  drawMoveRows(tb.moves, side, (m) => {
    let mate = mateIn(moverDtm(m));
    if (m.checkmate) mate = "checkmate";
    else if (m.stalemate) mate = "no move left";
    else if (m.rule) mate = `${m.category === "loss" ? "wins" : "loses"} by the ${m.rule} rule`;
    return { name: m.wxf_ascii, dtz: DASH, mate, data: { title: m.wxf } };
  });
}

/** The line of best moves to mate (`steps`: {uci, san}), each move a button playing the
 * line up to it. */
function drawMainline(answer) {
  const steps = Array.isArray(answer) ? answer : answer && answer.ok && answer.body.mainline;
  const box = $("tb-line");
  box.replaceChildren();
  if (!steps || steps.length === 0) return;
  const items = [el("span", { class: "label", text: "Best line " })];
  movetext(current().fen, steps.map((s) => s.san), (text, i) => {
    if (i == null) items.push(`${text}\u00a0`);
    else items.push(el("button", { type: "button", class: "ply", "data-step": i, text }), " ");
  });
  box.replaceChildren(...items);
  box.onclick = (e) => {
    const b = e.target.closest("[data-step]");
    if (b) playLine(steps.slice(0, Number(b.dataset.step) + 1).map((s) => s.uci));
  };
}

// ---- Playing and moving through the line ----

/** The moves being played, one after the other. */
let playing = Promise.resolve();

/** Plays the moves `ucis` from the position shown (unless another is shown by then). */
function playLine(ucis) {
  const from = current().fen;
  playing = playing.then(async () => {
    if (current().fen !== from) return;
    let played = 0;
    for (const uci of ucis) {
      if (!(await step(uci))) break;
      played += 1;
    }
    if (played) show();
  });
  return playing;
}

const play = (uci) => playLine([uci]);

/** Plays `uci` into the line (keeping the line ahead when it is the move there); false when
 * it is not a legal move. */
async function step(uci) {
  const position = await ask(game().position, current().fen);
  const move = position.ok && position.body.moves.find((m) => m.uci === uci);
  if (!move) return false;
  const next = state.line[state.at + 1];
  if (!next || next.uci !== uci) {
    state.line.splice(state.at + 1, Infinity, { fen: move.fen, san: move.san, uci });
  }
  state.at += 1;
  return true;
}

/** Shows node `i` of the line. */
function go(i) {
  const at = Math.max(0, Math.min(state.line.length - 1, i));
  if (at === state.at) return;
  state.at = at;
  show();
}

/** Names under the FEN field why `fen` was refused. */
function refuse(fen, error) {
  $("fen").value = fen;
  $("fen-error").textContent = error;
  $("fen").setAttribute("aria-invalid", "true");
}

/** Loads a FEN (typed, or from the address), starting a new line there; a FEN the server
 * refuses is named under the field, and the position shown stays. Returns the server's
 * error, if any. */
async function load(text) {
  const fen = text.trim().replaceAll("_", " ");
  if (!fen) return null;
  const position = await ask(GAMES[gameOf(fen)].position, fen);
  if (!position.ok) {
    refuse(fen, position.body.error);
    return position.body.error;
  }
  state.line = [{ fen: position.body.fen, san: null, uci: null }];
  state.at = 0;
  show();
  return null;
}

/** Picks the piece on `square` (null: none), to show where it can go. */
function select(square) {
  state.selected = square;
  $("promotion").hidden = true;
}

/** A click on the board: picks a piece of the side to move, or moves the piece picked. */
function onBoardClick(e) {
  const square = e.target.closest("[data-square]");
  const position = state.position;
  if (!square || !position) return;
  const name = square.dataset.square;
  if (state.selected && state.selected !== name) {
    const moves = position.moves.filter((m) => m.uci.startsWith(state.selected + name));
    if (moves.length === 1) return play(moves[0].uci);
    if (moves.length > 1) return choosePromotion(moves, square);
  }
  const movable = position.moves.some((m) => m.uci.startsWith(name));
  select(movable && state.selected !== name ? name : null);
  drawBoard();
}

/** Asks, over the board, which piece the pawn becomes. */
function choosePromotion(moves, square) {
  const box = $("promotion");
  const color = sideToMove(current().fen);
  box.replaceChildren(
    ...moves.map((m) => {
      const role = m.uci[4];
      const b = el("button", { type: "button", "aria-label": GAMES.chess.pieces[role], "data-uci": m.uci });
      b.append(pieceSvg(color + role.toUpperCase()));
      return b;
    }),
  );
  const at = square.getBoundingClientRect();
  const board = $("board").getBoundingClientRect();
  const top = at.top - board.top < board.height / 2;
  box.style.left = `${at.left - board.left}px`;
  box.style.width = `${at.width}px`;
  box.style.top = top ? `${at.top - board.top}px` : "auto";
  box.style.bottom = top ? "auto" : `${board.bottom - at.bottom}px`;
  box.hidden = false;
  box.querySelector("button").focus();
}

// ---- Copying ----

/** Copies `text`, saying so on `button` for a moment; when the browser will not, selects
 * `source` (the field or box showing the text) for the reader to copy. */
async function copy(text, button, source) {
  let done = false;
  try {
    await navigator.clipboard.writeText(text);
    done = true;
  } catch {
    // No clipboard API (a page served neither from localhost nor over HTTPS): a selection.
    const area = el("textarea", { class: "offscreen", readonly: true });
    area.value = text;
    document.body.append(area);
    area.select();
    try {
      done = document.execCommand("copy");
    } catch {
      done = false;
    }
    area.remove();
  }
  if (!done) {
    if (source.select) source.select();
    else window.getSelection().selectAllChildren(source);
  }
  button.dataset.label ??= button.textContent;
  button.textContent = done ? "Copied" : "Selected: copy it";
  clearTimeout(button.timer);
  button.timer = setTimeout(() => (button.textContent = button.dataset.label), 1500);
}

// ---- Start ----

/** A click on a move row (of the book or the tables) plays it; hovering or focusing one shows
 * its arrow. Rows of the position before (while the next one's answers come) do nothing. */
function wireMoveTable(table) {
  const rowOf = (e) =>
    table.dataset.fen === current().fen ? e.target.closest("tr[data-uci]") : null;
  table.addEventListener("click", (e) => {
    const row = rowOf(e);
    if (row) play(row.dataset.uci);
  });
  const arrows = { mouseover: true, focusin: true, mouseout: false, focusout: false };
  for (const [type, on] of Object.entries(arrows)) {
    table.addEventListener(type, (e) => {
      const row = rowOf(e);
      if (row) drawArrow(on ? row.dataset.uci : null);
    });
  }
}

/** Keys: arrows, Home and End move through the line, F flips the board, Escape drops a pick. */
function onKey(e) {
  if (e.altKey || e.ctrlKey || e.metaKey || e.target.closest("input, textarea")) return;
  const action = {
    ArrowLeft: () => go(state.at - 1),
    ArrowRight: () => go(state.at + 1),
    Home: () => go(0),
    End: () => go(state.line.length - 1),
    f: flip,
    F: flip,
    Escape: () => {
      select(null);
      drawBoard();
    },
  }[e.key];
  if (action) {
    e.preventDefault();
    action();
  }
}

function flip() {
  state.flipped = !state.flipped;
  drawBoard();
}

/** Says what the server serves. */
function drawStatus(health) {
  const status = $("status");
  if (!health) {
    status.textContent = "The server does not answer.";
    status.className = "error";
    return;
  }
  const tablesOf = (n) => `${n} ${n === 1 ? "table" : "tables"}`;
  let tables = health.tables
    ? `${tablesOf(health.tables)} of up to ${health.max_pieces} pieces`
    : "no chess tables";
  if (health.xiangqi_tables) {
    tables += `, ${tablesOf(health.xiangqi_tables)} of Chinese chess of up to ${health.xiangqi_max_pieces}`;
  }
  const book = health.book ? `the book ${health.book}` : "no book";
  status.textContent = `Serving ${tables} and ${book}.`;
}

async function start() {
  $("first").onclick = () => go(0);
  $("back").onclick = () => go(state.at - 1);
  $("forward").onclick = () => go(state.at + 1);
  $("last").onclick = () => go(state.line.length - 1);
  $("flip").onclick = flip;
  $("reset").onclick = () => load(game().initial);
  $("game").onchange = (e) => load(GAMES[e.target.value].initial);
  $("fen-form").onsubmit = (e) => {
    e.preventDefault();
    load($("fen").value);
  };
  $("copy-fen").onclick = (e) => copy(current().fen, e.currentTarget, $("fen"));
  $("copy-pgn").onclick = (e) => copy(pgnText(), e.currentTarget, $("pgn"));
  $("pgn").onclick = (e) => {
    const ply = e.target.closest("[data-node]");
    if (ply) go(Number(ply.dataset.node));
  };
  $("board").onclick = onBoardClick;
  $("promotion").onclick = (e) => {
    const b = e.target.closest("[data-uci]");
    if (b) play(b.dataset.uci);
  };
  wireMoveTable($("book-moves"));
  $("book-moves").tHead.onclick = (e) => {
    const th = e.target.closest("th[data-sort]");
    if (!th) return;
    state.bookSort = th.dataset.sort;
    drawBook(state.book);
  };
  wireMoveTable($("tb-moves"));
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", () => load(decodeURIComponent(location.hash.slice(1))));

  state.health = await fetch("health")
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null);
  drawStatus(state.health);
  // A FEN in the address the server refuses: the start position, and the server's word.
  const asked = decodeURIComponent(location.hash.slice(1));
  const refused = asked ? await load(asked) : null;
  if (state.shown === 0) show();
  if (refused) refuse(asked.replaceAll("_", " "), refused);
}

start();
