"""
The package as built and installed: its version, the in-tree build backend (wheel contents,
RECORD, the same bytes every build, its TOML reader), and no import outside the standard
library (the plugin's pytest aside).
"""
from __future__ import annotations

import ast
import base64
import hashlib
import importlib.metadata
import importlib.util
import json
import sys
import tomllib
import zipfile
from pathlib import Path
from types import ModuleType

import card_sandbox
from conftest import REPO

PYTHON = REPO / "python"


def backend() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kit_backend", PYTHON / "_build" / "backend.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_has_the_npm_packages_version() -> None:
    npm = json.loads((REPO / "package.json").read_text())["version"]
    pyproject = tomllib.loads((PYTHON / "pyproject.toml").read_text())
    assert pyproject["project"]["version"] == npm
    assert card_sandbox.__version__ == npm
    assert importlib.metadata.version("card-sandbox") == npm


def test_the_backends_toml_reader_reads_pyproject_as_tomllib_does() -> None:
    text = (PYTHON / "pyproject.toml").read_text()
    assert backend().read_toml_subset(text) == tomllib.loads(text)


def test_builds_the_same_wheel_twice_with_the_package_and_its_entry_point(tmp_path: Path) -> None:
    build = backend()
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    name = build.build_wheel(str(first))
    assert name == f"card_sandbox-{card_sandbox.__version__}-py3-none-any.whl"
    build.build_wheel(str(second))
    assert (first / name).read_bytes() == (second / name).read_bytes()

    with zipfile.ZipFile(first / name) as wheel:
        names = wheel.namelist()
        info = f"card_sandbox-{card_sandbox.__version__}.dist-info"
        modules = sorted(
            p.relative_to(PYTHON / "src").as_posix()
            for p in (PYTHON / "src" / "card_sandbox").glob("*.py")
        )
        assert sorted(n for n in names if n.endswith(".py")) == modules
        assert "card_sandbox/py.typed" in names
        assert wheel.read(f"{info}/entry_points.txt").decode() == (
            "[pytest11]\ncard_sandbox = card_sandbox.plugin\n"
        )
        metadata = wheel.read(f"{info}/METADATA").decode()
        assert "Requires-Dist" not in metadata and "Requires-Python: >=3.9" in metadata
        # RECORD: every other file with its hash and size
        record = wheel.read(f"{info}/RECORD").decode().splitlines()
        for line in record:
            path, digest, size = line.rsplit(",", 2)
            if path == f"{info}/RECORD":
                continue
            data = wheel.read(path)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert (digest, int(size)) == (f"sha256={expected.decode()}", len(data))
        assert len(record) == len(names)


def test_imports_nothing_outside_the_standard_library() -> None:
    outside = set()
    for source in (PYTHON / "src" / "card_sandbox").glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                roots = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                roots = [node.module.split(".")[0]]
            else:
                continue
            outside |= {
                f"{source.name}: {root}" for root in roots if root not in sys.stdlib_module_names
            }
    assert outside == {"plugin.py: pytest"}
