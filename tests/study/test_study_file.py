"""The study file: the example `study new` writes is valid, and every bad file tried (unknown
kind, missing model, duplicate names, minutes <= 0, unreadable TOML, unknown key, wrong type,
unknown built-in, missing python agent, no configuration, no world) is refused with a stable
code and the line of the key, before anything starts."""

from __future__ import annotations

import pytest
from asiworld.cli import main
from asiworld.study.lines import locate
from asiworld.study.spec import (
    BuiltinConfiguration,
    Lockstep,
    OpenAIConfiguration,
    StudyError,
    example_text,
    load_study,
    parse_study,
)

GOOD = """\
title = "two"

[world]
seed = 3
minutes = 20

[clock]
kind = "lockstep"
think_ticks = 4

[[configuration]]
name = "a"
kind = "openai"
model_url = "http://127.0.0.1:1/v1"
model = "fake-forager"

[[configuration]]
name = "b"
kind = "builtin"
agent = "forager"
"""


def refused(text: str) -> StudyError:
    with pytest.raises(StudyError) as caught:
        parse_study(text, "s.toml")
    return caught.value


def line_of(text: str, needle: str, nth: int = 1) -> int:
    hits = [i for i, line in enumerate(text.splitlines(), start=1) if needle in line]
    return hits[nth - 1]


def test_the_example_file_is_a_valid_study():
    study = parse_study(example_text())
    assert [c.kind for c in study.configurations] == ["openai", "openai", "builtin"]
    assert isinstance(study.clock, Lockstep) and study.world.minutes == 60


def test_a_good_file_reads_with_its_defaults():
    study = parse_study(GOOD)
    a, b = study.configurations
    assert isinstance(a, OpenAIConfiguration) and a.history == 12 and a.programs is True
    assert isinstance(b, BuiltinConfiguration) and b.think_ticks == 3
    assert study.world.seed_list() == [3] and study.clock.charge(500) == 4


def test_the_tokens_rule_charges_by_completion_tokens():
    clock = Lockstep(kind="lockstep", think="tokens", think_ticks=2, tokens_per_tick=10)
    assert [clock.charge(n) for n in (0, 1, 10, 11)] == [2, 3, 3, 4]


def test_an_unknown_kind_names_its_line():
    text = GOOD.replace('kind = "builtin"', 'kind = "robot"')
    err = refused(text)
    assert err.code == "unknown_kind"
    assert f"line {line_of(text, 'robot')}" in err.message
    assert "'robot'" in err.message and "openai, builtin, python, external" in err.message


def test_a_missing_model_names_the_table():
    text = GOOD.replace('model = "fake-forager"\n', "")
    err = refused(text)
    assert err.code == "missing_key"
    assert "`configuration[1].model` is required" in err.message
    assert f"s.toml line {line_of(text, '[[configuration]]', 1)}" in err.message


def test_duplicate_names_point_at_the_second():
    text = GOOD.replace('name = "b"', 'name = "a"')
    err = refused(text)
    assert err.code == "duplicate_name"
    assert f"line {line_of(text, 'name = ', 2)}" in err.message and "'a'" in err.message


@pytest.mark.parametrize("minutes", ["0", "-5"])
def test_minutes_must_be_positive(minutes):
    text = GOOD.replace("minutes = 20", f"minutes = {minutes}")
    err = refused(text)
    assert err.code == "bad_value"
    assert f"line {line_of(text, 'minutes')}" in err.message and "world.minutes" in err.message


def test_unreadable_toml_is_a_syntax_error_with_its_position(tmp_path):
    err = refused(GOOD.replace("seed = 3", "seed = = 3"))
    assert err.code == "bad_toml" and "line 4" in err.message
    path = tmp_path / "bad.toml"
    path.write_bytes(b"\xff\xfe not text")
    with pytest.raises(StudyError) as caught:
        load_study(path)
    assert caught.value.code == "unreadable_study"
    with pytest.raises(StudyError) as caught:
        load_study(tmp_path / "absent.toml")
    assert caught.value.code == "study_missing"


def test_an_unknown_key_is_named_with_the_keys_it_may_be():
    text = GOOD.replace('model = "fake-forager"', 'modle = "fake-forager"')  # and model missing
    err = refused(text)
    assert err.code == "unknown_key" and "`configuration[1].modle`" in err.message
    assert f"line {line_of(text, 'modle')}" in err.message and "model_url" in err.message
    err = refused(GOOD.replace("minutes = 20", "minutes = 20\nhorizon = 3"))
    assert err.code == "unknown_key" and "world.horizon" in err.message and "seeds" in err.message


@pytest.mark.parametrize(
    "old, new, key",
    [
        ("minutes = 20", 'minutes = "twenty"', "world.minutes"),
        ("think_ticks = 4", "think_ticks = 4.5", "clock.think_ticks"),
        ('agent = "forager"', "agent = 3", "configuration[2].agent"),
        ('model = "fake-forager"', 'model = "m"\nprograms = "yes"', "configuration[1].programs"),
    ],
)
def test_a_value_of_the_wrong_type_names_key_and_line(old, new, key):
    text = GOOD.replace(old, new)
    err = refused(text)
    assert err.code == "wrong_type" and f"`{key}`" in err.message
    assert f"line {line_of(text, key.split('.')[-1].split(' ')[0])}" in err.message


def test_an_unknown_builtin_and_a_missing_python_agent_are_refused():
    err = refused(GOOD.replace('agent = "forager"', 'agent = "wizard"'))
    assert err.code == "unknown_configuration" and "planner" in err.message
    text = GOOD.replace('kind = "builtin"\nagent = "forager"',
                        'kind = "python"\nagent = "no_such_module_here:Agent"')
    err = refused(text)
    assert err.code == "agent_not_found" and f"line {line_of(text, 'no_such_module')}" in err.message
    err = refused(GOOD.replace('kind = "builtin"\nagent = "forager"',
                               'kind = "python"\nagent = "asiworld.agents.bots.base:Missing"'))
    assert err.code == "agent_not_found"


def test_a_study_needs_a_world_and_a_configuration():
    err = refused('[world]\nminutes = 5\n')
    assert err.code == "missing_key" and "configuration" in err.message
    err = refused(GOOD.split("[world]")[0])
    assert err.code == "missing_key" and "`world` is required" in err.message


def test_locate_finds_keys_in_arrays_of_tables_and_skips_multiline_strings():
    text = 'a = """\nname = 1\n"""\n[[c]]\nname = 1\n[[c]]\nx.y = 2\nname = 3\n'
    assert locate(text, ("c", 1, "name")) == 8
    assert locate(text, ("c", 0, "name")) == 5
    assert locate(text, ("c", 1, "x", "y")) == 7
    assert locate(text, ("c", 1, "absent")) == 6
    assert locate(text, ("zzz",)) is None


def test_the_command_says_error_code_sentence_and_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(GOOD.replace("minutes = 20", "minutes = 0"))
    assert main(["study", "check", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: bad_value: ") and "line 5" in err and "Traceback" not in err


def test_study_new_writes_the_example_and_keeps_an_existing_file(tmp_path, capsys):
    path = tmp_path / "study.toml"
    assert main(["study", "new", str(path)]) == 0
    assert path.read_text() == example_text()
    assert main(["study", "check", str(path)]) == 0
    path.write_text("mine")
    assert main(["study", "new", str(path)]) == 2
    assert "file_exists" in capsys.readouterr().err and path.read_text() == "mine"


def test_study_new_demo_writes_the_nine_configuration_study(tmp_path):
    path = tmp_path / "demo.toml"
    assert main(["study", "new", "--demo", str(path)]) == 0
    study = load_study(path)[0]
    kinds = [c.kind for c in study.configurations]
    assert kinds.count("openai") == 6 and kinds.count("builtin") == 3


@pytest.mark.parametrize("seed", ["-1", "100000000000000000000", "9223372036854775808"])
def test_a_seed_no_world_can_keep_is_refused_on_its_line(seed):
    # 10**20 passed the check, then the run crashed writing its first snapshot
    error = refused(GOOD.replace("seed = 3", f"seed = {seed}"))
    assert error.code == "bad_value" and "line 4" in error.message and "world.seed" in error.message


def test_arrays_nested_too_deep_are_bad_toml_not_a_traceback():
    error = refused(GOOD + "deep = " + "[" * 5000 + "]" * 5000 + "\n")
    assert error.code == "bad_toml" and "nested too deep" in error.message


def test_checking_a_file_runs_none_of_its_agents_code(tmp_path, monkeypatch, capsys):
    (tmp_path / "noisy.py").write_text(
        "from pathlib import Path\nPath(__file__).with_name('imported').write_text('yes')\n"
        "class Agent:\n    def observe(self, o): pass\n    def decide(self): return None\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    study = tmp_path / "s.toml"
    study.write_text(GOOD.replace('kind = "builtin"\nagent = "forager"',
                                  'kind = "python"\nagent = "noisy:Agent"'))
    assert main(["study", "check", str(study)]) == 0
    assert not (tmp_path / "imported").exists()  # found, not run
    missing = tmp_path / "m.toml"
    missing.write_text(study.read_text().replace("noisy:Agent", "absent_module:Agent"))
    assert main(["study", "check", str(missing)]) == 2
    assert "error: agent_not_found: " in capsys.readouterr().err
