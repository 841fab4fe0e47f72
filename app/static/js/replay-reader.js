// The turn reader: every model turn of a study's replay, full width. A list of turns (filtered
// by a search over tools, outcomes, codes and text, and by configuration, outcome and tool) and
// the selected turn in full: its tool calls with their arguments formatted (a program's source
// as a code block, not escaped JSON), each result under its call, an outcome chip, tokens and
// latency, and what the model was shown. j/k (or ↓/↑) move through the list; selecting a turn
// seeks the map to the tick it was sent (the page's onSelect), and the address names the turn.
import { el } from "./panels.js";
import { momentOf } from "./replay-timeline.js";

const OUTCOMES = ["ok", "refused", "failed", "text-only"];
const LIST_MAX = 500; // rows drawn at once; the count says how many matched

function parseJSON(text) {
  if (typeof text !== "string") return text;
  try { return JSON.parse(text); } catch { return text; }
}

// A result line is `name(args) -> answer`: the answer, parsed when it is JSON.
export function answerOf(result) {
  return parseJSON(String(result ?? "").split(" -> ").slice(1).join(" -> ") || String(result ?? ""));
}

export function chip(outcome) {
  const kind = outcome?.kind || "ok";
  const codes = outcome?.codes?.length ? `: ${[...new Set(outcome.codes)].join(", ")}` : "";
  return el("span", { class: `chip chip-${kind}`, "data-outcome": kind }, `${kind}${codes}`);
}

// Arguments as the model meant them: each field on its line, and a multi-line string (a
// program's source above all) as a code block that wraps instead of a line of `\n`s.
export function formatArguments(text) {
  const args = parseJSON(text || "{}");
  if (!args || typeof args !== "object" || Array.isArray(args)) {
    return el("pre", { class: "reader-json" }, typeof args === "string" ? args : JSON.stringify(args, null, 2));
  }
  const rows = Object.entries(args).map(([key, value]) => {
    if (typeof value === "string" && (value.includes("\n") || key === "source")) {
      return el("div", { class: "arg arg-block" }, el("span", { class: "arg-key" }, key),
        el("pre", { class: "reader-code", "data-arg": key }, el("code", {}, value)));
    }
    const shown = typeof value === "string" ? value : JSON.stringify(value);
    return el("div", { class: "arg" }, el("span", { class: "arg-key" }, key), " ", el("code", { class: "arg-value" }, shown));
  });
  return el("div", { class: "reader-args" }, ...(rows.length ? rows : [el("span", { class: "muted" }, "no arguments")]));
}

export function formatAnswer(result) {
  if (result === undefined) return el("div", { class: "reader-result muted" }, "→ no answer recorded");
  const answer = answerOf(result);
  const refused = answer && typeof answer === "object" && answer.ok === false;
  const body = typeof answer === "string" ? answer : JSON.stringify(answer, null, 2);
  return el("div", { class: `reader-result${refused ? " refused" : ""}` },
    el("span", { class: "arrow" }, refused ? `→ refused (${answer.code || "refused"})` : "→ answered"),
    el("pre", { class: "reader-json" }, body));
}

// The text a search looks in: tools, outcome and codes, the answer's text, arguments, results.
function haystack(turn) {
  return [turn.config, `#${turn.turn}`, turn.outcome.kind, ...turn.outcome.codes, turn.text || "",
    ...turn.tool_calls.map((c) => `${c.name} ${c.arguments || ""}`), ...turn.results, ...turn.errors]
    .join("\n").toLowerCase();
}

export class TurnReader {
  constructor(root, { data, names, colours, onSelect, onClose }) {
    this.root = root;
    this.data = data;
    this.names = names;
    this.colours = colours;
    this.onSelect = onSelect; // (char, turn): focus, seek, remember in the address
    this.onClose = onClose;
    this.turns = []; // every turn, in time order, each with .char, .config, .hay
    this.shown = [];
    this.selected = null; // "char.turn"
    this.loading = null;
    this.prompts = new Map();
    this.build();
  }

  get open() { return !this.root.classList.contains("hidden"); }

  build() {
    this.search = el("input", { type: "search", id: "reader-search", placeholder: "search tools, codes, text… (/)",
      "aria-label": "search the model turns" });
    this.who = el("select", { id: "reader-who", "aria-label": "configuration" });
    this.outcome = el("select", { id: "reader-outcome", "aria-label": "outcome" },
      el("option", { value: "" }, "any outcome"), ...OUTCOMES.map((o) => el("option", { value: o }, o)));
    this.tool = el("select", { id: "reader-tool", "aria-label": "tool" });
    this.count = el("span", { class: "muted small", id: "reader-count", role: "status" });
    for (const input of [this.search, this.who, this.outcome, this.tool]) input.addEventListener("input", () => this.filter());
    this.list = el("ol", { class: "reader-list", id: "reader-list", "aria-label": "model turns" });
    this.detail = el("article", { class: "reader-detail", id: "reader-detail", tabindex: "-1", "aria-live": "polite" },
      el("p", { class: "muted" }, "Pick a turn."));
    const close = el("button", { type: "button", class: "button small", id: "reader-close", title: "back to the map (R)" }, "Close reader");
    close.addEventListener("click", () => this.onClose());
    this.root.replaceChildren(
      el("div", { class: "reader-bar" }, el("strong", {}, "Model turns"), this.search, this.who, this.outcome, this.tool,
        this.count, el("span", { class: "muted small" }, "j/k or ↓/↑ to move"), close),
      el("div", { class: "reader-body" }, this.list, this.detail));
    this.list.addEventListener("click", (ev) => {
      const row = ev.target.closest("[data-turn]");
      if (row) this.pick(row.dataset.turn);
    });
    window.addEventListener("keydown", (ev) => this.key(ev), true);
  }

  async load() {
    this.loading ||= this.data.transcript().then((body) => {
      const all = [];
      for (const c of body.configurations || []) {
        for (const t of c.turns) all.push({ ...t, char: c.char, config: c.config });
      }
      all.sort((a, b) => (a.tick_sent ?? 0) - (b.tick_sent ?? 0) || a.char - b.char || a.turn - b.turn);
      for (const t of all) t.hay = haystack(t);
      this.turns = all;
      this.who.replaceChildren(el("option", { value: "" }, "every configuration"),
        ...(body.configurations || []).map((c) => el("option", { value: String(c.char) }, c.config)));
      const tools = [...new Set(all.flatMap((t) => t.tool_calls.map((c) => c.name)))].sort();
      this.tool.replaceChildren(el("option", { value: "" }, "any tool"), ...tools.map((t) => el("option", { value: t }, t)));
      this.filter();
    });
    return this.loading;
  }

  filter() {
    const words = this.search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const who = this.who.value, outcome = this.outcome.value, tool = this.tool.value;
    this.shown = this.turns.filter((t) => (!who || String(t.char) === who) &&
      (!outcome || t.outcome.kind === outcome) &&
      (!tool || t.tool_calls.some((c) => c.name === tool)) &&
      words.every((w) => t.hay.includes(w)));
    this.count.textContent = `${this.shown.length} of ${this.turns.length} turns`;
    this.drawList();
  }

  drawList() {
    this.list.replaceChildren(...this.shown.slice(0, LIST_MAX).map((t) => {
      const id = `${t.char}.${t.turn}`;
      return el("li", { class: `reader-row${id === this.selected ? " selected" : ""}`, "data-turn": id },
        el("button", { type: "button", "aria-current": id === this.selected ? "true" : "false" },
          el("span", { class: "swatch", style: `background:${this.colours[t.char]}` }),
          el("b", {}, `${this.names[t.char] ?? t.config} #${t.turn}`), " ",
          el("span", { class: "muted" }, momentOf(t.tick_sent)), " ",
          chip(t.outcome), " ",
          el("span", { class: "tools" }, t.tool_calls.map((c) => c.name).join(", ") || (t.text ? "text" : "—")), " ",
          el("span", { class: "cost" }, `${t.prompt_tokens + t.completion_tokens} tok · ${Math.round(t.latency_ms)} ms`)));
    }));
    this.list.querySelector(".selected")?.scrollIntoView({ block: "nearest" });
  }

  // Select a turn by "char.turn" (from a click, a key, a deep link or the timeline).
  pick(id, tell = true) {
    this.selected = id;
    for (const row of this.list.querySelectorAll(".reader-row")) {
      const on = row.dataset.turn === id;
      row.classList.toggle("selected", on);
      row.firstChild.setAttribute("aria-current", on ? "true" : "false");
      if (on) row.scrollIntoView({ block: "nearest" });
    }
    const turn = this.turns.find((t) => `${t.char}.${t.turn}` === id);
    if (turn) this.drawDetail(turn);
    const [char, n] = id.split(".").map(Number);
    if (tell) this.onSelect(char, n);
  }

  move(step) {
    if (!this.shown.length) return;
    const i = this.shown.findIndex((t) => `${t.char}.${t.turn}` === this.selected);
    const next = this.shown[Math.max(0, Math.min(this.shown.length - 1, i < 0 ? 0 : i + step))];
    this.pick(`${next.char}.${next.turn}`);
  }

  key(ev) {
    if (!this.open || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const typing = ev.target.closest && ev.target.closest("input, select, textarea");
    if (ev.key === "/" && !typing) {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      this.search.focus();
      return;
    }
    if (typing) return;
    const step = { j: 1, arrowdown: 1, k: -1, arrowup: -1 }[ev.key.toLowerCase()];
    if (!step) return;
    ev.preventDefault();
    ev.stopImmediatePropagation(); // the page's own j/k/arrows (step, knockdown) wait
    this.move(step);
  }

  drawDetail(turn) {
    const colour = this.colours[turn.char];
    const calls = turn.tool_calls.map((c, i) => el("section", { class: "reader-call", "data-call": String(i) },
      el("h4", {}, el("code", {}, c.name), " ", chip({ kind: answerOf(turn.results[i])?.ok === false ? "refused" : "ok",
        codes: answerOf(turn.results[i])?.ok === false ? [answerOf(turn.results[i]).code || "refused"] : [] })),
      formatArguments(c.arguments), formatAnswer(turn.results[i])));
    const prompt = el("pre", { class: "reader-prompt" }, "loading…");
    this.detail.replaceChildren(
      el("header", { class: "reader-head" },
        el("span", { class: "swatch", style: `background:${colour}` }),
        el("h3", {}, `${this.names[turn.char] ?? turn.config} · turn ${turn.turn}`), chip(turn.outcome),
        el("span", { class: "muted reader-when" }, `sent ${momentOf(turn.tick_sent)}, answered tick ${turn.tick_answered}`)),
      el("p", { class: "reader-facts muted" },
        `${turn.prompt_tokens} prompt + ${turn.completion_tokens} completion tokens · ${Math.round(turn.latency_ms)} ms · ` +
        `${turn.calls} call${turn.calls === 1 ? "" : "s"}` +
        (turn.errors.length ? ` · failed calls: ${turn.errors.join(", ")}` : "")),
      turn.text ? el("div", { class: "reader-text" }, el("h4", {}, "What it said"), el("pre", {}, turn.text)) : el("span"),
      el("div", { class: "reader-calls" }, ...(calls.length ? calls : [el("p", { class: "muted" }, "No tool call.")])),
      el("details", { class: "reader-shown" }, el("summary", {}, "What it was shown"), prompt));
    this.detail.dataset.turn = `${turn.char}.${turn.turn}`;
    const key = this.detail.dataset.turn;
    if (!this.prompts.has(key)) {
      const p = this.data.turn(turn.char, turn.turn).then((full) => full.prompt || "(no summary in this transcript)");
      p.catch(() => this.prompts.delete(key));
      this.prompts.set(key, p);
    }
    this.prompts.get(key).then((text) => { if (this.detail.dataset.turn === key) prompt.textContent = text; })
      .catch((err) => { prompt.textContent = `could not load: ${err.message}`; });
  }
}
