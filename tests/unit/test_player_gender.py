"""Any player fits every sentence: no catalog binds a gendered article (or a gendered possessive) to a
placeholder holding a player's name ("El Líder {leader}", "Der Anführer {leader}", "du Roi {leader}",
"son voisin {target}"), and no text refers to a player with a gendered pronoun ("он может", "ele tinha
jogado", "il rejoint le Mal"). Texts say "Judy (Líder) propone", "этот игрок может", "ce joueur".

The check renders every template of every catalog with its theme words, marks the placeholders that hold a
player's name, and looks, per language, for an article or possessive right before such a mark (at most one
word, a title like "Líder", between them), and for gendered personal pronouns in any text about players.
A pronoun that refers to something else (a card, the game, a character's card in the rules) is listed in
``NOT_A_PLAYER`` with what it refers to."""
from __future__ import annotations

import re

import pytest

from gamebot.language import plurals, texts

LANGS = ["en", "fr", "es", "de", "ru", "pt", "it"]
# Placeholders whose value is a person's name (a seat's player, the host, whoever is waited for).
PLAYER = {"assassin", "by", "checker", "holder", "host", "leader", "name", "previous", "receiver", "seat", "target",
          "who"}
MARK, OTHER = "\ue000", "\ue001"

# Gendered articles, contractions, demonstratives and possessives that could stand before a name.
ARTICLES = {
    "en": None,
    "ru": None,
    "fr": r"le|la|du|au|un|une|ce|cet|cette|l'|son|sa",
    "es": r"el|la|del|al|un|una|este|esta|ese|esa",
    "it": r"il|lo|la|l'|del|dello|della|dell'|al|allo|alla|all'|dal|dallo|dalla|nel|nello|nella|sul|sulla|un|uno|una"
          r"|un'|questo|questa|quel|quella|suo|sua",
    "pt": r"o|do|da|ao|à|no|na|pelo|pela|um|uma|este|esta|esse|essa|seu|sua",
    "de": r"der|die|das|dem|den|des|ein|eine|einen|einem|einer|eines|vom|zum|zur|beim|im|am|sein|seine|seinen"
          r"|seinem|seines|ihr|ihre|ihren|ihrem|ihres",
}
# Gendered personal pronouns (he / she, him / her, his / hers as a pronoun).
PRONOUNS = {
    "en": r"he|she|him|her|his|hers|himself|herself",
    "fr": r"il|elle|lui-même|elle-même",
    "es": r"él|ella",
    "it": r"lui|lei|egli|ella|\w+[aei]rgli",
    "pt": r"ele|ela|dele|dela|nele|nela",
    "de": r"er|ihm|ihn|sein|seine|seinen|seinem|seiner|seines",
    "ru": r"он|она|его|её|ее|ему|ей|него|неё|нему|ней|ним|нём",
}
# Words that name a player in some way: a text with one of them (or a player's name) is about players.
PLAYERISH = {
    "en": r"player|leader|holder|member|neighbou?r|host|percival|anyone|someone|whoever",
    "fr": r"joueu?r|roi|chef|membre|voisin|détenteur|hôte|perceval|quelqu'un",
    "es": r"jugador|líder|miembro|vecino|portador|anfitrión|perceval|alguien",
    "it": r"giocator|leader|capo|membro|vicin|possessore|organizzatore|percival|qualcuno",
    "pt": r"jogador|líder|membro|vizinho|portador|anfitrião|percival|alguém|quem",
    "de": r"spieler|anführer|mitglied|nachbar|träger|gastgeber|percival|jemand",
    "ru": r"игрок|лидер|предводител|участник|сосед|владел|организатор|персивал|кто",
}
# (language, key) -> what its gendered pronouns refer to: never a player.
NOT_A_PLAYER = {
    ("en", "config.morgana_needs_percival"): "the characters Morgana and Percival, in the rules of the set-up",
    ("fr", "config.morgana_needs_percival"): "the character Morgana",
    ("fr", "priv.CardSwitched"): "your card",
    ("fr", "leave.in_game"): "the game (la partie)",
    ("fr", "lobby.closed"): "impersonal: il ne reste aucun joueur",
    ("fr", "lobby.need_more"): "impersonal: il faut",
    ("fr", "lobby.not_enough"): "impersonal: il faut",
    ("fr", "timers.forcestart.not_enough"): "impersonal: il faut",
    ("fr", "timers.join.closed"): "impersonal: il en faut",
    ("fr", "timers.default.excalibur"): "Excalibur (elle n'est pas utilisée)",
    ("fr", "rolehelp.good_messenger"): "the Good Message (il compte comme Succès)",
    ("fr", "rolehelp.evil_messenger"): "the Evil Message (il compte comme Échec)",
    ("es", "config.morgana_needs_percival"): "the character Percival",
    ("pt", "config.morgana_needs_percival"): "the characters Morgana and Percival",
    ("pt", "config.assassin_without_merlin"): "the Assassin's card",
    ("pt", "priv.CardSwitched"): "your card (agora ela conta como...)",
    ("pt", "leave.in_game"): "the game (a partida)",
    ("pt", "language.not_allowed"): "the game (o anfitrião dela)",
    ("pt", "damaged.notice"): "the game (no grupo dela)",
    ("pt", "modulehelp.lady_of_the_lake"): "the Lady of the Lake token (quem está com ela)",
    ("pt", "timers.extend.done"): "the lobby (ela fecha em...)",
    ("pt", "prompt.trap"): "the card set aside",
    ("de", "config.morgana_needs_percival"): "the character Percival",
    ("de", "help.body"): "the team (das Team spielt seine Karten)",
    ("de", "illegal.duplicate_player"): "the verb sein (to be)",
    ("de", "prompt.plot_in_the_spotlight"): "a team member (das Teammitglied, neuter: any player)",
    ("ru", "config.morgana_needs_percival"): "the characters Morgana and Percival",
    ("ru", "priv.CardSwitched"): "your card (она засчитывается)",
    ("ru", "damaged.cancelled"): "the game (закрывает её)",
    ("ru", "damaged.notice"): "the game (её группе, закрыть её)",
    ("ru", "language.not_allowed"): "the game (её организатор)",
    ("ru", "leave.in_game"): "the game (в ней, отменить её)",
    ("ru", "modulehelp.lady_of_the_lake"): "the Lady of the Lake (её владелец)",
    ("ru", "modulehelp.trapper"): "the card set aside",
    ("ru", "prompt.play.trapper"): "the card set aside (посмотрит её)",
    ("ru", "prompt.play.trapper_you"): "the card set aside",
    ("ru", "prompt.plot_deal"): "the Plot card (её получит)",
    ("ru", "prompt.give_excalibur"): "Excalibur (его владелец)",
    ("ru", "prompt.plot_strong_leader"): "the Plot card (сыграй её)",
    ("ru", "prompt.watch"): "the Watch token (передай его)",
    ("ru", "settings.language.title"): "the language (на нём, если я его знаю)",
    ("ru", "start.joined"): "the game (организатор её начнёт)",
    ("ru", "timers.extend.not_player"): "the lobby (его участники)",
}


def rendered(lang: str, template: str, theme: str) -> str:
    """The template with its theme words, a player's name as ``MARK`` and any other value as ``OTHER``."""
    words = texts.vocab(lang, theme)

    def value(m: re.Match[str]) -> str:
        name = re.split(r"[,!:.\[]", m.group(1))[0].strip()
        return MARK if name in PLAYER else words.get(name, OTHER)

    return re.sub(r"\{([^{}]*)\}", value, plurals.flatten(template))


def catalog_texts(lang: str):
    for key, entry in texts.catalog(lang).messages.items():
        for theme in ("avalon", "resistance"):
            template = entry if isinstance(entry, str) else entry.get(theme) or entry.get("*") or next(iter(entry.values()))
            yield key, theme, rendered(lang, template, theme)


def gendered_before_a_name(lang: str, text: str) -> list[str]:
    if ARTICLES[lang] is None:
        return []
    word = r"[^\s:;.!?()«»\"“”,]+,?"
    pattern = rf"(?<![\w'])(?:{ARTICLES[lang]})(?:\s+|(?<='))(?:{word}\s+)?{MARK}"
    return [m.group(0).replace(MARK, "{player}") for m in re.finditer(pattern, text, re.I)]


def gendered_pronouns(lang: str, text: str) -> list[str]:
    if MARK not in text and not re.search(PLAYERISH[lang], text, re.I):
        return []
    return [m.group(0) for m in re.finditer(rf"(?<![\w-])(?:{PRONOUNS[lang]})(?![\w-])", text, re.I)]


def findings(lang: str) -> list[str]:
    found = []
    for key, theme, text in catalog_texts(lang):
        for hit in gendered_before_a_name(lang, text):
            found.append(f"{key} ({theme}): {hit!r}")
        if (lang, key) not in NOT_A_PLAYER:
            for hit in gendered_pronouns(lang, text):
                found.append(f"{key} ({theme}): pronoun {hit!r}")
    return sorted(set(found))


@pytest.mark.parametrize("lang", LANGS)
def test_no_text_genders_a_player(lang):
    assert findings(lang) == []


def test_the_check_finds_what_it_looks_for():
    assert gendered_before_a_name("es", f"{MARK} propone") == []
    assert gendered_before_a_name("es", f"El Líder {MARK} propone") == ["El Líder {player}"]
    assert gendered_before_a_name("es", f"Después, el Líder, {MARK}, aparta") == ["el Líder, {player}"]
    assert gendered_before_a_name("fr", f"Proposition du Roi {MARK}") == ["du Roi {player}"]
    assert gendered_before_a_name("fr", f"l'allégeance de son voisin {MARK}") == ["son voisin {player}"]
    assert gendered_before_a_name("de", f"Der Anführer {MARK} legt") == ["Der Anführer {player}"]
    assert gendered_before_a_name("fr", f"la Dame du Lac sur {MARK}") == []  # (two words between: not bound)
    assert gendered_before_a_name("pt", f"entrega Excalibur a {MARK}") == []  # (the preposition "a")
    assert gendered_pronouns("ru", f"Экскалибур у игрока {MARK}: он может поменять") == ["он"]
    assert gendered_pronouns("pt", "você verá a carta que ele tinha jogado, membro") == ["ele"]
    assert gendered_pronouns("it", f"non posso mandargli i messaggi di {MARK}") == ["mandargli"]
    assert gendered_pronouns("en", "Lancelot knows his fate") == []  # (nothing about players)
    assert all(lang in LANGS for lang, _ in NOT_A_PLAYER)
    for lang, key in NOT_A_PLAYER:  # every exception still names a text that has such a pronoun
        hits = [h for k, _, text in catalog_texts(lang) if k == key for h in gendered_pronouns(lang, text)]
        assert hits, (lang, key)
