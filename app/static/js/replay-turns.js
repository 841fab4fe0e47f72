// Model turns in the replay viewer: what a language-model configuration was shown (a summary of
// its prompt), what it answered (text and tool calls) and what the world did with each call.
// The markers come from /api/replays/<id>/turns; a turn's text is fetched when it is selected.
// With a second configuration in compare mode, the Turns tab shows both configurations' turns
// at the clock's tick side by side.
import { el } from "./panels.js";
import { momentOf } from "./replay-timeline.js";

// The latest turn of `markers` sent at or before `tick` (markers are in turn order).
export function turnAt(markers, tick) {
  let found = null;
  for (const m of markers || []) {
    if (m.tick_sent !== null && m.tick_sent <= tick) found = m;
    else if (m.tick_sent !== null && m.tick_sent > tick) break;
  }
  return found;
}

function block(title, body, cls = "") {
  return el("div", { class: `turn-block ${cls}` }, el("h4", {}, title), body);
}

function toolCalls(turn) {
  if (!turn.tool_calls.length) return el("p", { class: "muted small" }, "no tool calls");
  return el("ol", { class: "turn-calls" }, ...turn.tool_calls.map((c, i) => el("li", {},
    el("code", { class: "turn-call" }, `${c.name}(${c.arguments || ""})`),
    el("div", { class: "turn-answer", "data-answer": String(i) },
      turn.results[i] !== undefined ? String(turn.results[i]).replace(/^.*? -> /, "→ ") : "→ (no answer recorded)"))));
}

export function renderTurn(node, turn, { name, colour, onSeek }) {
  const errors = turn.errors.length ? ` · ${turn.errors.length} failed call${turn.errors.length > 1 ? "s" : ""} (${turn.errors.join(", ")})` : "";
  node.replaceChildren(
    el("div", { class: "turn-head" },
      el("span", { class: "swatch", style: `background:${colour}` }),
      el("b", {}, `${name} · turn ${turn.turn}`),
      // One inline run of text: as separate flex items the gap put a space before the comma.
      el("span", { class: "turn-when" }, "sent ",
        el("a", { href: "#", class: "turn-tick", title: "go to the tick it was sent",
          onclick: (e) => { e.preventDefault(); onSeek(turn.tick_sent); } }, momentOf(turn.tick_sent)),
        el("span", { class: "muted" }, `, answered tick ${turn.tick_answered}`))),
    el("div", { class: "muted small" },
      `${turn.calls} call${turn.calls > 1 ? "s" : ""} · ${turn.prompt_tokens} prompt + ${turn.completion_tokens} completion tokens · ${Math.round(turn.latency_ms)} ms${errors}`),
    block("What it was shown", el("pre", { class: "turn-prompt" }, turn.prompt || "(no summary in this transcript)")),
    block("What it answered", el("div", {},
      turn.text ? el("pre", { class: "turn-text" }, turn.text) : null, toolCalls(turn)), "turn-reply"),
  );
  node.dataset.turn = `${turn.char}.${turn.turn}`;
}

export class TurnsPanel {
  constructor(root, { data, names, colours, onSeek, onSelect }) {
    this.root = root;
    this.data = data;
    this.names = names;
    this.colours = colours;
    this.onSeek = onSeek;
    this.onSelect = onSelect;
    this.byChar = {}; // char -> markers
    this.selected = null; // {char, turn}
    this.cache = new Map(); // "char.turn" -> Promise<turn>
    this.key = "";
  }

  setTurns(body) {
    this.byChar = {};
    for (const c of body.configurations || []) this.byChar[c.char] = c.markers;
    this.key = "";
  }

  has(char) { return Boolean(this.byChar[char]?.length); }

  get(char, turn) {
    const key = `${char}.${turn}`;
    if (!this.cache.has(key)) {
      const p = this.data.turn(char, turn);
      p.catch(() => this.cache.delete(key));
      this.cache.set(key, p);
    }
    return this.cache.get(key);
  }

  select(char, turn) {
    this.selected = { char, turn };
    this.key = "";
  }

  // Called with the clock: which turns to show (the selected one, or the focused character's at
  // this tick) and, in compare mode, the second configuration's at the same tick.
  update(tick, focus, compare) {
    const shown = [];
    const sel = this.selected;
    const first = sel && (focus === null || sel.char === focus) ? sel : null;
    if (first) shown.push(first);
    else if (focus !== null && this.has(focus)) {
      const m = turnAt(this.byChar[focus], tick);
      if (m) shown.push({ char: focus, turn: m.turn });
    }
    if (compare !== null && this.has(compare)) {
      const m = turnAt(this.byChar[compare], shown[0] ? this.tickOf(shown[0]) : tick);
      if (m) shown.push({ char: compare, turn: m.turn });
    }
    const key = JSON.stringify([shown, Object.keys(this.byChar).length, focus, compare]);
    if (key === this.key) return;
    this.key = key;
    this.draw(shown, focus, compare);
  }

  tickOf({ char, turn }) {
    return (this.byChar[char] || []).find((m) => m.turn === turn)?.tick_sent ?? 0;
  }

  draw(shown, focus, compare) {
    const configs = Object.keys(this.byChar);
    if (!configs.length) {
      this.root.replaceChildren(el("p", { class: "muted" }, "This replay carries no model turns (only a study's replay has them)."));
      return;
    }
    const hint = el("p", { class: "muted small" },
      "Click a mark on the timeline (or a turn below) to see what the model was shown, what it answered and what the world did. ",
      compare === null ? "Pick a second configuration in compare to put their turns side by side." : "");
    const list = this.list(focus ?? shown[0]?.char ?? Number(configs[0]));
    const panes = el("div", { class: `turn-panes${shown.length > 1 ? " side-by-side" : ""}` },
      ...shown.map(() => el("div", { class: "turn-detail" }, el("p", { class: "muted small" }, "loading…"))));
    this.root.replaceChildren(hint, panes, list);
    shown.forEach((s, i) => {
      this.get(s.char, s.turn).then((turn) => {
        const pane = panes.children[i];
        if (pane) renderTurn(pane, turn, { name: this.names[s.char], colour: this.colours[s.char], onSeek: this.onSeek });
      }).catch((err) => { const pane = panes.children[i]; if (pane) pane.textContent = `turn: ${err.message}`; });
    });
  }

  list(char) {
    const markers = this.byChar[char] || [];
    return el("div", { class: "turn-list" },
      el("h4", {}, `${this.names[char] ?? "?"}: ${markers.length} model turns`),
      el("ul", { class: "events" }, ...markers.slice(0, 400).map((m) => el("li", {
        class: `turn-row${this.selected && this.selected.char === char && this.selected.turn === m.turn ? " selected" : ""}${m.failed ? " failed" : ""}`,
        "data-turn": `${char}.${m.turn}`,
        onclick: () => this.onSelect(char, m.turn),
      }, el("span", { class: "muted" }, `${momentOf(m.tick_sent)} `), `#${m.turn} `, m.tools.join(", ") || (m.failed ? "failed" : "text only")))));
  }
}
