"""A new player's first game on /play, driven only by what the page shows: the goals, the map
(where the trees are), the faced-tile hint, the Build and Craft lists and the message of a tree
that is used up. Shared by e2e/test_play_guide.py (at 20 ticks/s) and
benchmarks/bench_first_pickaxe.py (at `serve --play`'s 2, timed)."""

from __future__ import annotations

from playwright.sync_api import expect

# Where to stand to face the nearest tree the player has seen, and the key that faces it: read
# off the page's own view (what the map draws), as a player reads the map.
NEAREST_TREE = """(skip) => {
  const v = window.__asiworld.view, me = v.self, area = v.areas["0"];
  const open = new Set(["grass", "sand", "ground", "path"]);
  let best = null;
  for (let y = 1; y < area.h - 1; y++) for (let x = 1; x < area.w - 1; x++) {
    if (v.legend[area.tiles[y * area.w + x]] !== "tree" || skip.includes(`${x},${y}`)) continue;
    for (const [dx, dy, key] of [[0, 1, "w"], [0, -1, "s"], [1, 0, "a"], [-1, 0, "d"]]) {
      const sx = x + dx, sy = y + dy;
      if (!open.has(v.legend[area.tiles[sy * area.w + sx]])) continue;
      const d = Math.abs(sx - me.x) + Math.abs(sy - me.y);
      if (!best || d < best.d) best = { x: sx, y: sy, key, tree: `${x},${y}`, d };
    }
  }
  return best;
}"""

# A tile near the player from which one step (the key) faces open ground to build on.
OPEN_STEP = """() => {
  const v = window.__asiworld.view, me = v.self, area = v.areas["0"];
  const open = (x, y) => ["grass", "sand", "ground"].includes(v.legend[area.tiles[y * area.w + x]]) &&
    !Object.values(v.entities).some((e) => e.x === x && e.y === y && e.kind !== "character") &&
    !v.structures.some((st) => st.x === x && st.y === y);
  for (let r = 0; r <= 4; r++) for (let dy = -r; dy <= r; dy++) for (let dx = -r; dx <= r; dx++) {
    const x = me.x + dx, y = me.y + dy;
    if (Math.max(Math.abs(dx), Math.abs(dy)) !== r || !(r === 0 || open(x, y))) continue;
    for (const [sx, sy, key] of [[0, 1, "s"], [0, -1, "w"], [1, 0, "d"], [-1, 0, "a"]]) {
      if (open(x + sx, y + sy) && open(x + 2 * sx, y + 2 * sy)) return { x, y, key };
    }
  }
  return null;
}"""

WOOD = "(window.__asiworld.view.self.inventory.find((i) => i.item === 'wood') || {count: 0}).count"


def make_a_wooden_pickaxe(page) -> None:
    """From a seated player with nothing to a crafted wooden pickaxe: gather 7 wood from the
    nearest trees in sight, build a workbench on open ground, craft the pickaxe."""
    expect(page.locator("#goals li.next")).to_contain_text("Make a workbench")
    used_up: list[str] = []
    while page.evaluate(WOOD) < 7:
        spot = page.evaluate(NEAREST_TREE, used_up)
        for key in "dddddddddd" if not spot else "":  # none in sight: walk out of the plaza
            was = page.evaluate("window.__asiworld.view.self.x")
            page.keyboard.press(key)
            page.wait_for_function(f"window.__asiworld.view.self.x !== {was}", timeout=15000)
            spot = page.evaluate(NEAREST_TREE, used_up)
            if spot:
                break
        assert spot, "no tree in sight"
        page.evaluate(f"window.__asiworld.act({{type: 'move_to', x: {spot['x']}, y: {spot['y']}}})")
        # there, or idle elsewhere once the walk had time to start: no way to that tree
        since = page.evaluate("performance.now()")
        page.wait_for_function(
            f"(s => !s.action && (s.x === {spot['x']} && s.y === {spot['y']} || performance.now() > {since} + 3000))"
            "(window.__asiworld.view.self)", timeout=60000)
        if page.evaluate(f"(s => s.x !== {spot['x']} || s.y !== {spot['y']})(window.__asiworld.view.self)"):
            used_up.append(spot["tree"])
            continue
        page.keyboard.press(spot["key"])  # a tree blocks the way: the key only turns
        expect(page.locator("#face-hint")).to_contain_text("Facing a tree · E: gather wood")
        while page.evaluate(WOOD) < 7:
            before = page.evaluate(WOOD)
            page.keyboard.press("e")
            page.wait_for_function(
                f"{WOOD} > {before} || /used up/.test(document.getElementById('message').textContent)",
                timeout=30000)
            if page.evaluate(WOOD) == before:  # the tree gave all its wood
                expect(page.locator("#message")).to_contain_text(
                    "The tree is used up: it gave all its wood. Find another tree.")
                used_up.append(spot["tree"])
                break
    # a step onto open ground, facing more open ground: build the workbench there
    step = page.evaluate(OPEN_STEP)
    assert step, "no open ground near the trees"
    page.evaluate(f"window.__asiworld.act({{type: 'move_to', x: {step['x']}, y: {step['y']}}})")
    page.wait_for_function(
        f"(s => s.x === {step['x']} && s.y === {step['y']} && !s.action)(window.__asiworld.view.self)",
        timeout=30000)
    was = f"{step['x']},{step['y']}"
    page.keyboard.press(step["key"])
    page.wait_for_function(f"(s => `${{s.x}},${{s.y}}` !== '{was}')(window.__asiworld.view.self)", timeout=15000)
    page.keyboard.press("b")
    workbench = page.locator("#build-list li").first
    expect(workbench).to_have_attribute("data-structure", "workbench")
    workbench.click()
    page.wait_for_function("window.__asiworld.view.structures.some((st) => st.kind === 'workbench')",
                           timeout=30000)
    expect(page.locator("#goals li[data-goal=workbench]")).to_have_attribute("data-done", "1", timeout=30000)
    page.keyboard.press("c")
    pickaxe = page.locator("#craft-list li").first
    expect(pickaxe).to_have_attribute("data-recipe", "wooden_pickaxe")
    pickaxe.click()
    expect(page.locator("#goals li[data-goal=pickaxe]")).to_have_attribute("data-done", "1", timeout=30000)
