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
    ("fr", "settings.option_line_needs"): "impersonal: il faut (its {name} is an option's)",
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


# ---------------------------------------------------------------------------------------------------
# Gendered titles and characters said of a player
# ---------------------------------------------------------------------------------------------------
# A title a player holds (host, Leader) whose word has a gender that does not fit everyone. Per language:
GENDERED_TITLES = {
    # English nouns have no gender: host, Leader.
    "en": [],
    # Russian names anyone's role or job with the masculine noun (организатор, лидер, Предводитель): that is the
    # norm for women too, so a title is no gender guess there (the verbs are: see "No gender guessed", I18N.md).
    "ru": [],
    # Avalon's "Roi" is a man's title (la Reine); "Chef" (The Resistance) and "hôte" are said of anyone.
    "fr": [r"Roi"],
    # "Líder" is the same for everyone (el/la líder: only an article would gender it); anfitrión / anfitriona.
    "es": [r"anfitrión"],
    # "Líder" is the same for everyone; anfitrião / anfitriã.
    "pt": [r"anfitrião"],
    # "Leader" and "Capo" are said of anyone (il/la leader); organizzatore / organizzatrice.
    "it": [r"organizzatore"],
    # Anführer / Anführerin, Gastgeber / Gastgeberin.
    "de": [r"Anführer\w*", r"Gastgeber\w*"],
}
# A character's name that is a common noun with a gender (a man's word: Assassine / Assassinin). Proper
# names (Merlin, Morgana, Percival, Lancelot) are characters, not genders, and are not listed.
GENDERED_CHARACTERS = {
    "en": [],  # no gender in English nouns
    "ru": [],  # masculine nouns name a role for everyone in Russian (see GENDERED_TITLES)
    "fr": [r"Assassin", r"Vassal", r"Sbire", r"Résistant", r"Espion", r"Messager", r"Brigand", r"Sorcier", r"Fou",
           r"Révélateur", r"Clerc", r"Filou", r"Trublion", r"Piégeur"],  # "la Brute": a noun for anyone
    "es": [r"Asesino", r"Servidor", r"Esbirro", r"Mensajero", r"Pícaro", r"Hechicero", r"Lunático", r"Bruto",
           r"Revelador", r"Clérigo", r"Embaucador", r"Alborotador", r"Trampero"],  # Espía, Miembro: anyone
    "pt": [r"Assassino", r"Servo", r"Lacaio", r"Espião", r"Mensageiro", r"Ladino", r"Feiticeiro", r"Lunático",
           r"Revelador", r"Clérigo", r"Trapaceiro", r"Encrenqueiro", r"Armadilheiro"],  # Membro, Brutamontes
    "it": [r"Assassino", r"Servitore", r"Messaggero", r"Furfante", r"Stregone", r"Folle", r"Bruto", r"Rivelatore",
           r"Chierico", r"Imbroglione", r"Cacciatore"],  # Spia, Tirapiedi, Piantagrane, Membro: anyone
    "de": [r"Assassine\w*", r"Gefolgsmann", r"Widerstandskämpfer", r"Scherge\w*", r"Spion", r"Bote\w*",
           r"Schurke\w*", r"Zauberer", r"Wahnsinnige\w*", r"Rohling", r"Enthüller", r"Kleriker", r"Schwindler",
           r"Unruhestifter", r"Fallensteller", r"Seniorbote\w*", r"Juniorbote\w*"],
}
# "X is ..." / "you are ...": the copula after a player's name or "you" (a language that drops the pronoun:
# the verb's own "you" form).
# ("Le personnage de {name} est ..." has another subject: a name after "de", "di", "von" is not one; "{target}...
# qui est ...", "que es", "che è" after a name are said of that player.)
_SUBJECT = rf"(?<!de )(?<!di )(?<!von ){MARK}"
IS = {
    "en": None, "ru": None,
    "fr": rf"(?:(?:{_SUBJECT}|vous)\s+(?:êtes|devenez|est|devient)|{MARK}\W*\s+qui\s+(?:n')?est)",
    "es": rf"(?:{_SUBJECT}\s+(?:\S+\s+)?(?:es|será|pasa a ser|se convierte en)|\beres|\bserás|\bpasas a ser|{MARK}\W*\s+que\s+(?:no\s+)?es)",
    "pt": rf"(?:(?:{_SUBJECT}|você)\s+(?:\S+\s+)?(?:é|será|se torna|vira|passa a ser)|{MARK}\W*\s+que\s+(?:não\s+)?é)",
    "it": rf"(?:{_SUBJECT}\s+(?:\S+\s+)?(?:è|diventa)|\bsei|\bdiventi|{MARK}\W*\s+che\s+(?:non\s+)?è)",
    "de": rf"(?:(?:{_SUBJECT}|du)\s+(?:\S+\s+)?(?:ist|bist|wird|wirst)|(?:bist|wirst)\s+du)",
}
# "As" before a title said of a player or the reader ("Als Anführer legst du"); a cast list's "als" before a
# character is :func:`gendered_characters`' matter (fine there).
AS = {"en": None, "ru": None, "fr": r"\ben tant que|\bcomme", "es": r"\bcomo", "pt": r"\bcomo", "it": r"\bcome",
      "de": r"\bals"}
# The placeholders a list of players' names fills ("Carol, Dave"): a label before or after them is said of them.
NAME_LIST = {"names", "team", "approve", "reject"}
LIST = "\ue003"
# {role} is the bare name ("Assassine"), except where the code passes ``role_a`` (with its article):
# messages/role_card.py (the role card) and messages/view_lines.py (a character shown on the board).
ROLE_A_KEYS = {"role.you_are", "role.you_are_named", "board.line.revealed", "board.line.revealed_named"}


def _role_ids(lang: str) -> list[str]:
    return sorted(k.removeprefix("role_a.") for k in texts.catalog(lang).messages if k.startswith("role_a."))


def rendered_with_words(lang: str, key: str, template: str, theme: str) -> list[str]:
    """``rendered``, with a list of players as ``LIST`` and the catalog's words in {role} and {label}: one text
    per character (``role.<id>``, or ``role_a.<id>`` where the code passes it) or per ``know.<label>``."""
    words = texts.vocab(lang, theme)
    fills: list[dict[str, str]] = [{}]
    if "{role}" in template:
        prefix = "role_a." if key in ROLE_A_KEYS else "role."
        fills = [{"role": texts.t(prefix + r, lang, theme)} for r in _role_ids(lang)]
    elif "{label}" in template:
        fills = [{"label": texts.t(k, lang, theme)} for k in texts.catalog(lang).messages if k.startswith("know.")]
    out = []
    for fill in fills:
        def value(m: re.Match[str], fill: dict[str, str] = fill) -> str:
            name = re.split(r"[,!:.\[]", m.group(1))[0].strip()
            if name in PLAYER:
                return MARK
            if name in NAME_LIST:
                return LIST
            return fill.get(name) or words.get(name, OTHER)

        text = re.sub(r"\{([^{}]*)\}", value, plurals.flatten(template))
        out.append(re.sub(r"</?\w+>", "", text))  # "<b>Assassine</b>" is read as "Assassine"
    return out


def gendered_titles(lang: str, text: str) -> list[str]:
    """(a) a gendered title as a player's label ("Gastgeber: {host}", "der Gastgeber ({host})"), (b) in brackets
    after a name ("{leader} (Anführer)"), (c) said to be a player's or the reader's ("Du bist der Anführer")."""
    if not GENDERED_TITLES[lang]:
        return []
    title = rf"\b(?:{'|'.join(GENDERED_TITLES[lang])})\b"
    who = f"[{MARK}{LIST}]"
    patterns = [rf"{title}\s*(?::|\(|—)\s*{who}", rf"{who}\s*\(\s*{title}",
                rf"{who}\s*:\s*(?:\S+\s+){{0,2}}?{title}"]  # "• Bob: erster Anführer"
    if AS[lang]:  # "Als Anführer legst du ...": the title said of the reader
        patterns.append(rf"(?i:{AS[lang]})\s+{title}")
    if IS[lang]:
        patterns.append(rf"{IS[lang]}\s+(?:\S+\s+){{0,2}}?{title}")
    return [m.group(0) for p in patterns for m in re.finditer(p, text, re.I)]


def gendered_characters(lang: str, text: str) -> list[str]:
    """(c) a sentence that says a player or the reader is a gendered character ("Du bist der Assassine",
    "Você é o Assassino"), (d) a gendered character as a player's label ("Laura: Assassino", "Carol (Böser
    Schurke)", "Assassine: Carol"). A cast list ("Carol als Assassine", "Laura como Assassino") is fine."""
    if not GENDERED_CHARACTERS[lang]:
        return []
    character = rf"\b(?:{'|'.join(GENDERED_CHARACTERS[lang])})\b"
    who = f"[{MARK}{LIST}]"
    adjective = r"(?:[A-ZÀ-ÝÄÖÜ]\w*\s+)?"  # "Böser Schurke", "Leal Servo" (character names are capitalised)
    patterns = [rf"{who}\s*(?::|\(|—|–)\s*(?:l')?{adjective}{character}", rf"{character}\s*:\s*{who}"]
    if IS[lang]:
        article = ARTICLES[lang] or "(?!)"
        patterns.append(rf"(?i:{IS[lang]})\s+(?:\S+\s+){{0,1}}?(?:(?i:{article})\s+|l')?{adjective}{character}")
    return [m.group(0) for p in patterns for m in re.finditer(p, text)]


def gendered_article_after_is(lang: str, text: str) -> list[str]:
    """(c) for the Leader's word, the same for everyone: a gendered article makes it a man's ("Carol es ahora el
    Líder"), also as a player's label ("• Carol: el primer Líder", what the Cleric learns)."""
    if ARTICLES[lang] is None:
        return []
    leader = "|".join(re.escape(texts.vocab(lang, theme)["Leader"]) for theme in ("avalon", "resistance"))
    said = [rf"[{MARK}{LIST}]\s*:\s*(?:{ARTICLES[lang]})\s+(?:\S+\s+)?(?:{leader})\b"]
    if IS[lang]:
        said.append(rf"{IS[lang]}\s+(?:\S+\s+)?(?:{ARTICLES[lang]})\s+(?:\S+\s+)?(?:{leader})\b")
    return [m.group(0) for p in said for m in re.finditer(p, text)]


def said_of_a_player(lang: str) -> list[str]:
    found = []
    for key, entry in texts.catalog(lang).messages.items():
        for theme in ("avalon", "resistance"):
            template = entry if isinstance(entry, str) else entry.get(theme) or entry.get("*") or next(iter(entry.values()))
            for text in rendered_with_words(lang, key, template, theme):
                for hit in gendered_titles(lang, text) + gendered_characters(lang, text) + \
                        gendered_article_after_is(lang, text):
                    found.append(f"{key} ({theme}): {hit.replace(MARK, '{player}').replace(LIST, '{players}')!r}")
    return sorted(set(found))


@pytest.mark.parametrize("lang", LANGS)
def test_no_gendered_title_or_character_is_said_of_a_player(lang):
    assert said_of_a_player(lang) == []


def test_the_gendered_words_are_the_catalogs_words():
    """Every listed word is a word of its catalog: a title in ``vocab`` or the messages, a character in a
    character's name (or a Messenger's rank)."""
    for lang in LANGS:
        names = " ".join(str(texts.t(f"role.{r}", lang, th)) for r in _role_ids(lang) for th in ("avalon", "resistance"))
        names += " " + " ".join(str(texts.t(k, lang)) for k in texts.catalog(lang).messages if k.startswith("rank."))
        for word in GENDERED_CHARACTERS[lang]:
            assert re.search(rf"\b{word}\b", names), (lang, word)
        everything = str(texts.catalog(lang).messages) + str(texts.vocab(lang, "avalon"))
        for word in GENDERED_TITLES[lang]:
            assert re.search(rf"\b{word}\b", everything, re.I), (lang, word)


def test_the_check_finds_gendered_titles_and_characters():
    # (a) a gendered title as a label of a player (the old German and Portuguese lobbies, the board)
    assert gendered_titles("de", f"Gastgeber: {MARK}") == [f"Gastgeber: {MARK}"]
    assert gendered_titles("pt", f"Anfitrião: {MARK}") == [f"Anfitrião: {MARK}"]
    assert gendered_titles("de", f"👑 Anführer: {MARK}") == [f"Anführer: {MARK}"]
    assert gendered_titles("de", f"Nur der Gastgeber ({MARK}) kann das tun.") == [f"Gastgeber ({MARK}"]
    assert gendered_titles("es", f"Líder: {MARK}") == []  # (the same for everyone)
    assert gendered_titles("de", f"• {MARK}: erster Anführer") == [f"{MARK}: erster Anführer"]
    assert gendered_titles("de", "Als Anführer legst du danach eine Karte beiseite") == ["Als Anführer"]
    # ... or its article, in what the Cleric learns of the first Leader ("• Bob: el primer Líder")
    assert gendered_article_after_is("es", f"• {MARK}: el primer Líder") == [f"{MARK}: el primer Líder"]
    assert gendered_article_after_is("es", f"• {MARK}: lidera la primera ronda") == []
    # (b) a gendered title in brackets after a name (the old German vote)
    assert gendered_titles("de", f"{MARK} (Anführer) schlägt vor") == [f"{MARK} (Anführer"]
    assert gendered_titles("fr", f"{MARK} (Roi) propose") == [f"{MARK} (Roi"]
    assert gendered_titles("fr", f"{MARK} (Chef) propose") == []
    # (c) a player or the reader is a gendered title or character
    assert gendered_titles("de", f"👑 {MARK} ist jetzt der Anführer.") == [f"{MARK} ist jetzt der Anführer"]
    assert gendered_characters("de", "Du bist der Assassine — Böse.") == ["Du bist der Assassine"]
    assert gendered_characters("pt", "Você é o Assassino, do lado do Mal.") == ["Você é o Assassino"]
    assert gendered_characters("es", "Eres el Asesino.") == ["Eres el Asesino"]
    assert gendered_characters("de", f"🎭 {MARK} ist der Enthüller (Böse)") == [f"{MARK} ist der Enthüller"]
    assert gendered_characters("de", "Du bist Merlin.") == []
    assert gendered_characters("fr", f"{MARK}... qui n'est pas le Vassal Peu Fiable.") == [f"{MARK}... qui n'est pas le Vassal"]
    assert gendered_characters("fr", "Le Messager aîné sait qui est le Messager cadet.") == []  # (who: a character)
    assert gendered_characters("it", f"{MARK}... il cui ruolo non è il Servitore Inaffidabile.") == []
    assert gendered_article_after_is("es", f"👑 {MARK} es ahora el Líder.") == [f"{MARK} es ahora el Líder"]
    # (d) a gendered character as a player's label (the old end's role list, the Rogue's victory)
    assert gendered_characters("pt", f"🗡 {MARK}: Assassino (Mal)") == [f"{MARK}: Assassino"]
    assert gendered_characters("de", f"🏴 {MARK} (Böser Schurke) gewinnt allein!") == [f"{MARK} (Böser Schurke"]
    assert gendered_characters("de", f"• {LIST}: Assassine") == [f"{LIST}: Assassine"]
    assert gendered_characters("de", f"🗡 {MARK}: Merlin (Gut)") == []
    assert gendered_characters("pt", f"🗡 {MARK} como Assassino (Mal)") == []  # (a cast list)
    assert gendered_characters("ru", f"🗡 {MARK}: Ассасин (Зло)") == []  # (Russian: see GENDERED_TITLES)
    # the old catalogs' strings, rendered as the check renders them
    old = {("de", "lobby.host"): "Gastgeber: {host}", ("de", "vote.title"): "{leader} ({Leader}) schlägt vor",
           ("de", "role.you_are"): "Du bist <b>{role}</b> — {side}.", ("pt", "end.role_line"): "{icon} {name}: <b>{role}</b> ({side})"}
    for (lang, key), template in old.items():
        assert any(gendered_titles(lang, t) + gendered_characters(lang, t)
                   for t in rendered_with_words(lang, key, template, "avalon")), (lang, key)


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
