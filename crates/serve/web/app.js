// The retrograde explorer: draws the position the API describes, colours every legal move
// by its value for the player who makes it, plays moves on a click, charts the history.
// No libraries and no per-game parsing beyond the conventions every game follows: a board is
// rows of cells (`board` in the answer), a move is a column number (`4`), a cell (`c3`) or
// two cells (`c3-d4`, `a1 a4`), cells named file letter then rank, a1 bottom left.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (id) => document.getElementById(id);

const state = {
  dbs: [],
  db: null,        // the database shown
  plies: [],       // [{move, query, answer}]: plies[0] is where the game began
  selected: null,  // a source cell chosen for a two-cell move
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

// ---------------------------------------------------------------- words and colours
function sideOf(a) { return a.to_move; }
function valueWords(o, r) {
  switch (o) {
    case "win": return `wins in ${r}`;
    case "loss": return r === 0 ? "has lost" : `loses in ${r}`;
    case "tie": return r === 0 ? "tie: the game is over" : `ties in ${r}`;
    default: return "draw (neither side can force a win)";
  }
}
function shortValue(o, r) { return o === "draw" ? "draw" : `${o} ${r}`; }
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

// ---------------------------------------------------------------- moves on a grid
function fileIndex(letters) {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 96);
  return n - 1;
}
function cellOf(name, board) {
  const m = /^([a-z]+)(\d+)$/.exec(name);
  if (!m) return null;
  const col = fileIndex(m[1]), row = board.rows - Number(m[2]);
  if (col < 0 || col >= board.cols || row < 0 || row >= board.rows) return null;
  return { row, col, name };
}
// What a move does on the board: {kind: "column", col} | {kind: "cell", to} |
// {kind: "step", from, to} | null (shown in the list only).
function moveShape(name, board) {
  if (!board) return null;
  const s = name.trim().toLowerCase();
  if (/^\d+$/.test(s)) {
    const col = Number(s) - 1;
    return col >= 0 && col < board.cols ? { kind: "column", col } : null;
  }
  const cells = s.match(/[a-z]+\d+/g) || [];
  if (cells.join("") !== s.replace(/[\s\-x:]/g, "")) return null;
  const c = cells.map((n) => cellOf(n, board));
  if (c.some((x) => !x)) return null;
  if (c.length === 1) return { kind: "cell", to: c[0] };
  if (c.length === 2) return { kind: "step", from: c[0], to: c[1] };
  return null;
}

// ---------------------------------------------------------------- drawing
function drawBoard() {
  const box = $("board");
  box.replaceChildren();
  const a = current().answer;
  if (state.db.game === "graph" || !a.board) drawGraph(box, a);
  else drawGrid(box, a);
}

function pieceStyle() {
  switch (state.db.game) {
    case "tictactoe": return "marks";
    case "quixo": return "cubes";
    case "connect4": return "holes";
    default: return "stones";
  }
}

function drawGrid(box, a) {
  const b = a.board;
  const style = pieceStyle();
  const size = Math.max(34, Math.min(84, Math.floor(460 / Math.max(b.cols, b.rows))));
  const top = style === "holes" ? size : 0;   // a row of column arrows above the board
  const pad = 22;                             // room for coordinates
  const W = b.cols * size + pad, H = b.rows * size + top + pad;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: `grid ${style}` }, box);
  const x0 = pad, y0 = top;
  const at = (r, c) => [x0 + c * size + size / 2, y0 + r * size + size / 2];
  svg("rect", { x: x0, y: y0, width: b.cols * size, height: b.rows * size, rx: style === "holes" ? 14 : 8, class: "boardbg" }, s);
  for (let c = 0; c < b.cols; c++) text(s, x0 + c * size + size / 2, H - 5, style === "holes" ? String(c + 1) : fileName(c), { class: "coord" });
  if (style !== "holes") for (let r = 0; r < b.rows; r++) text(s, pad / 2, y0 + r * size + size / 2 + 5, String(b.rows - r), { class: "coord" });

  // Cells and pieces.
  for (let r = 0; r < b.rows; r++) {
    for (let c = 0; c < b.cols; c++) {
      const [cx, cy] = at(r, c);
      const ch = b.cells[r][c];
      const g = svg("g", { class: "cellg", "data-cell": fileName(c) + (b.rows - r) }, s);
      if (style === "holes") svg("circle", { cx, cy, r: size * 0.38, class: "hole" }, g);
      else svg("rect", { x: cx - size / 2 + 3, y: cy - size / 2 + 3, width: size - 6, height: size - 6, rx: 6, class: "sq" }, g);
      if (ch !== ".") drawPiece(g, style, ch, cx, cy, size);
    }
  }

  // Moves.
  const shapes = a.moves.map((m) => ({ m, shape: moveShape(m.move, b) }));
  const sources = new Map();
  for (const { m, shape } of shapes) {
    if (!shape) continue;
    if (shape.kind === "column") {
      const [cx] = at(0, shape.col);
      const g = svg("g", { class: `move ${m.outcome}`, "data-move": m.move, tabindex: 0 }, s);
      svg("rect", { x: x0 + shape.col * size, y: 0, width: size, height: H - pad, class: "colhit" }, g);
      svg("circle", { cx, cy: size / 2, r: size * 0.36, class: `marker ${m.outcome}` }, g);
      text(g, cx, size / 2 + 5, m.remoteness === null ? "∞" : String(m.remoteness), { class: "mlabel" });
      g.appendChild(title(`${m.move}: ${shortValue(m.outcome, m.remoteness)} for ${sideOf(a)}`));
      g.addEventListener("click", () => play(m.move));
    } else if (shape.kind === "cell") {
      const [cx, cy] = at(shape.to.row, shape.to.col);
      const g = svg("g", { class: `move ${m.outcome}`, "data-move": m.move, tabindex: 0 }, s);
      svg("rect", { x: cx - size / 2 + 7, y: cy - size / 2 + 7, width: size - 14, height: size - 14, rx: 8, class: `marker ${m.outcome}` }, g);
      text(g, cx, cy + 6, m.remoteness === null ? "∞" : String(m.remoteness), { class: "mlabel" });
      g.appendChild(title(`${m.move}: ${shortValue(m.outcome, m.remoteness)} for ${sideOf(a)}`));
      g.addEventListener("click", () => play(m.move));
    } else {
      const k = shape.from.name;
      if (!sources.has(k)) sources.set(k, { cell: shape.from, moves: [] });
      sources.get(k).moves.push({ m, to: shape.to });
    }
  }
  // Two-cell moves: a ring on each piece that can move, in the colour of its best move (the
  // list is best first); the chosen piece shows where it can go.
  for (const [k, src] of sources) {
    const [cx, cy] = at(src.cell.row, src.cell.col);
    const best = src.moves[0].m;
    const chosen = state.selected === k;
    const g = svg("g", { class: `source ${best.outcome}${chosen ? " chosen" : ""}`, "data-source": k, tabindex: 0 }, s);
    svg("rect", { x: cx - size / 2 + 2, y: cy - size / 2 + 2, width: size - 4, height: size - 4, rx: 9, class: `ring ${best.outcome}` }, g);
    g.appendChild(title(`${k}: ${src.moves.length} move${src.moves.length > 1 ? "s" : ""}, best ${shortValue(best.outcome, best.remoteness)}`));
    g.addEventListener("click", () => { state.selected = chosen ? null : k; drawBoard(); });
  }
  const sel = state.selected && sources.get(state.selected);
  if (sel) {
    for (const { m, to } of sel.moves) {
      const [cx, cy] = at(to.row, to.col);
      const g = svg("g", { class: `move target ${m.outcome}`, "data-move": m.move, tabindex: 0 }, s);
      svg("circle", { cx, cy, r: size * 0.3, class: `marker ${m.outcome}` }, g);
      text(g, cx, cy + 5, m.remoteness === null ? "∞" : String(m.remoteness), { class: "mlabel" });
      g.appendChild(title(`${m.move}: ${shortValue(m.outcome, m.remoteness)} for ${sideOf(a)}`));
      g.addEventListener("click", (e) => { e.stopPropagation(); play(m.move); });
    }
  }
}

function fileName(c) {
  let s = "";
  c += 1;
  while (c > 0) { const d = (c - 1) % 26; s = String.fromCharCode(97 + d) + s; c = Math.floor((c - 1) / 26); }
  return s;
}

function title(s) { const t = document.createElementNS(SVG, "title"); t.textContent = s; return t; }

function drawPiece(g, style, ch, cx, cy, size) {
  const who = ch.toLowerCase();
  if (style === "marks") {
    if (who === "x") {
      const d = size * 0.24;
      svg("path", { d: `M${cx - d},${cy - d}L${cx + d},${cy + d}M${cx + d},${cy - d}L${cx - d},${cy + d}`, class: "mark x" }, g);
    } else {
      svg("circle", { cx, cy, r: size * 0.25, class: "mark o" }, g);
    }
  } else if (style === "cubes") {
    svg("rect", { x: cx - size * 0.36, y: cy - size * 0.36, width: size * 0.72, height: size * 0.72, rx: 7, class: "cube" }, g);
    if (who === "x") {
      const d = size * 0.16;
      svg("path", { d: `M${cx - d},${cy - d}L${cx + d},${cy + d}M${cx + d},${cy - d}L${cx - d},${cy + d}`, class: "mark x small" }, g);
    } else {
      svg("circle", { cx, cy, r: size * 0.17, class: "mark o small" }, g);
    }
  } else {
    svg("circle", { cx, cy, r: size * 0.36, class: `stone ${who === "x" ? "x" : who === "o" ? "o" : "other"}` }, g);
    if (who !== "x" && who !== "o") text(g, cx, cy + 5, ch, { class: "mlabel" });
  }
}

// A graph: the vertex, and its successors in a fan to the right, each coloured.
function drawGraph(box, a) {
  const shown = a.moves.slice(0, 24);
  const rowH = 40, H = Math.max(160, shown.length * rowH + 40), W = 460;
  const s = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, class: "graph" }, box);
  svg("defs", {}, s).innerHTML =
    '<marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#8a8f98"/></marker>';
  const vx = 90, vy = H / 2;
  shown.forEach((m, i) => {
    const y = 20 + rowH / 2 + i * rowH;
    svg("line", { x1: vx + 38, y1: vy, x2: 318, y2: y, class: "edge", "marker-end": "url(#arrow)" }, s);
    const g = svg("g", { class: `move ${m.outcome}`, "data-move": m.move, tabindex: 0 }, s);
    svg("rect", { x: 322, y: y - 15, width: 124, height: 30, rx: 15, class: `marker ${m.outcome}` }, g);
    text(g, 384, y + 5, `${m.move} · ${shortValue(m.outcome, m.remoteness)}`, { class: "mlabel" });
    g.appendChild(title(`to vertex ${m.move}: ${shortValue(m.outcome, m.remoteness)} for the mover`));
    g.addEventListener("click", () => play(m.move));
  });
  const vc = svg("circle", { cx: vx, cy: vy, r: 38, class: `vertex ${a.outcome}` }, s);
  // A long name (a FEN) would spill out of the circle: the full text is its tooltip and
  // is shown under the board.
  const label = a.position.length > 6 ? `${a.position.slice(0, 4)}…` : a.position;
  text(s, vx, vy + 7, label, { class: "vlabel" });
  vc.appendChild(title(a.position));
  if (a.moves.length > shown.length) text(s, 384, H - 6, `+${a.moves.length - shown.length} more in the list`, { class: "coord" });
  if (a.moves.length === 0) text(s, 300, vy + 5, "no moves", { class: "coord" });
}

// ---------------------------------------------------------------- the panels
function current() { return state.plies[state.plies.length - 1]; }

function render() {
  const a = current().answer;
  const first = state.plies[0].answer;
  $("title").textContent = state.db.title;
  const started = state.plies[0].query.position !== undefined ? `Position ${first.position}` : "Start";
  $("start").innerHTML = "";
  $("start").append(`${started}: `, valueSpan(first.outcome, first.remoteness, `${first.to_move} ${valueWords(first.outcome, first.remoteness)}`));
  const v = $("value");
  v.className = `value ${a.outcome}`;
  if (a.moves.length) {
    $("tomove").textContent = `${a.to_move} to move:`;
    v.textContent = valueWords(a.outcome, a.remoteness);
  } else {
    $("tomove").textContent = "Game over:";
    v.textContent = a.outcome === "loss" ? `${a.to_move} has lost` : a.outcome === "win" ? `${a.to_move} has won` : a.outcome === "tie" ? "a tie" : "no moves";
  }
  v.dataset.outcome = a.outcome;
  v.dataset.remoteness = a.remoteness === null ? "" : String(a.remoteness);
  $("position").textContent = a.position;
  $("ply").textContent = String(state.plies.length - 1);
  $("undo").disabled = state.plies.length < 2 || state.busy;
  $("restart").disabled = state.plies.length < 2 || state.busy;
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
    b.title = `${m.move}: ${a.to_move} ${valueWords(m.outcome, m.remoteness)}`;
    const name = document.createElement("b");
    name.textContent = m.move;
    const val = document.createElement("span");
    val.textContent = shortValue(m.outcome, m.remoteness);
    b.append(name, val);
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

// Remoteness by ply, each point coloured by the outcome for the player to move there.
function drawHistory() {
  const s = $("history");
  s.replaceChildren();
  const W = 420, H = 180, L = 34, R = 12, T = 16, B = 26;
  const pts = state.plies.map((p, i) => ({ i, o: p.answer.outcome, r: p.answer.remoteness }));
  const top = Math.max(4, ...pts.map((p) => (p.r === null ? 0 : p.r)));
  const step = top > 40 ? 10 : top > 20 ? 5 : top > 8 ? 4 : 2;
  const maxR = Math.ceil(top / step) * step;
  const n = Math.max(pts.length - 1, 8);
  const X = (i) => L + (i * (W - L - R)) / n;
  const Y = (r) => T + (H - T - B) * (1 - (r === null ? maxR : r) / maxR);
  // Axes and grid.
  for (let r = 0; r <= maxR; r += step) {
    svg("line", { x1: L, x2: W - R, y1: Y(r), y2: Y(r), class: "gridline" }, s);
    text(s, L - 6, Y(r) + 4, String(r), { class: "axis end" });
  }
  const xstep = Math.max(1, Math.ceil(n / 10));
  for (let i = 0; i <= n; i += xstep) text(s, X(i), H - 8, String(i), { class: "axis" });
  text(s, L - 6, H - 8, "ply", { class: "axis end" });
  text(s, L + 4, 10, "remoteness", { class: "axis start" });
  if (pts.length > 1) {
    svg("polyline", { points: pts.map((p) => `${X(p.i)},${Y(p.r)}`).join(" "), class: "hline" }, s);
  }
  for (const p of pts) {
    const c = svg("circle", { cx: X(p.i), cy: Y(p.r), r: p.i === pts.length - 1 ? 6.5 : 5, class: `hpt ${p.o}${p.i === pts.length - 1 ? " now" : ""}`, "data-ply": p.i }, s);
    const mv = p.i ? ` after ${state.plies[p.i].move}` : "";
    c.appendChild(title(`ply ${p.i}${mv}: ${state.plies[p.i].answer.to_move} ${valueWords(p.o, p.r)} (click to go back here)`));
    c.addEventListener("click", () => goBack(p.i));
  }
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
  render();
}

async function begin(q) {
  const answer = await ask(q);
  state.plies = [{ move: null, query: q, answer }];
  state.selected = null;
  render();
}

async function openDb(id, q) {
  state.db = state.dbs.find((d) => d.id === id) || state.dbs[0];
  $("db").value = state.db.id;
  // Any position can be typed in: a vertex of a graph, else the game's own notation (a FEN
  // for chess, whose endings have no start).
  const graph = state.db.game === "graph";
  $("goto").hidden = false;
  $("gotov").placeholder = graph ? "vertex id or name" : state.db.game === "chess" ? "a position (FEN)" : "a position in the game's notation";
  $("gotov").setAttribute("aria-label", graph ? "go to vertex" : "go to position");
  try {
    if (q) {
      await begin(q);
    } else {
      try {
        await begin({ moves: [] });
      } catch (e) {
        if (state.db.game !== "graph") throw e;
        await begin({ position: "0" });   // a graph without a start: vertex 0
      }
    }
    hideError();
  } catch (e) {
    showError(e.message);
  }
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
  try {
    state.dbs = await api("/api/databases");
  } catch (e) {
    showError(`cannot list the databases: ${e.message}`);
    return;
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
      if (focused.dataset.move && focused.tagName !== "BUTTON") { e.preventDefault(); play(focused.dataset.move); return; }
      if (focused.dataset.source) { e.preventDefault(); focused.dispatchEvent(new Event("click")); return; }
    }
    if (e.key === "Backspace" || e.key === "ArrowLeft" || (e.key === "z" && (e.ctrlKey || e.metaKey))) {
      e.preventDefault();
      goBack(state.plies.length - 2);
    } else if (e.key === "Escape") {
      state.selected = null;
      drawBoard();
    }
  });
  // The URL can name a database and a position: ?db=c4&moves=3,3 (or &position=...).
  const url = new URLSearchParams(location.search);
  const id = url.get("db") || state.dbs[0].id;
  let q = null;
  const urlMoves = (url.get("moves") || "").split(",").map((s) => s.trim()).filter(Boolean);
  if (url.has("position")) q = { position: url.get("position") };
  if (urlMoves.length) q = { ...(q || {}), moves: urlMoves };
  if (q && q.moves && (state.dbs.find((d) => d.id === id) || {}).game !== "graph") {
    // Replay move by move, so that the history chart shows the whole game.
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
