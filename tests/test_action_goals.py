"""Why a character does what it does, for spectators (issue 34, /live's intent line): the goal a
submitter names travels on the `action` event that starts the op (asiworld.pipeline), never into
the engine. A built-in configuration names the goal that answered, a model seat its tool call;
the agents themselves never read it back, and the state hash is the one without it.

Bad inputs tried: a refused action with a goal (no event, nothing kept for a later op), a goal
longer than a phrase (cut), a non-text goal (made text), an action that is not a dict."""

from __future__ import annotations

from asiworld.agent_port import PipelinePort, tool_call
from asiworld.agents.bots.driver import AgentDriver, BuiltinAgents
from asiworld.agents.bots.goals import GOALS
from asiworld.agents.clients.interface import InterfaceSeat
from asiworld.engine import World
from asiworld.engine.hashing import state_hash
from asiworld.pipeline import GOAL_CHARS, Pipeline


def world_with(name: str = "ada") -> tuple[World, int]:
    world = World.create(seed=3, size=48)
    ada = world.add_character(name)
    world.step()  # it has joined
    return world, ada


def actions_of(events: list[dict]) -> list[dict]:
    return [e for e in events if e["kind"] == "action"]


def test_the_action_event_carries_the_goal_its_submitter_named():
    world, ada = world_with()
    pipeline = Pipeline(world)
    reply = pipeline.submit(ada, {"type": "move", "dir": "n"}, goal="look north for iron")
    assert reply["ok"]
    (started,) = actions_of(pipeline.step().events)
    assert started["goal"] == "look north for iron"
    assert started["op"] == reply["op"]
    # the next action without a goal has none: a goal is not a character's lasting state
    pipeline.submit(ada, {"type": "move", "dir": "s"})
    (second,) = actions_of(pipeline.step().events)
    assert "goal" not in second


def test_the_goal_changes_neither_the_state_hash_nor_what_the_character_observes():
    hashes, observed = [], []
    for goal in (None, "look north for iron"):
        world, ada = world_with()
        pipeline = Pipeline(world)
        pipeline.submit(ada, {"type": "move", "dir": "n"}, goal=goal)
        pipeline.step()
        hashes.append(state_hash(world))
        observed.append(actions_of(pipeline.observe(ada)["events"]))
    assert hashes[0] == hashes[1]
    assert observed[0] == observed[1] and observed[0] and "goal" not in observed[0][0]


def test_a_refused_action_keeps_no_goal_and_a_long_one_is_cut():
    world, ada = world_with()
    pipeline = Pipeline(world)
    refused = pipeline.submit(ada, {"type": "eat", "item": "stone"}, goal="eat a stone")
    assert not refused["ok"]
    events = pipeline.step().events
    assert not actions_of(events)
    assert [e["kind"] for e in events if e.get("char") == ada] == ["refused"]
    pipeline.submit(ada, {"type": "move", "dir": "n"}, goal="x" * 500)
    (started,) = actions_of(pipeline.step().events)
    assert started["goal"] == "x" * GOAL_CHARS
    pipeline.submit(ada, {"type": "move", "dir": "s"}, goal=42)  # not text: said as text
    (started,) = actions_of(pipeline.step().events)
    assert started["goal"] == "42"


def test_every_goal_of_the_strategy_says_its_purpose():
    for name, goal in GOALS.items():
        assert goal.purpose, name
        assert not goal.purpose.startswith("to "), name  # the page says "to" before it


def test_built_in_configurations_name_their_goal_on_their_actions():
    world = World.create(seed=7, size=64)
    pipeline = Pipeline(world)
    agents = pipeline.add_driver(BuiltinAgents())
    ids = {agents.join(pipeline, config, i): config
           for i, config in enumerate(("planner", "forager", "random"))}
    goals: dict[str, set[str]] = {config: set() for config in ids.values()}
    for _ in range(120):
        for ev in actions_of(pipeline.step().events):
            goals[ids[ev["char"]]].add(ev.get("goal"))
    purposes = {goal.purpose for goal in GOALS.values()}
    assert goals["planner"] and goals["planner"] <= purposes  # the goal that answered
    assert goals["forager"] and None not in goals["forager"]
    assert goals["random"] == {"try something at random"}


def test_a_model_seat_names_its_tool_call_and_does_not_read_it_back():
    world, ada = world_with()
    pipeline = Pipeline(world)
    port = PipelinePort(pipeline, ada, tool_calls=True)
    pipeline.add_observer("agents", lambda tick: port.deliver(tick.events))
    x, y = world.entities[ada].x, world.entities[ada].y - 2
    assert port.act({"type": "move_to", "x": x, "y": y})["ok"]
    (started,) = actions_of(pipeline.step().events)
    assert started["goal"] == f"tool call move_to(x={x}, y={y})"
    assert all("goal" not in e for e in port.buffer)
    assert "action" in [e["kind"] for e in port.buffer]
    # any other port (an outside agent's over the API) names nothing
    other = PipelinePort(pipeline, ada)
    other.act({"type": "move", "dir": "s"})
    assert all("goal" not in e for e in actions_of(pipeline.step().events))


def test_a_tool_call_reads_as_the_call():
    assert tool_call({"type": "say", "text": "hi"}) == "tool call say(text='hi')"
    assert tool_call({"type": "pick_up"}) == "tool call pick_up()"
    assert tool_call("move north") is None
    assert tool_call({"dir": "n"}) is None


class Hungry:
    """A study's own agent (asiworld.agents.interface) that says why."""

    intent = "eat before dark"

    def observe(self, observation):
        self.obs = observation

    def decide(self):
        return {"type": "move", "dir": "n"}


def test_a_study_agent_that_keeps_an_intent_names_it():
    world, ada = world_with()
    pipeline = Pipeline(world)
    driver = pipeline.add_driver(AgentDriver())
    driver.add(ada, InterfaceSeat(Hungry(), think_ticks=1), tick=world.tick)
    quiet = Hungry()
    quiet.intent = 42  # not text: nothing said
    bo = world.add_character("bo")
    pipeline.step()
    driver.add(bo, InterfaceSeat(quiet, think_ticks=1), tick=world.tick)
    goals = {}
    for _ in range(3):
        for ev in actions_of(pipeline.step().events):
            goals.setdefault(ev["char"], set()).add(ev.get("goal"))
    assert goals == {ada: {"eat before dark"}, bo: {None}}
