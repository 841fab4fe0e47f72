// What a spectator reads of the world on /live, shared with /play where the two say the same:
// runs of hits as one line (HitRuns: /live's log and /play's HurtRuns), the highlights (stages
// reached, bosses defeated, knockdowns, dungeons cleared) and the intent line of a character:
// what it is doing, where, and why ("walking to the iron vein at (70, 41) to smelt iron ingots"),
// from its ongoing action (frames: entity.action {op, type, args}) and the `goal` the action
// event carries (a built-in configuration's goal, a model seat's tool call; asiworld.pipeline).
import { pretty, article } from "./panels.js";
import { NO_DUNGEONS, areaName } from "./dungeon-ui.js";

// --- runs of hits ---------------------------------------------------------------------------

export const RUN_GAP = 30; // ticks without a hit that end a run

// One run per victim (a character, or a creature by its id): the hits of `damaged` events
// within RUN_GAP ticks of each other, their total, and who dealt them (`from`: source kind ->
// the ids of those of that kind; a character attacker is kind "character").
export class HitRuns {
  constructor(gap = RUN_GAP) {
    this.gap = gap;
    this.runs = new Map();
  }

  // runs over by `tick` are only history: let them go
  forget(tick) {
    for (const [key, run] of this.runs) if (tick - run.last > this.gap) this.runs.delete(key);
  }

  static victimKey(ev) {
    return ev.entity != null ? `e${ev.entity}` : `c${ev.char}`;
  }

  // {run, joins}: the run `ev` joined (joins: it was open) or opened
  add(ev) {
    const key = HitRuns.victimKey(ev);
    let run = this.runs.get(key);
    const joins = !!run && ev.tick - run.last <= this.gap;
    if (!joins) {
      if (this.runs.size > 500) this.forget(ev.tick); // a long watch meets thousands of shades
      run = {
        key, first: ev.tick, last: ev.tick, total: 0, hits: 0, from: new Map(),
        victim: ev.entity != null ? { kind: ev.entity_kind || "creature" } : { char: ev.char },
      };
      this.runs.set(key, run);
    }
    run.last = ev.tick;
    run.total += ev.amount || 0;
    run.hits += 1;
    const kind = ev.source || "harm";
    if (!run.from.has(kind)) run.from.set(kind, new Set());
    const by = kind === "character" ? ev.char ?? ev.source_id : ev.source_id;
    run.from.get(kind).add(by ?? kind);
    return { run, joins };
  }
}

// "3 shades and starving", "a shade", "rusher-2 and planner-1": who dealt a run's hits
export function dealers(run, names = {}) {
  const parts = [];
  for (const [kind, ids] of run.from) {
    if (kind === "hunger") parts.push("starving");
    else if (kind === "character") parts.push(...[...ids].map((id) => names[id] || "a character"));
    else parts.push(ids.size === 1 ? article(pretty(kind)) : `${ids.size} ${pretty(kind)}s`);
  }
  return parts.length > 2 ? `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}` : parts.join(" and ");
}

export function over(run) {
  return run.last > run.first ? ` over ${run.last - run.first} s` : "";
}

// A run as the spectator's log says it: "rusher-2 hit the warden 11 times for 33 damage over
// 40 s", "rusher-2 took 33 damage from 3 shades over 40 s" (one tick is one second).
export function runText(run, names = {}) {
  if (run.victim.char == null) {
    const times = run.hits > 1 ? ` ${run.hits} times` : "";
    return `${dealers(run, names) || "something"} hit the ${pretty(run.victim.kind)}${times} for ${run.total} damage${over(run)}`;
  }
  const who = names[run.victim.char] || "a character";
  return `${who} took ${run.total} damage from ${dealers(run, names) || "something"}${over(run)}`;
}

// --- highlights -----------------------------------------------------------------------------

// The events worth a line among the highlights, or null. `dungeons`: /api/content's, for the
// tiers' names ("Outer Court").
export function highlight(ev, names = {}, dungeons = NO_DUNGEONS) {
  const who = names[ev.char] || "a character";
  const where = (t) => (t != null ? areaName(dungeons, t) : "dungeon");
  switch (ev.kind) {
    case "task_complete": return `${who} completed the ${ev.task ? `${pretty(ev.task)} ` : ""}task`;
    case "boss_defeated": return `${who} defeated the ${ev.boss ? pretty(ev.boss) : "boss"}${ev.tier != null ? ` in the ${where(ev.tier)}` : ""}`;
    case "down": return `${who} was knocked down${ev.cause ? ` by ${ev.cause === "hunger" ? "hunger" : article(pretty(ev.cause))}` : ""}${ev.in_dungeon ? " in a dungeon" : ""}`;
    case "dungeon_left": return ev.cleared ? `${who} cleared the ${where(ev.tier)}` : null;
    case "offered": return `${who} opened the Shadow Sanctum at the altar`;
    case "boss_phase": return `the ${ev.boss ? pretty(ev.boss) : "boss"} enters ${ev.phase != null ? `phase ${ev.phase}` : "its next phase"}`;
    default: return null;
  }
}

// A stage of the achievements newly met (/api/evaluation's configurations[].achievements.stages)
export function stageLine(name, stage) {
  return `${name} reached stage ${stage.stage}: ${stage.name}`;
}

// --- what a character is doing and why --------------------------------------------------------

// The goal of each character's ops, from the action events (`goal` when its submitter named one),
// and the hosted program each one runs (program_started until its end), whose ops name none.
export class Goals {
  constructor() {
    this.byChar = new Map();
    this.programs = new Map();
  }

  note(ev) {
    if (ev.char == null) return;
    if (ev.kind === "action") this.byChar.set(ev.char, { op: ev.op, goal: ev.goal || null });
    else if (ev.kind === "program_started") this.programs.set(ev.char, ev.name || "a program");
    else if (/^program_(finished|failed|stopped|interrupted)$/.test(ev.kind)) this.programs.delete(ev.char);
  }

  // the name of the program the character runs, or null
  program(entity) {
    return this.programs.get(entity.id) ?? null;
  }

  // the goal of the op the character runs now, or null (an op seen start without one, or not seen)
  of(entity) {
    const known = this.byChar.get(entity.id);
    if (!known || !entity.action || entity.action.op !== known.op) return null;
    return known.goal;
  }
}

const TILE = {
  iron: "the iron vein", coal: "the coal seam", flax: "the flax", bush: "the berry bush",
  tree: "a tree", rock: "the rock", water: "the water", plaza: "the plaza", altar: "the altar",
  merchant: "the merchant", chest: "a chest", entrance: "the entrance", portal_open: "the exit portal",
  portal_closed: "the exit portal", gate_1: "gate 1", gate_2: "gate 2", gate_3: "gate 3",
};
// Tiles worth naming next to a walk's end, rarest first: a walk ends next to what it goes for.
const BESIDE = ["altar", "merchant", "chest", "iron", "coal", "flax", "bush"];
const GATHER = { tree: "chopping", iron: "mining", coal: "mining", rock: "mining", bush: "picking", flax: "picking", chest: "opening" };
const STEP = { n: "north", s: "south", e: "east", w: "west" };

// `world`: {tileAt(x, y) -> tile name, structureAt(x, y) -> structure kind, entity(id)}
export function doing(e, world) {
  if (e.down) return "knocked down";
  const a = e.action;
  if (!a) return e.asleep ? "asleep" : "idle";
  const args = a.args || {};
  const at = (x, y) => `(${x}, ${y})`;
  switch (a.type) {
    case "move_to": {
      const here = TILE[world.tileAt(args.x, args.y)];
      if (here) return `walking to ${here} at ${at(args.x, args.y)}`;
      const near = besideOf(args.x, args.y, world);
      return near ? `walking to ${near.what} at ${at(near.x, near.y)}` : `walking to ${at(args.x, args.y)}`;
    }
    case "move": return `stepping ${STEP[args.dir] || "aside"}`;
    case "gather": {
      if (args.x == null) return "gathering";
      const tile = world.tileAt(args.x, args.y);
      return `${GATHER[tile] || "gathering from"} ${TILE[tile] || pretty(tile) || "the tile"} at ${at(args.x, args.y)}`;
    }
    case "craft": return `crafting ${args.count > 1 ? `${args.count} × ` : ""}${pretty(args.recipe)}`;
    case "place": return `building ${article(pretty(args.item))} at ${at(args.x, args.y)}`;
    case "dismantle": return `taking down the ${pretty(world.structureAt(args.x, args.y) || "structure")} at ${at(args.x, args.y)}`;
    case "attack": {
      const t = world.entity(args.target);
      return `attacking ${!t ? "a creature" : t.kind === "character" ? t.name : `the ${pretty(t.kind)}`}`;
    }
    case "eat": return `eating ${pretty(args.item)}`;
    case "use": return `using ${pretty(args.item)}`;
    case "equip": return `equipping ${pretty(args.item)}`;
    case "buy": return `buying ${pretty(args.item)}`;
    case "sleep": return "going to sleep";
    case "wait": return "waiting";
    case "enter": return "entering the dungeon";
    case "leave": return "leaving the dungeon";
    case "offer": return "offering the sigils at the altar";
    case "pick_up": return "picking up loot";
    default: return pretty(a.type);
  }
}

function besideOf(x, y, world) {
  let best = null;
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -1; dx <= 1; dx++) {
      if (!dx && !dy) continue;
      const tile = world.tileAt(x + dx, y + dy);
      const rank = BESIDE.indexOf(tile);
      if (rank >= 0 && (!best || rank < best.rank)) best = { rank, what: TILE[tile], x: x + dx, y: y + dy };
      const st = world.structureAt(x + dx, y + dy);
      if (st && !best && STATIONS.has(st)) best = { rank: BESIDE.length, what: `the ${pretty(st)}`, x: x + dx, y: y + dy };
    }
  }
  return best;
}
const STATIONS = new Set(["workbench", "furnace", "anvil", "loom", "stove", "tailoring_table", "tanning_rack", "bed", "cloth_bed"]);

// "walking to the iron vein at (70, 41) to smelt iron ingots"; a model seat's goal is its tool
// call: "walking to (70, 41) · last tool call move_to(x=70, y=41)"; an op of a hosted program
// names none: "attacking the guard · its program “steady_clear” runs"
export function intentLine(e, goal, world, program = null) {
  const now = doing(e, world);
  if (e.down) return now;
  if (!goal || !e.action) return program ? `${now} · its program “${program}” runs` : now;
  return /^tool call /.test(goal) ? `${now} · last ${goal}` : `${now} to ${goal}`;
}

// tileAt / structureAt / entity over a frames.js WorldState, for `doing`
export function worldOf(state, areaId) {
  const area = state.areas[String(areaId)];
  return {
    tileAt: (x, y) => {
      if (!area || x == null || y == null || x < 0 || y < 0 || x >= area.w || y >= area.h) return null;
      return state.legend[area.tiles[y * area.w + x]] || null;
    },
    structureAt: (x, y) => {
      const st = state.structures.find((s) => s.x === x && s.y === y && String(s.area ?? 0) === String(areaId));
      return st ? st.kind : null;
    },
    entity: (id) => state.entities[id] || null,
  };
}
