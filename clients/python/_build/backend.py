"""A PEP 517 build backend in the standard library, so ``pip install ./clients/python`` needs
nothing from a package index: not even setuptools (whose wheel build needs the separate ``wheel``
package before setuptools 70.1, which a bare Python 3.9-3.11 does not have).

It builds a pure-Python wheel of ``src/community_platform`` (and an editable one, and an sdist),
with the metadata from ``[project]`` in pyproject.toml.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "community_platform"
SDIST_FILES = ["pyproject.toml", "README.md", "_build/backend.py"]


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        text = handle.read().decode("utf-8")
    try:
        import tomllib  # 3.11+

        return tomllib.loads(text)["project"]
    except ImportError:  # 3.9 / 3.10: the flat string fields this backend reads
        section = text.split("[project]", 1)[1].split("\n[", 1)[0]
        return {
            key: value
            for key, value in re.findall(r'^([A-Za-z-]+)\s*=\s*"([^"]*)"', section, re.MULTILINE)
        }


def _names():
    project = _project()
    dist = re.sub(r"[-_.]+", "_", project["name"]).lower()
    return project, dist, project["version"]


def _metadata(project):
    lines = [
        "Metadata-Version: 2.1",
        "Name: " + project["name"],
        "Version: " + project["version"],
        "Summary: " + project.get("description", ""),
        "Requires-Python: " + project.get("requires-python", ">=3.9"),
        "Description-Content-Type: text/markdown",
    ]
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    return ("\n".join(lines) + "\n\n" + readme).encode("utf-8")


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return "{},sha256={},{}".format(path, digest, len(data))


def _write_wheel(wheel_directory, files):
    project, dist, version = _names()
    info = "{}-{}.dist-info".format(dist, version)
    files = list(files)
    files.append((info + "/METADATA", _metadata(project)))
    files.append(
        (
            info + "/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: community_platform _build/backend.py\n"
            b"Root-Is-Purelib: true\nTag: py3-none-any\n",
        )
    )
    record = [_record_line(path, data) for path, data in files]
    record.append(info + "/RECORD,,")
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode("utf-8")))
    name = "{}-{}-py3-none-any.whl".format(dist, version)
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files:
            wheel.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return name


def _package_files():
    source = os.path.join(ROOT, "src", PACKAGE)
    for name in sorted(os.listdir(source)):
        if name.endswith(".py") or name == "py.typed":
            with open(os.path.join(source, name), "rb") as handle:
                yield "{}/{}".format(PACKAGE, name), handle.read()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _package_files())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # A .pth line puts src/ on sys.path: edits show without reinstalling.
    pth = (os.path.join(ROOT, "src") + "\n").encode("utf-8")
    return _write_wheel(wheel_directory, [("__editable__.{}.pth".format(PACKAGE), pth)])


def build_sdist(sdist_directory, config_settings=None):
    _project_fields, dist, version = _names()
    base = "{}-{}".format(dist, version)
    name = base + ".tar.gz"
    paths = SDIST_FILES + ["src/" + path for path, _data in _package_files()]
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as archive:
        for path in paths:
            archive.add(os.path.join(ROOT, path), arcname="{}/{}".format(base, path))
        pkg_info = _metadata(_project_fields)
        entry = tarfile.TarInfo(base + "/PKG-INFO")
        entry.size = len(pkg_info)
        archive.addfile(entry, io.BytesIO(pkg_info))
    return name
