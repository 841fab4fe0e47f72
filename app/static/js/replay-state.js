// The replay viewer's WorldState. A dungeon instance that opens (a delta frame) or that a seek's
// keyframe brings in arrives whole, and WorldState then bumps `version`, which throws away every
// renderer's terrain cache: redrawing the 128×128 surface is ~16k sprite draws, 100–200 ms, paid
// on most far seeks of a long replay (each tick has a different set of open dungeons). Here the
// version only moves when the area replaced is one a renderer has cached; any other new area is
// simply stored, and drawn in full the first time a renderer shows it.
import { WorldState } from "./frames.js";

function decodeBase64(text) {
  const raw = atob(text || "");
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

export class ReplayState extends WorldState {
  // isCached(areaId): whether some renderer holds a terrain cache of that area.
  constructor(isCached = () => true) {
    super();
    this.isCached = isCached;
  }

  applyDeltas(d) {
    if (!d.areas) return super.applyDeltas(d);
    const { areas, ...rest } = d;
    super.applyDeltas(rest); // tiles, entities, removals, areas_removed, as WorldState does
    let stale = false;
    for (const [id, area] of Object.entries(areas)) {
      this.areas[id] = {
        kind: area.kind, w: area.w, h: area.h,
        tiles: decodeBase64(area.tiles), floor: decodeBase64(area.floor),
      };
      if (this.isCached(String(id))) stale = true;
    }
    if (stale) this.version += 1;
  }
}
