// The dungeon parts of every map page, written once: what an area is called, a character's
// badges, the boss bar and the landmark captions. /live, /play and the replay viewer each wrote
// their own, and the same instance was "Outer Court", "Outer Court · tier 1" and
// "Outer Court (tier 1)". Names are the content's (GET /api/content's `dungeons`): an area is
// called what content/dungeons.toml calls it. The boss bar's markup and the badges' styles are
// app/templates/_dungeon_ui.html.
import { el, pretty } from "./panels.js";
import { landmarkLabels } from "./render.js";

// Until GET /api/content answers, a page knows tiers by number only.
export const NO_DUNGEONS = Object.freeze({ tiers: {}, sanctum: {} });
const SANCTUM_TIER = 4; // content/dungeons.toml [sanctum] tier, before the content arrives
// Each tier's colour: gate captions here, the area badges in _dungeon_ui.html (.tier-N).
export const TIER_COLOURS = { 1: "#d8d8e0", 2: "#f0cc50", 3: "#c89aff", 4: "#b070ff" };

function sanctumTier(dungeons) {
  return Number((dungeons.sanctum || {}).tier) || SANCTUM_TIER;
}

// The tier of an area from what a frame says of it ({kind, tier}): 0 on the surface, the
// Sanctum's tier for the Sanctum, null for a dungeon whose tier is not known.
export function tierOfArea(dungeons, area) {
  if (!area) return null;
  if (area.kind === "surface") return 0;
  if (area.kind === "sanctum") return sanctumTier(dungeons);
  return area.tier || null;
}

// What the game calls an area of this tier: "Surface", the tier's name ("Outer Court"), the
// Sanctum's ("Shadow Sanctum"). Before the content arrives: "Tier 2 dungeon"; with no tier
// known (a /play reload inside, nothing in view yet): "Dungeon".
export function areaName(dungeons, tier) {
  if (tier === 0) return "Surface";
  if (!tier) return "Dungeon";
  if (tier === sanctumTier(dungeons) && dungeons.sanctum && dungeons.sanctum.name) return dungeons.sanctum.name;
  const spec = (dungeons.tiers || {})[String(tier)];
  return spec && spec.name ? spec.name : `Tier ${tier} dungeon`;
}

// The Shadow Sanctum, by the content's name for it.
export function sanctumName(dungeons) {
  return areaName(dungeons, sanctumTier(dungeons));
}

// One instance among several, as the area menu lists it: "Surface", or
// "Outer Court #3 — ada, bob" (its id, and who is inside).
export function instanceTitle(dungeons, areaId, tier, who = []) {
  if (String(areaId) === "0") return areaName(dungeons, 0);
  return `${areaName(dungeons, tier)} #${areaId}${who.length ? ` — ${who.join(", ")}` : ""}`;
}

// The sigils a character holds: an observation lists them (`sigils`), an entity of a frame
// only has its inventory.
function sigilsHeld(dungeons, c) {
  if (Array.isArray(c.sigils)) return c.sigils;
  const offering = (dungeons.sanctum || {}).offering || ["outer_sigil", "inner_sigil", "royal_sigil"];
  return offering.filter((s) => (c.inventory || []).some((it) => it.item === s && it.count > 0));
}

// A character's badges: where it is (coloured by tier), T-coins, the sigils held, the Sanctum
// open, and the tasks done. opts: tier (of its area; null = a dungeon of unknown tier),
// areaTitle (the area badge's tooltip), sanctumOpen, sanctumHint (what the page adds to the
// open badge's tooltip).
export function badgeRow(atlas, dungeons, c, { tier = 0, areaTitle = null, sanctumOpen = false, sanctumHint = "" } = {}) {
  const area = el("span", { class: `badge area tier-${tier || 0}` }, areaName(dungeons, tier));
  if (areaTitle) area.title = areaTitle;
  const row = el("div", { class: "badges" }, area,
    el("span", { class: "badge coins", title: "T-coins" }, atlas.icon("coin"), ` ${c.coins ?? 0}`));
  for (const sigil of sigilsHeld(dungeons, c)) {
    row.append(el("span", { class: "badge sigil", title: pretty(sigil) }, atlas.icon(sigil)));
  }
  if (sanctumOpen) {
    const title = `offered the sigils: the ${sanctumName(dungeons)} is open${sanctumHint}`;
    row.append(el("span", { class: "badge sanctum", title }, atlas.icon("altar"), " open"));
  }
  const tasks = c.tasks || {};
  if (tasks.production != null) row.append(el("span", { class: "badge task", title: `travel outfit made (tick ${tasks.production})` }, atlas.icon("travel_outfit"), " outfit"));
  if (tasks.exploration != null) row.append(el("span", { class: "badge task hero", title: `Shadow King defeated (tick ${tasks.exploration})` }, atlas.icon("crown"), " hero"));
  return row;
}

// The bar at the top of the map (#boss-bar of _dungeon_ui.html): the boss, where it is, its
// health and its second phase; hidden when boss is null. Which boss a page shows is its own
// business (what its viewer can see).
export function showBossBar(boss, where) {
  const bar = document.getElementById("boss-bar");
  bar.classList.toggle("hidden", !boss);
  if (!boss) return;
  const frac = Math.max(0, Math.min(1, boss.health / (boss.max_health || 1)));
  document.getElementById("boss-name").textContent = `${pretty(boss.kind)} · ${where}${boss.phase === 2 ? " · phase 2" : ""}`;
  document.getElementById("boss-fill").style.width = `${(100 * frac).toFixed(1)}%`;
  document.getElementById("boss-hp").textContent = `${boss.health} / ${boss.max_health}`;
  bar.classList.toggle("phase-2", boss.phase === 2);
  bar.dataset.boss = boss.kind;
}

// The captions of an area's landmarks for Renderer.draw's opts.labels: on the surface the
// gates by their tier's name, the altar and the merchant; inside, the entrance and the exit.
// opts: openFor (names of those who opened the Sanctum: said on the altar), keys (add the key
// that leaves, for the player), hide (["x,y"] where a caption would cover a character's name).
export function landmarkCaptions(state, areaId, dungeons, { openFor = [], keys = false, hide = [] } = {}) {
  const names = {};
  if (String(areaId) === "0") {
    for (const [tier, spec] of Object.entries(dungeons.tiers || {})) {
      names[spec.gate] = { text: areaName(dungeons, Number(tier)), color: TIER_COLOURS[tier] };
    }
    const altar = openFor.length ? `Altar — open for ${openFor.join(", ")}` : "Altar";
    names.altar = { text: altar, color: TIER_COLOURS[sanctumTier(dungeons)] };
    names.merchant = { text: "Merchant", color: "#ffd84a" };
  } else {
    const q = keys ? " (Q)" : "";
    names.entrance = { text: `Entrance${q}`, color: "#d8d8e0" };
    names.portal_closed = { text: "Exit (sealed)", color: "#9a9db0" };
    names.portal_open = { text: `Exit portal${q}`, color: "#c89aff" };
  }
  const hidden = new Set(hide);
  return landmarkLabels(state, areaId, names).filter((l) => !hidden.has(`${l.x},${l.y}`));
}
