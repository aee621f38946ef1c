"""The simulated players read only their chats: role cards, and whose turn it is."""
from __future__ import annotations

from localdev.autoplay import Driver, Mind, split_names

EVIL_CARD = ("🎭 <b>Your secret role in G</b>\nYou are <b>Morgana</b> — Evil (Minions of Mordred).\n\n"
             "What you know:\n• Erin and Grace: Evil\n")
MERLIN_CARD = ("🎭 <b>Your secret role in G</b>\nYou are <b>Merlin</b> — Good (Loyal Servants of Arthur).\n\n"
               "What you know:\n• Carol, Erin and Grace: Evil\n")
PERCIVAL_CARD = ("You are <b>Percival</b> — Good (Loyal Servants of Arthur).\nWhat you know:\n"
                 "• Carol and Frank: Merlin or Morgana\n")
SPY_CARD = "You are <b>a Spy</b>.\nWhat you know:\n• Ann: Spy\n"
SERVANT_CARD = "You are <b>a Loyal Servant of Arthur</b>.\nYou know nothing about the others: watch closely.\n"
LANCELOT_CARD = "You are <b>Lancelot (Evil)</b>.\nWhat you know:\n• Ann: Evil\n"


def msg(mid: int, text: str, buttons=()) -> dict:
    return {"message_id": mid, "text": text, "buttons": [list(row) for row in buttons]}


class Screen:
    def __init__(self, chats: dict[int, list[dict]]) -> None:
        self.chats = chats
        self.pressed: list[tuple[int, int, int, str]] = []

    def messages(self, chat_id: int) -> list[dict]:
        return self.chats.get(chat_id, [])

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> None:
        self.pressed.append((user_id, chat_id, message_id, data))


def test_a_role_card_tells_the_side_and_who_is_known_to_be_evil():
    evil = Mind.read([msg(1, EVIL_CARD)])
    assert evil.evil and evil.known_evil == {"Erin", "Grace"}
    merlin = Mind.read([msg(1, MERLIN_CARD)])
    assert not merlin.evil and merlin.known_evil == {"Carol", "Erin", "Grace"}
    percival = Mind.read([msg(1, PERCIVAL_CARD)])
    assert not percival.evil and percival.known_evil == set()
    spy = Mind.read([msg(1, SPY_CARD)])
    assert spy.evil and spy.known_evil == {"Ann"}
    assert Mind.read([msg(1, LANCELOT_CARD)]).evil and not Mind.read([msg(1, SERVANT_CARD)]).evil
    turned = Mind.read([msg(1, MERLIN_CARD), msg(2, "⚜️ Your allegiance has changed: you are now <b>Evil</b>.")])
    assert turned.evil


def picker(leader_id: int, leader: str, names: list[str]) -> dict:
    toggles = [[{"text": f"▫️ {n}", "data": f"T:{n}"}] for n in names]
    return msg(7, f'👑 <a href="tg://user?id={leader_id}">{leader}</a>, choose <b>2</b> players for Quest 1.',
               toggles + [[{"text": "✔️ Propose team (0/2)", "data": "T:ok"}]])


def test_a_leader_bot_picks_itself_first_and_a_persons_turn_is_left_alone():
    """The team picker is in the Leader's private chat: a bot who finds one there leads."""
    names = {1: "Ann", 2: "Bob", 3: "Cy"}
    screen = Screen({2: [msg(1, MERLIN_CARD), picker(2, "Bob", list(names.values()))]})
    bots = Driver(screen, -5, [2, 3], names=names)
    assert bots.step()
    assert screen.pressed == [(2, 2, 7, "T:Bob")]
    person_turn = Screen({1: [picker(1, "Ann", list(names.values()))], 2: [msg(1, MERLIN_CARD)]})
    assert not Driver(person_turn, -5, [2, 3], names=names).step()  # a person's picker: not the bots'
    assert person_turn.pressed == []


def test_a_bot_approves_a_team_it_is_on_and_good_rejects_known_evil():
    vote = msg(9, "🗳 <b>Vote</b> · Quest 1, team 1 of 5\nLeader Ann proposes: <b>Ann and Carol</b>\nStill to vote: Ann, Bob",
               [[{"text": "✅ Approve", "data": "V:y"}, {"text": "❌ Reject", "data": "V:n"}]])
    names = {1: "Ann", 2: "Bob"}
    screen = Screen({-5: [vote], 1: [msg(1, EVIL_CARD)], 2: [msg(1, MERLIN_CARD)]})
    driver = Driver(screen, -5, [1, 2], names=names)
    assert driver.step() and driver.step()
    assert screen.pressed == [(1, -5, 9, "V:y"), (2, -5, 9, "V:n")]  # Merlin knows Carol is Evil


def test_split_names():
    assert split_names("Bob, Carol and Dave") == ["Bob", "Carol", "Dave"]
    assert split_names("Bob") == ["Bob"]
