"""Agents, by audience:

- `bots/`: the built-in configurations (one parameterised strategy, the forager, random), their
  hosted programs, and the driver that runs in-process agents in a pipeline;
- `clients/`: how an outside agent plays: the SDK, the agent interface for your own Python class,
  the LLM harness (tools, prompt, transcript, budget) and the MCP server;
- `envs/`: the Gymnasium and PettingZoo environments;
- `stand_in/`: the deterministic stand-in model for demos and tests.

Every one of them reaches the world only through the interface an outside agent uses: observe,
then act. `asiworld.agents.sdk` and `asiworld.agents.interface` are the public import paths of
the SDK and the agent interface."""
