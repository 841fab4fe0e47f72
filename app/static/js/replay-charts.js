import { minuteTicks } from "./replay-timeline.js";

// Charts over time, one small canvas per measure, a line per character, and a cursor locked
// to the replay's clock. Health, hunger and coins come from the server's samples; crafts and
// kills are counted from the event log.

const METRICS = [
  { key: "health", label: "Health", max: 100 },
  { key: "hunger", label: "Hunger", max: 100 },
  { key: "coins", label: "T-coins" },
  { key: "crafts", label: "Crafts (cumulative)" },
  { key: "kills", label: "Kills (cumulative)" },
];

const TICKS_PER_MINUTE = 60; // world.toml: one tick is one simulated second
const AXIS_PX = 13; // the time axis under each chart's lines

// One row per configuration: its colour (the palette's, as everywhere) and its characters.
function legend(characters, colours) {
  const box = document.createElement("div");
  box.className = "chart-legend";
  box.setAttribute("aria-label", "chart legend");
  const byConf = new Map();
  for (const c of characters) {
    const conf = c.label || c.name; // the server's colour rule (palette.character_colours)
    if (!byConf.has(conf)) byConf.set(conf, { colour: colours[c.id], names: [] });
    byConf.get(conf).names.push(c.name);
  }
  for (const [conf, { colour, names }] of byConf) {
    const row = document.createElement("span");
    row.className = "chart-legend-item";
    row.dataset.configuration = conf;
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = colour;
    row.append(sw, `${conf}${names.length > 1 || names[0] !== conf ? ` (${names.join(", ")})` : ""}`);
    box.append(row);
  }
  return box;
}

function cumulative(events, kind, chars, first, last) {
  const out = {};
  for (const c of chars) out[c] = [[first, 0]];
  const counts = {};
  for (const ev of events) {
    if (ev.kind !== kind || !(ev.char in out)) continue;
    counts[ev.char] = (counts[ev.char] || 0) + (kind === "crafted" ? ev.count || 1 : 1);
    out[ev.char].push([ev.tick, counts[ev.char]]);
  }
  for (const c of chars) out[c].push([last, counts[c] || 0]);
  return out;
}

export class Charts {
  constructor(node, { first, last, characters, colours, onSeek }) {
    this.node = node;
    this.first = first;
    this.last = last;
    this.characters = characters;
    this.colours = colours;
    this.onSeek = onSeek;
    this.lines = {}; // metric -> char -> [[tick, value], ...]
    this.canvases = {};
    this.tick = first;
    this.focus = null;
    node.append(legend(characters, colours));
    for (const m of METRICS) {
      const box = document.createElement("div");
      box.className = "chart";
      const title = document.createElement("div");
      title.className = "chart-title";
      title.textContent = m.label;
      const value = document.createElement("span");
      value.className = "chart-value";
      title.append(value);
      const canvas = document.createElement("canvas");
      canvas.height = 64 + AXIS_PX;
      canvas.dataset.metric = m.key;
      canvas.addEventListener("pointerdown", (ev) => {
        const r = canvas.getBoundingClientRect();
        this.onSeek(this.tickAt(canvas, ev.clientX - r.left), true);
      });
      box.append(title, canvas);
      node.append(box);
      this.canvases[m.key] = { canvas, value, metric: m, base: document.createElement("canvas"), baseKey: "", drawn: "" };
    }
  }

  setSeries(series) {
    for (const key of ["health", "hunger", "coins"]) {
      const lines = {};
      for (const [char, row] of Object.entries(series.characters || {})) {
        lines[char] = series.ticks.map((t, i) => [t, row[key][i]]).filter((p) => p[1] !== null && p[1] !== undefined);
      }
      this.lines[key] = lines;
    }
    this.version = (this.version || 0) + 1;
  }

  setEvents(events) {
    const ids = this.characters.map((c) => c.id);
    this.lines.crafts = cumulative(events, "crafted", ids, this.first, this.last);
    this.lines.kills = cumulative(events, "killed", ids, this.first, this.last);
    this.version = (this.version || 0) + 1;
  }

  tickAt(canvas, x) {
    const f = Math.min(1, Math.max(0, x / canvas.width));
    return Math.round(this.first + f * (this.last - this.first));
  }

  valueAt(points, tick) {
    let v = null;
    for (const [t, y] of points || []) {
      if (t > tick) break;
      v = y;
    }
    return v;
  }

  // Called five times a second: the lines are drawn once into an off-screen canvas per chart
  // (again when the series, the focus or the width change), then each draw is that image and
  // the cursor, and nothing at all when the clock has not moved.
  draw() {
    for (const c of Object.values(this.canvases)) {
      const { canvas, value, metric } = c;
      const w = Math.max(100, Math.round(canvas.getBoundingClientRect().width));
      if (canvas.width !== w) canvas.width = w;
      const h = canvas.height;
      const baseKey = `${w}x${h}|${this.focus}|${this.version || 0}`;
      const drawn = `${baseKey}|${this.tick}`;
      if (drawn === c.drawn) continue;
      c.drawn = drawn;
      const lines = this.lines[metric.key];
      let max = metric.max || 1;
      if (lines && !metric.max) for (const pts of Object.values(lines)) for (const p of pts) max = Math.max(max, p[1]);
      const X = (t) => ((t - this.first) / Math.max(1, this.last - this.first)) * w;
      if (baseKey !== c.baseKey) {
        c.baseKey = baseKey;
        c.max = max;
        this.drawLines(c.base, w, h, lines, metric, max, X);
      }
      const g = canvas.getContext("2d");
      g.clearRect(0, 0, w, h);
      g.drawImage(c.base, 0, 0);
      if (!lines) continue;
      const x = Math.round(X(this.tick)) + 0.5;
      g.fillStyle = "#ffd84a";
      g.fillRect(x - 0.5, 0, 1.5, h);
      const v = this.focus !== null ? this.valueAt(lines[this.focus], this.tick) : null;
      value.textContent = v === null ? "" : ` · ${Math.round(v)}`;
    }
  }

  drawLines(base, w, h, lines, metric, max, X) {
    base.width = w;
    base.height = h;
    const g = base.getContext("2d");
    g.fillStyle = "#111218";
    g.fillRect(0, 0, w, h);
    if (!lines) {
      g.fillStyle = "#6b6f82";
      g.font = "11px system-ui, sans-serif";
      g.fillText("loading…", 8, 20);
      return;
    }
    const plot = h - AXIS_PX; // lines above, the time axis below
    const Y = (v) => plot - 3 - (v / max) * (plot - 8);
    const order = Object.keys(lines).sort((a, b) => (Number(a) === this.focus) - (Number(b) === this.focus));
    for (const char of order) {
      const pts = lines[char];
      if (!pts.length) continue;
      const focused = Number(char) === this.focus;
      g.strokeStyle = this.colours[char] || "#888";
      g.globalAlpha = this.focus === null || focused ? 1 : 0.35;
      g.lineWidth = focused ? 2 : 1;
      g.beginPath();
      const stepped = metric.key === "crafts" || metric.key === "kills";
      pts.forEach(([t, v], i) => {
        if (i === 0) g.moveTo(X(t), Y(v));
        else {
          if (stepped) g.lineTo(X(t), Y(pts[i - 1][1]));
          g.lineTo(X(t), Y(v));
        }
      });
      g.stroke();
    }
    g.globalAlpha = 1;
    g.fillStyle = "#9a9eb2";
    g.font = "10px system-ui, sans-serif";
    g.fillText(String(Math.round(max)), 3, 10);
    this.drawAxis(g, w, h, X);
  }

  // The time axis: a mark and "N min" at round minutes (the same clock as the timeline's).
  drawAxis(g, w, h, X) {
    const y = h - AXIS_PX;
    g.fillStyle = "#2c2f3d";
    g.fillRect(0, y, w, 1);
    g.fillStyle = "#9a9eb2";
    g.font = "10px system-ui, sans-serif";
    g.textBaseline = "top";
    const marks = minuteTicks(this.first, this.last);
    marks.forEach((m) => {
      const x = Math.round(X(m * TICKS_PER_MINUTE));
      g.fillRect(x, y, 1, 3);
      const text = String(m); // minutes, as the charts' note says
      const tw = g.measureText(text).width;
      g.fillText(text, Math.min(Math.max(0, x - tw / 2), w - tw), y + 2);
    });
    g.textBaseline = "alphabetic";
  }
}
