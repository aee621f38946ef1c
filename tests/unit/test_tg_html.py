"""The playground renders the bot's Telegram HTML safely (localdev/tg_html.py)."""
from __future__ import annotations

from localdev.tg_html import deep_link_payload, render

BOT = "AvalonTestBot"


def test_the_supported_formatting_is_kept():
    text = "<b>bold</b> <i>it</i> <u>u</u> <s>s</s> <code>x&lt;y</code>\n<pre>a &amp; b</pre> <strong>S</strong> <em>E</em>"
    assert render(text) == (
        "<b>bold</b> <i>it</i> <u>u</u> <s>s</s> <code>x&lt;y</code>\n<pre>a &amp; b</pre> <b>S</b> <i>E</i>"
    )


def test_mentions_and_deep_links_become_page_actions():
    out = render('👑 <a href="tg://user?id=1001">Alice</a>, tap <a href="https://t.me/AvalonTestBot?start=j-abc_1">here</a>', BOT)
    assert '<a class="mention" data-user="1001">Alice</a>' in out
    assert '<a class="deeplink" href="#" data-start="j-abc_1">here</a>' in out


def test_other_links_open_a_new_tab_and_unsafe_schemes_are_dropped():
    out = render('<a href="https://example.org/?a=1&amp;b=&quot;2&quot;">ok</a> <a href="javascript:alert(1)">bad</a>')
    assert '<a href="https://example.org/?a=1&amp;b=&quot;2&quot;" target="_blank" rel="noopener noreferrer">ok</a>' in out
    assert "javascript" not in out and out.endswith(" bad")


def test_nothing_can_inject_markup_or_script():
    out = render('<script>alert(1)</script><img src=x onerror=alert(1)><b onclick="x()">hi</b>'
                 '<span class="tg-spoiler">secret</span><tg-spoiler>s2</tg-spoiler> 1 &lt; 2 <unclosed')
    assert "<script" not in out and "<img" not in out and "onclick" not in out and "onerror" not in out
    assert "alert(1)" in out  # the script's text is shown as text, not run
    assert '<b>hi</b><span class="spoiler">secret</span><span class="spoiler">s2</span> 1 &lt; 2' in out


def test_unbalanced_tags_are_closed():
    assert render("<b>open <i>both") == "<b>open <i>both</i></b>"
    assert render("stray</b> end") == "stray end"


def test_deep_link_payloads_only_for_this_bot():
    assert deep_link_payload("https://t.me/AvalonTestBot?start=r-1", BOT) == "r-1"
    assert deep_link_payload("https://t.me/avalontestbot?start=x", BOT) == "x"
    assert deep_link_payload("https://t.me/AvalonTestBot", BOT) == ""
    assert deep_link_payload("https://t.me/OtherBot?start=x", BOT) is None
    assert deep_link_payload("https://example.org/AvalonTestBot?start=x", BOT) is None


def test_a_date_time_is_marked_for_the_page_to_show_in_the_readers_zone():
    shown = render('until <tg-time unix="1800000000" format="t">08:00 UTC</tg-time>')
    assert shown == 'until <time class="tg-time" data-unix="1800000000" data-format="t">08:00 UTC</time>'
    assert render('<tg-time unix="x" onclick="a()">08:00 UTC</tg-time>') == "08:00 UTC"  # (no attribute leaks)


def test_the_fake_bot_api_accepts_a_date_time_like_telegram():
    from localdev.fake_telegram import html_to_plain

    assert html_to_plain('⏱ until <tg-time unix="1800000000" format="t">08:00 UTC</tg-time>') == "⏱ until 08:00 UTC"
