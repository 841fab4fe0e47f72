// The map's legend, one component for /live, /play and the replay viewer: every tile, building
// and creature drawn from the same sprite atlas the map uses, named as people read them, plus
// what the overlays mean (fog of war, the faced tile, bosses, name tags). A "Legend" button at
// the map's corner opens it; names come from GET /api/content, so a tile added there shows here.
import { el, pretty } from "./panels.js";

const HIDDEN_TILES = new Set(["void", "flax_picked", "bush_picked", "chest_open"]); // variants

function entry(atlas, sprite, text) {
  return el("li", {}, atlas.icon(sprite, "", 1), el("span", {}, text));
}

function swatch(style, text) {
  return el("li", {}, el("span", { class: "legend-swatch", style }), el("span", {}, text));
}

// node: an empty element inside the map's stage. opts.fog: explain the fog (a followed or
// played character's view); opts.marker: the faced-tile marker of /play.
export function mountLegend(node, atlas, opts = {}) {
  const body = el("div", { class: "legend-body", id: `${node.id || "map"}-legend-body` });
  const button = el("button", { type: "button", class: "legend-toggle", "aria-expanded": "false",
    "aria-controls": body.id, title: "what the map's pictures mean" }, "Legend");
  body.hidden = true;
  button.addEventListener("click", () => {
    body.hidden = !body.hidden;
    button.setAttribute("aria-expanded", String(!body.hidden));
  });
  node.classList.add("map-legend");
  node.replaceChildren(button, body);

  function fill(content) {
    const tiles = (content.tiles || []).map((t) => t.name).filter((n) => !HIDDEN_TILES.has(n));
    const creatures = Object.entries(content.creatures || {});
    const group = (title, items) => el("section", {}, el("h4", {}, title), el("ul", {}, ...items));
    const overlays = [
      entry(atlas, "character", "a character (its name above, its health below)"),
      entry(atlas, "character_down", "a knocked-down character"),
      entry(atlas, "loot", "a loot bag (what a knocked-down character dropped)"),
      swatch("border:2px solid #ffd84a", "the followed or inspected character"),
    ];
    if (opts.marker) overlays.push(swatch("border:2px dashed #ffd84a", "the tile you face (E and B act on it)"));
    if (opts.fog) {
      overlays.push(swatch("background:#000", "never seen"), swatch("background:#3a3a44", "seen before (as it was then)"),
        swatch("background:#7a9a5a", "in sight now"));
    }
    body.replaceChildren(
      group("Ground and resources", tiles.map((n) => entry(atlas, n, pretty(n)))),
      group("Buildings", Object.keys(content.structures || {}).map((n) => entry(atlas, n, pretty(n)))),
      group("Creatures", creatures.map(([n, c]) => entry(atlas, n,
        `${pretty(n)}${c.boss ? " (boss)" : c.hostile ? " (hostile)" : ""}`))),
      group("On the map", overlays),
    );
    node.dataset.entries = String(body.querySelectorAll("li").length);
  }

  fill({});
  fetch("/api/content").then((r) => (r.ok ? r.json() : null)).then((c) => c && fill(c)).catch(() => {});
  return { node, open: () => button.click() };
}
