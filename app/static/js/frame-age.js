// How old the map of a live page is. While the connection is down the map is dimmed and says
// how long ago its last frame came; while connected but no frame comes, the server is asked
// (/healthz) whether its world is paused, stopped or halted, and the map says that. A frozen map
// at full brightness looked live for half a minute after `asiworld serve` stopped.
import { connectionState, onConnectionChange } from "./connection.js";

const STALE_MS = 2500; // no frame this long while connected: ask the server why
const ASK_EVERY_MS = 2000;

export function ago(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

export class FrameAge {
  // `stage` gets data-frames (live, waiting, paused, stopped, halted, disconnected), which the
  // stylesheet dims; `note` is the line that says it.
  constructor(stage, note) {
    this.stage = stage;
    this.note = note;
    this.lastAt = null; // performance.now() of the last frame
    this.tick = null;
    this.server = null; // the last /healthz answer while frames were late
    this.askedAt = 0;
    onConnectionChange(() => { this.server = null; this.update(); });
    setInterval(() => this.update(), 1000);
  }

  frame(tick) {
    this.lastAt = performance.now();
    this.tick = tick;
    this.server = null;
    this.update();
  }

  async ask() {
    this.askedAt = performance.now();
    try {
      const r = await fetch("/healthz", { cache: "no-store" });
      const body = await r.json();
      this.server = { ...body, halted: !r.ok };
    } catch {
      this.server = null; // the connection indicator says this one
    }
    this.update();
  }

  update() {
    const now = performance.now();
    const since = this.lastAt === null ? null : now - this.lastAt;
    const at = this.tick === null ? "" : ` (tick ${this.tick})`;
    let kind = "live", text = "";
    if (connectionState() !== "connected") {
      if (this.lastAt !== null) {
        kind = "disconnected";
        text = `not connected · last frame ${ago(since)} ago${at}`;
      }
    } else if (since !== null && since > STALE_MS) {
      if (now - this.askedAt > ASK_EVERY_MS) this.ask();
      const s = this.server;
      const tick = s && s.tick != null ? s.tick : this.tick;
      if (s && s.halted) {
        kind = "halted";
        text = `the world halted at tick ${tick}${s.reason ? `: ${s.reason}` : ""}`;
      } else if (s && s.paused) {
        kind = "paused";
        text = `the world is paused at tick ${tick}`;
      } else if (s && s.running === false) {
        kind = "stopped";
        text = `the world stopped at tick ${tick}`;
      } else {
        kind = "waiting";
        text = `no new frame for ${ago(since)}${at}`;
      }
    }
    if (this.stage.dataset.frames !== kind) this.stage.dataset.frames = kind;
    this.note.classList.toggle("hidden", kind === "live");
    if (this.note.textContent !== text) this.note.textContent = text;
  }
}
