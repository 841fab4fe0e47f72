// The one connection indicator of every page (the #conn box in the top bar): connected,
// reconnecting or lost, with a Reconnect button once it has given up on its own. A page with a
// socket hands it the socket; a page that only fetches over HTTP is watched by asking /healthz.
// Either way the page gives a `resync` function, called after every reconnect, that brings the
// whole page state back (what it follows, its point of view, the tick it shows): nothing the
// user chose is lost by a server restart.

const node = document.getElementById("conn");
const TEXT = { connecting: "connecting…", connected: "connected", reconnecting: "reconnecting…", lost: "connection lost" };
const HTTP_EVERY_MS = 4000; // how often an HTTP page asks /healthz while connected
const HTTP_RETRY_MS = 1000; // and while reconnecting
const GIVE_UP_AFTER = 8; // failed tries before the state says "lost" (retrying slowly goes on)

let state = "connecting";
let retryNow = () => {};
const listeners = [];

function render() {
  if (!node) return;
  node.dataset.state = state;
  node.querySelector(".conn-text").textContent = TEXT[state];
  node.querySelector(".conn-retry").classList.toggle("hidden", state !== "lost");
  node.title = state === "connected" ? "the server is answering" : "the server is not answering: what is shown may be old";
}

if (node) {
  node.replaceChildren();
  const dot = document.createElement("span");
  dot.className = "conn-dot";
  const text = document.createElement("span");
  text.className = "conn-text";
  text.setAttribute("role", "status");
  const retry = document.createElement("button");
  retry.type = "button";
  retry.className = "conn-retry hidden";
  retry.textContent = "Reconnect";
  retry.addEventListener("click", () => {
    set("reconnecting");
    retryNow();
  });
  node.append(dot, text, retry);
  render();
}

function set(next) {
  if (next === state) return;
  state = next;
  render();
  for (const fn of listeners) fn(state);
}

export function connectionState() {
  return state;
}

export function onConnectionChange(fn) {
  listeners.push(fn);
}

// A Socket.IO socket: its own reconnection drives the indicator; `resync(first)` runs on every
// connect (first = true for the page's first one), where the page sends what it asks for.
export function watchSocket(socket, resync) {
  let connectedOnce = false;
  let failures = 0;
  socket.on("connect", () => {
    failures = 0;
    set("connected");
    resync(!connectedOnce);
    connectedOnce = true;
  });
  socket.on("disconnect", () => set("reconnecting"));
  socket.on("connect_error", () => {
    failures += 1;
    set(failures >= GIVE_UP_AFTER ? "lost" : connectedOnce ? "reconnecting" : "connecting");
  });
  socket.io.on("reconnect_attempt", () => { if (state !== "lost") set("reconnecting"); });
  retryNow = () => {
    failures = 0;
    socket.disconnect();
    socket.connect();
  };
}

// A page without a socket: /healthz is asked every few seconds, and at once whenever the page
// saw a request fail (`connectionFailed()`). `resync()` runs when the server answers again.
let httpWatch = null;
export function watchHttp(resync = () => {}) {
  let failures = 0;
  let timer = null;
  async function check() {
    clearTimeout(timer);
    let ok = false;
    try {
      const r = await fetch("/healthz", { cache: "no-store" });
      ok = r.ok;
    } catch {
      ok = false;
    }
    const was = state;
    if (ok) {
      failures = 0;
      set("connected");
      if (was === "reconnecting" || was === "lost") resync();
    } else {
      failures += 1;
      set(failures >= GIVE_UP_AFTER ? "lost" : was === "connecting" ? "connecting" : "reconnecting");
    }
    timer = setTimeout(check, ok ? HTTP_EVERY_MS : HTTP_RETRY_MS * Math.min(failures, 5));
  }
  httpWatch = { check, failed: () => { if (state === "connected") set("reconnecting"); check(); } };
  retryNow = () => { failures = 0; check(); };
  check();
}

// A page's own request failed (the server stopped answering): tell the indicator now rather
// than at the next /healthz.
export function connectionFailed() {
  if (httpWatch) httpWatch.failed();
}
