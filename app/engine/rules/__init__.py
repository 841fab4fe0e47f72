"""The rules, one module per kind of action. Each registers its handlers with `actions`."""
