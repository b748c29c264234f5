// The retrograde explorer: draws the position the API describes, colours every legal move
// by its value for the player who makes it, plays moves on a click (or a drag), and keeps
// a visual value history. No libraries, no outside assets, and nothing per game: the
// database list says how a game is drawn (`drawing`, from the registry) and who its players
// are (`sides`); a board is rows of cells (`board` in the answer, with the winning `line`);
// a move is a column number (`4`), a cell (`c3`), or two cells (`c3-d4`, `a1 a4`, `e7e8`)
// with perhaps a promotion letter (`e7e8q`); cells are named file letter then rank, a1
// bottom left.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const state = {
  dbs: [],
  db: null,        // the database shown: {id, game, name, title, drawing, sides, example}
  plies: [],       // [{move, query, answer}]: plies[0] is where the game began
  selected: null,  // a source cell chosen for a two-cell move
  promo: null,     // {from, to}: a promotion waiting for its piece
  flipped: false,  // the board seen from the second player's side (chess)
  dragged: -Infinity,  // when a drag last ended (performance.now())
  busy: false,
};

// ---------------------------------------------------------------- the API
async function api(path) {
  const r = await fetch(path);
  let body;
  try { body = await r.json(); } catch (e) { throw new Error(`${path}: not JSON (HTTP ${r.status})`); }
  if (!r.ok) throw new Error(body && body.error ? body.error : `HTTP ${r.status}`);
  return body;
}

function queryString(q) {
  const p = new URLSearchParams();
  if (state.dbs.length > 1) p.set("db", state.db.id);
  if (q.position !== undefined) p.set("position", q.position);
  if (q.moves && (q.moves.length || q.position === undefined)) p.set("moves", q.moves.join(","));
  return p.toString();
}

const ask = (q) => api(`/api/query?${queryString(q)}`);

// ---------------------------------------------------------------- words, letters, colours
// Every value is shown with a letter as well as a colour (W L T D), so that it reads
// without telling red from green.
const LETTER = { win: "W", loss: "L", tie: "T", draw: "D" };
// With a score (games that say by how much), a win or loss is tagged by its margin: +3, -2.
function scored(o, s) { return typeof s === "number" && (o === "win" || o === "loss"); }
function tag(o, r, s) {
  if (scored(o, s)) return `${s > 0 ? "+" : ""}${s}`;
  return o === "draw" ? "D" : `${LETTER[o]}${r}`;
}
function valueWords(o, r, s) {
  if (scored(o, s)) {
    const by = `by ${Math.abs(s)}`;
    const verb = o === "win" ? "wins" : "loses";
    return r === null ? `${verb} ${by}, never ending` : `${verb} ${by} in ${r}`;
  }
  switch (o) {
    case "win": return `wins in ${r}`;
    case "loss": return r === 0 ? "has lost" : `loses in ${r}`;
    case "tie": return r === 0 ? "tie: the game is over" : `ties in ${r}`;
    default: return "draw (neither side can force a win)";
  }
}
function shortValue(o, r, s) {
  if (scored(o, s)) return `${o} by ${Math.abs(s)}${r === null ? "" : ` in ${r}`}`;
  return o === "draw" ? "draw" : `${o} ${r}`;
}
function svg(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}
function text(parent, x, y, s, attrs) {
  const t = svg("text", Object.assign({ x, y }, attrs || {}), parent);
  t.textContent = s;
  return t;
}
function title(s) { const t = document.createElementNS(SVG, "title"); t.textContent = s; return t; }

// The drawing of the database shown: holes, marks, cubes, stones, chess, or none.
function drawing() { return (state.db && state.db.drawing) || "none"; }
function sides() { return (state.db && state.db.sides) || ["first player", "second player"]; }
// A game with scores, over: the first player's points minus the second's, the rewards of
// the moves played (each move's value for its mover less what the position after it is
// worth to that player) plus what the end gives the player to move there.
function firstPlayerTotal() {
  const sign = (side) => (side === 0 ? 1 : -1);
  let total = 0;
  for (let i = 1; i < state.plies.length; i++) {
    const before = state.plies[i - 1].answer, after = state.plies[i].answer;
    const m = before.moves.find((x) => x.move === state.plies[i].move);
    if (!m) continue;
    const mover = moverAt(i - 1), keeps = moverAt(i) === mover;
    total += sign(mover) * (m.score - (keeps ? after.score : -after.score));
  }
  const last = state.plies.length - 1;
  return total + sign(moverAt(last)) * state.plies[last].answer.score;
}

// The side (0: the first mover) to move at ply i: by name when the answer names it.
function moverAt(i) {
  const k = sides().indexOf(state.plies[i].answer.to_move);
  return k >= 0 ? k : i % 2;
}

// ---------------------------------------------------------------- moves on a grid
function fileIndex(letters) {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 96);
  return n - 1;
}
function fileName(c) {
  let s = "";
  c += 1;
  while (c > 0) { const d = (c - 1) % 26; s = String.fromCharCode(97 + d) + s; c = Math.floor((c - 1) / 26); }
  return s;
}
function cellOf(name, board) {
  const m = /^([a-z]+)(\d+)$/.exec(name);
  if (!m) return null;
  const col = fileIndex(m[1]), row = board.rows - Number(m[2]);
  if (col < 0 || col >= board.cols || row < 0 || row >= board.rows) return null;
  return { row, col, name };
}
// What a move does on the board: {kind: "column", col} | {kind: "cell", to} |
// {kind: "step", from, to, promo} | null (shown in the list only).
function moveShape(name, board) {
  if (!board) return null;
  const s = name.trim().toLowerCase();
  if (/^\d+$/.test(s)) {
    const col = Number(s) - 1;
    return col >= 0 && col < board.cols ? { kind: "column", col } : null;
  }
  const m = /^([a-z]+\d+)(?:([a-z]+\d+)([a-z])?)?$/.exec(s.replace(/[\s\-:]/g, ""));
  if (!m) return null;
  const from = cellOf(m[1], board);
  if (!from) return null;
  if (!m[2]) return { kind: "cell", to: from };
  const to = cellOf(m[2], board);
  return to ? { kind: "step", from, to, promo: m[3] || null } : null;
}

// ---------------------------------------------------------------- pieces
// Chess pieces are the Unicode glyphs (the solid ones for both colours, filled white or
// black; U+FE0E asks for text, not emoji); other games' pieces are SVG shapes.
const GLYPH = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F\uFE0E" };
const PIECE_NAME = { k: "king", q: "queen", r: "rook", b: "bishop", n: "knight", p: "pawn" };
// Which side a cell's piece belongs to: 0 (x, or a chess piece in upper case) or 1.
function ownerOf(ch) {
  if (drawing() === "chess") return ch === ch.toUpperCase() ? 0 : 1;
  return ch.toLowerCase() === "x" ? 0 : ch.toLowerCase() === "o" ? 1 : -1;
}

function drawPiece(g, ch, cx, cy, size) {
  const style = drawing();
  const who = ownerOf(ch);
  const side = who === 0 ? "p0" : who === 1 ? "p1" : "other";
  if (style === "chess") {
    const k = ch.toLowerCase();
    const t = text(g, cx, cy + size * 0.3, GLYPH[k] || ch, { class: `chesspiece ${side}`, "font-size": size * 0.82 });
    t.appendChild(title(`${sides()[who] || ""} ${PIECE_NAME[k] || ch}`.trim()));
  } else if (style === "marks") {
    if (who === 0) {
      const d = size * 0.24;
      svg("path", { d: `M${cx - d},${cy - d}L${cx + d},${cy + d}M${cx + d},${cy - d}L${cx - d},${cy + d}`, class: "mark p0" }, g);
    } else {
      svg("circle", { cx, cy, r: size * 0.25, class: "mark p1" }, g);
    }
  } else if (style === "cubes") {
    svg("rect", { x: cx - size * 0.36, y: cy - size * 0.36, width: size * 0.72, height: size * 0.72, rx: 7, class: "cube" }, g);
    if (who === 0) {
      const d = size * 0.16;
      svg("path", { d: `M${cx - d},${cy - d}L${cx + d},${cy + d}M${cx + d},${cy - d}L${cx - d},${cy + d}`, class: "mark p0 small" }, g);
    } else {
      svg("circle", { cx, cy, r: size * 0.17, class: "mark p1 small" }, g);
    }
  } else {
    svg("circle", { cx, cy, r: size * 0.36, class: `stone ${side}` }, g);
    if (who < 0) text(g, cx, cy + 5, ch, { class: "plabel" });
  }
}

// A small picture of a side's piece, for the legend and the status line.
function pieceIcon(side, px) {
  const s = svg("svg", { viewBox: "0 0 40 40", width: px, height: px, class: `icon ${drawing()}` });
  const ch = drawing() === "chess" ? (side === 0 ? "K" : "k") : side === 0 ? "x" : "o";
  if (drawing() === "holes") svg("circle", { cx: 20, cy: 20, r: 19, class: "iconbg" }, s);
  drawPiece(s, ch, 20, 20, 40);
  // A picture beside a name: no tooltip, nothing for a screen reader to say twice.
  s.querySelectorAll("title").forEach((t) => t.remove());
  s.setAttribute("aria-hidden", "true");
  return s;
}

// ---------------------------------------------------------------- the board
function drawBoard() {
  const box = $("board");
  box.replaceChildren();
  const a = current().answer;
  if (drawing() === "none" || !a.board) drawGraph(box, a);
  else drawGrid(box, a);
  drawPromotion();
}

function drawGrid(box, a) {
  const b = a.board;
  const style = drawing();
  const size = Math.max(34, Math.min(84, Math.floor(460 / Math.max(b.cols, b.rows))));
  const top = style === "holes" ? size : 0;   // a row of column markers above the board
  const pad = 22;                             // room for coordinates
  const W = b.cols * size + pad, H = b.rows * size + top + pad;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: `grid ${style}` }, box);
  const flip = state.flipped;
  const x0 = pad, y0 = top;
  // Where a cell is drawn (the board turned round when flipped).
  const at = (r, c) => {
    const rr = flip ? b.rows - 1 - r : r, cc = flip ? b.cols - 1 - c : c;
    return [x0 + cc * size + size / 2, y0 + rr * size + size / 2];
  };
  svg("rect", { x: x0, y: y0, width: b.cols * size, height: b.rows * size, rx: style === "holes" ? 14 : style === "chess" ? 2 : 8, class: "boardbg" }, s);
  for (let c = 0; c < b.cols; c++) {
    const [cx] = at(0, c);
    text(s, cx, H - 5, style === "holes" ? String(c + 1) : fileName(c), { class: "coord" });
  }
  if (style !== "holes") for (let r = 0; r < b.rows; r++) text(s, pad / 2, at(r, 0)[1] + 5, String(b.rows - r), { class: "coord" });

  // Cells and pieces.
  const cellAt = new Map();
  for (let r = 0; r < b.rows; r++) {
    for (let c = 0; c < b.cols; c++) {
      const [cx, cy] = at(r, c);
      const ch = b.cells[r][c];
      const name = fileName(c) + (b.rows - r);
      const g = svg("g", { class: "cellg", "data-cell": name }, s);
      if (style === "holes") svg("circle", { cx, cy, r: size * 0.38, class: "hole" }, g);
      else if (style === "chess") svg("rect", { x: cx - size / 2, y: cy - size / 2, width: size, height: size, class: (r + c) % 2 ? "sq dark" : "sq light" }, g);
      else svg("rect", { x: cx - size / 2 + 3, y: cy - size / 2 + 3, width: size - 6, height: size - 6, rx: 6, class: "sq" }, g);
      if (ch !== ".") {
        const pg = svg("g", { class: "piece", "data-piece": ch }, g);
        drawPiece(pg, ch, cx, cy, size);
      }
      cellAt.set(name, { g, cx, cy });
    }
  }
  drawWinningLine(s, b, at, size);

  // Moves.
  const shapes = a.moves.map((m) => ({ m, shape: moveShape(m.move, b) }));
  const sources = new Map();
  const label = (m) => `${m.move}: ${shortValue(m.outcome, m.remoteness, m.score)} for ${a.to_move}`;
  for (const { m, shape } of shapes) {
    if (!shape) continue;
    if (shape.kind === "column") {
      const [cx] = at(0, shape.col);
      const g = svg("g", { class: `move ${m.outcome}`, "data-move": m.move, tabindex: 0 }, s);
      svg("rect", { x: cx - size / 2, y: 0, width: size, height: H - pad, class: "colhit" }, g);
      svg("circle", { cx, cy: size / 2, r: size * 0.38, class: `marker ${m.outcome}` }, g);
      text(g, cx, size / 2 + 5, tag(m.outcome, m.remoteness, m.score), { class: "mlabel" });
      g.appendChild(title(label(m)));
      g.addEventListener("click", () => play(m.move));
    } else if (shape.kind === "cell") {
      const [cx, cy] = at(shape.to.row, shape.to.col);
      const g = svg("g", { class: `move ${m.outcome}`, "data-move": m.move, tabindex: 0 }, s);
      svg("rect", { x: cx - size / 2 + 7, y: cy - size / 2 + 7, width: size - 14, height: size - 14, rx: 8, class: `marker ${m.outcome}` }, g);
      text(g, cx, cy + 6, tag(m.outcome, m.remoteness, m.score), { class: "mlabel" });
      g.appendChild(title(label(m)));
      g.addEventListener("click", () => play(m.move));
    } else {
      const k = shape.from.name;
      if (!sources.has(k)) sources.set(k, { cell: shape.from, targets: new Map() });
      const t = sources.get(k).targets;
      if (!t.has(shape.to.name)) t.set(shape.to.name, { to: shape.to, moves: [] });
      t.get(shape.to.name).moves.push(m);
    }
  }
  if (!sources.size) return;
  // Two-cell moves. Nothing chosen: an arrow for each best move (when there are few), and
  // a ring on each piece that can move, in the colour of its best move. A piece chosen (a
  // click, or a drag): where it can go, each square coloured by that move's value.
  const best = a.moves[0];
  const bestMoves = a.moves.filter((m) => m.outcome === best.outcome && m.remoteness === best.remoteness);
  const arrows = svg("g", { class: "arrows" }, s);
  if (!state.selected && bestMoves.length <= 4) {
    for (const m of bestMoves) {
      const sh = moveShape(m.move, b);
      if (sh && sh.kind === "step") drawArrow(arrows, at(sh.from.row, sh.from.col), at(sh.to.row, sh.to.col), size, m.outcome);
    }
  }
  for (const [k, src] of sources) {
    const [cx, cy] = at(src.cell.row, src.cell.col);
    // The list is best first: the first move from this cell is its best.
    const top = a.moves.find((m) => { const sh = moveShape(m.move, b); return sh && sh.kind === "step" && sh.from.name === k; });
    const chosen = state.selected === k;
    const g = svg("g", { class: `source ${top.outcome}${chosen ? " chosen" : ""}`, "data-source": k, tabindex: 0 }, s);
    svg("rect", { x: cx - size / 2 + 2, y: cy - size / 2 + 2, width: size - 4, height: size - 4, rx: style === "chess" ? 3 : 9, class: `ring ${top.outcome}` }, g);
    // The piece goes above its ring, in the same group: a click or a drag on either.
    const piece = cellAt.get(k).g.querySelector("g.piece");
    if (piece) { piece.classList.add("movable"); g.appendChild(piece); }
    const n = [...src.targets.values()].reduce((x, t) => x + t.moves.length, 0);
    g.appendChild(title(`${k}: ${n} move${n > 1 ? "s" : ""}, best ${shortValue(top.outcome, top.remoteness, top.score)}`));
    g.addEventListener("click", () => { if (performance.now() - state.dragged > 300) choose(chosen ? null : k); });
    g.addEventListener("pointerdown", (e) => startDrag(e, s, g, src, size));
  }
  s.appendChild(arrows);   // arrows above the pieces
  const sel = state.selected && sources.get(state.selected);
  if (sel) {
    for (const [name, t] of sel.targets) {
      const [cx, cy] = at(t.to.row, t.to.col);
      const m = t.moves[0];
      // Promotions: one square, several moves; the square shows the best and asks which.
      const promo = t.moves.length > 1 && t.moves.every((x) => moveShape(x.move, b).promo);
      const g = svg("g", { class: `move target ${m.outcome}`, "data-move": promo ? `${state.selected}${name}` : m.move, "data-target": name, tabindex: 0 }, s);
      svg("rect", { x: cx - size / 2 + 2, y: cy - size / 2 + 2, width: size - 4, height: size - 4, rx: 4, class: `tsq ${m.outcome}` }, g);
      svg("circle", { cx, cy, r: size * 0.3, class: `marker ${m.outcome}` }, g);
      text(g, cx, cy + 5, tag(m.outcome, m.remoteness, m.score), { class: "mlabel" });
      g.appendChild(title(promo ? `${name}: promotion, best ${shortValue(m.outcome, m.remoteness, m.score)}` : label(m)));
      g.addEventListener("click", (e) => {
        e.stopPropagation();
        if (promo) { state.promo = { from: state.selected, to: name, moves: t.moves }; drawPromotion(); }
        else play(m.move);
      });
    }
  }
}

function drawArrow(parent, [x1, y1], [x2, y2], size, outcome) {
  const dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy) || 1;
  const ux = dx / len, uy = dy / len, head = size * 0.32;
  const ex = x2 - ux * size * 0.18, ey = y2 - uy * size * 0.18;
  const bx = ex - ux * head, by = ey - uy * head;
  const w = size * 0.08;
  const g = svg("g", { class: `arrow ${outcome}` }, parent);
  svg("line", { x1: x1 + ux * size * 0.2, y1: y1 + uy * size * 0.2, x2: bx, y2: by, "stroke-width": w * 2 }, g);
  svg("path", { d: `M${ex},${ey}L${bx - uy * head * 0.55},${by + ux * head * 0.55}L${bx + uy * head * 0.55},${by - ux * head * 0.55}Z` }, g);
}

// The cells that won the game, ringed, with a line through them when they are in a row.
function drawWinningLine(s, b, at, size) {
  if (!b.line || !b.line.length) return;
  const cells = b.line.map((n) => cellOf(n, b)).filter(Boolean);
  const g = svg("g", { class: "winline" }, s);
  for (const c of cells) {
    const [cx, cy] = at(c.row, c.col);
    svg("circle", { cx, cy, r: size * 0.44, class: "winring", "data-cell": c.name }, g);
  }
  // One straight line: every cell on the segment between the two farthest apart.
  const pts = cells.map((c) => at(c.row, c.col));
  let far = [0, 0], d = -1;
  for (let i = 0; i < pts.length; i++) for (let j = i + 1; j < pts.length; j++) {
    const dd = Math.hypot(pts[i][0] - pts[j][0], pts[i][1] - pts[j][1]);
    if (dd > d) { d = dd; far = [i, j]; }
  }
  const [p, q] = [pts[far[0]], pts[far[1]]];
  const straight = pts.length >= 3 && pts.every(([x, y]) => Math.abs((q[0] - p[0]) * (y - p[1]) - (q[1] - p[1]) * (x - p[0])) < 1e-6 * (d * d + 1));
  if (straight) svg("line", { x1: p[0], y1: p[1], x2: q[0], y2: q[1], class: "winstroke" }, g);
}

// A pending promotion: a row of pieces to choose from, each coloured by its move's value.
function drawPromotion() {
  const box = $("promo");
  box.replaceChildren();
  const pr = state.promo;
  if (!pr) { box.hidden = true; return; }
  box.hidden = false;
  const head = document.createElement("span");
  head.textContent = `${pr.from}–${pr.to}: promote to`;
  box.appendChild(head);
  const mover = moverAt(state.plies.length - 1);
  for (const m of pr.moves) {
    const letter = m.move.slice(-1);
    const b = document.createElement("button");
    b.type = "button";
    b.className = `mv ${m.outcome}`;
    b.dataset.move = m.move;
    b.title = `${m.move}: ${valueWords(m.outcome, m.remoteness, m.score)}`;
    const glyph = document.createElement("span");
    glyph.className = `pglyph p${mover}`;
    glyph.textContent = GLYPH[letter] || letter;
    const v = document.createElement("small");
    v.textContent = tag(m.outcome, m.remoteness, m.score);
    b.append(glyph, v);
    b.addEventListener("click", () => { state.promo = null; play(m.move); });
    box.appendChild(b);
  }
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.className = "cancel";
  cancel.textContent = "×";
  cancel.title = "Cancel (Escape)";
  cancel.addEventListener("click", () => { state.promo = null; drawPromotion(); });
  box.appendChild(cancel);
}

function choose(cell) {
  state.selected = cell;
  state.promo = null;
  drawBoard();
}

// Dragging a piece: it follows the pointer; dropped on a square it can go to, the move is
// played (or the promotion asked); dropped where it was, it is chosen as by a click.
function startDrag(e, s, source, src, size) {
  if (e.button !== 0 || state.busy) return;
  const k = source.dataset.source;
  const piece = source.querySelector("g.piece");
  if (!piece) return;
  e.preventDefault();
  const pt = (ev) => {
    const p = s.createSVGPoint();
    p.x = ev.clientX; p.y = ev.clientY;
    return p.matrixTransform(s.getScreenCTM().inverse());
  };
  const start = pt(e);
  let moved = false;
  const move = (ev) => {
    const p = pt(ev);
    if (!moved && Math.hypot(p.x - start.x, p.y - start.y) < size * 0.15) return;
    moved = true;
    piece.classList.add("dragging");
    piece.setAttribute("transform", `translate(${p.x - start.x},${p.y - start.y})`);
  };
  const up = (ev) => {
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", up);
    if (!moved) return;   // a click: the click handler chooses the piece
    state.dragged = performance.now();   // the click that may follow is not a choice
    const p = pt(ev);
    piece.removeAttribute("transform");
    piece.classList.remove("dragging");
    const hit = [...s.querySelectorAll("g.cellg")].find((g) => {
      const r = g.firstChild.getBBox();
      return p.x >= r.x && p.x < r.x + r.width && p.y >= r.y && p.y < r.y + r.height;
    });
    const target = hit && src.targets.get(hit.dataset.cell);
    if (!target) { choose(k); return; }
    if (target.moves.length > 1) {
      state.selected = k;
      state.promo = { from: k, to: hit.dataset.cell, moves: target.moves };
      drawBoard();
    } else {
      play(target.moves[0].move);
    }
  };
  window.addEventListener("pointermove", move);
  window.addEventListener("pointerup", up);
}

// A graph (or a game without a board): the position, and its moves in a fan to the right.
function drawGraph(box, a) {
  const shown = a.moves.slice(0, 24);
  const rowH = 40, H = Math.max(160, shown.length * rowH + 40), W = 460;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "graph" }, box);
  svg("defs", {}, s).innerHTML =
    '<marker id="arrowhead" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#8a8f98"/></marker>';
  const vx = 90, vy = H / 2;
  shown.forEach((m, i) => {
    const y = 20 + rowH / 2 + i * rowH;
    svg("line", { x1: vx + 40, y1: vy, x2: 300, y2: y, class: "edge", "marker-end": "url(#arrowhead)" }, s);
    const g = svg("g", { class: `move ${m.outcome}`, "data-move": m.move, tabindex: 0 }, s);
    svg("rect", { x: 304, y: y - 15, width: 148, height: 30, rx: 15, class: `marker ${m.outcome}` }, g);
    const name = m.move.length > 9 ? `${m.move.slice(0, 8)}…` : m.move;
    text(g, 378, y + 5, `${name} · ${tag(m.outcome, m.remoteness, m.score)}`, { class: "mlabel" });
    g.appendChild(title(`${m.move}: ${shortValue(m.outcome, m.remoteness, m.score)} for the mover`));
    g.addEventListener("click", () => play(m.move));
  });
  const vc = svg("circle", { cx: vx, cy: vy, r: 40, class: `vertex ${a.outcome}` }, s);
  // A long name would spill out of the circle: the full text is its tooltip and is shown
  // under the board.
  const label = a.position.length > 6 ? `${a.position.slice(0, 4)}…` : a.position;
  text(s, vx, vy - 2, label, { class: "vlabel" });
  text(s, vx, vy + 18, tag(a.outcome, a.remoteness, a.score), { class: "vtag" });
  vc.appendChild(title(a.position));
  if (a.moves.length > shown.length) text(s, 378, H - 6, `+${a.moves.length - shown.length} more in the list`, { class: "coord" });
  if (a.moves.length === 0) text(s, 300, vy + 5, "no moves", { class: "coord" });
}

// ---------------------------------------------------------------- the panels
function current() { return state.plies[state.plies.length - 1]; }

function render() {
  const a = current().answer;
  const first = state.plies[0].answer;
  $("title").textContent = state.db.title;
  const started = state.plies[0].query.position !== undefined
    ? (state.plies[0].example
      ? (state.db.game === "graph" ? "The first vertex (the graph has no start vertex)" : "An example position (this game has no start)")
      : `Position ${first.position}`)
    : "Start";
  $("start").replaceChildren(`${started}: `, valueSpan(first.outcome, first.remoteness, `${first.to_move} ${valueWords(first.outcome, first.remoteness, first.score)}`));
  drawPlayers();
  const v = $("value");
  v.className = `value ${a.outcome}`;
  const mover = moverAt(state.plies.length - 1);
  const named = drawing() !== "none" && sides().includes(a.to_move);
  // The piece of the side to move, or at the end the winner's.
  let icon = mover;
  if (a.moves.length) {
    $("tomove").textContent = `${a.to_move} to move:`;
    v.textContent = `${valueWords(a.outcome, a.remoteness, a.score)} (${tag(a.outcome, a.remoteness, a.score)})`;
  } else {
    $("tomove").textContent = "Game over:";
    // With scores the end's value counts only what is left: add what the moves collected.
    const total = typeof a.score === "number" ? firstPlayerTotal() : null;
    const winner = total !== null ? (total > 0 ? 0 : total < 0 ? 1 : -1)
      : a.outcome === "loss" ? 1 - mover : a.outcome === "win" ? mover : -1;
    icon = winner;
    v.className = "value over";
    v.textContent = total !== null
      ? (winner >= 0 ? `${sides()[winner]} wins by ${Math.abs(total)}` : "a tie")
      : winner >= 0
        ? (named ? `${sides()[winner]} wins` : `${a.to_move} ${a.outcome === "win" ? "has won" : "has lost"}`)
        : a.outcome === "tie" ? "a tie" : "no moves";
  }
  $("mover").replaceChildren();
  if (named && icon >= 0) $("mover").appendChild(pieceIcon(icon, 22));
  v.dataset.outcome = a.outcome;
  v.dataset.remoteness = a.remoteness === null ? "" : String(a.remoteness);
  $("position").textContent = a.position;
  $("ply").textContent = String(state.plies.length - 1);
  $("undo").disabled = state.plies.length < 2 || state.busy;
  $("restart").disabled = state.plies.length < 2 || state.busy;
  $("flip").hidden = drawing() !== "chess";
  const path = state.plies.slice(1).map((p) => p.move);
  $("path").textContent = path.length ? path.join(", ") : "no moves played yet: click a move";
  drawBoard();
  drawMoves(a);
  drawHistory();
  syncUrl();
}

function valueSpan(o, r, words) {
  const s = document.createElement("span");
  s.className = `value ${o}`;
  s.textContent = words;
  return s;
}

// Who is who: each side's piece and name (the first mover first).
function drawPlayers() {
  const box = $("players");
  box.replaceChildren();
  if (drawing() === "none") { box.hidden = true; return; }
  box.hidden = false;
  sides().forEach((name, k) => {
    const p = document.createElement("span");
    p.className = "player";
    p.dataset.side = String(k);
    p.appendChild(pieceIcon(k, 20));
    const b = document.createElement("b");
    b.textContent = name;
    p.append(b, k === 0 ? " moves first" : " second");
    box.appendChild(p);
  });
}

function drawMoves(a) {
  const list = $("moves");
  list.replaceChildren();
  if (!a.moves.length) {
    const li = document.createElement("li");
    li.className = "over";
    li.textContent = "No moves: the game is over.";
    list.appendChild(li);
    return;
  }
  for (const m of a.moves) {
    const li = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = `mv ${m.outcome}`;
    b.dataset.move = m.move;
    b.dataset.outcome = m.outcome;
    b.dataset.remoteness = m.remoteness === null ? "" : String(m.remoteness);
    b.title = `${m.move}: ${a.to_move} ${valueWords(m.outcome, m.remoteness, m.score)}`;
    const name = document.createElement("b");
    name.textContent = m.move;
    const val = document.createElement("span");
    val.textContent = shortValue(m.outcome, m.remoteness, m.score);
    const letter = document.createElement("i");
    letter.textContent = LETTER[m.outcome];
    b.append(letter, name, val);
    b.addEventListener("click", () => play(m.move));
    li.appendChild(b);
    list.appendChild(li);
  }
  // An answer lists the best moves only when there are very many; `more` counts the rest.
  if (a.more) {
    const li = document.createElement("li");
    li.className = "more";
    li.textContent = `and ${a.more} more`;
    list.appendChild(li);
  }
}

// The visual value history: one row a ply, from one fixed point of view. The first
// player's wins are to the left, the second player's to the right, farther out the more
// plies they take; ties and draws in the middle band. A blunder is a jump across.
function drawHistory() {
  const s = $("history");
  s.replaceChildren();
  const names = sides();
  const W = 420, L = 74, R = 10, T = 48, RH = 22;
  const n = state.plies.length;
  const H = T + n * RH + 8;
  s.setAttribute("viewBox", `0 0 ${W} ${H}`);
  s.setAttribute("class", drawing());   // the points take the players' colours
  s.setAttribute("height", H);
  const C = L + (W - L - R) / 2, B = 24, S = (W - L - R) / 2 - B - 10;
  // For each ply: who wins (0, 1) or nobody (-1), and in how many plies.
  const pts = state.plies.map((p, i) => {
    const a = p.answer, mover = moverAt(i);
    const winner = a.outcome === "win" ? mover : a.outcome === "loss" ? 1 - mover : -1;
    return { i, o: a.outcome, r: a.remoteness, s: a.score, winner };
  });
  const maxR = Math.max(4, ...pts.map((p) => (p.winner >= 0 ? p.r : 0)));
  // A win that never ends (a game with scores) is drawn as far out as any.
  const X = (p) => (p.winner < 0 ? C : p.winner === 0 ? C - B - 6 - ((p.r ?? maxR) / maxR) * S : C + B + 6 + ((p.r ?? maxR) / maxR) * S);
  const Y = (i) => T + i * RH + RH / 2;
  // The frame: the band, the two sides, remoteness marks.
  svg("rect", { x: C - B, y: T - 6, width: 2 * B, height: n * RH + 10, class: "band" }, s);
  text(s, C, 14, "tie · draw", { class: "axis" });
  text(s, L, 14, `◀ ${names[0]} wins`, { class: "axis start side0" });
  text(s, W - R, 14, `${names[1]} wins ▶`, { class: "axis end side1" });
  for (const f of [0, 0.5, 1]) {
    const r = Math.round(f * maxR);
    for (const x of [C - B - 6 - f * S, C + B + 6 + f * S]) {
      svg("line", { x1: x, x2: x, y1: T - 8, y2: H - 4, class: "gridline" }, s);
      text(s, x, 32, String(r), { class: "axis" });
    }
  }
  text(s, 4, 32, "plies to end", { class: "axis start" });
  // One row a ply: a hit area, the ply and its move, the point.
  if (n > 1) svg("polyline", { points: pts.map((p) => `${X(p)},${Y(p.i)}`).join(" "), class: "hline" }, s);
  for (const p of pts) {
    const y = Y(p.i);
    const row = svg("g", { class: `hrow${p.i === n - 1 ? " now" : ""}`, "data-ply": p.i }, s);
    svg("rect", { x: 0, y: y - RH / 2, width: W, height: RH, class: "hhit" }, row);
    const mv = p.i ? state.plies[p.i].move : "start";
    text(row, 4, y + 4, `${p.i}`, { class: "hply" });
    text(row, 26, y + 4, mv.length > 7 ? `${mv.slice(0, 6)}…` : mv, { class: "hmove" });
    const cls = p.winner < 0 ? p.o : p.winner === 0 ? "side0" : "side1";
    svg("circle", { cx: X(p), cy: y, r: p.i === n - 1 ? 9 : 8, class: `hpt ${cls}${p.i === n - 1 ? " now" : ""}`, "data-ply": p.i }, row);
    const letter = p.winner < 0 ? LETTER[p.o] : scored(p.o, p.s) ? `${Math.abs(p.s)}` : `${p.r}`;
    text(row, X(p), y + 4, letter, { class: "hlabel" });
    const who = state.plies[p.i].answer.to_move;
    const margin = scored(p.o, p.s) ? ` by ${Math.abs(p.s)}` : "";
    const words = p.winner < 0 ? valueWords(p.o, p.r) : `${names[p.winner]} wins${margin} in ${p.r}`;
    row.appendChild(title(`ply ${p.i}${p.i ? ` after ${mv}` : ""}: ${words} (${who} to move; click to go back here)`));
    row.addEventListener("click", () => goBack(p.i));
  }
  const box = $("historybox");
  box.scrollTop = box.scrollHeight;
}

// ---------------------------------------------------------------- actions
async function play(move) {
  if (state.busy) return;
  const here = current();
  // Moves are replayed from the first position: the start, or one given in the game's
  // notation (then the server plays the moves from it).
  const q = state.db.game === "graph"
    ? { position: move }
    : { ...(here.query.position !== undefined ? { position: here.query.position } : {}), moves: [...(here.query.moves || []), move] };
  state.busy = true;
  try {
    const answer = await ask(q);
    state.plies.push({ move, query: q, answer });
    state.selected = null;
    state.promo = null;
    hideError();
  } catch (e) {
    showError(e.message);
  } finally {
    state.busy = false;
    render();
  }
}

function goBack(ply) {
  if (ply >= state.plies.length - 1) return;
  state.plies.length = ply + 1;
  state.selected = null;
  state.promo = null;
  render();
}

async function begin(q, example) {
  const answer = await ask(q);
  state.plies = [{ move: null, query: q, answer, example: !!example }];
  state.selected = null;
  state.promo = null;
  render();
}

// Shows database `id` (its controls; the position comes after).
function showDb(id) {
  state.db = state.dbs.find((d) => d.id === id) || state.dbs[0];
  $("db").value = state.db.id;
  state.flipped = false;
  // Any position can be typed in: a vertex of a graph, else the game's own notation (a FEN
  // for chess, whose endings have no start).
  const graph = state.db.game === "graph";
  $("goto").hidden = false;
  $("gotol").textContent = graph ? "Vertex" : drawing() === "chess" ? "FEN" : "Position";
  $("gotov").placeholder = graph ? "an id or a name" : drawing() === "chess" ? "a position in FEN" : "in the game's notation";
  $("gotov").setAttribute("aria-label", graph ? "go to vertex" : "go to position");
}

// The FEN box shows the first position of a chess ending.
function fillGoto() {
  $("gotov").value = drawing() === "chess" && state.plies.length ? state.plies[0].answer.position : "";
}

async function openDb(id, q) {
  showDb(id);
  try {
    // Without a start (`example` set): a chess ending opens at its example position
    // (white's longest win), which the FEN box can change; a graph at its first vertex.
    if (q) await begin(q);
    else if (state.db.example != null) await begin({ position: state.db.example }, true);
    else await begin({ moves: [] });
    hideError();
  } catch (e) {
    showError(e.message);
  }
  fillGoto();
}

// What the server put in the page (`#initial`): the databases and the first plies of the
// position the URL names, so that the page is drawn before it has loaded; null when it
// put nothing (then the page asks the API).
function embedded() {
  const e = $("initial");
  try { return e ? JSON.parse(e.textContent) : null; } catch (err) { return null; }
}

function syncUrl() {
  const p = new URLSearchParams();
  p.set("db", state.db.id);
  const first = state.plies[0].query;
  if (state.db.game === "graph") p.set("position", current().query.position ?? current().answer.position);
  else {
    if (first.position !== undefined) p.set("position", first.position);
    const moves = current().query.moves || [];
    if (moves.length) p.set("moves", moves.join(","));
  }
  history.replaceState(null, "", `?${p}`);
}

function showError(m) { const e = $("error"); e.textContent = m; e.hidden = false; }
function hideError() { $("error").hidden = true; }

async function main() {
  const initial = embedded();
  if (initial) {
    state.dbs = initial.dbs;
  } else {
    try {
      state.dbs = await api("/api/databases");
    } catch (e) {
      showError(`cannot list the databases: ${e.message}`);
      return;
    }
  }
  const pick = $("db");
  for (const d of state.dbs) {
    const o = document.createElement("option");
    o.value = d.id;
    o.textContent = `${d.id} — ${d.name}`;
    pick.appendChild(o);
  }
  $("dbpick").hidden = state.dbs.length < 2;
  pick.addEventListener("change", () => openDb(pick.value));
  $("undo").addEventListener("click", () => goBack(state.plies.length - 2));
  $("restart").addEventListener("click", () => goBack(0));
  $("flip").addEventListener("click", () => { state.flipped = !state.flipped; drawBoard(); });
  $("goto").addEventListener("submit", (e) => {
    e.preventDefault();
    const v = $("gotov").value.trim();
    if (v) begin({ position: v }).then(hideError, (err) => showError(err.message));
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT") return;
    const focused = document.activeElement;
    if ((e.key === "Enter" || e.key === " ") && focused && focused.dataset) {
      // A move or a piece on the board reached with Tab.
      if (focused.dataset.target || focused.dataset.source) { e.preventDefault(); focused.dispatchEvent(new Event("click")); return; }
      if (focused.dataset.move && focused.tagName !== "BUTTON") { e.preventDefault(); play(focused.dataset.move); return; }
    }
    if (e.key === "Backspace" || e.key === "ArrowLeft" || (e.key === "z" && (e.ctrlKey || e.metaKey))) {
      e.preventDefault();
      goBack(state.plies.length - 2);
    } else if (e.key === "Escape") {
      state.selected = null;
      state.promo = null;
      drawBoard();
    }
  });
  if (initial) {
    // Drawn now, before the page has loaded: nothing is awaited on this path.
    showDb(initial.db);
    if (initial.plies.length) { state.plies = initial.plies; render(); }
    if (initial.error) showError(initial.error);
    fillGoto();
    document.body.dataset.ready = "1";
    return;
  }
  // The URL can name a database and a position: ?db=c4&moves=3,3 (or &position=...).
  const url = new URLSearchParams(location.search);
  const id = url.get("db") || state.dbs[0].id;
  let q = null;
  const urlMoves = (url.get("moves") || "").split(",").map((s) => s.trim()).filter(Boolean);
  if (url.has("position")) q = { position: url.get("position") };
  if (urlMoves.length) q = { ...(q || {}), moves: urlMoves };
  if (q && q.moves && (state.dbs.find((d) => d.id === id) || {}).game !== "graph") {
    // Replay move by move, so that the history shows the whole game.
    await openDb(id, q.position !== undefined ? { position: q.position } : { moves: [] });
    for (const m of q.moves) {
      await play(m);
      if (!$("error").hidden) break;
    }
  } else {
    await openDb(id, q);
  }
  document.body.dataset.ready = "1";
}

main();
