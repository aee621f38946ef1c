"""The playground as a newcomer meets it (issue 15): ``scripts/run`` on a taken port, the first run's
install, the seating panel while a lobby is open, renaming a seat."""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.playground_wait import wait_for

REPO = Path(__file__).resolve().parents[2]


def _listening() -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


def test_serve_falls_back_to_a_free_port_on_127_0_0_1_when_the_port_is_taken(capsys):
    from localdev.playground import serve

    taken = _listening()
    try:
        server = serve(object(), taken.getsockname()[1])
        try:
            assert server.server_address[0] == "127.0.0.1"
            assert server.server_port != taken.getsockname()[1]
        finally:
            server.server_close()
    finally:
        taken.close()
    assert "taken" in capsys.readouterr().out


def test_a_second_run_on_a_taken_port_prints_the_url_of_a_free_one():
    taken = _listening()
    port = taken.getsockname()[1]
    env = dict(os.environ, PLAYGROUND_PORT=str(port), PLAYGROUND_SIM_DELAY="5")
    env.pop("TELEGRAM_BOT_TOKEN", None)
    proc = subprocess.Popen([sys.executable, "-m", "localdev.playground", "--no-lobby"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = []
    try:
        for line in proc.stdout:  # (ends when the process does: a bound against hanging)
            out.append(line)
            if line.startswith("ready in"):
                break
    finally:
        proc.send_signal(signal.SIGTERM)
        rest = proc.communicate(timeout=60)[0]
        taken.close()
    text = "".join(out) + rest
    urls = re.findall(r"http://127\.0\.0\.1:(\d+)/", text)
    assert urls and all(int(u) != port for u in urls), text
    assert "in use by another program" not in text


def test_the_first_run_says_what_it_installs(tmp_path):
    """scripts/bootstrap on a fresh clone: it says it creates the venv and installs, before doing so (pip is
    a stand-in here: no network)."""
    for name in ("scripts/bootstrap", "requirements-dev.txt", "shared/requirements.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tmp_path / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_python = bin_dir / "python3.12"  # a Python 3.12 whose "-m venv" makes a venv whose pip only logs
    fake_python.write_text(
        "#!/usr/bin/env bash\n"
        'if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then\n'
        '  mkdir -p "$3/bin"; printf \'#!/usr/bin/env bash\\necho "$*" >> %s/pip.log\\n\' > "$3/bin/python"\n'
        '  chmod +x "$3/bin/python"; exit 0\nfi\n'
        f'exec {sys.executable} "$@"\n' % tmp_path)
    fake_python.chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", HOME=str(tmp_path))
    first = subprocess.run(["scripts/bootstrap"], cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    said = first.stdout + first.stderr
    assert "install -q -r requirements-dev.txt" in (tmp_path / "pip.log").read_text()
    assert re.search(r"creating .*\.venv", said) and re.search(r"Installing .*requirements-dev\.txt", said), said
    again = subprocess.run(["scripts/bootstrap"], cwd=tmp_path, env=env, capture_output=True, text=True, check=True)
    assert again.stdout + again.stderr == ""  # installed: nothing to say




def _lobbies(pg) -> list[dict]:
    from localdev.playground import GROUP_ID

    return [m for m in pg.fake.messages(GROUP_ID) if "New game of" in m.get("text", "")]


@pytest.fixture
def pg():
    from localdev.playground import Playground

    with Playground(sim_delay=0, seed=2, group_budget=0) as playground:
        yield playground


def test_seating_players_while_a_lobby_is_open_closes_it_and_opens_a_new_one_they_join(pg):
    from localdev.playground import GROUP_ID

    five = [{"name": n, "simulated": i > 0} for i, n in enumerate(["Zoe", "Yan", "Xia", "Wes", "Vic"])]
    pg.seat(five)
    assert wait_for(pg, lambda: _lobbies(pg) and "5/10" in _lobbies(pg)[-1]["text"]), pg.fake.texts(GROUP_ID)[-3:]
    first = _lobbies(pg)[-1]["message_id"]
    six = [*five, {"name": "Uma", "simulated": True}]
    pg.seat(six)
    assert wait_for(pg, lambda: _lobbies(pg)[-1]["message_id"] != first and "6/10" in _lobbies(pg)[-1]["text"]), \
        pg.fake.texts(GROUP_ID)[-4:]
    group = "\n".join(pg.fake.texts(GROUP_ID))
    assert "lobby was closed" in group
    assert "already running" not in group
    assert "Uma" in _lobbies(pg)[-1]["text"]


def test_renaming_a_seat_seats_a_new_person_with_a_fresh_private_chat(pg):
    seats = pg.seat([{"name": n, "simulated": True} for n in ["Ann", "Ben", "Cid", "Dot", "Eve"]], open_lobby=False)
    ann = seats[0].user_id
    assert pg.fake.messages(ann)  # Ann opened the bot's private chat: the bot greeted her
    pg.fake.user_message(ann, pg.users[ann], "a secret of Ann's")
    renamed = pg.seat([{"name": n, "simulated": True} for n in ["Amy", "Ben", "Cid", "Dot", "Eve"]], open_lobby=False)
    amy = renamed[0].user_id
    assert amy != ann and renamed[1].user_id == seats[1].user_id  # Ben is still Ben
    assert not any("secret of Ann" in (m.get("text") or "") for m in pg.fake.messages(amy))
    shown = next(p for p in pg.snapshot()["players"] if p["name"] == "Amy")
    assert not any("secret of Ann" in m["html"] for m in shown["messages"])
    back = pg.seat([{"name": n, "simulated": True} for n in ["Ann", "Ben", "Cid", "Dot", "Eve"]], open_lobby=False)
    assert back[0].user_id == ann  # the same name again: the same person, their chat as they left it


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "fr", "es", "de", "ru", "pt", "it"])
def test_simulated_players_play_a_whole_game_in_each_catalog_language_without_timeouts(pg, lang):
    from gamebot.language import texts
    from localdev.autoplay import Words
    from localdev.playground import GROUP_ID

    assert lang in texts.languages()
    seats = pg.seat([{"name": n, "simulated": True} for n in ["Ann", "Ben", "Cid", "Dot", "Eve"]], open_lobby=False)
    pg.send(seats[0].user_id, GROUP_ID, f"/language {lang}")
    pg.send(seats[0].user_id, GROUP_ID, "/newgame")
    words = Words.of(lang)
    # the playground runs the time limits: while a decision is awaited, the group is told how long it has
    # (every text the group was sent or edited to: the limit lines go once the decision is made)
    limit = texts.t("limits.prompt", lang, limit="\x00").split("\x00")[0]
    until = texts.t("limits.board", lang, limit="\x00", until="\x00").split("\x00")[0]
    sent = lambda: [str(c.params.get("text", "")) for c in pg.fake.calls  # noqa: E731
                    if str(c.params.get("chat_id")) == str(GROUP_ID)]
    assert wait_for(pg, lambda: any(limit in x for x in sent()) and any(until in x for x in sent()))
    end = texts.t("end.title.none", lang).split("<b>")[1].split(".")[0].split(":")[0].split(" :")[0]
    assert wait_for(pg, lambda: any(end in t for t in pg.fake.texts(GROUP_ID))), pg.fake.texts(GROUP_ID)[-3:]
    group = "\n".join(pg.fake.texts(GROUP_ID))
    timeout = texts.t("end.line.timeout", lang, names="\x00", what="\x00").split("\x00")[0]
    assert timeout not in group  # nobody ran out of time: the simulated players read every message and pressed
    assert any(over in group for over in words.over)  # the game was told in that language
    assert set(pg.worker.statuses) == {200}


def test_catalogs_give_the_words_of_every_language_and_the_page_tells_which():
    from gamebot.language import texts
    from localdev.autoplay import Words, detect_words

    for lang in texts.languages():
        w = Words.of(lang)
        label = {"text": "", "buttons": [[{"text": texts.t("lobby.button.join", lang), "data": "x"}],
                                         [{"text": texts.t("prompt.button.pass", lang), "data": "y"}]]}
        assert w.join and w.join in label["buttons"][0][0]["text"]
        assert detect_words([label]).lang == lang


@pytest.mark.slow
def test_simulated_players_decide_from_their_own_seats_view_only_and_play_for_their_side(pg, monkeypatch):
    """Ten simulated players play the Big Box (Excalibur, the Lady of the Lake, every module): each decision of the
    policy is given the view the playground read for that player's own seat (``engine.view``) and nothing
    else, and no Good bot takes an action that can only hurt Good by what its view says."""
    from engine import policy
    from localdev.playground import GROUP_ID
    from tests.reliability.support import SETUPS, set_settings
    from tests.unit.policy_checks import harms_good

    given: dict[int, tuple[int, dict]] = {}  # id of a view handed out -> (user, the view)
    seat_view = pg.seat_view

    def views(user: int):
        v = seat_view(user)
        if v is not None:
            given[id(v)] = (user, v)
        return v

    decided: list[tuple[int, dict, object]] = []
    decide = policy.decide

    def spy(view, rng, **kw):
        assert set(kw) <= {"fail_rate", "prompt"}  # nothing of the game but the view
        assert id(view) in given and given[id(view)][1] is view
        action = decide(view, rng, **kw)
        decided.append((given[id(view)][0], view, action))
        return action

    monkeypatch.setattr(policy, "decide", spy)
    pg.simulated.driver.views = views
    names = ["Ann", "Ben", "Cid", "Dot", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon"]
    seats = pg.seat([{"name": n, "simulated": True} for n in names], open_lobby=False)
    pg.simulated.driver.start_at = None  # (the simulated host starts once the settings are in)
    pg.send(seats[0].user_id, GROUP_ID, "/newgame")
    assert wait_for(pg, lambda: _lobbies(pg))
    theme, n, roles, options = SETUPS["base"]
    pg.worker.call(lambda: set_settings(__import__("app").service().repo, GROUP_ID, theme, roles, options))
    pg.simulated.driver.start_at = len(seats)
    pg.fake.touch()

    def over() -> int:
        return sum("Game over" in t for t in pg.fake.texts(GROUP_ID))

    for _ in range(3):  # a game may end before any quest (No Confidence on the first round's fifth team, a fifth
        # rejection: Evil wins), about 1 game in 6 of this set-up: then another game, on the same page
        ended = over()
        assert wait_for(pg, lambda ended=ended: over() > ended), pg.fake.texts(GROUP_ID)[-2:]
        if any(a.kind == "play" for _, _, a in decided):
            break
        pg.send(seats[0].user_id, GROUP_ID, "/newgame")
        pg.fake.touch()
    seat_of = {s.user_id: i for i, s in enumerate(seats)}
    assert decided and {a.kind for _, _, a in decided} >= {"propose", "vote", "play", "give_excalibur"}
    harms = []
    for user, view, action in decided:
        assert view["you"]["seat"] == seat_of[user] == action.seat  # its own seat's view, nobody else's
        assert "roles" not in view and "sides" not in view  # (others' roles only once the game has ended)
        if view["you"]["side"] == "good" and harms_good(view, action):
            harms.append((names[action.seat], harms_good(view, action)))
    assert harms == []
    assert "Out of time" not in "\n".join(pg.fake.texts(GROUP_ID))


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_table_aids_and_the_ratings_work_on_the_playground_page(pg, lang):
    """Issue 16 on the playground: during a bot game the decisions say their time limit, the board carries
    the vote history button and a press sends the game so far, as a picture, in private; at the end the game-over message offers Play again, /stats
    shows the leaderboard and /nextgame answers in private: in the group's language."""
    from gamebot.language import texts
    from localdev.playground import GROUP_ID

    def t(key: str) -> str:
        return texts.t(key, lang).split("<b>")[-1].split("</b>")[0]

    seats = pg.seat([{"name": n, "simulated": True} for n in ["Ann", "Ben", "Cid", "Dot", "Eve"]], open_lobby=False)
    host = seats[0].user_id
    pg.send(host, GROUP_ID, f"/language {lang}")
    pg.send(host, GROUP_ID, "/newgame")
    history = texts.t("votes.button", lang)
    assert wait_for(pg, lambda: any(b["text"] == history for b in pg.fake.buttons(GROUP_ID))), \
        pg.fake.texts(GROUP_ID)[-3:]
    button = next(b for b in pg.fake.buttons(GROUP_ID) if b["text"] == history)
    watcher = seats[1].user_id
    seen = len(pg.fake.messages(watcher))
    pg.press(watcher, GROUP_ID, button["message_id"], button["callback_data"])
    # the game so far, as a picture, in the presser's private chat
    assert wait_for(pg, lambda: any(m.get("photo") for m in pg.fake.messages(watcher)[seen:])), \
        pg.fake.texts(watcher)[-2:]
    end = texts.t("end.title.none", lang).split("<b>")[1].split(".")[0].split(":")[0].split(" :")[0]
    assert wait_for(pg, lambda: any(end in t for t in pg.fake.texts(GROUP_ID))), pg.fake.texts(GROUP_ID)[-3:]
    again = texts.t("rematch.button", lang)
    assert wait_for(pg, lambda: any(b["text"] == again for b in pg.fake.buttons(GROUP_ID)))
    pg.send(host, GROUP_ID, "/stats")
    assert wait_for(pg, lambda: any(t("ratings.board_title") in x for x in pg.fake.texts(GROUP_ID)))
    before = len(pg.fake.texts(host))
    pg.send(host, GROUP_ID, "/nextgame")
    # (in private: the player's own language, which may differ from the group's)
    subscribed = [texts.t("nextgame.subscribed", code, title="\x00").split("\x00")[0] for code in texts.languages()]
    assert wait_for(pg, lambda: any(s in x for x in pg.fake.texts(host)[before:] for s in subscribed)), \
        pg.fake.texts(host)[-2:]
    assert set(pg.worker.statuses) == {200}
