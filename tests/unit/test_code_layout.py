"""How the code is laid out: tests share helpers through helper modules, never through each other."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SKIP = {".venv", ".sam-venv", ".aws-sam", ".git", "node_modules"}


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
