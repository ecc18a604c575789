"""The README's "where things go" table names exactly the modules and packages that helpers/ has, one home each.
(Which may import which: pyproject.toml's [tool.importlinter] layers, tests/test_import_structure.py.)"""
import re

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
