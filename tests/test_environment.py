"""requirements.txt and environment.yml pin the same exact versions, each pin is explained, every third-party import
is pinned, and paths come from the package."""
import ast
import os
import re
import subprocess
import sys

import pytest
import yaml

from helpers import DATA_DIR, ROOT

PIN = re.compile(r"^([A-Za-z0-9_.\-\[\]]+)==([A-Za-z0-9_.+\-]+)$")


def requirement_pins(filename: str = "requirements.txt"):
    """{name: version} from requirements.txt (or requirements-site.txt), checking that every pin has a comment
    right above it."""
    lines = (ROOT / filename).read_text().splitlines()
    pins = {}
    for i, line in enumerate(lines):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = PIN.match(line)
        assert m, f"{filename} line {i + 1} is not an exact pin (name==version): {line!r}"
        assert lines[i - 1].strip().startswith("#"), f"the pin {line!r} has no comment saying why it is there"
        pins[m.group(1).lower()] = m.group(2)
    return pins


def environment_pins():
    """{name: version} from the pip section of environment.yml, plus the python version."""
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    deps = env["dependencies"]
    pip_section = next(d["pip"] for d in deps if isinstance(d, dict) and "pip" in d)
    pins = {}
    for line in pip_section:
        m = PIN.match(line.strip())
        assert m, f"environment.yml pip entry is not an exact pin: {line!r}"
        pins[m.group(1).lower()] = m.group(2)
    python = [d for d in deps if isinstance(d, str) and d.startswith("python")]
    return pins, python


def test_requirements_and_environment_agree():
    req = requirement_pins()
    env, python = environment_pins()
    only_req, only_env = set(req.items()) - set(env.items()), set(env.items()) - set(req.items())
    assert req == env, f"only in requirements.txt: {only_req}; only in environment.yml: {only_env}"
    assert python == ["python=3.11"]
    header = re.search(r"^# Python (\d+\.\d+)", (ROOT / "requirements.txt").read_text(), flags=re.M)
    assert header and header[1] == "3.11", "requirements.txt's '# Python 3.11' line: chapter 00 checks the kernel by it"


def test_torch_is_the_cpu_wheel_on_disk_and_the_user_packages_are_pinned():
    req = requirement_pins()
    assert req["torch"] == "2.13.0"
    for name in ("jupyterlab", "torch", "matplotlib", "ipywidgets", "nbval"):
        assert name in req, f"{name} is a required package of the course but is not pinned"


def test_installed_versions_match_the_pins():
    from importlib.metadata import version

    for name, pinned in requirement_pins().items():
        assert version(name).split("+")[0] == pinned, f"{name}: installed {version(name)}, pinned {pinned}"


def test_paths_come_from_the_package_not_the_working_directory(tmp_path):
    out = subprocess.run([sys.executable, "-c", "import helpers; print(helpers.ROOT); print(helpers.DATA_DIR)"],
                         cwd=tmp_path, capture_output=True, text=True, check=True).stdout.split()
    assert out == [str(ROOT), str(DATA_DIR)]
    assert (ROOT / "helpers" / "__init__.py").is_file() and DATA_DIR == ROOT / "data"
    assert os.path.isdir(DATA_DIR)


def test_the_site_pins_are_exact_and_add_to_the_course_pins():
    """requirements-site.txt (make site) pins exactly, explains each pin, and never re-pins a course package."""
    site, course = requirement_pins("requirements-site.txt"), requirement_pins()
    assert {"sphinx", "myst-nb", "sphinx-book-theme", "jieba"} <= set(site)
    assert not set(site) & set(course), f"pinned in both files: {sorted(set(site) & set(course))}"


def test_installed_site_packages_match_their_pins():
    from importlib.metadata import PackageNotFoundError, version

    try:
        version("myst-nb")
    except PackageNotFoundError:
        pytest.skip("the site's packages are not installed (make site installs requirements-site.txt)")
    for name, pinned in requirement_pins("requirements-site.txt").items():
        assert version(name).split("+")[0] == pinned, f"{name}: installed {version(name)}, pinned {pinned}"


# import name -> distribution name, where they differ
DISTRIBUTION = {"PIL": "pillow", "yaml": "pyyaml", "otter": "otter-grader", "IPython": "ipython",
                "sklearn": "scikit-learn", "playwright": "playwright", "fontTools": "fonttools",
                "sphinx": "sphinx", "mathjax": "django-static-mathjax", "importlinter": "import-linter"}
# the website's build (helpers/devtools/site.py, make site) may import what requirements-site.txt pins
SITE_MODULES = ("helpers/devtools/site.py", "tests/test_site.py", "tests/test_site_pages.py")
SCANNED = ("helpers", "tests", "benchmarks", "assignments")


def third_party_imports() -> dict[str, set[str]]:
    """{top-level module: files importing it} for every import in the course's Python code that is not the
    standard library or the course's own packages."""
    own = {"helpers", "assignments", "conftest"} | {p.stem for p in (ROOT / "tests").glob("*.py")}
    found: dict[str, set[str]] = {}
    for folder in SCANNED:
        for path in (ROOT / folder).rglob("*.py"):
            if "dist" in path.relative_to(ROOT).parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in own:
                        found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_third_party_import_is_pinned():
    pins = {k.replace("_", "-") for k in requirement_pins()}
    site_pins = pins | {k.replace("_", "-") for k in requirement_pins("requirements-site.txt")}
    imports = third_party_imports()
    assert {"torch", "numpy", "matplotlib"} <= set(imports), "the scan should see the course's main imports"
    assert {"sphinx", "fontTools", "mathjax"} <= set(imports), "the scan should see the site builder's imports"
    unpinned = {}
    for top, files in imports.items():
        name = DISTRIBUTION.get(top, top).lower().replace("_", "-")
        course_files = sorted(f for f in files if f not in SITE_MODULES)
        if name not in (pins if course_files else site_pins):
            unpinned[top] = (course_files or sorted(files))[:3]
    assert not unpinned, f"imported but not pinned in requirements.txt (requirements-site.txt for the site): {unpinned}"
