"""Headless runs: a world advanced as fast as the machine allows, with built-in agents."""
