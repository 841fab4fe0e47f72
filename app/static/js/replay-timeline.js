// The timeline: one row of coloured phase bands per character, jump markers, model-turn marks
// (a study's language-model configurations, coloured by how the turn went), and the cursor.
// Click or drag anywhere to scrub; the callback gets the tick under the pointer. A click on a
// model-turn mark selects that turn. It shows a window of the run: Ctrl+wheel (or the page's
// + and - keys) zooms about the pointer, Shift+drag shows the range dragged over, a
// double-click shows the whole run; a window that the cursor leaves follows it.

export const PHASE_COLOURS = {
  idle: "#6e7388", // at least 3:1 against the timeline's background (#15161d), like every phase
  travel: "#4d8fd6",
  preparation: "#4fb36a",
  dungeon: "#8d5fd3",
  combat: "#e2504c",
  recovery: "#e6a23c",
};

export const MARKER_STYLE = {
  combat_start: { colour: "#ff7b72", label: "combat start" },
  knockdown: { colour: "#ff3b30", label: "knockdown" },
  craft: { colour: "#9be28c", label: "craft" },
  dungeon_entry: { colour: "#c59bff", label: "dungeon entry" },
  boss_fight: { colour: "#ff9f1c", label: "boss fight start" },
  boss_fight_end: { colour: "#ffcf99", label: "boss fight end" },
  boss_defeat: { colour: "#ffd84a", label: "boss defeat" },
  achievement: { colour: "#6fe0ff", label: "achievement" },
  resumed: { colour: "#f2f2f2", label: "study resumed" },
};

// How a model turn went (the turn reader's outcomes, asiworld.replay.turns.outcome): its mark's
// colour on the timeline's model-turn lane.
export const TURN_COLOURS = {
  ok: "rgba(240,240,235,0.85)",
  refused: "#ffb347",
  failed: "#ff6b6b",
  "text-only": "#7fb2ff",
};

const LABEL_W = 120;
const MIN_SPAN = 30; // the narrowest window: half a simulation minute
const TICKS_PER_MINUTE = 60; // world.toml: one tick is one simulated second
const MINUTE_STEPS = [1, 2, 5, 10, 15, 20, 30, 60, 120, 240, 480];

// Minute marks for a span of ticks: whole minutes at a round step, at most `most` of them (the
// timeline's ruler and the charts' time axis share it, so both read the same clock).
export function minuteTicks(first, last, most = 6) {
  const span = Math.max(1, (last - first) / TICKS_PER_MINUTE);
  const step = MINUTE_STEPS.find((s) => span / s <= Math.max(1, most)) || MINUTE_STEPS[MINUTE_STEPS.length - 1];
  const out = [];
  for (let m = Math.ceil(first / TICKS_PER_MINUTE / step) * step; m * TICKS_PER_MINUTE <= last; m += step) out.push(m);
  return out;
}

// The ruler's marks for a window, in ticks: round minutes (as the charts), or, zoomed in to a
// few minutes or less, round seconds (5, 10, 15 or 30 of them).
const SECOND_STEPS = [5, 10, 15, 30];
export function rulerTicks(from, to, most = 6) {
  const minutes = minuteTicks(from, to, most);
  if (minutes.length >= 2 || to - from > 4 * TICKS_PER_MINUTE) return minutes.map((m) => m * TICKS_PER_MINUTE);
  const step = SECOND_STEPS.find((s) => (to - from) / s <= Math.max(1, most)) || TICKS_PER_MINUTE;
  const out = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) out.push(t);
  return out;
}

// One way to say a moment everywhere in the viewer: simulation time as m:ss (a tick is a
// simulated second) and the tick itself, since events, turns and links count in ticks.
export function clockOf(tick) {
  const t = Math.max(0, Math.round(tick));
  return `${Math.floor(t / TICKS_PER_MINUTE)}:${String(t % TICKS_PER_MINUTE).padStart(2, "0")}`;
}
export function momentOf(tick) {
  if (tick === null || tick === undefined) return "tick —";
  return `${clockOf(tick)} · tick ${tick}`;
}

const RULER_H = 18;
// A row grows with the screen: a 56th of the window's height (19 px at 1080, 39 at 2160), never
// under 15 px; the box takes at most a share of the window (less on a short one, where the map
// needs the height) and scrolls the rest, keeping the focused row in view.
const ROW_MIN = 15;
const ROW_MAX = 48;
export function rowHeightFor(windowHeight) {
  return Math.max(ROW_MIN, Math.min(ROW_MAX, Math.round(windowHeight / 56)));
}
export function timelineShare(windowHeight) {
  return windowHeight <= 800 ? 0.14 : 0.22; // 0.14: the map keeps half of a 1280x720 screen
}

export class Timeline {
  constructor(canvas, { first, last, characters, colours, onSeek, onHover }) {
    this.canvas = canvas;
    this.g = canvas.getContext("2d");
    this.first = first;
    this.last = last;
    this.characters = characters; // [{id, name, label}]
    this.colours = colours; // id -> css colour
    this.phases = {};
    this.markers = [];
    this.turns = {}; // char -> [{turn, tick_sent, tick_answered, tools, failed}]
    this.selectedTurn = null; // {char, turn}
    this.onTurn = null;
    this.tick = first;
    this.from = first; // the window shown (zoom and range): [from, to] of [first, last]
    this.to = last;
    this.selecting = null; // a Shift+drag: [tick where it began, tick under the pointer]
    this.onView = null; // (from, to): the window changed
    this.focus = null;
    this.compare = null;
    this.onSeek = onSeek;
    this.onHover = onHover;
    this.base = document.createElement("canvas");
    this.baseKey = "";
    this.rowH = ROW_MIN;
    this.layout();
    window.addEventListener("resize", () => this.layout());
    let dragging = false;
    const at = (ev) => {
      const r = canvas.getBoundingClientRect();
      return { x: ev.clientX - r.left, y: ev.clientY - r.top };
    };
    canvas.addEventListener("pointerdown", (ev) => {
      const p = at(ev);
      if (p.x < LABEL_W) return this.clickLabel(p.y);
      if (ev.shiftKey) { // a range to show
        const t = this.tickAt(p.x);
        this.selecting = [t, t];
        canvas.setPointerCapture(ev.pointerId);
        this.drawnKey = "";
        return;
      }
      const hit = this.turnNear(p);
      if (hit && this.onTurn) return this.onTurn(hit.char, hit.turn.turn);
      dragging = true;
      canvas.setPointerCapture(ev.pointerId);
      this.onSeek(this.tickAt(p.x), false);
    });
    canvas.addEventListener("pointermove", (ev) => {
      const p = at(ev);
      if (this.selecting) {
        this.selecting[1] = this.tickAt(p.x);
        this.drawnKey = "";
        return;
      }
      if (dragging) this.onSeek(this.tickAt(p.x), false);
      if (this.onHover) this.onHover(p.x >= LABEL_W ? this.describe(p) : null, ev);
    });
    canvas.addEventListener("pointerup", (ev) => {
      if (this.selecting) {
        const [a, b] = this.selecting;
        this.selecting = null;
        this.showRange(a, b);
        return;
      }
      if (dragging) this.onSeek(this.tickAt(at(ev).x), true);
      dragging = false;
    });
    canvas.addEventListener("dblclick", (ev) => { if (at(ev).x >= LABEL_W) this.showAll(); });
    canvas.addEventListener("wheel", (ev) => {
      if (!(ev.ctrlKey || ev.metaKey)) return; // a plain wheel scrolls the rows
      ev.preventDefault();
      const p = at(ev);
      this.zoomBy(ev.deltaY < 0 ? 1 / 1.25 : 1.25, p.x >= LABEL_W ? this.tickAt(p.x) : this.tick);
    }, { passive: false });
    canvas.addEventListener("pointerleave", () => this.onHover && this.onHover(null));
  }

  // Row height from the window, the canvas as tall as its rows, the box at most a share of the
  // window (it scrolls beyond that).
  layout() {
    this.rowH = rowHeightFor(window.innerHeight);
    this.canvas.style.height = `${RULER_H + this.characters.length * this.rowH + 6}px`;
    const box = this.canvas.parentElement;
    if (box) box.style.setProperty("--timeline-max", `${Math.round(window.innerHeight * timelineShare(window.innerHeight))}px`);
    this.baseKey = "";
    this.drawnKey = "";
    this.shownFocus = undefined;
  }

  // Scroll the timeline's box so the focused character's row is in view (once per change).
  keepInView() {
    if (this.shownFocus === this.focus) return;
    this.shownFocus = this.focus;
    const box = this.canvas.parentElement;
    const i = this.characters.findIndex((ch) => ch.id === this.focus);
    if (!box || i < 0 || box.scrollHeight <= box.clientHeight) return;
    const top = this.canvas.offsetTop + RULER_H + i * this.rowH, bottom = top + this.rowH;
    if (top - RULER_H < box.scrollTop) box.scrollTop = Math.max(0, top - RULER_H);
    else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight + 4;
  }

  // How far the box has scrolled past the canvas's top: where the ruler is drawn.
  rulerTop() {
    const box = this.canvas.parentElement;
    return box ? Math.max(0, Math.min(box.scrollTop - this.canvas.offsetTop, this.canvas.height - RULER_H)) : 0;
  }

  // Where a row is drawn (for tests and the page): {top, height} in canvas pixels.
  rowBox(char) {
    const i = this.characters.findIndex((ch) => ch.id === char);
    return i < 0 ? null : { top: RULER_H + i * this.rowH, height: this.rowH };
  }

  setOverview(overview) {
    this.phases = overview.phases || {};
    this.markers = overview.markers || [];
    this.baseKey = "";
  }

  setTurns(body) {
    this.turns = {};
    for (const c of body.configurations || []) this.turns[c.char] = c.markers;
    this.baseKey = "";
  }

  // The model turn whose mark is under the pointer (within 3 pixels), in the row under it.
  turnNear(p) {
    const c = this.rowOf(p.y);
    if (!c || !this.turns[c.id]) return null;
    let best = null, bestD = 4;
    for (const t of this.turns[c.id]) {
      if (t.tick_sent === null) continue;
      const d = Math.abs(this.xOf(t.tick_sent) - p.x);
      if (d < bestD) { best = t; bestD = d; }
    }
    return best ? { char: c.id, turn: best } : null;
  }

  // Where a turn's mark is drawn (for tests and the page): {x, y} in canvas pixels.
  turnPoint(char, turn) {
    const i = this.characters.findIndex((ch) => ch.id === char);
    const t = (this.turns[char] || []).find((m) => m.turn === turn);
    if (i < 0 || !t) return null;
    return { x: this.xOf(t.tick_sent), y: RULER_H + i * this.rowH + this.rowH - 3 };
  }

  rowOf(y) {
    const top = this.rulerTop();
    if (top > 0 && y >= top && y < top + RULER_H) return null; // the ruler, kept in view
    const i = Math.floor((y - RULER_H) / this.rowH);
    return i >= 0 && i < this.characters.length ? this.characters[i] : null;
  }

  clickLabel(y) {
    const c = this.rowOf(y);
    if (c && this.onFocus) this.onFocus(c.id);
  }

  describe(p) {
    const tick = this.tickAt(p.x);
    const c = this.rowOf(p.y);
    if (!c) return { tick };
    // Near a model turn's mark: its number (the page looks the turn up by it; the marker object
    // itself matched no turn, and the tooltip fell through to "not joined").
    const hit = this.turnNear(p);
    if (hit) return { tick, char: c, turn: hit.turn.turn };
    const seg = (this.phases[c.id] || []).find((s) => s[0] <= tick && tick <= s[1]);
    // Outside every phase band is either before the character joined or a moment no rule
    // covered: only the first is "not joined" (one joined at tick 0 was said not to be).
    const joined = c.tick === undefined || c.tick === null || tick >= c.tick;
    return { tick, char: c, joined, phase: seg ? seg[2] : null, from: seg?.[0], to: seg?.[1] };
  }

  get plotW() { return Math.max(1, this.canvas.width - LABEL_W - 8); }

  xOf(tick) {
    return LABEL_W + ((tick - this.from) / Math.max(1, this.to - this.from)) * this.plotW;
  }

  tickAt(x) {
    const f = Math.min(1, Math.max(0, (x - LABEL_W) / this.plotW));
    return Math.round(this.from + f * (this.to - this.from));
  }

  // --- the window shown ----------------------------------------------------------------------

  get zoomed() { return this.from > this.first || this.to < this.last; }

  // Show [a, b] (at least MIN_SPAN ticks, within the run).
  showRange(a, b) {
    let from = Math.min(a, b), to = Math.max(a, b);
    const whole = this.last - this.first;
    const span = Math.min(whole, Math.max(MIN_SPAN, to - from));
    const middle = (from + to) / 2;
    from = Math.round(Math.min(this.last - span, Math.max(this.first, middle - span / 2)));
    to = from + span;
    if (from === this.from && to === this.to) return;
    this.from = from;
    this.to = to;
    this.baseKey = "";
    this.drawnKey = "";
    if (this.onView) this.onView(from, to);
  }

  // Narrower (factor < 1) or wider about `around`, which stays where it is on the screen.
  zoomBy(factor, around = this.tick) {
    const span = this.to - this.from;
    const next = Math.min(this.last - this.first, Math.max(MIN_SPAN, Math.round(span * factor)));
    const share = span ? (around - this.from) / span : 0.5;
    const from = Math.round(around - share * next);
    const clamped = Math.min(this.last - next, Math.max(this.first, from));
    this.showRange(clamped, clamped + next);
  }

  showAll() { this.showRange(this.first, this.last); }

  // The cursor left the window (playing, a seek, a jump): the window moves to keep it in view.
  follow(tick) {
    if (!this.zoomed || (tick >= this.from && tick <= this.to)) return;
    const span = this.to - this.from;
    const from = tick > this.to ? tick - Math.round(span * 0.1) : tick - Math.round(span * 0.9);
    this.showRange(from, from + span);
  }

  resize() {
    const r = this.canvas.getBoundingClientRect();
    const w = Math.max(200, Math.round(r.width)), h = Math.max(20, Math.round(r.height));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
      this.baseKey = "";
    }
  }

  drawBase() {
    const c = this.base;
    c.width = this.canvas.width;
    c.height = this.canvas.height;
    const g = c.getContext("2d");
    g.fillStyle = "#15161d";
    g.fillRect(0, 0, c.width, c.height);
    // ruler: a mark and a label at round minutes, at least 40 px apart whatever the width
    g.font = "10px system-ui, sans-serif";
    g.textAlign = "center";
    this.ruler = []; // [x, label] as drawn (the layout tests read it)
    for (const t of rulerTicks(this.from, this.to, Math.floor(this.plotW / 40))) {
      const x = Math.round(this.xOf(t)) + 0.5;
      this.ruler.push([x, clockOf(t)]);
      g.fillStyle = "#2c2f3d";
      g.fillRect(x, RULER_H - 5, 1, c.height - RULER_H + 5);
      g.fillStyle = "#8b8fa3";
      g.fillText(clockOf(t), x, 11);
    }
    const rowH = this.rowH;
    const font = Math.min(16, Math.max(11, Math.round(rowH * 0.6)));
    this.characters.forEach((ch, i) => {
      const y = RULER_H + i * rowH;
      const sw = Math.min(12, rowH - 6);
      g.fillStyle = this.colours[ch.id];
      g.fillRect(4, y + (rowH - sw) / 2, sw, sw);
      g.fillStyle = "#d8d6cf";
      g.textAlign = "left";
      g.textBaseline = "middle";
      g.font = `${font}px system-ui, sans-serif`;
      g.fillText((ch.name || `#${ch.id}`).slice(0, 15), 8 + sw, y + rowH / 2);
    });
    // What lies in the window only: the plot is clipped at the names' column.
    g.save();
    g.beginPath();
    g.rect(LABEL_W, 0, c.width - LABEL_W, c.height);
    g.clip();
    this.characters.forEach((ch, i) => {
      const y = RULER_H + i * rowH;
      for (const [a, b, phase] of this.phases[ch.id] || []) {
        const x0 = this.xOf(a), x1 = this.xOf(b + 1);
        g.fillStyle = PHASE_COLOURS[phase];
        g.fillRect(x0, y + 2, Math.max(1, x1 - x0), rowH - 4);
      }
    });
    g.textBaseline = "alphabetic";
    // Boss fights: a bar along the top of the row from the fight's start marker to its end.
    const fightOpen = {};
    for (const m of this.markers) {
      if (m.kind === "boss_fight") fightOpen[m.char] = m.tick;
      if (m.kind !== "boss_fight_end" || fightOpen[m.char] === undefined) continue;
      const i = this.characters.findIndex((ch) => ch.id === m.char);
      if (i >= 0) {
        const x0 = this.xOf(fightOpen[m.char]), x1 = this.xOf(m.tick + 1);
        g.fillStyle = MARKER_STYLE.boss_fight.colour;
        g.fillRect(x0, RULER_H + i * rowH + 1, Math.max(2, x1 - x0), 3);
      }
      delete fightOpen[m.char];
    }
    // Model turns: a light tick at the bottom of the row from the tick sent to the tick answered.
    for (const [char, turns] of Object.entries(this.turns)) {
      const i = this.characters.findIndex((ch) => String(ch.id) === char);
      if (i < 0) continue;
      const y = RULER_H + i * rowH + rowH - 5;
      for (const t of turns) {
        if (t.tick_sent === null) continue;
        const x0 = Math.round(this.xOf(t.tick_sent));
        const x1 = Math.round(this.xOf(t.tick_answered ?? t.tick_sent));
        g.fillStyle = TURN_COLOURS[t.outcome] || (t.failed ? TURN_COLOURS.failed : TURN_COLOURS.ok);
        g.fillRect(x0, y, Math.max(1, x1 - x0), 4);
      }
    }
    for (const m of this.markers) {
      if (m.kind === "combat_start" || m.kind === "craft") continue; // too many to mark
      const i = this.characters.findIndex((ch) => ch.id === m.char);
      if (i < 0) continue;
      const x = Math.round(this.xOf(m.tick));
      const y = RULER_H + i * rowH;
      const w = Math.max(3, Math.round(rowH / 5));
      g.fillStyle = (MARKER_STYLE[m.kind] || MARKER_STYLE.knockdown).colour;
      g.beginPath();
      g.moveTo(x - w, y);
      g.lineTo(x + w, y);
      g.lineTo(x, y + w + 2);
      g.fill();
    }
    g.restore();
    if (this.zoomed) { // which part of the run shows, at the ruler's right
      g.font = "10px system-ui, sans-serif";
      g.textAlign = "right";
      g.fillStyle = "#ffd84a";
      g.fillText(`${clockOf(this.from)}–${clockOf(this.to)} of ${clockOf(this.last)} · double-click: all`,
        c.width - 6, 11);
      g.textAlign = "left";
    }
  }

  draw() {
    this.resize();
    if (!this.selecting) this.follow(this.tick);
    const key = `${this.from}-${this.to}:${this.canvas.width}x${this.canvas.height}:${this.rowH}:${this.phases ? Object.keys(this.phases).length : 0}:${this.markers.length}:${Object.keys(this.turns).length}`;
    // Called every animation frame: nothing to do unless the clock, the rows or the size moved.
    const sel = this.selectedTurn;
    const top = this.rulerTop();
    const range = this.selecting ? this.selecting.join("-") : "";
    const drawn = `${key}:${this.tick}:${this.focus}:${this.compare}:${sel ? `${sel.char}.${sel.turn}` : ""}:${top}:${range}`;
    if (drawn === this.drawnKey) return;
    this.drawnKey = drawn;
    this.keepInView();
    if (key !== this.baseKey) {
      this.drawBase();
      this.baseKey = key;
    }
    const g = this.g;
    g.drawImage(this.base, 0, 0);
    for (const [id, colour] of [[this.focus, "rgba(255,216,74,0.9)"], [this.compare, "rgba(111,224,255,0.9)"]]) {
      const i = this.characters.findIndex((ch) => ch.id === id);
      if (i < 0) continue;
      g.strokeStyle = colour;
      g.lineWidth = 1;
      g.strokeRect(1.5, RULER_H + i * this.rowH + 0.5, this.canvas.width - 3, this.rowH - 1);
    }
    const at = sel ? this.turnPoint(sel.char, sel.turn) : null;
    if (at) { // the selected model turn
      g.strokeStyle = "#ffd84a";
      g.lineWidth = 2;
      g.strokeRect(at.x - 3, at.y - 5, 6, 8);
    }
    if (this.selecting) { // the range being dragged over
      const [a, b] = this.selecting;
      const x0 = this.xOf(Math.min(a, b)), x1 = this.xOf(Math.max(a, b));
      g.fillStyle = "rgba(255,216,74,0.18)";
      g.fillRect(x0, 0, Math.max(1, x1 - x0), this.canvas.height);
    }
    // Scrolled down, the ruler stays at the top of what shows (the minutes to read the rows by).
    if (top > 0) g.drawImage(this.base, 0, 0, this.canvas.width, RULER_H, 0, top, this.canvas.width, RULER_H);
    const x = Math.round(this.xOf(this.tick)) + 0.5;
    g.fillStyle = "#ffd84a";
    g.fillRect(x - 1, 0, 2, this.canvas.height);
    g.beginPath();
    g.moveTo(x - 5, top);
    g.lineTo(x + 5, top);
    g.lineTo(x, top + 6);
    g.fill();
  }
}
