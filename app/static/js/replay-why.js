// The Why tab: for the focused character, what each dungeon tier cost it (entries, clears,
// knockdowns and their causes, damage by source, gear worn on entering, supplies eaten) and the
// stalls found in its events (asiworld.evaluation.why, /api/replays/<id>/why). Every finding is
// a moment: its button seeks the viewer there (to the frame after the event's tick, where the
// event shows, as the jumps do).
import { el } from "./panels.js";
import { momentOf } from "./replay-timeline.js";

const KIND_TITLE = {
  repeated_entries: "Entries without a clear",
  goal_stalled: "Goal not advancing",
  repeated_refusal: "The same refusal, again and again",
};

const counts = (obj, unit = "×") =>
  Object.entries(obj || {}).map(([k, n]) => `${k.replaceAll("_", " ")} ${unit}${n}`).join(", ") || "—";
const gearText = (worn) =>
  Object.entries(worn).map(([slot, item]) => (item === "none" ? `no ${slot}` : item.replaceAll("_", " "))).join(", ");

export class WhyPanel {
  constructor(node, { data, names, colours, onSeek, onFocus }) {
    this.node = node;
    this.data = data;
    this.names = names;
    this.colours = colours;
    this.onSeek = onSeek;
    this.onFocus = onFocus;
    this.body = null; // the answer, once loaded
    this.error = null;
    this.shown = undefined; // the character drawn last
    this.loading = null;
  }

  // Fetched the first time the tab is shown; a failure is said in the tab and retried when the
  // tab is shown again.
  load() {
    if (this.body || this.loading) return this.loading;
    this.loading = this.data.why().then((body) => {
      this.body = body;
      this.error = null;
    }).catch((err) => {
      this.error = err.message || String(err);
    }).finally(() => {
      this.loading = null;
      this.shown = undefined;
      this.update(this.focus ?? null);
    });
    return this.loading;
  }

  update(focus) {
    this.focus = focus;
    if (!this.body && !this.error) {
      this.load();
      if (this.shown !== "loading") this.node.replaceChildren(el("p", { class: "muted small" }, "reading the events…"));
      this.shown = "loading";
      return;
    }
    const key = this.error ? `error:${this.error}` : String(focus);
    if (key === this.shown) return;
    this.shown = key;
    if (this.error) {
      this.node.replaceChildren(el("p", { class: "error" }, `Why: ${this.error}`),
        el("button", { class: "button small", type: "button", onclick: () => { this.error = null; this.update(focus); } }, "try again"));
      return;
    }
    const row = (this.body.characters || []).find((c) => c.char === focus);
    this.node.replaceChildren(...(row ? this.character(row) : this.overview()));
  }

  // Nobody focused: every character with how many stalls were found, to pick one.
  overview() {
    return [
      el("p", { class: "muted small" }, "Focus a character (1–9, the focus menu or a name below) to see, from its events, what each dungeon tier cost it and where it stalled."),
      el("ul", { class: "why-who" }, ...(this.body.characters || []).map((c) => el("li", {},
        el("button", { type: "button", class: "why-pick", "data-char": String(c.char), onclick: () => this.onFocus(c.char) },
          el("span", { class: "swatch", style: `background:${this.colours[c.char] || "#888"}` }),
          ` ${c.name}`),
        el("span", { class: "muted small" }, ` · ${c.findings.length} finding${c.findings.length === 1 ? "" : "s"}`)))),
    ];
  }

  character(row) {
    const rules = this.body.rules || {};
    const parts = [el("h3", { class: "why-title" },
      el("span", { class: "swatch", style: `background:${this.colours[row.char] || "#888"}` }), ` Why · ${row.name}`)];
    if (row.goal) {
      parts.push(el("p", { class: "why-goal small" }, el("b", {}, "Next goal: "),
        `${row.goal.name} (stage ${row.goal.stage}) since `, this.moment(row.goal.since),
        row.goal.missing ? ` — missing: ${row.goal.missing}` : ""));
    } else parts.push(el("p", { class: "why-goal small" }, "Every stage of the curriculum met."));
    parts.push(el("h4", {}, `Findings (${row.findings.length})`));
    if (row.findings.length) {
      parts.push(el("ol", { class: "why-findings" }, ...row.findings.map((f) => el("li", { class: `why-finding ${f.kind}`, "data-kind": f.kind, "data-tick": String(f.tick) },
        el("button", { type: "button", class: "why-seek", title: "go to this moment", "data-tick": String(f.tick),
          onclick: () => this.onSeek(f.tick + 1) }, momentOf(f.tick)),
        el("div", {}, el("b", {}, KIND_TITLE[f.kind] || f.kind), el("div", { class: "small" }, f.text))))));
    } else {
      parts.push(el("p", { class: "muted small" },
        `No stall found: no tier entered ${rules.repeated_entries ?? 3} times in a row without a clear, no refusal repeated ${rules.refusal_repeats ?? 5} times with no other between, no goal stuck a day (${rules.goal_allowance_minutes ?? 30} minutes) longer than it needs.`));
    }
    parts.push(el("h4", {}, "Dungeon tiers"));
    parts.push(row.tiers.length ? this.tierTable(row.tiers) : el("p", { class: "muted small" }, "never entered a dungeon"));
    const refused = Object.values(row.refusals || {}).reduce((a, b) => a + b, 0);
    if (refused) parts.push(el("p", { class: "small" }, el("b", {}, `Refused ${refused}: `), counts(row.refusals)));
    return parts;
  }

  moment(tick) {
    if (tick === null || tick === undefined) return "—";
    return el("a", { href: "#", class: "why-moment", onclick: (e) => { e.preventDefault(); this.onSeek(tick + 1); } }, momentOf(tick));
  }

  tierTable(tiers) {
    const line = (label, cell) => el("tr", {}, el("th", { scope: "row" }, label), ...tiers.map((t) => el("td", {}, cell(t))));
    return el("table", { class: "why-tiers small" },
      el("thead", {}, el("tr", {}, el("th", {}, ""), ...tiers.map((t) => el("th", { scope: "col", "data-tier": String(t.tier) }, t.name)))),
      el("tbody", {},
        line("entries", (t) => el("span", {}, `${t.entries} `, t.entry_ticks.length ? this.moment(t.entry_ticks[0]) : "")),
        line("clears", (t) => (t.clears ? el("span", {}, `${t.clears} `, this.moment(t.clear_ticks[0])) : "0")),
        line("knocked down", (t) => (t.knockdowns.length ? `${t.knockdowns.length}: ${counts(t.causes)}` : "0")),
        line("damage by source", (t) => counts(t.damage, "")),
        line("gear on entry", (t) => t.gear.map((g) => `${gearText(g.worn)} (${g.entries})`).join("; ") || "—"),
        line("supplies used", (t) => counts(t.supplies))));
  }
}
