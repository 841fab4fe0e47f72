// /live: spectate the whole world; click a character to follow it and see its fog of war.
import { io } from "/static/vendor/socket.io.esm.min.js";
import { WorldState, fogFromObservation } from "./frames.js";
import { loadAtlas, Renderer, Minimap, attachCameraControls } from "./render.js";
import { el, measures, inventoryList, equipmentList, actionText, EventLog, clockText, pretty } from "./panels.js";

const $ = (id) => document.getElementById(id);
const canvas = $("map");
const atlas = await loadAtlas();
const state = new WorldState();
const renderer = new Renderer(canvas, atlas);
const minimap = new Minimap($("minimap"), atlas);
const worldLog = new EventLog($("events"));
const followLog = new EventLog($("followed-events"), 30);

let followed = null; // character id
let fog = null;
let lastPan = 0;
let centred = false;
let panelsDue = true;
// /live?follow=ID (the links of /evaluation) follows that character once it is in the world.
const followParam = new URLSearchParams(location.search).get("follow");
let pendingFollow = followParam !== null && /^\d+$/.test(followParam) ? Number(followParam) : null;

const socket = io({ transports: ["websocket"] });
socket.on("connect", () => socket.emit("spectate", {}));
socket.on("frame", (frame) => {
  if (!state.applyFrame(frame)) {
    socket.emit("resync", {}); // a gap in ticks: ask for a fresh keyframe
    return;
  }
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
  const names = nameIndex();
  for (const ev of state.events) {
    worldLog.add(ev, names);
    if (followed !== null && (ev.char === followed || ev.target === followed)) followLog.add(ev, names);
  }
  panelsDue = true;
});
socket.on("follow", (obs) => {
  if (!obs || !obs.self || obs.self.id !== followed) return;
  fog = fogFromObservation(obs, state.width, state.height);
});
socket.on("error", (err) => console.warn("server error", err));

function nameIndex() {
  const names = {};
  for (const c of state.characters()) names[c.id] = c.name;
  return names;
}

function follow(id) {
  followed = id;
  fog = null;
  followLog.node.innerHTML = "";
  socket.emit("follow", { char: id });
  lastPan = 0;
  panelsDue = true;
}

function unfollow() {
  followed = null;
  fog = null;
  socket.emit("follow", { char: null });
  panelsDue = true;
}

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

function currentArea() {
  const e = followed !== null ? state.entities[followed] : null;
  return String(e ? e.area ?? 0 : 0);
}

function renderPanels() {
  $("clock").textContent = clockText(state.time, state.tick);
  const list = $("characters");
  list.replaceChildren(...state.characters().map((c) => el("li", {
    class: c.id === followed ? "selected" : "", "data-char": c.id,
  },
  el("div", { class: "who" }, el("strong", {}, c.name || `#${c.id}`),
    c.down ? el("span", { class: "down" }, "down") : el("span", { class: "label" }, c.label || "")),
  measures(c))));
  const box = $("followed");
  const me = followed !== null ? state.entities[followed] : null;
  box.classList.toggle("hidden", !me);
  $("follow-badge").classList.toggle("hidden", !me);
  if (!me) return;
  $("follow-badge").textContent = `following ${me.name} — its fog of war · Esc to stop`;
  $("followed-name").textContent = `${me.name} (${me.label || "character"})`;
  $("followed-measures").replaceChildren(measures(me));
  $("followed-action").textContent = `${actionText(me.action)}${me.asleep ? " · asleep" : ""} · ${me.coins ?? 0} T-coins · at ${me.x},${me.y}${me.area ? ` (area ${me.area})` : ""}`;
  $("followed-equipment").replaceChildren(equipmentList(me.equipment));
  $("followed-inventory").replaceChildren(inventoryList(me.inventory));
}

let lastPanels = 0;
function loop(now) {
  const me = followed !== null ? state.entities[followed] : null;
  if (me && now - lastPan > 2500) renderer.centerOn(me.x, me.y); // user pans win for a moment
  const area = currentArea();
  renderer.draw(state, { area, fog: me ? fog : null, selected: followed });
  if (now - lastPanels > 250) {
    minimap.draw(state, renderer, { area, selected: followed });
    if (panelsDue) renderPanels();
    panelsDue = false;
    lastPanels = now;
  }
  canvas.dataset.tick = state.tick;
  requestAnimationFrame(loop);
}
requestAnimationFrame(loop);

window.__asiworld = { state, renderer, follow, unfollow, get fog() { return fog; }, pretty };
