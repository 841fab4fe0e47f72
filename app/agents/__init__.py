"""Agents: built-in configurations, and (later) the SDK, LLM harness, MCP and Gym adapters.
They reach the world only through the interface an outside agent uses: observe, then act."""
