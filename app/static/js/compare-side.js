// One replay of /compare: its frames (ReplayData), the world state they build (WorldState, as
// in the viewer) and its map (Renderer). The page's one clock asks each side for the same tick;
// a side clamps it to its own ticks, so a shorter replay holds its last frame.
import { WorldState } from "./frames.js";
import { Renderer } from "./render.js";
import { ReplayData } from "./replay-data.js";

const NEAR_TICKS = 600; // forward through frame chunks up to this far; further, one keyframe

export class Side {
  constructor(key, id, canvas, atlas) {
    this.key = key; // "a" or "b"
    this.data = new ReplayData(id);
    this.renderer = new Renderer(canvas, atlas);
    // A new area resets only the terrain this side's map holds (frames.js).
    this.state = new WorldState((area) => this.renderer.cache?.area === area);
    this.token = 0;
    this.lastPan = 0;
    this.follow = null; // the character id the camera follows, or null
  }

  async load() {
    this.meta = await this.data.load();
    return this.meta;
  }

  get first() { return this.data.first; }
  get last() { return this.data.last; }
  clamp(tick) { return Math.max(this.first, Math.min(this.last, Math.round(tick))); }

  // Move this side's state to `tick` (clamped): forward through frame chunks when near, else a
  // keyframe from the server. A later seek wins over one still in flight; errors go to the page.
  async seek(tick, final = true) {
    const target = this.clamp(tick);
    const token = ++this.token;
    const st = this.state;
    if (st.ready && st.tick === target) return;
    const near = st.ready && target > st.tick && target - st.tick <= NEAR_TICKS &&
      this.data.missing(st.tick + 1, target) <= 1;
    if (near) {
      this.data.request(st.tick + 1, target);
      await this.advanceTo(target, token);
    } else {
      if (!final && st.ready) return; // dragging far: the release fetches the keyframe
      const frame = await this.data.stateAt(target);
      if (token !== this.token) return;
      st.applyFrame(frame);
    }
    if (token === this.token) this.data.prefetch(st.tick);
  }

  async advanceTo(target, token) {
    while (this.state.tick < target) {
      const chunk = await this.data.chunkFor(this.state.tick + 1);
      if (token !== this.token || !chunk) return;
      let moved = false;
      for (const f of chunk.frames) {
        if (f.tick <= this.state.tick) continue;
        if (f.tick > target) break;
        if (!this.state.applyFrame(f)) { // a gap: start again from a keyframe
          this.state.applyFrame(await this.data.stateAt(target));
          return;
        }
        moved = true;
      }
      if (!moved) return;
    }
  }

  // The map: centred on the followed character (unless the camera was moved by hand lately),
  // in that character's area (a dungeon instance), drawn only when something shown changed.
  draw() {
    const st = this.state, r = this.renderer;
    const me = this.follow !== null ? st.entities[this.follow] : null;
    if (me && performance.now() - this.lastPan > 2500) r.centerOn(me.x, me.y);
    const area = String(me ? me.area ?? 0 : 0);
    if (!r.stale([st.tick, st.version, area, this.follow])) return;
    r.draw(st, { area, selected: this.follow });
  }
}
