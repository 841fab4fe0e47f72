// The home page: a live summary of the world from GET /api/world, refreshed every 2 s.
import { clockText } from "./panels.js";

const status = document.getElementById("status");
const body = document.querySelector("#roster tbody");
const clock = document.getElementById("clock");

function mini(value, max, color) {
  const v = Math.max(0, Math.min(max, value ?? 0));
  return `<span class="mini"><span style="width:${(100 * v) / max}%;background:${color}"></span></span>${Math.round(v)}`;
}

function escape(text) {
  const d = document.createElement("div");
  d.textContent = text ?? "";
  return d.innerHTML;
}

// The roster as last written: written again only when it changed. Rewriting it every refresh
// replaced its "be the first" link under a keyboard user's focus, which then fell back to the
// page's start.
let shown = null;

async function refresh() {
  try {
    const w = await fetch("/api/world").then((r) => r.json());
    const when = clockText({ day: w.day, minute: w.minute, phase: w.phase }, w.tick);
    clock.textContent = when;
    const pace = w.paused ? "paused" : `${w.speed} ticks/s`;
    status.textContent = `${when} · ${w.characters.length} characters · ${pace}`;
    const roster = w.characters.length
      ? w.characters.map((c) => `<tr><td>${escape(c.name)}${c.down ? " <span class='down'>(down)</span>" : ""}</td>
          <td>${escape(c.label)}</td><td>${mini(c.health, c.max_health || 100, "#e0505a")}</td>
          <td>${mini(c.hunger, 100, "#e0a040")}</td><td>${mini(c.energy, 100, "#50a0f0")}</td>
          <td>${c.coins ?? 0}</td></tr>`).join("")
      : `<tr><td colspan="6" class="empty">no characters yet — <a href="/play">be the first</a></td></tr>`;
    if (roster !== shown) {
      body.innerHTML = roster;
      shown = roster;
    }
  } catch (err) {
    status.textContent = "the server is not answering";
  }
}

refresh();
setInterval(refresh, 2000);
