"""Where a text names what a vote button does, it uses the button's word: the timer page's default vote
("🗳 Missing vote counts as: Reject"), its line on the timers page (``timers.default.vote``), the option's help
(``modulehelp.timeout_vote``: a missing vote counts as Reject) and the settings problem
(``config.bad_timeout_vote``). The code fills their ``{vote}`` with ``vote.approve`` / ``vote.reject``
(gamebot/timing/policy.py ``default_text``, gamebot/compose/settings_panel.py), and the vote message's buttons
are ``vote.button.approve`` / ``vote.button.reject`` (gamebot/messages/vote.py); the word must be the button's
label without its emoji (German "Zustimmen", not "Ja")."""
from __future__ import annotations

import re

import pytest

from gamebot.language import markup, texts

LANGS = ["en", "fr", "es", "de", "ru", "pt", "it"]


def button_word(lang: str, choice: str) -> str:
    return re.sub(r"^\W+", "", markup.plain(texts.t(f"vote.button.{choice}", lang))).strip()


@pytest.mark.parametrize("lang", LANGS)
def test_the_timer_texts_say_the_vote_buttons_words(lang):
    for choice in ("approve", "reject"):
        word = button_word(lang, choice)
        vote = texts.t(f"vote.{choice}", lang)  # what the code passes as {vote}
        assert word in markup.plain(vote), (lang, choice, vote)
        for key in ("timers.default.vote", "timers.button.vote"):
            assert word in markup.plain(texts.t(key, lang, vote=vote)), (lang, key)
        assert word in markup.plain(texts.t("config.bad_timeout_vote", lang, value="x")), (lang, choice)
    # a vote not cast in time counts as Reject (the option's only value but the default Approve)
    assert button_word(lang, "reject") in markup.plain(texts.t("modulehelp.timeout_vote", lang)), lang
    # what the player is told when their time ran out: the choice's name, the button's own label
    assert markup.plain(texts.t("choice.reject", lang)) == markup.plain(texts.t("vote.button.reject", lang)), lang
