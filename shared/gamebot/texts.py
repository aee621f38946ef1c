"""Every user-facing string of the bot, in one catalog (English first), ready for translation.

``t(key, lang, theme, **params)`` looks ``key`` up in ``CATALOG[lang]`` (falling back to English). An
entry is a template string, or a dict of templates per theme (``"avalon"`` / ``"resistance"``; the key
``"*"`` is the default). Templates use ``str.format`` placeholders: the call's params plus the theme
vocabulary in ``VOCAB`` (``{Quest}``, ``{quest}``, ``{Good}``, ``{Evil}``, ``{servant}``, ``{minion}``,
``{game}``...). Templates are Telegram HTML: callers escape the values they pass in (names).

Names of roles, modules, cards, prompts and knowledge labels come from the catalog (``role.<id>``,
``module.<id>``...) with a readable fallback built from the id, so plug-ins added to the engine later
show up without code changes here (and can be given proper names by adding catalog entries).
"""
from __future__ import annotations

from typing import Any

DEFAULT_LANG = "en"

VOCAB: dict[str, dict[str, dict[str, str]]] = {
    "en": {
        "avalon": {
            "game": "Avalon",
            "Quest": "Quest",
            "quest": "quest",
            "Quests": "Quests",
            "quests": "quests",
            "Good": "Good",
            "Evil": "Evil",
            "good_team": "the Loyal Servants of Arthur",
            "evil_team": "the Minions of Mordred",
            "servant": "Loyal Servant of Arthur",
            "minion": "Minion of Mordred",
            "Leader": "Leader",
            "success": "Success",
            "fail": "Fail",
            "Team": "Team",
        },
        "resistance": {
            "game": "The Resistance",
            "Quest": "Mission",
            "quest": "mission",
            "Quests": "Missions",
            "quests": "missions",
            "Good": "Resistance",
            "Evil": "Spies",
            "good_team": "the Resistance",
            "evil_team": "the Spies",
            "servant": "Resistance Operative",
            "minion": "Spy",
            "Leader": "Leader",
            "success": "Mission Success",
            "fail": "Mission Fail",
            "Team": "Mission Team",
        },
    },
}

E = "en"

CATALOG: dict[str, dict[str, Any]] = {
    E: {
        # --- general -------------------------------------------------------------------------
        "theme.avalon": "Avalon",
        "theme.resistance": "The Resistance",
        "side.good": {"avalon": "Good", "resistance": "Resistance"},
        "side.evil": {"avalon": "Evil", "resistance": "Spy"},
        "side.good.team": {"avalon": "Good (Loyal Servants of Arthur)", "resistance": "the Resistance"},
        "side.evil.team": {"avalon": "Evil (Minions of Mordred)", "resistance": "the Spies"},
        "yes": "on",
        "no": "off",
        "none": "none",
        "and": "and",
        "unknown_player": "someone",
        "seat_name": "Player {n}",
        "error.generic": "Sorry, something went wrong. Please try again.",
        "error.stale": "This button is out of date.",
        "error.not_in_game": "You are not playing in this game.",
        "error.not_your_turn": "It is not your turn: waiting for {who}.",
        "error.not_your_turn_hidden": "It is not your turn.",
        "error.group_only": "This works in a group: add me to a group and send /newgame there.",
        "error.private_only": "Send me this in a private chat.",
        "illegal": "{reason}",
        # --- help, rules, start ----------------------------------------------------------------
        "help.title": "<b>Avalon &amp; The Resistance game master</b>",
        "help.body": (
            "Play <i>The Resistance</i> or <i>Avalon</i> with friends in a group. I deal the secret roles "
            "by private message and run the table with buttons.\n\n"
            "1. Everyone opens a private chat with me once (tap Start) so I can send secret roles.\n"
            "2. In the group, someone sends /newgame; players tap Join; the host picks the settings and taps Start.\n"
            "3. The Leader chooses a team in the group, everybody votes, and the team plays cards in private."
        ),
        "help.commands": "<b>Commands</b>",
        "help.command_line": "/{command} — {description}",
        "start.welcome": (
            "Hello {name}! I can now send you secret roles and quest cards.\n"
            "To play, add me to a group and send /newgame there, or tap Join on a game in your group."
        ),
        "start.reconnected": "Welcome back, {name}: you are playing in <b>{title}</b>. Your role and what you must do now:",
        "start.joined": "You joined the game in <b>{title}</b>. Wait for the host to start it.",
        "start.join_failed": "I could not add you to that game: {reason}",
        "start.game_gone": "that game is no longer open.",
        "rules.avalon": (
            "<b>Avalon in short</b>\n"
            "{good_team} (Good) and {evil_team} (Evil) play in secret. Each round the Leader proposes a team; "
            "everyone votes Approve or Reject (a tie rejects; five rejected teams in a row and Evil wins). "
            "The team then plays Quest cards in secret: Good must play Success, Evil may play Fail. One Fail "
            "fails the Quest (two on the 4th Quest with 7 or more players). Three successful Quests win for Good, "
            "three failed ones for Evil; but if Good wins and Merlin is in play, the Assassin may still name "
            "Merlin and steal the victory."
        ),
        "rules.resistance": (
            "<b>The Resistance in short</b>\n"
            "The Resistance and the Spies play in secret; the Spies know each other. Each round the Leader "
            "proposes a Mission Team; everyone votes Approve or Reject (a tie rejects; five rejected teams in "
            "a row and the Spies win). The team plays Mission cards in secret: Resistance must play Success, "
            "Spies may play Fail. One Fail fails the Mission (two on the 4th Mission with 7 or more players). "
            "Three successful Missions win for the Resistance, three failed ones for the Spies."
        ),
        "rules.roles_in_play": "<b>Characters in this game</b>",
        "rules.role_line": "• <b>{role}</b> ({side}): {help}",
        "rules.modules_in_play": "<b>Options</b>",
        "rules.module_line": "• <b>{module}</b>: {help}",
        # --- lobby ---------------------------------------------------------------------------------
        "lobby.title": "🎲 <b>New game of {game}</b>",
        "lobby.host": "Host: {host}",
        "lobby.players": "Players ({count}/10):",
        "lobby.player_line": "{n}. {name}",
        "lobby.no_players": "Nobody yet: tap Join.",
        "lobby.need_more": "At least 5 players are needed to start.",
        "lobby.settings": "Characters: {roles}",
        "lobby.options": "Options: {options}",
        "lobby.howto": "Tap Join (I must be able to message you privately: the button opens our chat if needed).",
        "lobby.button.join": "🙋 Join",
        "lobby.button.leave": "🚪 Leave",
        "lobby.button.start": "▶️ Start",
        "lobby.button.settings": "⚙️ Settings",
        "lobby.button.open_bot": "💬 Open private chat",
        "lobby.joined": "You joined the game.",
        "lobby.already_joined": "You are already in this game.",
        "lobby.left": "You left the game.",
        "lobby.not_joined": "You are not in this game.",
        "lobby.full": "The table is full (10 players).",
        "lobby.in_other_game": "You are already playing in another game ({title}). Leave it first.",
        "lobby.need_private": "Open a private chat with me first: then you will be added to the game.",
        "lobby.only_host": "Only the host ({host}) can do that.",
        "lobby.not_enough": "You need 5 to 10 players to start (now {count}).",
        "lobby.config_errors": "These settings cannot be played:\n{errors}",
        "lobby.unreachable": "I cannot message these players privately: {names}. They must open a chat with me first: {link}",
        "lobby.closed": "The lobby was closed: no players left.",
        "lobby.settings_sent": "Settings sent to you in our private chat.",
        "newgame.exists": "A game is already running in this group. Use /status to see it, or /cancel to end it.",
        "newgame.created": "Lobby opened.",
        "newgame.host_not_reachable": "{name}, open a private chat with me so I can add you to the game: {link}",
        # --- settings (host, private) ------------------------------------------------------------
        "settings.title": "⚙️ <b>Settings for {title}</b>",
        "settings.for_players": "Checked for {players} players.",
        "settings.theme": "Game: <b>{game}</b>",
        "settings.roles": "Characters: {roles}",
        "settings.options": "Options: {options}",
        "settings.assassin": "Assassinates Merlin: {role}",
        "settings.assassin_auto": "automatic",
        "settings.errors": "❌ {message}",
        "settings.warnings": "⚠️ {message}",
        "settings.ok": "✅ These settings can be played.",
        "settings.button.theme": "🎭 Game: {game}",
        "settings.button.roles": "🧙 Characters",
        "settings.button.modules": "🧩 Options",
        "settings.button.presets": "📋 Presets",
        "settings.button.back": "⬅️ Back",
        "settings.button.done": "✅ Done",
        "settings.button.assassin": "🗡 Assassin: {role}",
        "settings.page.roles": "Tap a character to add or remove it. Plain {servant}s and {minion}s fill the other seats.",
        "settings.page.modules": "Tap an option to switch it on or off.",
        "settings.page.presets": "Tap a preset to use it.",
        "settings.done": "Settings saved.",
        "settings.not_lobby": "The game has already started or was closed.",
        "settings.changed": "The host changed the settings.",
        # --- game: board ----------------------------------------------------------------------------
        "board.title": "📜 <b>{game}</b> · {players} players",
        "board.quests": "{Quests}: {track}",
        "board.quest_cell.pending": "{n}️⃣ {size}{star}",
        "board.quest_cell.success": "✅",
        "board.quest_cell.fail": "❌",
        "board.two_fails": "* needs two fails",
        "board.vote_track": "Rejected teams this round: {dots} ({count}/5)",
        "board.leader": "👑 {Leader}: {name}",
        "board.lady": "🌊 Lady of the Lake: {name}",
        "board.players": "Seats: {names}",
        "board.waiting": "⏳ Waiting for: {who} ({what})",
        "board.waiting_many": "⏳ Now: {what} (see below)",
        "board.waiting_hidden": "⏳ Waiting for a secret decision ({what})",
        "board.ended": "🏁 Game over.",
        "board.cancelled": "🛑 Game cancelled.",
        "board.extra": "{name}: {value}",
        # --- game: announcements (public) -----------------------------------------------------------
        "ev.GameStarted": (
            "🎬 <b>The game begins!</b> {players} players. I have sent everyone their secret role in private: "
            "check our private chat."
        ),
        "ev.RoundStarted": "🔔 <b>Round {round}</b> · {Leader}: {leader}",
        "ev.LadyGiven": "🌊 {seat} receives the Lady of the Lake.",
        "ev.VotesRevealed": "🗳 <b>Votes</b>\n✅ Approve: {approve}\n❌ Reject: {reject}",
        "ev.TeamApproved": "👍 The team is <b>approved</b>: {team}.",
        "ev.TeamRejected": "👎 The team is <b>rejected</b> ({rejections}/5 this round).",
        "ev.QuestStarted": "⚔️ {Quest} {quest}: {team} now play their cards in private.",
        "ev.QuestCompleted.success": "✅ <b>{Quest} {quest} succeeded</b> ({cards}).",
        "ev.QuestCompleted.fail": "❌ <b>{Quest} {quest} failed</b> ({cards}).",
        "ev.QuestCompleted.note": "   {note}",
        "ev.LadyUsed": "🌊 {holder} uses the Lady of the Lake on {target}.",
        "ev.AssassinationStarted": (
            "🗡 Good has completed three {quests}! But Evil has one last chance: {assassin} must now name Merlin."
        ),
        "ev.AssassinationAttempted.hit": "🗡 {assassin} names {target}... and {target} <b>is</b> Merlin!",
        "ev.AssassinationAttempted.miss": "🗡 {assassin} names {target}... who is <b>not</b> Merlin!",
        "ev.LeaderChanged": "👑 {leader} is now the {Leader}.",
        "ev.VoteShown": "📣 {seat} votes <b>{vote}</b> openly.",
        "ev.generic": "ℹ️ {what}{details}",
        "ev.private_generic": "ℹ️ {what}{details}",
        "ev.PlotDeckReady": "🃏 The Plot deck is shuffled ({size} cards).",
        "ev.PlotCardsDrawn": "🃏 {leader} draws Plot cards: {cards}.",
        "ev.PlotCardDealt": "🃏 {leader} gives {seat} the Plot card <b>{card}</b>.",
        "ev.PlotCardPassed": "🃏 {seat} does not play <b>{card}</b>.",
        "ev.PlotCardDiscarded": "🃏 <b>{card}</b> is discarded.",
        "ev.PlotCardTaken": "🃏 {seat} takes <b>{card}</b> from {source}.",
        "ev.PlotDeckEmpty": "🃏 The Plot deck is empty.",
        "ev.QuestCardShown": "🔦 {seat} plays their card face up: <b>{card}</b>.",
        "ev.ExcaliburGiven": "⚔️ {leader} gives Excalibur to {seat}.",
        "ev.ExcaliburUsed": "⚔️ {seat} uses Excalibur on {target}'s card.",
        "ev.ExcaliburNotUsed": "⚔️ {seat} does not use Excalibur.",
        "ev.CardTrapped": "🪤 {leader} traps {seat}'s card.",
        "ev.AllegianceCardDrawn": "⚜️ Allegiance card: <b>{card}</b>.",
        "ev.AssassinTargetAnnounced": "🗡 {assassin} will name: <b>{target}</b>.",
        "ev.RevealerRevealed": "🎭 {seat} reveals themself: <b>{role}</b>.",
        "priv.CardSeen": "🔍 You saw {seat}'s card: <b>{card}</b>.",
        "priv.AllegianceSwitched": "⚜️ Your allegiance has changed: you are now <b>{side}</b>.",
        "priv.AllegianceChanged": "⚜️ Your allegiance has changed: you are now <b>{side}</b>.",
        "priv.MessengerRankDealt": "📜 You are the <b>{rank}</b> Messenger.",
        "cards_count": "{count} × {card}",
        # --- game: team picker, vote, quest progress -------------------------------------------------
        "team.title": "👑 {leader}, choose <b>{size}</b> players for {Quest} {quest} (team {attempt} of 5).",
        "team.title_targeting": "👑 {leader}, choose a {quest} and its team (team {attempt} of 5).",
        "team.quest_sizes": "{Quest} {quest}: {size} players{star}",
        "team.selected": "Selected: {names}",
        "team.quest_chosen": "🎯 {Quest} {quest}: a team of {size}",
        "team.selected_none": "Selected: nobody yet",
        "team.button.quest": "{Quest} {quest} ({size})",
        "team.button.confirm": "✔️ Propose team ({count}/{size})",
        "team.button.confirm_noquest": "✔️ Propose team",
        "team.choose_quest_first": "Choose which {quest} first.",
        "team.only_leader": "Only the {Leader} ({leader}) can choose the team.",
        "vote.title": "🗳 <b>Vote</b> · {Quest} {quest}, team {attempt} of 5\n{Leader} {leader} proposes: <b>{team}</b>",
        "vote.progress": "Voted ({count}/{of}): {names}",
        "vote.waiting": "Still to vote: {names}",
        "vote.closed": "All {of} players have voted.",
        "vote.button.approve": "✅ Approve",
        "vote.button.reject": "❌ Reject",
        "vote.cast": "You voted {vote}. You can't change it.",
        "vote.approve": "Approve",
        "vote.reject": "Reject",
        "quest.progress": "⚔️ {Quest} {quest}: {team}\nCards played: {count}/{of}",
        "quest.done": "⚔️ {Quest} {quest}: every card is in.",
        "quest.approved": "👍 Team approved.",
        # --- private prompts ---------------------------------------------------------------------------
        "prompt.play": "⚔️ <b>{Quest} {quest}</b>: choose your card. Nobody will see who played what.",
        "prompt.lady": "🌊 <b>Lady of the Lake</b>: choose a player. You will see their loyalty; nobody else will.",
        "prompt.assassinate": "🗡 <b>Assassination</b>: name the player you believe is Merlin. Discuss with your team first.",
        "prompt.loyalty_card": "🃏 {checker} is checking your loyalty. Choose which Loyalty card to show them.",
        "prompt.vote": "🗳 Vote on the proposed team: {team}.",
        "prompt.generic": "🎯 <b>{what}</b>",
        "prompt.pick": "Choose {count} player(s).",
        "prompt.pick_quest": "Choose a {quest}.",
        "prompt.choose": "Choose one.",
        "prompt.may_pass": "You may also pass.",
        "prompt.button.pass": "⏭ Pass",
        "prompt.button.confirm": "✔️ Confirm ({count}/{size})",
        "prompt.done": "✔️ Done: {answer}",
        "prompt.passed": "passed",
        "prompt.sent_private": "I sent you a private message.",
        "prompt.info_line": "{name}: {value}",
        "played": "You played: {card}",
        # --- private messages ---------------------------------------------------------------------------
        "role.title": "🎭 <b>Your secret role in {title}</b>",
        "role.you_are": "You are <b>{role}</b> — {side}.",
        "role.knowledge_title": "What you know:",
        "role.knowledge_none": "You know nothing about the others: watch closely.",
        "role.knowledge_line": "• {names}: {label}",
        "role.knowledge_quest_line": "• {names}: {label} ({Quest} {quest})",
        "role.reminder": "<i>{help}</i>",
        "role.keep_secret": "Keep this secret. Play in the group: I will message you here when you must act.",
        "priv.LoyaltySeen": "🔍 You looked at {seat}'s loyalty: <b>{side}</b>.",
        "priv.LoyaltyGiven": "🔍 {checker} has seen your loyalty card: {side}.",
        "priv.QuestCardSeen": "🔍 {seat} played: <b>{card}</b>.",
        "unreachable": (
            "⚠️ I cannot send private messages to {name}. {name}, tap here and press Start so I can reach you again: {link}"
        ),
        "blocked.group": "⚠️ {name} blocked me, so I cannot send their secret messages. {name}: unblock me here: {link}",
        # --- end --------------------------------------------------------------------------------------
        "end.title.good": {"avalon": "🏁 <b>Game over: Good wins!</b>", "resistance": "🏁 <b>Game over: the Resistance wins!</b>"},
        "end.title.evil": {"avalon": "🏁 <b>Game over: Evil wins!</b>", "resistance": "🏁 <b>Game over: the Spies win!</b>"},
        "end.title.none": "🏁 <b>Game over.</b>",
        "end.reason.three_successes": "Three {quests} succeeded.",
        "end.reason.three_failures": "Three {quests} failed.",
        "end.reason.five_rejections": "Five teams were rejected in a row.",
        "end.reason.merlin_assassinated": "The Assassin found Merlin.",
        "end.reason.assassination_missed": "The Assassin missed Merlin.",
        "end.reason.generic": "{reason}",
        "end.winners": "Winners: {names}",
        "end.roles": "<b>Roles</b>",
        "end.role_line": "{icon} {name}: <b>{role}</b> ({side})",
        "end.history": "<b>History</b>",
        "end.round": "<b>Round {round}</b> · {Quest} {quest}",
        "end.proposal": "  {leader}: {team} → ✅ {approve} | ❌ {reject} → {result}",
        "end.approved": "approved",
        "end.rejected": "rejected",
        "end.quest_result.success": "  ⚔️ {team}: success ({cards})",
        "end.quest_result.fail": "  ⚔️ {team}: failed ({cards})",
        "end.cancelled": "🛑 <b>Game cancelled</b> by {name}.",
        "end.removed": "🛑 The game in <b>{title}</b> ended: I was removed from the group.",
        "cancel.not_allowed": "Only the host or a group admin can cancel the game.",
        "cancel.nothing": "There is no game to cancel here.",
        "cancel.lobby": "🛑 The lobby was closed by {name}.",
        "leave.in_game": "The game has started: it needs every player. The host or an admin can /cancel it.",
        "leave.nothing": "You are not in a game here.",
        "status.none": "No game here. Send /newgame to open one.",
        "status.lobby": "A lobby is open: see the message above, or tap Join below.",
        "status.private_none": "You are not in a game right now.",
        # --- role names and reminders -----------------------------------------------------------------
        "role.servant": {"avalon": "Loyal Servant of Arthur", "resistance": "Resistance Operative"},
        "role.minion": {"avalon": "Minion of Mordred", "resistance": "Spy"},
        "role.merlin": "Merlin",
        "role.percival": "Percival",
        "role.assassin": "the Assassin",
        "role.morgana": "Morgana",
        "role.mordred": "Mordred",
        "role.oberon": "Oberon",
        "role.good_messenger": "a Good Messenger",
        "role.evil_messenger": "the Evil Messenger",
        "role.good_rogue": "the Good Rogue",
        "role.evil_rogue": "the Evil Rogue",
        "role.good_sorcerer": "the Good Sorcerer",
        "role.evil_sorcerer": "the Evil Sorcerer",
        "role.lunatic": "the Lunatic",
        "role.brute": "the Brute",
        "role.revealer": "the Revealer",
        "role.cleric": "the Cleric",
        "role.trickster": "the Trickster",
        "role.troublemaker": "the Troublemaker",
        "role.untrustworthy_servant": "the Untrustworthy Servant",
        "role.trapper": "the Trapper",
        "role.good_lancelot": "Lancelot (Good)",
        "role.evil_lancelot": "Lancelot (Evil)",
        "rolehelp.servant": {
            "avalon": "You have no special power. Find Evil, approve good teams, and always play Success.",
            "resistance": "You have no special power. Find the Spies, approve clean teams, and always play Success.",
        },
        "rolehelp.minion": {
            "avalon": "You know your fellow Minions (except Oberon). Get onto teams and play Fail at the right moment.",
            "resistance": "You know the other Spies (unless Blind Spies is on). Get onto Missions and sabotage them.",
        },
        "rolehelp.merlin": (
            "You know the agents of Evil (except Mordred). Guide Good without being obvious: if Good wins, "
            "the Assassin gets one guess at who you are."
        ),
        "rolehelp.percival": "You see Merlin (and Morgana, who looks the same to you). Protect Merlin.",
        "rolehelp.assassin": (
            "You are Evil. If Good completes three Quests, you name one player as Merlin: if you are right, Evil wins."
        ),
        "rolehelp.morgana": "You are Evil and appear as Merlin to Percival. Confuse him.",
        "rolehelp.mordred": "You are Evil and hidden from Merlin.",
        "rolehelp.oberon": "You are Evil, but you do not know the other Evil players and they do not know you. Merlin sees you.",
        "rolehelp.good_generic": "You are on the {Good} side: complete three {quests}. Always play Success.",
        "rolehelp.evil_generic": "You are on the {Evil} side: make three {quests} fail. You may play Fail.",
        # --- knowledge labels ---------------------------------------------------------------------------
        "know.evil": {"avalon": "Evil", "resistance": "Spy"},
        "know.good": {"avalon": "Good", "resistance": "Resistance"},
        "know.merlin": "Merlin",
        "know.merlin_or_morgana": "Merlin or Morgana",
        # --- cards, choices, modules, prompt kinds --------------------------------------------------------
        "card.success": "✅ {success}",
        "card.fail": "❌ {fail}",
        "choice.approve": "✅ Approve",
        "choice.reject": "❌ Reject",
        "choice.good": {"avalon": "😇 Good", "resistance": "🟦 Resistance"},
        "choice.evil": {"avalon": "😈 Evil", "resistance": "🟥 Spy"},
        "choice.play": "🃏 Play it",
        "choice.pass": "⏭ Pass",
        "module.lady_of_the_lake": "Lady of the Lake",
        "module.targeting": "Targeting",
        "module.blind_spies": "Blind Spies",
        "module.plot_cards": {"avalon": "Plot cards", "resistance": "The Plot Thickens"},
        "module.assassination": "Assassination",
        "module.excalibur": "Excalibur",
        "module.trapper": "Trapper",
        "module.lancelot_allegiance": "Lancelot allegiance cards",
        "module.lancelot": "Lancelot allegiance cards",
        "module.messengers": "Messengers",
        "module.senior_junior_messengers": "Senior and Junior Messengers",
        "module.sorcerer_hidden": "Evil Sorcerer hidden from Merlin",
        "module.rogue": "Rogues",
        "module.sorcerer": "Sorcerers",
        "variant.bigbox_switch": "Big Box, drawn each round",
        "variant.classic_switch": "classic, drawn from the 3rd round",
        "variant.bigbox_predealt": "Big Box, dealt face up",
        "variant.french_predealt": "French, dealt face up",
        "kind.watch": "Watch",
        "kind.trap": "Trapper",
        "kind.recruit": "Recruitment",
        "kind.give_excalibur": "Give Excalibur",
        "kind.excalibur": "Excalibur",
        "kind.assassin_target": "Assassination target",
        "kind.plot_deal": "Plot cards",
        "prompt.excalibur": "⚔️ <b>Excalibur</b>: you may switch another team member's card, or pass.",
        "prompt.give_excalibur": "⚔️ <b>Excalibur</b>: give Excalibur to a member of your team.",
        "modulehelp.lady_of_the_lake": "After {Quests} 2, 3 and 4 its holder secretly checks one player's loyalty.",
        "modulehelp.targeting": "The {Leader} chooses which {quest} the team attempts; the 5th only after two successes.",
        "modulehelp.blind_spies": "The Evil players do not learn who the other Evil players are.",
        "kind.lady": "Lady of the Lake",
        "kind.assassinate": "Assassination",
        "kind.loyalty_card": "Loyalty card",
        "kind.propose": "team",
        "kind.vote": "vote",
        "kind.play": "{Quest} cards",
        "preset.title": "{name}",
        # --- timers ---------------------------------------------------------------------------------
        "timers.off": "off",
        "timers.minutes": "{n} min",
        "timers.hours": "{n} h",
        "timers.left_soon": "less than a minute",
        "timers.phase.join": "Joining",
        "timers.phase.propose": "Team proposal",
        "timers.phase.vote": "Vote",
        "timers.phase.quest": "{Quest} cards",
        "timers.phase.lady": "Lady of the Lake",
        "timers.phase.assassination": "Assassination",
        "timers.phase.excalibur": "Excalibur",
        "timers.phase.plot_cards": "Plot cards",
        "timers.phase.trapper": "Trapper",
        "timers.phase.rogue": "Rogue Watch",
        "timers.phase.loyalty": "Loyalty cards",
        "timers.phase.other": "Other decisions",
        "timers.default.join": "the game starts if {count} to 10 players can play, else the lobby closes",
        "timers.default.propose": "no team: it counts as a rejected team and the next {Leader} proposes",
        "timers.default.vote": "the vote counts as {vote}",
        "timers.default.quest": "the card played is {success}",
        "timers.default.lady": "a random player is checked",
        "timers.default.assassination": "a random player is named",
        "timers.default.excalibur": "Excalibur goes to a random team member; using it is skipped",
        "timers.default.plot_cards": "held cards are not played; other Plot decisions are made at random",
        "timers.default.trapper": "a random card is set aside",
        "timers.default.rogue": "the Watch goes to a random team member",
        "timers.default.loyalty": "the true Loyalty card is shown",
        "timers.default.other": "pass if allowed, else a random legal choice",
        "timers.remind": "⏰ <b>{left}</b> left: waiting for {who} ({what}). If time runs out, {default}.",
        "timers.remind_hidden": "⏰ <b>{left}</b> left: a secret decision is awaited.",
        "timers.remind_private": "⏰ <b>{left}</b> left for your decision in <b>{title}</b>. If time runs out, {default}.",
        "timers.remind_join": (
            "⏰ The lobby closes in <b>{left}</b>: {count} players so far (5 to 10 can play). "
            "Tap Join, or send /extend for more time (at most {max} times)."
        ),
        "timers.join.started": "⏰ Time to join is up: the game starts with the {count} players who joined.",
        "timers.join.closed": (
            "⏰ Time to join is up: only {count} players can play ({min} are needed). "
            "The lobby is closed: send /newgame to open a new one."
        ),
        "timers.join.config": (
            "⏰ Time to join is up, but these settings cannot be played with {count} players:\n{errors}\n"
            "The lobby is closed: send /newgame to open a new one."
        ),
        "timers.join.dropped": "Not dealt in, because I cannot message them privately: {names}",
        "timers.extend.done": "⏰ {name} extended the lobby: it closes in {left} ({used} of {max} extensions used).",
        "timers.extend.none": "There is no lobby with a join timer here.",
        "timers.extend.not_player": "Only players in the lobby can extend it: tap Join first.",
        "timers.extend.limit": "The lobby was already extended {max} times.",
        "timers.forcestart.no_lobby": "There is no lobby to start here.",
        "timers.forcestart.not_enough": "You need 5 to 10 players I can message privately to start (now {count}).",
        "timers.forcestart.started": "▶️ The host starts the game now with the {count} players who joined.",
        "timers.idles.title": "⏰ <b>Idle record</b>: turns that ran out of time",
        "timers.idles.game": "This game: {list}",
        "timers.idles.total": "All games in this group: {list}",
        "timers.idles.entry": "{name} ×{count}",
        "timers.idles.none": "nobody",
        "timers.page.title": "⏱ <b>Timers for {title}</b>",
        "timers.page.help": (
            "A time limit for each phase (off: no limit). A reminder comes shortly before the end; when time "
            "runs out I apply the default below. Tap a phase to change its limit."
        ),
        "timers.page.line": "• {phase}: <b>{limit}</b> — {default}",
        "timers.page.unavailable": "⚠️ This bot runs without a scheduler: time limits are not enforced.",
        "timers.button.page": "⏱ Timers",
        "timers.button.phase": "{phase}: {limit}",
        "timers.button.vote": "🗳 Missing vote counts as: {vote}",
        "timers.button.all_off": "⏹ All off",
        "timers.button.defaults": "↩️ Defaults",
        "ev.PlayerTimedOut": "⏰ {seat} ran out of time.",
        "ev.SecretDecisionTimedOut": "⏰ A secret decision ran out of time: the default was applied.",
        "ev.TeamNotProposed": "⏰ No team was proposed in time: it counts as a rejected team ({rejections}/5).",
        "priv.DefaultApplied": "⏰ Your time ran out, so I applied the default for you.",
        "module.timeout_vote": "Timers",
        "modulehelp.timeout_vote": "A vote not cast before the time limit counts as Reject.",
    },
}


def lang_for(code: str | None) -> str:
    """The catalog language for a Telegram ``language_code`` (e.g. ``en-GB`` -> ``en``)."""
    if not code:
        return DEFAULT_LANG
    base = code.split("-")[0].lower()
    return base if base in CATALOG else DEFAULT_LANG


def _entry(key: str, lang: str) -> Any:
    entry = CATALOG.get(lang, {}).get(key)
    if entry is None and lang != DEFAULT_LANG:
        entry = CATALOG[DEFAULT_LANG].get(key)
    return entry


def has(key: str, lang: str = DEFAULT_LANG) -> bool:
    return _entry(key, lang) is not None


class _Defaulting(dict):
    def __missing__(self, key: str) -> str:  # a translation with an unknown placeholder still renders
        return "{" + key + "}"


def vocab(lang: str, theme: str) -> dict[str, str]:
    by_lang = VOCAB.get(lang) or VOCAB[DEFAULT_LANG]
    return dict(by_lang.get(theme) or by_lang["avalon"])


def t(key: str, lang: str = DEFAULT_LANG, theme: str = "avalon", /, **params: Any) -> str:
    """The text for ``key`` in ``lang`` and ``theme``, with ``params`` filled in."""
    entry = _entry(key, lang)
    if entry is None:
        raise KeyError(key)
    if isinstance(entry, dict):
        entry = entry.get(theme) or entry.get("*") or next(iter(entry.values()))
    values = _Defaulting(vocab(lang, theme))
    values.update(params)
    return entry.format_map(values)


def humanize(ident: str) -> str:
    """A readable fallback name for an id: ``lady_of_the_lake`` -> ``Lady of the lake``."""
    text = ident.replace("_", " ").replace("-", " ").strip()
    out = []
    for i, ch in enumerate(text):  # CamelCase -> words
        if ch.isupper() and i and text[i - 1].islower():
            out.append(" ")
        out.append(ch)
    text = "".join(out)
    return text[:1].upper() + text[1:].lower() if text else ident


def name_of(prefix: str, ident: str, lang: str = DEFAULT_LANG, theme: str = "avalon") -> str:
    """``role``/``module``/``card``/``kind``/``know``/``choice`` names, with a fallback."""
    key = f"{prefix}.{ident}"
    if has(key, lang):
        return t(key, lang, theme)
    extra = _plugin_name(prefix, ident, theme)
    return extra or humanize(ident)


def _plugin_name(prefix: str, ident: str, theme: str) -> str | None:
    """Names some engine plug-ins publish as data (e.g. Plot cards) when the catalog has none."""
    try:
        if prefix in ("card", "kind", "plot"):
            from engine.modules.plot import PLOT_CARDS  # type: ignore[import-not-found]

            cid = ident.removeprefix("plot_")
            if cid in PLOT_CARDS:
                return PLOT_CARDS[cid].get(theme) or PLOT_CARDS[cid].get("avalon")
    except Exception:  # pragma: no cover - optional data
        return None
    return None


def join_names(names: list[str], lang: str = DEFAULT_LANG) -> str:
    if not names:
        return t("none", lang)
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + f" {t('and', lang)} " + names[-1]
