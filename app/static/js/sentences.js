// The engine's refusal sentences, told to the player: the engine names the character in the
// third person and items by id ("ux tester can sleep only next to a bed of its own", "cannot
// craft wooden_pickaxe: needs 3 wood (have 1)"), because agents read them too. The play page
// says them to a person: "You can sleep only next to a bed of your own", "You cannot craft a
// wooden pickaxe: you need 3 wood (you have 1)". Codes are untouched (the API keeps them).

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const article = (noun) => (/^[aeiou]/i.test(noun) ? "an" : "a");

export function readable(id) {
  return String(id ?? "").replace(/\b([a-z0-9]+(?:_[a-z0-9]+)+)\b/g, (m) => m.replace(/_/g, " "));
}

export function toPlayer(message, name) {
  let s = readable(message || "");
  if (name) s = s.replace(new RegExp(`(^|[^\\w-])${escapeRegExp(name)}(?![\\w-])`, "g"), "$1you");
  s = s.replace(/\bcannot craft (?!an? |the |\d)([a-z ]+?):/, (_m, item) => `cannot craft ${article(item)} ${item}:`);
  s = s.replace(/^cannot\b/, "you cannot");
  s = s.replace(/: needs\b/, ": you need").replace(/\(have (\d+)\)/g, "(you have $1)");
  s = s.replace(/\byou has\b/g, "you have").replace(/\byou is\b/g, "you are").replace(/\byou was\b/g, "you were").replace(/\byou's\b/g, "your")
    .replace(/\bits own\b/g, "your own").replace(/\bitself\b/g, "yourself");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// --- a refusal told to a spectator --------------------------------------------------------
// An op that failed as it ran (`op_failed`: char, type, code, message), as one English sentence:
// "builder-3 could not attack: nothing to attack there", never the engine's "there is no attack
// 60 here" (written for agents, with ids). The reason comes from the code; a code without one
// says the engine's sentence, readable and without entity ids.

const VERB = {
  move: "move", move_to: "walk there", gather: "gather", craft: "craft", place: "build",
  dismantle: "dismantle", install_lock: "install the lock", lock: "lock the door",
  unlock: "unlock the door", attack: "attack", eat: "eat", use: "use it", equip: "equip it",
  unequip: "unequip it", give: "give it", drop: "drop it", pick_up: "pick up the loot",
  buy: "buy", sleep: "sleep", wake: "wake", enter: "enter the dungeon", leave: "leave the dungeon",
  offer: "make the offering", say: "speak", wait: "wait",
};

const REASON = {
  no_target: (type) => `nothing to ${(type || "act on").replace(/_/g, " ")} there`,
  not_adjacent: () => "it is too far away",
  no_path: () => "there is no way there",
  blocked: () => "the way is blocked",
  nothing_to_gather: () => "nothing is left to gather there",
  needs_tool: () => "it needs a better tool",
  missing_materials: () => "it lacks the materials",
  needs_station: () => "it needs the station within reach",
  inventory_full: () => "its pack is full",
  cooldown: () => "it cannot strike again yet",
  peaceful: () => "characters cannot fight each other here",
  asleep: () => "it is asleep",
  character_down: () => "it is knocked down",
};

export function couldNot(ev, name) {
  const verb = VERB[ev.type] || readable(ev.type || "act").replace(/_/g, " ");
  const reason = REASON[ev.code] ? REASON[ev.code](ev.type) : engineReason(ev.message, name);
  return reason ? `${name} could not ${verb}: ${reason}` : `${name} could not ${verb}`;
}

// The engine's sentence, readable: "shade 60 at (3, 4) is not next to ..." -> "the shade at (3, 4) ..."
function engineReason(message, name) {
  let s = readable(message || "").trim();
  s = s.replace(/\b([a-z]+) \d+ at \(/g, "the $1 at ("); // the engine's "KIND ID at (x, y)"
  if (name) s = s.replace(new RegExp(`(^|[^\\w-])${escapeRegExp(name)}(?![\\w-])`, "g"), "$1it");
  return s;
}
