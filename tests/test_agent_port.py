"""One agent port, three transports: the SDK's HTTP client, a study's in-process seats and the
server's REST API speak the same operations, and a seat's text observation is the REST one."""

from __future__ import annotations

import inspect

from asiworld.agent_port import AgentPort, PipelinePort
from asiworld.agents.sdk import Client
from asiworld.server import services

CONFIG = {"SEED": 7, "WORLD_SIZE": 64, "TESTING": True, "PROGRAMS_IN_PROCESS": True}
IDLER = """
def main():
    log("on watch")
    while True:
        wait(5)
"""


def operations() -> list[str]:
    return sorted(
        name for name, value in vars(AgentPort).items()
        if callable(value) and not name.startswith("_")
    )


def differences(cls: type) -> list[str]:
    """How `cls` departs from the port: a missing operation, or one whose parameters (names,
    kinds, defaults, annotations, in order) or answer differ. A transport may add parameters of
    its own after the port's, with defaults (the SDK's polling interval)."""
    found = []
    for name in operations():
        if not callable(getattr(cls, name, None)):
            found.append(f"{name}: missing")
            continue
        port, own = inspect.signature(getattr(AgentPort, name)), inspect.signature(getattr(cls, name))
        shared, extra = list(own.parameters.values())[: len(port.parameters)], list(
            own.parameters.values()
        )[len(port.parameters):]
        if shared != list(port.parameters.values()):
            found.append(f"{name}{own} is not {name}{port}")
        if own.return_annotation != port.return_annotation:
            found.append(f"{name} answers {own.return_annotation}, not {port.return_annotation}")
        if any(p.default is inspect.Parameter.empty for p in extra):
            found.append(f"{name}: a parameter beyond the port's without a default")
    return found


def test_the_sdk_client_and_the_in_process_port_have_the_ports_operations():
    assert operations() == [
        "act", "cancel", "events", "incident", "observe", "program_status", "run_program",
        "tick", "wait_for_event",
    ]
    assert differences(Client) == []
    assert differences(PipelinePort) == []


def test_a_transport_that_renames_or_drops_an_operation_is_seen():
    class Drifted(PipelinePort):
        def observe(self, fmt: str = "json") -> dict:  # renamed parameter
            return {}

        def tick(self) -> float:  # another answer
            return 0.0

    Drifted.cancel = None  # dropped
    assert differences(Drifted) == [
        "cancel: missing",
        "observe(self, fmt: 'str' = 'json') -> 'dict' is not observe(self, format: 'str' = "
        "'json') -> 'dict'",
        "tick answers float, not int",
    ]


def test_every_transport_is_an_agent_port_at_run_time(apps):
    app = apps.create(dict(CONFIG))
    service = app.extensions["asiworld_agents"]
    cid, _ = service.join("ada", "tester")
    assert isinstance(service.port(cid), AgentPort)
    assert isinstance(Client("http://127.0.0.1:9", token="t", character=cid), AgentPort)
    assert isinstance(PipelinePort(services(app).runner.pipeline, cid), AgentPort)


def running_program_world(apps) -> tuple[object, int, dict]:
    """A served world where ada's program is on watch (running, with a log line)."""
    app = apps.create(dict(CONFIG))
    http = app.test_client()
    joined = http.post("/api/agents/join", json={"name": "ada", "label": "tester"}).get_json()
    cid, auth = joined["character"], {"Authorization": f"Bearer {joined['token']}"}
    http.post(f"/api/agents/{cid}/act", json={"action": {"type": "move", "dir": "s"}},
              headers=auth)
    services(app).runner.step(3)  # the move done: its op_done is news in the observation
    reply = http.post(f"/api/agents/{cid}/programs", json={"name": "watch", "source": IDLER},
                      headers=auth)
    assert reply.status_code == 201, reply.get_json()
    services(app).runner.step(4)
    return app, cid, auth


def test_a_study_seat_reads_the_text_observation_the_rest_api_gives_for_the_same_world(apps):
    app, cid, auth = running_program_world(apps)
    rest = app.test_client().get(f"/api/agents/{cid}/observe?format=text", headers=auth)
    twin, twin_cid, _ = running_program_world(apps)  # the same world: the same seed, the same calls
    seat = PipelinePort(services(twin).runner.pipeline, twin_cid)  # as a lockstep study seats it
    from_seat = seat.observe("text")
    assert twin_cid == cid
    assert "program #1 watch: waiting line 5" in from_seat["text"]
    assert "  log: on watch" in from_seat["text"] and "op_done" in from_seat["text"]
    assert from_seat["text"] == rest.get_json()["text"]
    assert app.json.loads(app.json.dumps(from_seat)) == rest.get_json()
