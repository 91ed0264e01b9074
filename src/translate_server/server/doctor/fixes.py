"""The command that installs each system package the server needs, on the machine's family of
systems: Debian and Ubuntu (apt-get), Fedora and its kin (dnf), macOS; both Linux commands
where the family is not known."""

from __future__ import annotations

from collections.abc import Mapping

# Need -> family -> packages (or a whole command, for macOS). `{v}` is Python's X.Y.
PACKAGES: dict[str, dict[str, str]] = {
    "python": {"debian": "python3.11 python3.11-venv", "fedora": "python3.11"},
    "compiler": {"debian": "g++", "fedora": "gcc-c++", "macos": "xcode-select --install"},
    "headers": {"debian": "python{v}-dev", "fedora": "python{v}-devel"},
    "libnuma": {"debian": "libnuma1", "fedora": "numactl-libs"},
}
INSTALLER = {"debian": "apt-get install -y", "fedora": "dnf install -y"}


def family(os_release: Mapping[str, str], system: str) -> str | None:
    if system == "Darwin":
        return "macos"
    names = {os_release.get("ID", ""), *os_release.get("ID_LIKE", "").split()}
    if names & {"debian", "ubuntu"}:
        return "debian"
    if names & {"fedora", "rhel", "centos"}:
        return "fedora"
    return None


def install_command(
    need: str, machine_family: str | None, python: tuple[int, ...], root: bool
) -> str:
    """`sudo apt-get install -y g++`, or both Linux commands where the family is unknown."""
    packages = PACKAGES[need]
    if machine_family == "macos":
        return packages.get("macos", f"{need}: not needed on macOS")
    sudo = "" if root else "sudo "
    version = f"{python[0]}.{python[1]}"
    commands = {
        name: f"{sudo}{INSTALLER[name]} {packages[name].format(v=version)}"
        for name in ("debian", "fedora")
    }
    if machine_family in commands:
        return commands[machine_family]
    return f"{commands['debian']} (Debian, Ubuntu) or {commands['fedora']} (Fedora)"
