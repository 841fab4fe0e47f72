"""A reader of the LaTeX tables the report writes, strict enough to stand in for pdflatex where
no TeX is installed: what would break a paper's build or its table is reported as a sentence.

    problems(text)   # [] for a sound booktabs tabular
"""

from __future__ import annotations

import re

# an unescaped special character: not after a backslash
SPECIAL = re.compile(r"(?<!\\)[&%$#_^~{}]")
ROW_END = re.compile(r"(?<!\\)\\\\")
CELL = re.compile(r"(?<!\\)&")
COMMAND = re.compile(r"\\(begin|end)\{([^}]*)\}")


def strip_comments(text: str) -> str:
    """What TeX reads: everything from an unescaped % to the end of its line dropped."""
    return "\n".join(re.split(r"(?<!\\)%", line, maxsplit=1)[0] for line in text.splitlines())


def columns(spec: str) -> int:
    """How many columns a tabular spec declares (l, c, r, p{..}; rules and @{} ignored)."""
    spec = re.sub(r"@\{[^}]*\}", "", spec)
    spec = re.sub(r"[pmb]\{[^}]*\}", "l", spec)
    return sum(ch in "lcr" for ch in spec)


def problems(text: str) -> list[str]:
    found = []
    body = strip_comments(text)
    depth = 0
    for ch in re.sub(r"\\[{}]", "", body):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            found.append("a } closes no {")
            depth = 0
    if depth:
        found.append(f"{depth} {{ left open")
    stack = []
    for kind, name in COMMAND.findall(body):
        if kind == "begin":
            stack.append(name)
        elif not stack or stack.pop() != name:
            found.append(f"\\end{{{name}}} does not close the environment open")
    if stack:
        found.append(f"environments left open: {stack}")
    if len(re.findall(r"(?<!\\)\$", body)) % 2:
        found.append("an odd number of $: math mode left open")
    rules = re.findall(r"\\(toprule|midrule|bottomrule)\b", body)
    if rules != ["toprule", "midrule", "bottomrule"]:
        found.append(f"booktabs rules {rules}, not toprule, midrule, bottomrule")
    spec = re.search(r"\\begin\{tabular\}\{([^}]*)\}", body)
    if spec is None:
        return [*found, "no \\begin{tabular}{...}"]
    if "\\begin{table}" in body or "\\documentclass" in body:
        found.append("more than a tabular: a paper \\inputs the tabular into its own table")
    want = columns(spec.group(1))
    inner = body[spec.end():body.index("\\end{tabular}")]
    inner = re.sub(r"\\(toprule|midrule|bottomrule)\b", "", inner)
    rows = [r.strip() for r in ROW_END.split(inner)]
    if rows[-1]:
        found.append(f"text after the last row's \\\\: {rows[-1]!r}")
    for row in rows[:-1]:
        cells = CELL.split(row)
        if len(cells) != want:
            found.append(f"{len(cells)} cells where the spec has {want}: {row!r}")
        for cell in cells:
            plain = re.sub(r"\$[^$]*\$", "", cell)  # math: $-$, $\Delta$
            plain = re.sub(r"\\[A-Za-z]+\{|\\[A-Za-z]+|\\.", "", plain)  # commands, escapes
            plain = plain.replace("{", "").replace("}", "")
            if SPECIAL.search(plain):
                found.append(f"an unescaped special character in {cell.strip()!r}")
    return found
