// The Rebirth web app's pages: a new game, a game seen from one seat, and the study of a record.
// Plain JavaScript with no build step. The server checks every move; this page only shows what its
// seat's link may see and sends what the player clicks.
"use strict";

const $ = (sel) => document.querySelector(sel);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
const hexText = (h) => (h ? `(${h[0]},${h[1]})` : "nowhere (passed)");
const signed = (n) => (n > 0 ? `+${n}` : `${n}`);

// the server's page secret: it answers requests that read files only when they carry it (docs/security.md)
const PAGE = document.querySelector('meta[name="rebirth-page"]')?.content ?? "";
let opponent = "oneply";  // the opponent the forms preselect: the catalog's default_agent (registry.DEFAULT_OPPONENT)

async function api(path, body) {
  const opts = body === undefined ? {} : {method: "POST", headers: {"Content-Type": "application/json", "X-Rebirth-Page": PAGE}, body: JSON.stringify(body)};
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = {error: `${r.status} ${r.statusText}`}; }
  if (!r.ok) {
    const err = new Error(data.error + (data.rule ? ` (${data.rule})` : ""));
    err.status = r.status;
    err.rule = data.rule;
    throw err;
  }
  return data;
}

// the board's picture: served on its own (the same for every seat), drawn once per version
async function svgText(url) {
  const r = await fetch(url);
  if (!r.ok) throw Object.assign(new Error(`the board could not be drawn (${r.status})`), {status: r.status});
  return r.text();
}

function showError(msg) {
  const box = $("#error");
  const was = box.hidden;
  box.textContent = msg;
  box.hidden = !msg;
  if (was !== box.hidden) fitFrames();  // the board's frame takes what is left below the message
}

function status(text) { $("#status").textContent = text; }

function readFile(input) {
  return new Promise((resolve, reject) => {
    const f = input.files[0];
    if (!f) { resolve(null); return; }
    const rd = new FileReader();
    rd.onload = () => resolve({name: f.name, text: rd.result});
    rd.onerror = () => reject(new Error(`cannot read ${f.name}`));
    rd.readAsText(f);
  });
}

// ----- shared pieces: tiles, scores, castles, missions, a move with its events ----------------------------
function swatch(colour) { return `<span class="swatch" style="background:${colour}"></span>`; }

// a tile as a tile: a hex in its kind's colour (the board's), its number (influence) as pips; the kind's
// name is its caption for anyone who does not tell the colours apart
function tilePic(name, view, big) {
  const [kind, num] = String(name).split(":");
  const art = (view.tile_art || {})[kind] || {colour: "#ddd", attribute: null};
  const n = num === undefined ? 0 : Number(num);
  const w = big ? 34 : 20, h = big ? 38 : 22;
  const pts = [[0.5, 0], [1, 0.25], [1, 0.75], [0.5, 1], [0, 0.75], [0, 0.25]].map(([x, y]) => `${x * w},${y * h}`).join(" ");
  const pip = (x, y) => `<circle cx="${x * w}" cy="${y * h}" r="${w * 0.075}" fill="#3b2a1a"/>`;
  const layout = {1: [[0.5, 0.5]], 2: [[0.36, 0.5], [0.64, 0.5]], 3: [[0.5, 0.32], [0.33, 0.64], [0.67, 0.64]],
    4: [[0.35, 0.35], [0.65, 0.35], [0.35, 0.65], [0.65, 0.65]], 5: [[0.33, 0.33], [0.67, 0.33], [0.5, 0.5], [0.33, 0.67], [0.67, 0.67]]};
  const pips = n > 0 && n <= 5 ? layout[n].map(([x, y]) => pip(x, y)).join("") :
    n > 5 ? `<text x="${w / 2}" y="${h * 0.62}" font-size="${h * 0.4}" text-anchor="middle" font-weight="bold">${n}</text>` : "";
  const said = art.attribute && num !== undefined ? `${kind}, ${art.attribute} ${n}` : kind;
  return `<span class="tilepic" title="${esc(said)}"><svg width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" aria-hidden="true">` +
    `<polygon points="${pts}" fill="${esc(art.colour)}" stroke="#5a4a32" stroke-width="1.2"/>${pips}</svg>` +
    `<span class="tilename">${esc(kind)}${art.attribute && num !== undefined ? ` <span class="small">${esc(art.attribute)} ${n}</span>` : ""}</span></span>`;
}

function tiles(names, view) { return names.map((t) => tilePic(t, view, false)).join(" "); }

function progressText(pr) {
  if (!pr) return "";
  if (pr.value !== undefined) return `${pr.value} of ${pr.target}`;
  return pr.met ? "yes" : "not yet";
}

function progressBar(pr) {
  if (!pr || pr.value === undefined) return "";
  const pct = Math.max(0, Math.min(100, Math.round(100 * pr.value / Math.max(1, pr.target))));
  return `<span class="bar"><span style="width:${pct}%"></span></span>`;
}

// a held card, with how far its holder is (the holder's own, or everyone's at the end)
function cardHtml(c) {
  const mark = c.fulfilled === undefined ? (c.progress && c.progress.met ? " met" : "") : (c.fulfilled ? " fulfilled" : " missed");
  const badge = c.fulfilled === undefined ? (c.progress && c.progress.met ? "<span class=\"badge\">met now</span>" : "") :
    c.fulfilled ? `<span class="badge">fulfilled: +${c.paid}</span>` : "<span class=\"badge\">not fulfilled</span>";
  return `<li class="mission${mark}" data-card="${esc(c.name)}"><b>${esc(c.name)}</b> <span class="small">(${c.points} points)</span> ${badge}` +
    `<br>${esc(c.text)}` + (c.progress && c.fulfilled === undefined ? `<br><span class="small">you: ${progressText(c.progress)}</span> ${progressBar(c.progress)}` : "") + "</li>";
}

function scoresTable(view, el) {
  const top = Math.max(1, ...view.players.map((p) => (p.final !== undefined ? p.final : p.score)));
  const rows = view.players.map((p) => {
    const aside = p.set_aside ? (p.set_aside.length ? tiles(p.set_aside, view) : "none") : `${p.set_aside_count} face down`;
    const hand = p.hand ? (p.hand.length ? tiles(p.hand, view) : "empty") : `${p.hand_count} tile${p.hand_count === 1 ? "" : "s"}`;
    const turn = view.turn === p.seat ? " class=\"turn\"" : "";
    const you = view.you === p.seat ? " (you)" : "";
    const score = p.final !== undefined ? p.final : p.score;
    return `<tr${turn} data-seat="${p.seat}"><td>${swatch(view.colours[p.seat])}${esc(p.name)}${you}</td>` +
      `<td class="agent">${esc(p.agent === "human" ? "" : p.agent)}</td><td class="num score">${score}` +
      `<div class="track" style="width:${Math.round(100 * score / top)}%;background:${view.colours[p.seat]}"></div></td>` +
      `<td class="small">hand: ${hand}; supply ${p.supply}; set aside: ${aside}` +
      (p.missions && view.you !== p.seat ? `; missions: ${esc(p.missions.map((c) => c.name).join(", ") || "none")}`
        : p.cards_held ? `; ${p.cards_held} mission card${p.cards_held > 1 ? "s" : ""}` : "") + "</td></tr>";
  });
  el.innerHTML = `<tr><th>player</th><th></th><th class="num">score</th><th></th></tr>` + rows.join("");
}

function castlesText(view) {
  const c = Object.entries(view.castles || {}).filter(([, v]) => v);
  if (!c.length) return Object.keys(view.castles || {}).length ? "<p class=\"small\">No castle is held yet.</p>" : "";
  return "<p class=\"small\"><b>Held:</b> " + c.map(([k, v]) => `${esc(k)}: ${esc(v || "-")}`).join(", ") + "</p>";
}

// the face-up cards: every player's progress is shown (they read the board, which everyone sees)
function publicList(view, el, box) {
  box.hidden = !view.public.length;
  el.innerHTML = view.public.map((c) =>
    `<li class="mission${c.by.length ? " fulfilled" : ""}" data-card="${esc(c.name)}"><b>${esc(c.name)}</b> ` +
    `<span class="small">(${c.points} to the first, ${c.small ?? 0} to each later player)</span>` +
    (c.by.length ? ` <span class="badge">fulfilled by ${esc(c.by.join(", "))}</span>` : "") + `<br>${esc(c.text)}` +
    `<br><span class="small">${view.players.map((p, q) => `${swatch(view.colours[q])}${esc(p.name)}: ` +
      (c.by.includes(p.name) ? "done" : progressText((c.progress || [])[q]))).join("; ")}` +
    (c.doubled_by.length ? `; doubled by ${esc(c.doubled_by.join(", "))}` : "") + "</span></li>").join("");
}

// a move and what it did: each event with its points, whom it paid when not the mover (an area completed
// pays every player in it), and its rule ids
function moveHtml(m, view) {
  const pts = m.points ? ` <b>${signed(m.points)}</b>` : "";
  const ch = Object.entries(m.choices || {}).map(([lm, c]) =>
    `${esc(lm)}: ${c === false ? "declined" : c === true ? "used" : esc(Object.values(c).join(", "))}`).join("; ");
  const seatOf = (name) => view.players.findIndex((p) => p.name === name);
  const evs = m.events.map((e) => {
    const other = e.player && e.player !== m.player && e.points ? `${swatch(view.colours[seatOf(e.player)])}${esc(e.player)} ` : "";
    return `<li class="event" data-category="${esc(e.category)}">${other}${e.points ? `<b>${signed(e.points)}</b> ` : ""}${esc(e.text)} ` +
      `<span class="rule">${esc(e.rules.join(", "))}</span></li>`;
  }).join("");
  return `${swatch(view.colours[m.seat])}<b>${m.n + 1}. ${esc(m.player)}</b> ${tilePic(m.tile, view, false)} on ${hexText(m.hex)}${pts}` +
    (ch ? ` <span class="small">[${ch}]</span>` : "") + (evs ? `<ul>${evs}</ul>` : "");
}

// the end screen's cards: each player's held cards, fulfilled or not, and the face-up ones with who did them
function cardsAtEnd(view) {
  const held = view.players.filter((p) => p.missions && p.missions.length).map((p) =>
    `<h4>${swatch(view.colours[p.seat])}${esc(p.name)}</h4><ul class="plain">${p.missions.map(cardHtml).join("")}</ul>`).join("");
  const pub = view.public.length ? `<h4>Face-up missions</h4><ul class="plain">${view.public.map((c) =>
    `<li class="mission ${c.by.length ? "fulfilled" : "missed"}" data-card="${esc(c.name)}"><b>${esc(c.name)}</b>: ` +
    `${c.by.length ? `<span class="badge">fulfilled by ${esc(c.by.join(", "))}</span>` : "<span class=\"badge\">nobody</span>"}<br>${esc(c.text)}</li>`).join("")}</ul>` : "";
  return held || pub ? `<div id="endcards"><h3>Mission cards</h3>${held}${pub}</div>` : "";
}

function resultHtml(view, extra) {
  const r = view.result;
  const cats = view.categories.filter((c) => r.players.some((p) => p.breakdown[c]));
  // a row per category, a column per player: the sidebar is narrow and a ruleset may have many categories
  const head = `<tr><th></th>${r.players.map((p, i) => `<th class="num">${swatch(view.colours[i])}${esc(p.name)}</th>`).join("")}</tr>`;
  const rows = cats.map((c) => `<tr><td>${esc(c.replace(/_/g, " "))}</td>` +
    r.players.map((p) => `<td class="num">${p.breakdown[c] || 0}</td>`).join("") + "</tr>").join("") +
    `<tr class="totalrow"><th>total</th>${r.players.map((p) => `<td class="num total" data-player="${esc(p.name)}">${p.score}</td>`).join("")}</tr>`;
  const ends = r.end_events.map((e) => `<li>${e.points ? `<b>${signed(e.points)}</b> ` : ""}${esc(e.text)} <span class="rule">${esc(e.rules.join(", "))}</span></li>`).join("");
  return `<h3>Game over</h3><p id="winner">Winner${r.winners.length > 1 ? "s" : ""}: <b>${esc(r.winners.join(", "))}</b>` +
    (r.decided_by ? ` <span class="small">(${esc(r.decided_by)})</span>` : "") + "</p>" +
    `<table class="breakdown">${head}${rows}</table>${cardsAtEnd(view)}${extra || ""}<details><summary>End-of-game scoring</summary><ul>${ends}</ul></details>`;
}

// ----- the board: fitted to the screen, zoomed and panned by changing the picture's viewBox ----------------
// The whole picture fits its frame at first (the frame is sized to what is left of the window); the wheel,
// a pinch or the buttons zoom about a point, a drag pans, "Fit" goes back to the whole board. A drag or a
// pinch is not a click: the hex under it is not played.
const viewers = new WeakMap();

function viewer(container) {
  let v = viewers.get(container);
  if (v) return v;
  v = {container, full: null, vb: null, pointers: new Map(), moved: false, pinch: null, lastType: "mouse"};
  viewers.set(container, v);
  const svgOf = () => container.querySelector("svg");
  const toUser = (x, y) => {  // a point of the window in the picture's coordinates
    const svg = svgOf();
    const m = svg.getScreenCTM();
    if (!m) return {x: 0, y: 0};
    const p = new DOMPoint(x, y).matrixTransform(m.inverse());
    return {x: p.x, y: p.y};
  };
  v.apply = () => {
    const svg = svgOf();
    if (svg && v.vb) svg.setAttribute("viewBox", v.vb.map((n) => n.toFixed(2)).join(" "));
    const wrap = container.closest(".boardwrap");
    if (wrap) wrap.classList.toggle("zoomed", v.zoomed());
  };
  v.zoomed = () => Boolean(v.full && v.vb && v.vb[2] < v.full[2] * 0.999);
  v.clamp = () => {  // some of the board stays in the frame
    const [fx, fy, fw, fh] = v.full;
    let [x, y, w, h] = v.vb;
    w = Math.min(fw, Math.max(fw / 12, w));
    h = w * fh / fw;
    x = Math.min(fx + fw - w / 2, Math.max(fx - w / 2, x));
    y = Math.min(fy + fh - h / 2, Math.max(fy - h / 2, y));
    if (w >= fw) { x = fx; y = fy; }
    v.vb = [x, y, w, h];
  };
  v.zoom = (factor, cx, cy) => {  // factor < 1 zooms in, about the window point (cx, cy)
    if (!v.full) return;
    const c = cx === undefined ? null : toUser(cx, cy);
    const [x, y, w, h] = v.vb;
    const px = c ? c.x : x + w / 2, py = c ? c.y : y + h / 2;
    v.vb = [px - (px - x) * factor, py - (py - y) * factor, w * factor, h * factor];
    v.clamp();
    v.apply();
  };
  v.panBy = (dx, dy) => {  // window pixels
    const svg = svgOf();
    const m = svg && svg.getScreenCTM();
    if (!m) return;
    v.vb[0] -= dx / m.a;
    v.vb[1] -= dy / m.d;
    v.clamp();
    v.apply();
  };
  v.reset = () => { if (v.full) { v.vb = v.full.slice(); v.apply(); } };
  v.show = (poly) => {  // bring a hex into the frame when zoomed (the keyboard's cursor)
    if (!v.zoomed()) return;
    const r = poly.getBoundingClientRect(), f = container.getBoundingClientRect();
    let dx = 0, dy = 0;
    if (r.left < f.left) dx = f.left - r.left + 20; else if (r.right > f.right) dx = f.right - r.right - 20;
    if (r.top < f.top) dy = f.top - r.top + 20; else if (r.bottom > f.bottom) dy = f.bottom - r.bottom - 20;
    if (dx || dy) v.panBy(dx, dy);
  };
  container.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    v.zoom(Math.exp(Math.max(-1, Math.min(1, ev.deltaY * (ev.deltaMode ? 0.05 : 0.002)))), ev.clientX, ev.clientY);
  }, {passive: false});
  container.addEventListener("pointerdown", (ev) => {
    v.lastType = ev.pointerType || "mouse";
    if (ev.pointerType === "mouse" && ev.button !== 0) return;
    v.pointers.set(ev.pointerId, {x: ev.clientX, y: ev.clientY, x0: ev.clientX, y0: ev.clientY});
    if (v.pointers.size === 1) v.moved = false;
    if (v.pointers.size === 2) {
      const [a, b] = [...v.pointers.values()];
      v.pinch = {d: Math.hypot(a.x - b.x, a.y - b.y) || 1};
      v.moved = true;
    }
  });
  container.addEventListener("pointermove", (ev) => {
    const p = v.pointers.get(ev.pointerId);
    if (!p) return;
    const dx = ev.clientX - p.x, dy = ev.clientY - p.y;
    p.x = ev.clientX;
    p.y = ev.clientY;
    if (v.pointers.size >= 2 && v.pinch) {
      const [a, b] = [...v.pointers.values()];
      const d = Math.hypot(a.x - b.x, a.y - b.y) || 1;
      v.zoom(v.pinch.d / d, (a.x + b.x) / 2, (a.y + b.y) / 2);
      v.pinch.d = d;
      return;
    }
    if (!v.moved && Math.hypot(p.x - p.x0, p.y - p.y0) < 6) return;  // a click may wobble a little
    if (!v.moved) container.setPointerCapture?.(ev.pointerId);
    v.moved = true;
    v.panBy(dx, dy);
  });
  const up = (ev) => {
    v.pointers.delete(ev.pointerId);
    if (v.pointers.size < 2) v.pinch = null;
  };
  container.addEventListener("pointerup", up);
  container.addEventListener("pointercancel", up);
  // a drag or a pinch ends in a click on whatever is under it: that click is not a move
  container.addEventListener("click", (ev) => { if (v.moved) { ev.stopImmediatePropagation(); v.moved = false; } }, true);
  const tools = document.createElement("div");
  tools.className = "zoomtools";
  tools.innerHTML = "<button type=\"button\" class=\"zin\" title=\"zoom in (+)\">+</button>" +
    "<button type=\"button\" class=\"zout\" title=\"zoom out (-)\">&minus;</button>" +
    "<button type=\"button\" class=\"zfit\" title=\"the whole board (0)\">Fit</button>";
  container.closest(".boardwrap").append(tools);
  tools.querySelector(".zin").onclick = () => v.zoom(0.7);
  tools.querySelector(".zout").onclick = () => v.zoom(1 / 0.7);
  tools.querySelector(".zfit").onclick = () => v.reset();
  return v;
}

// the frame takes what is left of the window below its top, so the whole board shows without scrolling
function fitFrames() {
  document.querySelectorAll(".boardwrap").forEach((wrap) => {
    if (!wrap.offsetParent) return;
    const top = wrap.getBoundingClientRect().top + window.scrollY;
    wrap.style.height = `${Math.max(260, window.innerHeight - top - 12)}px`;
  });
}
window.addEventListener("resize", fitFrames);

// hexes are drawn by the server's renderer, one <polygon class="hex"> per board hex, in board order; each
// is numbered (data-i) once drawn, so that a highlighted hex can be raised above its neighbours. A new
// picture keeps the zoom of the one before (the board is the same).
function drawBoard(container, svg) {
  const v = viewer(container);
  container.innerHTML = svg;
  const el = container.querySelector("svg");
  el.removeAttribute("width");
  el.removeAttribute("height");
  el.setAttribute("preserveAspectRatio", "xMidYMid meet");
  const full = el.getAttribute("viewBox").split(/[ ,]+/).map(Number);
  if (!v.full || v.full.join() !== full.join()) { v.full = full; v.vb = full.slice(); }
  v.apply();
  container.querySelectorAll("polygon.hex").forEach((p, i) => { p.dataset.i = i; });
  fitFrames();
}

function polygons(container) {
  const out = [];
  container.querySelectorAll("polygon.hex").forEach((p) => { out[Number(p.dataset.i)] = p; });
  return out;
}

function raise(poly) {  // after the other hexes (still under the tiles and names): its outline shows whole
  const all = poly.parentNode.querySelectorAll("polygon.hex");
  all[all.length - 1].after(poly);
}

function hexIndex(poly) { return poly ? Number(poly.dataset.i) : -1; }

function markLast(view, polys, move) {
  if (!move || !move.hex) return;
  const i = view.hexes.findIndex((h) => h[0] === move.hex[0] && h[1] === move.hex[1]);
  if (i >= 0 && polys[i]) { polys[i].classList.add("last"); raise(polys[i]); }
}

// ----- analysis: hints, forecasts (the engine's, as `rebirth hint` and `eval --forecast` give them) -----
const pct = (x) => `${Math.round(100 * x)}%`;
const num = (x) => (x > 0 ? `+${x.toFixed(1)}` : x.toFixed(1));

async function analysis(path, body, out, html) {
  showError("");
  out.innerHTML = "<p class=\"small\">thinking...</p>";
  try {
    const r = await api(path, body);
    out.innerHTML = html(r);
  } catch (e) { out.innerHTML = ""; showError(e.message); }
}

function hintHtml(h) {
  const rows = h.moves.map((m) => `<li class="hintmove" data-hex="${m.hex ? m.hex.join(",") : ""}">` +
    `${esc(m.tile)} ${esc(hexText(m.hex))}${m.hex_kind ? ` ${esc(m.hex_kind)}` : ""}: margin <b>${num(m.margin.mean)}</b> ` +
    `<span class="small">[${num(m.margin.ci[0])}, ${num(m.margin.ci[1])}], own final ${m.final.mean.toFixed(1)}, win ${pct(m.win.mean)}</span>` +
    `<div class="does">${esc(m.does)}</div></li>`);
  const screened = h.screened && h.screened.length ? `<p class="small">${h.screened.length} more moves screened out by the one-ply evaluation (not played out).</p>` : "";
  return `<p class="small">${esc(h.player)} to move: ranked by expected final margin (own final score - best other), ` +
    `${h.playouts} playouts each by ${esc([...new Set(h.agents)].join(", "))}; 95% intervals. Dealt anew each playout: ${esc(h.sampled.join("; "))}</p>` +
    `<ol class="plain hints">${rows.join("")}</ol>${screened}`;
}

function forecastHtml(f) {
  const head = f.exact ? "The game is over: its final scores." :
    `From ${esc(f.viewer)}'s view (${esc(f.to_move)} to move), ${f.playouts} playouts; 95% intervals. Dealt anew each playout: ${esc(f.sampled.join("; "))}`;
  const rows = f.players.map((p) => `<tr><td>${esc(p.name)}</td><td class="num">${p.now}</td>` +
    `<td class="num">${p.final.mean.toFixed(1)} <span class="small">[${p.final.ci[0].toFixed(1)}, ${p.final.ci[1].toFixed(1)}]</span></td>` +
    `<td class="num">${pct(p.win.mean)}</td></tr>`).join("");
  return `<p class="small">${head}</p><table class="forecast"><tr><th>player</th><th class="num">now</th>` +
    `<th class="num">expected final</th><th class="num">win</th></tr>${rows}</table>`;
}

// ----- home: a new game --------------------------------------------------------------------------------
const NAMES = ["Ann", "Bob", "Cat", "Dan"];

async function home() {
  $("#home").hidden = false;
  status("");
  const cat = await api("/api/catalog");
  const rules = $("#rules");
  rules.innerHTML = cat.rules.map((r) => `<option value="${esc(r)}">${esc(r)}</option>`).join("") +
    `<option value="@file">a rules file...</option>`;
  if (cat.default_rules) rules.value = cat.default_rules;
  const board = $("#board");
  board.innerHTML = `<option value="">the ruleset's own</option>` +
    cat.boards.map((b) => `<option value="${esc(b)}">${esc(b)}</option>`).join("") + `<option value="@file">a board file...</option>`;
  rules.onchange = () => { $("#rules-file").hidden = rules.value !== "@file"; };
  board.onchange = () => { $("#board-file").hidden = board.value !== "@file"; };
  const agents = Object.keys(cat.agents);
  opponent = cat.default_agent || opponent;
  $("#seats").innerHTML += NAMES.map((n, i) =>
    `<div class="seat"><label><input type="checkbox" class="on" ${i < 2 ? "checked" : ""}> seat ${i + 1}</label>` +
    `<input type="text" class="name" value="${n}" size="8" aria-label="name of seat ${i + 1}">` +
    `<select class="agent">${agents.map((a) => `<option value="${a}" title="${esc(cat.agents[a])}" ${a === (i === 0 ? "human" : opponent) ? "selected" : ""}>${a === "human" ? "a person" : a}</option>`).join("")}</select></div>`).join("");
  $("#newgame").onsubmit = async (ev) => {
    ev.preventDefault();
    showError("");
    try {
      const spec = {seed: Number($("#seed").value || 0), seats: [], hints: $("#hints").checked};
      if (rules.value === "@file") spec.rules_file = await readFile($("#rules-file"));
      else spec.rules = rules.value;
      if (board.value === "@file") spec.board_file = await readFile($("#board-file"));
      else if (board.value) spec.board = board.value;
      document.querySelectorAll("#seats .seat").forEach((row) => {
        if (row.querySelector(".on").checked) spec.seats.push({name: row.querySelector(".name").value, agent: row.querySelector(".agent").value});
      });
      const made = await api("/api/games", spec);
      showLinks(made.links, $("#linktable"), $("#go"));
      $("#links").hidden = false;
    } catch (e) { showError(e.message); }
  };
}

function showLinks(links, table, go) {
  const abs = (u) => new URL(u, location.href).href;
  table.innerHTML = links.map((l) => `<tr><td>${esc(l.name)}</td><td>${esc(l.agent === "human" ? "a person" : l.agent || "")}</td>` +
    `<td>${l.agent === "human" || l.seat === null ? `<a href="${esc(l.url)}" class="seatlink" data-seat="${l.seat}">${esc(abs(l.url))}</a>` : ""}</td></tr>`).join("");
  const mine = links.find((l) => l.agent === "human") || links.find((l) => l.seat === null);
  go.textContent = mine.seat === null ? "Watch the game" : `Play as ${mine.name}`;
  go.onclick = (ev) => { ev.preventDefault(); location.href = mine.url; };
}

// ----- my games: the games this browser has joined, kept in this browser only (no accounts) -------------
const MINE = "rebirth-games";

function myGames() {
  try {
    const list = JSON.parse(localStorage.getItem(MINE) || "[]");
    return Array.isArray(list) ? list.filter((g) => g && typeof g.id === "string" && typeof g.t === "string") : [];
  } catch (e) { return []; }
}

function keepGame(entry) {
  const list = myGames().filter((g) => !(g.id === entry.id && g.t === entry.t));
  list.unshift({...entry, seen: Date.now()});
  try { localStorage.setItem(MINE, JSON.stringify(list.slice(0, 200))); } catch (e) { /* storage full or off */ }
}

function forgetGame(id, t) {
  try { localStorage.setItem(MINE, JSON.stringify(myGames().filter((g) => !(g.id === id && g.t === t)))); } catch (e) { /* off */ }
}

async function copyText(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "Copied";
  } catch (e) {  // no clipboard (an insecure origin, or refused): show the link to copy by hand
    window.prompt("Copy this link:", text);
  }
}

async function gamesPage() {
  $("#mygames").hidden = false;
  status("My games");
  const list = myGames();
  const table = $("#gamestable");
  $("#nogames").hidden = list.length > 0;
  table.innerHTML = list.map((g, k) => `<tr data-game="${esc(g.id)}" data-k="${k}"><td class="gtitle">${esc(g.title || g.id)}</td>` +
    `<td class="gseat">${esc(g.name || "watching")}</td><td class="gstate small">...</td><td class="gactions">` +
    `<a class="open" href="/game/${esc(g.id)}?t=${esc(g.t)}">Open</a> <button type="button" class="copy">Copy link</button> ` +
    `<a class="studyit" hidden href="/study?game=${esc(g.id)}&t=${esc(g.t)}">Study</a> <button type="button" class="forget">Forget</button></td></tr>`).join("");
  table.querySelectorAll("tr[data-game]").forEach((row) => {
    const g = list[Number(row.dataset.k)];
    row.querySelector(".copy").onclick = (ev) => copyText(new URL(`/game/${g.id}?t=${g.t}`, location.href).href, ev.target);
    row.querySelector(".forget").onclick = () => { forgetGame(g.id, g.t); row.remove(); };
  });
  await Promise.all(list.map(async (g, k) => {
    const row = table.querySelector(`tr[data-k="${k}"]`);
    try {
      const sm = await api(`/api/games/${encodeURIComponent(g.id)}/summary?t=${encodeURIComponent(g.t)}`);
      const scores = sm.players.map((p) => `${esc(p.name)} ${p.score}`).join(", ");
      let state;
      if (sm.over) state = `<b>over</b>: ${esc(sm.winners.join(", "))} won`;
      else if (sm.your_turn) state = "<b>your turn</b>";
      else state = `${esc(sm.turn)} to play`;
      row.querySelector(".gtitle").textContent = sm.title;
      row.querySelector(".gstate").innerHTML = `${state}; after ${sm.moves} moves; ${scores}`;
      row.classList.toggle("yourturn", sm.your_turn);
      row.classList.toggle("over", sm.over);
      row.querySelector(".studyit").hidden = !sm.over;
    } catch (e) {
      row.querySelector(".gstate").textContent = e.status === 404 || e.status === 403 ? "no longer on this server" : e.message;
    }
  }));
}

// ----- a game, from one seat -----------------------------------------------------------------------------
const G = {id: null, token: null, view: null, version: 0, tile: null, rows: new Map(), busy: false, answers: {},
  cursor: null, preview: null, kept: false};

async function game(id) {
  G.id = id;
  G.token = new URLSearchParams(location.search).get("t") || "";
  $("#game").hidden = false;
  const board = $("#board-svg");
  viewer(board);
  board.addEventListener("mouseover", (ev) => hover(ev, true));
  board.addEventListener("mousemove", (ev) => hover(ev, true));
  board.addEventListener("mouseout", (ev) => hover(ev, false));
  board.addEventListener("click", click);
  board.closest(".boardwrap").addEventListener("keydown", keys);
  $("#undo").onclick = undo;
  $("#askhint").onclick = () => analysis(`/api/games/${G.id}/hint`, {t: G.token}, $("#hintout"), hintHtml);
  $("#askforecast").onclick = () => analysis(`/api/games/${G.id}/forecast`, {t: G.token}, $("#hintout"), forecastHtml);
  $("#pass").onclick = () => send({tile: G.tile, hex: null});
  for (;;) {
    try {
      const v = await api(`/api/games/${id}?t=${encodeURIComponent(G.token)}` + (G.view ? `&after=${G.version}` : ""));
      if (!v.unchanged) {
        if (!G.view || v.version !== G.version) v.svg = await svgText(`${v.svg_url}&t=${encodeURIComponent(G.token)}`);
        else v.svg = G.view.svg;
        render(v);
        if (!G.kept) {  // this browser has joined the game: the My games page lists it
          G.kept = true;
          keepGame({id, t: G.token, title: v.title, name: v.you === null ? null : v.players[v.you].name});
        }
      }
      if (!G.refusal) showError("");
    } catch (e) {
      showError(e.message);
      if (e.status === 403 || e.status === 404) { status(""); return; }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

function render(view) {
  const first = !G.view;
  const svgChanged = first || view.version !== G.version;
  G.view = view;
  G.version = view.version;
  G.busy = false;
  const you = view.you;
  const me = you === null ? null : view.players[you];
  document.title = `Rebirth: ${view.title}`;
  let text;
  if (view.over) text = "Game over";
  else if (view.pending) text = "Answer the question";
  else if (view.turn === you) text = "Your turn";
  else text = `${view.players[view.turn].name}${view.players[view.turn].agent !== "human" ? ` (${view.players[view.turn].agent})` : ""} to play`;
  status(`${view.title}: ${text}`);
  $("#turn").innerHTML = `<b id="turntext">${esc(text)}</b> <span class="small">after move ${view.moves}` +
    (me ? `; you are ${swatch(view.colours[you])}${esc(me.name)}` : "; watching") + "</span>";
  if (svgChanged) drawBoard($("#board-svg"), view.svg);
  const polys = polygons($("#board-svg"));
  polys.forEach((p) => p.classList.remove("legal", "chosen", "cursor", "preview"));
  markLast(view, polys, view.log[view.log.length - 1]);
  // the hand, and which of its tiles the highlighted hexes are for
  $("#handbox").hidden = !me;
  if (me) {
    const tilesNow = view.legal ? Object.keys(view.legal) : [];
    if (!tilesNow.includes(G.tile)) G.tile = tilesNow[0] || null;
    $("#hand").innerHTML = (me.hand || []).map((t) =>
      `<button class="tile${t === G.tile ? " selected" : ""}" data-tile="${esc(t)}" ${tilesNow.includes(t) ? "" : "disabled"}>${tilePic(t, view, true)}</button>`).join("") ||
      "<span class=\"small\">no tile</span>";
    $("#hand").querySelectorAll("button.tile").forEach((b) => { b.onclick = () => { G.tile = b.dataset.tile; G.cursor = null; G.preview = null; render(G.view); }; });
    const aside = me.set_aside ? (me.set_aside.length ? tiles(me.set_aside, view) : "none") : `${me.set_aside_count} face down (you may not look)`;
    $("#aside").innerHTML = `<span class="small">set aside: ${aside}; supply: ${me.supply}</span>` +
      (tilesNow.length > 1 ? "<p class=\"small\">You hold two tiles: choose which to place.</p>" : "");
  }
  const passing = Boolean(view.legal && G.tile && !view.legal[G.tile].length);
  $("#passbox").hidden = !passing;
  if (passing) $("#passrule").textContent = view.pass_rule || "the pass rule";
  G.rows = new Map();
  if (view.legal && G.tile) {
    for (const row of view.legal[G.tile]) {
      G.rows.set(row.index, row);
      if (polys[row.index]) { polys[row.index].classList.add("legal"); raise(polys[row.index]); }
    }
  }
  if (!G.rows.has(G.cursor)) G.cursor = null;
  if (!G.rows.has(G.preview)) G.preview = null;
  $("#keyhint").hidden = !G.rows.size;
  if (G.cursor !== null) pointAt(G.cursor, "cursor");
  else if (G.preview !== null) pointAt(G.preview, "preview");
  else $("#hover").hidden = true;
  question(view, polys);
  $("#undo").hidden = !view.can_undo;
  // hints and forecasts: a seat's, unless the seats agreed to play without (the server refuses them too)
  $("#hintbox").hidden = !(me && view.hints && !view.over);
  $("#askhint").disabled = view.turn !== you || Boolean(view.pending);
  if (svgChanged && !first) $("#hintout").innerHTML = "";  // a hint is for the position it was asked in
  scoresTable(view, $("#scores"));
  $("#castles").innerHTML = castlesText(view);
  publicList(view, $("#public"), $("#publicbox"));
  $("#missionbox").hidden = !(me && me.missions && me.missions.length) || Boolean(view.result);
  if (me && me.missions) $("#missions").innerHTML = me.missions.map(cardHtml).join("");
  const log = $("#log");
  log.innerHTML = view.log.slice().reverse().map((m) => `<li data-n="${m.n}" class="move${m.seat === you ? " mine" : ""}">${moveHtml(m, view)}</li>`).join("");
  const res = $("#result");
  res.hidden = !view.result;
  if (view.result) {
    const t = encodeURIComponent(G.token);
    let links = `<p><a id="download" href="/api/games/${G.id}/record?t=${t}" download>Download the game record</a>`;
    for (const [k, has] of Object.entries(view.has_files || {})) if (has) links += ` and its <a href="/api/games/${G.id}/files/${k}?t=${t}" download>${k} file</a>`;
    links += ` <span class="small">(<code>rebirth eval</code> reads it)</span>; <a id="studygame" href="/study?game=${G.id}&t=${t}">study it move by move</a></p>`;
    res.innerHTML = resultHtml(view, links);
  }
}

function question(view, polys) {
  const box = $("#question");
  const pend = view.pending;
  box.hidden = !pend;
  if (!pend) { G.answers = {}; return; }
  const i = view.hexes.findIndex((h) => h[0] === pend.hex[0] && h[1] === pend.hex[1]);
  if (polys[i]) polys[i].classList.add("chosen");
  box.innerHTML = `<h3>Your ${tilePic(pend.tile, view, false)} is on ${hexText(pend.hex)}</h3>` + pend.questions.map((q, k) =>
    `<div class="q" data-landmark="${esc(q.landmark)}"><p><b>${esc(q.landmark)}</b>: ${esc(q.ability.replace(/_/g, " "))} ` +
    `<span class="rule">${esc(q.rules.join(", "))}</span></p>` +
    q.options.map((o) => `<button class="answer" data-q="${k}" data-value="${esc(o.value)}">${esc(o.label)}</button>`).join(" ") +
    ` <button class="answer decline" data-q="${k}" data-value="">Decline</button></div>`).join("");
  box.querySelectorAll("button.answer").forEach((b) => {
    b.onclick = async () => {
      const q = pend.questions[Number(b.dataset.q)];
      G.answers[q.landmark] = b.dataset.value === "" ? false : {[q.key]: b.dataset.value};
      b.parentElement.querySelectorAll("button").forEach((x) => x.classList.toggle("selected", x === b));
      if (pend.questions.every((qq) => qq.landmark in G.answers)) {
        const choices = G.answers;
        G.answers = {};
        await send({tile: pend.tile, hex: pend.hex, choices});
      }
    };
  });
}

// what placing the tile on a legal hex does: the hover panel (a mouse), the first tap (a touch screen),
// the keyboard's cursor
function rowHtml(row) {
  // what the move does: the server's words (play/reasons.py), the same as `rebirth moves` and the terminal's
  let html = `<b>${hexText(row.hex)} ${esc(row.kind)}</b>: <b>${signed(row.points)}</b>`;
  for (const part of row.text.split("; ")) html += `<br>${esc(part)}`;
  if (row.asks.length) html += "<br><span class=\"small\">(you will be asked: the tile goes down first)</span>";
  if (row.fallback) html += "<br><span class=\"small\">fallback hex: no primary hex is free</span>";
  return html;
}

function placeBox(box, x, y) {  // beside a point of the window, inside the window
  box.hidden = false;
  box.style.left = "0px";  // measured where nothing squeezes it, then moved
  box.style.top = "0px";
  const w = box.offsetWidth, h = box.offsetHeight;
  box.style.left = `${Math.max(4, Math.min(x + 14, window.innerWidth - w - 4))}px`;
  box.style.top = `${Math.max(4, y + 14 + h > window.innerHeight ? y - h - 14 : y + 14)}px`;
}

function hover(ev, on) {
  if (G.cursor !== null || G.preview !== null) return;  // the cursor's or the tap's panel stays
  const box = $("#hover");
  const poly = ev.target.closest && ev.target.closest("polygon.hex");
  if (!on || !poly) { box.hidden = true; return; }
  const row = G.rows.get(hexIndex(poly));
  if (!row) { box.hidden = true; return; }
  box.innerHTML = rowHtml(row);
  placeBox(box, ev.clientX, ev.clientY);
}

// a legal hex pointed at without the mouse: outlined, brought into the frame, its panel beside it
function pointAt(index, how) {
  const polys = polygons($("#board-svg"));
  polys.forEach((p) => p.classList.remove("cursor", "preview"));
  const poly = polys[index], row = G.rows.get(index);
  if (!poly || !row) return;
  poly.classList.add(how);
  raise(poly);
  viewer($("#board-svg")).show(poly);
  const r = poly.getBoundingClientRect();
  const box = $("#hover");
  box.innerHTML = rowHtml(row) + (how === "preview" ? "<br><b class=\"confirm\">Tap again to place it here</b>" :
    "<br><span class=\"small\">Enter places it; the arrows move on</span>");
  placeBox(box, r.right - 10, r.top + r.height / 2);
}

const centre = (h) => [Math.sqrt(3) * (h[0] + h[1] / 2), 1.5 * h[1]];

// the arrows move the cursor to the nearest legal hex that way (the first press: the best hex)
function keys(ev) {
  if (!G.view || ev.target.tagName === "BUTTON") return;  // a zoom button's own Enter is its click
  const dirs = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
  const v = viewer($("#board-svg"));
  if (ev.key === "+" || ev.key === "=") { v.zoom(0.7); ev.preventDefault(); return; }
  if (ev.key === "-") { v.zoom(1 / 0.7); ev.preventDefault(); return; }
  if (ev.key === "0") { v.reset(); ev.preventDefault(); return; }
  if (ev.key === "Escape") { G.cursor = null; G.preview = null; render(G.view); return; }
  if ((ev.key === "Enter" || ev.key === " ") && G.cursor !== null && !G.busy) {
    ev.preventDefault();
    const row = G.rows.get(G.cursor);
    if (row) send({tile: G.tile, hex: row.hex});
    return;
  }
  const d = dirs[ev.key];
  if (!d || !G.rows.size) return;
  ev.preventDefault();
  const rows = [...G.rows.values()];
  if (G.cursor === null) { G.cursor = rows[0].index; pointAt(G.cursor, "cursor"); return; }
  const [x0, y0] = centre(G.view.hexes[G.cursor]);
  let best = null, bestScore = Infinity;
  for (const row of rows) {
    if (row.index === G.cursor) continue;
    const [x, y] = centre(G.view.hexes[row.index]);
    const along = (x - x0) * d[0] + (y - y0) * d[1];
    if (along <= 0.1) continue;
    const across = Math.abs((x - x0) * d[1] - (y - y0) * d[0]);
    const score = along + 2 * across;
    if (score < bestScore) { bestScore = score; best = row.index; }
  }
  if (best !== null) { G.cursor = best; pointAt(best, "cursor"); }
}

async function click(ev) {
  const poly = ev.target.closest && ev.target.closest("polygon.hex");
  if (!poly || G.busy || !G.view) return;
  const index = hexIndex(poly);
  const row = G.rows.get(index);
  const touch = viewer($("#board-svg")).lastType === "touch";
  if (!row) {
    // not a legal hex for the tile: the server says why, with the rule (a sea hex, a taken hex ...)
    if (G.view.legal && G.tile && G.view.hexes[index]) await explain(G.view.hexes[index]);
    return;
  }
  if (touch && G.preview !== index) {  // a first tap shows what the move would do; a second one makes it
    G.preview = index;
    G.cursor = null;
    pointAt(index, "preview");
    return;
  }
  G.preview = null;
  await send({tile: G.tile, hex: row.hex});
}

// a click on a hex the tile may not go on: the move is sent as it is, and the engine's refusal (which
// names what is on the hex and the rule) is shown; nothing changes on a refusal
async function explain(hex) {
  G.busy = true;
  try {
    await api(`/api/games/${G.id}/move`, {t: G.token, version: G.version, tile: G.tile, hex});
  } catch (e) {
    G.refusal = true;
    showError(e.message.replace(/^move \d+: /, ""));
    setTimeout(() => { G.refusal = false; }, 4000);
  } finally {
    G.busy = false;
  }
}

async function send(move) {
  G.busy = true;
  G.rows = new Map();
  G.cursor = null;
  G.preview = null;
  polygons($("#board-svg")).forEach((p) => p.classList.remove("legal", "cursor", "preview"));
  $("#hover").hidden = true;
  try {
    await api(`/api/games/${G.id}/move`, {t: G.token, version: G.version, ...move});
    G.refusal = false;
    showError("");
  } catch (e) {
    showError(e.message);
    G.busy = false;
    render(G.view);
  }
}

async function undo() {
  try {
    await api(`/api/games/${G.id}/undo`, {t: G.token});
    showError("");
  } catch (e) { showError(e.message); }
}

// ----- study: a record, move by move -------------------------------------------------------------------
// A step asked for is shown as soon as its position is here: positions already fetched are kept in the
// page, the next few are fetched ahead, and a click or a held arrow key moves the step asked for at once
// (S.want), whatever is still on its way; the server works each position out once per record.
const S = {source: null, step: 0, want: 0, total: 0, view: null, cache: new Map(), pending: new Map(), gen: 0, reviewed: false};
const AHEAD = 4;

async function study() {
  $("#study").hidden = false;
  status("Study a record");
  viewer($("#study-svg"));
  const cat = await api("/api/catalog");
  opponent = cat.default_agent || opponent;
  $("#study-path-label").hidden = !cat.local_files;  // only a loopback server started with --local-files reads paths
  $("#study-example").innerHTML += cat.examples.map((x) => `<option value="${esc(x)}">${esc(x)}</option>`).join("");
  $("#openrecord").onsubmit = async (ev) => {
    ev.preventDefault();
    showError("");
    try {
      let source;
      const f = await readFile($("#study-file"));
      if (f) {
        let rec;
        try { rec = JSON.parse(f.text); } catch (e) { throw new Error(`${f.name} is not JSON: not a game record`); }
        source = {record: rec};
      } else if ($("#study-example").value) source = {name: $("#study-example").value};
      else if ($("#study-path").value.trim()) source = {path: $("#study-path").value.trim()};
      else throw new Error("choose a record: upload one, pick an example, or give a path");
      await openStudy(source, 0);
    } catch (e) { showError(e.message); }
  };
  const go = (k) => stepTo(Math.max(0, Math.min(S.total, k)));
  $("#first").onclick = () => go(0);
  $("#prev").onclick = () => go(S.want - 1);
  $("#next").onclick = () => go(S.want + 1);
  $("#last").onclick = () => go(S.total);
  $("#slider").oninput = () => go(Number($("#slider").value));
  document.addEventListener("keydown", (ev) => {
    if (!S.source || ev.target.tagName === "INPUT" && ev.target.type !== "range" || ev.target.tagName === "SELECT") return;
    if (ev.key === "ArrowRight") { ev.preventDefault(); go(S.want + 1); }  // held down: it repeats, and plays through
    if (ev.key === "ArrowLeft") { ev.preventDefault(); go(S.want - 1); }
    if (ev.key === "Home") go(0);
    if (ev.key === "End") go(S.total);
  });
  $("#branch").onclick = branch;
  $("#analysehere").onclick = analyseHere;
  $("#review").onclick = reviewGame;
  $("#reopen").onclick = () => { $("#openrecord").hidden = false; $("#studyview").hidden = true; $("#reviewbox").hidden = true; S.source = null; S.view = null; };
  const q = new URLSearchParams(location.search);
  if (q.get("name")) await openStudy({name: q.get("name")}, 0).catch((e) => showError(e.message));
  else if (q.get("game")) await openStudy({game: q.get("game"), t: q.get("t") || ""}, 0).catch((e) => showError(e.message));
}

async function openStudy(source, step) {
  S.source = source;
  S.view = null;
  S.cache = new Map();
  S.pending = new Map();
  S.gen += 1;
  S.reviewed = false;
  $("#reviewbox").hidden = true;
  S.want = step;
  const v = await fetchStep(step);
  if (!v) return;
  S.total = v.total;
  showStep(v);
  $("#studyview").hidden = false;
  $("#openrecord").hidden = true;
  fitFrames();
  ahead(step);
}

function fetchStep(k) {  // one request per position, shared by whoever asks for it
  if (S.cache.has(k)) return Promise.resolve(S.cache.get(k));
  if (S.pending.has(k)) return S.pending.get(k);
  const gen = S.gen;
  const p = api("/api/study", {source: S.source, step: k}).then((v) => {
    if (gen === S.gen) S.cache.set(k, v);
    return v;
  }).catch((e) => { if (gen === S.gen) showError(e.message); return null; }).finally(() => S.pending.delete(k));
  S.pending.set(k, p);
  return p;
}

function ahead(k) {  // the next positions, fetched before they are asked for
  for (let j = k + 1; j <= Math.min(S.total, k + AHEAD); j++) fetchStep(j);
}

async function stepTo(k) {
  S.want = k;
  $("#slider").value = k;  // the step shown (#step) is the position on the board, once it is here
  const gen = S.gen;
  const from = S.step;
  const v = await fetchStep(k);
  // shown if it lies on the way from the step shown to the one asked for now (a held arrow key shows
  // the positions as they come); one asked for before a jump elsewhere is not
  const onTheWay = (from <= k && k <= S.want) || (S.want <= k && k <= from);
  if (!v || gen !== S.gen || !onTheWay || Math.abs(S.want - k) > Math.abs(S.want - S.step)) return;
  showStep(v);
  if (S.want >= k) ahead(k);
}

function showStep(v) {
  S.view = v;
  S.step = v.step;
  S.total = v.total;
  const slider = $("#slider");
  slider.max = v.total;
  slider.value = v.step;
  $("#step").textContent = `move ${v.step} of ${v.total}`;
  status(`Study: ${v.title}, ${v.players.map((p) => p.name).join(", ")}`);
  drawBoard($("#study-svg"), v.svg);
  markLast(v, polygons($("#study-svg")), v.move);
  $("#stepmove").innerHTML = v.move ? `<ul class="plain"><li>${moveHtml(v.move, v)}</li></ul>` : "<p>The start: no tile placed yet.</p>" +
    (v.total ? "<p class=\"small\">Step on with the arrows, the slider or the keyboard (hold an arrow key to play through).</p>" : "");
  scoresTable(v, $("#study-scores"));
  $("#study-castles").innerHTML = castlesText(v);
  publicList(v, $("#study-public"), $("#study-publicbox"));
  const res = $("#study-result");
  res.hidden = !v.result;
  if (v.result) res.innerHTML = resultHtml(v, "");
  const seats = $("#branchseats");
  if (seats.dataset.players !== v.players.map((p) => p.name).join()) {
    seats.dataset.players = v.players.map((p) => p.name).join();
    const agents = ["human", "random", "greedy", "oneply", "lookahead", "mc"];
    seats.innerHTML = v.players.map((p, i) => `<label class="seat">${swatch(v.colours[i])}${esc(p.name)} <select class="agent">` +
      agents.map((a) => `<option value="${a}" ${a === (i === 0 ? "human" : opponent) ? "selected" : ""}>${a === "human" ? "a person" : a}</option>`).join("") +
      "</select></label>").join("");
  }
  // a game of this server is studied by its link; a branch starts from a record's own files
  $("#branchbox").hidden = (v.over && v.step === v.total) || Boolean(S.source && S.source.game);
  $("#review").hidden = !v.total;  // a record's moves, each judged (a finished game's the most useful)
  if (S.reviewed) markReviewPoint(v.step);
}

// "Analyse from here": the position after this move, as notation, on the analysis board
async function analyseHere() {
  showError("");
  try {
    const r = await api("/api/position/from", {source: S.source, step: S.step});
    sessionStorage.setItem("rebirth-analyse", r.notation);
    location.href = "/analyse";
  } catch (e) { showError(e.message); }
}

// the review of a finished game: each player's chance to win after each move, drawn here from its JSON;
// a point of the graph is a move: a click shows it
async function reviewGame() {
  showError("");
  const box = $("#reviewbox");
  box.hidden = false;
  box.innerHTML = "<p class=\"small\">reviewing every move...</p>";
  try {
    const rv = await api("/api/review", {source: S.source});
    S.reviewed = true;
    box.innerHTML = reviewHtml(rv);
    box.querySelectorAll(".rvpt").forEach((c) => { c.onclick = () => stepTo(Number(c.dataset.step)); });
    markReviewPoint(S.step);
  } catch (e) { box.hidden = true; showError(e.message); }
}

function reviewHtml(rv) {
  const W = 640, H = 170, L = 34, R = 8, T = 8, B = 22;
  const n = rv.moves.length;
  const x = (i) => L + (n > 1 ? (i * (W - L - R)) / (n - 1) : 0);
  const y = (w) => T + (1 - w) * (H - T - B);
  const names = rv.players.map((p) => p.name);
  const colour = (name) => (S.view && S.view.colours ? S.view.colours[names.indexOf(name)] : "#333");
  let g = `<line x1="${L}" y1="${y(0)}" x2="${W - R}" y2="${y(0)}" stroke="#999"/><line x1="${L}" y1="${y(1)}" x2="${W - R}" y2="${y(1)}" stroke="#ddd"/>` +
    `<line x1="${L}" y1="${y(0.5)}" x2="${W - R}" y2="${y(0.5)}" stroke="#eee"/>` +
    `<text x="2" y="${y(1) + 4}" font-size="10">100%</text><text x="2" y="${y(0) + 4}" font-size="10">0%</text>` +
    `<text x="${W / 2}" y="${H - 4}" font-size="10" text-anchor="middle">after move (click a point to see it)</text>`;
  for (const name of names) {
    const pts = rv.moves.map((m, i) => `${x(i).toFixed(1)},${y(m.win_after[name]).toFixed(1)}`).join(" ");
    g += `<polyline fill="none" stroke="${colour(name)}" stroke-width="1.6" points="${pts}"/>`;
  }
  rv.moves.forEach((m, i) => {  // one point per move, on its mover's line; marked moves in red
    const marked = m.mark ? ` marked" stroke="#c62828` : `" stroke="#fff`;
    g += `<circle class="rvpt${marked}" data-step="${m.move + 1}" cx="${x(i).toFixed(1)}" cy="${y(m.win_after[m.player]).toFixed(1)}" r="4" ` +
      `fill="${colour(m.player)}"><title>move ${m.move + 1}: ${esc(m.player)} ${esc(m.tile)} ${esc(hexText(m.hex))}` +
      `${m.mark ? ` ${esc(m.mark)} ${esc(m.mark_name)}, about ${m.lost.toFixed(1)} lost` : ""}</title></circle>`;
  });
  const legend = names.map((nm) => `${swatch(colour(nm))}${esc(nm)}`).join(" ");
  const marks = rv.moves.filter((m) => m.mark).map((m) => `<li><a href="#" class="rvmove" data-step="${m.move + 1}">move ${m.move + 1}</a>: ` +
    `${esc(m.player)} ${esc(m.tile)} ${esc(hexText(m.hex))} ${esc(m.mark)} ${esc(m.mark_name)}; best ${esc(m.best.tile)} ${esc(hexText(m.best.hex))}</li>`).join("");
  return `<h3>Review: each player's chance to win</h3><p class="small">${legend} &mdash; ${rv.playouts} playouts by ` +
    `${esc([...new Set(rv.agents)].join(", "))} per move against the one-ply evaluation's best ${rv.width}, from the mover's information ` +
    `(<code>rebirth review</code> with more playouts is sharper)</p>` +
    `<svg id="reviewgraph" viewBox="0 0 ${W} ${H}" width="100%" style="max-width:${W}px">${g}</svg>` +
    (marks ? `<ul class="plain small">${marks}</ul>` : "<p class=\"small\">no move is marked</p>");
}

function markReviewPoint(step) {
  document.querySelectorAll("#reviewgraph .rvpt").forEach((c) => c.classList.toggle("current", Number(c.dataset.step) === step));
  document.querySelectorAll("#reviewbox .rvmove").forEach((a) => { a.onclick = (ev) => { ev.preventDefault(); stepTo(Number(a.dataset.step)); }; });
}

// ----- the analysis board: a position in the notation, pasted or set up by clicking ------------------------
const A = {view: null};

async function analysePage() {
  $("#analyse").hidden = false;
  status("Analysis board");
  const board = $("#an-svg");
  viewer(board);
  board.addEventListener("click", anClick);
  $("#an-show").onclick = () => showPosition({notation: $("#notation").value});
  $("#an-hint").onclick = () => analysis("/api/position/hint", {notation: $("#notation").value}, $("#an-out"), hintHtml);
  $("#an-forecast").onclick = () => analysis("/api/position/forecast", {notation: $("#notation").value}, $("#an-out"), forecastHtml);
  $("#ed-sethand").onclick = () => anEdit({op: "hand", player: $("#ed-player").value,
    tiles: $("#ed-hand").value.split(",").map((x) => x.trim()).filter(Boolean)});
  $("#ed-turn").onclick = () => anEdit({op: "turn", player: $("#ed-player").value});
  $("#ed-player").onchange = () => fillHand();
  let text = sessionStorage.getItem("rebirth-analyse");
  if (!text) {  // a first visit: the start of the first bundled example
    const cat = await api("/api/catalog");
    text = (await api("/api/position/from", {source: {name: cat.examples[0]}, step: 0})).notation;
  }
  $("#notation").value = text;
  await showPosition({notation: text});
}

async function showPosition(body) {
  showError("");
  try {
    const r = await api("/api/position", body);
    A.view = r;
    $("#an-out").innerHTML = "";
    $("#notation").value = r.notation;
    $("#notation").scrollTop = 0;
    sessionStorage.setItem("rebirth-analyse", r.notation);
    drawBoard($("#an-svg"), r.svg);
    scoresTable(r, $("#an-scores"));
    $("#an-castles").innerHTML = castlesText(r);
    $("#an-dealt").hidden = !r.dealt.length;
    $("#an-dealt").textContent = r.dealt.length ? `Not known, so dealt to play on: ${r.dealt.join("; ")}` : "";
    const rows = [];
    for (const [tile, moves] of Object.entries(r.legal || {})) {
      for (const m of moves) rows.push(`<li class="legalmove">${esc(tile)} ${esc(hexText(m.hex))} ${esc(m.kind)}: <b>${signed(m.points)}</b> <span class="small">${esc(m.text)}</span></li>`);
    }
    const mover = r.players[r.turn];
    $("#an-legal").innerHTML = (mover && rows.length ? `<li class="small">${esc(mover.name)} to move:</li>` : "") + (rows.join("") || "<li class=\"small\">no move: the position is over, or a scenario</li>");
    const pl = $("#ed-player"), was = pl.value;
    pl.innerHTML = r.setup.players.map((n) => `<option value="${esc(n)}">${esc(n)}</option>`).join("");
    if (r.setup.players.includes(was)) pl.value = was;
    const tl = $("#ed-tile"), wasT = tl.value;
    tl.innerHTML = r.setup.tiles.map((n) => `<option value="${esc(n)}">${esc(n)}</option>`).join("");
    if (r.setup.tiles.includes(wasT)) tl.value = wasT;
    fillHand();
    const polys = polygons($("#an-svg"));
    polys.forEach((p) => p.classList.add("settable"));
    status(`Analysis: ${r.title}, ${r.players.map((p) => p.name).join(", ")}`);
  } catch (e) { showError(e.message); }
}

function fillHand() {
  const s = A.view && A.view.setup.seats.find((x) => x.name === $("#ed-player").value);
  $("#ed-hand").value = s && s.hand ? s.hand.join(", ") : "";
}

function anEdit(edit) { return showPosition({notation: $("#notation").value, edit}); }

function anClick(ev) {
  const i = hexIndex(ev.target.closest("polygon.hex"));
  if (i < 0 || !A.view) return;
  const hex = A.view.hexes[i];
  const same = (h) => h[0] === hex[0] && h[1] === hex[1];
  const player = $("#ed-player").value;
  if ($("#ed-mode").value === "owner") {
    const lm = A.view.setup.landmarks.find((l) => same(l.hex));
    if (!lm) { showError(`(${hex[0]},${hex[1]}) is not a landmark: choose "put this tile" to place a tile there`); return; }
    const owner = A.view.setup.seats.find((s) => s.owns.includes(lm.name));
    anEdit({op: "owner", landmark: lm.name, player: owner && owner.name === player ? null : player});
    return;
  }
  const there = A.view.setup.seats.some((s) => s.tiles.some((t) => same(t.hex)));
  anEdit(there ? {op: "remove", hex} : {op: "put", player, tile: $("#ed-tile").value, hex,
    holders: $("#ed-holders").checked ? "rules" : "set"});
}

async function branch() {
  showError("");
  try {
    const seats = Array.from(document.querySelectorAll("#branchseats select.agent")).map((s) => ({agent: s.value}));
    const made = await api("/api/games", {from: S.source, at: S.step, seats});
    const box = $("#branchlinks");
    box.innerHTML = "<table id=\"branchtable\"></table><button id=\"branchgo\">Play</button>";
    showLinks(made.links, $("#branchtable"), $("#branchgo"));
  } catch (e) { showError(e.message); }
}

// ----- the page's address says which page this is ---------------------------------------------------------
(function route() {
  const path = location.pathname;
  const m = path.match(/^\/game\/([A-Za-z0-9_-]+)$/);
  const run = m ? game(m[1]) : path === "/study" ? study() : path === "/games" ? gamesPage() :
    path === "/analyse" ? analysePage() : home();
  Promise.resolve(run).catch((e) => showError(e.message));
})();
