"""Stored items that do not load, and what can still be read from them.

A chat item may stop loading: written by an older version in a shape this one refuses, or damaged. Its
group must not be stuck with it: an update that needs it gets a clear answer (``damaged.notice``), and
``/cancel`` from the host or a group admin closes it. ``salvage`` keeps every stored field that still
validates on its own (and, inside a list or a mapping, every entry that does: the players one by one,
the recorded update ids one by one...); ``closed`` turns what was salvaged into a cancelled session, so
the group can open a new game. A user record that does not load is salvaged the same way when it is
read (``user_record``), so nobody is locked out by their own record.

A chat item written by an earlier version may also keep what now lives in items of its own (the /nextgame
subscribers, the idle record of all games: ``Session`` says why). ``move_out`` moves it there, in one
transaction with the chat's item, before anything else is decided on that item (``uow.UnitOfWork``).
"""
from __future__ import annotations

from pydantic import BaseModel, ValidationError

from gamebot.storage import idle_record, subscribers
from gamebot.storage.session import CANCELLED, DamagedSession, Session, UserRecord, keeps_moved_out
from gamebot.storage.store import Item, Repository, Write


def salvage(chat_id: int, body: object) -> Session:
    """The chat's session with whatever of ``body`` still validates (for a body that loads: all of it)."""
    return _salvage(Session, {"chat_id": chat_id}, body)


def closed(s: Session) -> Session:
    """A salvaged session, cancelled: what belonged to the running game (its state, selections, time
    limit, message ids) is dropped; the players, the host, the settings, the language, the last game's
    summary and the idle records stay."""
    out = s.model_copy(update={
        "status": CANCELLED, "state": None, "sel": {}, "deadline": None, "unreachable": [],
        "lobby_msg": None, "board_msg": None, "vote_msg": None, "vote_serial": None, "settings_msg": None,
    })
    idle_record.settle_idle(out)
    return out


def move_out(repo: Repository, stored: Item) -> Item | None:
    """Move the /nextgame subscribers and the idle record of all games that an item of an earlier version
    kept in the chat's session (``stored``) to their own items, merged with what those hold already: one
    transaction with the chat's item under a version check (a conflict raises ``VersionConflict``: read
    again and retry), so that nobody subscribed and no timeout is lost or counted twice. Returns the chat's
    item as written, or None when there was nothing to move (or the item does not load: ``/cancel``
    salvages it, keeping those fields, and the next write moves them)."""
    if not keeps_moved_out(stored.body):
        return None
    try:
        s = Session.from_body(stored.body)
    except DamagedSession:
        return None
    moved: dict[str, tuple[Item, int | None]] = {}
    if s.next_game:  # (each kind read in one request: a TransactGetItems of at most 25 items)
        found = repo.get_many(sorted({subscribers.key_of(s.chat_id, p.id) for p in s.next_game}))
        moved.update(subscribers.merge(found, s.chat_id, s.next_game))
        s.next_game = []
    if s.idle_totals or s.idle_names:
        found = repo.get_many(sorted({idle_record.key_of(s.chat_id, uid) for uid in s.idle_totals
                                      if uid.isdigit()}))
        moved.update(idle_record.move_out(s, found))
    writes = [Write(item, version) for item, version in moved.values()]
    return repo.transact([Write(Item(key=stored.key, body=s.body()), stored.version), *writes])[0]


def user_record(user_id: int, body: object) -> UserRecord:
    """The stored record of ``user_id``; salvaged field by field if it does not load whole."""
    try:
        return UserRecord.model_validate(body)
    except ValidationError:
        return _salvage(UserRecord, {"id": user_id}, body)


def _salvage[M: BaseModel](model: type[M], fixed: dict[str, object], body: object) -> M:
    kept = dict(fixed)
    for name, value in (body.items() if isinstance(body, dict) else ()):
        if name in fixed or name not in model.model_fields:
            continue
        if _valid(model, fixed, name, value):
            kept[name] = value
            continue
        if isinstance(value, list):
            part: object = [v for v in value if _valid(model, fixed, name, [v])]
        elif isinstance(value, dict):
            part = {k: v for k, v in value.items() if _valid(model, fixed, name, {k: v})}
        else:
            continue
        if _valid(model, fixed, name, part):
            kept[name] = part
    return model.model_validate(kept)


def _valid(model: type[BaseModel], fixed: dict[str, object], name: str, value: object) -> bool:
    try:
        model.model_validate({**fixed, name: value})
    except ValidationError:
        return False
    return True
