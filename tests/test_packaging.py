"""The bundled samples live in the top-level ``sample_data/`` and still ship in the wheel.

A checkout (or an editable install) reads them from ``sample_data/`` itself; a wheel carries
them as ``kernelviz/data/sample_data/`` (setup.py's build hook, MANIFEST.in for the sdist).
The slow test builds the sdist and, from it, the wheel — as ``python -m build`` does — with the
venv's own setuptools and no network, lists the wheel and installs it into a fresh venv.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import kernelviz as kv

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_data"
IN_WHEEL = "kernelviz/data/sample_data"
# What the build reads; everything else in the checkout stays out of the copy built from.
BUILD_INPUTS = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "kernelviz", "sample_data")
JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")


def sample_files() -> list[Path]:
    return sorted(path for path in SAMPLES.iterdir() if path.is_file())


def run(*args, cwd, **kwargs) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    done = subprocess.run([*map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, **kwargs)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done


def test_the_samples_sit_at_the_top_level_and_load_from_the_checkout():
    assert not (ROOT / "kernelviz" / "data" / "sample_data").exists()
    names = {path.name for path in sample_files()}
    assert {info["file"] for info in kv.data.SAMPLES.values()} | {"README.md"} <= names
    if Path(kv.__file__).resolve().parent == ROOT / "kernelviz":  # this checkout, maybe editable
        assert Path(kv.data.SAMPLE_DIR) == SAMPLES


@pytest.mark.slow
def test_the_wheel_ships_every_sample_and_an_installed_wheel_loads_one(tmp_path):
    source, dist = tmp_path / "source", tmp_path / "dist"
    source.mkdir()
    for name in BUILD_INPUTS:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, source / name, ignore=JUNK)
        else:
            shutil.copy2(path, source / name)

    # sdist, then the wheel from the unpacked sdist: what `python -m build --no-isolation` does
    run(sys.executable, "-c",
        f"from setuptools import build_meta; build_meta.build_sdist({str(dist)!r})", cwd=source)
    (sdist,) = dist.glob("kernelviz-*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
        "--quiet", "-w", dist, unpacked, cwd=tmp_path)
    (wheel,) = dist.glob("kernelviz-*.whl")

    with zipfile.ZipFile(wheel) as archive:
        listed = set(archive.namelist())
        for path in sample_files():
            member = f"{IN_WHEEL}/{path.name}"
            assert member in listed, f"{member} is not in {wheel.name}"
            assert archive.read(member) == path.read_bytes(), f"{member} differs from {path}"
    assert not any(name.startswith("sample_data/") for name in listed), "samples as a top-level folder"
    # the components' front end, the module they share included (no CDN: the app serves these)
    front_end = {path.relative_to(ROOT).as_posix() for path in (ROOT / "kernelviz" / "components").rglob("*")
                 if path.suffix in (".js", ".css")}
    assert "kernelviz/components/points.js" in front_end and front_end <= listed, front_end - listed
    # the lessons' shipped grid searches (disk-cache entries read behind the user's folder)
    shipped = {path.relative_to(ROOT).as_posix() for path in (ROOT / "kernelviz" / "shipped_cache").glob("*.entry")}
    assert shipped and shipped <= listed, shipped - listed

    # A fresh venv sees this interpreter's packages (numpy, pandas …) through a .pth file, so
    # --no-deps and --no-index need no network; its own site-packages comes first, so the
    # kernelviz imported there is the wheel's.
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    purelib = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                       cwd=tmp_path).stdout.strip())
    (purelib / "_parent_site_packages.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index",
        "--quiet", wheel, cwd=tmp_path)

    # -I: neither the checkout (the working directory) nor PYTHONPATH is on sys.path
    probe = ("import json, kernelviz as kv; ds = kv.data.load('fourclass'); "
             "print(json.dumps({'package': kv.__file__, 'samples': str(kv.data.SAMPLE_DIR), "
             "'n': ds.n, 'd': ds.d}))")
    found = json.loads(run(python, "-I", "-c", probe, cwd=tmp_path).stdout)
    assert Path(found["package"]).is_relative_to(purelib)
    assert Path(found["samples"]) == purelib / IN_WHEEL
    assert (found["n"], found["d"]) == (862, 2)
