// /compare?a=ID&b=ID: two replays of one seed (two prompts, two models) on one clock. Both maps
// side by side, both timelines, the score and behaviour tables with b − a, and the followed
// configuration's model turns of both at the clock's tick. Each replay is read as the viewer
// reads it (ReplayData, WorldState, Renderer, Timeline); the tables come from /api/compare.
import { loadAtlas, attachCameraControls } from "./render.js";
import { el } from "./panels.js";
import { watchHttp, connectionFailed, onConnectionChange } from "./connection.js";
import { Timeline, clockOf, momentOf } from "./replay-timeline.js";
import { turnAt } from "./replay-turns.js";
import { chip, formatArguments, formatAnswer } from "./replay-reader.js";
import { Side } from "./compare-side.js";
import { playClock } from "./play-clock.js";

const $ = (id) => document.getElementById(id);
const BASE_TPS = 10; // 1× = the live server's default pace, as in the viewer
const SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64];
const KEYS = ["a", "b"];
const root = $("compare-root");
const params = new URLSearchParams(location.search);

let flashTimer = null;
function flash(text) {
  $("flash").textContent = text;
  $("flash").classList.remove("hidden");
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => $("flash").classList.add("hidden"), 3200);
}

async function getJSON(url) {
  const r = await fetch(url);
  const body = await r.json().catch(() => ({ code: "bad_response", message: `HTTP ${r.status}` }));
  if (!r.ok) throw Object.assign(new Error(body.message || `HTTP ${r.status}`), { code: body.code });
  return body;
}

const ids = { a: root.dataset.a, b: root.dataset.b };
const matches = params.getAll("match"); // "A:B": a's A and b's B are one configuration

function compareQuery(more = {}) {
  const q = new URLSearchParams({ a: ids.a, b: ids.b });
  for (const m of matches) q.append("match", m);
  for (const [k, v] of Object.entries(more)) q.set(k, v);
  return q.toString();
}
// Whenever the server answers again (also when a request failed before the first /healthz came
// back), what could not be loaded is asked for again.
let resync = () => {};
watchHttp();
onConnectionChange((state) => { if (state === "connected") resync(); });

// The comparison, the sprites and both replays' headers; null (and the page says why) when the
// server did not give them.
async function loadAll() {
  try {
    const [body, atlas] = await Promise.all([
      getJSON(`/api/compare?${compareQuery()}`), loadAtlas()]);
    const sides = {};
    for (const k of KEYS) sides[k] = new Side(k, ids[k], $(`map-${k}`), atlas);
    await Promise.all(KEYS.map((k) => sides[k].load()));
    return { body, sides };
  } catch (err) {
    for (const k of KEYS) $(`loading-${k}`).textContent = `could not load the comparison: ${err.message}`;
    if (!err.code) { // no answer at all: the page starts again once the server answers
      resync = () => location.reload();
      connectionFailed();
    }
    return null;
  }
}

const loaded = await loadAll();
if (loaded) {
  start(loaded).catch((err) => {
    flash(`could not show the comparison: ${err.message}`);
    connectionFailed();
  });
}

async function start({ body, sides }) {
  // One clock over both replays: from the earlier first tick to the later last one.
  const first = Math.min(sides.a.first, sides.b.first);
  const last = Math.max(sides.a.last, sides.b.last);
  const clamp = (t) => Math.max(first, Math.min(last, Math.round(t)));
  const ui = { tick: first, playing: false, speed: 1, follow: null, seeking: 0, failedTick: null };

  // --- what the two are --------------------------------------------------------------------

  for (const k of KEYS) {
    const s = body[k];
    $(`title-${k}`).textContent = s.title;
    $(`timeline-title-${k}`).textContent = `${s.title} · seed ${s.seed} · ${s.width}×${s.height} · ${s.minutes} min` +
      (s.results_from === "events" ? " · scores assessed from its events" : "");
  }
  if (body.notes.length) {
    $("banner").replaceChildren(el("b", {}, "These two worlds differ. "),
      ...body.notes.map((n) => el("span", { class: "note", "data-kind": n.kind }, n.text, " ")));
    $("banner").classList.remove("hidden");
  }

  // --- the configuration both maps follow -------------------------------------------------------

  const rows = body.rows;
  const rowByName = Object.fromEntries(rows.map((r) => [r.name, r]));
  const hasTurns = (r) => r.cells.some((c) => c.key === "model_turns" && (c.a !== null || c.b !== null));
  const wanted = params.get("follow");
  const firstChoice = rowByName[wanted] ? wanted
    : (rows.find((r) => r.in === "both" && hasTurns(r)) || rows.find((r) => r.in === "both") || rows[0])?.name ?? null;
  $("follow").replaceChildren(el("option", { value: "" }, "— nobody —"), ...rows.map((r) => el("option", { value: r.name },
    r.in === "both" ? r.name : `${r.name} (only in ${r.in})`)));

  function setFollow(name) {
    ui.follow = rowByName[name] ? name : null;
    $("follow").value = ui.follow ?? "";
    for (const k of KEYS) {
      sides[k].follow = ui.follow !== null ? rowByName[ui.follow].char[k] : null;
      sides[k].lastPan = 0;
      timelines[k].focus = sides[k].follow;
    }
    for (const tr of document.querySelectorAll("#tables tr[data-config]")) {
      tr.classList.toggle("followed", tr.dataset.config === ui.follow);
    }
    turnsKey = "";
  }

  // --- clock ----------------------------------------------------------------------------------

  async function seek(tick, final = true) {
    ui.tick = clamp(tick);
    const token = ++ui.seeking;
    try {
      await Promise.all(KEYS.map((k) => sides[k].seek(ui.tick, final)));
    } catch (err) {
      if (token !== ui.seeking) return;
      play(false);
      flash(`could not load tick ${ui.tick}: ${err.code ? err.message : "the server is not answering"}`);
      // No answer at all: the server is away; the tick is asked again when it answers
      // (watchHttp). A coded refusal is the server's answer: asking again would get it again.
      if (!err.code) {
        ui.failedTick = ui.tick;
        connectionFailed();
      }
      return;
    }
    if (token === ui.seeking) ui.failedTick = null;
  }

  function play(on = !ui.playing) {
    ui.playing = on && ui.tick < last;
    $("play").textContent = ui.playing ? "❚❚" : "▶";
    $("play").setAttribute("aria-label", ui.playing ? "pause" : "play");
    $("play").title = ui.playing ? "pause (Space)" : "play (Space)";
  }

  function setSpeed(s) {
    ui.speed = SPEEDS.includes(s) ? s : 1;
    $("speed").value = String(ui.speed);
  }

  function stepBy(n) {
    play(false);
    seek(ui.tick + n);
  }

  const ready = () => KEYS.every((k) => sides[k].state.ready && sides[k].state.tick === sides[k].clamp(ui.tick));

  // --- timelines ------------------------------------------------------------------------------

  const onSeek = (tick, final) => {
    play(false);
    seek(tick, final);
  };
  const timelines = {};
  for (const k of KEYS) {
    const chars = body[k].characters;
    const colours = Object.fromEntries(chars.map((c) => [c.id, c.colour || "#888"]));
    timelines[k] = new Timeline($(`timeline-${k}`), { first, last, characters: chars, colours, onSeek,
      onHover: (info, ev) => {
        const tip = $("timeline-tip");
        if (!info) return tip.classList.add("hidden");
        tip.classList.remove("hidden");
        tip.textContent = `${k}: ` + (info.char
          ? `${info.char.name} · ${info.phase || (info.joined === false ? "not joined yet" : "between phases")} · ${momentOf(info.tick)}`
          : momentOf(info.tick));
        tip.style.left = `${Math.min(ev.clientX + 12, innerWidth - 320)}px`;
        tip.style.top = `${ev.clientY - 34}px`;
      } });
    // A click on a model turn's mark follows its configuration and goes to the tick it was sent.
    timelines[k].onTurn = (char, n) => {
      const m = (timelines[k].turns[char] || []).find((t) => t.turn === n);
      const row = rows.find((r) => r.char[k] === char);
      if (row && row.name !== ui.follow) setFollow(row.name);
      if (m) onSeek(m.tick_sent, true);
    };
  }

  // --- tables -----------------------------------------------------------------------------------

  const GROUPS = [["score", "Scores"], ["behaviour", "Behaviour"], ["model", "Model"]];

  function shown(value, unit) {
    if (value === null || value === undefined) return "–";
    if (typeof value === "boolean") return value ? "Y" : "N";
    if (typeof value !== "number") return typeof value === "string" ? value : JSON.stringify(value);
    if (unit === "share") return `${(100 * value).toFixed(1)}%`;
    return Number.isInteger(value) ? String(value) : value.toFixed(1);
  }

  function signed(diff, unit) {
    if (diff === null || diff === undefined) return "";
    if (diff === 0) return "±0";
    const size = unit === "share" ? `${(100 * Math.abs(diff)).toFixed(1)} pp` : Number.isInteger(diff) ? String(Math.abs(diff)) : Math.abs(diff).toFixed(1);
    return `${diff > 0 ? "+" : "−"}${size}`;
  }

  function diffCell(c, m, row) {
    const attrs = { class: "num cmp-cell", "data-key": c.key };
    if (row.in !== "both") {
      const v = row.in === "a" ? c.a : c.b;
      return el("td", attrs, el("span", { class: "pair" }, row.in === "a" ? `${shown(v, m.unit)} → ·` : `· → ${shown(v, m.unit)}`));
    }
    const kind = c.diff === null ? "none" : c.diff === 0 ? "level" : c.favours === "b" ? "gain" : c.favours === "a" ? "loss" : "neutral";
    attrs["data-diff"] = c.diff === null ? "" : String(c.diff);
    attrs["data-favours"] = c.favours ?? "";
    const say = { gain: "b does better", loss: "b does worse", neutral: "neither way is better", level: "the same", none: "" }[kind];
    return el("td", { ...attrs, title: `${m.label}: a ${shown(c.a, m.unit)}, b ${shown(c.b, m.unit)}${say ? ` (${say})` : ""}` },
      el("span", { class: "pair" }, `${shown(c.a, m.unit)} → ${shown(c.b, m.unit)}`),
      el("span", { class: `diff diff-${kind}` }, signed(c.diff, m.unit)));
  }

  function nameCell(row) {
    const settings = row.settings_differ.map((d) => `${d.key}: ${shown(d.a)} → ${shown(d.b)}`).join(" · ");
    const paired = row.in === "both" && row.names.a !== row.names.b;
    return el("th", { scope: "row", class: "cmp-name" },
      el("span", { class: "swatch", style: `background:${row.colour}` }), " ", paired ? `${row.names.a} ↔ ${row.names.b}` : row.name,
      row.in !== "both" ? el("span", { class: `badge only only-${row.in}`, "data-only": row.in }, `only in ${row.in}`) : null,
      settings ? el("div", { class: "settings muted small" }, settings) : null);
  }

  function drawTables() {
    const tables = [];
    for (const [group, title] of GROUPS) {
      const ms = body.measures.map((m, i) => ({ ...m, i })).filter((m) => m.group === group);
      // A group no row has a value for (the model's costs of a run of built-ins) is left out.
      const has = (r) => ms.some((m) => r.cells[m.i].a !== null || r.cells[m.i].b !== null);
      const shownRows = rows.filter(has); // the Model table: the configurations that ask a model
      if (!shownRows.length) continue;
      tables.push(el("table", { class: "cmp-table", id: `table-${group}` },
        el("caption", {}, title),
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Configuration"),
          ...ms.map((m) => el("th", { scope: "col", class: "num", title: m.better ? `${m.better} is better` : "neither way is better" }, m.label)))),
        el("tbody", {}, ...shownRows.map((r) => el("tr", { "data-config": r.name, "data-in": r.in,
          class: r.name === ui.follow ? "followed" : "" },
        nameCell(r), ...ms.map((m) => diffCell(r.cells[m.i], m, r)))))));
    }
    const only = rows.filter((r) => r.in !== "both");
    $("tables").replaceChildren(...tables,
      only.length ? el("p", { class: "muted small", id: "only-note" }, `Only in one replay: ${only.map((r) => `${r.name} (${r.in})`).join(", ")}.`) : "",
      pairForm(only));
  }

  // Two names of one configuration (a prompt's configuration renamed in the second study): pair
  // one of a's with one of b's, and the page compares them as one row (?match=A:B).
  function pairForm(only) {
    const ofSide = (k) => only.filter((r) => r.in === k).map((r) => r.name);
    if (!ofSide("a").length || !ofSide("b").length) return "";
    const pick = (k) => el("select", { id: `pair-${k}`, "aria-label": `configuration of ${k}` },
      ...ofSide(k).map((n) => el("option", { value: n }, n)));
    const [pa, pb] = [pick("a"), pick("b")];
    const go = el("button", { type: "submit", class: "button small" }, "Compare as one");
    const form = el("form", { class: "pair-form small", id: "pair-form" }, "Compare a's ", pa, " with b's ", pb, " ", go);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      matches.push(`${pa.value}:${pb.value}`);
      location.href = `${location.pathname}?${compareQuery({ t: String(ui.tick) })}`;
    });
    return form;
  }

  // --- model turns side by side -------------------------------------------------------------------

  const transcripts = {}; // side -> {character id -> [turn, ...]} once loaded
  const transcriptError = {}; // side -> why its model turns did not load
  const prompts = new Map();
  let turnsKey = "";
  // What each side's panels asked for (on its way or arrived): a failed one is dropped, and asked
  // for again when the server answers (resync).
  const asked = { a: new Set(), b: new Set() };

  // Each side's timeline (phases and markers, then model-turn marks) and its model turns.
  function loadPanels(k) {
    const ask = (name, get, got, failed) => {
      if (asked[k].has(name)) return;
      asked[k].add(name);
      get().then(got).catch((err) => {
        asked[k].delete(name);
        failed(err);
        connectionFailed();
      });
    };
    ask("overview", () => sides[k].data.overview(), (o) => timelines[k].setOverview(o),
      (err) => flash(`timeline of ${k}: ${err.message}`));
    // the marks only: the transcript below says what failed
    ask("turns", () => sides[k].data.turns(), (t) => timelines[k].setTurns(t), () => {});
    ask("transcript", () => sides[k].data.transcript(), (t) => {
      transcripts[k] = {};
      // by character: a row is one character (two of one configuration are `name#id` rows)
      for (const c of t.configurations || []) transcripts[k][c.char] = c.turns.map((x) => ({ ...x, char: c.char }));
      delete transcriptError[k];
      turnsKey = "";
    }, (err) => {
      transcriptError[k] = err.message;
      turnsKey = "";
    });
  }
  for (const k of KEYS) loadPanels(k);
  resync = () => {
    if (ui.failedTick !== null) seek(ui.failedTick);
    for (const k of KEYS) loadPanels(k);
  };

  function drawTurn(k, turn) {
    const node = $(`turn-${k}`);
    const prompt = el("pre", { class: "reader-prompt" }, "opens on demand");
    const shownPrompt = el("details", { class: "reader-shown" }, el("summary", {}, "What it was shown"), prompt);
    shownPrompt.addEventListener("toggle", () => {
      if (!shownPrompt.open) return;
      const key = `${k}:${turn.char}.${turn.turn}`;
      if (!prompts.has(key)) {
        const p = sides[k].data.turn(turn.char, turn.turn).then((full) => full.prompt || "(no summary in this transcript)");
        p.catch(() => prompts.delete(key));
        prompts.set(key, p);
      }
      prompt.textContent = "loading…";
      prompts.get(key).then((text) => { prompt.textContent = text; })
        .catch((err) => { prompt.textContent = `could not load: ${err.message}`; });
    });
    const calls = turn.tool_calls.map((c, i) => el("section", { class: "reader-call", "data-call": String(i) },
      el("h4", {}, el("code", {}, c.name)), formatArguments(c.arguments), formatAnswer(turn.results[i])));
    node.replaceChildren(
      el("header", { class: "reader-head" }, el("span", { class: "side-tag" }, k),
        el("h3", {}, `${ui.follow} · turn ${turn.turn}`), chip(turn.outcome),
        el("a", { href: "#", class: "muted reader-when", onclick: (e) => { e.preventDefault(); onSeek(turn.tick_sent, true); } },
          `sent ${momentOf(turn.tick_sent)}, answered tick ${turn.tick_answered}`)),
      el("p", { class: "reader-facts muted" }, `${turn.prompt_tokens} prompt + ${turn.completion_tokens} completion tokens · ` +
        `${Math.round(turn.latency_ms)} ms · ${turn.calls} call${turn.calls === 1 ? "" : "s"}` +
        (turn.errors.length ? ` · failed calls: ${turn.errors.join(", ")}` : "")),
      turn.text ? el("div", { class: "reader-text" }, el("h4", {}, "What it said"), el("pre", {}, turn.text)) : "",
      el("div", { class: "reader-calls" }, ...(calls.length ? calls : [el("p", { class: "muted" }, "No tool call.")])),
      shownPrompt);
    node.dataset.turn = `${turn.char}.${turn.turn}`;
  }

  function drawTurns() {
    const none = KEYS.every((k) => transcripts[k] && !Object.keys(transcripts[k]).length);
    const at = KEYS.map((k) => {
      if (none) return { k, text: "Neither replay carries model turns (a study's replay has them)." };
      if (!transcripts[k]) {
        return { k, text: transcriptError[k] ? `Could not load the model turns of ${k}: ${transcriptError[k]}.` : "loading…" };
      }
      if (ui.follow === null) return { k, text: "Pick a configuration to follow." };
      const row = rowByName[ui.follow];
      if (row.in !== "both" && row.in !== k) return { k, text: `${ui.follow} is not in ${k}.` };
      const turns = transcripts[k][row.char[k]];
      if (!turns || !turns.length) return { k, text: `${ui.follow} asks no model in ${k} (a built-in agent, or no turn recorded).` };
      const tick = sides[k].clamp(ui.tick);
      const m = turnAt(turns, tick);
      return m ? { k, turn: m } : { k, text: `No model turn of ${ui.follow} sent by tick ${tick} (its first: ${momentOf(turns[0].tick_sent)}).` };
    });
    const key = JSON.stringify([ui.follow, at.map((x) => x.turn ? `${x.turn.char}.${x.turn.turn}` : x.text)]);
    if (key === turnsKey) return;
    turnsKey = key;
    for (const x of at) {
      if (x.turn) drawTurn(x.k, x.turn);
      else {
        $(`turn-${x.k}`).replaceChildren(el("header", { class: "reader-head" }, el("span", { class: "side-tag" }, x.k)), el("p", { class: "muted" }, x.text));
        delete $(`turn-${x.k}`).dataset.turn;
      }
    }
  }

  // --- the address ------------------------------------------------------------------------------

  let lastUrl = "";
  function syncUrl() {
    const url = `${location.pathname}?${compareQuery({ t: String(ui.tick), ...(ui.follow !== null ? { follow: ui.follow } : {}) })}`;
    if (url !== lastUrl) {
      history.replaceState(null, "", url);
      lastUrl = url;
      $("share").href = url;
      for (const k of KEYS) {
        $(`open-${k}`).href = `/replay/${encodeURIComponent(ids[k])}?t=${sides[k].clamp(ui.tick)}` +
          (sides[k].follow !== null ? `&focus=${sides[k].follow}` : "");
      }
    }
  }

  // --- wiring -----------------------------------------------------------------------------------

  for (const s of SPEEDS) $("speed").append(el("option", { value: String(s) }, `${s}×`));
  $("play").addEventListener("click", () => play());
  $("speed").addEventListener("change", (e) => setSpeed(Number(e.target.value)));
  $("back-minute").addEventListener("click", () => stepBy(-60));
  $("back-tick").addEventListener("click", () => stepBy(-1));
  $("fwd-tick").addEventListener("click", () => stepBy(1));
  $("fwd-minute").addEventListener("click", () => stepBy(60));
  $("follow").addEventListener("change", (e) => setFollow(e.target.value));
  const scrubber = $("scrubber");
  scrubber.min = String(first);
  scrubber.max = String(last);
  scrubber.addEventListener("input", () => { play(false); seek(Number(scrubber.value), false); });
  scrubber.addEventListener("change", () => { play(false); seek(Number(scrubber.value), true); });
  for (const k of KEYS) {
    attachCameraControls($(`map-${k}`), sides[k].renderer, { onPan: () => { sides[k].lastPan = performance.now(); } });
  }

  const KEYMAP = {
    " ": () => play(),
    arrowright: (e) => stepBy(e.shiftKey ? 60 : 1),
    arrowleft: (e) => stepBy(e.shiftKey ? -60 : -1),
    ".": () => stepBy(1),
    ",": () => stepBy(-1),
    ">": () => stepBy(60),
    "<": () => stepBy(-60),
    "]": () => setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(ui.speed) + 1)]),
    "[": () => setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(ui.speed) - 1)]),
    home: () => { play(false); seek(first); },
    end: () => { play(false); seek(last); },
  };
  window.addEventListener("keydown", (e) => {
    // The scrubber steps itself with the arrows (and says so to a screen reader); other fields type.
    if (e.target.closest("input, select, textarea, summary")) return;
    if (e.key === " " && e.target.closest("button, a")) return; // Space presses that button
    const fn = KEYMAP[e.key.toLowerCase()] || KEYMAP[e.key];
    if (!fn || e.ctrlKey || e.metaKey || e.altKey) return;
    e.preventDefault();
    fn(e);
  });

  // --- first frame, then the loop ---------------------------------------------------------------

  drawTables();
  setSpeed(Number(params.get("speed") || 1));
  setFollow(firstChoice);
  // Without ?t= both open on the first tick with characters on the map (one that joined at tick t
  // is in the frame of t + 1), as the viewer does.
  const joins = KEYS.flatMap((k) => body[k].characters.map((c) => c.tick ?? first));
  const startTick = params.has("t") ? clamp(Number(params.get("t")) || 0) : clamp((joins.length ? Math.min(...joins) : first) + 1);
  await seek(startTick);
  for (const k of KEYS) {
    $(`loading-${k}`).classList.add("hidden");
    const r = sides[k].renderer, st = sides[k].state;
    r.camera.zoom = 1.5;
    const me = sides[k].follow !== null ? st.entities[sides[k].follow] : null;
    if (me) r.centerOn(me.x, me.y);
    else r.centerOn(st.width / 2, st.height / 2);
  }

  let lastPanels = 0;
  function drawFrame(now) {
    for (const k of KEYS) {
      sides[k].draw();
      const st = sides[k].state, map = $(`map-${k}`);
      if (map.dataset.tick !== String(st.tick)) map.dataset.tick = String(st.tick);
      timelines[k].tick = ui.tick;
      timelines[k].draw();
    }
    // The readout says the tick the maps show (while playing, the clock's target runs a few
    // ticks ahead of the frames applied, and two clocks on one page must not disagree).
    const shownTick = ready() ? ui.tick : Math.max(...KEYS.map((k) => sides[k].state.tick));
    setText($("time-readout"), clockOf(shownTick));
    setText($("tick-readout"), `tick ${shownTick} / ${last}`);
    for (const k of KEYS) setText($(`label-${k}`).lastChild, ` ${momentOf(sides[k].state.tick)} · ${body[k].title}`); // the tick first: a long title is cut
    if (now - lastPanels > 150) {
      lastPanels = now;
      if (document.activeElement !== scrubber) scrubber.value = String(ui.tick);
      scrubber.setAttribute("aria-valuetext", `${clockOf(ui.tick)}, tick ${ui.tick}`);
      for (const k of KEYS) {
        const s = sides[k], ended = $(`ended-${k}`);
        const past = ui.tick > s.last ? `${k} ended at ${momentOf(s.last)}` : ui.tick < s.first ? `${k} starts at ${momentOf(s.first)}` : "";
        setText(ended, past);
        ended.classList.toggle("hidden", !past);
      }
      drawTurns();
      syncUrl();
    }
  }
  // Both sides reach a tick before the clock moves on (seek waits for both).
  playClock({ ui, ticksPerSecond: BASE_TPS, clamp, last: () => last, seek,
              pause: () => play(false), draw: drawFrame });

  function setText(node, text) {
    if (node.textContent !== text) node.textContent = text;
  }

  window.__compare = {
    ui, sides, timelines, body, first, last, seek, play, setFollow,
    get tick() { return ui.tick; },
    get ready() { return ready(); },
  };
}
