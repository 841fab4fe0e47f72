// /replay/<id>: the replay viewer. One clock (the tick) drives the map, the timeline, the
// charts, the inspector and the event log. Frames are applied by the same WorldState the live
// page uses and drawn by the same Renderer; a character's point of view is its re-simulated
// observation (the server's /pov), drawn through a ViewState like the play page.
import { ViewState, WorldState, fogFromObservation } from "./frames.js";
import { loadAtlas, Renderer, Minimap, attachCameraControls, bossInView } from "./render.js";
import { el, clockText } from "./panels.js";
import { watchHttp, connectionFailed } from "./connection.js";
import { mountLegend } from "./legend.js";
import { NO_DUNGEONS, tierOfArea, areaName } from "./dungeon-ui.js";
import { ReplayData } from "./replay-data.js";
import { Timeline, MARKER_STYLE, clockOf, momentOf } from "./replay-timeline.js";
import { Charts } from "./replay-charts.js";
import { CHANGE_TICKS, changesBetween, ReplayEventLog, renderInspector, programAt } from "./replay-panels.js";
import { TurnsPanel } from "./replay-turns.js";
import { TurnReader } from "./replay-reader.js";
import { WhyPanel } from "./replay-why.js";
import { playClock } from "./play-clock.js";

const $ = (id) => document.getElementById(id);
const PREFETCH_SETTLE_MS = 400; // after a far seek, prefetch when no other seek came this long
const BASE_TPS = 10; // 1x = the live server's default pace, 10 ticks a second
const SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64];
const rid = document.getElementById("replay-root").dataset.replay;
const params = new URLSearchParams(location.search);

const data = new ReplayData(rid);
// The model turns are asked for at once, beside the header and the first frames, not after them;
// a link that opens the turn reader asks for its full list too.
const turnsAsked = data.turns();
turnsAsked.catch(() => {}); // said where it is read, below
if (params.get("reader") === "1") data.transcript().catch(() => {}); // the reader says a failure
// A new area only resets the terrain cache of a renderer showing that area (frames.js).
const state = new WorldState((id) => [renderer, rendererB].some((r) => r?.cache?.area === id));
const view = new ViewState();
const [atlas, meta] = await Promise.all([loadAtlas(), data.load()]);
const renderer = new Renderer($("map"), atlas);
const rendererB = new Renderer($("map-b"), atlas);
const minimap = new Minimap($("minimap"), atlas);
mountLegend($("legend"), atlas, { fog: true });
const characters = meta.characters;
const names = Object.fromEntries(characters.map((c) => [c.id, c.name]));
// A character is drawn in its configuration's colour from the one palette (the server's meta
// carries it): the same as on the evaluation page and in the report figures.
const colours = Object.fromEntries(characters.map((c) => [c.id, c.colour || "#888"]));
let dungeons = NO_DUNGEONS;
fetch("/api/content").then((r) => (r.ok ? r.json() : null)).then((c) => {
  if (!c) return;
  view.setTileNames(c.tiles);
  dungeons = c.dungeons || dungeons;
}).catch(() => {});

// "Outer Court" for a dungeon instance, as /live and /play name it; never a bare area number.
const areaNameOf = (id) => areaName(dungeons, tierOfArea(dungeons, state.areas[String(id)]));

const ui = {
  tick: data.first,
  playing: false,
  speed: 1,
  focus: null, // inspected and followed character
  pov: null, // character whose point of view is drawn, null = ground truth
  compare: null, // second character, side by side
  overview: null,
  povObs: null,
  povPending: false,
  povError: null,
  lastPan: 0,
  lastPanB: 0,
  seeking: 0,
  failedTick: null, // a seek the server did not answer: retried on reconnect
};

// --- clock ----------------------------------------------------------------------------------

const clamp = (t) => Math.max(data.first, Math.min(data.last, Math.round(t)));

// The inspector's "changes in the last 10 min" compare with the world ten minutes before the
// shown tick, fetched once per such tick (a keyframe) and kept for a few; while playing the
// earlier tick moves a minute at a time, not every frame.
const baselines = new Map(); // tick -> {entities} | null while it loads
function baselineTick(tick) {
  const b = Math.max(data.first, tick - CHANGE_TICKS);
  return ui.playing ? Math.max(data.first, b - (b % 60)) : b;
}
function changesFor(id) {
  if (id === null) return null;
  const since = baselineTick(ui.tick);
  if (!baselines.has(since)) {
    baselines.set(since, null);
    if (baselines.size > 12) baselines.delete(baselines.keys().next().value);
    data.stateAt(since).then((f) => {
      if (baselines.has(since)) baselines.set(since, { entities: f.keyframe.entities || {} });
    }).catch(() => baselines.delete(since)); // asked again on the next panel refresh
  }
  const base = baselines.get(since);
  if (!base || state.tick !== ui.tick) return null;
  return { since, ...changesBetween(base.entities[id] || null, state.entities[id]) };
}

// Move the state to `tick`: forward through the frame chunks when it is near, else ask the
// server for a keyframe at that tick. Later seeks win over earlier ones still in flight.
async function seek(tick, final = true) {
  tick = clamp(tick);
  ui.tick = tick;
  const token = ++ui.seeking;
  try {
    await seekNow(tick, final, token);
  } catch (err) {
    // The server did not answer (stopped, restarting): the readout goes back to the tick the
    // map shows, and the tick asked for is fetched again once the server is back.
    if (token !== ui.seeking) return;
    ui.tick = state.ready ? state.tick : tick;
    ui.failedTick = tick;
    play(false);
    flash(`could not load tick ${tick}: ${err.code ? err.message : "the server is not answering"}`);
    connectionFailed();
  }
}

async function seekNow(tick, final, token) {
  let far = false;
  // Forward through frames only when at most one chunk of them still has to be fetched (as
  // when playing: the next chunks are prefetched); further, one keyframe is quicker than
  // fetching up to ten chunks of frames (~200 KB of JSON each) and applying them all.
  const near = state.ready && tick >= state.tick && tick - state.tick <= 600 &&
    data.missing(state.tick + 1, tick) <= 1;
  if (near) {
    data.request(state.tick + 1, tick);
    await advanceTo(tick, token);
  } else if (state.tick !== tick) {
    far = true;
    if (!final && state.ready) return; // dragging far: wait for the release
    const frame = await data.stateAt(tick);
    if (token !== ui.seeking) return;
    applySeekFrame(frame);
  }
  if (token === ui.seeking) {
    prefetchSoon(far);
    requestPov();
  }
}

// Frame chunks ahead of the clock are for playing on. After a far seek they wait until the clock
// settles: fetched (and decoded on the server) at once, they competed with the next seek's
// keyframe when someone clicked around the timeline (about 30 ms of server time per seek).
let prefetchTimer = null;
function prefetchSoon(far) {
  clearTimeout(prefetchTimer);
  if (!far || ui.playing) data.prefetch(state.tick);
  else prefetchTimer = setTimeout(() => data.prefetch(state.tick), PREFETCH_SETTLE_MS);
}

function decodeTiles(text) {
  const raw = atob(text || "");
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

// A seek's keyframe, applied as the difference from what is shown: the renderer then patches
// the tiles that differ instead of redrawing the whole terrain (a keyframe resets its caches).
function applySeekFrame(frame) {
  const kf = frame.keyframe;
  const sameLegend = JSON.stringify(kf.legend || {}) === JSON.stringify(state.legend);
  if (!state.ready || kf.width !== state.width || !sameLegend) {
    state.applyFrame(frame);
    return;
  }
  const d = { tiles: [], entities: kf.entities || {}, removed: [], structures: kf.structures || [],
    loot: kf.loot || [], time: kf.time || {}, areas: {}, areas_removed: [] };
  for (const id of Object.keys(state.entities)) if (!(id in d.entities)) d.removed.push(id);
  for (const [id, area] of Object.entries(kf.areas || {})) {
    const cur = state.areas[id];
    if (!cur || cur.w !== area.w || cur.h !== area.h || cur.kind !== area.kind) {
      d.areas[id] = area;
      continue;
    }
    const tiles = decodeTiles(area.tiles);
    for (let i = 0; i < tiles.length; i++) {
      if (cur.tiles[i] !== tiles[i]) d.tiles.push([id, i % area.w, Math.floor(i / area.w), tiles[i]]);
    }
  }
  for (const id of Object.keys(state.areas)) if (!(id in (kf.areas || {}))) d.areas_removed.push(id);
  if (!Object.keys(d.areas).length) delete d.areas;
  state.applyDeltas(d);
  state.tick = frame.tick;
  state.events = frame.events || [];
}

async function advanceTo(tick, token) {
  while (state.tick < tick) {
    const chunk = await data.chunkFor(state.tick + 1);
    if (token !== ui.seeking) return;
    if (!chunk) return;
    let moved = false;
    for (const f of chunk.frames) {
      if (f.tick <= state.tick) continue;
      if (f.tick > tick) break;
      if (!state.applyFrame(f)) return seek(tick, true); // a gap: start over from a keyframe
      moved = true;
    }
    if (!moved) return;
  }
}

function play(on = !ui.playing) {
  ui.playing = on && ui.tick < data.last;
  $("play").textContent = ui.playing ? "❚❚" : "▶";
  $("play").title = ui.playing ? "pause (Space)" : "play (Space)";
}

function setSpeed(s) {
  ui.speed = SPEEDS.includes(s) ? s : 1;
  $("speed").value = String(ui.speed);
}

function stepBy(n) {
  play(false);
  seek(ui.tick + n);
}

// --- focus, point of view, compare -----------------------------------------------------------

function focus(id) {
  ui.focus = id;
  ui.lastPan = 0;
  $("focus").value = id === null ? "" : String(id);
  if (ui.pov !== null && id !== null) setPov(id);
}

function setPov(id) {
  ui.pov = id;
  ui.povObs = null;
  ui.povError = null;
  $("pov").value = id === null ? "" : String(id);
  requestPov();
}

function setCompare(id) {
  ui.compare = id;
  $("compare").value = id === null ? "" : String(id);
  $("stage-b").classList.toggle("hidden", id === null);
  rendererB.cache = null; // its terrain was not patched while it was hidden
  ui.lastPanB = 0;
}

// The point of view lags behind a playing clock: one request at a time, always the latest tick.
async function requestPov() {
  if (ui.pov === null || ui.povPending) return;
  const tick = ui.tick, char = ui.pov;
  if (ui.povObs && ui.povObs.tick === tick && ui.povObs.self.id === char) return;
  const joined = characters.find((c) => c.id === char);
  if (joined && tick < joined.tick + 1) {
    ui.povError = `${joined.name} joins at tick ${joined.tick}`;
    return;
  }
  ui.povPending = true;
  try {
    const body = await data.pov(tick, char);
    if (ui.pov === char) {
      view.needsFullMemory = true;
      view.areas = {}; // full memory each time: the memory grid is replaced, not merged
      view.applyObservation(body.observation);
      ui.povObs = body.observation;
      ui.povFog = fogFromObservation(body.observation, state.width, state.height);
      ui.povFog.key = `${char}:${body.observation.tick}`;
      ui.povVerified = body.verified;
      ui.povError = body.note || null;
    }
  } catch (err) {
    ui.povError = `${err.code || "error"}: ${err.message}`;
  } finally {
    ui.povPending = false;
  }
  if (ui.pov !== null && ui.povObs && ui.povObs.tick !== ui.tick && !ui.playing) requestPov();
}

// --- jumps ----------------------------------------------------------------------------------

function jump(direction) {
  const kind = $("jump-kind").value;
  const who = $("jump-who").value === "focus" ? ui.focus : null;
  const markers = (ui.overview?.markers || []).filter((m) => m.kind === kind && (who === null || m.char === who));
  const target = direction > 0
    ? markers.find((m) => m.tick + 1 > ui.tick)
    : [...markers].reverse().find((m) => m.tick + 1 < ui.tick);
  if (!target) {
    flash(`no ${direction > 0 ? "later" : "earlier"} ${MARKER_STYLE[kind].label}${who !== null ? ` for ${names[who]}` : ""}`);
    return;
  }
  play(false);
  if ($("jump-who").value !== "focus" || ui.focus === null) focus(target.char);
  seek(target.tick + 1); // an event of tick t shows in the frame of t + 1 (after its step)
  flash(`${names[target.char] || target.char}: ${target.label} (tick ${target.tick})`);
}

let flashTimer = null;
function flash(text) {
  const node = $("flash");
  node.textContent = text;
  node.classList.remove("hidden");
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => node.classList.add("hidden"), 2600);
}

// --- fork -----------------------------------------------------------------------------------

function openFork() {
  play(false);
  $("fork-tick").textContent = String(ui.tick);
  $("fork-char").value = ui.focus === null ? "" : String(ui.focus);
  $("fork-error").textContent = "";
  $("fork-dialog").classList.remove("hidden");
}

async function submitFork(ev) {
  ev.preventDefault();
  const seedChoice = document.querySelector("input[name=seed]:checked").value;
  const seed = seedChoice === "number" ? Number($("fork-seed").value) : seedChoice;
  const char = $("fork-char").value === "" ? null : Number($("fork-char").value);
  $("fork-go").disabled = true;
  $("fork-error").textContent = "re-simulating to tick " + ui.tick + "…";
  const reply = await data.fork({ tick: ui.tick, char, seed }, $("fork-admin").value.trim());
  $("fork-go").disabled = false;
  if (!reply.ok) {
    $("fork-error").textContent = `${reply.code}: ${reply.message}`;
    return;
  }
  if (reply.token) localStorage.setItem("asiworld.token", reply.token); // /play re-attaches with it
  window.__replay.forked = reply;
  location.href = reply.redirect;
}

// --- deep links -----------------------------------------------------------------------------

let lastUrl = "";
function syncUrl() {
  const q = new URLSearchParams();
  q.set("t", String(ui.tick));
  if (ui.focus !== null) q.set("focus", String(ui.focus));
  if (ui.pov !== null) q.set("pov", String(ui.pov));
  if (ui.compare !== null) q.set("compare", String(ui.compare));
  if (ui.speed !== 1) q.set("speed", String(ui.speed));
  // The camera too: the link shows the same part of the map at the same zoom.
  const cam = renderer.camera;
  q.set("x", cam.x.toFixed(1));
  q.set("y", cam.y.toFixed(1));
  q.set("z", String(Math.round(cam.zoom * 100) / 100));
  if (turns.selected) q.set("turn", `${turns.selected.char}.${turns.selected.turn}`);
  if (reader.open) q.set("reader", "1");
  const url = `${location.pathname}?${q}`;
  if (url !== lastUrl) {
    history.replaceState(null, "", url);
    lastUrl = url;
    $("share").href = url;
  }
}

// "Link to this moment" copies the whole address (tick, focus, point of view, compare, speed,
// camera and zoom) and says so; where the clipboard is refused (a page not on https or
// localhost), the address is shown selected, to copy by hand.
async function copyLink(ev) {
  ev.preventDefault();
  syncUrl();
  const link = location.href;
  let copied = false;
  try {
    await navigator.clipboard.writeText(link);
    copied = true;
  } catch {
    const box = el("textarea", { class: "copy-box", readonly: "" }, link);
    document.body.append(box);
    box.select();
    try { copied = document.execCommand("copy"); } catch { copied = false; }
    box.remove();
  }
  const share = $("share");
  share.dataset.copied = copied ? "yes" : "no";
  if (copied) {
    flash(`Link copied: tick ${ui.tick}, this view and zoom`);
    share.textContent = "Copied ✓";
    setTimeout(() => { share.textContent = "Link to this moment"; }, 1800);
  } else {
    flash("Copy this link by hand (the browser refused the clipboard):");
    window.prompt("Link to this moment", link);
  }
}
$("share").addEventListener("click", copyLink);

function numberParam(name, lo, hi) {
  const v = params.get(name);
  const n = v === null || v === "" ? NaN : Number(v);
  return Number.isFinite(n) ? Math.max(lo, Math.min(hi, n)) : null;
}

function charParam(name) {
  const v = params.get(name);
  if (v === null || v === "") return null;
  const id = Number(v);
  return characters.some((c) => c.id === id) ? id : null;
}

// --- page wiring ----------------------------------------------------------------------------

function fillSelect(select, firstLabel) {
  select.replaceChildren(el("option", { value: "" }, firstLabel),
    ...characters.map((c) => el("option", { value: String(c.id) }, `${c.name} (${c.label || "?"})`)));
}
fillSelect($("focus"), "— nobody —");
fillSelect($("pov"), "ground truth");
fillSelect($("compare"), "— off —");
fillSelect($("fork-char"), "nobody: spectate the fork");
$("log-char").replaceChildren(el("option", { value: "all" }, "everyone"),
  ...characters.map((c) => el("option", { value: String(c.id) }, c.name)));
for (const [kind, style] of Object.entries(MARKER_STYLE)) $("jump-kind").append(el("option", { value: kind }, style.label));
$("jump-kind").value = "knockdown";
for (const s of SPEEDS) $("speed").append(el("option", { value: String(s) }, `${s}×`));
$("title").textContent = meta.title;
$("provenance").textContent = `seed ${meta.seed} · ${meta.width}×${meta.height} · ${meta.minutes} min · ` +
  `${characters.length} characters · engine ${meta.engine_version}${meta.complete ? "" : " · cut off"}`;

$("play").addEventListener("click", () => play());
$("speed").addEventListener("change", (e) => setSpeed(Number(e.target.value)));
$("back-minute").addEventListener("click", () => stepBy(-60));
$("back-tick").addEventListener("click", () => stepBy(-1));
$("fwd-tick").addEventListener("click", () => stepBy(1));
$("fwd-minute").addEventListener("click", () => stepBy(60));
$("jump-prev").addEventListener("click", () => jump(-1));
$("jump-next").addEventListener("click", () => jump(1));
$("focus").addEventListener("change", (e) => focus(e.target.value === "" ? null : Number(e.target.value)));
$("pov").addEventListener("change", (e) => setPov(e.target.value === "" ? null : Number(e.target.value)));
$("compare").addEventListener("change", (e) => setCompare(e.target.value === "" ? null : Number(e.target.value)));
$("help-open").addEventListener("click", () => $("help").classList.toggle("hidden"));
$("help").addEventListener("click", (e) => { if (e.target === $("help") || e.target.closest(".close")) $("help").classList.add("hidden"); });
$("fork-open").addEventListener("click", openFork);
$("fork-form").addEventListener("submit", submitFork);
$("fork-cancel").addEventListener("click", () => $("fork-dialog").classList.add("hidden"));
for (const tab of document.querySelectorAll(".tabs button")) {
  tab.addEventListener("click", () => {
    for (const t of document.querySelectorAll(".tabs button")) t.classList.toggle("active", t === tab);
    for (const p of document.querySelectorAll(".tab-panel")) p.classList.toggle("hidden", p.id !== tab.dataset.panel);
    log.key = ""; // a hidden log could not scroll to now: draw it again
    if (tab.dataset.panel === "tab-why") why.update(ui.focus);
  });
}

const clickCharacter = (tile, rendererArea) => {
  const hit = state.characters().find((c) => c.x === tile.x && c.y === tile.y && String(c.area ?? 0) === rendererArea);
  if (hit) focus(hit.id);
};
attachCameraControls($("map"), renderer, {
  onPan: () => (ui.lastPan = performance.now()),
  onClick: (tile) => clickCharacter(tile, areaOf(ui.focus)),
});
attachCameraControls($("map-b"), rendererB, { onPan: () => (ui.lastPanB = performance.now()) });
$("minimap").addEventListener("click", (ev) => {
  const r = ev.target.getBoundingClientRect();
  const p = minimap.toWorld(ev.clientX - r.left, ev.clientY - r.top);
  renderer.centerOn(p.x, p.y);
  ui.lastPan = performance.now();
});

const KEYS = {
  " ": () => play(),
  arrowright: (e) => stepBy(e.shiftKey ? 60 : 1),
  arrowleft: (e) => stepBy(e.shiftKey ? -60 : -1),
  ".": () => stepBy(1),
  ",": () => stepBy(-1),
  ">": () => stepBy(60),
  "<": () => stepBy(-60),
  "]": () => setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(ui.speed) + 1)]),
  "[": () => setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(ui.speed) - 1)]),
  n: () => jump(1),
  p: () => jump(-1),
  k: () => { $("jump-kind").value = "knockdown"; jump(1); },
  v: () => setPov(ui.pov === null ? ui.focus ?? characters[0]?.id ?? null : null),
  c: () => setCompare(ui.compare === null ? characters.find((c) => c.id !== ui.focus)?.id ?? null : null),
  home: () => { play(false); seek(data.first); },
  end: () => { play(false); seek(data.last); },
  f: () => openFork(),
  m: () => nextTurn(),
  w: () => { showTab("tab-why"); why.update(ui.focus); },
  r: () => { if (!$("reader-open").classList.contains("hidden")) setReader(!reader.open); },
  "+": () => timeline.zoomBy(1 / 2, ui.tick), // the timeline's window, about the cursor
  "=": () => timeline.zoomBy(1 / 2, ui.tick),
  "-": () => timeline.zoomBy(2, ui.tick),
  "0": () => timeline.showAll(),
  "?": () => $("help").classList.toggle("hidden"),
  escape: () => {
    if (!$("help").classList.contains("hidden")) $("help").classList.add("hidden");
    else if (!$("fork-dialog").classList.contains("hidden")) $("fork-dialog").classList.add("hidden");
    else focus(null);
  },
};
for (let i = 1; i <= 9; i++) KEYS[String(i)] = () => characters[i - 1] && focus(characters[i - 1].id);
window.addEventListener("keydown", (e) => {
  if (e.target.closest("input, select, textarea") && e.key !== "Escape") return;
  const fn = KEYS[e.key.toLowerCase()] || KEYS[e.key];
  if (!fn || e.ctrlKey || e.metaKey || e.altKey) return;
  e.preventDefault();
  fn(e);
});

const onSeek = (tick, final) => {
  play(false);
  seek(tick, final);
};
const timeline = new Timeline($("timeline"), { first: data.first, last: data.last, characters, colours, onSeek,
  onHover: (info, ev) => {
    const tip = $("timeline-tip");
    if (!info) return tip.classList.add("hidden");
    tip.classList.remove("hidden");
    const turn = info.turn !== undefined ? (timeline.turns[info.char.id] || []).find((t) => t.turn === info.turn) : null;
    tip.textContent = turn
      ? `${info.char.name} · model turn ${turn.turn}: sent ${momentOf(turn.tick_sent)}, answered tick ${turn.tick_answered} · ${turn.tools.join(", ") || (turn.failed ? "failed" : "text only")} (click to open)`
      : info.char
      ? `${info.char.name} · ${info.phase || (info.joined ? "between phases" : `not joined yet (joins at tick ${info.char.tick})`)} · ${momentOf(info.tick)}${info.phase ? ` (phase ${info.from}–${info.to})` : ""}`
      : momentOf(info.tick);
    tip.style.left = `${Math.min(ev.clientX + 12, innerWidth - 320)}px`;
  } });
timeline.onFocus = (id) => focus(id);
const turns = new TurnsPanel($("tab-turns"), { data, names, colours, onSeek, onSelect: (char, n) => selectTurn(char, n) });
timeline.onTurn = (char, n) => selectTurn(char, n);
// The Why tab's findings seek the map and keep the character focused.
const why = new WhyPanel($("tab-why"), { data, names, colours, onSeek, onFocus: (id) => focus(id) });
const reader = new TurnReader($("reader"), { data, names, colours,
  onSelect: (char, n) => selectTurn(char, n), onClose: () => setReader(false) });
$("reader-open").addEventListener("click", () => setReader(!reader.open));

// The turn reader takes the side panels' place and most of the width; the map stays beside it
// on the same clock, so a turn picked there shows the world at the tick it was sent.
function setReader(on) {
  $("replay-root").classList.toggle("reading", on);
  $("reader").classList.toggle("hidden", !on);
  $("reader-open").setAttribute("aria-pressed", String(on));
  $("reader-open").textContent = on ? "Back to panels" : "Read model turns";
  if (!on) return;
  reader.load().then(() => {
    const sel = turns.selected;
    if (sel) reader.pick(`${sel.char}.${sel.turn}`, false);
    reader.search.focus();
  }).catch((err) => flash(`model turns: ${err.message}`));
}

// A model turn: its character is focused, the clock goes to the tick it was sent, and the Model
// turns tab shows what the model was shown, what it answered and what the world did.
function selectTurn(char, n, seekToo = true) {
  turns.select(char, n);
  timeline.selectedTurn = { char, turn: n };
  if (reader.open && reader.selected !== `${char}.${n}`) reader.pick(`${char}.${n}`, false);
  if (ui.focus !== char) focus(char);
  showTab("tab-turns");
  const m = (turns.byChar[char] || []).find((t) => t.turn === n);
  if (m && seekToo) { play(false); seek(m.tick_sent); }
}

function nextTurn() {
  const char = ui.focus ?? Number(Object.keys(turns.byChar)[0]);
  const markers = turns.byChar[char] || [];
  const next = markers.find((m) => m.tick_sent > ui.tick) || null;
  if (next) selectTurn(char, next.turn);
}

function showTab(id) {
  for (const t of document.querySelectorAll(".tabs button")) t.classList.toggle("active", t.dataset.panel === id);
  for (const p of document.querySelectorAll(".tab-panel")) p.classList.toggle("hidden", p.id !== id);
}
const charts = new Charts($("charts"), { first: data.first, last: data.last, characters, colours, onSeek });
const log = new ReplayEventLog($("log"), {
  filters: { char: $("log-char"), kind: $("log-kind"), text: $("log-text"), count: $("log-count") },
  onSeek,
});

// --- first frame, then the rest -------------------------------------------------------------

setSpeed(Number(params.get("speed") || 1));
// Without ?t= the viewer opens on the first frame with characters on the map (one joined at
// tick t is in the frame of t + 1), not on an empty tick 0.
const firstJoin = characters.length ? Math.min(...characters.map((c) => c.tick ?? data.first)) + 1 : data.first;
const startTick = params.has("t") ? clamp(Number(params.get("t")) || 0) : clamp(firstJoin);
focus(charParam("focus"));
setCompare(charParam("compare"));
if (charParam("pov") !== null) setPov(charParam("pov"));
await seek(startTick);
$("loading").classList.add("hidden");
const first = ui.focus !== null ? state.entities[ui.focus] : null;
const linked = { x: numberParam("x", 0, state.width), y: numberParam("y", 0, state.height), z: numberParam("z", 0.25, 6) };
renderer.camera.zoom = linked.z ?? (first ? 2 : 1.25);
if (linked.x !== null && linked.y !== null) {
  renderer.camera.x = linked.x;
  renderer.camera.y = linked.y;
  ui.lastPan = performance.now(); // the linked view first, then the focused character is followed
} else if (first) renderer.centerOn(first.x, first.y);
else renderer.centerOn(state.width / 2, state.height / 2);
window.__replay_first_frame_ms = performance.now();

// The jump list says how many of each kind the replay holds and offers no empty kind.
function countJumps(markers) {
  const counts = {};
  for (const m of markers) counts[m.kind] = (counts[m.kind] || 0) + 1;
  const select = $("jump-kind");
  for (const option of select.options) {
    const n = counts[option.value] || 0;
    option.textContent = `${MARKER_STYLE[option.value]?.label ?? option.value} (${n})`;
    option.disabled = n === 0;
  }
  if (select.selectedOptions[0]?.disabled) {
    const firstWith = [...select.options].find((o) => !o.disabled);
    if (firstWith) select.value = firstWith.value;
  }
}

let seriesLoaded = false;
function loadOverview() {
  data.overview().then((o) => {
    ui.overview = o;
    timeline.setOverview(o);
    charts.setEvents(o.events);
    log.setEvents(o.events, names);
    countJumps(o.markers || []);
    $("legend-phases").classList.remove("waiting");
    if ((o.markers || []).some((m) => m.kind === "resumed")) $("legend-resumed").classList.remove("hidden");
  }).catch((err) => { flash(`overview: ${err.message}`); connectionFailed(); });
  data.series().then((s) => { charts.setSeries(s); seriesLoaded = true; })
    .catch((err) => { flash(`charts: ${err.message}`); connectionFailed(); });
}
loadOverview();
if (params.get("tab") === "why") { showTab("tab-why"); why.update(ui.focus); } // a link to the Why tab

// After the server answers again: the tick that could not be loaded, the point of view, and
// the overview if it never arrived. Focus, compare, camera and speed were never lost.
watchHttp(() => {
  if (ui.failedTick !== null) {
    const tick = ui.failedTick;
    ui.failedTick = null;
    seek(tick);
  }
  ui.povObs = null;
  requestPov();
  if (!ui.overview || !seriesLoaded) loadOverview();
});
turnsAsked.then((t) => {
  timeline.setTurns(t);
  turns.setTurns(t);
  if ((t.configurations || []).length) {
    $("legend-turns").classList.remove("hidden");
    $("reader-open").classList.remove("hidden");
  }
  const linked = /^(\d+)\.(\d+)$/.exec(params.get("turn") || ""); // a deep link to a model turn
  if (params.get("reader") === "1" && (t.configurations || []).length) setReader(true);
  if (linked) selectTurn(Number(linked[1]), Number(linked[2]), !params.has("t"));
}).catch((err) => flash(`model turns: ${err.message}`));

// --- drawing --------------------------------------------------------------------------------

function areaOf(id) {
  const e = id !== null ? state.entities[id] : null;
  return String(e ? e.area ?? 0 : 0);
}

// A pane is drawn again only when something it shows changed (the tick, the terrain version,
// the camera, the canvas size, the point of view) or while a boss's glow pulses in it: drawing
// the map every animation frame kept the page's main thread busy most of the time (a software
// canvas in a 1400-pixel pane), and a seek's keyframe waited behind those frames.
function drawPane(r, id, lastPan, pov) {
  const me = id !== null ? state.entities[id] : null;
  if (me && performance.now() - lastPan > 2500) r.centerOn(me.x, me.y);
  const shown = pov ? view : state;
  const area = pov ? String(ui.povObs.self.area ?? 0) : areaOf(id);
  const changed = r.stale([state.tick, state.version, shown.tick, area, id,
    pov ? ui.povFog.key : "", ui.pov]);
  if (!changed && !bossInView(shown, area, pov ? ui.povFog : null)) return;
  if (pov) {
    r.draw(view, { area, fog: ui.povFog, remembered: view.remembered, selected: ui.pov });
  } else {
    state.changedTiles = r.pendingTiles || [];
    r.pendingTiles = [];
    r.draw(state, { area, selected: id });
    state.changedTiles = [];
  }
}

let lastPanels = 0;
function drawFrame(now) {
  const povShown = ui.pov !== null && ui.povObs && ui.povObs.self.id === ui.pov;
  // Each pane patches its own terrain cache: the tiles changed since the last frame go to both
  // (the renderer takes them from the state, and the first pane would leave none to the second).
  const changed = state.takeChangedTiles();
  for (const r of [renderer, rendererB]) {
    if (!changed.length) continue;
    (r.pendingTiles ||= []).push(...changed);
    if (r.pendingTiles.length > 20000) { // long undrawn (a point of view shown): redraw instead
      r.pendingTiles = [];
      r.cache = null;
    }
  }
  drawPane(renderer, ui.pov ?? ui.focus, ui.lastPan, povShown);
  if (ui.compare !== null) drawPane(rendererB, ui.compare, ui.lastPanB, false);
  else rendererB.pendingTiles = [];
  timeline.tick = ui.tick;
  timeline.focus = ui.focus;
  timeline.compare = ui.compare;
  timeline.draw();
  setData($("map"), "tick", String(state.tick));
  setData($("map"), "pov", povShown ? `${ui.pov}@${ui.povObs.tick}` : "");
  if (now - lastPanels > 200) {
    lastPanels = now;
    renderPanels(povShown);
    const area = areaOf(ui.pov ?? ui.focus), cam = renderer.camera;
    // In a point of view the minimap is what the character knew too: its memory, black where
    // it has never been, and only the creatures it sees (ground truth would give the rest away).
    const mini = povShown
      ? { shown: view, area: String(ui.povObs.self.area ?? 0), selected: ui.pov, key: ui.povFog.key }
      : { shown: state, area, selected: ui.focus, key: "truth" };
    const miniKey = [state.tick, state.version, mini.key, mini.area, mini.selected, cam.x, cam.y, cam.zoom, renderer.canvas.width].join("|");
    if (miniKey !== minimap.drawnKey) { // it repaints its base from every tile: only on change
      minimap.drawnKey = miniKey;
      minimap.key = null; // its base is cached per state version: another state may share one
      minimap.draw(mini.shown, renderer, { area: mini.area, selected: mini.selected });
      setData($("minimap"), "shows", povShown ? `pov:${ui.pov}` : "truth");
    }
    charts.tick = ui.tick;
    charts.focus = ui.focus;
    charts.draw();
    log.render(ui.tick);
    syncUrl();
  }
}

function setData(node, name, value) {
  if (node.dataset[name] !== value) node.dataset[name] = value;
}

function renderPanels(povShown) {
  // Both clocks read the tick the map shows: while playing, the clock's target (ui.tick) runs a
  // few ticks ahead of the frames applied, and the two disagreed ("tick 2011" against "2014").
  const shownTick = state.ready ? state.tick : ui.tick;
  $("clock").textContent = clockText(state.time, shownTick);
  $("tick-readout").textContent = `tick ${shownTick} / ${data.last}`;
  $("time-readout").textContent = clockOf(shownTick);
  const badge = $("pov-badge");
  if (ui.pov === null) {
    badge.textContent = "ground truth";
    badge.className = "pov-badge";
  } else {
    const lag = ui.povObs ? ui.tick - ui.povObs.tick : null;
    badge.className = "pov-badge pov";
    badge.textContent = `point of view: ${names[ui.pov]} — fog and last-seen memory` +
      (povShown ? (lag ? ` (as of tick ${ui.povObs.tick})` : "") : " (re-simulating…)") +
      (ui.povError ? ` · ${ui.povError}` : "");
  }
  const labelB = $("label-b");
  if (ui.compare !== null) labelB.textContent = `${names[ui.compare]} — same clock`;
  const c = characters.find((x) => x.id === ui.focus);
  renderInspector($("inspect"), {
    entity: ui.focus !== null ? state.entities[ui.focus] : null,
    character: c,
    tick: ui.tick,
    phases: ui.overview?.phases?.[ui.focus],
    totals: ui.overview?.totals?.[ui.focus],
    changes: changesFor(ui.focus),
    program: ui.overview && ui.focus !== null ? programAt(ui.overview.events, ui.focus, ui.tick) : null,
    colour: colours[ui.focus],
    areaNameOf,
  });
  if (!$("tab-turns").classList.contains("hidden")) turns.update(ui.tick, ui.focus, ui.compare);
  if (!$("tab-why").classList.contains("hidden")) why.update(ui.focus);
  const cmp = $("inspect-b");
  cmp.classList.toggle("hidden", ui.compare === null);
  if (ui.compare !== null) {
    renderInspector(cmp, {
      entity: state.entities[ui.compare],
      character: characters.find((x) => x.id === ui.compare),
      tick: ui.tick,
      phases: ui.overview?.phases?.[ui.compare],
      totals: ui.overview?.totals?.[ui.compare],
      changes: changesFor(ui.compare),
      program: ui.overview ? programAt(ui.overview.events, ui.compare, ui.tick) : null,
      colour: colours[ui.compare],
      areaNameOf,
    });
  }
}
playClock({ ui, ticksPerSecond: BASE_TPS, clamp, last: () => data.last, seek,
            pause: () => play(false), draw: drawFrame });

window.__replay = {
  state, view, ui, data, charts, timeline, seek, focus, setPov, setCompare, play, setSpeed, jump,
  turns, selectTurn, reader, setReader, why, showTab,
  get tick() { return ui.tick; },
  get camera() { return renderer.camera; },
  get ready() { return state.ready && state.tick === ui.tick; },
};
