// The playground page: renders the chats from /api/state (long poll) and acts through the JSON API.
// Message HTML comes from the server already sanitised (localdev/tg_html.py); everything else is
// built with textContent.
"use strict";

const params = new URLSearchParams(location.search);
const VIEWER = params.has("as") ? Number(params.get("as")) : null;
const NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"];
// The seats panel: 1 to 10 seats; with fewer than 5 the host fills the table with the lobby's 🤖 Add a bot.
const MIN_SEATS = 1;
const MAX_SEATS = 10;
const COLORS = ["#e17076", "#7bc862", "#e5ca77", "#65aadd", "#a695e7", "#ee7aae", "#6ec9cb", "#faa774"];

let state = null;
let version = -1;
const rendered = new Map();   // chat id -> JSON of what its column shows
const columns = new Map();    // chat id -> column element
const toBottom = new Set();   // message lists to scroll down once they are on the page
const stuck = new WeakMap();  // message list -> whether the reader is at its bottom (follows new messages)
const placed = new WeakMap(); // message list -> the scrollTop the page itself last gave it (while following)
let groupActor = null;        // who acts in the group when the page shows every chat

const $ = (sel, root = document) => root.querySelector(sel);

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function colorOf(id) { return COLORS[Math.abs(Number(id)) % COLORS.length]; }

function playerName(id) {
  const p = state && state.players.find((q) => q.id === Number(id));
  return p ? p.name : String(id);
}

// --- talking to the server -------------------------------------------------------------------------

async function api(path, body) {
  const response = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  let data = {};
  try { data = await response.json(); } catch (e) { /* empty body */ }
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

async function poll() {
  for (;;) {
    try {
      const q = new URLSearchParams({ since: String(version) });
      if (VIEWER !== null) q.set("as", String(VIEWER));
      const response = await fetch(`/api/state?${q}`);
      if (!response.ok) throw new Error(String(response.status));
      const data = await response.json();
      if (data.version !== version || !state) render(data);
    } catch (e) {
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

// --- toasts -------------------------------------------------------------------------------------------

let toastTimer = null;
// A toast shows over the chat it answers, under its header and pinned bar (never over them); without a
// chat, at the top of the page's chats.
const TOAST = document.getElementById("toast");  // (moved into the column it answers)
function toast(text, chatId) {
  const box = TOAST;
  const column = chatId !== undefined ? columns.get(Number(chatId)) : null;
  const list = column ? $(".messages", column) : null;
  if (list) {
    column.append(box);
    box.style.top = `${list.offsetTop + 10}px`;
  } else {
    document.body.append(box);
    box.style.top = "";
  }
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 2600);
}

function alertBox(text) {
  $("#alert-text").textContent = text;
  $("#alert").hidden = false;
}

function answered(result, chatId) {
  if (!result || !result.text) return;
  if (result.alert) alertBox(result.text); else toast(result.text, chatId);
}

// --- actions ------------------------------------------------------------------------------------------

function actorFor(chatId) {
  if (chatId > 0) return chatId;                 // a private chat: its owner
  if (VIEWER !== null) return VIEWER;            // a player's own tab
  return groupActor || (state && state.host);
}

async function press(chatId, messageId, data, keyboard) {
  keyboard.classList.add("busy");
  try {
    answered(await api("/api/press", { as: actorFor(chatId), chat: chatId, message: messageId, data }), chatId);
  } catch (e) {
    toast(`⚠️ ${e.message}`, chatId);
  } finally {
    keyboard.classList.remove("busy");
  }
}

async function openPrivate(user, payload) {
  try {
    await api("/api/start", { as: user, payload: payload || null });
    toast(`${playerName(user)} opened the bot's private chat`, user);
  } catch (e) { toast(`⚠️ ${e.message}`, user); }
}

async function send(chatId, text, actor) {
  try {
    await api("/api/send", { as: actor, chat: chatId, text });
  } catch (e) { toast(`⚠️ ${e.message}`, chatId); }
}

// --- rendering ----------------------------------------------------------------------------------------

function messageNode(chatId, m, isGroup) {
  const wrap = el("div", m.from ? "msg out" : "msg in");
  wrap.dataset.id = m.id;
  const bubble = el("div", "bubble");
  if (isGroup) bubble.append(el("div", "sender", m.from ? m.from.name : state.bot.name));
  if (m.photo) {
    const img = el("img", "photo");
    img.src = m.photo;
    img.alt = "picture from the bot";
    img.addEventListener("click", () => window.open(m.photo, "_blank", "noopener"));
    img.addEventListener("load", () => { const box = wrap.closest(".messages"); if (box) follow(box); });
    bubble.append(img);
  }
  if (m.html) {
    const text = el("div", "text");
    text.innerHTML = m.html;  // sanitised by the server
    localTimes(text);
    bubble.append(text);
  }
  const meta = el("div", "meta", m.edited ? "edited " : "");
  const when = el("time", "", clockOf(m.date));
  when.dateTime = new Date(m.date * 1000).toISOString();
  when.title = new Date(m.date * 1000).toString();
  meta.append(when);
  bubble.append(meta);
  wrap.append(bubble);
  if (m.buttons && m.buttons.length) {
    const keyboard = el("div", "keyboard");
    for (const row of m.buttons) {
      const line = el("div", "kb-row");
      for (const b of row) {
        const button = el("button", b.url ? "kb-btn url" : "kb-btn", b.text);
        button.type = "button";
        button.title = b.text;
        if (b.data) {
          button.dataset.cb = b.data;
          button.addEventListener("click", () => press(chatId, m.id, b.data, keyboard));
        } else if (b.start !== null && b.start !== undefined) {
          button.addEventListener("click", () => openPrivate(actorFor(chatId), b.start));
        } else {
          button.addEventListener("click", () => window.open(b.url, "_blank", "noopener"));
        }
        line.append(button);
      }
      keyboard.append(line);
    }
    wrap.append(keyboard);
  }
  return wrap;
}

function onTextClick(chatId, event) {
  const link = event.target.closest("a");
  if (!link) return;
  if (link.classList.contains("deeplink")) {
    event.preventDefault();
    openPrivate(actorFor(chatId), link.dataset.start);
  } else if (link.classList.contains("mention")) {
    event.preventDefault();
    const column = columns.get(Number(link.dataset.user));
    if (column) column.scrollIntoView({ behavior: "smooth", inline: "center" });
  }
}

function headerNode(chat) {
  const head = el("div", "chat-head");
  const avatar = el("div", "avatar", chat.isGroup ? "⚔️" : chat.name.slice(0, 1).toUpperCase());
  avatar.style.background = chat.isGroup ? "#517da2" : colorOf(chat.id);
  const info = el("div");
  info.style.minWidth = "0";
  const title = el("div", "chat-title", chat.isGroup ? chat.title : chat.name);
  if (!chat.isGroup) {
    const badge = el("span", chat.simulated ? "badge simulated" : "badge person", chat.simulated ? "🎭 simulated" : "🙂 person");
    title.append(badge);
  }
  const sub = el("div", "chat-sub");
  if (chat.isGroup) {
    sub.textContent = `group · ${state.players.length} ${state.players.length === 1 ? "member" : "members"} + ${state.bot.name}`;
  } else {
    sub.textContent = `private chat with ${state.bot.name} `;
    if (VIEWER === null) {
      const link = el("a", "", "own tab ↗");
      link.href = `/?as=${chat.id}`;
      link.target = "_blank";
      sub.append("· ", link);
    }
  }
  info.append(title, sub);
  head.append(avatar, info);
  return head;
}

function composerNode(chat) {
  if (!chat.isGroup && !chat.started) {
    const bar = el("div", "start-bar");
    const button = el("button", "", "START");
    button.type = "button";
    button.addEventListener("click", () => openPrivate(chat.id));
    bar.append(button);
    return bar;
  }
  const form = el("form", "composer");
  let select = null;
  if (chat.isGroup && VIEWER === null) {
    select = el("select");
    select.title = "who speaks and presses buttons in the group";
    for (const p of state.players) {
      const option = el("option", "", p.name + (p.simulated ? " 🎭" : ""));
      option.value = p.id;
      select.append(option);
    }
    select.value = String(groupActor || state.host);
    select.addEventListener("change", () => { groupActor = Number(select.value); });
    form.append(select);
  }
  const input = el("input");
  input.type = "text";
  input.placeholder = chat.isGroup ? "Message or /command (/newgame, /status, /help)" : "Message or /command";
  const go = el("button", "send", "➤");
  go.type = "submit";
  go.title = "Send";
  form.append(input, go);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    send(chat.id, text, actorFor(chat.id));
  });
  return form;
}

function columnFor(chat) {
  let column = columns.get(chat.id);
  if (!column) {
    column = el("section", chat.isGroup ? "chat group" : "chat");
    column.dataset.chat = chat.id;
    const box = el("div", "messages");
    const marker = el("button", "new-below", "⬇ New messages");
    marker.type = "button";
    marker.hidden = true;
    marker.title = "Scroll down to the newest message";
    marker.addEventListener("click", () => { box.scrollTop = box.scrollHeight; });
    column.append(el("div", "chat-head"), box, marker, el("div", "composer"));
    box.addEventListener("click", (event) => onTextClick(chat.id, event));
    stuck.set(box, true);
    // A scroll event is seen a frame after the scroll. When the list grew in between (a picture took its
    // size), the page's own scroll to the bottom would look like the reader leaving it: only a move above
    // where the page put the list lets go of the bottom; anything else follows it down again.
    box.addEventListener("scroll", () => {
      const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 24;
      if (atBottom) { stuck.set(box, true); marker.hidden = true; return; }
      const mine = placed.get(box);
      if (stuck.get(box) && mine !== undefined && box.scrollTop >= mine - 1) { follow(box); return; }
      stuck.set(box, false);
      placed.delete(box);
    });
    columns.set(chat.id, column);
  }
  return column;
}

function fillColumn(chat) {
  const column = columnFor(chat);
  const shape = JSON.stringify([chat.title, chat.name, chat.simulated, chat.started, state.players.map((p) => [p.id, p.name, p.simulated]), chat.pinned, chat.pinnedText]);
  const content = JSON.stringify(chat.messages);
  const before = rendered.get(chat.id) || {};
  if (before.shape !== shape) {
    column.replaceChild(headerNode(chat), column.firstChild);
    const oldPin = $(".pinned", column);
    if (oldPin) oldPin.remove();
    if (chat.pinnedText) {
      const pin = el("div", "pinned");
      pin.append(el("b", "", "📌 Pinned "), chat.pinnedText);
      pin.addEventListener("click", () => {
        const node = $(`.msg[data-id="${chat.pinned}"]`, column);
        if (node) { node.scrollIntoView({ behavior: "smooth", block: "center" }); node.classList.add("flash"); setTimeout(() => node.classList.remove("flash"), 1300); }
      });
      column.insertBefore(pin, $(".messages", column));
    }
    column.replaceChild(composerNode(chat), $(":scope > .composer, :scope > .start-bar", column));
  }
  let nodes = before.nodes || new Map();
  if (before.content !== content) {
    const box = $(".messages", column);
    const count = before.content ? JSON.parse(before.content).length : 0;
    nodes = syncMessages(box, chat, nodes);
    if (stuck.get(box) || !before.content) toBottom.add(box);
    else if (chat.messages.length > count) $(".new-below", column).hidden = false;  // (scrolled up)
  }
  rendered.set(chat.id, { shape, content, nodes });
  return column;
}

// Update a chat's messages in place, by message id: a message that did not change keeps its node, and an
// edit that leaves the buttons as they were keeps its keyboard. Rebuilding the list on every change
// replaced the button a person was about to press whenever someone else voted (a lost click).
function syncMessages(box, chat, old) {
  const next = new Map();
  const empty = $(".empty", box);
  if (empty) empty.remove();
  let previous = null;
  for (const m of chat.messages) {
    const json = JSON.stringify(m);
    const keys = JSON.stringify(m.buttons || []);
    let entry = old.get(m.id);
    if (!entry) {
      entry = { json, keys, node: messageNode(chat.id, m, chat.isGroup) };
    } else if (entry.json !== json) {
      const fresh = messageNode(chat.id, m, chat.isGroup);
      const keep = entry.keys === keys && $(".keyboard", entry.node);
      if (keep) fresh.replaceChild(keep, $(".keyboard", fresh));
      entry.node.replaceWith(fresh);
      entry = { json, keys, node: fresh };
    }
    const slot = previous ? previous.nextSibling : box.firstChild;
    if (slot !== entry.node) box.insertBefore(entry.node, slot);
    next.set(m.id, entry);
    previous = entry.node;
  }
  for (const [id, entry] of old) if (!next.has(id)) entry.node.remove();
  if (!chat.messages.length) box.append(el("div", "empty", chat.isGroup ? "No messages yet" : "No messages here yet"));
  return next;
}

// Keep a message list at its bottom while the reader is there (after new messages, and when a picture
// loads and makes the list taller), as Telegram does.
function follow(box, force = false) {
  if (force || stuck.get(box)) { box.scrollTop = box.scrollHeight; stuck.set(box, true); placed.set(box, box.scrollTop); }
}

function pinnedText(group) {
  const msg = group.messages.find((m) => m.id === group.pinned);
  if (!msg) return "";
  const tmp = document.createElement("div");
  tmp.innerHTML = msg.html;
  return tmp.textContent.split("\n").slice(0, 1).join(" ");
}

function render(data) {
  state = data;
  version = data.version;
  const showSimulated = showSimulatedChats(data);
  const chats = [{
    id: data.group.id, isGroup: true, title: data.group.title, messages: data.group.messages,
    pinned: data.group.pinned, pinnedText: pinnedText(data.group),
  }];
  const people = data.players.filter((p) => !p.simulated);
  const simulated = data.players.filter((p) => p.simulated);
  for (const p of [...people, ...simulated]) {
    if (!p.messages) continue;                       // another player's chat (own tab)
    if (p.simulated && !showSimulated && VIEWER === null) continue;
    chats.push({ id: p.id, isGroup: false, name: p.name, simulated: p.simulated, started: p.started, messages: p.messages });
  }
  const board = $("#board");
  board.classList.toggle("solo", VIEWER !== null);
  const wanted = chats.map(fillColumn);
  for (const [id, column] of columns) {
    if (!wanted.includes(column)) { column.remove(); columns.delete(id); rendered.delete(id); }
  }
  wanted.forEach((column, i) => { if (board.children[i] !== column) board.insertBefore(column, board.children[i] || null); });
  for (const box of toBottom) follow(box, true);
  toBottom.clear();
  const speed = $("#speed");
  if (document.activeElement !== speed) { speed.value = data.sim_delay; $("#speed-value").textContent = `${data.sim_delay}s`; }
  const who = $("#who");
  who.replaceChildren();
  if (VIEWER !== null) {
    const all = el("a", "", "all chats");
    all.href = "/";
    who.append(`playing as ${playerName(VIEWER)} · `, all);
  } else {
    const aiSeats = data.table_ai_seats || 0;  // the AI seats (🤖), added with the lobby's button
    who.textContent = `${people.length} ${people.length === 1 ? "person" : "people"}, ${simulated.length} simulated ${simulated.length === 1 ? "player" : "players"}`
      + (aiSeats ? `, ${aiSeats} 🤖 ${aiSeats === 1 ? "seat" : "seats"} of the bot` : "");
  }
  if (!$("#seating").hidden) return;
  fillSeatForm(data.players.map((p) => ({ name: p.name, simulated: p.simulated, lang: p.lang })));
}

// The simulated players' private chats show their secret roles: hidden while a person plays (unless the
// switch says otherwise), shown when only simulated players play (there is nothing to spoil).
function showSimulatedChats(data) {
  const chosen = localStorage.getItem("playground.showSimulated");
  const show = chosen !== null ? chosen === "1" : !data.players.some((p) => !p.simulated);
  $("#show-simulated").checked = show;
  return show;
}

// --- seating -------------------------------------------------------------------------------------------

function seatRow(i, seat) {
  const row = el("div", "seat-row");
  const input = el("input");
  input.value = seat.name;
  input.maxLength = 24;
  input.name = `name${i}`;
  const kind = el("button", seat.simulated ? "seat-kind" : "seat-kind person", seat.simulated ? "🎭 Simulated" : "🙂 Person");
  kind.type = "button";
  kind.title = "Played by a person in this page, or by a simulated player that presses buttons by itself";
  kind.dataset.simulated = seat.simulated ? "1" : "";
  kind.addEventListener("click", () => {
    const simulated = !kind.dataset.simulated;
    kind.dataset.simulated = simulated ? "1" : "";
    kind.textContent = simulated ? "🎭 Simulated" : "🙂 Person";
    kind.classList.toggle("person", !simulated);
  });
  // the seat's Telegram app language: none (the bot writes to it in the group's language) or a catalog's
  const lang = el("select", "seat-lang");
  lang.title = "Language of this seat's Telegram app";
  const none = el("option", "", "🌐 group's");
  none.value = "";
  lang.append(none);
  for (const l of (state && state.languages) || []) {
    const o = el("option", "", l.name);
    o.value = l.code;
    lang.append(o);
  }
  lang.value = seat.lang || "";
  row.append(el("span", "n", String(i + 1)), input, lang, kind);
  return row;
}

function currentSeats() {
  return [...document.querySelectorAll(".seat-row")].map((row) => ({
    name: $("input", row).value.trim(), simulated: Boolean($(".seat-kind", row).dataset.simulated),
    lang: $(".seat-lang", row).value,
  }));
}

function fillSeatForm(seats) {
  const count = Math.min(Math.max(seats.length || 5, MIN_SEATS), MAX_SEATS);
  const select = $("#seat-count");
  select.value = String(count);
  const rows = $("#seat-rows");
  rows.replaceChildren();
  for (let i = 0; i < count; i++) rows.append(seatRow(i, seats[i] || { name: NAMES[i], simulated: true }));
}

function setupSeating() {
  const select = $("#seat-count");
  for (let n = MIN_SEATS; n <= MAX_SEATS; n++) { const o = el("option", "", String(n)); o.value = String(n); select.append(o); }
  select.addEventListener("change", () => {
    const seats = currentSeats();
    fillSeatForm(Array.from({ length: Number(select.value) }, (_, i) => seats[i] || { name: NAMES[i], simulated: true }));
  });
  $("#seats-toggle").addEventListener("click", () => {
    const panel = $("#seating");
    panel.hidden = !panel.hidden;
    if (!panel.hidden && state) fillSeatForm(state.players.map((p) => ({ name: p.name, simulated: p.simulated, lang: p.lang })));
  });
  $("#seat-cancel").addEventListener("click", () => { $("#seating").hidden = true; });
  $("#seat-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api("/api/seat", { players: currentSeats(), open_lobby: true });
      $("#seating").hidden = true;
      groupActor = null;
    } catch (e) { toast(`⚠️ ${e.message}`); }
  });
}

// Every time on the page is in one zone, the reader's (the browser's), with one clock, as Telegram's apps
// show them: the time beside each message (its unix date) and the date-time entities of its text.
const CLOCK = new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit" });
function clockOf(unix) { return CLOCK.format(new Date(Number(unix) * 1000)); }

// Telegram's date-time entities (<tg-time format="t">, a deadline "until 14:32"): the server leaves the UTC
// text for an app that cannot show them; the page writes the reader's own time instead.
function localTimes(root) {
  for (const t of root.querySelectorAll("time.tg-time")) {
    const when = new Date(Number(t.dataset.unix) * 1000);
    t.title = when.toString();
    t.textContent = clockOf(t.dataset.unix);
  }
}

// --- start ------------------------------------------------------------------------------------------------

function setup() {
  setupSeating();
  const showSimulated = $("#show-simulated");
  showSimulated.addEventListener("change", () => {
    localStorage.setItem("playground.showSimulated", showSimulated.checked ? "1" : "0");
    if (state) render(state);
  });
  if (VIEWER !== null) { $("#show-simulated-label").hidden = true; $("#seats-toggle").hidden = true; }
  $("#newgame").addEventListener("click", () => send(state.group.id, "/newgame", VIEWER !== null ? VIEWER : state.host));
  const speed = $("#speed");
  speed.addEventListener("input", () => { $("#speed-value").textContent = `${speed.value}s`; });
  speed.addEventListener("change", () => api("/api/speed", { sim_delay: Number(speed.value) }).catch((e) => toast(e.message)));
  $("#alert-ok").addEventListener("click", () => { $("#alert").hidden = true; });
  poll();
}

setup();
