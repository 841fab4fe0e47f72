# steady_clear: clear the dungeon tier you are in without taking hits: fight what comes, open the
# chests on the way, defeat the boss, pick up its sigil, then leave through the exit.
#
# Dungeon enemies and bosses act every second tick, and a character's actions resolve before the
# creatures' in each tick. So: strike an adjacent enemy on a tick it cannot act, and on a tick it
# can, stand where it is not adjacent (one step back). An enemy's rhythm is learnt by watching it
# move or strike. A direct-action agent deciding every few ticks cannot keep this beat; a program
# runs on the world clock and can. This is the "Steadiness" stage of the curriculum (a solo Tier 2
# or 3 clear with at most 30 damage and one supply, or none at all).
#
# Submit it while standing inside a tier (after `enter`), e.g. through the agent API:
#   POST /api/agents/<id>/programs {"name": "steady", "source": <this file>}
# The outcome says whether the boss fell, the damage taken and the ticks it took.

STEPS = [["n", 0, -1], ["s", 0, 1], ["e", 1, 0], ["w", -1, 0]]
WALK = ":EoO;"  # dungeon floor, entrance, exit portal, sanctum floor
RHYTHM = 2  # ticks between an enemy's turns
CHEST_DETOUR = 8  # chests seen within this many tiles are opened on the way (coins, supplies)
PATIENCE = 8  # ticks of an enemy near but never adjacent before walking up to it

tiles = {}  # (x, y) -> tile character, everything seen in this instance
acted = {}  # enemy id -> a tick on which it moved or struck
last_pos = {}  # enemy id -> where it was last tick
quiet = {}  # enemy id -> our turns beside it while it never acted
opened = set()  # chests opened (or out of reach)
trail = []  # our way back, newest last
NOBODY = set()  # no one in the way: for plans that look past the creatures of the moment
route = {"to": None, "path": []}  # the walk under way: its purpose and the tiles, next first
state = {"ready": 0, "boss_dead": False, "standoff": 0, "last_me": None, "events_tick": -1,
         "start_tick": tick(), "sigils": len(me()["sigils"]), "health": me()["health"],
         "hurt": 0}


def cheb(a, b):
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def free(p, occupied):
    return tiles.get(p, " ") in WALK and p not in occupied


def learn(obs, here, now):
    # The map is read only after a move and never in a fight: reading a whole view costs a few
    # hundred steps, and a fight must fit in one tick's budget (1,000 steps) to keep the beat.
    fighting = any(
        e.get("hostile") and cheb(here, (e["x"], e["y"])) <= 3 for e in obs["entities"]
    )
    if (state["last_me"] != here and not fighting) or not tiles:
        view = obs["view"]
        x0, y0 = view["x0"], view["y0"]
        for row, line in enumerate(view["tiles"]):
            for col, c in enumerate(line):
                if c != " ":
                    tiles[(x0 + col, y0 + row)] = c
                    if c == "O":
                        state["boss_dead"] = True
    # newest events first; stop at what was read last tick
    for e in reversed(obs["events"]):
        if e["tick"] <= state["events_tick"]:
            break
        if e["kind"] == "attacked" and e.get("attacker") is not None:
            acted[e["attacker"]] = e["tick"]
        elif e["kind"] == "boss_defeated":
            state["boss_dead"] = True
    if obs["events"]:
        state["events_tick"] = obs["events"][-1]["tick"]
    health = obs["self"]["health"]
    if health < state["health"]:  # our own count of the damage taken (health falls only by it)
        state["hurt"] = state["hurt"] + state["health"] - health
    state["health"] = health
    # Events can be missed (an agent reading the same character's observation takes them), so
    # the boss's fall is also seen in its sigil arriving in the pack, or the exit portal open.
    if len(obs["self"]["sigils"]) > state["sigils"]:
        state["boss_dead"] = True
    for e in obs["entities"]:
        if e.get("boss"):
            state["boss_at"] = (e["x"], e["y"])
        if e.get("hostile"):
            p = (e["x"], e["y"])
            if last_pos.get(e["id"], p) != p:
                acted[e["id"]] = now - 1
            last_pos[e["id"]] = p
    state["last_me"] = here
    if here in trail:
        del trail[trail.index(here) + 1:]
    else:
        trail.append(here)


def acts_now(e, now):
    a = acted.get(e["id"])
    if a is None:
        # never seen to act: careful at first, but one that stays beside us without striking
        # (it does not see us) is simply fought
        return quiet.get(e["id"], 0) < 2
    return (now - a) % RHYTHM == 0


def room(p, here, hostiles, occupied, depth=5):
    """How much floor lies open from p, away from the enemies (dead ends score low)."""
    seen = {p}
    edge = [p]
    for _ in range(depth):
        nxt = []
        for a in edge:
            for s in STEPS:
                n = (a[0] + s[1], a[1] + s[2])
                if n in seen or n == here or not free(n, occupied):
                    continue
                if any(cheb(n, h) <= 1 for h in hostiles):
                    continue
                seen.add(n)
                nxt.append(n)
        edge = nxt
    return len(seen)


def can_escape(p, hostiles, occupied):
    """Whether from p one step gets out of every enemy's reach."""
    for s in STEPS:
        q = (p[0] + s[1], p[1] + s[2])
        if free(q, occupied) and all(cheb(q, h) >= 2 for h in hostiles):
            return True
    return False


def walk_to(here, goal, occupied, limit=100000):
    """A shortest walk over known floor to any tile of goal, as a list of tiles (None if there
    is none within `limit` tiles searched)."""
    prev = {here: None}
    queue = [here]
    i = 0
    found = None
    while i < len(queue) and i < limit:
        p = queue[i]
        i += 1
        if p in goal and p != here:
            found = p
            break
        for s in STEPS:
            n = (p[0] + s[1], p[1] + s[2])
            if n not in prev and free(n, occupied):
                prev[n] = p
                queue.append(n)
    if found is None:
        return None
    path = []
    while found != here:
        path.append(found)
        found = prev[found]
    path.reverse()
    return path


def direction(here, p):
    for s in STEPS:
        if (here[0] + s[1], here[1] + s[2]) == p:
            return s[0]
    return None


def step_toward(here, goal, occupied, limit=100000):
    """The first step of a shortest walk to goal."""
    path = walk_to(here, goal, occupied, limit)
    return None if not path else direction(here, path[0])


def best_step(here, hostiles, danger, occupied, need_escape):
    best = None
    for s in STEPS:
        p = (here[0] + s[1], here[1] + s[2])
        if not free(p, occupied) or any(cheb(p, d) <= 1 for d in danger):
            continue
        if need_escape and not can_escape(p, hostiles, occupied):
            continue
        score = room(p, here, hostiles, occupied)
        if best is None or score > best[0]:
            best = [score, s[0]]
    return None if best is None else best[1]


def go(purpose, goal, here, occupied):
    """Walk toward goal one step a tick along a path planned once per purpose (searching the
    map every tick would spend the program's steps). False when goal cannot be reached.
    The plan goes through creatures: one standing in a corridor is met there (and fought)."""
    path = route["path"]
    if route["to"] != purpose or not path or direction(here, path[0]) is None:
        route["to"] = purpose
        route["path"] = path = walk_to(here, goal, NOBODY) or []
    if not path:
        route["to"] = None
        return False
    move(direction(here, path.pop(0)))
    return True


def ring_around(p, r):
    """The tiles at exactly Chebyshev distance r from p."""
    out = set()
    for dx in range(-r, r + 1):
        for dy in range(-r, r + 1):
            if max(abs(dx), abs(dy)) == r:
                out.add((p[0] + dx, p[1] + dy))
    return out


def strike(adjacent, now):
    target = min(adjacent, key=lambda e: e["health"])
    attack(target["id"])
    state["ready"] = now + 2


def turn():
    """One tick's decision; returns "done" once out through the exit."""
    obs = observe()
    now = tick()
    here = position()
    learn(obs, here, now)
    occupied = set((e["x"], e["y"]) for e in obs["entities"])
    enemies = [e for e in obs["entities"] if e.get("hostile")]
    spots = [(e["x"], e["y"]) for e in enemies]
    danger = [(e["x"], e["y"]) for e in enemies if acts_now(e, now)]
    close = [e for e in enemies if cheb(here, (e["x"], e["y"])) <= 1]
    for e in close:
        if e["id"] not in acted:
            quiet[e["id"]] = quiet.get(e["id"], 0) + 1
    ready = now >= state["ready"]
    if close:
        state["standoff"] = 0
    elif enemies:  # (an enemy slipping in and out of view keeps the count)
        state["standoff"] = state["standoff"] + 1

    if close and any(acts_now(e, now) for e in close):
        # its turn comes after ours: be out of reach when it does
        way = best_step(here, spots, danger, occupied, False)
        if way is not None:
            move(way)
        elif ready:
            strike(close, now)
        else:
            wait(1)
        return None
    if close:
        # it cannot act this tick: strike, unless we would then be cornered on its turn
        if ready and can_escape(here, spots, occupied):
            strike(close, now)
            return None
        if not can_escape(here, spots, occupied):
            way = best_step(here, spots, danger, occupied, True)
            if way is not None:
                move(way)
                return None
        if ready:
            strike(close, now)
        else:
            wait(1)
        return None
    if enemies:
        nearest = min(enemies, key=lambda e: cheb(here, (e["x"], e["y"])))
        at = (nearest["x"], nearest["y"])
        coming = acted.get(nearest["id"]) is not None and now - acted[nearest["id"]] <= RHYTHM
        if state["standoff"] < PATIENCE and cheb(here, at) <= 3 and coming:
            # it is on its way: wait for it where there is room to back away
            mine = room(here, here, spots, occupied)
            if mine < 12:
                way = best_step(here, spots, danger, occupied, False)
                if way is not None:
                    move(way)
                    return None
            wait(1)
            return None
        state["quarry"] = at  # if it slips out of sight, go on to where it was
        ring = 1 if state["standoff"] >= PATIENCE else 2
        way = step_toward(here, ring_around(at, ring), occupied, 150)
        if way is None:
            wait(1)
        else:
            move(way)
        return None
    # no enemy in sight: open the chests close by (coins and supplies), and once the boss is down
    # pick up its sigil and leave through the exit; until then, explore
    chest = None
    for p in tiles:
        if tiles[p] == "C" and p not in opened and cheb(here, p) <= CHEST_DETOUR:
            if chest is None or cheb(here, p) < cheb(here, chest):
                chest = p
    if chest is not None:
        if cheb(here, chest) <= 1:
            opened.add(chest)
            gather(chest[0], chest[1])
            return None
        if go(("chest", chest), ring_around(chest, 1), here, occupied):
            return None
        opened.add(chest)  # out of reach
    if state["boss_dead"]:  # (a full pack leaves the sigil in a bag where the boss fell)
        for bag in obs["loot"]:
            if any(item.endswith("_sigil") for item in bag["items"]):
                spot = (bag["x"], bag["y"])
                if cheb(here, spot) <= 1:
                    pick_up()
                    return None
                if go(("sigil", spot), set([spot]), here, occupied):
                    return None
    if state["boss_dead"]:  # out through the exit

        if tiles.get(here) == "O":
            leave()
            for e in reversed(observe()["events"]):
                if e["kind"] == "dungeon_left":
                    state["record"] = e
                    break
            return "done"
        exits = set(p for p in tiles if tiles[p] == "O")
        if exits and go("exit", exits, here, occupied):
            return None
    elif state.get("quarry") is not None:  # an enemy we were walking up to slipped away
        if cheb(here, state["quarry"]) <= 1:
            state["quarry"] = None
        elif go(("quarry", state["quarry"]), ring_around(state["quarry"], 1), here, occupied):
            return None
        else:
            state["quarry"] = None
    if not state["boss_dead"] and state.get("boss_at") is not None:  # seen before: back to it
        if cheb(here, state["boss_at"]) <= 2:
            state["boss_at"] = None  # not there any more: look for it
        elif go(("boss", state["boss_at"]), ring_around(state["boss_at"], 2), here, occupied):
            return None
    # the nearest known floor tile next to the unknown
    frontier = route["path"][-1:] if route["to"] == "explore" else []
    if not frontier:
        frontier = set()
        for p in tiles:
            if tiles[p] in WALK:
                for s in STEPS:
                    if (p[0] + s[1], p[1] + s[2]) not in tiles:
                        frontier.add(p)
                        break
    if go("explore", set(frontier), here, occupied):
        return None
    wait(10)  # nothing reachable left to do: look again in a while
    return None

def main():
    while True:
        try:
            if turn() == "done":
                break
        except GameError as e:  # refused (answered in the same tick): look again and retry
            log("refused:", e.code, e.message)
    # the engine's own record of the expedition (what the curriculum is assessed on), or, when an
    # agent observing this character took that event first, our own count
    record = state.get("record")
    if record is None:
        return {"cleared": state["boss_dead"], "damage": state["hurt"], "supplies": 0,
                "ticks": tick() - state["start_tick"], "from": "own count"}
    return {
        "tier": record.get("tier"),
        "cleared": record.get("cleared"),
        "damage": record.get("damage"),
        "supplies": record.get("supplies"),
        "ticks": tick() - state["start_tick"],
        "from": "expedition record",
    }
