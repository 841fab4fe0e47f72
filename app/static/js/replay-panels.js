// The viewer's side panels: the inspected character (stats, what changed in its inventory and
// equipment, ongoing action, current phase, program) and the filterable event log.
import { el, measures, actionText, describeEvent, pretty } from "./panels.js";
import { PHASE_COLOURS, momentOf } from "./replay-timeline.js";

export const CHANGE_TICKS = 600; // "changes in the last ten simulation minutes"

function itemCounts(entity) {
  const inv = {};
  for (const it of (entity && entity.inventory) || []) inv[it.item] = (inv[it.item] || 0) + it.count;
  return inv;
}

function slotItems(entity) {
  const eq = {};
  for (const [slot, item] of Object.entries((entity && entity.equipment) || {})) {
    eq[slot] = item && typeof item === "object" ? item.item : item;
  }
  return eq;
}

// What changed in a character's pack between `before` (its entity ten minutes before the shown
// tick; null when it had not joined yet, so it held nothing) and `now`: item -> count delta,
// without zeros, and the slots holding another item than then. The same answer whichever way
// the viewer got to the tick (a seek backwards used to compare with the tick seen last).
export function changesBetween(before, now) {
  const was = itemCounts(before), is = itemCounts(now);
  const items = {};
  for (const item of new Set([...Object.keys(was), ...Object.keys(is)])) {
    const d = (is[item] || 0) - (was[item] || 0);
    if (d) items[item] = d;
  }
  const wasEq = slotItems(before), isEq = slotItems(now);
  const slots = {};
  for (const slot of Object.keys(isEq)) if (isEq[slot] && isEq[slot] !== wasEq[slot]) slots[slot] = isEq[slot];
  return { items, slots };
}

function phaseAt(segments, tick) {
  return (segments || []).find((s) => s[0] <= tick && tick <= s[1]) || null;
}

export function renderInspector(node, { entity, tick, character, phases, totals, changes, program, colour, areaNameOf }) {
  if (!entity) {
    node.replaceChildren(el("p", { class: "empty" }, character
      ? `${character.name} has not joined yet (joins at tick ${character.tick}).`
      : "Click a character on the map or in the timeline to inspect it."));
    return;
  }
  const seg = phaseAt(phases, tick);
  // changes: {since, items, slots} from changesBetween, or null while the earlier state loads.
  const recentItem = (changes && changes.items) || {};
  const recentSlot = (changes && changes.slots) || {};
  const inv = el("ul", { class: "inventory" });
  const items = entity.inventory || [];
  if (!items.length) inv.append(el("li", { class: "empty" }, "empty"));
  for (const it of items) {
    const d = recentItem[it.item];
    inv.append(el("li", { class: d ? "changed" : "" },
      el("span", { class: "item-name" }, pretty(it.item)),
      el("span", { class: "item-count" }, `×${it.count}`, d ? el("b", { class: d > 0 ? "up" : "down" }, d > 0 ? ` +${d}` : ` ${d}`) : null)));
  }
  // Items held then and none now are not inventory rows (no "×0"): one line says they went.
  const gone = Object.entries(recentItem).filter(([item, d]) => d < 0 && !items.some((it) => it.item === item));
  const goneLine = gone.length
    ? el("p", { class: "gone-line small muted", "data-gone": gone.map(([item]) => item).join(",") },
      "used up or dropped: ", gone.map(([item, d]) => `${pretty(item)} ${d}`).join(", "))
    : null;
  const eq = el("ul", { class: "equipment" });
  for (const slot of ["weapon", "armor", "outfit", "light"]) {
    const item = (entity.equipment || {})[slot];
    const name = item ? pretty(typeof item === "object" ? item.item : item) : "—";
    eq.append(el("li", { class: recentSlot[slot] ? "changed" : "" }, el("span", { class: "slot" }, slot),
      el("span", { class: "item-name" }, name, recentSlot[slot] ? el("b", { class: "up" }, " new") : null)));
  }
  const bars = el("div", { class: "phase-totals" });
  const sum = Object.values(totals || {}).reduce((a, b) => a + b, 0) || 1;
  for (const [phase, n] of Object.entries(totals || {})) {
    if (n) bars.append(el("span", { style: `flex:${n};background:${PHASE_COLOURS[phase]}`, title: `${phase}: ${Math.round((100 * n) / sum)}%` }));
  }
  // replaceChildren writes a null as the text "null": the rows that may be absent are dropped.
  node.replaceChildren(...[
    el("div", { class: "inspect-head" },
      el("span", { class: "swatch", style: `background:${colour}` }),
      el("strong", {}, entity.name || `#${entity.id}`),
      el("span", { class: "label" }, ` ${entity.label || ""} · #${entity.id}`),
      entity.down ? el("span", { class: "down" }, " down") : null),
    el("div", { class: "phase-now" }, "phase: ",
      seg ? el("span", { class: "phase-chip", style: `background:${PHASE_COLOURS[seg[2]]}` }, seg[2]) : "—",
      seg ? el("small", {}, ` ticks ${seg[0]}–${seg[1]}`) : null),
    bars,
    measures(entity),
    el("p", { class: "action" }, `${actionText(entity.action)}${entity.asleep ? " · asleep" : ""} · ${entity.coins ?? 0} T-coins · at ${entity.x},${entity.y}${entity.area ? ` in ${areaNameOf ? `the ${areaNameOf(entity.area)}` : `area ${entity.area}`}` : ""}`),
    el("h4", {}, "Equipment"), eq,
    el("h4", {}, "Inventory ", el("small", { class: "changes-since" }, changes
      ? `(changes since tick ${changes.since}, 10 min before, marked)` : "(loading the changes of the last 10 min…)")),
    inv, goneLine,
    el("h4", {}, "Program"), renderProgram(program),
  ].filter((child) => child !== null));
}

function renderProgram(program) {
  if (!program) return el("p", { class: "empty" }, "No program submission recorded for this character up to this tick.");
  const box = el("div", { class: "program" },
    el("div", {}, el("strong", {}, program.name || `program ${program.program ?? ""}`), ` · ${pretty(program.status || program.kind)}` +
      ` · since tick ${program.tick}`));
  if (program.source) box.append(el("pre", {}, program.source));
  return box;
}

// Program facts from the event log (kinds `program_*`), when a replay recorded them.
export function programAt(events, char, tick) {
  let found = null;
  for (const ev of events) {
    if (ev.tick > tick) break;
    if (ev.char !== char || !String(ev.kind).startsWith("program")) continue;
    found = { ...(found || {}), ...ev, status: ev.status || String(ev.kind).replace("program_", "") };
  }
  return found;
}

const KIND_GROUPS = {
  all: null,
  combat: ["attacked", "damaged", "killed", "down", "recovered"],
  crafting: ["crafted", "gathered", "placed", "equipped", "unequipped", "bought"],
  dungeon: ["dungeon_entered", "dungeon_left", "boss_defeated", "offered"],
  survival: ["ate", "slept", "woke", "day", "night_report", "day_report", "home", "bed"],
  talk: ["said", "gave"],
  failures: ["op_failed"],
};

export class ReplayEventLog {
  constructor(node, { filters, onSeek }) {
    this.node = node;
    this.filters = filters; // {char: select, kind: select, text: input}
    this.onSeek = onSeek;
    this.events = [];
    this.names = {};
    this.key = "";
    for (const k of Object.keys(KIND_GROUPS)) filters.kind.append(el("option", { value: k }, k));
    for (const input of Object.values(filters)) input.addEventListener("input", () => (this.key = ""));
    node.addEventListener("click", (ev) => {
      const row = ev.target.closest("li[data-tick]");
      if (row) this.onSeek(Number(row.dataset.tick) + 1, true); // the frame after its step
    });
  }

  setEvents(events, names) {
    this.events = events;
    this.names = names;
    this.key = "";
  }

  // The lines that pass the filters, kept until a filter or the events change: a seek only
  // moves the window shown (describing ~13,000 events of a 300-minute replay took 8-28 ms).
  matching() {
    const char = this.filters.char.value;
    const group = KIND_GROUPS[this.filters.kind.value];
    const text = this.filters.text.value.trim().toLowerCase();
    const key = `${char}|${this.filters.kind.value}|${text}`;
    if (this.rows && this.rows.key === key && this.rows.events === this.events) return this.rows.out;
    const out = [];
    for (const ev of this.events) {
      if (ev.kind === "attacked" && ev.char == null) continue; // a creature's blow: see `damaged`
      if (char !== "all" && ev.char !== Number(char) && ev.target !== Number(char)) continue;
      if (group && !group.includes(ev.kind)) continue;
      const line = describeEvent(ev, this.names);
      if (!line) continue;
      if (text && !line.toLowerCase().includes(text)) continue;
      out.push([ev, line]);
    }
    this.rows = { key, events: this.events, out };
    return out;
  }

  render(tick) {
    const key = `${Math.floor(tick / 20)}|${this.filters.char.value}|${this.filters.kind.value}|${this.filters.text.value}|${this.events.length}`;
    if (key === this.key) return;
    this.key = key;
    const rows = this.matching();
    // Show a window around now: the last 120 lines up to the tick and the next 60.
    let i = rows.findIndex(([ev]) => ev.tick + 1 > tick);
    if (i < 0) i = rows.length;
    const shown = rows.slice(Math.max(0, i - 120), i + 60);
    const items = shown.map(([ev, line]) => el("li", {
      "data-tick": ev.tick,
      class: `${ev.tick + 1 > tick ? "future" : ""} ${["down", "op_failed", "damaged"].includes(ev.kind) ? "bad" : ""}`,
    }, el("span", { class: "tick" }, momentOf(ev.tick)), " ", line));
    const now = items[Math.min(items.length - 1, Math.max(0, i - Math.max(0, i - 120) - 1))];
    this.node.replaceChildren(...items);
    this.filters.count.textContent = `${rows.length} events`;
    if (now) {
      now.classList.add("now");
      this.node.scrollTop = now.offsetTop - this.node.offsetTop - this.node.clientHeight / 2;
    }
  }
}
