// The puzzlebase page: draws a puzzle's board from the layout the API gives
// ({cells: [[x, y]...], edges: [[a, b]...]}), plays moves by clicking, and keeps the
// puzzle and position in the address (#/NAME/STATE) so links share and Back works.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const UNIT = 64;
const $ = (id) => document.getElementById(id);

const app = {
  puzzles: [],
  puzzle: null,     // the /api/puzzles/NAME answer
  answer: null,     // the current position's answer
  line: [],         // positions played, in order
  at: 0,            // index of the current position in `line`
  selected: null,   // selected cell (peg boards, tokens, blocks: choose the piece, then where)
  pieces: [],       // sliding blocks: the piece covering each cell of the position shown
  seq: 0,           // guards against answers arriving out of order
};

function el(name, attrs, parent, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function html(tag, attrs, parent, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

async function api(path) {
  const r = await fetch(path);
  let body;
  try { body = await r.json(); } catch (_) { body = { error: r.statusText }; }
  // A position that cannot reach the goal is refused (422) but still described, with
  // its legal moves: show it like any other.
  if (!r.ok && !(r.status === 422 && body.legal_moves)) throw new Error(body.error || r.statusText);
  return body;
}

// The cells of a position in its notation: comma-separated above ten cells, else one
// character each; tours are space-separated squares; sliding blocks' rows are joined by
// '/', which is no cell.
function cellsOf(state) {
  if (state.includes(",")) return state.split(",");
  if (state.includes(" ")) return state.split(" ");
  return state.split("").filter((c) => c !== "/");
}

function family() { return app.puzzle ? app.puzzle.family : ""; }
function isEnumeration() { return family() === "magic" || family() === "tour"; }
// Pieces that are chosen first and then sent somewhere.
function twoClick() { return family() === "peg" || family() === "tokens" || family() === "blocks"; }

function verdict(d) {
  const cur = app.answer ? app.answer.distance : null;
  if (d === null || d === undefined) return "dead";
  if (cur === null || cur === undefined) return "better";
  return d < cur ? "better" : d === cur ? "equal" : "worse";
}

// ---------------------------------------------------------------------------------
// Address

function parseHash() {
  const h = location.hash.replace(/^#\/?/, "");
  const i = h.indexOf("/");
  if (h === "") return { name: null, state: null };
  if (i < 0) return { name: decodeURIComponent(h), state: null };
  return { name: decodeURIComponent(h.slice(0, i)), state: decodeURIComponent(h.slice(i + 1)) };
}

function hashFor(name, state) {
  return "#/" + encodeURIComponent(name) + (state ? "/" + encodeURIComponent(state) : "");
}

function go(name, state) {
  const h = hashFor(name, state);
  if (location.hash === h) route(); else location.hash = h;
}

async function route() {
  let { name, state } = parseHash();
  if (!name) name = app.puzzles.length ? app.puzzles[0].puzzle : null;
  if (!name) return;
  if (!app.puzzle || app.puzzle.puzzle !== name) {
    try {
      app.puzzle = await api("/api/puzzles/" + encodeURIComponent(name));
    } catch (e) {
      $("status").textContent = e.message;
      return;
    }
    app.line = [];
    app.at = 0;
    $("puzzle").value = name;
    drawFigures();
  }
  if (!state) state = defaultState();
  await show(state, true);
}

function defaultState() {
  const p = app.puzzle;
  if (p.start) return p.start;
  if (p.examples && p.examples.length) return p.examples[0].state;
  if (p.longest && p.longest.states.length) return p.longest.states[0];
  if (p.solutions) { const s = Object.values(p.solutions)[0]; if (s) return s[0]; }
  if (p.tours && p.tours.listed.length) return p.tours.listed[0];
  return null;
}

// Shows `state`: asks the API, then places it on the line played. A puzzle answered by
// search says so while the search runs; a refusal (bad position, timeout, busy server)
// is a message, and the board stays as it was.
async function show(state, fromAddress) {
  const seq = ++app.seq;
  const status = $("status");
  const searching = app.puzzle.answered_by === "search";
  if (searching) {
    status.className = "busy";
    status.textContent = "searching for an optimal solution\u2026";
  }
  let a;
  try {
    a = await api("/api/puzzles/" + encodeURIComponent(app.puzzle.puzzle) + "/positions/" +
                  encodeURIComponent(state));
  } catch (e) {
    if (seq !== app.seq) return;
    if (searching) { status.className = ""; status.textContent = ""; }
    $("position-error").textContent = e.message;
    return;
  }
  if (seq !== app.seq) return;
  if (searching) { status.className = ""; status.textContent = ""; }
  $("position-error").textContent = "";
  const s = a.state;
  const i = app.line.indexOf(s);
  if (i >= 0) {
    app.at = i;
  } else if (app.answer && app.answer.legal_moves &&
             app.answer.legal_moves.some((m) => m.state === s)) {
    app.line = app.line.slice(0, app.at + 1).concat([s]);
    app.at = app.line.length - 1;
  } else {
    app.line = [s];
    app.at = 0;
  }
  app.answer = a;
  app.selected = null;
  $("position").value = s;
  if (fromAddress && parseHash().state !== s) {
    history.replaceState(null, "", hashFor(app.puzzle.puzzle, s));
  }
  drawPosition();
}

function play(state) { go(app.puzzle.puzzle, state); }

// A random solvable arrangement of a sliding grid: a shuffle, with two tiles exchanged
// when the permutation (from the goal) and the blank's walk home differ in parity.
function scrambled() {
  const d = app.puzzle.definition, goal = cellsOf(d.goal), cols = d.cols;
  const s = goal.slice();
  for (let i = s.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [s[i], s[j]] = [s[j], s[i]];
  }
  const home = new Map(goal.map((v, i) => [v, i]));
  const perm = s.map((v) => home.get(v)), seen = perm.map(() => false);
  let parity = 0;
  for (let i = 0; i < perm.length; i++) {
    let len = 0;
    for (let j = i; !seen[j]; j = perm[j]) { seen[j] = true; len++; }
    if (len) parity ^= (len - 1) & 1;
  }
  const b = s.indexOf("0"), g = home.get("0");
  const walk = Math.abs(Math.floor(b / cols) - Math.floor(g / cols)) + Math.abs(b % cols - g % cols);
  if (parity !== (walk & 1)) {
    const [i, j] = s[0] === "0" || s[1] === "0" ? [2, 3] : [0, 1];
    [s[i], s[j]] = [s[j], s[i]];
  }
  return s.join(",");
}

// ---------------------------------------------------------------------------------
// Drawing the board

// Sets the viewBox of `svg` around `cells` (with `pad` around them) and returns where
// each cell's centre goes. The drawing scales to whatever width the page gives it.
function frame(svg, cells, pad) {
  const xs = cells.map((c) => c[0]), ys = cells.map((c) => c[1]);
  const minX = Math.min(...xs), minY = Math.min(...ys);
  const w = (Math.max(...xs) - minX) * UNIT + 2 * pad, h = (Math.max(...ys) - minY) * UNIT + 2 * pad;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  return (c) => [(c[0] - minX) * UNIT + pad, (c[1] - minY) * UNIT + pad];
}

function drawPosition() {
  const p = app.puzzle, a = app.answer, svg = $("board");
  svg.innerHTML = "";
  if (family() === "hanoi") { drawHanoi(svg, a); return; }
  const layout = p.layout;
  const at = frame(svg, framedCells(layout), UNIT * 0.7);
  // At most its own size (and 640 px); narrower on a narrow screen (the style sheet).
  svg.style.maxWidth = Math.min(svg.viewBox.baseVal.width, 640) + "px";
  const cells = cellsOf(a.state);
  const fam = family();
  if (fam === "blocks" || fam === "rush-hour") app.pieces = blockPieces(cells);
  const moves = a.legal_moves || [];
  // Edges: the sliding graph and peg lines as lines; knight moves faintly.
  if (fam !== "tour") {
    for (const [u, v] of layout.edges) {
      const [x1, y1] = at(layout.cells[u]), [x2, y2] = at(layout.cells[v]);
      el("line", { x1, y1, x2, y2, class: "edge", stroke: fam === "tokens" ? "#e0e0e0" : "#b0bec5",
                   "stroke-width": fam === "tokens" ? 1 : 3 }, svg);
    }
  }
  if (fam === "tour") drawTour(svg, layout, at, cells.map(Number), "#1565c0");
  const hints = fam === "lights" ? pressHints(cells, moves) : hintsFor(moves);
  layout.cells.forEach((c, i) => {
    const [x, y] = at(c);
    const g = el("g", { class: "cell", "data-cell": i, transform: `translate(${x},${y})` }, svg);
    drawCell(g, fam, cells[i], i);
    const h = hints.get(i);
    if (h) {
      g.classList.add(h.kind);
      if (h.distance !== undefined) {
        el("text", { class: "hint " + verdict(h.distance), x: UNIT * 0.3, y: -UNIT * 0.28,
                     "font-size": 15, "font-weight": "bold",
                     fill: colour(verdict(h.distance)), "text-anchor": "middle" },
           g, h.distance === null ? "×" : String(h.distance));
      }
    }
    if (app.selected === i) {
      el("circle", { r: UNIT * 0.42, fill: "none", stroke: "#1565c0", "stroke-width": 3 }, g);
    }
    g.addEventListener("click", () => clickCell(i));
  });
  drawInfo();
  document.body.setAttribute("data-shown", p.puzzle);
}

function colour(v) {
  return { better: "#1b5e20", equal: "#8d6e00", worse: "#b71c1c", dead: "#777" }[v];
}

// For each clickable cell, what clicking does and the best distance it leads to.
function hintsFor(moves) {
  const hints = new Map();
  const put = (cell, kind, d) => {
    const old = hints.get(cell);
    if (!old || better(d, old.distance)) hints.set(cell, { kind, distance: d });
  };
  for (const m of moves) {
    const mv = m.move;
    if (!mv.from) continue;
    if (app.selected !== null) {
      if (mv.from[0] === app.selected) put(mv.to[mv.to.length - 1], "target", m.distance);
    } else if (!twoClick()) {
      put(mv.from[0], "movable", m.distance);
    } else {
      hints.set(mv.from[0], hints.get(mv.from[0]) || { kind: "movable" });
    }
  }
  return hints;
}

function better(d, old) {
  if (old === undefined) return true;
  if (d === null) return false;
  return old === null || d < old;
}

// Tokens that move as knights (the definition file says `move = "knight"`) are drawn
// as knights; other tokens as plain stones.
function knightMoves() {
  const spec = app.puzzle.definition && app.puzzle.definition.spec;
  return !!spec && spec.move === "knight";
}

function drawCell(g, fam, v, i) {
  const r = UNIT * 0.4;
  if (fam === "sliding") {
    const blank = v === "0";
    // Cells off the unit grid (the hexagonal six) are round tiles.
    const round = app.puzzle.layout.cells.some((c) => c[0] % 1 !== 0 || c[1] % 1 !== 0);
    el("rect", { x: -r, y: -r, width: 2 * r, height: 2 * r, rx: round ? r : 8,
                 fill: blank ? "#eceff1" : "#ffcc80", stroke: "#8d6e63", "stroke-width": blank ? 0 : 2 }, g);
    if (!blank) el("text", { "text-anchor": "middle", "dominant-baseline": "central", "font-size": 28,
                             "font-weight": "bold", fill: "#3e2723" }, g, v);
  } else if (fam === "tokens" || fam === "oshidori") {
    const dark = fam === "tokens" && ((Math.round(app.puzzle.layout.cells[i][0]) +
                                        Math.round(app.puzzle.layout.cells[i][1])) % 2 === 1);
    el("rect", { x: -UNIT / 2, y: -UNIT / 2, width: UNIT, height: UNIT,
                 fill: dark ? "#d7ccc8" : "#efebe9", stroke: "#bcaaa4" }, g);
    if (v === "B" || v === "W") {
      el("circle", { r: r * 0.85, fill: v === "B" ? "#212121" : "#fff", stroke: "#212121", "stroke-width": 2 }, g);
      if (fam === "tokens" && knightMoves()) {
        el("text", { "text-anchor": "middle", "dominant-baseline": "central", "font-size": 30,
                     fill: v === "B" ? "#fff" : "#212121" }, g, "\u265E");
      }
    }
  } else if (fam === "peg") {
    el("circle", { r: UNIT * 0.3, fill: "#d7ccc8", stroke: "#8d6e63" }, g);
    if (v === "1") el("circle", { class: "peg", r: UNIT * 0.24, fill: "#5d4037" }, g);
  } else if (fam === "magic") {
    el("circle", { r: r * 0.8, fill: "#fff9c4", stroke: "#f9a825", "stroke-width": 2 }, g);
    el("text", { "text-anchor": "middle", "dominant-baseline": "central", "font-size": 24 }, g, v);
  } else if (fam === "lights") {
    const on = v === "1";
    el("rect", { class: on ? "light on" : "light", x: -r, y: -r, width: 2 * r, height: 2 * r, rx: 8,
                 fill: on ? "#ffeb3b" : "#37474f", stroke: on ? "#f9a825" : "#263238", "stroke-width": 2 }, g);
  } else if (fam === "permutation") {
    drawPermutationCell(g, v, i);
  } else if (fam === "blocks" || fam === "rush-hour") {
    drawBlockCell(g, v, i);
  } else if (fam === "tour") {
    el("rect", { x: -UNIT / 2, y: -UNIT / 2, width: UNIT, height: UNIT, fill: "none", stroke: "#bbb" }, g);
    el("text", { "text-anchor": "middle", y: UNIT * 0.38, "font-size": 10, fill: "#999" }, g, String(i));
  }
}

// Permutation puzzles say how they are drawn (the definition's `drawing`): a cube's
// stickers as squares coloured by face, a pancake stack as bars as wide as the
// pancakes, TopSpin's tokens as discs on their track, other pieces as numbered tiles.
function permutationDrawing() {
  const spec = app.puzzle.definition && app.puzzle.definition.spec;
  return (spec && spec.drawing) || (spec && spec.faces ? "stickers" : "cells");
}

const STICKER_COLOURS = { U: "#fafafa", R: "#d32f2f", F: "#2e7d32", D: "#fdd835", L: "#ef6c00", B: "#1565c0" };
const OTHER_COLOURS = ["#8e24aa", "#00897b", "#6d4c41", "#c2185b", "#546e7a", "#7cb342"];

function stickerColour(v) {
  if (STICKER_COLOURS[v]) return STICKER_COLOURS[v];
  return OTHER_COLOURS[v.charCodeAt(0) % OTHER_COLOURS.length];
}

// The cells the board is framed around: a stack's bars reach two cells either side.
function framedCells(layout) {
  if (family() !== "permutation" || permutationDrawing() !== "stack") return layout.cells;
  const [x, y] = layout.cells[0];
  return layout.cells.concat([[x - 2, y], [x + 2, y]]);
}

function drawPermutationCell(g, v, i) {
  const drawing = permutationDrawing(), r = UNIT * 0.4;
  if (drawing === "stickers") {
    el("rect", { class: "sticker", x: -UNIT * 0.46, y: -UNIT * 0.46, width: UNIT * 0.92, height: UNIT * 0.92,
                 rx: 6, fill: stickerColour(v), stroke: "#212121", "stroke-width": 2, "data-face": v }, g);
  } else if (drawing === "stack") {
    const n = app.puzzle.layout.cells.length, w = UNIT * (1 + 3 * (Number(v) + 1) / n);
    el("rect", { class: "pancake", x: -w / 2, y: -UNIT * 0.32, width: w, height: UNIT * 0.64, rx: UNIT * 0.3,
                 fill: "#e0a96d", stroke: "#8d5524", "stroke-width": 2 }, g);
    el("text", { "text-anchor": "middle", "dominant-baseline": "central", "font-size": 18, fill: "#3e2723" }, g, v);
  } else if (drawing === "ring") {
    el("circle", { class: "token", r: r * 0.9, fill: "#ffe082", stroke: "#6d4c41", "stroke-width": 2 }, g);
    el("text", { "text-anchor": "middle", "dominant-baseline": "central", "font-size": 22, fill: "#3e2723" }, g, v);
  } else {
    el("rect", { x: -r, y: -r, width: 2 * r, height: 2 * r, rx: 8, fill: "#c5e1a5", stroke: "#558b2f", "stroke-width": 2 }, g);
    el("text", { "text-anchor": "middle", "dominant-baseline": "central", "font-size": 22, fill: "#1b5e20" }, g, v);
  }
}

// ---------------------------------------------------------------------------------
// Sliding blocks (Klotski): each cell filled with its piece's colour, a heavy line
// where two pieces (or a piece and the board) meet, so that pieces of one letter stay
// apart. Click a piece, then where it goes.

// Which piece covers each cell (-1: empty or wall). Pieces never turn, so the first
// cell of a letter in reading order not yet covered is a piece's top-left corner, and
// its group's rectangle (the definition's `groups`) covers the rest: the rule by which
// the engine reads a position. On a Rush Hour board each letter is one piece.
function blockPieces(cells) {
  const d = app.puzzle.definition, cols = d.cols, ids = cells.map(() => -1);
  if (family() === "rush-hour") return cells.map((v) => (/[A-Z]/.test(v) ? v.charCodeAt(0) : -1));
  const shape = new Map((d.groups || []).map((g) => [g.letter, g]));
  let next = 0;
  cells.forEach((v, i) => {
    const g = shape.get(v);
    if (!g || ids[i] >= 0) return;
    for (let y = 0; y < g.h; y++) {
      for (let x = 0; x < g.w; x++) {
        const j = i + y * cols + x;
        if (j < cells.length && cells[j] === v) ids[j] = next;
      }
    }
    next++;
  });
  return ids;
}

const BLOCK_COLOURS = ["#c62828", "#1565c0", "#2e7d32", "#f9a825", "#6a1b9a", "#00838f", "#ef6c00", "#4e342e"];

function drawBlockCell(g, v, i) {
  const h = UNIT / 2, cols = app.puzzle.definition.cols, ids = app.pieces || [];
  if (v === "#" || (v === "x" && family() === "rush-hour")) {
    el("rect", { class: "wall", x: -h, y: -h, width: UNIT, height: UNIT, fill: "#37474f" }, g);
    return;
  }
  if (v === "." || v === "o") {
    el("rect", { x: -h, y: -h, width: UNIT, height: UNIT, fill: "#eceff1", stroke: "#cfd8dc" }, g);
    return;
  }
  // The first group (Klotski's 2x2) and Rush Hour's red car A in red, and no other.
  const letters = (app.puzzle.definition.groups || []).map((x) => x.letter);
  const at = family() === "rush-hour" ? v.charCodeAt(0) - 65 : Math.max(0, letters.indexOf(v));
  const fill = BLOCK_COLOURS[at === 0 ? 0 : 1 + (at - 1) % (BLOCK_COLOURS.length - 1)];
  el("rect", { class: "block", x: -h, y: -h, width: UNIT, height: UNIT, fill, "data-piece": ids[i] }, g);
  const same = (j, ok) => ok && ids[j] === ids[i];
  const sides = [
    [!same(i - cols, i >= cols), -h, -h, h, -h],
    [!same(i + cols, i + cols < ids.length), -h, h, h, h],
    [!same(i - 1, i % cols > 0), -h, -h, -h, h],
    [!same(i + 1, i % cols < cols - 1), h, -h, h, h],
  ];
  for (const [edge, x1, y1, x2, y2] of sides) {
    if (edge) el("line", { x1, y1, x2, y2, stroke: "#fff", "stroke-width": 6 }, g);
  }
  el("text", { "text-anchor": "middle", "dominant-baseline": "central", "font-size": 20,
               fill: "#fff", "font-weight": "bold" }, g, v);
}

// A closed tour as a path through the centres of its squares.
function drawTour(svg, layout, at, seq, stroke) {
  const pts = seq.concat([seq[0]]).map((s) => at(layout.cells[s]).join(","));
  el("polyline", { points: pts.join(" "), fill: "none", stroke, "stroke-width": 3,
                   "stroke-linejoin": "round" }, svg);
  const [x, y] = at(layout.cells[seq[0]]);
  el("circle", { cx: x, cy: y, r: 6, fill: stroke }, svg);
}

function clickCell(i) {
  const moves = (app.answer && app.answer.legal_moves) || [];
  if (!moves.length) return;
  if (family() === "lights") {
    const to = pressed(cellsOf(app.answer.state), i);
    if (moves.some((m) => m.state === to)) play(to);
    return;
  }
  if (app.selected !== null) {
    const to = moves.filter((m) => m.move.from[0] === app.selected && m.move.to[m.move.to.length - 1] === i);
    if (to.length) { play(to[0].state); return; }
    app.selected = null;
  }
  const from = moves.filter((m) => m.move.from[0] === i);
  if (!from.length) { drawPosition(); return; }
  if (twoClick()) {
    app.selected = i;
    drawPosition();
  } else {
    play(from[0].state);
  }
}

// ---------------------------------------------------------------------------------
// Lights Out: a click presses a light, toggling it and its neighbours on the grid.

// The position after pressing cell `i` of the lights `cells`.
function pressed(cells, i) {
  const s = cells.slice(), flip = (c) => { s[c] = s[c] === "1" ? "0" : "1"; };
  flip(i);
  for (const [u, v] of app.puzzle.layout.edges) {
    if (u === i) flip(v);
    if (v === i) flip(u);
  }
  return s.join("");
}

// Each light's press and the distance it leads to, from the legal moves.
function pressHints(cells, moves) {
  const hints = new Map(), by = new Map(moves.map((m) => [m.state, m.distance]));
  cells.forEach((_, i) => {
    const to = pressed(cells, i);
    if (by.has(to)) hints.set(i, { kind: "movable", distance: by.get(to) });
  });
  return hints;
}

// ---------------------------------------------------------------------------------
// The Tower of Hanoi: pegs side by side, each disc as wide as its size. Click a peg to
// take its top disc, then the peg to put it on.

function drawHanoi(svg, a) {
  const d = app.puzzle.definition, k = d.pegs, n = d.discs, state = a.state;
  const discH = 16, widest = UNIT * 1.6, span = widest + 16, pad = 16;
  const h = (n + 2) * discH + 2 * pad, w = k * span + 2 * pad;
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.style.maxWidth = Math.min(w, 640) + "px";
  const letter = (p) => String.fromCharCode(65 + p);
  const moves = a.legal_moves || [];
  const top = (p) => state.lastIndexOf(letter(p));   // the smallest disc on p
  for (let p = 0; p < k; p++) {
    const cx = pad + span * (p + 0.5), base = h - pad;
    const g = el("g", { class: "cell peg-" + letter(p), "data-cell": p }, svg);
    el("rect", { x: cx - widest / 2, y: base - 6, width: widest, height: 6, fill: "#8d6e63" }, g);
    el("rect", { x: cx - 3, y: base - (n + 1.5) * discH, width: 6, height: (n + 1.5) * discH, fill: "#a1887f" }, g);
    el("text", { x: cx, y: pad - 2, "text-anchor": "middle", "font-size": 13, fill: "#5d4037" }, g, letter(p));
    // The discs on p, largest (first in the notation) at the bottom.
    let level = 0;
    for (let j = 0; j < n; j++) {
      if (state[j] !== letter(p)) continue;
      const size = n - j, dw = 16 + (widest - 16) * (size - 1) / Math.max(1, n - 1);
      el("rect", { class: "disc", x: cx - dw / 2, y: base - 6 - (level + 1) * discH, width: dw,
                   height: discH - 2, rx: 5, fill: `hsl(${(size * 37) % 360},60%,55%)`, stroke: "#4e342e" }, g);
      level++;
    }
    if (app.selected === p) {
      el("rect", { x: cx - span / 2 + 2, y: 2, width: span - 4, height: h - 4, fill: "none",
                   stroke: "#1565c0", "stroke-width": 3, rx: 6 }, g);
    } else if (app.selected !== null && top(app.selected) >= 0) {
      const j = top(app.selected), to = state.slice(0, j) + letter(p) + state.slice(j + 1);
      const m = moves.find((x) => x.state === to);
      if (m) el("text", { class: "hint " + verdict(m.distance), x: cx, y: pad + 14, "text-anchor": "middle",
                          "font-size": 15, "font-weight": "bold", fill: colour(verdict(m.distance)) },
                g, m.distance === null ? "×" : String(m.distance));
    }
    g.addEventListener("click", () => clickPeg(p));
  }
  drawInfo();
  document.body.setAttribute("data-shown", app.puzzle.puzzle);
}

function clickPeg(p) {
  const a = app.answer, letter = (q) => String.fromCharCode(65 + q);
  if (app.selected === null || app.selected === p) {
    app.selected = app.selected === null && a.state.includes(letter(p)) ? p : null;
    drawPosition();
    return;
  }
  const j = a.state.lastIndexOf(letter(app.selected));
  const to = a.state.slice(0, j) + letter(p) + a.state.slice(j + 1);
  app.selected = null;
  if ((a.legal_moves || []).some((m) => m.state === to)) play(to); else drawPosition();
}

function drawInfo() {
  const a = app.answer;
  const d = $("distance"), info = $("info"), list = $("moves");
  info.innerHTML = "";
  list.innerHTML = "";
  // Enumerations (the magic triangle, tours) have no moves: no buttons that walk them.
  for (const id of ["back", "best", "forward"]) $(id).hidden = isEnumeration();
  $("back").disabled = app.at === 0;
  $("forward").disabled = app.at >= app.line.length - 1;
  if (isEnumeration()) {
    d.removeAttribute("data-distance");
    if (family() === "magic") {
      d.textContent = a.solution ? `magic: every side sums to ${a.sums[0]}` : `sides sum to ${a.sums.join(", ")}`;
      if (a.canonical) html("p", {}, info, `class representative: ${a.canonical}`);
    } else {
      d.textContent = a.solution ? "a closed tour in the file" : "not in the file";
    }
    $("moves-title").hidden = true;
    return;
  }
  $("moves-title").hidden = false;
  d.setAttribute("data-distance", a.distance === null ? "" : a.distance);
  d.textContent = a.distance === null ? "distance: cannot reach the goal" :
    a.distance === 0 ? "distance: 0 (solved)" : `distance: ${a.distance}`;
  $("best").disabled = !(a.distance > 0);
  if (a.solutions !== null && a.solutions !== undefined) {
    html("p", {}, info, `${a.solutions} shortest solution${a.solutions === 1 ? "" : "s"}`);
  } else if (a.nodes !== undefined) {
    html("p", {}, info, `optimal, by a search of ${a.nodes.toLocaleString()} nodes in ${a.seconds.toFixed(3)} s`);
  } else if (a.unsolvable) {
    html("p", { class: "error" }, info, a.unsolvable);
  }
  if (a.cluster !== undefined) {
    html("p", {}, info, `its cluster: ${a.cluster.toLocaleString()} positions reachable from it`);
  }
  if (Array.isArray(a.moves) && a.moves.length) {
    // The optimal path's moves, by name (`R U2 F'`), or a peg's jumps.
    const names = a.moves.map((m) => (Array.isArray(m) ? "[" + m.join(",") + "]" : m));
    const spaced = names.some((n) => n.includes(" "));
    html("p", { class: "solution" }, info, `solution: ${names.join(spaced ? "; " : " ")}`);
  }
  const cells = cellsOf(a.state);
  for (const m of a.legal_moves) {
    const v = verdict(m.distance);
    const what = moveName(m.move, cells);
    const li = html("li", { class: v, "data-state": m.state, title: `${what} to ${m.state}` }, list);
    html("span", { class: "what" }, li, what);
    li.appendChild(document.createTextNode(" "));
    html("span", { class: "to" }, li, m.state);
    li.appendChild(document.createTextNode(" "));
    html("span", { class: "d" }, li, m.distance === null ? "×" : String(m.distance));
    li.addEventListener("click", () => play(m.state));
  }
}

// The eight directions on the screen, clockwise from the right (y grows downwards).
const ARROWS = ["\u2192", "\u2198", "\u2193", "\u2199", "\u2190", "\u2196", "\u2191", "\u2197"];

// The direction from cell `a` to cell `b` of the layout, as an arrow.
function direction(a, b) {
  const [x1, y1] = app.puzzle.layout.cells[a], [x2, y2] = app.puzzle.layout.cells[b];
  const eighth = Math.round(Math.atan2(y2 - y1, x2 - x1) / (Math.PI / 4));
  return ARROWS[(eighth + 8) % 8];
}

// A move named by what moves, in the position `cells` it is played from: a sliding tile
// and the way it slides into the blank (`5 ↑`); a token and its squares (`B 0 → 7`); an
// oshidori pair and its cells (`BW 2+3 → 6+7`); a peg's chain of jumps (`[4,16,28]`);
// a move with a name of its own as named (a cube's `R2`).
function moveName(mv, cells) {
  if (mv.name) return mv.name;
  if (mv.jumps) return "[" + mv.jumps.join(",") + "]";
  const pieces = mv.from.map((i) => cells[i]).join("");
  if (mv.from.length === 1 && mv.to.length === 1 && family() !== "tokens" && cells[mv.to[0]] === "0") {
    return `${pieces} ${direction(mv.from[0], mv.to[0])}`;
  }
  return `${pieces} ${mv.from.join("+")} \u2192 ${mv.to.join("+")}`;
}

function bestMove() {
  const a = app.answer;
  if (!a || isEnumeration() || !(a.distance > 0) || !a.legal_moves.length) return;
  play(a.legal_moves[0].state);
}

function step(delta) {
  const i = app.at + delta;
  if (i < 0 || i >= app.line.length) return;
  app.at = i;
  go(app.puzzle.puzzle, app.line[i]);
}

// ---------------------------------------------------------------------------------
// Figures: histogram, longest positions, peg matrix, magic sums, tours

function drawFigures() {
  const p = app.puzzle;
  // Enumerations store solutions (the arrangements that are magic, the tours), not
  // positions that lead somewhere.
  const counted = isEnumeration() ? "solutions" : "positions";
  // A puzzle that stores nothing (Rush Hour) searches each board's cluster when asked.
  const f = [`${p.family}`, p.answered_by === "cluster search" ? "each board's cluster searched when asked"
                                                               : `${p.solvable.toLocaleString()} ${counted}`];
  if (p.max_distance !== null) f.push(`longest ${p.max_distance}`);
  $("figures").textContent = f.join(" · ");
  drawHistogram(p.histogram);
  const scramble = $("scramble"), examples = $("examples");
  scramble.hidden = p.answered_by !== "search";
  examples.hidden = !(p.examples && p.examples.length);
  examples.innerHTML = "";
  if (p.examples) {
    html("option", { value: "" }, examples, "examples\u2026");
    for (const x of p.examples) {
      html("option", { value: x.state }, examples,
           x.distance === undefined ? x.name : `${x.name} (${x.distance} moves)`);
    }
  }
  const longest = $("longest"), extra = $("extra");
  longest.innerHTML = "";
  extra.innerHTML = "";
  if (p.longest) {
    html("h3", {}, longest, `longest: ${p.longest.distance} moves (${p.longest.states.length})`);
    for (const s of p.longest.states.slice(0, 40)) {
      const a = html("a", { class: "example", "data-state": s }, longest, s);
      a.addEventListener("click", () => go(p.puzzle, s));
      html("br", {}, longest);
    }
  }
  if (p.matrix) {
    html("h3", {}, extra, "minimum moves: start (row, empty hole) to finish (column, last peg)");
    // Wider than a phone for the larger boards: it scrolls in a box of its own.
    const t = html("table", { class: "matrix", id: "matrix" }, html("div", { class: "scroll" }, extra));
    const head = html("tr", {}, t);
    html("th", {}, head, "");
    p.matrix.forEach((_, j) => html("th", {}, head, String(j)));
    p.matrix.forEach((row, i) => {
      const tr = html("tr", {}, t);
      html("th", {}, tr, String(i));
      row.forEach((d) => html("td", {}, tr, d === null ? "-" : String(d)));
    });
  }
  if (p.solutions) {
    html("h3", {}, extra, "solutions per side sum (one per class)");
    for (const [sum, list] of Object.entries(p.solutions)) {
      const div = html("div", { class: "sum" }, extra, `sum ${sum}: `);
      for (const s of list) {
        const a = html("a", { "data-state": s }, div, s);
        a.addEventListener("click", () => go(p.puzzle, s));
        div.appendChild(document.createTextNode(" "));
      }
    }
  }
  if (p.tours) {
    html("h3", {}, extra, `${p.tours.count.toLocaleString()} closed tour(s), one per direction pair` +
      (p.tours.count > p.tours.listed.length ? `; the first ${p.tours.listed.length}` : ""));
    for (const s of p.tours.listed) {
      const svg = el("svg", { class: "tour" }, extra);
      const at = frame(svg, p.layout.cells, UNIT * 0.6);
      svg.setAttribute("width", 120);
      svg.setAttribute("height", 120 * svg.viewBox.baseVal.height / svg.viewBox.baseVal.width);
      drawTour(svg, p.layout, at, s.split(" ").map(Number), "#6a1b9a");
      svg.style.cursor = "pointer";
      svg.addEventListener("click", () => go(p.puzzle, s));
    }
  }
  // Nothing stored to draw (a puzzle answered by search): say why in a sentence.
  const stored = p.histogram || p.longest || p.matrix || p.solutions || p.tours;
  $("figures-note").textContent = stored ? "" : p.answered_by === "search" ?
    `${p.puzzle} is answered by an exact search over pattern databases when a position is ` +
    "asked for, so there is no stored histogram or longest list." :
    `${p.puzzle} has no stored histogram or longest list.`;
}

function drawHistogram(h) {
  const svg = $("histogram");
  svg.innerHTML = "";
  // No histogram (a puzzle answered by search): no heading either.
  $("histogram-title").hidden = !h;
  svg.style.display = h ? "" : "none";
  if (!h) return;
  const entries = Array.isArray(h) ? h.map((n, d) => [String(d), n]) : Object.entries(h);
  $("histogram-title").textContent = Array.isArray(h) ? "positions per distance" : "solutions per side sum";
  const W = 420, H = 180, pad = 28;
  svg.setAttribute("viewBox", `0 0 ${W} ${H + pad}`);
  const max = Math.max(...entries.map((e) => e[1]), 1);
  const bw = (W - pad) / entries.length;
  entries.forEach(([k, n], i) => {
    const bh = (H - 10) * n / max;
    const r = el("rect", { class: "bar", x: pad + i * bw + 1, y: H - bh, width: Math.max(bw - 2, 1),
                           height: bh, fill: "#42a5f5", "data-key": k, "data-count": n }, svg);
    el("title", {}, r, `${k}: ${n.toLocaleString()}`);
    if (entries.length <= 24 || i % 5 === 0) {
      el("text", { x: pad + i * bw + bw / 2, y: H + 14, "font-size": 10, "text-anchor": "middle" }, svg, k);
    }
  });
  el("text", { x: 2, y: 12, "font-size": 10 }, svg, max.toLocaleString());
}

// ---------------------------------------------------------------------------------

async function main() {
  try {
    app.puzzles = await api("/api/puzzles");
  } catch (e) {
    $("status").textContent = e.message;
    return;
  }
  const sel = $("puzzle");
  for (const p of app.puzzles) html("option", { value: p.puzzle }, sel, p.puzzle);
  sel.addEventListener("change", () => go(sel.value, null));
  $("best").addEventListener("click", bestMove);
  $("back").addEventListener("click", () => step(-1));
  $("forward").addEventListener("click", () => step(1));
  $("scramble").addEventListener("click", () => play(scrambled()));
  $("examples").addEventListener("change", (e) => { if (e.target.value) play(e.target.value); });
  $("position-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("position").value.trim();
    if (text) show(text, false).then(() => {
      if (!$("position-error").textContent) go(app.puzzle.puzzle, app.answer.state);
    });
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (e.key === " ") { e.preventDefault(); bestMove(); }
    else if (e.key === "ArrowLeft") step(-1);
    else if (e.key === "ArrowRight") step(1);
  });
  window.addEventListener("hashchange", route);
  await route();
  document.body.setAttribute("data-ready", "1");
}

main();
