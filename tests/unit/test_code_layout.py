"""How the code is laid out: tests share helpers through helper modules, never through each other; what
ships in the Lambda layer (shared/) imports only what the layer holds."""
from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIP = {".venv", ".sam-venv", ".aws-sam", ".git", "node_modules"}
SHARED = ROOT / "shared"
# The Lambda Python runtime brings boto3 and botocore itself. gamebot.aws.signing imports botocore only when
# the environment has no AWS keys, which never happens in Lambda (a developer's profile, locally).
RUNTIME = {"boto3", "botocore"}


def python_files(top: Path) -> list[Path]:
    return sorted(p for p in top.rglob("*.py") if not SKIP & set(p.relative_to(ROOT).parts))


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function (``from a import b``: a and a.b)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


@pytest.mark.slow
def test_no_module_imports_a_test_module():
    test_modules = {p.stem for p in (ROOT / "tests").rglob("test_*.py")}
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in python_files(ROOT)
        for name in sorted(imported_modules(path))
        if name.rsplit(".", 1)[-1] in test_modules
    ]
    assert not offenders, "move what is shared into a helper module (not named test_*):\n" + "\n".join(offenders)


def test_the_import_scan_sees_imports_inside_functions(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from tests.unit.test_x import y\n    import tests.unit.test_z\n")
    assert {"tests.unit.test_x", "tests.unit.test_z"} <= imported_modules(sample)


def layer_requirements() -> set[str]:
    """The distributions shared/requirements.txt installs into the layer, normalised (PEP 503)."""
    names = set()
    for line in (SHARED / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(re.sub(r"[-_.]+", "-", re.split(r"[=<>!~\[; ]", line, maxsplit=1)[0]).lower())
    return names


def test_the_layer_imports_only_the_standard_library_its_requirements_and_its_own_packages():
    own = {p.stem for p in SHARED.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
    required = layer_requirements()
    shipped = {
        module for module, dists in packages_distributions().items()
        if any(re.sub(r"[-_.]+", "-", d).lower() in required for d in dists)
    }
    assert {"telegram", "pydantic", "PIL"} <= shipped  # the scan of the requirements found the layer
    allowed = set(sys.stdlib_module_names) | own | shipped | RUNTIME
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in python_files(SHARED)
        for name in sorted(imported_modules(path))
        if name.split(".")[0] not in allowed
    ]
    assert not offenders, "local-only code belongs outside shared/ (localdev/, scripts/):\n" + "\n".join(offenders)


PROJECT = ("engine", "gamebot", "localdev", "functions", "scripts", "app")
CHECKED = ("shared", "functions", "localdev", "scripts")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def underscore_uses(path: Path) -> list[str]:
    """Another module's underscore names ``path`` uses: ``from x import _y`` (a project module, at the top
    or in a function), and ``m._y`` on a name bound by importing a project module or one of its names
    (``self._y`` and ``cls._y`` are the module's own business)."""
    tree = ast.parse(path.read_text(), str(path))
    imported: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and (node.module or "").split(".")[0] not in PROJECT:
                continue
            for alias in node.names:
                imported.add(alias.asname or alias.name)
                if _private(alias.name):
                    found.append(f"line {node.lineno}: from {'.' * node.level}{node.module or ''} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PROJECT:
                    imported.add(alias.asname or alias.name.split(".")[0])
                    if any(_private(part) for part in alias.name.split(".")):
                        found.append(f"line {node.lineno}: import {alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            base = node.value
            while isinstance(base, ast.Attribute) and not _private(base.attr):
                base = base.value
            if isinstance(base, ast.Name) and base.id in imported:
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_uses_another_modules_underscore_names():
    offenders = [
        f"{path.relative_to(ROOT)} {use}"
        for top in CHECKED
        for path in python_files(ROOT / top)
        for use in underscore_uses(path)
    ]
    assert not offenders, "make the name public if another module needs it:\n" + "\n".join(offenders)


def test_the_underscore_scan_sees_imports_and_attributes(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from engine.plugin import _ACTIVE_CACHE\nfrom . import texts\nimport gamebot.storage.store\nimport os\n"
        "def f(self):\n    from gamebot.language.texts import _load\n    texts._cache.clear()\n    gamebot.storage.store._x()\n"
        "    self._mine()\n    os._exit(0)\n    texts.__name__\n"
    )
    assert sorted(u.split(": ", 1)[1] for u in underscore_uses(sample)) == [
        "from engine.plugin import _ACTIVE_CACHE", "from gamebot.language.texts import _load", "gamebot.storage.store._x",
        "texts._cache",
    ]


# --- the rooms of gamebot ------------------------------------------------------------------------------

GAMEBOT = SHARED / "gamebot"
# how a room's docstring names what it may import from outside shared/gamebot
THIRD_PARTY = {"``engine``": "engine", "python-telegram-bot": "telegram", "pydantic": "pydantic",
               "Babel": "babel", "openskill": "openskill", "Pillow": "PIL", "botocore": "botocore",
               "boto3": "boto3"}


def rooms() -> list[str]:
    return sorted(p.name for p in GAMEBOT.iterdir() if (p / "__init__.py").exists())


def may_import(room: str) -> set[str]:
    """What the room's docstring says it may import: ``gamebot.<room>`` names and the third-party names
    of ``THIRD_PARTY`` in its "May import:" paragraph ("every other room", "every room but ``x``")."""
    doc = ast.get_docstring(ast.parse((GAMEBOT / room / "__init__.py").read_text())) or ""
    assert "May import:" in doc, f"gamebot/{room}/__init__.py does not say what it may import"
    said = doc.split("May import:", 1)[1].split("\n\n", 1)[0]
    allowed = {name for name in re.findall(r"``gamebot\.(\w+)``", said)}
    if "every other room" in said:
        allowed |= set(rooms()) - {room}
    if found := re.search(r"every room but ``(\w+)``", said):
        allowed |= set(rooms()) - {room, found.group(1)}
    return allowed | {module for phrase, module in THIRD_PARTY.items() if phrase in said}


def imports_of(room: str) -> dict[str, set[str]]:
    """The rooms and third-party packages ``room`` imports, each with the modules that import it."""
    found: dict[str, set[str]] = {}
    for path in python_files(GAMEBOT / room):
        for name in imported_modules(path):
            top = name.split(".")[0]
            if name.startswith("gamebot."):
                other = name.split(".")[1]
                if other != room and (GAMEBOT / other / "__init__.py").exists():
                    found.setdefault(other, set()).add(path.stem)
            elif top in THIRD_PARTY.values():
                found.setdefault(top, set()).add(path.stem)
    return found


def test_every_room_imports_only_what_its_docstring_says_it_may():
    offenders = [f"gamebot.{room}.{sorted(by)} imports {other}, which gamebot/{room}/__init__.py does not allow"
                 for room in rooms() for other, by in sorted(imports_of(room).items())
                 if other not in may_import(room)]
    assert offenders == []


def test_the_rooms_are_layered_as_the_package_docstring_lists_them():
    """``gamebot/__init__.py`` lists the rooms from the bottom up: a room imports only those before it
    (no cycle between rooms), and every room is listed."""
    doc = ast.get_docstring(ast.parse((GAMEBOT / "__init__.py").read_text())) or ""
    order = re.findall(r"^``(\w+)``", doc, re.M)
    assert sorted(order) == rooms()
    upward = [f"{room} imports {other}" for i, room in enumerate(order) for other in imports_of(room)
              if other in order and order.index(other) > i]
    assert upward == []


def test_the_room_check_sees_an_import_a_room_may_not_make(tmp_path, monkeypatch):
    """(The check above is not vacuous: a storage module importing the handlers is caught.)"""
    fake = tmp_path / "gamebot"
    for room in rooms():
        (fake / room).mkdir(parents=True)
        (fake / room / "__init__.py").write_text((GAMEBOT / room / "__init__.py").read_text())
    (fake / "__init__.py").write_text((GAMEBOT / "__init__.py").read_text())
    (fake / "storage" / "bad.py").write_text("from gamebot.handlers import play\n")
    monkeypatch.setattr(sys.modules[__name__], "GAMEBOT", fake)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert "handlers" in imports_of("storage") and "handlers" not in may_import("storage")
    try:
        test_every_room_imports_only_what_its_docstring_says_it_may()
    except AssertionError:
        pass
    else:
        raise AssertionError("the room check let storage import the handlers")
