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
