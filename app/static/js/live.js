// /live: spectate the whole world; click a character to follow it and see its fog of war.
// The world has areas: the surface (0) and dungeon instances. The map shows one area at a
// time: the followed character's (so following it through a gate switches to its instance),
// or the one picked in the area menu.
import { io } from "/static/vendor/socket.io.esm.min.js";
import { WorldState, fogFromObservation } from "./frames.js";
import { loadAtlas, Renderer, Minimap, attachCameraControls, bossInView } from "./render.js";
import { el, measures, inventoryList, equipmentList, EventLog, clockText, pretty, oneLinePerHit } from "./panels.js";
import { HitRuns, runText, highlight, stageLine, Goals, intentLine, worldOf } from "./story.js";
import { studyMinute } from "./seat.js";
import { watchSocket } from "./connection.js";
import { FrameAge } from "./frame-age.js";
import { mountLegend } from "./legend.js";
import { NO_DUNGEONS, tierOfArea, areaName, instanceTitle, badgeRow, showBossBar, landmarkCaptions } from "./dungeon-ui.js";

const $ = (id) => document.getElementById(id);
const canvas = $("map");
const atlas = await loadAtlas();
const state = new WorldState();
const renderer = new Renderer(canvas, atlas);
const minimap = new Minimap($("minimap"), atlas);
const worldLog = new EventLog($("events"));
const followLog = new EventLog($("followed-events"), 30);
const highlights = new EventLog($("highlights"), 40);
const hits = new HitRuns(); // runs of hits: one log line each ("rusher hit the warden 11 times ...")
const goals = new Goals(); // why each character's op runs (the action events' `goal`)
mountLegend($("legend"), atlas, { fog: true });
const frameAge = new FrameAge($("stage"), $("frame-age"));

let content = { dungeons: NO_DUNGEONS, creatures: {} };
let followed = null; // character id
let followObs = null; // the followed character's last observation
let fog = null;
let labels = []; // the landmark captions of the shown area (labelsFor)
let pickedArea = "0"; // the area shown when nobody is followed
let shownArea = null; // the area drawn last frame: a change re-centres the camera
let lastPan = 0;
let centred = false;
let panelsDue = true;
let pickerKey = "";
// Area facts the WorldState does not keep (tier, dark), read off the raw frames.
const areaInfo = {};
// Who is known to have the Sanctum open: offered events seen, the followed character's own
// observation, and whoever completed the exploration task (entities do not carry the flag).
const sanctumOpen = new Set();
// /live?follow=ID (the links of /evaluation) follows that character once it is in the world.
const followParam = new URLSearchParams(location.search).get("follow");
let pendingFollow = followParam !== null && /^\d+$/.test(followParam) ? Number(followParam) : null;

fetch("/api/content").then((r) => r.json()).then((c) => {
  content = { ...content, ...c };
  panelsDue = true;
}).catch(() => {});

const socket = io({ transports: ["websocket"] });
// Every (re)connect asks for the whole page state again: the frames, and the follow with its
// fog (a restarted server knows nothing of this page). The camera stays where it was.
watchSocket(socket, () => {
  socket.emit("spectate", {});
  if (followed !== null) socket.emit("follow", { char: followed });
});
socket.on("frame", (frame) => {
  if (!state.applyFrame(frame)) {
    socket.emit("resync", {}); // a gap in ticks: ask for a fresh keyframe
    return;
  }
  noteAreas(frame);
  frameAge.frame(state.tick);
  if (!centred && state.width) {
    renderer.centerOn(state.width / 2, state.height / 2);
    renderer.camera.zoom = 1.5;
    centred = true;
  }
  if (pendingFollow !== null && state.entities[pendingFollow]) {
    const id = pendingFollow;
    pendingFollow = null;
    follow(id);
  }
  tell(state.events);
  panelsDue = true;
});
socket.on("follow", (obs) => {
  if (!obs || !obs.self || obs.self.id !== followed) return;
  followObs = obs;
  if (obs.self.sanctum_open) sanctumOpen.add(obs.self.id);
  fog = fogFromObservation(obs, state.width, state.height);
});
socket.on("error", (err) => console.warn("server error", err));

function noteAreas(frame) {
  const areas = frame.keyframe ? frame.keyframe.areas : frame.deltas && frame.deltas.areas;
  if (frame.keyframe) for (const id of Object.keys(areaInfo)) delete areaInfo[id];
  for (const [id, a] of Object.entries(areas || {})) {
    areaInfo[id] = { kind: a.kind, tier: a.tier, dark: !!a.dark };
  }
  for (const id of (frame.deltas && frame.deltas.areas_removed) || []) delete areaInfo[id];
}

// A frame's events into the logs: runs of hits as one line each, the highlights on their own.
function tell(events) {
  const names = nameIndex();
  for (const ev of oneLinePerHit(events)) {
    goals.note(ev);
    if (ev.kind === "offered") sanctumOpen.add(ev.char);
    const mine = followed !== null && (ev.char === followed || ev.target === followed);
    if (ev.kind === "damaged") {
      const { run, joins } = hits.add(ev);
      const text = runText(run, names);
      worldLog.addRun(ev, run.key, text, joins);
      if (mine) followLog.addRun(ev, run.key, text, joins);
    } else {
      worldLog.add(ev, names);
      if (mine) followLog.add(ev, names);
    }
    const line = highlight(ev, names, content.dungeons);
    if (line) addHighlight(ev, line);
  }
}

function addHighlight(ev, line) {
  const empty = $("highlights").querySelector("li.empty");
  if (empty) empty.remove();
  const li = highlights.add(ev, null, line);
  li.dataset.kind = ev.kind;
}

// Stages reached, from the live evaluation (/api/evaluation: each configuration's stages met,
// with the tick): new ones join the highlights. A failed request is tried again later.
const stagesSeen = new Set();
async function pollStages() {
  try {
    const r = await fetch("/api/evaluation");
    if (r.ok) {
      const results = await r.json();
      const met = [];
      for (const c of results.configurations || []) {
        for (const stage of ((c.achievements || {}).stages || [])) {
          const key = `${c.id}:${stage.stage}`;
          if (stage.met && !stagesSeen.has(key)) {
            stagesSeen.add(key);
            met.push({ tick: stage.tick ?? state.tick, text: stageLine(c.name, stage) });
          }
        }
      }
      met.sort((a, b) => a.tick - b.tick);
      for (const m of met) addHighlight({ tick: m.tick, kind: "stage" }, m.text);
    }
  } catch (err) {
    console.warn("stages unavailable", err);
  }
  setTimeout(pollStages, 5000);
}
pollStages();

function nameIndex() {
  const names = {};
  for (const c of state.characters()) names[c.id] = c.name;
  return names;
}

function follow(id) {
  followed = id;
  followObs = null;
  fog = null;
  followLog.clear();
  socket.emit("follow", { char: id });
  lastPan = 0;
  panelsDue = true;
}

function unfollow() {
  if (followed !== null) pickedArea = currentArea(); // keep looking where it was
  followed = null;
  followObs = null;
  fog = null;
  socket.emit("follow", { char: null });
  panelsDue = true;
}

// --- areas ---------------------------------------------------------------------------------

function currentArea() {
  const e = followed !== null ? state.entities[followed] : null;
  if (e) return String(e.area ?? 0);
  return state.areas[pickedArea] ? pickedArea : "0";
}

function tierOf(areaId) {
  const id = String(areaId);
  if (id === "0") return 0;
  const info = areaInfo[id] || {};
  return tierOfArea(content.dungeons, { kind: info.kind || (state.areas[id] || {}).kind, tier: info.tier });
}

function membersOf(areaId) {
  return state.characters().filter((c) => String(c.area ?? 0) === String(areaId));
}

function areaTitle(areaId) {
  const who = membersOf(areaId).map((c) => c.name || `#${c.id}`);
  return instanceTitle(content.dungeons, areaId, tierOf(areaId), who);
}

function renderPicker(area) {
  const ids = Object.keys(state.areas).sort((a, b) => Number(a) - Number(b));
  const titles = ids.map(areaTitle);
  const key = `${ids.join(",")}|${titles.join("|")}|${area}`;
  if (key === pickerKey) return;
  pickerKey = key;
  const picker = $("area-picker");
  picker.replaceChildren(...ids.map((id, i) => {
    const opt = el("option", { value: id }, titles[i]);
    if (id === area) opt.selected = true;
    return opt;
  }));
  $("area-count").textContent = ids.length > 1 ? `${ids.length - 1} active` : "no dungeon open";
}

$("area-picker").addEventListener("change", (ev) => {
  const id = ev.target.value;
  const e = followed !== null ? state.entities[followed] : null;
  if (e && String(e.area ?? 0) !== id) unfollow();
  pickedArea = id; // the next frame drawn notices the new area and centres on it
  panelsDue = true;
});

// Where to look when an area is first shown: its characters, else its middle. Instances are
// small, so they get a closer zoom; the surface gets back the zoom it had.
const zoomOf = { surface: 1.5, instance: 2.5 };
function centreOnArea(areaId, previous) {
  const kindOf = (id) => (id === "0" ? "surface" : "instance");
  if (previous !== null) {
    zoomOf[kindOf(previous)] = renderer.camera.zoom;
    renderer.camera.zoom = zoomOf[kindOf(areaId)];
  }
  const me = followed !== null ? state.entities[followed] : null;
  const area = state.areas[areaId];
  if (me && String(me.area ?? 0) === areaId) return renderer.centerOn(me.x, me.y);
  if (areaId === "0") {
    if (previous !== null) renderer.centerOn(area.w / 2, area.h / 2); // back from an instance
    return;
  }
  const who = membersOf(areaId)[0];
  if (who) renderer.centerOn(who.x, who.y);
  else renderer.centerOn(area.w / 2, area.h / 2);
}

function labelsFor(areaId) {
  const openFor = [...sanctumOpen].map((id) => (state.entities[id] || {}).name).filter(Boolean);
  // A caption under a character would hide its name: leave those out.
  const hide = membersOf(areaId).map((c) => `${c.x},${c.y}`);
  const fresh = landmarkCaptions(state, areaId, content.dungeons, { openFor, hide });
  // the same captions stay the same array: the map is drawn again when they change, not when
  // they are counted again
  return JSON.stringify(fresh) === JSON.stringify(labels) ? labels : fresh;
}

// --- input ---------------------------------------------------------------------------------

attachCameraControls(canvas, renderer, {
  onPan: () => (lastPan = performance.now()),
  onClick: (tile) => {
    const area = currentArea();
    const hit = state.characters().find((c) => c.x === tile.x && c.y === tile.y && String(c.area ?? 0) === area);
    if (hit) follow(hit.id);
  },
});
$("minimap").addEventListener("click", (ev) => {
  const r = ev.target.getBoundingClientRect();
  const p = minimap.toWorld(ev.clientX - r.left, ev.clientY - r.top);
  renderer.centerOn(p.x, p.y);
  lastPan = performance.now();
});
window.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape") unfollow();
});
// Delegated, on pointerdown: the list is rebuilt several times a second, and a click whose
// press and release land on two different rebuilt rows would otherwise be lost.
$("characters").addEventListener("pointerdown", (ev) => {
  const row = ev.target.closest("li[data-char]");
  if (row) follow(Number(row.dataset.char));
});
// The keyboard's Enter or Space on a row's button: a click without a pointer (detail 0). A
// pointer's press has already followed on pointerdown.
$("characters").addEventListener("click", (ev) => {
  const row = ev.detail === 0 ? ev.target.closest("li[data-char]") : null;
  if (row) follow(Number(row.dataset.char));
});

// --- panels --------------------------------------------------------------------------------

// What the badges say of a character that /live knows and the character's entity does not.
function badgeOptions(c) {
  const area = c.area ?? 0;
  return { tier: tierOf(area), areaTitle: areaTitle(area), sanctumOpen: sanctumOpen.has(c.id) };
}

// "walking to the iron vein at (70, 41) to smelt iron ingots" (story.intentLine)
function intentOf(c) {
  return intentLine(c, goals.of(c), worldOf(state, c.area ?? 0), goals.program(c));
}

// serve --study: "Study NAME · minute M of H", M from the frames' tick (a resumed study's world
// goes on from its saved tick), and once the horizon is reached, that it ended there.
const studyBanner = $("study-banner");
function renderStudyBanner() {
  if (!studyBanner || state.tick < 0) return;
  const d = studyBanner.dataset;
  const study = { minutes: Number(d.minutes), ticks_per_minute: Number(d.ticksPerMinute) };
  const done = state.tick >= Number(d.horizon);
  studyBanner.textContent = `Study ${d.name} · ${studyMinute(study, state.tick)}${done ? " · reached its horizon" : ""}`;
  d.minute = String(Math.min(study.minutes, Math.floor(state.tick / (study.ticks_per_minute || 1))));
}

function renderPanels(area) {
  $("clock").textContent = clockText(state.time, state.tick);
  renderStudyBanner();
  for (const c of state.characters()) if (c.tasks && c.tasks.exploration != null) sanctumOpen.add(c.id);
  renderPicker(area);
  renderCharacters();
  const box = $("followed");
  const me = followed !== null ? state.entities[followed] : null;
  box.classList.toggle("hidden", !me);
  $("follow-badge").classList.toggle("hidden", !me);
  if (!me) return;
  $("follow-badge").textContent = `following ${me.name} — its fog of war · Esc to stop`;
  $("followed-name").textContent = `${me.name} (${me.label || "character"})`;
  $("followed-measures").replaceChildren(measures(me), badgeRow(atlas, content.dungeons, me, badgeOptions(me)));
  $("followed-intent").textContent = intentOf(me);
  // the area and the coins are its badges above
  $("followed-action").textContent = `${me.asleep ? "asleep · " : ""}at (${me.x}, ${me.y})`;
  $("followed-equipment").replaceChildren(equipmentList(me.equipment));
  $("followed-inventory").replaceChildren(inventoryList(me.inventory));
}

// One row per character, kept from one render to the next: the list is written again several
// times a second, and a row's button written anew would take the keyboard's focus with it.
const rows = new Map(); // character id -> { li, button, body }

function characterRow(c) {
  let row = rows.get(c.id);
  if (!row) {
    const button = el("button", { type: "button", class: "who" });
    const body = el("div", { class: "row-body" });
    row = { li: el("li", { "data-char": c.id }, button, body), button, body };
    rows.set(c.id, row);
  }
  const name = c.name || `#${c.id}`;
  row.li.className = c.id === followed ? "selected" : "";
  row.button.title = `follow ${name}`;
  row.button.replaceChildren(el("strong", {}, name),
    c.down ? el("span", { class: "down" }, "down") : el("span", { class: "label" }, c.label || ""));
  row.body.replaceChildren(measures(c), badgeRow(atlas, content.dungeons, c, badgeOptions(c)),
    el("p", { class: "intent" }, intentOf(c)));
  return row.li;
}

function renderCharacters() {
  const list = $("characters");
  const characters = state.characters();
  const shown = characters.map(characterRow);
  const present = new Set(characters.map((c) => c.id));
  for (const id of rows.keys()) if (!present.has(id)) rows.delete(id);
  const same = shown.length === list.children.length && shown.every((li, i) => list.children[i] === li);
  if (same) return;
  // Someone joined or left: the rows are put in order again, and the focus kept where it was.
  const focused = list.contains(document.activeElement) ? document.activeElement : null;
  list.replaceChildren(...shown);
  if (focused && focused.isConnected) focused.focus();
}

// The boss for the bar at the top of the view: the one the followed character can see; without
// anyone followed, the boss of the shown instance once it has been hurt.
function bossShown(area, me) {
  let boss = bossInView(state, area, me ? fog : null);
  if (boss && !me && boss.health >= boss.max_health) boss = null;
  if (boss && me && (!fog || fog.area !== area)) boss = null;
  return boss;
}

let lastPanels = 0;
function loop(now) {
  const me = followed !== null ? state.entities[followed] : null;
  const area = currentArea();
  if (area !== shownArea && state.areas[area]) {
    centreOnArea(area, shownArea);
    shownArea = area;
    labels = labelsFor(area);
  }
  if (me && now - lastPan > 2500) renderer.centerOn(me.x, me.y); // user pans win for a moment
  const info = areaInfo[area] || {};
  const underground = area !== "0";
  const shownFog = me ? fog : null;
  // drawn when something shown changed, and every frame while a boss's glow pulses in view
  if (renderer.stale([state.changes, area, followed, shownFog, info.dark, labels])
      || bossInView(state, area, shownFog)) {
    renderer.draw(state, {
      area, fog: shownFog, selected: followed, labels,
      shade: underground ? (info.dark ? "rgba(0, 0, 10, 0.35)" : null) : undefined,
    });
  }
  if (now - lastPanels > 250) {
    minimap.draw(state, renderer, { area, selected: followed });
    labels = labelsFor(area);
    showBossBar(bossShown(area, me), areaName(content.dungeons, tierOf(area)));
    $("area-bar").classList.toggle("inside", area !== "0");
    if (panelsDue) renderPanels(area);
    panelsDue = false;
    lastPanels = now;
  }
  canvas.dataset.tick = state.tick;
  canvas.dataset.area = area;
  requestAnimationFrame(loop);
}
requestAnimationFrame(loop);

window.__asiworld = {
  state, renderer, follow, unfollow, pretty, areaInfo, frameAge, goals, tell,
  get fog() { return fog; }, get area() { return currentArea(); }, get followObs() { return followObs; },
  get labels() { return labels; },
};
