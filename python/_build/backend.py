"""
The package's build backend (PEP 517 and PEP 660), standard library only: `[build-system]
requires = []` in pyproject.toml, so `pip install --no-index ./python` builds and installs offline,
with nothing fetched from a package index (setuptools is not needed, nor `wheel`).

It reads the `[project]` table of pyproject.toml (with tomllib where there is one, 3.11+; a
reader of the few forms that file uses elsewhere) and writes:

- a wheel: `src/card_sandbox/` (every `.py` and `py.typed`) and its `.dist-info` (METADATA,
  WHEEL, entry_points.txt with the pytest11 entry point, RECORD), byte for byte the same from
  the same sources (fixed timestamps);
- an editable wheel (`pip install -e`): a `.pth` line naming `src/`, and the same `.dist-info`;
- an sdist: the sources a wheel is built from, with PKG-INFO.
"""
from __future__ import annotations

import base64
import hashlib
import io
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "src"
WHEEL_TAG = "py3-none-any"
# zip's earliest date: the same bytes from the same sources
FIXED_DATE = (1980, 1, 1, 0, 0, 0)


# ---- pyproject.toml ----


def read_pyproject(text: Optional[str] = None) -> Dict[str, Any]:
    """pyproject.toml as a dict: tomllib's, or the small reader's before Python 3.11."""
    text = (ROOT / "pyproject.toml").read_text("utf-8") if text is None else text
    try:
        import tomllib
    except ImportError:
        return read_toml_subset(text)
    return tomllib.loads(text)


_STRING = r'"(?:[^"\\]|\\.)*"'


def read_toml_subset(text: str) -> Dict[str, Any]:
    """
    The TOML that pyproject.toml uses: `[dotted.tables]`, `key = "string"`, and arrays of
    strings (over several lines too). Anything else is refused, so a new form is noticed.
    """
    document: Dict[str, Any] = {}
    table = document
    pending = ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = pending + _strip_comment(raw).strip()
        if not line:
            continue
        if line.startswith("[") and "=" not in line:
            table = document
            for part in _split_dotted(line.strip("[] ")):
                table = table.setdefault(part, {})
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError(f"pyproject.toml:{number}: cannot read {raw!r}")
        value = value.strip()
        if value.startswith("[") and not value.rstrip(",").endswith("]"):
            pending = line + " "
            continue
        pending = ""
        table[_unquote(key.strip())] = _value(value, number)
    return document


def _strip_comment(line: str) -> str:
    kept = ""
    for piece in re.findall(_STRING + r"|[^\"#]+|#.*|\"", line):
        if piece.startswith("#"):
            break
        kept += piece
    return kept


def _split_dotted(name: str) -> List[str]:
    return [_unquote(part.strip()) for part in re.findall(_STRING + r"|[^.]+", name)]


def _unquote(text: str) -> str:
    if text.startswith('"'):
        return str(bytes(text[1:-1], "utf-8").decode("unicode_escape"))
    return text


def _value(text: str, number: int) -> Any:
    if re.fullmatch(_STRING, text):
        return _unquote(text)
    if text.startswith("[") and text.endswith("]"):
        items = re.findall(_STRING, text)
        rest = re.sub(_STRING, "", text[1:-1])
        if rest.replace(",", "").strip():
            raise ValueError(f"pyproject.toml:{number}: only arrays of strings are read")
        return [_unquote(item) for item in items]
    raise ValueError(f"pyproject.toml:{number}: only strings and arrays of strings are read")


# ---- what goes in a wheel ----


class Project:
    """The `[project]` table, as the files of a .dist-info need it."""

    def __init__(self, pyproject: Optional[Dict[str, Any]] = None) -> None:
        project = (pyproject or read_pyproject())["project"]
        self.name: str = project["name"]
        self.version: str = project["version"]
        self.summary: str = project.get("description", "")
        self.requires_python: Optional[str] = project.get("requires-python")
        self.license: Optional[str] = project.get("license")
        self.classifiers: List[str] = project.get("classifiers", [])
        self.dependencies: List[str] = project.get("dependencies", [])
        self.urls: Dict[str, str] = project.get("urls", {})
        self.entry_points: Dict[str, Dict[str, str]] = project.get("entry-points", {})
        self.readme: Optional[str] = project.get("readme")
        if self.dependencies:
            # the point of this package: it installs wherever Python does
            raise ValueError("card-sandbox takes no runtime dependency")

    @property
    def distribution(self) -> str:
        """The name in file names: `card_sandbox`."""
        return re.sub(r"[-_.]+", "_", self.name).lower()

    @property
    def dist_info(self) -> str:
        return f"{self.distribution}-{self.version}.dist-info"

    def metadata(self) -> str:
        lines = [
            "Metadata-Version: 2.1",
            f"Name: {self.name}",
            f"Version: {self.version}",
        ]
        if self.summary:
            lines.append(f"Summary: {self.summary}")
        if self.license:
            lines.append(f"License: {self.license}")
        if self.requires_python:
            lines.append(f"Requires-Python: {self.requires_python}")
        lines += [f"Classifier: {c}" for c in self.classifiers]
        lines += [f"Project-URL: {label}, {url}" for label, url in self.urls.items()]
        text = "\n".join(lines) + "\n"
        if self.readme:
            text += "Description-Content-Type: text/markdown\n\n"
            text += (ROOT / self.readme).read_text("utf-8")
        return text

    def entry_points_txt(self) -> str:
        sections = []
        for group, entries in self.entry_points.items():
            body = "".join(f"{name} = {target}\n" for name, target in entries.items())
            sections.append(f"[{group}]\n{body}")
        return "\n".join(sections)

    def wheel_txt(self) -> str:
        return (
            "Wheel-Version: 1.0\n"
            "Generator: card-sandbox _build/backend.py\n"
            "Root-Is-Purelib: true\n"
            f"Tag: {WHEEL_TAG}\n"
        )

    def dist_info_files(self) -> List[Tuple[str, bytes]]:
        """The .dist-info's files but RECORD, as (path in the wheel, bytes)."""
        files = [
            ("METADATA", self.metadata()),
            ("WHEEL", self.wheel_txt()),
            ("entry_points.txt", self.entry_points_txt()),
        ]
        return [(f"{self.dist_info}/{name}", text.encode("utf-8")) for name, text in files]


def package_files() -> List[Tuple[str, bytes]]:
    """Each source file of the package, as (path in the wheel, bytes), in a stable order."""
    found = []
    for path in sorted(SOURCES.rglob("*")):
        if path.is_file() and (path.suffix == ".py" or path.name == "py.typed"):
            if "__pycache__" not in path.parts:
                found.append((path.relative_to(SOURCES).as_posix(), path.read_bytes()))
    return found


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}"


def write_wheel(directory: str, files: List[Tuple[str, bytes]], project: Project) -> str:
    """Writes the wheel (files, the .dist-info, RECORD last); returns its file name."""
    name = f"{project.distribution}-{project.version}-{WHEEL_TAG}.whl"
    everything = files + project.dist_info_files()
    record_path = f"{project.dist_info}/RECORD"
    record = "".join(_record_line(path, data) + "\n" for path, data in everything)
    record += f"{record_path},,\n"
    with zipfile.ZipFile(Path(directory) / name, "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in everything + [(record_path, record.encode("utf-8"))]:
            info = zipfile.ZipInfo(path, FIXED_DATE)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return name


def _write_metadata(directory: str, project: Project) -> str:
    for path, data in project.dist_info_files():
        target = Path(directory) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return project.dist_info


# ---- the PEP 517 and PEP 660 hooks ----


def get_requires_for_build_wheel(config_settings: Any = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Any = None) -> List[str]:
    return []


def get_requires_for_build_editable(config_settings: Any = None) -> List[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Any = None) -> str:
    return _write_metadata(metadata_directory, Project())


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: Any = None
) -> str:
    return _write_metadata(metadata_directory, Project())


def build_wheel(
    wheel_directory: str, config_settings: Any = None, metadata_directory: Optional[str] = None
) -> str:
    return write_wheel(wheel_directory, package_files(), Project())


def build_editable(
    wheel_directory: str, config_settings: Any = None, metadata_directory: Optional[str] = None
) -> str:
    project = Project()
    pth = (f"{project.distribution}.pth", f"{SOURCES}\n".encode("utf-8"))
    return write_wheel(wheel_directory, [pth], project)


def build_sdist(sdist_directory: str, config_settings: Any = None) -> str:
    project = Project()
    base = f"{project.distribution}-{project.version}"
    members = [("pyproject.toml", (ROOT / "pyproject.toml").read_bytes())]
    members += [("README.md", (ROOT / "README.md").read_bytes())]
    members += [("_build/backend.py", Path(__file__).read_bytes())]
    members += [(f"src/{path}", data) for path, data in package_files()]
    members += [("PKG-INFO", project.metadata().encode("utf-8"))]
    name = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        for path, data in members:
            info = tarfile.TarInfo(f"{base}/{path}")
            info.size = len(data)
            info.mode = 0o644
            sdist.addfile(info, io.BytesIO(data))
    return name
