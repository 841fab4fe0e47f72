"""ASIWorld: a persistent survival sandbox for evaluating long-running AI agents."""

__version__ = "0.1.0"
