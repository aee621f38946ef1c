"""The playground's seats speak the group's language in private unless a seat is given a language of its
own (the seating panel's per-seat choice: the language its Telegram app sends)."""
from __future__ import annotations

import pytest

from localdev.playground import GROUP_ID, Playground
from tests.integration.playground_wait import wait_for

NAMES = ["Ann", "Ben", "Cid", "Dot", "Eve"]


@pytest.fixture
def pg():
    with Playground(sim_delay=0, seed=3, group_budget=0) as playground:
        yield playground


def role_card(pg: Playground, uid: int) -> str:
    return next((t for t in pg.fake.texts(uid) if t.startswith("🎭")), "")


def test_seats_read_the_groups_language_in_private_unless_given_their_own(pg):
    from gamebot.language import texts

    seats = pg.seat([{"name": n, "simulated": True, "lang": "de" if n == "Dot" else ""} for n in NAMES], open_lobby=False)
    assert [s.lang for s in seats] == ["", "", "", "de", ""]
    assert "language_code" not in pg.users[seats[0].user_id] and pg.users[seats[3].user_id]["language_code"] == "de"
    pg.send(seats[0].user_id, GROUP_ID, "/language ru")
    pg.send(seats[0].user_id, GROUP_ID, "/newgame")
    assert wait_for(pg, lambda: all(role_card(pg, s.user_id) for s in seats)), pg.fake.texts(GROUP_ID)[-3:]
    russian = texts.t("role.title", "ru", title="\x00").split("\x00")[0]
    german = texts.t("role.title", "de", title="\x00").split("\x00")[0]
    for s in seats:
        assert role_card(pg, s.user_id).startswith(german if s.lang == "de" else russian), s
    group = "\n".join(pg.fake.texts(GROUP_ID))
    assert texts.t("language.changed", "ru", language="Русский") in group


def test_the_seating_api_takes_and_shows_each_seats_language(pg):
    from localdev.web import create_app

    client = create_app(pg).test_client()
    players = [{"name": n, "simulated": True, "lang": "it" if n == "Ann" else ""} for n in NAMES]
    answer = client.post("/api/seat", json={"players": players, "open_lobby": False})
    assert answer.status_code == 200
    assert [s["lang"] for s in answer.get_json()["seats"]] == ["it", "", "", "", ""]
    state = client.get("/api/state").get_json()
    assert [p["lang"] for p in state["players"]] == ["it", "", "", "", ""]
    assert {"code": "ru", "name": "Русский"} in state["languages"]
    players[1]["lang"] = "klingon"
    refused = client.post("/api/seat", json={"players": players, "open_lobby": False})
    assert refused.status_code == 400 and "language" in refused.get_json()["error"]
