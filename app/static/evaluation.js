// /evaluation: the report's tables and charts, drawn from the results JSON of asiworld.evaluation
// (schema asiworld-evaluation/1). For a live world the JSON is fetched again every few seconds.

import { watchHttp, connectionFailed } from "./js/connection.js";

const root = document.getElementById("evaluation");
const RESULTS_URL = root.dataset.resultsUrl;
const CHARACTER_URL = root.dataset.characterUrl;
const LIVE = root.dataset.live === "1";
const REFRESH_MS = 5000;
const STUDY_REFRESH_MS = 1000; // a study on the server: the countdown moves every second

// The stage, category and level lists are the evaluation's own (asiworld.evaluation.definitions),
// handed over by the page, so a stage added there shows here.
const DEFINITIONS = JSON.parse(root.dataset.definitions);
const STAGES = DEFINITIONS.stages;
const CATEGORIES = DEFINITIONS.categories;
const LEVELS = DEFINITIONS.levels.map((l) => String(l.level));
const LEVEL_NAMES = Object.fromEntries(DEFINITIONS.levels.map((l) => [l.level, l.name]));
// The one palette (app/static/palette.json): the server hands each configuration row its colour
// (asiworld.evaluation.palette.with_colours), the same as in every report figure; the categories'
// colours come with the definitions.
const PALETTE = DEFINITIONS.palette;
let colourOf = {};

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "style") node.style.cssText = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function fill(id, header, rows, numeric = new Set()) {
  const table = document.getElementById(id);
  table.replaceChildren(
    el("thead", {}, el("tr", {}, ...header.map((h, i) => el("th", { class: numeric.has(i) ? "num" : "" }, h)))),
    el("tbody", {}, ...(rows.length ? rows : [[el("span", { class: "empty" }, "nothing yet")]]).map(
      (cells) => el("tr", {}, ...cells.map((c, i) => {
        const wrap = c && c.wrap;
        return el("td", { class: (numeric.has(i) ? "num" : "") + (wrap ? " wrap" : "") }, wrap ? c.text : c);
      })),
    )),
  );
}

const minutes = (tick) => (tick === null || tick === undefined ? "–" : (tick / 60).toFixed(1));
const yesNo = (flag) => el("span", { class: flag ? "yes" : "no" }, flag ? "Y" : "N");

// The replay of the world these results assess (the server names it: asiworld.server.evidence),
// once that world has stopped: every score then links to the moment that earned it. An event of
// tick t shows in the replay's frame of t + 1 (after its step), as the viewer's jumps land.
let replay = null;

function momentUrl(tick, char, extra = "") {
  const t = tick === null || tick === undefined ? "" : `t=${tick + 1}&`;
  return `${replay.url}?${t}focus=${encodeURIComponent(char)}${extra}`;
}

// `content` linked to the replay at `tick` (focused on the row's character) when there is one.
function moment(content, row, tick, title, extra = "") {
  if (!replay || tick === null || tick === undefined) return content;
  return el("a", { href: momentUrl(tick, row.id, extra), class: "evidence", title: `${title}: open the replay at tick ${tick}` }, content);
}

function nameCell(row) {
  const href = replay ? momentUrl(null, row.id) : CHARACTER_URL.replace("{id}", encodeURIComponent(row.id));
  const title = replay ? `the replay of this run, following ${row.name}` : (row.label ? `configuration ${row.label}` : "");
  return el("span", {}, el("span", { class: "swatch", style: `background:${colourOf[row.name]}` }),
    el("a", { href, title }, row.name));
}

// The bosses cell: the count, linked to the start of the fight that won the first defeat.
function bossesCell(row) {
  const first = (row.evidence?.bosses || [])[0];
  if (!first) return row.measures.bosses;
  return moment(String(row.measures.bosses), row, first.fight ?? first.defeat,
    `${first.label}${first.fight !== null ? " (from the fight's first blow)" : ""}`);
}

function render(results) {
  const rows = results.configurations || [];
  replay = results.replay && results.replay.settled ? results.replay : null;
  colourOf = Object.fromEntries(rows.map((r) => [r.name, r.colour]));
  const meta = results.meta || {};
  // One clock: "tick 12719 … 12720 ticks run" (the last event's tick beside the world's) read as
  // two. With the world's or the run's tick count, that is the clock; else the last event's tick.
  const shown = [];
  if ("seed" in meta) shown.push(`seed ${meta.seed}`);
  const clock = "ticks" in meta
    ? `assessed over ${meta.ticks} ticks (${"minutes" in meta ? meta.minutes : minutes(meta.ticks)} minutes)`
    : `assessed up to minute ${minutes(results.tick)} (tick ${results.tick})`;
  if ("wall_seconds" in meta) shown.push(`${meta.wall_seconds} s of wall time`);
  if ("state_hash" in meta) shown.push(`state hash ${meta.state_hash}`);
  // Configurations are the agents' kinds; human players are counted apart, however many joined.
  const humans = rows.filter((r) => r.label === "human").length;
  const configurations = new Set(rows.filter((r) => r.label !== "human").map((r) => r.label || r.name)).size;
  const who = [`${configurations} ${configurations === 1 ? "configuration" : "configurations"}`];
  if (humans) who.push(`${humans} human ${humans === 1 ? "player" : "players"}`);
  document.getElementById("eval-meta").replaceChildren(
    [clock, who.join(" and "), ...shown].join(" · ") + (LIVE ? " · live" : ""),
    ...(replay ? [" · ", el("a", { href: replay.url, id: "eval-replay" }, "its replay"),
      " (names, ticks and the bosses, Y and stage cells open the moment that earned them)"] : []));
  countdown(meta.study);

  fill("eval-main",
    ["Rank", "Configuration", "Outfit", "Depth", "Hero", "Kills", "Bosses", "Crafts", "Coins", "Trial", "Downs", "Score"],
    rows.map((r, i) => {
      const m = r.measures;
      return [r.rank, nameCell(r, i), moment(yesNo(m.outfit), r, m.outfit ? m.outfit_tick : null, "the outfit (production task)"),
        m.depth, moment(yesNo(m.hero), r, m.hero ? m.hero_tick : null, "the hero (exploration task)"), m.kills, bossesCell(r),
        m.crafts, m.coins, `${m.trial}/${STAGES.length}`, m.downs, el("strong", {}, r.score_shown)];
    }),
    new Set([0, 3, 5, 6, 7, 8, 9, 10, 11]));

  fill("eval-stages", ["Stage", ...rows.map((r) => r.name), "Met by"],
    STAGES.map((name, s) => [
      `Stage ${s + 1}: ${name}`,
      ...rows.map((r) => {
        const st = r.achievements.stages[s];
        return st.met ? moment(el("span", { class: "met", title: `tick ${st.tick}` }, `✓ ${minutes(st.tick)}`), r, st.tick, `${name} met`) : "–";
      }),
      rows.filter((r) => r.achievements.stages[s].met).length,
    ]));

  fill("eval-curriculum", ["Configuration", "Stages met", "Trial", "Progress", "First unmet stage", "Missing qualification"],
    rows.map((r, i) => {
      const a = r.achievements;
      const pct = (100 * a.trial) / STAGES.length; // k/8 is exact in tenths: 12.5%, as the paper writes it
      const progress = el("span", {}, el("span", { class: "bar" }, el("span", { style: `width:${pct}%` })), `${pct.toFixed(1)}%`);
      const unmet = a.first_unmet;
      // the first unmet stage: the replay's Why tab from the moment it became the goal
      const goal = r.evidence?.goal;
      const since = unmet && goal && goal.stage === unmet.stage ? goal.since : null;
      return [nameCell(r, i), a.coverage.join(", ") || "–", `${a.trial}/${STAGES.length}`, progress,
        unmet ? moment(`Stage ${unmet.stage}: ${unmet.name}`, r, since, `the goal since tick ${since}, with why it stalled`, "&tab=why") : "none (all passed)",
        { wrap: true, text: unmet ? unmet.missing : "–" }];
    }));

  fill("eval-activity", ["Configuration", "Days", "Crafts", "Kills", "Bosses", "Downs", "Damage taken", "Supplies used"],
    rows.map((r, i) => {
      const m = r.measures;
      return [nameCell(r, i), Number(m.days).toFixed(1), m.crafts, m.kills, m.bosses, m.downs, m.damage_taken, m.supplies_used];
    }),
    new Set([1, 2, 3, 4, 5, 6, 7]));

  const incidents = [];
  rows.forEach((r) => r.incidents.forEach((inc) => incidents.push([r.name, inc])));
  (results.world_incidents || []).forEach((inc) => incidents.push(["(world)", inc]));
  fill("eval-incidents", ["Configuration", "Cause", "Start (min)", "End (min)", "Duration (s)"],
    incidents.map(([name, inc]) => [name, inc.cause ?? "?", minutes(inc.start),
      inc.ongoing ? "ongoing" : minutes(inc.end), inc.duration]),
    new Set([2, 3, 4]));

  drawDungeons(document.getElementById("eval-dungeons"), rows);
  drawActions(document.getElementById("eval-actions"), rows);
}

// --- charts ---------------------------------------------------------------------------------

function canvas2d(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth || 600;
  const height = Number(canvas.getAttribute("height")) || 320;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.height = `${height}px`;
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.font = "12px system-ui, sans-serif";
  return { ctx, width, height };
}

const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#999";

function panel(ctx, box, title, rows, value, top, label) {
  const [x0, y0, x1, y1] = box;
  const px0 = x0 + 40, py0 = y0 + 24, px1 = x1 - 4, py1 = y1 - 36;
  ctx.fillStyle = css("--text");
  ctx.textAlign = "center";
  ctx.fillText(title, (x0 + x1) / 2, y0 + 10);
  ctx.textAlign = "right";
  for (let i = 0; i <= 4; i++) {
    const y = py1 - ((py1 - py0) * i) / 4;
    ctx.strokeStyle = css("--line");
    ctx.beginPath(); ctx.moveTo(px0, y); ctx.lineTo(px1, y); ctx.stroke();
    ctx.fillStyle = css("--muted");
    ctx.fillText(label((top * i) / 4), px0 - 6, y + 4);
  }
  const groupW = (px1 - px0) / LEVELS.length;
  const barW = Math.min(26, (groupW - 12) / Math.max(1, rows.length));
  LEVELS.forEach((level, g) => {
    const gx = px0 + g * groupW;
    const start = gx + (groupW - barW * rows.length) / 2;
    rows.forEach((r, n) => {
      const v = value(r.dungeons[level]);
      const bx = start + n * barW;
      if (v === null) return;
      const h = top > 0 ? ((py1 - py0) * Math.min(v, top)) / top : 0;
      ctx.fillStyle = colourOf[r.name];
      ctx.fillRect(bx + 1, py1 - Math.max(h, 1), barW - 2, Math.max(h, 1));
    });
    ctx.fillStyle = css("--text");
    ctx.textAlign = "center";
    ctx.fillText(`Level ${level}`, gx + groupW / 2, py1 + 15);
    ctx.fillStyle = css("--muted");
    if (ctx.measureText(LEVEL_NAMES[level]).width < groupW - 4) {
      ctx.fillText(LEVEL_NAMES[level], gx + groupW / 2, py1 + 29);
    }
  });
}

function drawDungeons(canvas, rows) {
  const { ctx, width, height } = canvas2d(canvas);
  const share = (d) => (d.attempts ? d.clears / d.attempts : null);
  const damage = (d) => (d.clears ? d.clear_damage / d.clears : null);
  let top = 0;
  rows.forEach((r) => LEVELS.forEach((l) => { top = Math.max(top, damage(r.dungeons[l]) || 0); }));
  top = niceCeiling(top);
  const half = width / 2;
  panel(ctx, [0, 0, half - 10, height], "Clear share", rows, share, 1, (v) => `${Math.round(v * 100)}%`);
  panel(ctx, [half + 10, 0, width, height], "Mean damage in clears", rows, damage, top,
    (v) => (Number.isInteger(v) ? String(v) : v.toFixed(1)));
}

function drawActions(canvas, rows) {
  const { ctx, width, height } = canvas2d(canvas);
  const legendW = 120;
  const px0 = 40, py0 = 18, px1 = width - legendW - 8, py1 = height - 24;
  ctx.textAlign = "right";
  for (let i = 0; i <= 4; i++) {
    const y = py1 - ((py1 - py0) * i) / 4;
    ctx.strokeStyle = css("--line");
    ctx.beginPath(); ctx.moveTo(px0, y); ctx.lineTo(px1, y); ctx.stroke();
    ctx.fillStyle = css("--muted");
    ctx.fillText(`${25 * i}%`, px0 - 6, y + 4);
  }
  const slot = (px1 - px0) / Math.max(1, rows.length);
  const barW = Math.min(48, slot * 0.6);
  rows.forEach((r, n) => {
    const total = CATEGORIES.reduce((s, c) => s + (r.actions[c] || 0), 0);
    const cx = px0 + slot * n + slot / 2;
    let y = py1;
    CATEGORIES.forEach((c) => {
      const count = r.actions[c] || 0;
      if (!total || !count) return;
      const h = ((py1 - py0) * count) / total;
      ctx.fillStyle = PALETTE.categories[c];
      ctx.fillRect(cx - barW / 2, y - h, barW, h);
      y -= h;
    });
    ctx.fillStyle = css("--text");
    ctx.textAlign = "center";
    let name = r.name;
    while (name.length > 1 && ctx.measureText(name).width > slot - 6) name = name.slice(0, -1);
    ctx.fillText(name === r.name ? name : `${name.slice(0, -1)}…`, cx, py1 + 15);
  });
  ctx.textAlign = "left";
  [...CATEGORIES].reverse().forEach((c, i) => {
    const ly = py0 + i * 18;
    ctx.fillStyle = PALETTE.categories[c];
    ctx.fillRect(width - legendW, ly, 10, 10);
    ctx.fillStyle = css("--text");
    ctx.fillText(c, width - legendW + 16, ly + 9);
  });
}

// The top of an axis with four equal, round steps (0, 5, 10, 15, 20; never 0, 3, 5, 8, 10).
export function niceCeiling(v) {
  if (!(v > 0)) return 4;
  let unit = 10 ** Math.floor(Math.log10(v / 4));
  for (;;) {
    for (const m of [1, 2, 5]) if (v <= 4 * m * unit) return 4 * m * unit;
    unit *= 10;
  }
}

// A study on the live server (asiworld serve --study): the countdown to its horizon, then where
// its folder was written.
function countdown(study) {
  const line = document.getElementById("eval-countdown");
  line.hidden = !study;
  if (!study) return;
  line.dataset.ticksLeft = String(study.ticks_left);
  line.dataset.finished = study.finished ? "1" : "0";
  const title = study.title ? `${study.title}: ` : "";
  if (study.problem) {
    line.replaceChildren(`${title}${study.problem}`);
  } else if ((study.waiting_for || []).length) {  // synchronised entry: the clock has not started
    line.replaceChildren(`${title}waiting for the external seat(s) `, el("b", {}, study.waiting_for.join(", ")),
      " to make their first call: the clock starts then");
  } else if (study.finished) {
    line.replaceChildren(`${title}the study reached its horizon (tick ${study.horizon}); the world stopped and its results are in `,
      el("b", {}, study.out), study.state_hash ? ` (state hash ${study.state_hash})` : "");
  } else {
    line.replaceChildren(`${title}horizon in `, el("b", { id: "eval-ticks-left" }, `${study.ticks_left} ticks`),
      ` (about ${study.seconds_left} s at ${study.speed} ticks/s; minute ${minutes(study.tick)} of ${minutes(study.horizon)}) · ${study.clock}`);
  }
}

// --- loading --------------------------------------------------------------------------------

let last = null;
let timer = null;
async function load() {
  clearTimeout(timer);
  try {
    const response = await fetch(RESULTS_URL, { cache: "no-store" });
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    last = await response.json();
    render(last);
  } catch (err) {
    if (err instanceof TypeError) connectionFailed(); // no answer at all: the indicator says so
    if (!last) document.getElementById("eval-meta").textContent = `could not load the evaluation: ${err.message}`;
  }
  const study = last && last.meta && last.meta.study;
  if (LIVE) timer = setTimeout(load, study && !study.finished ? STUDY_REFRESH_MS : REFRESH_MS);
}

window.addEventListener("resize", () => { if (last) render(last); });
watchHttp(load); // the server is back: load again at once
load();
