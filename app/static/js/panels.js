// Side panels shared by the live and play pages: measure bars, inventory, equipment, the
// ongoing action and recent events. Plain DOM, no framework.
import { couldNot } from "./sentences.js";

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

export function bar(label, value, max = 100, kind = label) {
  const v = Math.max(0, Math.min(max, value ?? 0));
  return el("div", { class: `bar bar-${kind}`, title: `${label} ${Math.round(v)}/${max}` },
    el("span", { class: "bar-label" }, label),
    el("span", { class: "bar-track" }, el("span", { class: "bar-fill", style: `width:${(100 * v) / max}%` })),
    el("span", { class: "bar-value" }, String(Math.round(v))));
}

export function measures(c) {
  return el("div", { class: "measures" },
    bar("health", c.health, c.max_health || 100),
    bar("hunger", c.hunger),
    bar("energy", c.energy));
}

export function pretty(name) {
  return String(name ?? "").replace(/_/g, " ");
}

// "a shade", "an iron golem"
export function article(noun) {
  return `${/^[aeiou]/i.test(noun) ? "an" : "a"} ${noun}`;
}

export function actionText(action) {
  if (!action) return "idle";
  const left = action.ticks_left != null ? ` · ${action.ticks_left} ticks left` : "";
  return `${pretty(action.type)} (${action.status || "running"})${left}`;
}

// An entry of a list the player acts on (an inventory item, a recipe, a structure, a ware): an
// <li> holding one button, so the Tab key reaches it and Enter or Space presses it as a click
// does. `attrs` go on the <li> (its class and data- key) but for `title`, which is the button's.
export function entry(attrs, onClick, ...children) {
  const { title, ...rest } = attrs;
  const button = el("button", title ? { type: "button", class: "entry", title } : { type: "button", class: "entry" },
    ...children);
  button.addEventListener("click", onClick);
  return el("li", rest, button);
}

// Writes `node`'s children anew and keeps the keyboard's place: when the focus was in one of
// its entries, it goes to the new entry with the same `key` attribute (data-item, data-recipe,
// ...). The lists are written again as the character's state changes; without this a player
// who just ate or crafted would find the focus back at the start of the page.
export function rewrite(node, key, children) {
  const was = node.contains(document.activeElement) ? document.activeElement.closest(`[${key}]`) : null;
  const value = was && was.getAttribute(key);
  node.replaceChildren(...children);
  if (value === null) return;
  const again = node.querySelector(`[${key}="${CSS.escape(value)}"]`);
  const target = again && (again.matches("button") ? again : again.querySelector("button"));
  if (target) target.focus();
}

export function inventoryList(items, onClick) {
  const list = el("ul", { class: "inventory" });
  if (!items || !items.length) list.append(el("li", { class: "empty" }, "empty"));
  for (const it of items || []) {
    const shown = [el("span", { class: "item-name" }, pretty(it.item)),
      el("span", { class: "item-count" }, `×${it.count}`)];
    list.append(onClick ? entry({ class: "clickable", "data-item": it.item }, () => onClick(it), ...shown)
      : el("li", { "data-item": it.item }, ...shown));
  }
  return list;
}

export function equipmentList(equipment, onClick) {
  const list = el("ul", { class: "equipment" });
  for (const slot of ["weapon", "armor", "outfit", "light"]) {
    const item = (equipment || {})[slot];
    const shown = [el("span", { class: "slot" }, slot),
      el("span", { class: "item-name" }, item ? pretty(typeof item === "object" ? item.item : item) : "—")];
    list.append(item && onClick ? entry({ class: "clickable", "data-slot": slot }, () => onClick(slot), ...shown)
      : el("li", { "data-slot": slot }, ...shown));
  }
  return list;
}

// An event as one line of a log, or null for the kinds too chatty for it (action, op_done, ...).
// Every part a line needs is said even when its field is missing ("someone", "something"):
// never "undefined", an empty quote or a bare name.
export function describeEvent(ev, names = {}) {
  const who = (id) => names[id] || (id == null ? "someone" : "a character");
  const thing = (item) => (item ? pretty(item) : "something");
  const some = (n, item) => `${n != null ? `${n} ` : ""}${thing(item)}`;
  const name = (n) => (n ? `“${n}”` : "");
  switch (ev.kind) {
    case "joined": return `${ev.name || who(ev.char)} joined`;
    case "gathered": return `${who(ev.char)} gathered ${some(ev.count, ev.item)}`;
    case "crafted": return `${who(ev.char)} crafted ${some(ev.count, ev.item)}`;
    case "placed": return `${who(ev.char)} placed ${thing(ev.item)}`;
    case "ate": return `${who(ev.char)} ate ${thing(ev.item)}`;
    case "equipped": return `${who(ev.char)} equipped ${thing(ev.item)}`;
    // A creature's damage names the attacker in `char`; the victim is `entity`.
    case "damaged": {
      const amount = ev.amount != null ? `${ev.amount} damage` : "damage";
      if (ev.entity != null) {
        return `the ${pretty(ev.entity_kind || "creature")} took ${amount}${ev.char != null ? ` from ${who(ev.char)}` : ""}`;
      }
      if (ev.source_id == null && ev.source) return `${who(ev.char)} lost ${ev.amount ?? "some"} health to ${pretty(ev.source)}`;
      return `${who(ev.char)} took ${amount}${ev.source ? ` from ${article(pretty(ev.source))}` : ""}`;
    }
    case "attacked": {
      const target = ev.target_kind === "character" ? who(ev.target) : thing(ev.target_kind);
      const dealt = ev.damage != null ? ` for ${ev.damage}` : "";
      return ev.char == null
        ? `${ev.attacker_kind ? pretty(ev.attacker_kind) : "a creature"} hit ${target}${dealt}`
        : `${who(ev.char)} hit ${target}${dealt}`;
    }
    case "offered": return `${who(ev.char)} offered the three sigils: the Shadow Sanctum is open`;
    case "boss_phase": return `${ev.boss ? pretty(ev.boss) : "the boss"} enters ${ev.phase != null ? `phase ${ev.phase}` : "its next phase"}!`;
    case "killed": return `${who(ev.char)} defeated ${ev.target_kind ? pretty(ev.target_kind) : "a creature"}`;
    case "down": return `${who(ev.char)} was knocked down`;
    case "recovered": return ev.at ? `${who(ev.char)} recovered at the ${pretty(ev.at)}` : `${who(ev.char)} recovered`;
    case "day": return ev.day != null ? `day ${ev.day}${ev.phase ? `: ${ev.phase}` : ""}` : ev.phase ? `it is ${ev.phase}` : null;
    // a refusal as English, never the engine's sentence for agents (sentences.couldNot)
    case "op_failed": return couldNot(ev, who(ev.char));
    // nothing said is no line (an empty `say` once rendered as a bare name)
    case "said": return String(ev.text ?? "").trim() ? `${who(ev.char)}: “${String(ev.text).trim()}”` : null;
    case "dungeon_entered": return ev.tier != null ? `${who(ev.char)} entered tier ${ev.tier}` : `${who(ev.char)} entered a dungeon`;
    case "dungeon_left": return ev.tier != null ? `${who(ev.char)} left tier ${ev.tier}` : `${who(ev.char)} left a dungeon`;
    case "boss_defeated": return `${who(ev.char)} defeated ${ev.boss ? pretty(ev.boss) : "a boss"}!`;
    case "coins": return `${who(ev.char)} got ${ev.amount != null ? `${ev.amount} ` : ""}T-coins`;
    case "bought": return `${who(ev.char)} bought ${thing(ev.item)}`;
    case "slept": return `${who(ev.char)} fell asleep`;
    case "woke": return ev.reason ? `${who(ev.char)} woke (${pretty(ev.reason)})` : `${who(ev.char)} woke`;
    case "task_complete": return `${who(ev.char)} completed the ${ev.task ? `${pretty(ev.task)} ` : ""}task!`;
    // Hosted programs (an agent's script running on the world clock): start and end.
    case "program_started": return `${who(ev.char)} handed over program ${name(ev.name) || "a program"}`.replace("program a program", "a program");
    case "program_finished": return `${who(ev.char)}'s program ${name(ev.name)} finished`.replace("  ", " ");
    case "program_failed":
    case "program_stopped":
    case "program_interrupted": {
      const why = ev.outcome && ev.outcome.error ? `: ${ev.outcome.error.message}` : "";
      return `${who(ev.char)}'s program ${name(ev.name)} ${ev.kind.replace("program_", "")}${why}`.replace("  ", " ");
    }
    // A killed realtime study went on from here: how this character's player came back.
    case "resumed": return `the study was resumed: ${who(ev.char)}${ev.detail ? `: ${ev.detail}` : " came back"}`;
    default: return null; // action / op_done etc. are too chatty for the log
  }
}

// A hit is told by two events, `attacked` (the blow) and `damaged` (what it did, after armour):
// one line per hit, so the blow is left out when its damage is in the same tick's events.
export function oneLinePerHit(events) {
  const dealt = new Set();
  for (const ev of events) {
    if (ev.kind !== "damaged" || ev.source_id == null) continue;
    dealt.add(`${ev.tick}:${ev.source_id}:${ev.entity ?? ev.char}`);
  }
  return events.filter((ev) => ev.kind !== "attacked" ||
    !dealt.has(`${ev.tick}:${ev.char ?? ev.attacker}:${ev.target}`));
}

export class EventLog {
  constructor(node, limit = 60) {
    this.node = node;
    this.limit = limit;
    this.runLines = new Map(); // a run's key -> its line (addRun)
  }

  add(ev, names, text = describeEvent(ev, names)) {
    if (!text) return null;
    const cls = ev.kind === "op_failed" || ev.kind === "refused" || ev.kind === "down" || ev.kind === "damaged" ? "bad" : "";
    const line = el("li", { class: cls, "data-kind": ev.kind }, el("span", { class: "tick" }, `${ev.tick}`), " ", text);
    this.node.prepend(line);
    while (this.node.children.length > this.limit) this.node.lastChild.remove();
    return line;
  }

  // A run of hits (story.HitRuns) is one line: a hit that joins the open run rewrites that
  // line, stamps it with its tick and brings it to the top; one that opens a run starts a line.
  addRun(ev, key, text, joins) {
    const line = this.runLines.get(key);
    if (joins && line && line.isConnected) {
      line.lastChild.textContent = text; // the text node after the tick and its space
      line.firstChild.textContent = `${ev.tick}`; // its latest hit: the log stays in tick order
      line.dataset.hits = String(Number(line.dataset.hits || 1) + 1);
      if (this.node.firstChild !== line) this.node.prepend(line);
      return line;
    }
    const fresh = this.add(ev, null, text);
    fresh.dataset.run = key;
    fresh.dataset.hits = "1";
    this.runLines.set(key, fresh);
    if (this.runLines.size > 4 * this.limit) {
      for (const [k, l] of this.runLines) if (!l.isConnected) this.runLines.delete(k);
    }
    return fresh;
  }

  clear() {
    this.node.replaceChildren();
    this.runLines.clear();
  }
}

export function clockText(time, tick) {
  if (!time || time.day == null) return `tick ${tick}`;
  const minute = Math.floor(time.minute ?? 0);
  // "Day 2 · daytime, minute 5": the phase said once, as a word a person reads
  const phase = PHASE_WORD[time.phase] || time.phase;
  return `Day ${time.day} · ${phase ? `${phase}, ` : ""}minute ${minute} · tick ${tick}`;
}

const PHASE_WORD = { day: "daytime", night: "night", dusk: "dusk", dawn: "dawn" };

export const PHASE_ICON = { day: "☀", dusk: "🌇", night: "☾", dawn: "🌅" };
