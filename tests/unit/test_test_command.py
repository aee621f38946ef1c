"""The test command's start (scripts/preflight, run first by scripts/test): on a machine without Chromium it
installs it as root with apt-get, and otherwise stops at once saying what is missing and how to get it,
before installing or running anything; PLAYGROUND_BROWSER=skip and ``-m "not slow"`` need no Chromium.

Each run gets a PATH of its own: bash, dirname, a fake ``id`` (the user id asked for) and, when asked, a
fake ``apt-get`` that logs its arguments and "installs" Chromium where PLAYGROUND_CHROMIUM points."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


class Machine:
    """A temporary stand-in for a fresh machine: its PATH, its home, where Chromium would be."""

    def __init__(self, root: Path, uid: int, apt: bool) -> None:
        self.bin, self.home = root / "bin", root / "home"
        self.bin.mkdir()
        self.home.mkdir()
        self.chromium = root / "chromium"
        self.apt_log = root / "apt.log"
        for tool in ("bash", "dirname"):
            (self.bin / tool).symlink_to(shutil.which(tool))
        executable(self.bin / "id", f"#!{shutil.which('bash')}\necho {uid}\n")
        if apt:
            chmod = shutil.which("chmod")
            executable(self.bin / "apt-get", f"""#!{shutil.which('bash')}
echo "$*" >> {self.apt_log}
if [ "$1 $2 $3" = "install -y chromium" ]; then echo '#!/bin/sh' > {self.chromium}; {chmod} +x {self.chromium}; fi
""")

    def run(self, command: str, *args: str, **env: str) -> subprocess.CompletedProcess:
        environ = {"PATH": str(self.bin), "HOME": str(self.home), "PLAYGROUND_CHROMIUM": str(self.chromium), **env}
        return subprocess.run([str(REPO / "scripts" / command), *args], cwd=REPO, env=environ, capture_output=True,
                              text=True, timeout=60)

    def apt_calls(self) -> list[str]:
        return self.apt_log.read_text().splitlines() if self.apt_log.exists() else []


def test_without_chromium_the_test_command_stops_at_once_saying_what_is_missing(tmp_path):
    machine = Machine(tmp_path, uid=1000, apt=True)
    run = machine.run("test")
    assert run.returncode != 0
    assert f"Chromium is missing ({machine.chromium})" in run.stderr
    for hint in ("apt-get install chromium", "PLAYGROUND_BROWSER=skip scripts/test", "PLAYGROUND_CHROMIUM="):
        assert hint in run.stderr, hint
    # nothing else ran: no Python looked for (scripts/bootstrap), no install, no apt-get as a user
    assert "Python 3.12 is required" not in run.stderr
    assert run.stdout == ""
    assert machine.apt_calls() == []


@pytest.mark.parametrize(("args", "env"), [((), {"PLAYGROUND_BROWSER": "skip"}), (("-m", "not slow"), {})])
def test_no_chromium_is_needed_when_the_browser_test_is_not_run(tmp_path, args, env):
    machine = Machine(tmp_path, uid=1000, apt=True)
    run = machine.run("preflight", *args, **env)
    assert run.returncode == 0, run.stderr
    assert "Chromium" not in run.stderr
    assert machine.apt_calls() == []


def test_as_root_the_test_command_installs_chromium_with_apt_get(tmp_path):
    machine = Machine(tmp_path, uid=0, apt=True)
    run = machine.run("preflight")
    assert run.returncode == 0, run.stderr
    assert "install -y chromium" in machine.apt_calls()
    assert os.access(machine.chromium, os.X_OK)


def test_as_root_without_apt_get_it_says_what_is_missing(tmp_path):
    machine = Machine(tmp_path, uid=0, apt=False)
    run = machine.run("preflight")
    assert run.returncode != 0
    assert "Chromium is missing" in run.stderr and "PLAYGROUND_BROWSER=skip" in run.stderr


def test_with_chromium_present_nothing_is_installed(tmp_path):
    machine = Machine(tmp_path, uid=0, apt=True)
    executable(machine.chromium, "#!/bin/sh\n")
    run = machine.run("preflight")
    assert run.returncode == 0, run.stderr
    assert "install -y chromium" not in machine.apt_calls()
