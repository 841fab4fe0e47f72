// What /play tells a new player, from the rules and the content (GET /api/content): the night
// advice, the pace in real seconds, the knockdown overlay's sentences, collapsed combat lines,
// the goal checklist, what E would do on the faced tile and what can be made next.
import { pretty, describeEvent } from "./panels.js";
import { toPlayer } from "./sentences.js";
import { HitRuns, dealers, over } from "./story.js";

// An event's log line as the player reads it: its own events in the second person ("You were
// knocked down", "Your program “walk” finished"), the others' as /live says them.
export function playerLine(ev, myId) {
  const line = describeEvent(ev, { [myId]: "you" });
  return line && /\byou\b/.test(line) ? toPlayer(line) : line;
}

// creatures.spawn: at night a shade comes for every character on the surface that is not inside
// a home of its own (homes.inside_home), the plaza included; only a dungeon or a locked home
// of one's own is out of their reach.
export const NIGHT_ADVICE = "shades come for anyone outside their own locked home, the plaza included: " +
  "go inside your own locked home, or carry a light and fight";

// What to do when night falls: the rule, or, for a character in its grace nights (a world
// option for people learning, serve --grace-nights; observation self.grace_nights_left), that
// tonight is safe.
export function nightAdvice(me) {
  const left = me ? me.grace_nights_left || 0 : 0;
  if (left <= 0) return NIGHT_ADVICE;
  const more = left === 1 ? "this is your last grace night" : `${left} grace nights left, tonight's included`;
  return `shades spare you tonight (${more}; a world option for new players). After that, ${NIGHT_ADVICE}`;
}

// The world's real pace, measured from the ticks of the observations against the wall clock:
// what a person feels, whatever the server's setting, a pause included.
export class Pace {
  constructor(windowMs = 6000) {
    this.windowMs = windowMs;
    this.samples = [];
  }

  note(tick, now = performance.now()) {
    const last = this.samples[this.samples.length - 1];
    if (last && last.tick === tick) return;
    this.samples.push({ tick, now });
    while (this.samples.length > 2 && now - this.samples[0].now > this.windowMs) this.samples.shift();
  }

  // ticks per real second; null until two observations a while apart have been seen
  get rate() {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (!first || last.now - first.now < 500) return null;
    return (last.tick - first.tick) / ((last.now - first.now) / 1000);
  }
}

export function realSeconds(ticks, rate) {
  if (ticks == null || !rate || rate <= 0) return null;
  return Math.ceil(ticks / rate);
}

export function duration(seconds) {
  if (seconds == null) return "—";
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return s ? `${m} min ${s} s` : `${m} min`;
}

// "2.0 ticks/s · night in 5 min 10 s": the real time a person has left before the shades come.
export function paceText(time, rate, me = null) {
  const speed = rate == null ? "measuring the world's speed…" : rate < 0.05 ? "the world is paused" : `${rate.toFixed(1)} ticks/s`;
  const left = me ? me.grace_nights_left || 0 : 0;
  const grace = left > 0 ? ` · grace: shades spare you ${left === 1 ? "tonight" : `${left} nights`}` : "";
  if (!time || rate == null || rate < 0.05) return speed + grace;
  if (time.phase === "night") return `${speed} · dawn in ${duration(realSeconds(time.ticks_to_dawn, rate))}${grace}`;
  return `${speed} · night in ${duration(realSeconds(time.ticks_to_dusk, rate))}${grace}`;
}

const WAKE_AT = { bed: "next to your bed", plaza: "at the plaza", gate: "at the dungeon's gate" };

// The knockdown overlay's lines, from the `down` event (rules/combat.knock_down: cause,
// dropped) and where combat.recover puts the character: the dungeon's gate when it fell inside
// one, else next to a bed it can reach, else the plaza.
export function knockdownLines(ev, me, content) {
  const cause = ev && ev.cause ? (ev.cause === "hunger" ? "starving" : `a ${pretty(ev.cause)}`) : null;
  const dropped = Object.entries((ev && ev.dropped) || {}).map(([item, n]) => `${n} ${pretty(item)}`);
  const inside = ev ? ev.in_dungeon : !!(me && me.area);  // no event: a page reloaded while down
  const where = inside ? "gate" : me && me.usable_bed ? "bed" : "plaza";
  const bag = (content.knockdown || {}).loot_bag_ticks;
  return {
    title: cause ? `You were knocked down by ${cause}` : "You were knocked down",
    dropped: dropped.length
      ? `You dropped ${dropped.join(", ")} in a loot bag at (${ev.x}, ${ev.y})` +
        (bag ? `: walk there and press P within ${Math.round(bag / 60)} minutes of world time.` : ".")
      : "You dropped nothing.",
    wake: `You will wake ${WAKE_AT[where]} with half your health.`,
  };
}

// A run of hits on the player is one line: "You took 33 damage from 3 shades over 40 s" (the
// runs are /live's, story.HitRuns; the player's line is said to the player).
export class HurtRuns {
  constructor() {
    this.runs = new HitRuns();
    this.run = null;
  }

  // true when `ev` (a `damaged` of the player) continues the open run, which it then joins
  add(ev) {
    const { run, joins } = this.runs.add(ev);
    this.run = run;
    return joins;
  }

  text() {
    return `You took ${this.run.total} damage from ${dealers(this.run)}${over(this.run)}`;
  }
}

// --- the first game's goals --------------------------------------------------------------

const owns = (me, item) => (me.inventory || []).some((it) => it.item === item) ||
  Object.values(me.equipment || {}).some((e) => (typeof e === "object" && e ? e.item : e) === item);

// The first steps of the curriculum (evaluation/achievements: Foothold, Self-sufficiency,
// Home, then the dungeons) up to the two tasks: production (the travel outfit, crafted) and
// exploration (the Shadow King, defeated). Each is ticked from the character's own state or
// from its events (`done`: the kinds and items of the player's events seen so far). Steps
// whose item the content does not have are left out.
export function goals(content) {
  const steps = [
    { id: "workbench", text: "Make a workbench (B, 4 wood)", need: ["workbench"],
      done: (me, seen) => seen.placed.has("workbench") },
    { id: "pickaxe", text: "Craft a wooden pickaxe at the workbench (C)", need: ["wooden_pickaxe"],
      done: (me, seen) => seen.crafted.has("wooden_pickaxe") || owns(me, "wooden_pickaxe") },
    { id: "home", text: "Lock a home of your own: walls, a door, a lock", need: ["door", "lock"],
      done: (me) => !!me.home_locked },
    { id: "bed", text: "Place a bed inside it (sleep with Z)", need: ["bed"],
      done: (me) => !!me.usable_bed },
    { id: "night", text: "Survive the first night", need: [],
      done: (me, seen) => seen.survivedNight },
    { id: "outfit", text: "Make the travel outfit", need: ["travel_outfit"],
      done: (me) => !!(me.tasks || {}).production || owns(me, "travel_outfit") },
    { id: "king", text: `Defeat the ${titled(((content.dungeons || {}).sanctum || {}).boss || "shadow_king")}`, need: [],
      done: (me) => !!(me.tasks || {}).exploration },
  ];
  const known = (name) => !!(content.items[name] || content.structures[name] ||
    content.recipes.some((r) => r.output === name));
  return steps.filter((s) => !Object.keys(content.items).length || s.need.every(known));
}

// --- what can be made next ----------------------------------------------------------------

// Why an entry cannot be made now ("needs a workbench within 2 tiles"), or "" when it can.
export function craftReason(recipe, inv, stationNear, reach) {
  const short = Object.entries(recipe.inputs).filter(([k, v]) => (inv[k] || 0) < v)
    .map(([k, v]) => `${v - (inv[k] || 0)} more ${pretty(k)}`);
  if (short.length) return `needs ${short.join(", ")}`;
  if (recipe.requires && !inv[recipe.requires]) return `needs the ${pretty(recipe.requires)}`;
  if (!stationNear(recipe.station)) return `needs a ${pretty(recipe.station)} within ${reach ?? 2} tiles`;
  return "";
}

export function buildReason(cost, inv) {
  const short = Object.entries(cost).filter(([k, v]) => (inv[k] || 0) < v)
    .map(([k, v]) => `${v - (inv[k] || 0)} more ${pretty(k)}`);
  return short.length ? `needs ${short.join(", ")}` : "";
}

// Makeable first, then by how little is missing: what a player can make next is at the top.
export function byNext(entries) {
  const missing = (e) => e.missing;
  return entries.map((e, i) => ({ ...e, i })).sort((a, b) =>
    (a.reason ? 1 : 0) - (b.reason ? 1 : 0) || missing(a) - missing(b) || a.i - b.i);
}

export function missingCount(inputs, inv) {
  return Object.entries(inputs).reduce((n, [k, v]) => n + Math.max(0, v - (inv[k] || 0)), 0);
}

// "shadow_king" -> "Shadow King": a boss is a name
const titled = (id) => pretty(id).replace(/\b[a-z]/g, (c) => c.toUpperCase());
