"""Markup is safe by construction (``gamebot.language.markup.Html``): only escaped text, the catalog's templates and
the code's own literal tags make it; its operations escape what is not markup; ``plain`` is what Telegram
shows; the Bot API module refuses a plain string for an HTML method and markup for a button's answer."""
from __future__ import annotations

import ast
import asyncio
import pathlib
from typing import Any

import pytest

from gamebot.botapi.telegram_io import Btn, Out, TelegramIO, response_method
from gamebot.language import texts
from gamebot.language.markup import Html, NotMarkup, cap, escape, plain, require, require_plain, restored
from gamebot.messages.table import Table, split
from localdev.fake_telegram import html_to_plain

HOSTILE = ["Tom & <Jerry>", "<b>bold</b>", '<a href="tg://user?id=1">x</a>', "a&amp;b", 'say "hi"', "it's"]
SHARED = pathlib.Path(__file__).resolve().parents[2] / "shared" / "gamebot"


# --- the type --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", HOSTILE)
def test_escape_shows_any_text_literally_and_telegram_accepts_it(name: str) -> None:
    shown = escape(name)
    assert isinstance(shown, Html)
    assert "<" not in shown and ">" not in shown and '"' not in shown
    assert html_to_plain(shown) == name  # the fake Bot API parses HTML as Telegram does
    assert plain(shown) == name


def test_escape_keeps_markup_as_it_is_and_never_escapes_twice() -> None:
    bold = Html("<b>{}</b>").format("a&b")
    assert bold == "<b>a&amp;b</b>"
    assert escape(bold) is bold
    assert escape(escape("a&b")) == "a&amp;b"


def test_concatenation_escapes_the_plain_operand_on_either_side() -> None:
    name = "<i>Eve</i>"
    assert Html("<b>x</b>") + name == "<b>x</b>&lt;i&gt;Eve&lt;/i&gt;"
    assert name + Html("<b>x</b>") == "&lt;i&gt;Eve&lt;/i&gt;<b>x</b>"
    assert isinstance("plain" + Html("x"), Html) and isinstance(Html("x") + "plain", Html)
    text = "<b>"
    text += Html("<i>x</i>")  # a plain string never opens a tag, even when markup follows it
    assert isinstance(text, Html) and html_to_plain(text) == "<b>x"
    both = Html("<b>a</b>") + Html("<i>b</i>")
    assert both == "<b>a</b><i>b</i>" and isinstance(both, Html)


def test_join_and_format_escape_plain_parts_and_keep_numbers_and_markup() -> None:
    joined = Html(", ").join(["<x>", Html("<b>y</b>"), 3])
    assert joined == "&lt;x&gt;, <b>y</b>, 3" and isinstance(joined, Html)
    link = Html('<a href="tg://user?id={}">{}</a>').format(42, '"><b>evil</b>')
    assert link == '<a href="tg://user?id=42">&quot;&gt;&lt;b&gt;evil&lt;/b&gt;</a>'
    assert html_to_plain(link) == '"><b>evil</b>'
    assert Html("{n:02d} {x}").format(n=7, x="&") == "07 &amp;"  # a number keeps its format spec
    assert Html("{a}").format_map({"a": "<"}) == "&lt;"


def test_what_loses_the_type_is_a_plain_string() -> None:
    text = Html("<b>a</b>\n<i>b</i>")
    for lost in (text[:3], "\n".join([text]), f"{text}", text.replace("a", "c"), text.split("\n")[0], str(text)):
        assert type(lost) is str
    assert text.lines() == ["<b>a</b>", "<i>b</i>"] and all(isinstance(x, Html) for x in text.lines())


def test_plain_is_what_telegram_shows() -> None:
    text = Html("<b>Tom &amp; &lt;Jerry&gt;</b> <a href=\"tg://user?id=1\">a&amp;amp;b</a> &quot;x&quot;")
    assert plain(text) == html_to_plain(text) == 'Tom & <Jerry> a&amp;b "x"'
    assert plain("a &amp; <b>") == "a &amp; <b>"  # a plain string is already what is shown
    assert plain(None) == ""


def test_cap_keeps_the_kind() -> None:
    assert cap(Html("é &amp; <b>x</b>")) == "É &amp; <b>x</b>" and isinstance(cap(Html("a")), Html)
    assert cap("abc") == "Abc" and type(cap("abc")) is str


def test_restored_is_markup_again() -> None:
    assert isinstance(restored("<b>x</b>"), Html) and restored(None) is None


# --- the catalog ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", HOSTILE)
def test_the_catalog_escapes_every_value_that_is_not_markup(name: str) -> None:
    text = texts.t("lobby.only_host", "en", host=name)
    assert isinstance(text, Html)
    assert html_to_plain(text) == f"Only the host ({name}) can do that."
    wrapped = texts.t("lobby.only_host", "en", host=Html("<b>{}</b>").format(name))
    assert wrapped.startswith("Only the host (<b>") and html_to_plain(wrapped) == html_to_plain(text)


def test_numbers_and_plurals_still_fill_the_templates() -> None:
    assert plain(texts.t("lobby.players", "en", count=1)) != plain(texts.t("lobby.players", "en", count=3))
    assert "3" in texts.t("lobby.players", "en", count=3)
    assert "3" in texts.t("lobby.players", "ru", count=3)


def test_join_names_escapes_names_and_keeps_markup() -> None:
    joined = texts.join_names(["<a>", Html("<b>b</b>"), "c&d"], "en")
    assert isinstance(joined, Html) and html_to_plain(joined) == "<a>, b and c&d"
    assert texts.join_names(["<only>"], "en") == "&lt;only&gt;"


def test_no_tag_of_a_catalog_template_spans_a_line_break() -> None:
    """``Html.lines`` and ``split`` cut markup at line breaks: no template may open a tag on one line
    and close it on another."""
    for lang in texts.languages():
        for entry in texts.catalog(lang).messages.values():
            for template in entry.values() if isinstance(entry, dict) else [entry]:
                for line in template.split("\n"):
                    html_to_plain(Html(line.replace("{", "(").replace("}", ")")))  # (400 if unbalanced)


# --- the table and buttons ----------------------------------------------------------------------------


def test_the_table_names_players_as_markup_and_buttons_keep_names_raw() -> None:
    table = Table(chat_id=-1, game_id="g", names=HOSTILE, user_ids=list(range(1, len(HOSTILE) + 1)))
    for seat, name in enumerate(HOSTILE):
        assert html_to_plain(table.name(seat)) == name
        assert html_to_plain(table.mention(seat)) == name
        assert table.mention(seat).startswith(f'<a href="tg://user?id={seat + 1}">')
    assert html_to_plain(table.names_of(range(len(HOSTILE)))).count("&amp;") == 1  # only "a&amp;b"'s own
    label = Btn(Html("✅ ") + table.name(0))
    assert label.text == "✅ Tom & <Jerry>" and type(label.text) is str
    assert Btn("a&amp;b").text == "a&amp;b"  # a plain label is shown as it is


def test_split_cuts_markup_at_line_breaks_only() -> None:
    text = Html("\n").join([Html("<b>{}</b>").format("x" * 60)] * 200)
    parts = split(text, limit=500)
    assert len(parts) > 1 and all(isinstance(p, Html) and len(p) <= 500 for p in parts)
    assert all(html_to_plain(p) for p in parts)
    long = escape("<" * 2000)  # one line longer than a message: cut in its shown text
    cut = split(long, limit=500)
    assert all(len(p) <= 500 for p in cut) and "".join(html_to_plain(p) for p in cut) == "<" * 2000
    with pytest.raises(NotMarkup):
        split("plain <b>")  # type: ignore[arg-type]


# --- the Bot API module refuses -----------------------------------------------------------------


class _Bot:
    """Records the Bot API calls ``TelegramIO`` makes."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        async def call(**kwargs: Any) -> Any:
            self.calls.append((name, kwargs))
            return type("Msg", (), {"message_id": 7})()

        return call


@pytest.mark.parametrize("op", ["send", "edit", "photo"])
def test_telegram_io_refuses_a_plain_string_for_an_html_method(op: str) -> None:
    bot = _Bot()
    io = TelegramIO(bot=bot)  # type: ignore[arg-type]
    out = Out(op, chat_id=1, message_id=5, text="Only the host (Tom & <Jerry>) can do that.", photo=b"png")
    with pytest.raises(NotMarkup):
        asyncio.run(io.run([out]))
    assert bot.calls == []  # nothing reached Telegram
    asyncio.run(io.run([Out(op, chat_id=1, message_id=5, text=escape("Tom & <Jerry>"), photo=b"png")]))
    assert len(bot.calls) == 1


def test_telegram_io_refuses_markup_for_a_buttons_answer() -> None:
    bot = _Bot()
    io = TelegramIO(bot=bot)  # type: ignore[arg-type]
    with pytest.raises(NotMarkup):
        asyncio.run(io.run([Out("answer", callback_id="q", text=Html("<b>x</b>"))]))
    asyncio.run(io.run([Out("answer", callback_id="q", text="Tom & <Jerry>")]))
    assert bot.calls[0][1]["text"] == "Tom & <Jerry>"


def test_the_webhook_answer_takes_markup_for_a_message_and_plain_text_for_a_press() -> None:
    with pytest.raises(NotMarkup):
        response_method("send", chat_id=1, text="a & <b>")
    assert response_method("send", chat_id=1, text=escape("a & <b>"))["text"] == "a &amp; &lt;b&gt;"
    with pytest.raises(NotMarkup):
        response_method("answer", callback_id="q", text=Html("<b>x</b>"))
    assert response_method("answer", callback_id="q", text="a & <b>")["text"] == "a & <b>"
    assert require(None, "x") is None and require_plain(None, "x") is None


# --- only literals build markup in the code --------------------------------------------------------

# Where ``Html(...)`` may take what is not a literal: the type itself, the catalog (its templates), and
# where a text the bot stored as markup becomes markup again.
MAY_BUILD = {"markup.py", "texts.py"}


def _html_calls(tree: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and (
        isinstance(n.func, ast.Name) and n.func.id == "Html"
        or isinstance(n.func, ast.Attribute) and n.func.attr == "Html")]


def test_the_code_builds_markup_from_literals_only() -> None:
    """Markup cannot come from user text by mistake: outside the type and the catalog, ``Html(...)`` is only
    ever called with a string literal (the code's own tags); every other text is escaped or composed."""
    found = []
    for path in sorted(SHARED.rglob("*.py")):
        if path.name in MAY_BUILD:
            continue
        for call in _html_calls(ast.parse(path.read_text(encoding="utf-8"))):
            literal = (len(call.args) == 1 and not call.keywords and isinstance(call.args[0], ast.Constant)
                       and isinstance(call.args[0].value, str))
            if not literal:
                found.append(f"{path.relative_to(SHARED)}:{call.lineno}")
    assert found == []
    assert any(_html_calls(ast.parse((SHARED / "messages" / "table.py").read_text())))  # (the check sees calls)


def test_only_the_outbox_and_the_vote_messages_intro_restore_stored_markup() -> None:
    """A text the bot stored (as JSON: a plain string again) becomes markup again where the outbox gives
    its Bot API call back (``delivery.to_out``) and where the vote message's kept intro is read."""
    callers = sorted(
        str(path.relative_to(SHARED)) for path in SHARED.rglob("*.py") if path.name != "markup.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "restored")
    assert callers == ["messages/round_message.py", "outbox/delivery.py"]


# --- answers: markup for a command's reply, plain text for a press ---------------------------------


def _job(callback: bool) -> Any:
    from types import SimpleNamespace

    from gamebot.handlers.handling import Job

    update = SimpleNamespace(effective_chat=SimpleNamespace(id=-5))
    return Job(update=update, update_id=1, callback_id="q1" if callback else None)  # type: ignore[arg-type]


def test_an_answer_is_html_for_a_command_and_plain_text_for_a_press() -> None:
    from gamebot.handlers.handling import respond
    from gamebot.outbox.plan import Plan, Reply

    text = texts.t("lobby.only_host", "en", host="Tom & <Jerry>")
    job = _job(callback=False)
    respond(job, Plan(answer=text))
    assert job.response["method"] == "sendMessage" and job.response["parse_mode"] == "HTML"
    assert html_to_plain(job.response["text"]) == "Only the host (Tom & <Jerry>) can do that."
    job = _job(callback=True)
    respond(job, Plan(answer=text, alert=True))
    assert job.response == {"method": "answerCallbackQuery", "callback_query_id": "q1", "show_alert": True,
                            "text": "Only the host (Tom & <Jerry>) can do that."}
    with pytest.raises(NotMarkup):
        Reply("Only the host (Tom & <Jerry>) can do that.")  # type: ignore[arg-type]
    assert Reply(text).text is text


def test_a_text_stored_in_the_outbox_is_markup_again_when_it_is_sent() -> None:
    from gamebot.outbox.delivery import to_effect, to_out
    from gamebot.storage.effects import Effect

    out = Out("send", chat_id=-5, text=texts.t("lobby.only_host", "en", host="<b>x</b>"),
              keyboard=[[Btn(escape("Tom & <Jerry>"), "d")]])
    stored = Effect.model_validate_json(to_effect(out).model_dump_json())
    assert type(stored.text) is str  # (JSON: plain again)
    again = to_out(stored, None, lambda s, e: None)
    assert isinstance(again.text, Html) and again.text == out.text
    assert again.keyboard[0][0].text == "Tom & <Jerry>"  # a label stays plain text
