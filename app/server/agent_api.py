"""The agent API: how agents outside the server (SDK, LLM harness, MCP, bots) play a character.

It is the agent port (asiworld.agent_port) over REST and Socket.IO: every request about a
character is answered by that character's `PipelinePort`; what is here is the transport —
tokens, HTTP statuses, the numbered event buffers. REST under /api/agents (documented at /api/openapi.json) and the Socket.IO namespace /agent.
An agent joins with a name and a configuration label and receives its character id and a token;
every later call carries `Authorization: Bearer TOKEN`, and a token acts for its own character
only. Only a sha256 of each token is kept.

Every world read or change runs on the WorldRunner's thread (`runner.call`), and the agents'
programs are stepped by the pipeline's tick (the program host every agent shares), so the engine
never sees two threads. Events concerning a
joined character are kept in a short numbered buffer (polled with `?after=SEQ`) and pushed to the
character's Socket.IO room.
"""

from __future__ import annotations

import re
import threading
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

from asiworld.agent_port import EVENTS_KEPT, PROGRAM_ENDS, PipelinePort, program_outcome
from asiworld.engine import codes
from asiworld.pipeline import Pipeline, Tick
from asiworld.programs.manager import ProgramManager
from asiworld.realtime import WorldRunner
from asiworld.server.auth import new_token, token_hash
from asiworld.server.errors import ApiError, error_body
from asiworld.server.extensions import AGENTS, services, socketio
from asiworld.server.joining import character_count, join_gate
from asiworld.server.openapi import spec
from flask import Blueprint, Flask, Response, current_app, g, jsonify, request
from flask.typing import ResponseReturnValue
from flask_socketio import ConnectionRefusedError, join_room

NAMESPACE = "/agent"
NAME_PATTERN = re.compile(r"^[A-Za-z0-9_\- ]{1,24}$")
LABEL_PATTERN = re.compile(r"^[A-Za-z0-9_.\-]{1,32}$")
INCIDENT_CAUSE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
# Engine refusals that mean "this request is malformed", not "the world says no".
MALFORMED_CODES = (codes.UNKNOWN_ACTION, codes.BAD_ARGUMENT)
MAX_TURN_WAIT = 120  # seconds a next_turn call may wait

agent_api = Blueprint("agent_api", __name__)


@dataclass
class AgentSeat:
    char: int
    name: str
    label: str
    token_hash: str
    events: deque = field(default_factory=lambda: deque(maxlen=EVENTS_KEPT))


class AgentService:
    """Seats, tokens, the event buffers and the programs of agents joined through the API."""

    def __init__(self, runner: WorldRunner, socketio: Any) -> None:
        self.runner = runner
        self.socketio = socketio
        self.seats: dict[int, AgentSeat] = {}  # char -> seat
        self.by_token: dict[str, int] = {}  # sha256(token) -> char
        self.sid_char: dict[str, int] = {}  # socket id -> char
        self.calls: Counter[int] = Counter()  # char -> authorised requests and connections
        self.failures: Counter[int] = Counter()  # char -> its authorised requests answered 4xx/5xx
        self.seq = 0
        # (char, program id) of programs whose end is not yet reported
        self._open_programs: set[tuple[int, int]] = set()
        self._lock = threading.Lock()  # guards the event buffers and the token table
        # Numbered events a server's store has not saved yet (None: nothing saves them).
        self.unsaved: list[dict] | None = None
        # A study's horizon: from then on every call is answered 410 study_ended
        self.ended_at: int | None = None
        self.ended_seq: dict[int, int] = {}  # char -> the seq of its study_ended event
        self.told: set[int] = set()  # the seats that have been answered study_ended
        # A lockstep study's turns (asiworld.study.turns): every world-changing call of a
        # seat is its turn's decision, done at a tick the turns fix. None: act at any time.
        self.turns: Any = None
        # A study's clock and horizon (asiworld.study.external), for a human seat's page
        self.study: dict[str, Any] | None = None
        runner.pipeline.add_observer("agents", self.on_tick, on_replace=self.world_replaced)

    @property
    def programs(self) -> ProgramManager:
        """The pipeline's program host, shared with the built-in agents."""
        return self.runner.pipeline.programs

    def world_replaced(self, pipeline: Pipeline) -> None:
        """A fork: the old world's agent seats and tokens are dropped (their character ids now
        name other characters); its programs ended with it."""
        with self._lock:
            self.seats.clear()
            self.by_token.clear()
            self._open_programs.clear()

    # --- identity --------------------------------------------------------------------------

    def join(self, name: str, label: str) -> tuple[int, str]:
        cid = self.runner.add_character(name=name, label=label)
        return cid, self.seat(cid, name, label)

    def seat(self, cid: int, name: str, label: str) -> str:
        """A token for a character already in the world (a study's external seat, made at
        tick 0 with the others); `join` is a new character and this."""
        token = new_token()
        digest = token_hash(token)
        with self._lock:
            self.seats[cid] = AgentSeat(char=cid, name=name, label=label, token_hash=digest)
            self.by_token[digest] = cid
        return token

    def end(self, tick: int) -> None:
        """A study's horizon (any thread): every seat gets a `study_ended` event, then every
        agent call is answered 410 study_ended for as long as this server answers."""
        with self._lock:
            if self.ended_at is not None:
                return
            numbered = []
            for cid in sorted(self.seats):
                self.seq += 1
                self.ended_seq[cid] = self.seq
                numbered.append({"kind": "study_ended", "tick": tick, "char": cid,
                                 "seq": self.seq})
            self.ended_at = tick
        # not through `unsaved`: the end is no event of the world, nothing replays it
        self.publish(numbered)

    def refuse_if_ended(self, token: str | None, reading_events_after: int | None = None) -> None:
        """410 study_ended once the study's horizon came. `reading_events_after`: a poll of
        the events that has not reached its `study_ended` event yet is still answered."""
        ended = self.ended_at
        if ended is None:
            return
        with self._lock:
            cid = self.by_token.get(token_hash(token)) if token else None
            last = self.ended_seq.get(cid) if cid is not None else None
            if (reading_events_after is not None and last is not None
                    and reading_events_after < last):
                return
            if cid is not None:
                self.told.add(cid)
        raise ApiError(codes.STUDY_ENDED, f"the study ended at tick {ended}", tick=ended)

    def knows(self, token: str) -> bool:
        """Whether `token` is an agent token of this server (no call is counted)."""
        with self._lock:
            return token_hash(token) in self.by_token

    def char_for(self, token: str | None) -> int | None:
        """The character a token acts for; each answer counts as one call of that seat
        (`calls`: a study holds its clock until every external seat has called)."""
        if not token:
            return None
        with self._lock:
            cid = self.by_token.get(token_hash(token))
            if cid is not None:
                self.calls[cid] += 1
            return cid

    # --- world access (the port runs it on the runner thread) -------------------------------

    def port(self, cid: int) -> PipelinePort:
        """Character `cid`'s agent port; the programs it starts are watched for their end."""
        return PipelinePort(
            self.runner.pipeline,
            cid,
            call=self.runner.call,
            lockstep=False,
            started=lambda pid: self._open_programs.add((cid, pid)),
        )

    def observe(self, cid: int, fmt: str = "json", full_memory: bool = False) -> dict:
        if full_memory:  # every tile the character remembers (a page drawing its fog of war)
            obs = self.runner.call(lambda: self.runner.pipeline.observe(cid, full_memory=True))
            if isinstance(obs.get("memory"), dict):  # when each tile was seen: no page draws it
                obs["memory"].pop("ticks", None)
        else:
            obs = self.port(cid).observe(fmt)
        if self.turns is not None:
            obs["turn"] = self.turns.offer(cid)
        return obs

    def decided(self, cid: int, run: Any, tokens: dict[str, int] | None = None,
                record: dict[str, Any] | None = None) -> Any:
        """A world-changing call: now, or on a lockstep study as the seat's turn's decision
        (`tokens`, the seat's reported `{input, output}`, set its think charge; `record`, the
        call as `redo` makes it again)."""
        if self.turns is None:
            return run()
        try:
            return self.turns.decide(cid, run, tokens, answer_turn=True, record=record)
        except ApiError as err:  # a decision the horizon came before: the seat is told
            if err.code == codes.STUDY_ENDED:
                self.told.add(cid)
            raise

    def act(self, cid: int, action: dict, tokens: dict[str, int] | None = None) -> dict:
        port = self.port(cid)
        return self.decided(cid, lambda: port.act(action), tokens,
                            {"op": "act", "action": action})

    def submit_program(self, cid: int, name: str, source: str,
                       tokens: dict[str, int] | None = None) -> dict:
        port = self.port(cid)
        return self.decided(cid, lambda: port.run_program(name, source), tokens,
                            {"op": "program", "name": name, "source": source})

    def cancel(self, cid: int, pid: int) -> dict:
        port = self.port(cid)
        return self.decided(cid, lambda: port.cancel(pid), record={"op": "cancel", "pid": pid})

    def redo(self, cid: int, record: dict[str, Any]) -> Any:
        """The call a kept decision (asiworld.study.decisions) was, to be made again in a
        resumed lockstep study's replay."""
        port = self.port(cid)
        if record["op"] == "act":
            return lambda: port.act(record["action"])
        if record["op"] == "program":
            return lambda: port.run_program(record["name"], record["source"])
        return lambda: port.cancel(int(record["pid"]))

    def next_turn(self, cid: int, timeout: float, after: int = -1) -> dict:
        """Wait for the seat's turn on a lockstep study (409 no_turns on any other clock)."""
        if self.turns is None:
            raise ApiError(codes.NO_TURNS, "this world's clock takes no turns: act at any time")
        return {"turn": self.turns.wait_for_turn(cid, timeout, after)}

    def push_turn(self, cid: int, offer: dict) -> None:
        """A lockstep turn opened (the study's thread): a seat connected over Socket.IO is
        pushed its observation, whose `turn` says it is its turn."""
        if cid in self.sid_char.values():
            obs = self.port(cid).observe("json")
            obs["turn"] = offer  # the turn that opened (its decision may have come already)
            self.socketio.emit("observation", obs, to=room(cid), namespace=NAMESPACE)

    def incident(
        self, cid: int, cause: str, start: int | None, end: int | None, detail: str
    ) -> dict:
        """Queue an incident for the world's event stream (stamped with the next tick), saved
        by a server's store before it is acknowledged."""
        return self.port(cid).incident(cause, start, end, detail)

    # --- events ----------------------------------------------------------------------------

    def on_tick(self, info: Tick) -> None:
        """The pipeline's "agents" observer (runner thread): every event concerning a joined
        character is numbered, enters its buffer and its Socket.IO room. With a store that
        saves them (`unsaved` is a list), they are handed over first and published only once
        saved (`publish`), so a number an agent saw is never given again after a restart."""
        seats = self.seats
        # program ends too may concern a seat revoked meanwhile (live.kick): skip those
        mine = [e for e in info.events + self._program_ends(info.tick) if e.get("char") in seats]
        if not mine:
            return
        with self._lock:
            numbered = []
            for event in mine:
                self.seq += 1
                numbered.append({**event, "seq": self.seq})
        if self.unsaved is not None:
            self.unsaved.extend(numbered)
        else:
            self.publish(numbered)

    def publish(self, numbered: list[dict]) -> None:
        """Numbered events into their characters' buffers and rooms (runner thread)."""
        with self._lock:
            numbered = [e for e in numbered if e["char"] in self.seats]
            for event in numbered:
                self.seats[event["char"]].events.append(event)
        for event in numbered:
            self.socketio.emit("event", event, to=room(event["char"]), namespace=NAMESPACE)

    def _program_ends(self, tick: int) -> list[dict]:
        ends = []
        for cid, pid in sorted(self._open_programs):
            record = self.programs.record(cid, pid)
            if record is None or record.status in PROGRAM_ENDS:
                self._open_programs.discard((cid, pid))
            if record is not None and record.status in PROGRAM_ENDS:
                ends.append(program_outcome(record, tick))
        return ends

    def events_after(self, cid: int, after: int, limit: int = 200) -> dict:
        with self._lock:
            seat = self.seats[cid]
            events = [e for e in seat.events if e["seq"] > after][:limit]
            return {"events": events, "last": events[-1]["seq"] if events else max(after, 0)}


def room(cid: int) -> str:
    return f"agent-{cid}"


# --- request helpers -----------------------------------------------------------------------


def _service() -> AgentService:
    return current_app.extensions[AGENTS]


def _bearer() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def _authorise(cid: int, events_after: int | None = None) -> AgentService:
    """The study must not have ended (410), the token must be known (401) and belong to this
    character (403)."""
    service = _service()
    token = _bearer()
    service.refuse_if_ended(token, events_after)
    if token is None:
        raise ApiError(codes.MISSING_TOKEN, "send the agent token as 'Authorization: Bearer TOKEN'")
    owner = service.char_for(token)
    if owner is None:
        raise ApiError(codes.UNKNOWN_TOKEN, "this agent token is not known here: join first")
    if owner != cid:
        raise ApiError(codes.NOT_YOUR_CHARACTER, f"this token acts for character {owner} only")
    g.agent_char = cid  # its answer, if an error, is one of this seat's failures
    return service


@agent_api.after_request
def _count_failure(response: Response) -> Response:
    """A study's cost table shows each external seat's failed calls: an authorised request
    answered with an error (a malformed action, a refused program, a bad argument)."""
    cid = g.get("agent_char")
    if cid is not None and response.status_code >= 400:
        _service().failures[cid] += 1
    return response


def _body() -> dict:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise ApiError(codes.BAD_JSON, "the request body must be a JSON object")
    return data


def _text(body: dict, key: str, pattern: re.Pattern, code: str, what: str,
          default: str | None = None) -> str:
    value = body.get(key, default)
    if not isinstance(value, str) or not pattern.match(value.strip()):
        raise ApiError(code, what)
    return value.strip()


def _action(body: dict) -> dict:
    action = body.get("action")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise ApiError(codes.BAD_ACTION, "`action` must be an object with a string `type`")
    return action


def _int_arg(name: str, default: int) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ApiError(codes.BAD_ARGUMENT, f"`{name}` must be a whole number", 422) from None


# --- routes --------------------------------------------------------------------------------


@agent_api.get("/api/openapi.json")
def openapi_spec() -> ResponseReturnValue:
    return jsonify(spec())


@agent_api.post("/api/agents/join")
def join() -> ResponseReturnValue:
    body = _body()
    name = _text(body, "name", NAME_PATTERN, codes.BAD_NAME,
                 "a name is 1 to 24 letters, digits, spaces, - or _")
    label = _text(
        body,
        "label",
        LABEL_PATTERN,
        codes.BAD_LABEL,
        "a label is 1 to 32 letters, digits, '.', '-' or '_'",
        default="external",
    )
    service = _service()
    service.refuse_if_ended(None)
    cid, token = join_gate(current_app).admit(  # JoinRefused is answered like any CodedError
        body.get("join_token"),
        lambda: character_count(service.runner),
        lambda: service.join(name, label),
    )
    return jsonify({"character": cid, "name": name, "label": label, "token": token}), 201


@agent_api.get("/api/agents/<int:cid>/observe")
def observe(cid: int) -> ResponseReturnValue:
    service = _authorise(cid)
    fmt = request.args.get("format", "json")
    if fmt not in ("json", "text"):
        raise ApiError(codes.BAD_FORMAT, "format is 'json' or 'text'")
    full = request.args.get("full_memory") in ("1", "true")
    return jsonify(service.observe(cid, "json" if full else fmt, full_memory=full))


@agent_api.post("/api/agents/<int:cid>/act")
def act(cid: int) -> ResponseReturnValue:
    service = _authorise(cid)
    body = _body()
    action = _action(body)
    try:
        result = service.act(cid, action, _tokens(body))
    except (TypeError, ValueError, KeyError) as err:  # the engine should refuse, not raise
        raise ApiError(codes.BAD_ACTION, f"the engine could not read this action: {err}") from err
    if not result["ok"] and result["code"] in MALFORMED_CODES:
        raise ApiError(result["code"], result["message"], 422)  # a refusal, whatever its code
    return jsonify(result)


@agent_api.post("/api/agents/<int:cid>/programs")
def submit_program(cid: int) -> ResponseReturnValue:
    service = _authorise(cid)
    body = _body()
    name, source = body.get("name"), body.get("source")
    if not isinstance(name, str) or not isinstance(source, str):
        raise ApiError(codes.BAD_PROGRAM, "a program needs `name` and `source` (text)")
    reply = service.submit_program(cid, name, source, _tokens(body))
    if not reply.get("ok"):
        extra = {"line": reply["line"]} if reply.get("line") is not None else {}
        raise ApiError(reply["code"], reply["message"], 422, **extra)
    return jsonify(reply), 201


@agent_api.get("/api/agents/<int:cid>/programs")
def list_programs(cid: int) -> ResponseReturnValue:
    return jsonify(_authorise(cid).port(cid).program_status())


@agent_api.get("/api/agents/<int:cid>/programs/<int:pid>")
def program_status(cid: int, pid: int) -> ResponseReturnValue:
    # another character's program: 404 unknown_program, as an unused id (the port's answer)
    return jsonify(_authorise(cid).port(cid).program_status(pid))


@agent_api.delete("/api/agents/<int:cid>/programs/<int:pid>")
def cancel_program(cid: int, pid: int) -> ResponseReturnValue:
    reply = _authorise(cid).cancel(cid, pid)
    if not reply.get("ok"):
        raise ApiError(reply["code"], reply["message"], 409)
    return jsonify(reply)


@agent_api.get("/api/agents/<int:cid>/next_turn")
def next_turn(cid: int) -> ResponseReturnValue:
    service = _authorise(cid)
    raw = request.args.get("timeout", "30")
    try:
        timeout = float(raw)
    except ValueError:
        timeout = -1.0
    if not 0 <= timeout <= MAX_TURN_WAIT:
        raise ApiError(codes.BAD_ARGUMENT, f"`timeout` is seconds from 0 to {MAX_TURN_WAIT}", 422)
    reply = service.next_turn(cid, timeout, _int_arg("after", -1))
    service.refuse_if_ended(_bearer())  # woken by the end: say so
    return jsonify(reply)


def _tokens(body: dict) -> dict[str, int] | None:
    """The tokens a seat reports with its decision (checked at the edge: endpoints.TOKENS)."""
    tokens = body.get("tokens")
    return tokens if isinstance(tokens, dict) else None


@agent_api.get("/api/agents/<int:cid>/events")
def events(cid: int) -> ResponseReturnValue:
    after = _int_arg("after", 0)
    service = _authorise(cid, events_after=after)
    limit = _int_arg("limit", 200)
    if not 1 <= limit <= 500:
        raise ApiError(codes.BAD_ARGUMENT, "`limit` is between 1 and 500", 422)
    return jsonify(service.events_after(cid, after, limit))


@agent_api.post("/api/agents/<int:cid>/incidents")
def incident(cid: int) -> ResponseReturnValue:
    service = _authorise(cid)
    body = _body()
    cause = body.get("cause")
    if not isinstance(cause, str) or not INCIDENT_CAUSE.match(cause):
        raise ApiError(codes.BAD_CAUSE, "`cause` is a snake_case word, e.g. model_error")
    start, end = body.get("start"), body.get("end")
    for key, code, value in (("start", codes.BAD_START, start), ("end", codes.BAD_END, end)):
        if value is not None and (type(value) is not int or value < 0):
            raise ApiError(code, f"`{key}` is a tick (a whole number >= 0) or null")
    if start is not None and end is not None and end < start:
        raise ApiError(codes.BAD_END, "`end` comes before `start`")
    detail = body.get("detail", "")
    if not isinstance(detail, str) or len(detail) > 500:
        raise ApiError(codes.BAD_DETAIL, "`detail` is text of at most 500 characters")
    return jsonify({"ok": True, "incident": service.incident(cid, cause, start, end, detail)}), 201


# --- Socket.IO /agent ----------------------------------------------------------------------


def _socket_fail(code: str, message: str) -> dict:
    return error_body(ApiError(code, message))


def _ended_answer(service: AgentService, cid: int) -> dict | None:
    if service.ended_at is None:
        return None
    service.told.add(cid)
    return error_body(ApiError(codes.STUDY_ENDED, f"the study ended at tick {service.ended_at}",
                               tick=service.ended_at))


def register_socket_handlers(socketio: Any) -> None:
    """The /agent namespace: connect with `auth={"token": ...}`; `observe` and `act` answer as
    acknowledgements; events arrive as `event` messages."""

    @socketio.on("connect", namespace=NAMESPACE)
    def on_connect(auth: Any = None) -> None:
        token = auth.get("token") if isinstance(auth, dict) else None
        cid = _service().char_for(token if isinstance(token, str) else None)
        if cid is None:
            raise ConnectionRefusedError("unknown_token: connect with auth={'token': TOKEN}")
        _service().sid_char[request.sid] = cid
        join_room(room(cid))

    @socketio.on("disconnect", namespace=NAMESPACE)
    def on_disconnect(*_: Any) -> None:
        _service().sid_char.pop(request.sid, None)

    @socketio.on("observe", namespace=NAMESPACE)
    def on_observe(data: Any = None) -> dict:
        service = _service()
        cid = service.sid_char.get(request.sid)
        fmt = data.get("format", "json") if isinstance(data, dict) else "json"
        if cid is None:
            return _socket_fail(codes.UNKNOWN_TOKEN, "connect with a token first")
        if (ended := _ended_answer(service, cid)) is not None:
            return ended
        if fmt not in ("json", "text"):
            return _socket_fail(codes.BAD_FORMAT, "format is 'json' or 'text'")
        return {"ok": True, "observation": service.observe(cid, fmt)}

    @socketio.on("act", namespace=NAMESPACE)
    def on_act(data: Any = None) -> dict:
        service = _service()
        cid = service.sid_char.get(request.sid)
        if cid is None:
            return _socket_fail(codes.UNKNOWN_TOKEN, "connect with a token first")
        if (ended := _ended_answer(service, cid)) is not None:
            return ended
        try:
            body = data if isinstance(data, dict) else {}
            return service.act(cid, _action(body), _tokens(body))
        except ApiError as exc:
            return _socket_fail(exc.code, exc.message)
        except (TypeError, ValueError, KeyError) as err:
            return _socket_fail(codes.BAD_ACTION, f"the engine could not read this action: {err}")

    @socketio.on("next_turn", namespace=NAMESPACE)
    def on_next_turn(data: Any = None) -> dict:
        """As GET next_turn: `{turn}` once it is the seat's turn (`timeout`, `after`)."""
        service = _service()
        cid = service.sid_char.get(request.sid)
        if cid is None:
            return _socket_fail(codes.UNKNOWN_TOKEN, "connect with a token first")
        if (ended := _ended_answer(service, cid)) is not None:
            return ended
        body = data if isinstance(data, dict) else {}
        try:
            reply = service.next_turn(cid, float(body.get("timeout", 30)),
                                      int(body.get("after", -1)))
        except ApiError as exc:
            return _socket_fail(exc.code, exc.message)
        return _ended_answer(service, cid) or {"ok": True, **reply}


def init_agent_api(app: Flask) -> None:
    """Attach the agent API to an app made by create_app (after socketio.init_app)."""
    # socketio.on() binds to the current Socket.IO server only, and init_app makes a new server
    # per app, so the namespace is registered once per server.
    if NAMESPACE not in getattr(socketio.server, "handlers", {}):
        register_socket_handlers(socketio)
    service = AgentService(services(app).runner, socketio)
    app.extensions[AGENTS] = service
    app.register_blueprint(agent_api)
