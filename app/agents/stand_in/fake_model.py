"""A deterministic stand-in model: an OpenAI-compatible chat-completions endpoint for demos and
tests (`asiworld fake-model --port P`).

It plays through tool calls the way the harness's real models do: it reads the observation in
the prompt (the text rendering of docs/agents.md, sent by app/agents/clients/harness.py) and lets a
built-in configuration decide on it (fake_play.py). The model name picks the play:
- `fake-forager` (the default): the built-in forager (a bed, a sword, food; sleeps at night);
- `fake-explorer`: the built-in rusher (a sword, then the dungeons, each handed to the
  steady_clear program when the harness offers programs);
- `fake-programmer`: hands over a gathering program and waits for its outcome (a forager when
  the harness offers no `submit_program`).
A player keeps its notes per game (the request's `user`, which a study sets to the seat's seed
and name, and the character's name) and starts a new game when a prompt's tick goes back, so a lockstep study through it is reproducible (the programmer's answer depends on the
prompt alone).

Faults are injected for a stretch of each character's calls (counted from 1, per character
named in the prompt): `5xx` (a 503), `timeout` (an answer after `stall` seconds, after the
client gave up), `non_json` (200 with an HTML body), `empty_choices`, `truncated` (a tool call
whose arguments are cut off) and `unknown_tool`. `GET /stats` counts requests, answers and
faults per character. A test may instead give a `script`: one step per request
({"tool": (name, args)}, {"status": 500}, {"stall": seconds}, {"text": ...}).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import socket
import threading
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .fake_play import PLAYERS, Player, observation

log = logging.getLogger(__name__)

FAULTS = ("5xx", "timeout", "non_json", "empty_choices", "truncated", "unknown_tool")
PERSONAS = ("fake-forager", "fake-explorer", "fake-programmer")
FOODS = ("cooked_meat", "berry_stew", "berries", "raw_meat")
HOSTILE = {"boar", "shade", "wolf", "skeleton", "slime", "bat"}
STEPS = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}

GATHERER = '''# gather berries and wood near here, eat when hungry; the outcome is the inventory
def nearest(codes):
    view = observe()["view"]
    px, py = position()
    best = None
    for row, line in enumerate(view["tiles"]):
        for col, c in enumerate(line):
            if c in codes:
                x, y = view["x0"] + col, view["y0"] + row
                d = abs(x - px) + abs(y - py)
                if best is None or d < best[0]:
                    best = (d, x, y)
    return best

def main():
    for _ in range(12):
        if me()["hunger"] < 60 and "berries" in inventory():
            eat("berries")
        found = nearest("bT")
        if found is None:
            move_to(position()[0] + 6, position()[1])
            continue
        _, x, y = found
        try:
            move_to(x, y)
            gather(x, y)
        except GameError as e:
            log("skipped", x, y, e.code)
    return inventory()
'''


# --- reading the prompt ------------------------------------------------------------------------

SELF_LINE = re.compile(
    r"^(?P<name>.+?) at \((?P<x>-?\d+), (?P<y>-?\d+)\) area (?P<area>\d+) \| health (?P<health>\d+)"
    r" hunger (?P<hunger>\d+) energy (?P<energy>\d+) coins (?P<coins>\d+)(?P<flags>.*)$",
    re.M,
)
TICK_LINE = re.compile(r"^tick (\d+) \| day (\d+) minute (\d+) \((\w+)\)", re.M)
MAP_LINE = re.compile(r"^map \(top-left is \((-?\d+), (-?\d+)\);")
ENTITY = re.compile(r"(\w+) #(\d+) at \((-?\d+), (-?\d+)\)")


@dataclass
class Seen:
    """What the fake model understood of an observation."""

    name: str = ""
    tick: int = 0
    phase: str = "day"
    x: int = 0
    y: int = 0
    area: int = 0
    hunger: int = 100
    health: int = 100
    asleep: bool = False
    down: bool = False
    doing: bool = False
    inventory: dict[str, int] = field(default_factory=dict)
    tiles: dict[tuple[int, int], str] = field(default_factory=dict)
    entities: list[tuple[str, int, int, int]] = field(default_factory=list)  # kind, id, x, y
    program_running: bool = False
    feedback: list[str] = field(default_factory=list)


def _user(messages: list[dict]) -> str:
    user = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")
    return user if isinstance(user, str) else json.dumps(user)


def _now(messages: list[dict]) -> str:
    """The observation text of the prompt (the harness's `## Now` section)."""
    now = _user(messages).partition("## Memory")[0]
    return now.partition("## Now\n")[2].strip("\n")


def read_prompt(messages: list[dict]) -> Seen:
    now, _, rest = _user(messages).partition("## Memory")
    seen = Seen()
    if (t := TICK_LINE.search(now)) is not None:
        seen.tick, seen.phase = int(t.group(1)), t.group(4)
    if (s := SELF_LINE.search(now)) is not None:
        seen.name = s.group("name")
        seen.x, seen.y, seen.area = int(s.group("x")), int(s.group("y")), int(s.group("area"))
        seen.health, seen.hunger = int(s.group("health")), int(s.group("hunger"))
        seen.asleep, seen.down = "ASLEEP" in s.group("flags"), "DOWN" in s.group("flags")
    lines = now.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("inventory: ") and line != "inventory: empty":
            for part in line[len("inventory: "):].split(", "):
                item, _, count = part.rpartition(" x")
                if count.isdigit():
                    seen.inventory[item] = int(count)
        elif line.startswith("doing: "):
            seen.doing = line != "doing: nothing"
        elif (m := MAP_LINE.match(line)) is not None:
            x0, y0 = int(m.group(1)), int(m.group(2))
            for row, text in enumerate(lines[i + 1:]):
                if text.startswith("legend: "):
                    break
                for col, ch in enumerate(text):
                    if ch != " ":
                        seen.tiles[(x0 + col, y0 + row)] = ch
        elif line.startswith("in view: "):
            for kind, eid, x, y in ENTITY.findall(line):
                seen.entities.append((kind, int(eid), int(x), int(y)))
        elif re.match(r"^program #\d+ .*: running( line \d+)?$", line.rstrip()):
            seen.program_running = True
    recent = rest.partition("## Your recent tool calls and their results")[2]
    seen.feedback = [ln for ln in recent.splitlines() if "->" in ln]
    return seen


# --- choosing ----------------------------------------------------------------------------------


def _digest(*parts: Any) -> int:
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "big")


def _refused(seen: Seen, name: str, args: dict) -> bool:
    """The very same call was refused among the latest results: try something else."""
    shown = json.dumps(args, separators=(",", ":"))[:200]
    return any(ln.startswith(f"{name}({shown}) -> ") and '"ok":false' in ln
               for ln in seen.feedback[-3:])


def _nearest(seen: Seen, codes: str) -> tuple[int, int] | None:
    taken = {(x, y) for _, _, x, y in seen.entities}
    best = None
    for (x, y), ch in seen.tiles.items():
        if ch in codes and (x, y) not in taken:
            key = (abs(x - seen.x) + abs(y - seen.y), y, x)
            if best is None or key < best:
                best = key
    return None if best is None else (best[2], best[1])


def _explore(seen: Seen, reach: int, every: int) -> tuple[str, dict]:
    heading = "nesw"[_digest(seen.name, seen.tick // every) % 4]
    dx, dy = STEPS[heading]
    return "move_to", {"x": max(0, seen.x + dx * reach), "y": max(0, seen.y + dy * reach)}


def choose(seen: Seen, persona: str, tools: set[str]) -> tuple[str, dict]:
    """The tool call for this observation: deterministic, and only tools the harness offers."""
    if seen.down or seen.asleep:
        return "wait", {"ticks": 20}
    if seen.doing:
        return "wait_for_event", {"kinds": ["op_done", "op_failed"], "timeout_seconds": 10}
    for kind, eid, x, y in seen.entities:
        if kind in HOSTILE and max(abs(x - seen.x), abs(y - seen.y)) <= 1:
            return "attack", {"target": eid}
    food = next((f for f in FOODS if seen.inventory.get(f)), None)
    if seen.hunger < 60 and food:
        return "eat", {"item": food}
    if persona == "fake-programmer" and "submit_program" in tools:
        if seen.program_running:
            return "wait_for_event", {"kinds": ["program_outcome"], "timeout_seconds": 30}
        return "submit_program", {"name": "gatherer", "source": GATHERER}
    if persona == "fake-explorer":
        berries = _nearest(seen, "b")
        if berries and abs(berries[0] - seen.x) + abs(berries[1] - seen.y) == 1:
            return "gather", {"x": berries[0], "y": berries[1]}
        return _explore(seen, reach=12, every=90)
    items = seen.inventory
    want = "b" if items.get("berries", 0) < 6 else "T" if items.get("wood", 0) < 10 else "fT"
    target = _nearest(seen, want)
    if target is not None:
        if abs(target[0] - seen.x) + abs(target[1] - seen.y) == 1:
            call = ("gather", {"x": target[0], "y": target[1]})
        else:
            call = ("move_to", {"x": target[0], "y": target[1]})
        if not _refused(seen, *call):
            return call
    return _explore(seen, reach=8, every=40)


# --- answers -----------------------------------------------------------------------------------


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def completion(model: str, key: str, message: dict, prompt: int, finish: str) -> dict:
    """`key` names the answer after the prompt, so the same prompt gets the same bytes."""
    completion_tokens = _tokens(json.dumps(message))
    return {
        "id": f"chatcmpl-fake-{key}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion_tokens,
                  "total_tokens": prompt + completion_tokens},
    }


def tool_message(name: str, args: dict, key: str, raw: str | None = None) -> dict:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{
            "id": f"call_{key}",
            "type": "function",
            "function": {"name": name, "arguments": raw if raw is not None else json.dumps(args)},
        }],
    }


@dataclass(frozen=True)
class Fault:
    kind: str
    first: int
    last: int

    @classmethod
    def parse(cls, spec: str) -> Fault:
        """`KIND:N` or `KIND:A-B` (calls counted from 1 per character)."""
        kind, _, span = spec.partition(":")
        if kind not in FAULTS:
            raise ValueError(f"unknown fault {kind!r}; faults: {', '.join(FAULTS)}")
        first, _, last = span.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            raise ValueError(f"a fault is KIND:N or KIND:A-B with call numbers, not {spec!r}")
        a, b = int(first), int(last or first)
        if a < 1 or b < a:
            raise ValueError(f"calls are counted from 1 and A <= B, not {spec!r}")
        return cls(kind, a, b)


@dataclass
class Reply:
    status: int
    body: bytes
    stall: float = 0.0
    fault: str | None = None
    content_type: str = "application/json"


class FakeModel:
    """The model itself, without HTTP: one request body in, one Reply out."""

    def __init__(self, faults: list[Fault] | None = None, stall: float = 5.0,
                 script: list[dict] | None = None) -> None:
        self.faults = list(faults or [])
        self.stall = stall
        self.script = list(script) if script is not None else None
        self.lock = threading.Lock()
        self.calls: Counter[str] = Counter()  # requests per character
        self.answered: Counter[str] = Counter()
        self.faulted: dict[str, Counter[str]] = defaultdict(Counter)
        self.requests: list[dict] = []
        self.usage: list[dict] = []  # the `usage` of every answer given (faults left out)
        self.players: dict[str, Player] = {}  # "user|character name" -> its built-in player
        # game -> (digest of its last request's messages, the answer): the same request again
        # gets the same answer (see play)
        self.last_answer: dict[str, tuple[str, tuple[str, dict]]] = {}

    def stats(self) -> dict:
        with self.lock:
            return {
                "requests": sum(self.calls.values()),
                "answered": sum(self.answered.values()),
                "by_character": {
                    name: {"requests": n, "answered": self.answered[name],
                           "faults": dict(self.faulted[name])}
                    for name, n in sorted(self.calls.items())
                },
            }

    def answer(self, body: Any) -> Reply:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            return _error(400, "invalid_request_error", "the body needs `messages`, a list")
        seen = read_prompt(body["messages"])
        with self.lock:
            self.requests.append(body)
            self.calls[seen.name] += 1
            number = self.calls[seen.name]
            step = self.script.pop(0) if self.script else None
            if self.script is not None and step is None:
                step = {"text": "nothing to do"}
        model = str(body.get("model", "fake-forager"))
        persona = model if model in PERSONAS else "fake-forager"
        prompt = _tokens(json.dumps(body["messages"]))
        fault = next((f.kind for f in self.faults if f.first <= number <= f.last), None)
        key = hashlib.sha256(json.dumps(body["messages"], sort_keys=True).encode()).hexdigest()[:16]
        if step is not None:
            reply = self._scripted(step, model, key, prompt)
        elif fault is not None:
            reply = self._fault(fault, model, key, prompt)
        else:
            tools = {t.get("function", {}).get("name") for t in body.get("tools") or []}
            session = body.get("user") if isinstance(body.get("user"), str) else None
            msg = tool_message(*self.play(body["messages"], seen, persona, tools, session), key)
            reply = Reply(200, _json(completion(model, key, msg, prompt, "tool_calls")))
        with self.lock:
            if reply.fault is None:
                self.answered[seen.name] += 1
                self.usage.append(json.loads(reply.body).get("usage") or {})
            else:
                self.faulted[seen.name][reply.fault] += 1
        return reply

    def play(self, messages: list[dict], seen: Seen, persona: str,
             tools: set[str], session: str | None = None) -> tuple[str, dict]:
        """A built-in configuration's decision on the prompt's observation (fake_play.py), or
        the simple rules of `choose` for the programmer and for a prompt without one."""
        if persona == "fake-programmer" and "submit_program" not in tools:
            persona = "fake-forager"  # nothing to hand over: it forages itself
        obs = observation(_now(messages)) if persona in PLAYERS else None
        if obs is None:
            return choose(seen, persona, tools)
        game = f"{session}|{seen.name}" if session else seen.name
        # A request asked again (a retry, or a study resumed after a kill lost the answer to
        # its last call) gets the answer it got: deciding again would move the player's notes
        # on a second time, and the resumed study would play differently from an uninterrupted one.
        digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
        with self.lock:
            last = self.last_answer.get(game)
            if last is not None and last[0] == digest:
                return last[1]
            player = self.players.get(game)
            if player is None or player.persona != persona or obs["tick"] < player.tick:
                player = self.players[game] = Player(persona, seen.name)  # a new game
        call = player.decide(obs, seen.feedback, "submit_program" in tools, seen.program_running)
        if call is None or call[0] not in tools:
            if obs["self"]["action"] is not None:  # let the current operation run
                call = "wait_for_event", {"kinds": ["op_done", "op_failed"], "timeout_seconds": 10}
            else:
                call = "wait_for_event", {"timeout_seconds": 5}
        with self.lock:
            self.last_answer[game] = (digest, call)
        return call

    def _fault(self, kind: str, model: str, key: str, prompt: int) -> Reply:
        if kind == "5xx":
            return _error(503, "server_error", "the fake model is told to fail", fault=kind)
        if kind == "timeout":  # an answer that comes after the client stopped waiting
            msg = tool_message("wait", {"ticks": 1}, key)
            return Reply(200, _json(completion(model, key, msg, prompt, "tool_calls")),
                         stall=self.stall, fault=kind)
        if kind == "non_json":
            return Reply(200, b"<html><body>502 Bad Gateway</body></html>", fault=kind,
                         content_type="application/json")
        if kind == "empty_choices":
            data = completion(model, key, {"role": "assistant", "content": ""}, prompt, "stop")
            data["choices"] = []
            return Reply(200, _json(data), fault=kind)
        if kind == "truncated":
            msg = tool_message("move", {}, key, raw='{"dir": "n')
            return Reply(200, _json(completion(model, key, msg, prompt, "length")), fault=kind)
        msg = tool_message("teleport", {"x": 0, "y": 0}, key)
        return Reply(200, _json(completion(model, key, msg, prompt, "tool_calls")), fault=kind)

    def _scripted(self, step: dict, model: str, key: str, prompt: int) -> Reply:
        if "status" in step:
            return _error(step["status"], "server_error", "boom", fault="5xx")
        stall = float(step.get("stall", 0.0))
        if "tool" in step:
            name, args = step["tool"]
            msg, finish = tool_message(name, args, key), "tool_calls"
        else:
            msg, finish = {"role": "assistant", "content": step.get("text", "I wait.")}, "stop"
        return Reply(200, _json(completion(model, key, msg, prompt, finish)), stall=stall,
                     fault="timeout" if stall else None)


def _json(data: Any) -> bytes:
    return json.dumps(data).encode()


def _error(status: int, kind: str, message: str, fault: str | None = None) -> Reply:
    return Reply(status, _json({"error": {"message": message, "type": kind}}), fault=fault)


# --- over HTTP ---------------------------------------------------------------------------------


class FakeModelServer:
    """The fake model on a loopback port (port 0: a free one); `url` is the OpenAI base URL."""

    def __init__(self, model: FakeModel | None = None, host: str = "127.0.0.1",
                 port: int = 0) -> None:
        self.model = model or FakeModel()  # may be replaced between runs (a fresh count)
        self.failures: list[str] = []  # the traceback of each request the model failed on
        owner = self
        open_connections: set[Any] = set()
        self._connections = open_connections

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints do
            # The headers and the body are two writes: with Nagle's algorithm the body waited
            # for the client's delayed ACK of the headers, 40 ms on every answer.
            disable_nagle_algorithm = True

            def setup(self) -> None:
                super().setup()
                open_connections.add(self.connection)

            def finish(self) -> None:
                open_connections.discard(self.connection)
                super().finish()

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/stats"):
                    self._send(Reply(200, _json(owner.model.stats())))
                elif self.path.rstrip("/").endswith("/models"):
                    data = [{"id": p, "object": "model", "owned_by": "asiworld"} for p in PERSONAS]
                    self._send(Reply(200, _json({"object": "list", "data": data})))
                else:
                    self._send(_error(404, "not_found", f"no {self.path}"))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(_error(404, "not_found", f"no {self.path}"))
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._send(_error(400, "invalid_request_error", "the body is not JSON"))
                    return
                try:
                    reply = owner.model.answer(body)
                except Exception as exc:  # noqa: BLE001 - said to the caller, kept, logged
                    # A bug of the stand-in: an answer that says what raised, on a connection
                    # that stays open. Left to socketserver, the connection was dropped without
                    # an answer ("Server disconnected without sending a response") and the
                    # traceback went to a stderr nobody read; answered, CI's next run named
                    # the cause (asiworld.syntax_trees).
                    owner.failures.append(traceback.format_exc())
                    log.exception("the fake model failed on a request")
                    self._send(_error(500, "server_error", "the fake model failed: "
                                      f"{type(exc).__name__}: {str(exc)[:200]}"))
                    return
                if reply.stall:
                    time.sleep(reply.stall)
                self._send(reply)

            def _send(self, reply: Reply) -> None:
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except OSError:  # the client gave up (a timeout)
                    pass

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://{host}:{self.port}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def requests(self) -> list[dict]:
        return self.model.requests

    def stats(self) -> dict:
        return self.model.stats()

    def close(self) -> None:
        """Stop listening and drop the kept-alive connections: the endpoint is gone."""
        self.server.shutdown()
        self.server.server_close()
        for conn in list(self._connections):
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self) -> FakeModelServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
