"""A function that builds messages changes nothing: no function of ``gamebot.messages`` (what a message says)
or ``gamebot.compose`` (which messages a step sends) changes what it is given. State changes happen in the
step that decides them (``handlers``; the unit of work and its courier, for what a delivery teaches); a
builder that must say what to remember returns it as data (``compose.game.Told``, ``outbox.courier.Notices``,
``outbox.uow.Settled``, ``Out.remember``).

The check walks every function's syntax tree (nested functions too: they see their enclosing function's
parameters) and fails on:

* an assignment, augmented assignment or ``del`` whose target is an attribute or an item of a parameter
  (``s.status = ...``, ``s.players[i].x = ...``, ``plan.outs += ...``, ``del s.sel[k]``);
* a call of a known mutator on a parameter or on what it holds (``session.unreachable.append(...)``,
  ``s.mark_seen(...)``), or of a function known to change what it is given (``closing_reminders(s)``);
* a call that writes through the step's dependencies (``deps.mark_user(...)``, ``deps.repo.put(...)``...).

Local values being built (``outs.append(...)`` of a local list, a local copy's method) are fine, and so is
rebinding a parameter's name (``sel = sel or {}``).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROOMS = ("shared/gamebot/messages", "shared/gamebot/compose")

NOT_BUILDERS = {
    "shared/gamebot/compose/context.py": "Deps and its helpers: what a step is given (the repository, the "
                                         "unit of work, the Bot API), whose methods write records (mark_user)",
}

# Methods that change the object they are called on: the containers', and the session's own.
MUTATORS = frozenset({
    "append", "extend", "pop", "clear", "update", "remove", "insert", "add", "discard", "setdefault", "sort",
    "reverse", "popitem",
    "set_game", "speak", "mark_seen", "switch_theme",  # Session, Settings
})
# Functions that change what they are given (a builder may not hand them a parameter).
CHANGING = frozenset({"closing_reminders", "record_idle", "setattr", "delattr"})
# What a step's dependencies (``compose.context.Deps``) may be asked that writes: a record, the repository,
# the unit of work, the delivery, the Bot API, the scheduler.
DEPS_WRITES = frozenset({"mark_user"})
DEPS_WRITERS = frozenset({"repo", "uow", "courier", "io", "scheduler"})
DEPS_NAMES = frozenset({"deps"})


def _root(node: ast.expr) -> str | None:
    """The name an attribute or item chain starts from (``s`` of ``s.players[i].x``)."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _chain(node: ast.expr) -> list[str]:
    """``deps.repo.put`` as ``["deps", "repo", "put"]`` (items skipped)."""
    names: list[str] = []
    while isinstance(node, ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Attribute):
            names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        names.append(node.id)
    return names[::-1]


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    a = fn.args
    names = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
    names |= {p.arg for p in (a.vararg, a.kwarg) if p is not None}
    return names


def _targets(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.Tuple | ast.List):
        return [t for elt in node.elts for t in _targets(elt)]
    if isinstance(node, ast.Starred):
        return _targets(node.value)
    return [node]


def _rebound(fn: ast.AST) -> dict[str, int]:
    """The names a function binds anew (``events = sorted(events)``), each with its first line, not looking
    into nested functions: from there on, the name is a local value."""
    lines: dict[str, int] = {}
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        for t in (t for target in targets for t in _targets(target) if isinstance(t, ast.Name)):
            lines[t.id] = min(lines.get(t.id, node.lineno), node.lineno)
        todo.extend(ast.iter_child_nodes(node))
    return lines


class _Walker(ast.NodeVisitor):
    def __init__(self, where: str) -> None:
        self.where = where
        self.params: set[str] = set()
        self.rebound: dict[str, int] = {}
        self.found: list[str] = []

    def _given(self, name: str | None, node: ast.AST) -> bool:
        """Is ``name``, at ``node``, still what the function was given?"""
        line = getattr(node, "lineno", 0)
        return name in self.params and not (name in self.rebound and self.rebound[name] < line)

    def _say(self, node: ast.AST, what: str) -> None:
        self.found.append(f"{self.where}:{getattr(node, 'lineno', '?')}: {what}")

    def _function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        outer, outer_rebound = self.params, self.rebound
        own = _params(fn)
        if isinstance(fn, ast.FunctionDef) and fn.name == "__init__":
            own.discard("self")  # (a constructor builds its own object)
        # a nested function sees its enclosing function's parameters, unless it names its own alike
        self.params = own | {p for p in outer if p not in _params(fn)}
        self.rebound = {k: v for k, v in outer_rebound.items() if k not in own} | _rebound(fn)
        self.generic_visit(fn)
        self.params, self.rebound = outer, outer_rebound

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def _changed(self, node: ast.AST, targets: list[ast.expr], how: str) -> None:
        for target in targets:
            for t in _targets(target):
                if isinstance(t, ast.Attribute | ast.Subscript) and self._given(_root(t), node):
                    self._say(node, f"{how} {ast.unparse(t)}")

    def visit_Assign(self, node: ast.Assign) -> None:
        self._changed(node, node.targets, "assigns")
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._changed(node, [node.target], "augments")
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._changed(node, [node.target], "assigns")
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        self._changed(node, node.targets, "deletes")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        chain = _chain(f)
        if isinstance(f, ast.Attribute) and f.attr in MUTATORS and self._given(_root(f.value), node):
            self._say(node, f"calls {ast.unparse(f)}")
        elif chain and chain[0] in DEPS_NAMES and self._given(chain[0], node) and len(chain) > 1 and (
                chain[1] in DEPS_WRITERS or chain[-1] in DEPS_WRITES):
            self._say(node, f"writes through {ast.unparse(f)}")
        elif isinstance(f, ast.Name) and f.id in CHANGING and any(
                self._given(_root(a), node) for a in node.args):
            self._say(node, f"hands a parameter to {f.id}")
        self.generic_visit(node)


def changes(source: str, where: str = "<sample>") -> list[str]:
    """Every change of what a function is given, in ``source``."""
    walker = _Walker(where)
    walker.visit(ast.parse(source))
    return walker.found


def _builders() -> list[Path]:
    files = sorted(p for room in ROOMS for p in (ROOT / room).rglob("*.py"))
    return [p for p in files if str(p.relative_to(ROOT)) not in NOT_BUILDERS]


def test_no_message_builder_changes_what_it_is_given():
    files = _builders()
    assert len(files) > 15  # (the rooms are where they were: the walk is not vacuous)
    found = [c for p in files for c in changes(p.read_text(encoding="utf-8"), str(p.relative_to(ROOT)))]
    assert found == [], "message builders that change what they are given:\n" + "\n".join(found)


def test_the_exceptions_are_real_files():
    for path, why in NOT_BUILDERS.items():
        assert (ROOT / path).is_file() and why


SAMPLE = '''
def builds(deps, s, plan, outs, state):
    s.status = "ended"                      # 1 an attribute
    s.players[0].name = "x"                 # 2 an item's attribute
    plan.outs += []                         # 3 augmented
    del s.sel["g"]                          # 4 del of an item
    session_copy, s.vote_msg = 1, None      # 5 in a tuple
    s.unreachable.append(1)                 # 6 a mutator on an attribute
    outs.extend([])                         # 7 a mutator on the parameter itself
    s.mark_seen(1)                          # 8 the session's own mutator
    deps.mark_user(1, blocked=True)         # 9 a write through deps
    deps.repo.put(None, 1)                  # 10 the repository
    closing_reminders(s)                    # 11 a function that changes what it is given

    def inner(x):
        s.again_msg = x                     # 12 a nested function, the enclosing parameter
    return inner


def fine(s, events, sel=None):
    outs = []
    outs.append(s.chat_id)
    mine = {}
    mine.setdefault("k", []).append(1)
    copy = s.model_copy(update={"keyboards": list(s.keyboards)})
    copy.mark_seen(1)
    sel = sel or {}
    events = sorted(events)
    events.insert(0, events.pop())          # (rebound above: a local list)
    table = deps.table(s)
    x = s.sel.get("g")
    outs[0] = 1

    def inner(s):                           # (its own s: a new parameter, still checked)
        return [s.chat_id]
    return outs, mine, copy, sel, events, table, x, inner


class Pages:
    def __init__(self, table):
        self.table = table                  # (a constructor builds its own object)

    def page(self):
        self.table = None                   # 13 a method changing its object
'''


def test_the_walker_catches_each_pattern():
    found = changes(SAMPLE)
    lines = SAMPLE.splitlines()
    numbered = sorted(int(lines[int(f.split(":")[1]) - 1].rsplit("# ", 1)[1].split()[0]) for f in found)
    assert numbered == list(range(1, 14)), found
