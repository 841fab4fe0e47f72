// /play: join as a new character and play it with the keyboard. Everything drawn comes from the
// character's own observation (world.observe): the player never gets more than it can see.
import { io } from "/static/vendor/socket.io.esm.min.js";
import { ViewState, markVisible } from "./frames.js";
import { loadAtlas, Renderer, attachCameraControls } from "./render.js";
import { el, measures, inventoryList, equipmentList, actionText, EventLog, clockText, pretty } from "./panels.js";

const $ = (id) => document.getElementById(id);
const canvas = $("map");
const atlas = await loadAtlas();
const view = new ViewState();
const renderer = new Renderer(canvas, atlas);
renderer.camera.zoom = 3;
const log = new EventLog($("me-events"), 40);
const DIRS = { n: [0, -1], s: [0, 1], e: [1, 0], w: [-1, 0] };
const KEYS = {
  w: "n", arrowup: "n", s: "s", arrowdown: "s", a: "w", arrowleft: "w", d: "e", arrowright: "e",
};
const TOKEN_KEY = "asiworld.token";

let token = null;
let facing = "s";
let fog = null;
let content = { recipes: [], structures: {}, items: {} };
let messageTimer = null;

fetch("/api/content").then((r) => r.json()).then((c) => {
  content = c;
  view.setTileNames(c.tiles);
  renderMenus();
});

const socket = io({ transports: ["websocket"] });
socket.on("connect", () => {
  const saved = localStorage.getItem(TOKEN_KEY);
  if (!saved) return;
  socket.emit("join", { token: saved }, (reply) => {
    if (reply && reply.ok) seated(reply);
    else localStorage.removeItem(TOKEN_KEY);
  });
});
socket.on("observation", (obs) => {
  if (!token || !obs || !obs.self) return;
  view.applyObservation(obs);
  if (view.needsFullMemory) socket.emit("observe", { token, full_memory: true });
  for (const ev of view.events || []) {
    log.add(ev, { [view.self.id]: "you" });
    if (ev.kind === "op_failed") say(ev.message, false);
  }
  fog = buildFog();
  renderPanels();
});

$("join-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  socket.emit("join", { name: $("name").value }, (reply) => {
    if (!reply || !reply.ok) {
      $("join-error").textContent = reply ? reply.message : "the server did not answer";
      return;
    }
    localStorage.setItem(TOKEN_KEY, reply.token);
    seated(reply);
  });
});

function seated(reply) {
  token = reply.token;
  $("join").classList.add("hidden");
  $("me-name").textContent = reply.name;
  canvas.focus();
}

// --- acting ------------------------------------------------------------------------------

function act(action) {
  if (!token) return;
  socket.emit("act", { token, action }, (result) => {
    if (result && !result.ok) say(result.message || result.code, false);
  });
}

function say(text, ok) {
  const box = $("message");
  box.textContent = text;
  box.classList.toggle("ok", !!ok);
  box.classList.remove("hidden");
  clearTimeout(messageTimer);
  messageTimer = setTimeout(() => box.classList.add("hidden"), 4000);
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
  if (name === "altar") return act({ type: "offer" });
  if (name === "merchant") return say("the merchant sells: travel_outfit_design 40, healing_potion 10, torch 3, shears 8 — click Buy in the craft menu", true);
  return act({ type: "gather", x: t.x, y: t.y });
}

function attack() {
  const me = view.self;
  const t = faced();
  let target = creatureAt(t.x, t.y);
  if (!target) {
    target = Object.values(view.entities).find((e) => e.kind !== "character" &&
      Math.abs(e.x - me.x) + Math.abs(e.y - me.y) === 1);
  }
  if (!target) return say("no creature next to you to attack", false);
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
  say(`${pretty(it.item)} is a material: craft with it (C)`, true);
}

window.addEventListener("keydown", (ev) => {
  if (!token || ev.target.tagName === "INPUT") return;
  const key = ev.key.toLowerCase();
  if (KEYS[key]) {
    ev.preventDefault();
    facing = KEYS[key];
    // Facing something solid only turns the character, so E and B act on it without a refusal.
    const t = faced();
    if (!blocked(t.x, t.y)) act({ type: "move", dir: facing });
    return;
  }
  const handlers = {
    e: interact, f: attack, " ": () => act({ type: "wait", ticks: 5 }),
    p: () => act({ type: "pick_up" }),
    z: () => act({ type: view.self && view.self.asleep ? "wake" : "sleep" }),
    q: () => act({ type: "leave" }),
    c: () => toggleMenu("craft-menu"), b: () => toggleMenu("build-menu"),
    escape: () => { $("craft-menu").classList.add("hidden"); $("build-menu").classList.add("hidden"); },
  };
  if (handlers[key]) {
    ev.preventDefault();
    handlers[key]();
  }
});

attachCameraControls(canvas, renderer, {
  onClick: (tile) => { if (token) act({ type: "move_to", x: tile.x, y: tile.y }); canvas.focus(); },
});

function toggleMenu(id) {
  const other = id === "craft-menu" ? "build-menu" : "craft-menu";
  $(other).classList.add("hidden");
  $(id).classList.toggle("hidden");
}
$("craft-button").addEventListener("click", () => toggleMenu("craft-menu"));
$("build-button").addEventListener("click", () => toggleMenu("build-menu"));

// --- panels ------------------------------------------------------------------------------

function have() {
  const counts = {};
  for (const it of (view.self && view.self.inventory) || []) counts[it.item] = (counts[it.item] || 0) + it.count;
  return counts;
}

function costText(inputs) {
  return Object.entries(inputs).map(([k, v]) => `${v} ${pretty(k)}`).join(", ");
}

function renderMenus() {
  const inv = have();
  const affordable = (inputs) => Object.entries(inputs).every(([k, v]) => (inv[k] || 0) >= v);
  $("craft-list").replaceChildren(...content.recipes.map((r) => el("li", {
    class: affordable(r.inputs) ? "" : "unavailable",
    title: `needs ${costText(r.inputs)}${r.requires ? ` and ${pretty(r.requires)}` : ""} at a ${pretty(r.station)}`,
    onclick: () => act({ type: "craft", recipe: r.id, count: 1 }),
  }, el("span", {}, pretty(r.output)), el("small", {}, `${costText(r.inputs)} · ${pretty(r.station)}`))));
  $("build-list").replaceChildren(...Object.entries(content.structures).map(([name, spec]) => {
    const cost = Object.keys(spec.cost || {}).length ? spec.cost : { [name]: 1 };
    return el("li", {
      class: affordable(cost) ? "" : "unavailable",
      onclick: () => { const t = faced(); act({ type: "place", item: name, x: t.x, y: t.y }); },
    }, el("span", {}, pretty(name)), el("small", {}, costText(cost)));
  }));
}

function renderPanels() {
  const me = view.self;
  $("clock").textContent = clockText(view.time, view.tick);
  $("me-measures").replaceChildren(measures(me));
  $("me-action").textContent = `${actionText(me.action)}${me.asleep ? " · asleep" : ""} · ${me.coins ?? 0} T-coins · at ${me.x},${me.y}`;
  $("me-equipment").replaceChildren(equipmentList(me.equipment, (slot) => act({ type: "unequip", slot })));
  $("me-inventory").replaceChildren(inventoryList(me.inventory, useItem));
  renderMenus();
}

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
    renderer.draw(view, {
      area: view.self.area ?? 0, fog, selected: view.self.id, marker: faced(),
      remembered: view.remembered.filter((m) => !view.entities[m.id]),
    });
  } else {
    renderer.draw(view, {});
  }
  canvas.dataset.tick = view.tick;
  requestAnimationFrame(loop);
}
requestAnimationFrame(loop);

window.__asiworld = { view, renderer, act, get token() { return token; } };
