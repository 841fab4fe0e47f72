// A seat of a study played from /play: a human seat's page plays its character through the agent
// API (REST, Authorization: Bearer TOKEN), the same calls any outside agent makes, so the study
// counts, records and replays them alike (asiworld.study.external). The token comes with the join
// link the study printed (/play?character=C&token=T), or is pasted into the page.

export class SeatError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

export class Seat {
  constructor(token, character) {
    this.token = token;
    this.character = character;  // from the link (checked against the token), then the seat's
  }

  async call(method, path, body) {
    let reply;
    try {
      reply = await fetch(path, {
        method,
        cache: "no-store",
        headers: { Authorization: `Bearer ${this.token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch {
      throw new SeatError("unreachable", "the study does not answer", 0);
    }
    let data = null;
    try { data = await reply.json(); } catch { data = null; }
    if (!reply.ok || !data) {
      const code = (data && data.code) || `http_${reply.status}`;
      throw new SeatError(code, (data && data.message) || `the study answered ${reply.status}`, reply.status);
    }
    return data;
  }

  // The seat the token plays, the study's clock and horizon, its open turn; the first call,
  // which the study's entry waits for.
  async claim() {
    const asked = this.character != null && this.character !== "" ? `?character=${encodeURIComponent(this.character)}` : "";
    const info = await this.call("GET", `/api/agents/seat${asked}`);
    this.character = info.character;
    return info;
  }

  observe(fullMemory) {
    return this.call("GET", `/api/agents/${this.character}/observe${fullMemory ? "?full_memory=1" : ""}`);
  }

  act(action) {
    return this.call("POST", `/api/agents/${this.character}/act`, { action });
  }

  nextTurn(timeout) {
    return this.call("GET", `/api/agents/${this.character}/next_turn?timeout=${timeout}`);
  }
}

// "minute 2 of 5": the study's clock against its horizon.
export function studyMinute(study, tick) {
  const perMinute = study.ticks_per_minute || 1;
  return `minute ${Math.min(study.minutes, Math.floor(tick / perMinute))} of ${study.minutes}`;
}
