// A replay exported as one HTML file (asiworld replay export --html): the viewer's requests are
// answered from the data kept in the page, not by a server. Each answer is gzipped JSON in
// base64, decoded the first time it is asked for. A far seek's keyframe is rebuilt here from the
// nearest kept keyframe and the frames after it, as the server's ReplayLibrary.frame_at does
// (the rules of app/replay/apply.py). Loaded as a classic script before the page's own, so the
// page's first fetches already find it.
(() => {
  const data = JSON.parse(document.getElementById("asiworld-export").textContent);
  const base = `/api/replays/${encodeURIComponent(data.id)}`;
  const realFetch = window.fetch.bind(window);
  const decoded = new Map(); // blob text -> Promise<value>

  function unpack(b64) {
    if (!decoded.has(b64)) {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      decoded.set(b64, new Response(stream).text().then(JSON.parse));
    }
    return decoded.get(b64);
  }

  const reply = (body, status = 200) => new Response(JSON.stringify(body), {
    status, headers: { "Content-Type": "application/json" },
  });
  const refuse = (status, code, message) => reply({ ok: false, code, message, error: { code, message } }, status);

  // --- a keyframe at any tick ---------------------------------------------------------------

  const meta = unpack(data.meta);
  const keyTicks = Object.keys(data.keyframes).map(Number).sort((a, b) => a - b);

  function tilesOf(b64) {
    return Uint8Array.from(atob(b64 || ""), (c) => c.charCodeAt(0));
  }
  function base64Of(bytes) {
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(text);
  }
  const decodeArea = (area) => ({ ...area, tiles: typeof area.tiles === "string" ? tilesOf(area.tiles) : area.tiles });

  function fromKeyframe(body, tick) {
    const state = { ...body, areas: {}, entities: { ...(body.entities || {}) }, tick };
    for (const [id, area] of Object.entries(body.areas || {})) state.areas[String(id)] = decodeArea(area);
    return state;
  }

  function apply(state, frame) {
    if (frame.keyframe) state = fromKeyframe(frame.keyframe, frame.tick);
    const d = frame.deltas || {};
    for (const id of d.areas_removed || []) delete state.areas[String(id)];
    for (const [id, area] of Object.entries(d.areas || {})) state.areas[String(id)] = decodeArea(area);
    for (const [id, x, y, code] of d.tiles || []) {
      const area = state.areas[String(id)];
      if (area) area.tiles[y * area.w + x] = code;
    }
    for (const [id, entity] of Object.entries(d.entities || {})) state.entities[String(id)] = entity;
    for (const id of d.removed || []) delete state.entities[String(id)];
    for (const [id, patch] of Object.entries(frame.entity_patches || {})) {
      const entity = { ...state.entities[id], ...patch };
      for (const field of patch["-"] || []) delete entity[field];
      delete entity["-"];
      state.entities[id] = entity;
    }
    for (const key of ["structures", "loot", "time"]) if (key in d) state[key] = d[key];
    state.tick = frame.tick;
    return state;
  }

  function chunk(n) {
    return n >= 0 && n < data.chunks.length ? unpack(data.chunks[n]) : Promise.resolve(null);
  }

  async function stateAt(tick) {
    const m = await meta;
    if (!Number.isInteger(tick) || tick < m.first_tick || tick > m.last_tick) {
      return refuse(404, "tick_out_of_range", `tick ${tick} is outside the recorded ticks ${m.first_tick}-${m.last_tick}`);
    }
    let k = 0;
    for (const t of keyTicks) if (t <= tick) k = t;
    const kept = await unpack(data.keyframes[String(k)]);
    let state = fromKeyframe(kept.keyframe, kept.tick);
    let events = kept.events || [];
    const starts = m.frame_chunks.map((c) => c[0]);
    for (let n = 0; n < starts.length && state.tick < tick; n++) {
      if (m.frame_chunks[n][1] <= state.tick) continue;
      const c = await chunk(n);
      for (const f of c.frames) {
        if (f.tick <= state.tick) continue;
        if (f.tick > tick) break;
        state = apply(state, f);
        events = f.events || [];
      }
      if (starts[n] > tick) break;
    }
    const { tick: at, areas, ...rest } = state;
    const body = { ...rest, areas: {} };
    for (const [id, area] of Object.entries(areas)) body.areas[id] = { ...area, tiles: base64Of(area.tiles) };
    return reply({ tick: at, keyframe: body, deltas: {}, events });
  }

  // --- the server's routes, answered here --------------------------------------------------

  async function answer(url, method) {
    const path = url.pathname;
    if (path === "/healthz") return reply({ ok: true, export: true });
    if (path === "/api/content") return reply(await unpack(data.content));
    if (path in data.assets) return reply(data.assets[path]);
    if (!path.startsWith(base)) return refuse(404, "not_found", `${path} is not in this exported replay`);
    const rest = path.slice(base.length);
    if (method !== "GET") return refuse(405, "not_in_export", data.note);
    if (rest === "") return reply(await meta);
    if (rest === "/overview") return reply(await unpack(data.overview));
    if (rest === "/series") return reply(await unpack(data.series));
    if (rest === "/turns") return reply(await unpack(data.turns));
    if (rest === "/why") return data.why ? reply(await unpack(data.why)) : refuse(404, "not_in_export", data.note);
    if (rest === "/state") return stateAt(Number(url.searchParams.get("tick")));
    let m = rest.match(/^\/frames\/(\d+)$/);
    if (m) {
      const c = await chunk(Number(m[1]));
      return c ? reply(c) : refuse(404, "unknown_chunk", `frame chunk ${m[1]} is not in this replay`);
    }
    m = rest.match(/^\/turns\/(\d+)\/(\d+)$/);
    if (m) {
      const turn = (await unpack(data.turn))[`${m[1]}/${m[2]}`];
      return turn ? reply(turn) : refuse(404, "unknown_turn", `character ${m[1]} has no model turn ${m[2]} here`);
    }
    return refuse(404, "not_in_export", data.note);
  }

  window.fetch = (input, init = {}) => {
    const url = new URL(typeof input === "string" ? input : input.url, location.href);
    if (url.protocol === "data:" || url.protocol === "blob:") return realFetch(input, init);
    const method = (init.method || (typeof input === "string" ? "GET" : input.method) || "GET").toUpperCase();
    return answer(url, method);
  };

  // The sprite atlas is an <img> the renderer points at /static/sprites/atlas.png: that one URL
  // is pointed at the picture kept in the page.
  const src = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, "src");
  Object.defineProperty(HTMLImageElement.prototype, "src", {
    ...src,
    set(value) {
      const path = new URL(value, location.href).pathname;
      src.set.call(this, path.endsWith("/static/sprites/atlas.png") ? data.assets["/static/sprites/atlas.png"] : value);
    },
  });
  window.__asiworldExport = { id: data.id, note: data.note };
})();
