// Replay data over HTTP, loaded lazily: the header and chunk ranges first, then one frame chunk
// (60 ticks) at a time as the clock reaches it, and a keyframe from the server for a far seek.
// Requests are cached as promises, so two callers wanting the same chunk share one fetch.

// A 429 (the server's per-address rate limit, which a fast scrub or a busy tab can reach) is
// waited out as its Retry-After says and asked again, a few times, instead of failing the page.
const RATE_LIMIT_TRIES = 5;

async function getJSON(url) {
  let r = await fetch(url);
  for (let tried = 1; r.status === 429 && tried < RATE_LIMIT_TRIES; tried++) {
    const wait = Math.min(5, Math.max(0.2, Number(r.headers.get("Retry-After")) || 1));
    await new Promise((done) => setTimeout(done, wait * 1000));
    r = await fetch(url);
  }
  const body = await r.json().catch(() => ({ code: "bad_response", message: `HTTP ${r.status}` }));
  if (!r.ok) throw Object.assign(new Error(body.message || `HTTP ${r.status}`), { code: body.code });
  return body;
}

export class ReplayData {
  constructor(id) {
    this.id = id;
    this.base = `/api/replays/${encodeURIComponent(id)}`;
    this.meta = null;
    this.chunks = new Map(); // index -> Promise<{t0, t1, frames}>
    this.starts = []; // first tick of each frame chunk
  }

  async load() {
    const early = window.__replayEarly; // started by the page before the modules arrived
    this.meta = await (early ? early.meta.catch(() => getJSON(this.base)) : getJSON(this.base));
    this.starts = this.meta.frame_chunks.map((c) => c[0]);
    return this.meta;
  }

  get first() { return this.meta.first_tick ?? 0; }
  get last() { return this.meta.last_tick ?? 0; }

  chunkIndexOf(tick) {
    let lo = 0, hi = this.starts.length - 1, found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid] <= tick) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return found;
  }

  chunk(index) {
    if (index < 0 || index >= this.starts.length) return Promise.resolve(null);
    if (!this.chunks.has(index)) {
      const p = getJSON(`${this.base}/frames/${index}`);
      p.catch(() => this.chunks.delete(index)); // a failed fetch may be retried
      this.chunks.set(index, p);
      if (this.chunks.size > 120) this.chunks.delete(this.chunks.keys().next().value);
    }
    return this.chunks.get(index);
  }

  // Model turns: the timeline's markers, then one turn in full when it is selected.
  turns() { return getJSON(`${this.base}/turns`); }

  // Every turn without its prompt, with its outcome: the turn reader's list and search.
  // Asked once (the page may fetch it early, the reader when it opens); asked again after a failure.
  transcript() {
    this.transcriptLoad ||= getJSON(`${this.base}/transcript`).catch((err) => {
      this.transcriptLoad = null;
      throw err;
    });
    return this.transcriptLoad;
  }
  turn(char, number) { return getJSON(`${this.base}/turns/${char}/${number}`); }
  // Each character's why-summary: tiers and stalls (the Why tab).
  why() { return getJSON(`${this.base}/why`); }

  chunkFor(tick) {
    return this.chunk(this.chunkIndexOf(tick));
  }

  // How many frame chunks covering ticks from..to are neither loaded nor on their way.
  missing(from, to) {
    let n = 0;
    for (let i = Math.max(0, this.chunkIndexOf(from)); i <= this.chunkIndexOf(to); i++) if (!this.chunks.has(i)) n++;
    return n;
  }

  // Ask for every chunk covering ticks from..to at once (they then arrive in parallel).
  request(from, to) {
    for (let i = Math.max(0, this.chunkIndexOf(from)); i <= this.chunkIndexOf(to); i++) this.chunk(i);
  }

  prefetch(tick, ahead = 2) {
    const i = this.chunkIndexOf(tick);
    for (let k = 1; k <= ahead; k++) this.chunk(i + k);
  }

  stateAt(tick) {
    const early = window.__replayEarly;
    if (early && early.state && early.tick === tick) {
      const p = early.state;
      early.state = null; // only once: later seeks to this tick ask again
      return p.catch(() => getJSON(`${this.base}/state?tick=${tick}`));
    }
    return getJSON(`${this.base}/state?tick=${tick}`);
  }
  overview() { return getJSON(`${this.base}/overview`); }
  series() { return getJSON(`${this.base}/series`); }
  pov(tick, char) { return getJSON(`${this.base}/pov?tick=${tick}&char=${char}`); }

  async fork(body, adminToken) {
    const headers = { "Content-Type": "application/json" };
    if (adminToken) headers["X-Admin-Token"] = adminToken;
    const r = await fetch(`${this.base}/fork`, { method: "POST", headers, body: JSON.stringify(body) });
    return r.json().catch(() => ({ ok: false, code: "bad_response", message: `HTTP ${r.status}` }));
  }
}
