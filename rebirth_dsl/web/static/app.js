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
  box.textContent = msg;
  box.hidden = !msg;
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

// ----- shared pieces: scores, castles, missions, a move with its events ---------------------------------
function swatch(colour) { return `<span class="swatch" style="background:${colour}"></span>`; }

function scoresTable(view, el) {
  const top = Math.max(1, ...view.players.map((p) => (p.final !== undefined ? p.final : p.score)));
  const rows = view.players.map((p) => {
    const aside = p.set_aside ? p.set_aside.join(", ") || "none" : `${p.set_aside_count} face down`;
    const hand = p.hand ? p.hand.join(", ") : `${p.hand_count} tile${p.hand_count === 1 ? "" : "s"}`;
    const turn = view.turn === p.seat ? " class=\"turn\"" : "";
    const you = view.you === p.seat ? " (you)" : "";
    const score = p.final !== undefined ? p.final : p.score;
    return `<tr${turn} data-seat="${p.seat}"><td>${swatch(view.colours[p.seat])}${esc(p.name)}${you}</td>` +
      `<td class="agent">${esc(p.agent === "human" ? "" : p.agent)}</td><td class="num score">${score}` +
      `<div class="track" style="width:${Math.round(100 * score / top)}%;background:${view.colours[p.seat]}"></div></td>` +
      `<td class="small">hand ${esc(hand)}; supply ${p.supply}; set aside ${esc(aside)}` +
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

function publicList(view, el, box) {
  box.hidden = !view.public.length;
  el.innerHTML = view.public.map((c) =>
    `<li><b>${esc(c.name)}</b> ${c.points}/${c.small ?? 0}: ${esc(c.text)}` +
    `<br><span class="small">done by ${esc(c.by.join(", ") || "nobody yet")}` +
    (c.doubled_by.length ? `; doubled by ${esc(c.doubled_by.join(", "))}` : "") + "</span></li>").join("");
}

function moveHtml(m, view) {
  const pts = m.points ? ` <b>${signed(m.points)}</b>` : "";
  const ch = Object.entries(m.choices || {}).map(([lm, c]) =>
    `${esc(lm)}: ${c === false ? "declined" : c === true ? "used" : esc(Object.values(c).join(", "))}`).join("; ");
  const evs = m.events.map((e) =>
    `<li class="event">${e.points ? `<b>${signed(e.points)}</b> ` : ""}${esc(e.text)} <span class="rule">${esc(e.rules.join(", "))}</span></li>`).join("");
  return `${swatch(view.colours[m.seat])}<b>${m.n + 1}. ${esc(m.player)}</b> ${esc(m.tile)} on ${hexText(m.hex)}${pts}` +
    (ch ? ` <span class="small">[${ch}]</span>` : "") + (evs ? `<ul>${evs}</ul>` : "");
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
    `<table class="breakdown">${head}${rows}</table>${extra || ""}<details><summary>End-of-game scoring</summary><ul>${ends}</ul></details>`;
}

// hexes are drawn by the server's renderer, one <polygon class="hex"> per board hex, in board order; each
// is numbered (data-i) once drawn, so that a highlighted hex can be raised above its neighbours
function drawBoard(container, svg) {
  container.innerHTML = svg;
  container.querySelectorAll("polygon.hex").forEach((p, i) => { p.dataset.i = i; });
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
      const spec = {seed: Number($("#seed").value || 0), seats: []};
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

// ----- a game, from one seat -----------------------------------------------------------------------------
const G = {id: null, token: null, view: null, version: 0, tile: null, rows: new Map(), busy: false, answers: {}};

async function game(id) {
  G.id = id;
  G.token = new URLSearchParams(location.search).get("t") || "";
  $("#game").hidden = false;
  const board = $("#board-svg");
  board.addEventListener("mouseover", (ev) => hover(ev, true));
  board.addEventListener("mousemove", (ev) => hover(ev, true));
  board.addEventListener("mouseout", (ev) => hover(ev, false));
  board.addEventListener("click", click);
  $("#undo").onclick = undo;
  $("#pass").onclick = () => send({tile: G.tile, hex: null});
  for (;;) {
    try {
      const v = await api(`/api/games/${id}?t=${encodeURIComponent(G.token)}` + (G.view ? `&after=${G.version}` : ""));
      if (!v.unchanged) {
        if (!G.view || v.version !== G.version) v.svg = await svgText(`${v.svg_url}&t=${encodeURIComponent(G.token)}`);
        else v.svg = G.view.svg;
        render(v);
      }
      showError("");
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
  polys.forEach((p) => p.classList.remove("legal", "chosen"));
  markLast(view, polys, view.log[view.log.length - 1]);
  // the hand, and which of its tiles the highlighted hexes are for
  $("#handbox").hidden = !me;
  if (me) {
    const tiles = view.legal ? Object.keys(view.legal) : [];
    if (!tiles.includes(G.tile)) G.tile = tiles[0] || null;
    $("#hand").innerHTML = (me.hand || []).map((t) =>
      `<button class="tile${t === G.tile ? " selected" : ""}" data-tile="${esc(t)}" ${tiles.includes(t) ? "" : "disabled"}>${esc(t)}</button>`).join("") ||
      "<span class=\"small\">no tile</span>";
    $("#hand").querySelectorAll("button.tile").forEach((b) => { b.onclick = () => { G.tile = b.dataset.tile; render(G.view); }; });
    const aside = me.set_aside ? (me.set_aside.join(", ") || "none") : `${me.set_aside_count} face down (you may not look)`;
    $("#aside").innerHTML = `<span class="small">set aside: ${esc(aside)}; supply: ${me.supply}</span>` +
      (tiles.length > 1 ? "<p class=\"small\">You hold two tiles: choose which to place.</p>" : "");
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
  question(view, polys);
  $("#undo").hidden = !view.can_undo;
  scoresTable(view, $("#scores"));
  $("#castles").innerHTML = castlesText(view);
  publicList(view, $("#public"), $("#publicbox"));
  $("#missionbox").hidden = !(me && me.missions && me.missions.length);
  if (me && me.missions) $("#missions").innerHTML = me.missions.map((c) => `<li><b>${esc(c.name)}</b> (${c.points}): ${esc(c.text)}</li>`).join("");
  const log = $("#log");
  log.innerHTML = view.log.slice().reverse().map((m) => `<li data-n="${m.n}" class="move${m.seat === you ? " mine" : ""}">${moveHtml(m, view)}</li>`).join("");
  const res = $("#result");
  res.hidden = !view.result;
  if (view.result) {
    const t = encodeURIComponent(G.token);
    let links = `<p><a id="download" href="/api/games/${G.id}/record?t=${t}" download>Download the game record</a>`;
    for (const [k, has] of Object.entries(view.has_files || {})) if (has) links += ` and its <a href="/api/games/${G.id}/files/${k}?t=${t}" download>${k} file</a>`;
    res.innerHTML = resultHtml(view, links + " <span class=\"small\">(<code>rebirth eval</code> reads it)</span></p>");
  }
}

function question(view, polys) {
  const box = $("#question");
  const pend = view.pending;
  box.hidden = !pend;
  if (!pend) { G.answers = {}; return; }
  const i = view.hexes.findIndex((h) => h[0] === pend.hex[0] && h[1] === pend.hex[1]);
  if (polys[i]) polys[i].classList.add("chosen");
  box.innerHTML = `<h3>Your ${esc(pend.tile)} is on ${hexText(pend.hex)}</h3>` + pend.questions.map((q, k) =>
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

function hover(ev, on) {
  const box = $("#hover");
  const poly = ev.target.closest && ev.target.closest("polygon.hex");
  if (!on || !poly) { box.hidden = true; return; }
  const row = G.rows.get(hexIndex(poly));
  if (!row) { box.hidden = true; return; }
  // what the move does: the server's words (play/reasons.py), the same as `rebirth moves` and the terminal's
  let html = `<b>${hexText(row.hex)} ${esc(row.kind)}</b>: <b>${signed(row.points)}</b>`;
  for (const part of row.text.split("; ")) html += `<br>${esc(part)}`;
  if (row.asks.length) html += "<br><span class=\"small\">(you will be asked: the tile goes down first)</span>";
  if (row.fallback) html += "<br><span class=\"small\">fallback hex: no primary hex is free</span>";
  box.innerHTML = html;
  box.hidden = false;
  box.style.left = `${ev.clientX + 14}px`;
  box.style.top = `${ev.clientY + 14}px`;
}

async function click(ev) {
  const poly = ev.target.closest && ev.target.closest("polygon.hex");
  if (!poly || G.busy) return;
  const row = G.rows.get(hexIndex(poly));
  if (!row) return;
  await send({tile: G.tile, hex: row.hex});
}

async function send(move) {
  G.busy = true;
  G.rows = new Map();
  polygons($("#board-svg")).forEach((p) => p.classList.remove("legal"));
  $("#hover").hidden = true;
  try {
    await api(`/api/games/${G.id}/move`, {t: G.token, version: G.version, ...move});
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
const S = {source: null, step: 0, total: 0, view: null, seq: 0};

async function study() {
  $("#study").hidden = false;
  status("Study a record");
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
  $("#prev").onclick = () => go(S.step - 1);
  $("#next").onclick = () => go(S.step + 1);
  $("#last").onclick = () => go(S.total);
  $("#slider").oninput = () => go(Number($("#slider").value));
  document.addEventListener("keydown", (ev) => {
    if (!S.source || ev.target.tagName === "INPUT" && ev.target.type !== "range") return;
    if (ev.key === "ArrowRight") go(S.step + 1);
    if (ev.key === "ArrowLeft") go(S.step - 1);
  });
  $("#branch").onclick = branch;
  $("#reopen").onclick = () => { $("#openrecord").hidden = false; $("#studyview").hidden = true; S.source = null; S.view = null; };
  const q = new URLSearchParams(location.search);
  if (q.get("name")) await openStudy({name: q.get("name")}, 0).catch((e) => showError(e.message));
}

async function openStudy(source, step) {
  S.source = source;
  S.view = null;
  await stepTo(step);
  if (S.view) {
    $("#studyview").hidden = false;
    $("#openrecord").hidden = true;
  }
}

async function stepTo(k) {
  const seq = ++S.seq;
  const v = await api("/api/study", {source: S.source, step: k}).catch((e) => { showError(e.message); return null; });
  if (!v || seq !== S.seq) return;  // a later step was asked for meanwhile: show that one
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
    (v.total ? "<p class=\"small\">Step on with the arrows, the slider or the keyboard.</p>" : "");
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
  $("#branchbox").hidden = v.over && v.step === v.total;
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
  const run = m ? game(m[1]) : path === "/study" ? study() : home();
  Promise.resolve(run).catch((e) => showError(e.message));
})();
