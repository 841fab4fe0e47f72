"""Pages: the home page, the live spectator view and the play page (Jinja2 templates)."""

from __future__ import annotations

from asiworld.evaluation import definitions
from asiworld.server.extensions import AGENTS, STUDY
from flask import Blueprint, current_app, render_template, request, url_for

pages = Blueprint("pages", __name__)


def replays_url() -> str | None:
    # The replay layer registers its own pages; link to them only once they exist.
    for rule in current_app.url_map.iter_rules():
        if rule.rule.rstrip("/") in ("/replays", "/replay"):
            return rule.rule
    return None


@pages.get("/")
def home() -> str:
    return render_template("home.html", replays_url=replays_url())


@pages.get("/live")
def live() -> str:
    # `serve --study`: a banner says the study runs and its minute (asiworld.study.live)
    study = current_app.extensions.get(STUDY)
    return render_template("live.html", replays_url=replays_url(),
                           study=study.banner() if study is not None else None)


@pages.get("/play")
def play() -> str:
    # a study's world gives out its seats: the page asks for a seat's token, not a name
    agents = current_app.extensions.get(AGENTS)
    study = agents is not None and agents.study is not None
    return render_template("play.html", replays_url=replays_url(), study=study)


@pages.get("/evaluation")
def evaluation() -> str:
    # The live world's assessment, refreshed every few seconds; ?run=NAME shows a finished run's
    # results.json from the runs folder instead (its characters link to the replays).
    run = request.args.get("run")
    if run:
        return render_template(
            "evaluation.html",
            results_url=url_for("api.evaluation", run=run),
            character_url=(replays_url() or "/replays") + "#character-{id}",
            live=False,
            replays_url=replays_url(),
            definitions=definitions(),
        )
    return render_template(
        "evaluation.html",
        results_url=url_for("api.evaluation"),
        character_url="/live?follow={id}",
        live=True,
        replays_url=replays_url(),
        definitions=definitions(),
    )
