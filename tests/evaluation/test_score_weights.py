"""The composite score's weights are content (app/engine/content/score.toml), checked when content
loads; the score and Table 6 read them from there, and they stay out of the content hash (they
decide how a run is scored, not what happens in it).

Bad inputs tried: a weight that is a string or negative, a component missing, one listed twice,
an unknown key, a normalisation that does not fit its measure, max_depth that is not the deepest
tier, no [[components]] list."""

from __future__ import annotations

import shutil

import pytest
from asiworld.engine import ContentError, load_content
from asiworld.engine.content import CONTENT_DIR
from asiworld.evaluation import score
from asiworld.evaluation.tables import score_rows


@pytest.fixture
def content_copy(tmp_path):
    for f in CONTENT_DIR.glob("*.toml"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def test_the_paper_weights_are_the_content_files_numbers():
    components = load_content().score.components
    assert [(c.key, c.weight) for c in components] == [
        ("hero", 30), ("outfit", 10), ("depth", 15), ("bosses", 15), ("crafts", 25), ("trial", 5)]
    assert score.WEIGHTS == {c.key: c.weight for c in components}
    assert sum(score.WEIGHTS.values()) == 100


def test_table_6_is_written_from_the_content_file():
    results = {"configurations": [{"name": "a", "contributions": dict.fromkeys(score.WEIGHTS, 0.0),
                                   "score_shown": "0.0"}]}
    header, rows = score_rows([results])
    components = load_content().score.components
    assert [r[1:4] for r in rows[:-1]] == [[c.symbol, c.meaning, f"{c.weight:g}"]
                                         for c in components]
    assert rows[-1][3] == "100"


def test_the_weights_stay_out_of_the_content_hash(content_copy):
    before = load_content(content_copy).hash
    path = content_copy / "score.toml"
    path.write_text(path.read_text().replace("weight = 30", "weight = 31"))
    changed = load_content(content_copy)
    assert changed.hash == before
    assert changed.score.weights()["hero"] == 31


@pytest.mark.parametrize("old, new, message", [
    ("weight = 30", 'weight = "thirty"', "'hero' weight must be a number >= 0"),
    ("weight = 30", "weight = -1", "'hero' weight must be a number >= 0"),
    ('key = "hero"', 'key = "outfit"', "must list each of"),
    ('key = "trial"', 'key = "luck"', "key 'luck' is not one of"),
    ('value = "depth"', 'value = "cohort_max"', "'depth' value must be 'depth'"),
    ("max_depth = 3", "max_depth = 4", "max_depth 4 is not the deepest tier"),
    ("[[components]]", "[[parts]]", "no [[components]] list"),
])
def test_a_bad_score_file_is_an_error_at_load(content_copy, old, new, message):
    path = content_copy / "score.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    with pytest.raises(ContentError, match=message.replace("[", r"\[").replace("(", r"\(")):
        load_content(content_copy)


def test_a_missing_score_file_is_an_error_at_load(content_copy):
    (content_copy / "score.toml").unlink()
    with pytest.raises(ContentError, match="score.toml is missing"):
        load_content(content_copy)
