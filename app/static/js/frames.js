// Applying frames: one piece of code for live and replay (docs/engine-interface.md, "Frames").
// A keyframe replaces the whole state; a delta frame applies tiles, entities, removals, and
// replaces structures / loot / time when present; `entity_patches` {id: {field: value, "-":
// [removed fields]}} change the fields of entities the state holds (live frames, made by
// WireFrames.pack in app/server/live.py; a replay's reader sends them whole). A delta whose tick
// does not follow the state's tick is refused (applyFrame returns false) so the caller can ask
// for a fresh keyframe.

function decodeBase64(text) {
  const raw = atob(text || "");
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

function decodeArea(area) {
  return {
    kind: area.kind, tier: area.tier ?? null, w: area.w, h: area.h,
    tiles: decodeBase64(area.tiles), floor: decodeBase64(area.floor),
  };
}

export class WorldState {
  // isCached(areaId): whether some renderer holds a terrain cache of that area (default: assume
  // so). Only replacing such an area whole bumps `version`, the renderers' cache key.
  constructor(isCached = () => true) {
    this.isCached = isCached;
    this.version = 0; // never goes back: a cache keyed by an old value must not match again
    this.changes = 0; // counts every change of what a map shows (pages draw only after one)
    this.reset();
  }

  reset() {
    this.changes += 1;
    this.tick = -1;
    this.width = 0;
    this.height = 0;
    this.areas = {}; // id -> {kind, w, h, tiles: Uint8Array, floor: Uint8Array}
    this.entities = {}; // id -> entity dict
    this.structures = [];
    this.loot = [];
    this.time = {};
    this.legend = {}; // terrain code -> name
    this.events = []; // events of the last frame applied
    this.changedTiles = []; // [[area, x, y, code]] since the renderer last looked
  }

  get ready() {
    return this.tick >= 0;
  }

  applyFrame(frame) {
    this.changes += 1;
    if (frame.keyframe) {
      this.applyKeyframe(frame.tick, frame.keyframe);
    } else {
      if (!this.ready || frame.tick !== this.tick + 1) return false;
      const patches = frame.entity_patches || {};
      // A patch needs the entity it patches: without it, ask for a keyframe (nothing applied).
      if (Object.keys(patches).some((id) => !this.entities[id])) return false;
      this.applyDeltas(frame.deltas || {});
      for (const [id, patch] of Object.entries(patches)) {
        const entity = { ...this.entities[id], ...patch };
        for (const field of patch["-"] || []) delete entity[field];
        delete entity["-"];
        this.entities[id] = entity;
      }
    }
    this.tick = frame.tick;
    this.events = frame.events || [];
    return true;
  }

  applyKeyframe(tick, body) {
    const before = this.areas;
    const legend = JSON.stringify(this.legend);
    const undrawn = this.changedTiles; // changes the renderers have not drawn yet stay owed
    this.reset();
    this.changedTiles = undrawn;
    this.width = body.width;
    this.height = body.height;
    for (const [id, area] of Object.entries(body.areas || {})) this.areas[id] = decodeArea(area);
    this.entities = structuredClone(body.entities || {});
    this.structures = body.structures || [];
    this.loot = body.loot || [];
    this.time = body.time || {};
    this.legend = body.legend || {};
    // Renderers keep their terrain where an area keeps its size: the tiles that differ from what
    // they drew are handed over as changes (a far seek redraws what changed, not 16k tiles).
    let redraw = JSON.stringify(this.legend) !== legend;
    for (const [id, area] of Object.entries(this.areas)) {
      const old = before[id];
      if (!old) continue;
      if (old.w !== area.w || old.h !== area.h) {
        redraw = true;
        continue;
      }
      for (let i = 0; i < area.tiles.length; i++) {
        if (old.tiles[i] !== area.tiles[i]) {
          this.changedTiles.push([id, i % area.w, Math.floor(i / area.w), area.tiles[i]]);
        }
      }
    }
    if (redraw) this.version += 1;
  }

  applyDeltas(d) {
    this.changes += 1;
    for (const [area, x, y, code] of d.tiles || []) {
      const a = this.areas[area];
      if (!a) continue;
      a.tiles[y * a.w + x] = code;
      this.changedTiles.push([area, x, y, code]);
    }
    for (const [id, entity] of Object.entries(d.entities || {})) this.entities[id] = entity;
    for (const id of d.removed || []) delete this.entities[id];
    if (d.structures) this.structures = d.structures;
    if (d.loot) this.loot = d.loot;
    if (d.time) this.time = d.time;
    for (const id of d.areas_removed || []) delete this.areas[id]; // a finished dungeon instance
    if (d.areas) {
      // A new area (a dungeon instance) arrives whole, like a keyframe for that area. A new id
      // has no cache to throw away; only replacing an area a renderer holds bumps `version`
      // (redrawing the whole surface whenever someone enters a dungeon costs 100-200 ms).
      let stale = false;
      for (const [id, area] of Object.entries(d.areas)) {
        if (this.areas[id] && this.isCached(String(id))) stale = true;
        this.areas[id] = decodeArea(area);
      }
      if (stale) this.version += 1;
    }
  }

  characters() {
    return Object.values(this.entities)
      .filter((e) => e.kind === "character")
      .sort((a, b) => a.id - b.id);
  }

  takeChangedTiles() {
    const out = this.changedTiles;
    this.changedTiles = [];
    return out;
  }
}

// A character's own scoped view, shaped like a WorldState so the same renderer draws it.
// Built from observations (world.observe): remembered tiles come from memory.tiles (full
// memory) and are refreshed with each observation's view window; entities are only those in view.
export class ViewState {
  constructor() {
    this.tick = -1;
    this.areas = {};
    this.legend = {};
    this.entities = {};
    this.structures = [];
    this.loot = [];
    this.time = {};
    this.self = null;
    this.view = null;
    this.remembered = []; // memory.entities: last-seen creatures
    this.changedTiles = [];
    this.version = 0;
    this.changes = 0; // as WorldState's
    this.needsFullMemory = true;
  }

  get ready() {
    return this.self !== null && this.areas[this.self.area] !== undefined;
  }

  // Observations spell tiles as one character; the names come from content (GET /api/content).
  setTileNames(tiles) {
    for (const t of tiles || []) this.legend[t.char.charCodeAt(0)] = t.name;
    this.version += 1;
    this.changes += 1;
  }

  applyObservation(obs) {
    this.changes += 1;
    const me = obs.self;
    const areaId = String(me.area ?? 0);
    const legend = (obs.view && obs.view.legend) || {};
    for (const [ch, name] of Object.entries(legend)) this.legend[ch.charCodeAt(0)] = name;
    if (obs.memory && obs.memory.tiles) {
      this.loadMemory(areaId, obs.memory.tiles);
    } else if (!this.areas[areaId]) {
      this.needsFullMemory = true; // a new area (a dungeon): the caller asks for full memory
    }
    this.tick = obs.tick;
    this.time = obs.time || {};
    this.self = me;
    this.view = obs.view;
    this.entities = {};
    this.entities[me.id] = { kind: "character", ...me };
    for (const e of obs.entities || []) this.entities[e.id] = { area: me.area, ...e };
    this.structures = obs.structures || [];
    this.loot = obs.loot || [];
    this.remembered = (obs.memory && obs.memory.entities) || [];
    this.events = obs.events || [];
    const area = this.areas[areaId];
    if (area && obs.view) this.mergeView(areaId, area, obs.view);
  }

  loadMemory(areaId, rows) {
    const h = rows.length;
    const w = h ? rows[0].length : 0;
    const tiles = new Uint8Array(w * h);
    const seen = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) {
      const row = rows[y];
      for (let x = 0; x < w; x++) {
        const c = row.charCodeAt(x);
        tiles[y * w + x] = c;
        seen[y * w + x] = c === 32 ? 0 : 1;
      }
    }
    this.areas[areaId] = { kind: "memory", w, h, tiles, seen };
    this.needsFullMemory = false;
    this.version += 1;
    this.changes += 1;
  }

  mergeView(areaId, area, view) {
    for (let j = 0; j < view.h; j++) {
      const row = view.tiles[j];
      const y = view.y0 + j;
      if (y < 0 || y >= area.h) continue;
      for (let i = 0; i < view.w; i++) {
        const c = row.charCodeAt(i);
        const x = view.x0 + i;
        if (c === 32 || x < 0 || x >= area.w) continue;
        const k = y * area.w + x;
        area.seen[k] = 1;
        if (area.tiles[k] !== c) {
          area.tiles[k] = c;
          this.changedTiles.push([areaId, x, y, c]);
        }
      }
    }
  }

  takeChangedTiles() {
    const out = this.changedTiles;
    this.changedTiles = [];
    return out;
  }

  characters() {
    return this.self ? [this.entities[this.self.id]] : [];
  }
}

// Fog of war for a followed character, from its observation: 0 never seen, 1 seen before,
// 2 visible now. Returned as {area, w, h, mask}.
export function fogFromObservation(obs, fallbackW, fallbackH) {
  const rows = (obs.memory && obs.memory.tiles) || null;
  const h = rows ? rows.length : fallbackH;
  const w = rows && rows.length ? rows[0].length : fallbackW;
  const mask = new Uint8Array(w * h);
  if (rows) {
    for (let y = 0; y < h; y++) {
      const row = rows[y];
      for (let x = 0; x < w; x++) if (row.charCodeAt(x) !== 32) mask[y * w + x] = 1;
    }
  }
  markVisible(mask, w, h, obs.view);
  return { area: String(obs.self.area ?? 0), w, h, mask };
}

export function markVisible(mask, w, h, view) {
  if (!view) return;
  for (let j = 0; j < view.h; j++) {
    const row = view.tiles[j];
    const y = view.y0 + j;
    if (y < 0 || y >= h) continue;
    for (let i = 0; i < view.w; i++) {
      const x = view.x0 + i;
      if (x < 0 || x >= w || row.charCodeAt(i) === 32) continue;
      mask[y * w + x] = 2;
    }
  }
}
