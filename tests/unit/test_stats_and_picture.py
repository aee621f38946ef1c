"""The pure parts: statistics arithmetic (gamebot.scores.stats) and the game picture (gamebot.story.picture)."""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageFont

import engine
from gamebot.language import texts
from gamebot.scores import ratings, stats
from gamebot.story import picture
from tests.builder import played_out

ROOT = Path(__file__).resolve().parents[2]


def finished(players: int = 7, seed: int = 3, roles=("merlin", "assassin", "percival", "morgana"), theme="avalon"):
    config = engine.GameConfig(theme=theme, players=players, roles=roles if theme == "avalon" else ())
    return played_out(config, seed)


def outcome(game_id="g1", winners=(0, 2), assassin=None, hit=False, idle=None):
    return stats.Outcome(chat_id=-5, game_id=game_id, theme="avalon", winner="good", user_ids=[10, 11, 12],
                         names=["Ann", "Bea", "Cid"], roles=["merlin", "assassin", "servant"],
                         sides=["good", "evil", "good"], winners=list(winners), assassin=assassin,
                         assassin_hit=hit, idle=idle or {})


# ---------------------------------------------------------------------------------------------------
# statistics
# ---------------------------------------------------------------------------------------------------


def test_a_game_counts_once_per_item():
    chat, user = {}, {}
    assert stats.add_to_chat(chat, outcome(assassin=1, idle={11: 2}))
    assert stats.add_to_user(user, outcome(assassin=1), seat=1)
    snapshot = (dict(chat), dict(user))
    assert not stats.add_to_chat(chat, outcome())  # the same game again
    assert not stats.add_to_user(user, outcome(), seat=1)
    assert (chat, user) == snapshot
    assert chat["games"] == 1 and chat["themes"] == {"avalon": {"games": 1, "good": 1}}
    assert chat["roles"]["merlin"] == {"games": 1, "wins": 1} and chat["roles"]["assassin"] == {"games": 1, "wins": 0}
    assert chat["assassinations"] == {"attempts": 1, "hits": 0} and chat["idle"] == 2
    assert user["assassinations"] == {"attempts": 1, "hits": 0} and user["sides"] == {"evil": {"games": 1, "wins": 0}}


def test_recent_game_ids_are_bounded():
    body = {}
    for i in range(stats.RECENT + 5):
        assert stats.add_to_user(body, outcome(game_id=f"g{i}"), seat=0)
    assert len(body["recent"]) == stats.RECENT and body["games"] == stats.RECENT + 5


def test_writes_create_or_update_items_with_their_versions():
    o = outcome()
    first = stats.writes(o, {})
    assert [(w.item.key, w.expect) for w in first] == [
        ("stats#chat#-5", None), ("stats#user#10", None), ("stats#user#11", None), ("stats#user#12", None)]
    found = {w.item.key: stats.Item(w.item.key, w.item.body, 3) for w in first}
    again = stats.writes(outcome(game_id="g2"), found)
    assert all(w.expect == 3 for w in again) and again[0].item.body["games"] == 2
    assert stats.writes(o, {w.item.key: w.item for w in again}) == []  # g1 already counted everywhere


def test_the_outcome_of_a_real_game():
    state = finished()
    pv = engine.public_view(state)
    o = stats.outcome(-5, "g", list(range(100, 107)), list("ABCDEFG"), state, pv, {"100": 1, "bad": "x"})
    assert o.winners == list(state.winners) and o.roles == list(state.roles) and o.idle == {100: 1}
    attempted = [e for e in state.log if e.split("|")[1] == "assassinate"]
    assert (o.assassin is not None) == bool(attempted)
    assert o.assassin_hit == (state.win_reason == "merlin_assassinated")


def test_the_leaderboard_ranks_by_rating_once_enough_games_are_rated():
    rows = {"1": {"name": "A", "games": 10, "wins": 5, "mu": 30.0, "sigma": 2.0, "rated": 10},
            "2": {"name": "B", "games": 6, "wins": 3, "mu": 28.0, "sigma": 1.0, "rated": 6},
            "3": {"name": "C", "games": 9, "wins": 9, "mu": 40.0, "sigma": 3.0, "rated": ratings.RANKED_AFTER - 1},
            "4": {"name": "D", "games": 4, "wins": 0}}  # (a row from before ratings: not rated yet)
    ranked, waiting = ratings.leaderboard(rows)
    assert [r["name"] for r in ranked] == ["B", "A"]  # ordinals (mu - 3 sigma) 25 and 24; C is not ranked yet
    assert waiting == 2
    assert ratings.ordinal(rows["4"]) == 0.0 and ratings.ordinal(rows["2"]) == 25.0


def test_a_groups_player_table_is_capped(monkeypatch):
    monkeypatch.setattr(stats, "MAX_PLAYERS_PER_CHAT", 4)
    body = {"players": {str(i): {"name": str(i), "games": i, "wins": 0} for i in range(1, 5)}}
    stats.add_to_chat(body, outcome())  # three new players join the table
    assert len(body["players"]) == 4 and "1" not in body["players"]


# ---------------------------------------------------------------------------------------------------
# the picture
# ---------------------------------------------------------------------------------------------------


def summary(state, names, status="ended"):
    return {"game_id": "g", "status": status, "names": names, "user_ids": list(range(len(names))),
            "view": engine.public_view(state)}


def test_the_picture_is_a_png_sized_for_the_table():
    state = finished(players=10, seed=5)
    png = picture.render_png(summary(state, [f"Player{i}" for i in range(10)]), "fr")
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.width >= 980
    assert image.height > 10 * picture.CELL  # a row per player
    small = Image.open(io.BytesIO(picture.render_png(summary(finished(players=5), list("ABCDE")), "en")))
    assert small.height < image.height


def test_names_keep_accents_and_cyrillic_and_lose_what_the_font_cannot_draw():
    fonts = picture.load_fonts(ImageFont)
    glyphs = picture.Glyphs()
    assert glyphs.clean(fonts.bold, "Élodie Müller-Ångström") == "Élodie Müller-Ångström"
    assert glyphs.clean(fonts.bold, "Дмитрий") == "Дмитрий"
    assert glyphs.clean(fonts.bold, "Zoë 🦄✨") == "Zoë"
    assert glyphs.clean(fonts.bold, "李小龙") == ""
    state = finished(players=5)
    png = picture.render_png(summary(state, ["🦄🦄", "李小龙", "Zoë 🦄", "Дмитрий", ""]), "fr")
    assert Image.open(io.BytesIO(png)).format == "PNG"


def test_the_picture_draws_without_the_bundled_fonts(monkeypatch, tmp_path):
    monkeypatch.setattr(picture, "FONT_DIR", str(tmp_path))  # no font files: Pillow's default font
    png = picture.render_png(summary(finished(players=6, theme="resistance"), list("ABCDEF")), "en")
    assert Image.open(io.BytesIO(png)).size[0] >= 980


def test_the_picture_speaks_the_requested_language(monkeypatch):
    asked = []
    real = texts.t

    def spy(key, lang="en", theme="avalon", /, **params):
        asked.append((key, lang, theme))
        return real(key, lang, theme, **params)

    monkeypatch.setattr(picture.texts, "t", spy)
    picture.render_png(summary(finished(players=5, theme="resistance"), list("ABCDE")), "fr")
    keys = {k for k, _, _ in asked}
    assert {"picture.title", "picture.legend.leader", "picture.legend.team", "picture.round_row"} <= keys
    assert {lang for _, lang, _ in asked} == {"fr"}
    # every text in the game's theme, but the words joining names (the same in every theme)
    assert {theme for key, _, theme in asked if key not in ("and", "none")} == {"resistance"}


def test_quest_card_counts_follow_what_each_card_counts_as():
    assert picture._counts({"success": 2, "fail": 1}) == (2, 1, 0)
    assert picture._counts({"rogue_fail": 1, "good_message": 2, "magic": 1}) == (2, 1, 1)


def test_pillow_is_not_imported_to_handle_ordinary_updates():
    code = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; import app, gamebot.core.service, gamebot.handlers.statistics; "
        "assert 'PIL' not in sys.modules, 'PIL imported at start'"
    )
    result = subprocess.run([sys.executable, "-c", code, str(ROOT / "shared"), str(ROOT / "functions/webhook")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("theme", ["avalon", "resistance"])
def test_a_cancelled_game_draws_too(theme):
    state = finished(players=5, theme=theme)
    png = picture.render_png(summary(state, list("ABCDE"), status="cancelled"), "en")
    assert png.startswith(b"\x89PNG")


@pytest.mark.parametrize("lang", texts.languages())
@pytest.mark.parametrize("theme", ["avalon", "resistance"])
def test_the_picture_draws_every_letter_of_every_language(monkeypatch, lang, theme):
    """Every text the picture asks the catalog for, in each language (Cyrillic included), is drawn whole:
    the bundled font has each of its letters."""
    asked = []
    real = texts.t

    def spy(key, lang_="en", theme_="avalon", /, **params):
        out = real(key, lang_, theme_, **params)
        asked.append(out)
        return out

    monkeypatch.setattr(picture.texts, "t", spy)
    roles = ("merlin", "assassin", "percival", "morgana") if theme == "avalon" else ()
    png = picture.render_png(summary(finished(players=7, theme=theme, roles=roles), list("ABCDEFG")), lang)
    assert Image.open(io.BytesIO(png)).format == "PNG"
    fonts, glyphs = picture.load_fonts(ImageFont), picture.Glyphs()
    letters = [ch for text in asked for ch in picture.plain(text) if ch.isalpha()]
    assert letters
    missing = sorted({ch for ch in letters if glyphs.clean(fonts.small, ch) != ch})
    assert missing == []
