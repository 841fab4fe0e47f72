"""Agents: the built-in configurations, and the ways an outside agent plays: the SDK, the
model harness, MCP, and the Gymnasium and PettingZoo environments. Every one of them reaches the
world only through the interface an outside agent uses: observe, then act."""
