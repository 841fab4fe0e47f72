// /play: join as a new character and play it with the keyboard. Everything drawn comes from the
// character's own observation (world.observe): the player never gets more than it can see.
// A study's human seat plays here too: its join link (/play?character=C&token=T) seats the page
// on the study's character, which it plays through the agent API (seat.js), not the socket.
import { io } from "/static/vendor/socket.io.esm.min.js";
import { ViewState, markVisible } from "./frames.js";
import { loadAtlas, Renderer, attachCameraControls, bossInView, rememberedShown } from "./render.js";
import { el, entry, rewrite, measures, inventoryList, equipmentList, actionText, EventLog, clockText, pretty, oneLinePerHit } from "./panels.js";
import { nightAdvice, playerLine, Pace, paceText, realSeconds, duration, knockdownLines, HurtRuns, goals, craftReason, buildReason, byNext, missingCount } from "./guide.js";
import { toPlayer } from "./sentences.js";
import { mountLegend } from "./legend.js";
import { watchSocket, watchHttp, connectionFailed } from "./connection.js";
import { Seat, studyMinute } from "./seat.js";
import { NO_DUNGEONS, tierOfArea, areaName, sanctumName, badgeRow, showBossBar, landmarkCaptions } from "./dungeon-ui.js";

const $ = (id) => document.getElementById(id);
const canvas = $("map");
const atlas = await loadAtlas();
const view = new ViewState();
const renderer = new Renderer(canvas, atlas);
// 3 screen px per atlas px, more on a 4K screen at a device scale of 1 (the tiles keep their
// size in the eye); the wheel changes it
renderer.camera.zoom = Math.min(6, Math.max(3, Math.round((3 * innerWidth) / 1920)));
const log = new EventLog($("me-events"), 40);
mountLegend($("legend"), atlas, { fog: true, marker: true });
const DIRS = { n: [0, -1], s: [0, 1], e: [1, 0], w: [-1, 0] };
const KEYS = {
  w: "n", arrowup: "n", s: "s", arrowdown: "s", a: "w", arrowleft: "w", d: "e", arrowright: "e",
};
const TOKEN_KEY = "asiworld.token";

let token = null;
let myName = "";
let nightCheck = false; // a fresh join: warn once the first observation says it is night
let facing = "s";
let fog = null;
let content = {
  recipes: [], structures: {}, items: {}, tiles: [],
  merchant: { sells: {}, max_count: 1 }, dungeons: NO_DUNGEONS, creatures: {},
  clock: {}, knockdown: {}, station_reach: 2, sources: {},
};
const pace = new Pace();
const hurt = new HurtRuns();
let hurtLine = null; // the log line of the open run of hits, rewritten as hits join it
let knockdown = null; // {ev, wakeTick} of the player's last knockdown while it is down
let lastUse = null; // the tile the last E gathered from, to tell a spent tree from an empty tile
// what the player's events have shown so far, for the goal checklist
const seen = { placed: new Set(), crafted: new Set(), downAtNight: false, night: false, survivedNight: false };
// Tier of each dungeon instance this player entered (from its dungeon_entered events), so the
// page can name the area it is in; kept for the session so a reload inside still knows.
const TIERS_KEY = "asiworld.tiers";
const tierOfInstance = JSON.parse(sessionStorage.getItem(TIERS_KEY) || "{}");
let messageTimer = null;

fetch("/api/content").then((r) => r.json()).then((c) => {
  content = { ...content, ...c };
  view.setTileNames(c.tiles);
  renderMenus();
}).catch(connectionFailed); // the server went away: the connection indicator says so

// A study's seat: a token in the address, or a study's world (its seats are given out, nobody
// joins). Such a page has no socket: it calls the agent API as the seat's agent.
const params = new URLSearchParams(location.search);
const seatMode = $("seat").dataset.study === "1" || params.has("token");
let seat = null;
let study = null; // the study's clock and horizon (GET /api/agents/seat)
let turn = null; // the seat's open turn on the lockstep clock: {tick, until: performance.now() ms}
let decided = null; // ends the page's wait for the player's decision of the open turn
let studyEnded = null; // the tick the study ended at
let wantFullMemory = false;

const socket = seatMode ? null : io({ transports: ["websocket"] });
// Every (re)connect takes the seat again with the saved token (a restarted server sends
// observations only to players who joined on it) and asks for the full memory, so the fog of
// war comes back whole. A token the server does not know (a new world) shows the join form.
if (socket) watchSocket(socket, () => {
  const saved = localStorage.getItem(TOKEN_KEY);
  if (!saved) return;
  socket.emit("join", { token: saved }, (reply) => {
    if (reply && reply.ok) {
      seated(reply);
      socket.emit("observe", { token: reply.token, full_memory: true });
    } else {
      localStorage.removeItem(TOKEN_KEY);
      token = null;
      document.body.classList.remove("seated");
      $("join").classList.remove("hidden");
      $("join-error").textContent = reply ? `${reply.message}: join again` : "";
    }
  });
});
if (socket) socket.on("observation", onObservation);
function onObservation(obs) {
  if (!token || !obs || !obs.self) return;
  view.applyObservation(obs);
  if (view.needsFullMemory && socket) socket.emit("observe", { token, full_memory: true });
  if (view.needsFullMemory) wantFullMemory = true;
  pace.note(view.tick);
  notePhase();
  if (nightCheck) warnAtNight();
  for (const ev of oneLinePerHit(view.events || [])) {
    if (ev.kind === "op_failed") {
      const text = spentSource(ev) || toPlayer(ev.message, myName);
      log.add(ev, null, text);
      say(text, false);
      continue;
    }
    note(ev);
    if (ev.kind === "damaged" && ev.char === view.self.id && ev.entity == null) {
      // a run of hits is one line, rewritten as the hits come
      const joins = hurt.add(ev) && hurtLine && hurtLine.isConnected;
      if (joins) hurtLine.lastChild.textContent = ` ${hurt.text()}`;
      else { log.add(ev, null, hurt.text()); hurtLine = $("me-events").firstChild; }
      continue;
    }
    log.add(ev, null, playerLine(ev, view.self.id));
    if (ev.kind === "dungeon_entered" && ev.char === view.self.id) {
      tierOfInstance[ev.instance] = ev.tier;
      sessionStorage.setItem(TIERS_KEY, JSON.stringify(tierOfInstance));
      say(`You entered the ${areaName(content.dungeons, ev.tier)}${ev.tier === 3 ? ": it is dark, light a torch" : ""}`, true);
    }
    if (ev.kind === "boss_defeated" && ev.char === view.self.id) say(`The ${pretty(ev.boss)} is defeated: the exit portal is open`, true);
    if (ev.kind === "bought") say(`You bought ${ev.count} ${pretty(ev.item)} for ${ev.cost} T-coins`, true);
    if (ev.kind === "offered") say(`The altar accepts the sigils: the ${sanctumName(content.dungeons)} is open (E at the altar)`, true);
  }
  fog = buildFog();
  renderPanels();
}

// The player's own events the page keeps: what the goals are ticked from, and the knockdown.
// Dusk and dawn are the world's events, not the character's: its observations do not carry
// them, so the page sees them as the observed time's phase changing (the night advice at dusk,
// "Survive the first night" at dawn).
let lastPhase = null;
function notePhase() {
  const time = view.time || {};
  if (!time.phase) return;
  if (lastPhase !== null && time.phase !== lastPhase) {
    note({ kind: "day", day: time.day, phase: time.phase === "night" ? "dusk" : "dawn", tick: view.tick });
  }
  lastPhase = time.phase;
}

function note(ev) {
  const mine = ev.char === view.self.id;
  if (ev.kind === "placed" && mine) seen.placed.add(ev.item);
  if (ev.kind === "crafted" && mine) seen.crafted.add(ev.item);
  if (ev.kind === "down" && mine) {
    seen.downAtNight = true;
    knockdown = { ev, wakeTick: ev.tick + (content.knockdown.down_ticks || 0) };
    renderKnockdown();
  }
  if (ev.kind === "recovered" && mine) {
    knockdown = null;
    renderKnockdown();
  }
  // a night counts as survived when the player saw it fall and its dawn came with no knockdown
  if (ev.kind === "day" && ev.phase === "dusk") {
    seen.night = true;
    seen.downAtNight = false;
    say(`Night falls: ${nightAdvice(view.self)}`, false, 9000);
  }
  if (ev.kind === "day" && ev.phase === "dawn" && seen.night && !seen.downAtNight) seen.survivedNight = true;
}

// "nothing to gather from ground at (74, 65)" right after gathering a tree there: the tree
// gave all it had (resources.toml: amount, then it becomes `spent`).
function spentSource(ev) {
  const m = /nothing to gather from (\w+) at \((\d+), (\d+)\)/.exec(ev.message || "");
  if (!m || !lastUse || lastUse.x !== Number(m[2]) || lastUse.y !== Number(m[3])) return null;
  const source = content.sources[lastUse.name];
  if (!source || source.spent !== m[1]) return null;
  return `The ${pretty(lastUse.name)} is used up: it gave all its ${pretty(source.item)}. Find another ${pretty(lastUse.name)}.`;
}

function renderKnockdown() {
  const me = view.self;
  const box = $("down");
  const down = !!me && !!me.down;
  box.classList.toggle("hidden", !down);
  if (!down) return;
  const lines = knockdownLines(knockdown && knockdown.ev, me, content);
  $("down-title").textContent = lines.title;
  $("down-dropped").textContent = knockdown ? lines.dropped : "";
  $("down-wake").textContent = lines.wake;
  // the down event's wake tick, else (a page reloaded while down) the observation's
  const wakeTick = knockdown ? knockdown.wakeTick : me.down_until;
  const left = wakeTick != null ? Math.max(0, wakeTick - view.tick) : null;
  const secs = realSeconds(left, pace.rate);
  $("down-countdown").textContent = left == null ? "You wake soon."
    : `Waking in ${secs != null ? duration(secs) : `${left} ticks`}`;
  box.dataset.ticksLeft = left == null ? "" : String(left);
}
$("join-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  // A closed world's join token comes with the page's address: /play?join_token=T
  const joinToken = new URLSearchParams(location.search).get("join_token");
  const body = joinToken ? { name: $("name").value, join_token: joinToken } : { name: $("name").value };
  socket.emit("join", body, (reply) => {
    if (!reply || !reply.ok) {
      $("join-error").textContent = reply ? toPlayer(reply.message) : "The server did not answer.";
      return;
    }
    localStorage.setItem(TOKEN_KEY, reply.token);
    nightCheck = true;
    seated(reply);
    if (view.self && view.self.id === reply.char) warnAtNight();
  });
});

// Joining at night: you arrive with nothing while shades hunt (docs/rules.md).
function warnAtNight() {
  nightCheck = false;
  const phase = (view.time || {}).phase;
  if (phase !== "night" && phase !== "dusk") return;
  say(`It is ${phase}: ${nightAdvice(view.self)}. You see only a few tiles until dawn.`, false, 9000);
}

function seated(reply) {
  token = reply.token;
  myName = reply.name;
  $("join").classList.add("hidden");
  $("seat").classList.add("hidden");
  document.body.classList.add("seated");  // shows the on-screen controls on a touch screen
  $("me-name").textContent = reply.name;
  canvas.focus();
}

// --- acting ------------------------------------------------------------------------------

function act(action, done) {
  if (!token) return;
  if (seat) return seatAct(action, done);
  socket.emit("act", { token, action }, (result) => answered(result, done));
}

function answered(result, done) {
  if (result && !result.ok) {
    // Said to the player, and kept in the log: a refusal is gone from the screen in 4 s.
    const text = spentSource(result) || toPlayer(result.message || result.code, myName);
    say(text, false);
    log.add({ kind: "refused", tick: view.tick, code: result.code }, null, text);
  } else if (result && done) done(result);
}

// --- a study's seat ----------------------------------------------------------------------

function showSeatForm(problem) {
  $("join").classList.add("hidden");
  $("seat").classList.remove("hidden");
  $("seat-error").textContent = problem || "";
  $("seat-token").focus();
}

// The seat the token plays; a refusal (an unknown token, another seat's, a missing one) is said
// on the form with its code, and the form asks again.
async function takeSeat(seatToken, character) {
  const candidate = new Seat(seatToken, character);
  let info;
  try {
    info = await candidate.claim();
  } catch (err) {
    showSeatForm(err.code === "study_ended" ? `${err.message}: this study's world plays no more.`
      : `${toPlayer(err.message)} (${err.code})`);
    return;
  }
  seat = candidate;
  study = info.study;
  seated({ token: seatToken, name: info.name, char: info.character });
  renderStudyLine();
  playSeat();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const REALTIME_POLL_MS = 200;

// The seat's agent: observe, then on the lockstep clock wait for the player's decision of the
// open turn (a key, a button, a click) or the turn's deadline, or for the next turn; on the
// realtime clock look again a few times a second.
async function playSeat() {
  const lockstep = !!study && study.clock === "lockstep";
  wantFullMemory = true;
  for (;;) {
    try {
      const full = wantFullMemory;
      wantFullMemory = false;
      const obs = await seat.observe(full);
      onObservation(obs);
      openTurn(obs.turn);
      if (lockstep && obs.turn) await decision(obs.turn);
      else if (lockstep) await seat.nextTurn(30);
      else await sleep(REALTIME_POLL_MS);
    } catch (err) {
      if (err.code === "study_ended") return endOfStudy(err);
      say(toPlayer(err.message), false);
      await sleep(1000);
    }
  }
}

function openTurn(offer) {
  turn = offer ? { tick: offer.tick, until: performance.now() + offer.seconds_left * 1000 } : null;
  renderStudyLine();
}

function decision(offer) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => { decided = null; resolve(); }, offer.seconds_left * 1000 + 250);
    decided = () => { clearTimeout(timer); decided = null; resolve(); };
  });
}

// On the lockstep clock one decision per turn: the world waits for it and it acts the clock's
// think time later (asiworld.study.turns); the answer comes once it has acted.
function seatAct(action, done) {
  if (study && study.clock === "lockstep") {
    if (!turn) { say("Not your turn yet: the world is on its way to your next turn.", false, 1500); return; }
    turn = null;
    renderStudyLine();
  }
  seat.act(action)
    .then((result) => answered(result, done))
    .catch((err) => {
      if (err.code === "study_ended") return endOfStudy(err);
      answered({ ok: false, code: err.code, message: err.message }, done);
    })
    .finally(() => { if (decided) decided(); });
}

function endOfStudy(err) {
  if (studyEnded !== null) return;
  const found = /tick (\d+)/.exec(err.message || "");
  studyEnded = found ? Number(found[1]) : view.tick;
  turn = null;
  renderStudyLine();
  say("The study has ended: thank you. Your seat's play is recorded with the others'.", true, 60000);
}

// "Study · minute 2 of 5 · your turn: 287 s left": the study's clock against its horizon and,
// on the lockstep clock, the seat's turn and its deadline.
function renderStudyLine() {
  const line = $("study-line");
  if (!seat || !study) return;
  line.classList.remove("hidden");
  const tick = studyEnded ?? view.tick ?? 0;
  let text = `Study · ${studyMinute(study, tick)}`;
  let state = "playing";
  let left = "";
  if (studyEnded !== null) {
    text += " · the study has ended";
    state = "ended";
  } else if (study.clock === "lockstep" && turn) {
    left = String(Math.max(0, Math.ceil((turn.until - performance.now()) / 1000)));
    text += ` · your turn: ${left} s left`;
    state = "open";
  } else if (study.clock === "lockstep") {
    text += " · waiting for your turn";
    state = "waiting";
  }
  line.textContent = text;
  line.dataset.turn = state;
  line.dataset.secondsLeft = left;
  line.dataset.tick = String(tick);
}
setInterval(renderStudyLine, 250);

$("seat-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const pasted = $("seat-token").value.trim();
  // a pasted token is checked on its own: the link's character may be another seat's
  if (pasted) takeSeat(pasted, params.get("token") ? null : params.get("character"));
});

function say(text, ok, ms = 4000) {
  const box = $("message");
  box.textContent = text;
  box.classList.toggle("ok", !!ok);
  box.classList.remove("hidden");
  clearTimeout(messageTimer);
  messageTimer = setTimeout(() => box.classList.add("hidden"), ms);
}

function faced() {
  const me = view.self;
  const [dx, dy] = DIRS[facing];
  return { x: me.x + dx, y: me.y + dy };
}

function tileName(x, y) {
  const area = view.areas[String(view.self.area ?? 0)];
  if (!area || x < 0 || y < 0 || x >= area.w || y >= area.h) return null;
  return view.legend[area.tiles[y * area.w + x]];
}

function creatureAt(x, y) {
  return Object.values(view.entities).find((e) => e.kind !== "character" && e.x === x && e.y === y);
}

function structureAt(x, y) {
  return view.structures.find((s) => s.x === x && s.y === y);
}

function blocked(x, y) {
  const name = tileName(x, y);
  const tile = content.tiles.find((t) => t.name === name);
  if (tile && !tile.walk) return true;
  if (creatureAt(x, y)) return true;
  const st = structureAt(x, y);
  return !!st && !["floor", "door"].includes(st.kind);
}

function interact() {
  const me = view.self;
  const here = tileName(me.x, me.y) || "";
  if (here.startsWith("gate_")) return act({ type: "enter" });
  if (here === "entrance" || here === "portal_open") return act({ type: "leave" });
  const t = faced();
  const creature = creatureAt(t.x, t.y);
  if (creature) {
    return act(creature.kind === "sheep" ? { type: "gather", target: creature.id } : { type: "attack", target: creature.id });
  }
  const st = structureAt(t.x, t.y);
  if (st && st.kind === "door" && st.owner === me.id) return act({ type: st.locked ? "unlock" : "lock", x: t.x, y: t.y });
  if (st && st.kind === "bed") return act({ type: "sleep" });
  const name = tileName(t.x, t.y);
  // At the altar: offer the three sigils, and once it is open, enter the Shadow Sanctum.
  if (name === "altar") return act({ type: me.sanctum_open ? "enter" : "offer" });
  if (name === "merchant") return openMenu("buy-menu");
  // kept while it is the same tile: the one after the last wood reads "ground" already
  if (content.sources[name] || !lastUse || lastUse.x !== t.x || lastUse.y !== t.y) lastUse = { x: t.x, y: t.y, name };
  return act({ type: "gather", x: t.x, y: t.y }); // also opens a faced chest
}

function attack() {
  const me = view.self;
  const t = faced();
  let target = creatureAt(t.x, t.y);
  if (!target) {
    target = Object.values(view.entities).find((e) => e.kind !== "character" &&
      Math.abs(e.x - me.x) + Math.abs(e.y - me.y) === 1);
  }
  if (!target) return say("There is no creature next to you to attack.", false);
  act({ type: "attack", target: target.id });
}

function useItem(it) {
  const info = content.items[it.item] || {};
  if (info.category === "food" || info.category === "potion") return act({ type: "eat", item: it.item });
  if (info.slot) return act({ type: "equip", item: it.item });
  if (it.item === "lock") { const t = faced(); return act({ type: "install_lock", x: t.x, y: t.y }); }
  if (info.category === "structure" || content.structures[it.item]) {
    const t = faced();
    return act({ type: "place", item: it.item, x: t.x, y: t.y });
  }
  say(`The ${pretty(it.item)} is a material: craft with it (C).`, true);
}

// One table of commands for the keyboard and the on-screen controls (a phone has no keys).
const COMMANDS = {
  e: interact, f: attack, " ": () => act({ type: "wait", ticks: 5 }, () => say("You wait 5 ticks.", true, 1500)),
  p: () => act({ type: "pick_up" }),
  z: () => act({ type: view.self && view.self.asleep ? "wake" : "sleep" }),
  q: () => act({ type: "leave" }),
  c: () => toggleMenu("craft-menu"), b: () => toggleMenu("build-menu"), m: () => toggleMenu("buy-menu"),
  escape: closeMenus,
};

// Runs the command of a key; false when the key means nothing here.
function command(key) {
  if (!token) return false;
  if (KEYS[key]) {
    facing = KEYS[key];
    // Facing something solid only turns the character, so E and B act on it without a refusal.
    const t = faced();
    if (!blocked(t.x, t.y)) act({ type: "move", dir: facing });
    return true;
  }
  if (!COMMANDS[key]) return false;
  COMMANDS[key]();
  return true;
}

window.addEventListener("keydown", (ev) => {
  if (ev.target.tagName === "INPUT") return;
  // Enter and Space press the focused button (a list's entry, a menu's, the touch pad's): they
  // are the keyboard's click there, not a wait.
  if ((ev.key === "Enter" || ev.key === " ") && ev.target.closest && ev.target.closest("button")) return;
  if (command(ev.key.toLowerCase())) ev.preventDefault();
});

// On-screen controls: a tap runs the button's key once; holding a direction keeps walking
// (a step each REPEAT_MS) until the finger lifts. A click that follows a pointer press is the
// same press, so it is not run twice; a click alone (Enter or Space on a focused button) runs it.
const REPEAT_MS = 180;
let repeat = null;
let pressed = false;
function stopRepeat() { clearInterval(repeat); repeat = null; }
for (const button of document.querySelectorAll("#touch-pad button[data-key]")) {
  const key = button.dataset.key;
  button.addEventListener("pointerdown", (ev) => {
    ev.preventDefault();
    pressed = true;
    command(key);
    stopRepeat();
    if (KEYS[key]) repeat = setInterval(() => command(key), REPEAT_MS);
  });
  for (const end of ["pointerup", "pointercancel", "pointerleave"]) button.addEventListener(end, stopRepeat);
  button.addEventListener("click", () => {
    if (pressed) { pressed = false; return; }
    command(key);
  });
  button.addEventListener("contextmenu", (ev) => ev.preventDefault());  // a long press is a walk
}

attachCameraControls(canvas, renderer, {
  onClick: (tile) => { if (token) act({ type: "move_to", x: tile.x, y: tile.y }); canvas.focus(); },
});

const MENUS = ["craft-menu", "build-menu", "buy-menu"];
// A list opened puts the focus on its first entry (what can be made next comes first), so the
// keyboard goes on from there; closed, the focus goes back to the map if it was in the list.
function toggleMenu(id) {
  for (const other of MENUS) if (other !== id) $(other).classList.add("hidden");
  const opened = $(id).classList.toggle("hidden") === false;
  if (opened) {
    const first = $(id).querySelector("button.entry");
    if (first) first.focus();
  } else if ($(id).contains(document.activeElement)) {
    canvas.focus();
  }
}
function closeMenus() {
  const inside = MENUS.some((id) => $(id).contains(document.activeElement));
  for (const id of MENUS) $(id).classList.add("hidden");
  if (inside) canvas.focus();
}
function openMenu(id) {
  for (const other of MENUS) $(other).classList.toggle("hidden", other !== id);
}
$("craft-button").addEventListener("click", () => toggleMenu("craft-menu"));
$("build-button").addEventListener("click", () => toggleMenu("build-menu"));
$("buy-button").addEventListener("click", () => toggleMenu("buy-menu"));

// --- panels ------------------------------------------------------------------------------

function have() {
  const counts = {};
  for (const it of (view.self && view.self.inventory) || []) counts[it.item] = (counts[it.item] || 0) + it.count;
  return counts;
}

function costText(inputs) {
  return Object.entries(inputs).map(([k, v]) => `${v} ${pretty(k)}`).join(", ");
}

// Rebuilt only when the pack changes: a list replaced on every observation loses clicks.
let menusKey = "";
let gearKey = ""; // the equipment and inventory the panels show (renderPanels)
function renderMenus() {
  const inv = have();
  const near = {};
  for (const r of content.recipes) if (!(r.station in near)) near[r.station] = stationNear(r.station);
  const key = JSON.stringify([inv, near, content.recipes.length]);
  if (key === menusKey) return;
  menusKey = key;
  const crafts = byNext(content.recipes.map((r) => ({
    r, reason: craftReason(r, inv, (station) => near[station], content.station_reach),
    missing: missingCount(r.inputs, inv) + (near[r.station] ? 0 : 1),
  })));
  rewrite($("craft-list"), "data-recipe", crafts.map(({ r, reason }) => entry({
    class: reason ? "unavailable" : "", "data-recipe": r.id, title: reason || `craft a ${pretty(r.output)}`,
  }, () => act({ type: "craft", recipe: r.id, count: 1 }),
  el("span", {}, pretty(r.output)),
  el("small", {}, `${costText(r.inputs)} · ${pretty(r.station)}`),
  reason ? el("small", { class: "reason" }, reason) : null)));
  const builds = byNext(Object.entries(content.structures).map(([name, spec]) => {
    const cost = Object.keys(spec.cost || {}).length ? spec.cost : { [name]: 1 };
    return { name, cost, reason: buildReason(cost, inv), missing: missingCount(cost, inv) };
  }));
  rewrite($("build-list"), "data-structure", builds.map(({ name, cost, reason }) => entry({
    class: reason ? "unavailable" : "", "data-structure": name, title: reason || `place a ${pretty(name)} on the faced tile`,
  }, () => { const t = faced(); act({ type: "place", item: name, x: t.x, y: t.y }); },
  el("span", {}, pretty(name)), el("small", {}, costText(cost)),
  reason ? el("small", { class: "reason" }, reason) : null)));
}

// A station of that kind within the content's station_reach (Chebyshev) of the character.
function stationNear(kind) {
  const me = view.self;
  if (!me) return false;
  const reach = content.station_reach ?? 2;
  return view.structures.some((st) => st.kind === kind &&
    Math.max(Math.abs(st.x - me.x), Math.abs(st.y - me.y)) <= reach);
}

// The merchant's price list from content; greyed when the coins do not reach, and a line
// saying where to stand when the merchant is not next to the character.
let buyKey = "";
function renderBuyMenu() {
  const me = view.self;
  const coins = (me && me.coins) || 0;
  const near = !!me && nextTo("merchant");
  const n = Math.max(1, Math.min(content.merchant.max_count || 1, Number($("buy-count").value) || 1));
  // Rebuilt only when something shown changes: a list replaced every tick loses clicks.
  const key = `${coins}|${near}|${n}|${Object.keys(content.merchant.sells).length}`;
  if (key === buyKey) return;
  buyKey = key;
  $("buy-where").textContent = near ? `you have ${coins} T-coins` : "walk next to the merchant at the plaza to buy";
  rewrite($("buy-list"), "data-item", Object.entries(content.merchant.sells).map(([item, price]) => entry({
    class: near && coins >= price * n ? "" : "unavailable", "data-item": item,
    title: `${price} T-coins each`,
  }, () => act({ type: "buy", item, count: n }),
  el("span", {}, atlas.icon(item), " ", pretty(item)),
  el("small", { class: "price" }, atlas.icon("coin"), ` ${price * n}`))));
}
$("buy-count").addEventListener("input", renderBuyMenu);

function nextTo(tile) {
  const me = view.self;
  for (const [dx, dy] of [[0, -1], [0, 1], [1, 0], [-1, 0], [1, 1], [1, -1], [-1, 1], [-1, -1]]) {
    if (tileName(me.x + dx, me.y + dy) === tile) return true;
  }
  return false;
}

// 0 on the surface, or the dungeon's tier: from this player's own entry events, else from the
// boss or the enemies in view (a reload inside an instance in a new session); null when none
// says it yet.
function myTier() {
  const me = view.self;
  if (!me || !me.area) return 0;
  if (me.area_kind === "sanctum") return tierOfArea(content.dungeons, { kind: "sanctum" });
  if (tierOfInstance[me.area]) return tierOfInstance[me.area];
  for (const e of Object.values(view.entities)) {
    for (const [tier, spec] of Object.entries(content.dungeons.tiers)) {
      if (e.kind === spec.boss || e.kind === spec.enemy) return Number(tier);
    }
  }
  return null;
}

function bossShown() {
  const area = String(view.self.area ?? 0);
  return area !== "0" ? bossInView(view, area, fog) : null;
}

function renderPanels() {
  const me = view.self;
  const here = areaName(content.dungeons, myTier());
  $("clock").textContent = clockText(view.time, view.tick);
  $("me-measures").replaceChildren(measures(me));
  $("hud-measures").replaceChildren(measures(me));
  $("hud-clock").textContent = clockText(view.time, view.tick);
  const doing = me.down ? "knocked down" : me.asleep && !me.action ? "asleep"
    : `${actionText(me.action)}${me.asleep ? " · asleep" : ""}`;
  $("me-action").textContent = `${doing} · ${me.coins ?? 0} T-coins · ${here} at ${me.x},${me.y}`;
  renderPace();
  renderKnockdown();
  renderGoals();
  $("face-hint").textContent = faceHint();
  $("me-badges").replaceChildren(badgeRow(atlas, content.dungeons, me, {
    tier: myTier(), sanctumOpen: !!me.sanctum_open, sanctumHint: " (E at the altar)",
  }));
  $("area-name").textContent = here;
  $("area-bar").classList.toggle("inside", !!me.area);
  $("area-hint").textContent = hintHere();
  // Written again only when what they show changes: Space presses a button when it is
  // released, and an entry replaced between the key's down and up (a tick's render) lost it.
  const gear = JSON.stringify([me.equipment, me.inventory]);
  if (gear !== gearKey) {
    gearKey = gear;
    rewrite($("me-equipment"), "data-slot", [equipmentList(me.equipment, (slot) => act({ type: "unequip", slot }))]);
    rewrite($("me-inventory"), "data-item", [inventoryList(me.inventory, useItem)]);
  }
  renderMenus();
  renderBuyMenu();
  showBossBar(bossShown(), here);
  // the player's own name tag stays readable: no caption on its tile
  labels = landmarkCaptions(view, String(me.area ?? 0), content.dungeons, { keys: true, hide: [`${me.x},${me.y}`] });
}

// What E / Q do where the character stands, so the dungeon keys are discoverable.
function hintHere() {
  const me = view.self;
  const here = tileName(me.x, me.y) || "";
  if (here.startsWith("gate_")) {
    const [tier, spec] = Object.entries(content.dungeons.tiers).find(([, t]) => t.gate === here) || [];
    return `E: enter the ${spec ? areaName(content.dungeons, Number(tier)) : "dungeon"}${spec && spec.requires ? ` (needs the ${pretty(spec.requires)})` : ""}`;
  }
  if (here === "entrance") return "Q: leave the dungeon (retreat)";
  if (here === "portal_open") return "Q: leave through the exit portal";
  if (nextTo("merchant")) return "E facing the merchant (or M): buy";
  if (nextTo("altar")) return me.sanctum_open ? `E facing the altar: enter the ${sanctumName(content.dungeons)}` : "E facing the altar: offer the three sigils";
  if (nextTo("chest")) return "E facing the chest: open it";
  return "";
}

let labels = [];

// "2.0 ticks/s · night in 5 min 10 s", and the real time before night on the surface.
function renderPace() {
  const rate = pace.rate;
  const line = $("pace");
  line.textContent = paceText(view.time, rate, view.self);
  $("hud-pace").textContent = line.textContent;
  line.dataset.rate = rate == null ? "" : rate.toFixed(2);
  const time = view.time || {};
  line.dataset.secondsToNight = time.phase === "night" ? "" : String(realSeconds(time.ticks_to_dusk, rate) ?? "");
  line.classList.toggle("warn", time.phase === "night" ||
    (realSeconds(time.ticks_to_dusk, rate) ?? Infinity) <= 60);
}

let goalsKey = "";
function renderGoals() {
  const me = view.self;
  const list = goals(content).map((g) => ({ ...g, ok: !!g.done(me, seen) }));
  const key = JSON.stringify(list.map((g) => [g.id, g.ok]));
  if (key === goalsKey) return;
  goalsKey = key;
  const next = list.find((g) => !g.ok);
  $("goals").replaceChildren(...list.map((g) => el("li", {
    class: g.ok ? "done" : g === next ? "next" : "", "data-goal": g.id, "data-done": g.ok ? "1" : "0",
  }, el("span", { class: "tick-box", "aria-hidden": "true" }, g.ok ? "✓" : ""), ` ${g.text}`,
  g.ok ? el("span", { class: "visually-hidden" }, " (done)") : null)));
}

// What is on the faced tile and what E would do there (the same choice interact() makes).
function faceHint() {
  const me = view.self;
  if (!me || me.down) return "";
  const t = faced();
  const creature = creatureAt(t.x, t.y);
  if (creature) return creature.kind === "sheep" ? "Facing a sheep · E: shear it for wool" : `Facing a ${pretty(creature.kind)} · E or F: attack it`;
  const st = structureAt(t.x, t.y);
  if (st && st.kind === "door" && st.owner === me.id) return `Facing your door · E: ${st.locked ? "unlock" : "lock"} it`;
  if (st && st.kind === "bed") return "Facing a bed · E: sleep (your own bed only)";
  if (st) return `Facing a ${pretty(st.kind)}`;
  const name = tileName(t.x, t.y);
  if (!name) return "";
  if (name === "altar") return me.sanctum_open ? "Facing the altar · E: enter the Sanctum" : "Facing the altar · E: offer the three sigils";
  if (name === "merchant") return "Facing the merchant · E: buy";
  if (name === "chest") return "Facing a chest · E: open it";
  const source = content.sources[name];
  if (source) {
    const inv = have();
    const tool = (source.needs || []).length && !source.needs.some((n) => inv[n] || owns(n));
    return tool ? `Facing ${article(name)} ${pretty(name)} · needs a ${pretty(source.needs[0])} to gather ${pretty(source.item)}`
      : `Facing ${article(name)} ${pretty(name)} · E: gather ${pretty(source.item)}`;
  }
  return `Facing ${pretty(name)} · B: build here`;
}

function owns(item) {
  return Object.values(view.self.equipment || {}).some((e) => (typeof e === "object" && e ? e.item : e) === item);
}

const article = (noun) => (/^[aeiou]/i.test(noun) ? "an" : "a");

function buildFog() {
  const area = view.areas[String(view.self.area ?? 0)];
  if (!area) return null;
  const mask = Uint8Array.from(area.seen);
  markVisible(mask, area.w, area.h, view.view);
  return { area: String(view.self.area ?? 0), w: area.w, h: area.h, mask };
}

function loop() {
  if (view.ready) {
    renderer.centerOn(view.self.x, view.self.y);
    const underground = !!view.self.area;
    const area = view.self.area ?? 0;
    // drawn when something shown changed (an observation, the facing, the captions, the
    // content), and every frame while a boss's glow pulses in view
    if (renderer.stale([view.changes, facing, labels, content]) || bossInView(view, area, fog)) {
      renderer.draw(view, {
        area, fog, selected: view.self.id, marker: faced(), labels,
        remembered: rememberedShown(view.remembered, view.entities, content.creatures, (view.time || {}).phase),
        shade: underground ? (myTier() === 3 ? "rgba(0, 0, 10, 0.3)" : null) : undefined,
      });
    }
  } else if (renderer.stale([view.changes])) {
    renderer.draw(view, {});
  }
  canvas.dataset.tick = view.tick;
  canvas.dataset.area = view.self ? String(view.self.area ?? 0) : "";
  requestAnimationFrame(loop);
}
requestAnimationFrame(loop);

window.__asiworld = { view, renderer, act, get token() { return token; } };
$("join-button").disabled = false;  // every handler is in place: joining works from now on
$("seat-button").disabled = false;
if (seatMode) {
  watchHttp();
  $("join").classList.add("hidden");
  if (params.get("token")) takeSeat(params.get("token"), params.get("character"));
  else showSeatForm("");
}
