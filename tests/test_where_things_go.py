"""The README's "where things go" table names exactly the modules and packages that helpers/ has."""
import re

import pytest

from helpers import ROOT


def test_readme_table_matches_the_helpers_tree():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### Where things go", 1)[1].split("###", 1)[0]
    listed = set(re.findall(r"^\| `(helpers/[^`]+)` \|", section, flags=re.M))
    on_disk = {f"helpers/{p.name}" for p in (ROOT / "helpers").glob("*.py")}
    on_disk |= {f"helpers/{p.name}/" for p in (ROOT / "helpers").iterdir() if (p / "__init__.py").is_file()}
    assert listed == on_disk, f"only in README: {sorted(listed - on_disk)}; only on disk: {sorted(on_disk - listed)}"


def test_no_top_level_name_is_defined_in_two_helpers_modules():
    import ast

    seen: dict[str, str] = {}
    clashes = []
    for path in sorted((ROOT / "helpers").rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            else:
                continue
            for name in names:
                if name in ("__all__",) or (name.startswith("__") and name.endswith("__")):
                    continue
                where = str(path.relative_to(ROOT))
                if name in seen and seen[name] != where:
                    clashes.append(f"{name}: {seen[name]} and {where}")
                seen.setdefault(name, where)
    assert not clashes, "defined in two modules: " + "; ".join(clashes)


def test_every_helpers_package_is_installed_by_pyproject():
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = [p for p in (ROOT / "helpers").iterdir() if (p / "__init__.py").is_file()]
    on_disk = {"helpers"} | {f"helpers.{p.name}" for p in packages}
    assert listed == on_disk, f"pyproject.toml lists packages {sorted(listed)}; helpers has {sorted(on_disk)}"


# The ground floor: modules that build on nothing else of the course.
GROUND_FLOOR = ("base", "attention", "masks", "metrics", "cost", "tables", "i18n", "course", "pinning")


def helpers_imports(path) -> set[str]:
    """Every helpers module a file imports, at any depth (helpers.X or `from helpers import X` of a submodule)."""
    import ast

    modules = {p.stem for p in (ROOT / "helpers").glob("*.py")} | {p.name for p in (ROOT / "helpers").iterdir()
                                                                   if (p / "__init__.py").is_file()}
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "helpers" and len(parts) > 1 and parts[1] in modules:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("module", GROUND_FLOOR)
def test_ground_floor_modules_import_no_higher_module(module):
    higher = helpers_imports(ROOT / "helpers" / f"{module}.py") - set(GROUND_FLOOR)
    assert not higher, f"helpers/{module}.py is on the ground floor but imports {sorted(higher)}"


def test_the_import_detector_sees_imports_inside_functions(tmp_path):
    source = tmp_path / "x.py"
    source.write_text("def f():\n    from helpers import seq2seq\n    import helpers.plotting as p\n"
                      "from helpers import ROOT\nfrom helpers.masks import causal_mask\n")
    assert helpers_imports(source) == {"seq2seq", "plotting", "masks"}
