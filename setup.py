"""Build hook: the top-level ``sample_data/`` ships inside the package.

Everything else about the build is declared in pyproject.toml. The bundled data sets sit
beside ``kernelviz/`` and ``tests/`` in the checkout, but an installed kernelviz has no
checkout around it, so the wheel carries them as ``kernelviz/data/sample_data/*`` — where
``kernelviz.data.io`` looks first (with importlib.resources). An editable install copies
nothing: there ``kernelviz.data.io`` finds the checkout's own ``sample_data/``.
MANIFEST.in puts the folder into the sdist, so a wheel built from the sdist has it too.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SAMPLES_SOURCE = Path(__file__).resolve().parent / "sample_data"
SAMPLES_IN_PACKAGE = ("kernelviz", "data", "sample_data")


class BuildPyWithSamples(build_py):
    """``build_py`` that also copies every file of ``sample_data/`` into the package."""

    def _sample_files(self) -> list[tuple[Path, Path]]:
        target = Path(self.build_lib, *SAMPLES_IN_PACKAGE)
        return [(source, target / source.name)
                for source in sorted(SAMPLES_SOURCE.iterdir()) if source.is_file()]

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        if not SAMPLES_SOURCE.is_dir():
            raise FileNotFoundError(f"{SAMPLES_SOURCE} is missing: the wheel would have no samples.")
        for source, target in self._sample_files():
            self.mkpath(str(target.parent))
            self.copy_file(str(source), str(target), preserve_mode=False)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if self.editable_mode or not SAMPLES_SOURCE.is_dir():
            return outputs
        return outputs + [str(target) for _, target in self._sample_files()]


setup(cmdclass={"build_py": BuildPyWithSamples})
