"""A small Python client for the agent API of a running ASIWorld server (standard library only).

    from asiworld.agents.sdk import Client
    client = Client("http://localhost:8000")
    client.join("ada", label="my-bot")           # -> {"character", "token", ...}
    obs = client.observe()                       # the character's observation (dict)
    client.act({"type": "move", "dir": "n"})      # -> ActionResult dict (ok, code, message, op)
    pid = client.run_program("chop", source)["id"]
    client.program_status(pid); client.cancel(pid)
    client.wait_for_event({"op_done", "program_outcome"}, timeout=30)

HTTP errors with a body `{"error": {code, message}}` raise `ApiError`; a world's refusal of an
action is not an error, it is the ActionResult with `ok: false`. `Client` speaks the agent port
(asiworld.agent_port.AgentPort) over HTTP: a study's in-process seats have the same methods.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from typing import Any

from asiworld.agent_port import ApiError
from asiworld.engine import codes

RATE_LIMIT_RETRIES = 5
DECISION_WAIT = 120.0  # seconds a lockstep study may hold a decision's answer (other turns)
__all__ = ["ApiError", "Client", "ServerUnreachable", "StudyEnded"]


class ServerUnreachable(ApiError):
    """No answer from the server (connection refused, reset or timed out)."""

    def __init__(self, message: str) -> None:
        super().__init__(0, "server_unreachable", message)


class StudyEnded(ApiError):
    """The study this seat plays in reached its horizon (410 study_ended, or its server gone
    after it said so): the agent stops, its work is done."""

    def __init__(self, tick: int | None, status: int = 410) -> None:
        where = f" at tick {tick}" if tick is not None else ""
        super().__init__(status, codes.STUDY_ENDED, f"the study ended{where}")
        self.tick = tick


class Client:
    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        character: int | None = None,
        timeout: float = 15.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.character = character
        self.timeout = timeout
        self.last_seq = 0  # the newest event sequence number seen by events()/wait_for_event()
        self.ended = False  # told the study ended (its event or a 410 study_ended)
        self.ended_at: int | None = None  # the tick it ended at
        self.takes_turns: bool | None = None  # a lockstep study's seat (None: not asked yet)
        self.turn_tick = -1  # the tick of the last turn await_turn returned
        self._offered: dict | None = None  # the next turn a decision's answer carried
        self._reported: dict[str, int] | None = None  # tokens for the next decision

    # --- transport -------------------------------------------------------------------------

    def request(self, method: str, path: str, body: Any = None, query: dict | None = None,
                timeout: float | None = None) -> Any:
        """One call; a 429 (rate limited) is retried after the server's Retry-After."""
        for attempt in range(RATE_LIMIT_RETRIES):
            try:
                return self._request(method, path, body, query, timeout)
            except ServerUnreachable:
                if self.ended:  # told it ended, then the study's server went away
                    raise StudyEnded(self.ended_at, status=0) from None
                raise
            except ApiError as err:
                if err.code == codes.STUDY_ENDED:
                    tick = err.body.get("error", {}).get("tick")
                    self.ended, self.ended_at = True, tick if isinstance(tick, int) else None
                    raise StudyEnded(self.ended_at) from None
                if err.status != 429 or attempt == RATE_LIMIT_RETRIES - 1:
                    raise
                time.sleep(min(5.0, max(0.05, err.retry_after)))
        raise AssertionError("unreachable")

    def _request(self, method: str, path: str, body: Any, query: dict | None,
                 timeout: float | None = None) -> Any:
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=timeout or self.timeout) as reply:
                return json.loads(reply.read() or b"null")
        except urllib.error.HTTPError as err:
            raw = err.read()
            try:
                payload = json.loads(raw)
            except ValueError:
                payload = {}
            error = payload.get("error") if isinstance(payload, dict) else None
            error = error if isinstance(error, dict) else {}
            failure = ApiError(
                err.code,
                error.get("code", codes.HTTP_ERROR),
                error.get("message", raw.decode(errors="replace")[:200] or str(err)),
                payload if isinstance(payload, dict) else None,
            )
            try:
                failure.retry_after = float(err.headers.get("Retry-After") or 0.5)
            except ValueError:
                failure.retry_after = 0.5
            raise failure from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as err:
            raise ServerUnreachable(f"{self.base_url} did not answer: {err}") from None

    def _me(self) -> str:
        if self.character is None or self.token is None:
            raise ApiError(0, codes.NOT_JOINED, "join first (or pass token and character)")
        return f"/api/agents/{self.character}"

    # --- the agent API ---------------------------------------------------------------------

    def join(self, name: str, label: str = "external", join_token: str | None = None) -> dict:
        """A new character; a closed world needs its join token."""
        body = {"name": name, "label": label}
        if join_token is not None:
            body["join_token"] = join_token
        reply = self.request("POST", "/api/agents/join", body)
        self.token, self.character = reply["token"], reply["character"]
        return reply

    def observe(self, format: str = "json") -> dict:
        return self.request("GET", self._me() + "/observe", query={"format": format})

    def act(self, action: dict, tokens: dict[str, int] | None = None) -> dict:
        """On a lockstep study the answer comes when the action acts (its think time later);
        `tokens` (`{"input": n, "output": n}`) reports what your model used for this decision,
        charged as think time by the study's clock rule (none given: those `report_tokens`
        said)."""
        return self._decided(self.request("POST", self._me() + "/act",
                                          _with_tokens({"action": action}, self._tokens(tokens)),
                                          timeout=self.timeout + DECISION_WAIT))

    def run_program(self, name: str, source: str,
                    tokens: dict[str, int] | None = None) -> dict:
        body = _with_tokens({"name": name, "source": source}, self._tokens(tokens))
        return self._decided(self.request("POST", self._me() + "/programs", body,
                                          timeout=self.timeout + DECISION_WAIT))

    def report_tokens(self, input: int, output: int) -> dict[str, int]:
        """The tokens your model used for the decision you are about to make: the next `act`
        or `run_program` carries them (as its `tokens`), for a caller that cannot pass them
        itself (the MCP tools)."""
        self._reported = {"input": int(input), "output": int(output)}
        return dict(self._reported)

    def _tokens(self, tokens: dict[str, int] | None) -> dict[str, int] | None:
        reported, self._reported = self._reported, None
        return tokens if tokens is not None else reported

    def _decided(self, reply: Any) -> Any:
        """On a lockstep study a decision's answer carries the seat's next turn: `next_turn`
        returns it without asking again (one round trip a turn)."""
        if isinstance(reply, dict) and isinstance(reply.get("turn"), dict):
            self._offered = reply["turn"]
        return reply

    def next_turn(self, timeout: float = 30.0, after: int = -1) -> dict | None:
        """On a lockstep study: wait until it is this seat's turn and return it (`{tick,
        deadline, seconds_left}`; `after`: a turn at a later tick only), None after `timeout`
        seconds; ApiError `no_turns` on a clock without turns. Then observe and make one
        decision (an action, a wait, a program)."""
        offered, self._offered = self._offered, None
        if offered is not None and offered["tick"] > after:  # in the last decision's answer
            return offered
        reply = self.request("GET", self._me() + "/next_turn",
                             query={"timeout": timeout, "after": after},
                             timeout=self.timeout + timeout)
        return reply["turn"]

    def program_status(self, pid: int | None = None) -> dict:
        """One program's status, logs and outcome; without an id, all of the character's."""
        if pid is None:
            return self.request("GET", self._me() + "/programs")
        return self.request("GET", self._me() + f"/programs/{int(pid)}")

    def cancel(self, pid: int) -> dict:
        return self.request("DELETE", self._me() + f"/programs/{int(pid)}",
                            timeout=self.timeout + DECISION_WAIT)

    def events(self, after: int | None = None) -> list[dict]:
        """Events concerning the character since `after` (default: since the last call)."""
        after = self.last_seq if after is None else after
        reply = self.request("GET", self._me() + "/events", query={"after": after})
        self.last_seq = max(self.last_seq, reply.get("last", 0))
        for event in reply["events"]:
            if event.get("kind") == "study_ended":
                self.ended, self.ended_at = True, event.get("tick")
        return reply["events"]

    def await_turn(self, timeout: float = 30.0) -> dict | None:
        """Before a decision: on a lockstep study wait for the seat's next turn (None after
        `timeout`); on any other clock return None at once (asked once, then remembered)."""
        if self.takes_turns is False:
            return None
        try:
            turn = self.next_turn(timeout, after=self.turn_tick)
        except ApiError as err:
            if err.code != codes.NO_TURNS:
                raise
            self.takes_turns = False
            return None
        self.takes_turns = True
        if turn is not None:
            self.turn_tick = turn["tick"]
        return turn

    def wait_for_event(
        self,
        kinds: Iterable[str] | None = None,
        timeout: float = 30.0,
        poll: float = 0.25,
        sleep: Callable[[float], None] = time.sleep,
    ) -> dict | None:
        """Poll until an event of one of `kinds` (any kind when None) arrives; None on timeout.
        Events of other kinds that arrive meanwhile are passed over."""
        wanted = set(kinds) if kinds else None
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events():
                if wanted is None or event["kind"] in wanted:
                    return event
            if time.monotonic() >= deadline:
                return None
            sleep(poll)

    def incident(
        self, cause: str, start: int | None = None, end: int | None = None, detail: str = ""
    ) -> dict:
        body = {"cause": cause, "start": start, "end": end, "detail": detail[:500]}
        return self.request("POST", self._me() + "/incidents", body)

    def tick(self) -> int:
        return int(self.request("GET", "/healthz")["tick"])


def _with_tokens(body: dict, tokens: dict[str, int] | None) -> dict:
    return body if tokens is None else {**body, "tokens": tokens}
