// The map renderer: draws a WorldState or ViewState on a <canvas>. Live/replay agnostic: it only
// reads state (areas, legend, entities, structures, loot, time) and an optional fog mask.
// Terrain is pre-drawn once per area into an off-screen canvas and patched tile by tile, so a
// frame costs one blit plus the things that move.

export const TILE = 16;
const CHARACTER_SPRITES = 8;

export async function loadAtlas(base = "/static/sprites/") {
  const [index, image] = await Promise.all([
    fetch(base + "atlas.json").then((r) => r.json()),
    new Promise((resolve, reject) => {
      const img = new Image();
      img.onload = () => resolve(img);
      img.onerror = reject;
      img.src = base + "atlas.png";
    }),
  ]);
  return new Atlas(image, index);
}

export class Atlas {
  constructor(image, index) {
    this.image = image;
    this.tile = index.tile;
    this.sprites = index.sprites;
    this.colors = {};
    const c = document.createElement("canvas");
    c.width = image.width;
    c.height = image.height;
    const g = c.getContext("2d");
    g.drawImage(image, 0, 0);
    this.pixels = g.getImageData(0, 0, c.width, c.height);
  }

  // Names from the engine may differ a little from ours (`iron_vein`, `Tree`): normalise.
  find(name) {
    if (!name) return null;
    const key = String(name).toLowerCase().replace(/[\s-]+/g, "_");
    return this.sprites[key] || this.sprites[key.replace(/s$/, "")] || null;
  }

  // Average colour of a sprite, for the minimap.
  colorOf(name) {
    if (name in this.colors) return this.colors[name];
    const at = this.find(name);
    let rgb = [60, 60, 60];
    if (at) {
      let r = 0, g = 0, b = 0, n = 0;
      const { data, width } = this.pixels;
      for (let y = at[1]; y < at[1] + this.tile; y++) {
        for (let x = at[0]; x < at[0] + this.tile; x++) {
          const k = (y * width + x) * 4;
          if (data[k + 3] < 128) continue;
          r += data[k]; g += data[k + 1]; b += data[k + 2]; n++;
        }
      }
      if (n) rgb = [r / n, g / n, b / n].map(Math.round);
    } else {
      let h = 0;
      for (const ch of String(name)) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
      rgb = [80 + (h % 120), 80 + ((h >> 8) % 120), 80 + ((h >> 16) % 120)];
    }
    this.colors[name] = rgb;
    return rgb;
  }

  // A DOM icon cut from the atlas (CSS background), for side panels and badges.
  icon(name, title = "", scale = 1) {
    const span = document.createElement("span");
    span.className = "sprite-icon";
    if (title) span.title = title;
    const at = this.find(name);
    const px = this.tile * scale;
    span.style.cssText = `display:inline-block;width:${px}px;height:${px}px;vertical-align:middle;` +
      "image-rendering:pixelated;" + (at ? `background:url(${this.image.src}) ` +
      `-${at[0] * scale}px -${at[1] * scale}px / ${this.image.width * scale}px ` +
      `${this.image.height * scale}px no-repeat;` : "background:#555;border-radius:50%;");
    return span;
  }

  draw(g, name, dx, dy, size) {
    const at = this.find(name);
    if (!at) {
      const [r, gg, b] = this.colorOf(name);
      g.fillStyle = `rgb(${r},${gg},${b})`;
      g.fillRect(dx + size * 0.2, dy + size * 0.2, size * 0.6, size * 0.6);
      return;
    }
    g.drawImage(this.image, at[0], at[1], this.tile, this.tile, dx, dy, size, size);
  }
}

export function entitySprite(e) {
  if (e.kind === "character") {
    if (e.down) return "character_down";
    const n = Math.abs(e.id | 0) % CHARACTER_SPRITES;
    return n ? `character_${n}` : "character";
  }
  if (e.kind === "sheep" && e.wool === false) return "sheep_shorn";
  return e.kind;
}

export function structureSprite(s) {
  if (s.kind === "door" && s.locked) return "locked_door";
  return s.kind;
}

// Bosses: drawn half again as large, over a glow in their tier's colour, always with a bar.
const BOSS_AURA = {
  gatekeeper: "176, 176, 186",
  high_priest: "232, 192, 64",
  tomb_king: "192, 138, 255",
  shadow_king: "138, 74, 208",
};

// The boss of an area that the viewer can see now (fog mask 2, or no fog), or null: what a
// "boss fight" bar at the top of a view shows.
export function bossInView(state, areaId, fog = null) {
  const id = String(areaId ?? 0);
  for (const e of Object.values(state.entities)) {
    if (!e.boss || String(e.area ?? 0) !== id || e.health <= 0) continue;
    if (fog && fog.area === id && fog.mask[e.y * fog.w + e.x] !== 2) continue;
    return e;
  }
  return null;
}

// Where the name tags go: each {cx, top, w} (centre, wanted top, width; 14 px tall) is lifted
// in steps of 15 px until it overlaps no tag already placed; the selected one is placed first,
// then from the bottom of the screen up. Returns the tags with their {x, y}.
export function placeNameTags(tags, height = 14) {
  const order = [...tags].sort((a, b) => (b.first - a.first) || (b.top - a.top) || (a.cx - b.cx));
  const placed = [];
  const hits = (x, y, w) => placed.some((p) => x < p.x + p.w && p.x < x + w && y < p.y + height && p.y < y + height);
  for (const t of order) {
    const x = t.cx - t.w / 2;
    let y = t.top;
    for (let step = 0; step < 12 && hits(x, y, t.w); step++) y -= height + 1;
    placed.push({ ...t, x, y });
  }
  return placed;
}

// Captions for the landmarks of an area, found in its tiles: gates with their tier names, the
// altar, the merchant, a dungeon's entrance and exit portal. names: {tile name: caption} or
// {tile name: {text, color}}. Returns [{x, y, text, color}] for Renderer.draw's opts.labels.
export function landmarkLabels(state, areaId, names) {
  const area = state.areas[String(areaId ?? 0)];
  if (!area) return [];
  const wanted = {};
  for (const [code, name] of Object.entries(state.legend)) {
    if (names[name]) wanted[code] = typeof names[name] === "string" ? { text: names[name] } : names[name];
  }
  const out = [];
  for (let i = 0; i < area.tiles.length; i++) {
    const hit = wanted[area.tiles[i]];
    if (hit) out.push({ x: i % area.w, y: Math.floor(i / area.w), text: hit.text, color: hit.color || "#fff" });
  }
  return out;
}

const SHADE = {
  dusk: "rgba(60, 30, 90, 0.25)",
  night: "rgba(8, 10, 40, 0.55)",
  dawn: "rgba(120, 70, 40, 0.18)",
};

export class Renderer {
  constructor(canvas, atlas) {
    this.canvas = canvas;
    this.g = canvas.getContext("2d");
    this.atlas = atlas;
    this.camera = { x: 64, y: 64, zoom: 2 }; // centre in tiles; zoom = screen px per atlas px
    this.cache = null; // {key, area, canvas}
    this.fogCanvas = document.createElement("canvas");
    this.fogKey = null;
  }

  get scale() {
    return TILE * this.camera.zoom;
  }

  resize() {
    const r = this.canvas.getBoundingClientRect();
    const w = Math.max(1, Math.round(r.width));
    const h = Math.max(1, Math.round(r.height));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
  }

  // Whether the map must be drawn again: `inputs` (what a page shows on it, compared one by
  // one, objects by identity), the camera or the canvas's size differ from the last call's. The
  // map pages ask on every animation frame and draw only then: drawing an unchanged picture
  // sixty times a second kept a spectator's browser 40 % of a core busy for a world of twenty
  // ticks a second.
  stale(inputs) {
    const c = this.camera, cv = this.canvas;
    const now = [...inputs, c.x, c.y, c.zoom, cv.clientWidth, cv.clientHeight];
    const last = this.lastInputs;
    this.lastInputs = now;
    return !last || last.length !== now.length || now.some((v, i) => !Object.is(v, last[i]));
  }

  centerOn(x, y) {
    this.camera.x = x + 0.5;
    this.camera.y = y + 0.5;
  }

  zoomAt(factor, sx, sy) {
    const before = this.screenToWorld(sx, sy);
    this.camera.zoom = Math.min(6, Math.max(0.25, this.camera.zoom * factor));
    const after = this.screenToWorld(sx, sy);
    this.camera.x += before.x - after.x;
    this.camera.y += before.y - after.y;
  }

  panBy(dx, dy) {
    this.camera.x -= dx / this.scale;
    this.camera.y -= dy / this.scale;
  }

  screenToWorld(sx, sy) {
    return {
      x: this.camera.x + (sx - this.canvas.width / 2) / this.scale,
      y: this.camera.y + (sy - this.canvas.height / 2) / this.scale,
    };
  }

  tileAt(sx, sy) {
    const p = this.screenToWorld(sx, sy);
    return { x: Math.floor(p.x), y: Math.floor(p.y) };
  }

  // --- terrain cache ---------------------------------------------------------------------

  terrainFor(state, areaId) {
    const area = state.areas[areaId];
    if (!area) return null;
    const key = `${state.version}:${areaId}`;
    if (!this.cache || this.cache.key !== key) {
      const c = document.createElement("canvas");
      c.width = area.w * TILE;
      c.height = area.h * TILE;
      const g = c.getContext("2d");
      g.fillStyle = "#000";
      g.fillRect(0, 0, c.width, c.height);
      for (let y = 0; y < area.h; y++) {
        for (let x = 0; x < area.w; x++) {
          const code = area.tiles[y * area.w + x];
          if (code === 32 && area.seen) continue; // ' ' in a memory grid: never seen
          this.atlas.draw(g, state.legend[code], x * TILE, y * TILE, TILE);
        }
      }
      this.cache = { key, area: areaId, canvas: c, g };
      state.takeChangedTiles();
    } else {
      for (const [a, x, y, code] of state.takeChangedTiles()) {
        if (String(a) !== String(areaId)) continue;
        this.cache.g.fillStyle = "#000";
        this.cache.g.fillRect(x * TILE, y * TILE, TILE, TILE);
        this.atlas.draw(this.cache.g, state.legend[code], x * TILE, y * TILE, TILE);
      }
    }
    return this.cache.canvas;
  }

  // --- fog -------------------------------------------------------------------------------

  // mask: 0 never seen (black), 1 seen before (dimmed), 2 visible now (clear).
  fogImage(fog) {
    const key = fog.key ?? fog;
    if (this.fogKey === key) return this.fogCanvas;
    const c = this.fogCanvas;
    c.width = fog.w;
    c.height = fog.h;
    const g = c.getContext("2d");
    const img = g.createImageData(fog.w, fog.h);
    for (let i = 0; i < fog.mask.length; i++) {
      const m = fog.mask[i];
      img.data[i * 4 + 3] = m === 2 ? 0 : m === 1 ? 150 : 255;
    }
    g.putImageData(img, 0, 0);
    this.fogKey = key;
    return c;
  }

  // --- a frame -----------------------------------------------------------------------------

  draw(state, opts = {}) {
    const g = this.g;
    this.resize();
    const W = this.canvas.width, H = this.canvas.height;
    g.imageSmoothingEnabled = false;
    g.fillStyle = "#0b0b10";
    g.fillRect(0, 0, W, H);
    if (!state.ready) return;
    const areaId = String(opts.area ?? 0);
    const terrain = this.terrainFor(state, areaId);
    if (!terrain) return;
    const s = this.scale;
    const ox = Math.round(W / 2 - this.camera.x * s);
    const oy = Math.round(H / 2 - this.camera.y * s);
    const x0 = Math.max(0, Math.floor(-ox / s)), y0 = Math.max(0, Math.floor(-oy / s));
    const area = state.areas[areaId];
    const x1 = Math.min(area.w, Math.ceil((W - ox) / s)), y1 = Math.min(area.h, Math.ceil((H - oy) / s));
    if (x1 > x0 && y1 > y0) {
      g.drawImage(terrain, x0 * TILE, y0 * TILE, (x1 - x0) * TILE, (y1 - y0) * TILE,
        ox + x0 * s, oy + y0 * s, (x1 - x0) * s, (y1 - y0) * s);
    }
    const inView = (x, y) => x >= x0 - 1 && x <= x1 && y >= y0 - 1 && y <= y1;
    const fog = opts.fog && opts.fog.area === areaId ? opts.fog : null;
    const visible = (x, y) => !fog || fog.mask[y * fog.w + x] === 2;
    const sameArea = (thing) => String(thing.area ?? 0) === areaId;

    for (const st of state.structures) {
      if (sameArea(st) && inView(st.x, st.y)) {
        this.atlas.draw(g, structureSprite(st), ox + st.x * s, oy + st.y * s, s);
      }
    }
    for (const bag of state.loot) {
      if (sameArea(bag) && inView(bag.x, bag.y) && visible(bag.x, bag.y)) {
        this.atlas.draw(g, "loot", ox + bag.x * s, oy + bag.y * s, s);
      }
    }
    if (opts.remembered) {
      g.globalAlpha = 0.35; // last-seen creatures: where the character believes they are
      for (const e of opts.remembered) {
        if (inView(e.x, e.y)) this.atlas.draw(g, e.kind, ox + e.x * s, oy + e.y * s, s);
      }
      g.globalAlpha = 1;
    }
    const labels = [];
    const bosses = []; // drawn last among the entities: they overlap their neighbours
    for (const e of Object.values(state.entities)) {
      if (!sameArea(e) || !inView(e.x, e.y) || !visible(e.x, e.y)) continue;
      const px = ox + e.x * s, py = oy + e.y * s;
      if (e.boss) {
        bosses.push(e);
        continue;
      }
      this.atlas.draw(g, entitySprite(e), px, py, s);
      if (e.asleep) this.atlas.draw(g, "zzz", px + s * 0.5, py - s * 0.5, s * 0.6);
      if (e.kind === "character") labels.push(e);
      else if (e.max_health && e.health < e.max_health) this.healthBar(g, px, py - 4, s, e);
    }
    for (const e of bosses) this.drawBoss(g, e, ox + e.x * s, oy + e.y * s, s);
    // opts.shade overrides the day/night tint (null: none, e.g. underground).
    const shade = opts.shade !== undefined ? opts.shade : SHADE[(state.time || {}).phase];
    if (shade) {
      g.fillStyle = shade;
      g.fillRect(0, 0, W, H);
    }
    if (fog) {
      g.drawImage(this.fogImage(fog), 0, 0, fog.w, fog.h, ox, oy, fog.w * s, fog.h * s);
    }
    if (opts.marker) {
      // the tile the player faces: where E / build act
      g.strokeStyle = "rgba(255, 216, 74, 0.9)";
      g.lineWidth = 2;
      g.setLineDash([4, 3]);
      g.strokeRect(ox + opts.marker.x * s + 1, oy + opts.marker.y * s + 1, s - 2, s - 2);
      g.setLineDash([]);
    }
    // names go on top of shading and fog so a followed character is always findable
    g.font = `${Math.max(10, Math.min(14, s * 0.45))}px system-ui, sans-serif`;
    g.textAlign = "center";
    // opts.labels: [{x, y, text, color}] tile captions (gates, the altar, portals); under a
    // fog only where the followed character has looked.
    // A caption goes under its tile when a character stands in the row above it (names stay clear).
    const standing = new Set(labels.map((e) => `${e.x},${e.y}`));
    for (const l of opts.labels || []) {
      if (!inView(l.x, l.y) || (fog && !fog.mask[l.y * fog.w + l.x])) continue;
      const below = [-1, 0, 1].some((dx) => standing.has(`${l.x + dx},${l.y - 1}`));
      this.caption(g, l.text, ox + l.x * s + s / 2, oy + (below ? (l.y + 1) * s + 16 : l.y * s - 4), l.color);
    }
    for (const e of bosses) {
      if (!visible(e.x, e.y)) continue;
      const px = ox + e.x * s, py = oy + e.y * s;
      this.healthBar(g, px - s * 0.4, py - s * 0.75, s * 1.8, e, 5);
    }
    // Name tags of characters standing together are stacked, not drawn over each other.
    const tags = s >= 12 ? placeNameTags(labels.map((e) => {
      const text = e.name || `#${e.id}`;
      return { e, text, cx: ox + e.x * s + s / 2, top: oy + e.y * s - 16, w: g.measureText(text).width + 6,
        first: opts.selected === e.id };
    })) : [];
    this.nameTags = tags; // read by the tests
    for (const e of labels) {
      const px = ox + e.x * s, py = oy + e.y * s;
      if (opts.selected === e.id) {
        g.strokeStyle = "#ffd84a";
        g.lineWidth = 2;
        g.strokeRect(px - 1, py - 1, s + 2, s + 2);
      }
      this.healthBar(g, px, py + s + 1, s, e);
    }
    for (const t of tags) {
      if (t.y !== t.top) { // lifted: a line down to its character
        g.strokeStyle = "rgba(255,255,255,0.5)";
        g.lineWidth = 1;
        g.beginPath();
        g.moveTo(t.cx, t.y + 14);
        g.lineTo(t.cx, t.top + 14);
        g.stroke();
      }
      g.fillStyle = "rgba(0,0,0,0.6)";
      g.fillRect(t.x, t.y, t.w, 14);
      g.fillStyle = t.first ? "#ffd84a" : "#fff";
      g.fillText(t.text, t.x + t.w / 2, t.y + 11);
    }
  }

  healthBar(g, px, py, s, e, height = 3) {
    const max = e.max_health || 100;
    const frac = Math.max(0, Math.min(1, (e.health ?? max) / max));
    g.fillStyle = "rgba(0,0,0,0.7)";
    g.fillRect(px + 1, py, s - 2, height);
    g.fillStyle = e.boss ? "#d8424a" : frac > 0.5 ? "#5fd35f" : frac > 0.25 ? "#f0c040" : "#e04848";
    g.fillRect(px + 1, py, (s - 2) * frac, height);
    if (e.boss) {
      g.strokeStyle = "rgba(255, 216, 74, 0.85)";
      g.lineWidth = 1;
      g.strokeRect(px + 0.5, py - 0.5, s - 1, height + 1);
    }
  }

  // A boss: a pulsing glow in its tier's colour (red in a second phase), then the sprite half
  // again as large, standing on its tile.
  drawBoss(g, e, px, py, s) {
    const rgb = e.phase === 2 ? "232, 64, 64" : BOSS_AURA[e.kind] || "192, 138, 255";
    const pulse = 0.75 + 0.25 * Math.sin(performance.now() / 250);
    const cx = px + s / 2, cy = py + s / 2;
    const glow = g.createRadialGradient(cx, cy, s * 0.2, cx, cy, s * 1.3);
    glow.addColorStop(0, `rgba(${rgb}, ${0.55 * pulse})`);
    glow.addColorStop(1, `rgba(${rgb}, 0)`);
    g.fillStyle = glow;
    g.fillRect(cx - s * 1.3, cy - s * 1.3, s * 2.6, s * 2.6);
    this.atlas.draw(g, entitySprite(e), px - s * 0.25, py - s * 0.5, s * 1.5);
  }

  caption(g, text, cx, by, color = "#fff") {
    const tw = g.measureText(text).width + 8;
    g.fillStyle = "rgba(0,0,0,0.65)";
    g.fillRect(cx - tw / 2, by - 13, tw, 15);
    g.fillStyle = color;
    g.fillText(text, cx, by - 2);
  }
}

// The minimap: one pixel per tile, coloured by the average colour of the tile's sprite.
export class Minimap {
  constructor(canvas, atlas) {
    this.canvas = canvas;
    this.g = canvas.getContext("2d");
    this.atlas = atlas;
    this.base = document.createElement("canvas");
    this.key = null;
  }

  drawBase(state, areaId) {
    const area = state.areas[areaId];
    const b = this.base;
    b.width = area.w;
    b.height = area.h;
    const g = b.getContext("2d");
    const img = g.createImageData(area.w, area.h);
    for (let i = 0; i < area.tiles.length; i++) {
      const code = area.tiles[i];
      const unseen = area.seen && !area.seen[i];
      const [r, gg, bb] = unseen ? [0, 0, 0] : this.atlas.colorOf(state.legend[code]);
      img.data.set([r, gg, bb, 255], i * 4);
    }
    g.putImageData(img, 0, 0);
  }

  draw(state, renderer, opts = {}) {
    if (!state.ready) return;
    const areaId = String(opts.area ?? 0);
    const area = state.areas[areaId];
    if (!area) return;
    const key = `${state.version}:${areaId}:${state.tick}`;
    if (this.key !== key) {
      this.drawBase(state, areaId); // cheap at 128x128; keeps regrowth and building current
      this.key = key;
    }
    const W = this.canvas.width, H = this.canvas.height;
    const k = Math.min(W / area.w, H / area.h);
    const g = this.g;
    g.imageSmoothingEnabled = false;
    g.fillStyle = "#000";
    g.fillRect(0, 0, W, H);
    g.drawImage(this.base, 0, 0, area.w * k, area.h * k);
    for (const e of Object.values(state.entities)) {
      if (String(e.area ?? 0) !== areaId) continue;
      const isChar = e.kind === "character";
      g.fillStyle = isChar ? (opts.selected === e.id ? "#ffd84a" : "#ffffff") : e.boss ? "#c08aff" : "#ff5050";
      const d = isChar || e.boss ? 3 : 2;
      g.fillRect(e.x * k - d / 2, e.y * k - d / 2, d, d);
    }
    const c = renderer.canvas;
    const vw = c.width / renderer.scale, vh = c.height / renderer.scale;
    g.strokeStyle = "#ffd84a";
    g.lineWidth = 1;
    g.strokeRect((renderer.camera.x - vw / 2) * k, (renderer.camera.y - vh / 2) * k, vw * k, vh * k);
    this.scale = k;
  }

  toWorld(sx, sy) {
    return { x: sx / (this.scale || 1), y: sy / (this.scale || 1) };
  }
}

// Drag to pan, wheel to zoom around the cursor; calls onClick(tile) for a click without drag.
export function attachCameraControls(canvas, renderer, { onClick, onPan } = {}) {
  let drag = null;
  canvas.addEventListener("pointerdown", (ev) => {
    drag = { x: ev.clientX, y: ev.clientY, moved: 0 };
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    drag.moved += Math.abs(dx) + Math.abs(dy);
    drag.x = ev.clientX;
    drag.y = ev.clientY;
    if (drag.moved > 4) {
      renderer.panBy(dx, dy);
      if (onPan) onPan();
    }
  });
  canvas.addEventListener("pointerup", (ev) => {
    if (drag && drag.moved <= 4 && onClick) {
      const r = canvas.getBoundingClientRect();
      onClick(renderer.tileAt(ev.clientX - r.left, ev.clientY - r.top));
    }
    drag = null;
  });
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const r = canvas.getBoundingClientRect();
    renderer.zoomAt(ev.deltaY < 0 ? 1.15 : 1 / 1.15, ev.clientX - r.left, ev.clientY - r.top);
  }, { passive: false });
}

// The creatures a character remembers that are worth drawing where they were last seen: not one
// in view (it is drawn as it is), and not one that comes out only at night (a shade) while it is
// not night: shades fade at dawn (creatures.dawn), so by day a remembered one is a ghost.
export function rememberedShown(remembered, entities, creatures, phase) {
  return (remembered || []).filter((m) => !entities[m.id] &&
    !(phase !== "night" && ((creatures || {})[m.kind] || {}).night_only));
}
