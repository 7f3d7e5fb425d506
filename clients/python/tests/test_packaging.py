"""The in-tree build backend (_build/backend.py): the wheel pip installs from ./clients/python."""

import base64
import hashlib
import importlib.util
import os
import tarfile
import tempfile
import unittest
import zipfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))


def load_backend():
    spec = importlib.util.spec_from_file_location("backend", os.path.join(ROOT, "_build", "backend.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildBackend(unittest.TestCase):
    def setUp(self):
        self.backend = load_backend()
        self.out = tempfile.mkdtemp(prefix="cp-wheel-")

    def tearDown(self):
        import shutil

        shutil.rmtree(self.out)

    def test_needs_nothing_to_build(self):
        self.assertEqual(self.backend.get_requires_for_build_wheel(), [])
        self.assertEqual(self.backend.get_requires_for_build_sdist(), [])

    def test_the_wheel_holds_every_module_with_metadata_and_a_true_record(self):
        name = self.backend.build_wheel(self.out)
        self.assertEqual(name, "community_platform_client-0.1.0-py3-none-any.whl")
        with zipfile.ZipFile(os.path.join(self.out, name)) as wheel:
            names = set(wheel.namelist())
            modules = {n for n in os.listdir(os.path.join(ROOT, "src", "community_platform")) if n.endswith(".py")}
            self.assertEqual(
                {n.split("/", 1)[1] for n in names if n.startswith("community_platform/")},
                modules | {"py.typed"},
            )
            info = "community_platform_client-0.1.0.dist-info/"
            metadata = wheel.read(info + "METADATA").decode()
            self.assertIn("Name: community-platform-client\n", metadata)
            self.assertIn("Requires-Python: >=3.9\n", metadata)
            self.assertNotIn("Requires-Dist", metadata)  # standard library only
            for line in wheel.read(info + "RECORD").decode().splitlines():
                path, digest, size = line.split(",")
                if path == info + "RECORD":
                    continue
                data = wheel.read(path)
                expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                self.assertEqual((digest, int(size)), ("sha256=" + expected, len(data)), path)
            self.assertEqual({line.split(",")[0] for line in wheel.read(info + "RECORD").decode().splitlines()}, names)

    def test_the_sdist_rebuilds(self):
        name = self.backend.build_sdist(self.out)
        with tarfile.open(os.path.join(self.out, name)) as sdist:
            members = set(sdist.getnames())
        base = "community_platform_client-0.1.0/"
        for path in ("pyproject.toml", "README.md", "_build/backend.py", "PKG-INFO", "src/community_platform/client.py"):
            self.assertIn(base + path, members)
