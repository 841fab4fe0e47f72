"""Content is data, checked when it loads: a typo is a clear error at start-up."""

from __future__ import annotations

import shutil

import pytest
from asiworld.engine import ContentError, load_content
from asiworld.engine.content import CONTENT_DIR


@pytest.fixture
def content_copy(tmp_path):
    for f in CONTENT_DIR.glob("*.toml"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def test_the_shipped_content_loads_and_has_every_recipe_of_the_rules():
    c = load_content()
    for recipe in ("wooden_pickaxe", "iron_ingot", "cooked_meat", "berry_stew", "healing_potion",
                   "cloth", "iron_sword", "iron_armor", "leather", "leather_armor", "lock",
                   "torch", "travel_outfit"):
        assert recipe in c.recipes
    assert c.recipes["iron_ingot"].station == "furnace"
    assert c.structures["tailoring_table"]["cost"] == {"wood": 4, "cloth": 2, "iron_ingot": 1}


def test_a_recipe_naming_an_unknown_item_is_an_error_at_load(content_copy):
    path = content_copy / "recipes.toml"
    path.write_text(path.read_text().replace('inputs = { wood = 3 }', 'inputs = { wod = 3 }', 1))
    with pytest.raises(ContentError, match="unknown item 'wod'"):
        load_content(content_copy)


def test_a_missing_number_is_an_error_at_load(content_copy):
    path = content_copy / "creatures.toml"
    path.write_text(path.read_text().replace("health = 10\n", "", 1))
    with pytest.raises(ContentError, match="sheep"):
        load_content(content_copy)


def test_broken_toml_names_the_file(content_copy):
    (content_copy / "items.toml").write_text("[items.wood\ncategory=")
    with pytest.raises(ContentError, match="items.toml"):
        load_content(content_copy)


def test_the_content_hash_changes_with_the_content(content_copy):
    before = load_content(content_copy).hash
    path = content_copy / "world.toml"
    path.write_text(path.read_text().replace("max_health = 100", "max_health = 101"))
    assert load_content(content_copy).hash != before


def test_a_comment_or_the_layout_is_not_content(content_copy):
    before = load_content(content_copy).hash
    path = content_copy / "world.toml"
    path.write_text("# a note\n\n" + path.read_text().replace("max_health = 100",
                                                              "max_health  =  100  # more words"))
    assert load_content(content_copy).hash == before
