"""Runs the code of docs/python.md, block after block, in one namespace."""

import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "python.md"


def blocks():
    text = DOC.read_text()
    return re.findall(r"^```python([^\n]*)\n(.*?)^```", text, flags=re.M | re.S)


def test_the_tutorial_has_code():
    found = blocks()
    assert len(found) >= 8
    assert any("solve_game" in code for _, code in found)
    assert any("networkx" in code for _, code in found)
    assert any("retrograde.open" in code for _, code in found)


def test_the_readmes_python_runs(tmp_path, monkeypatch):
    """The README's Python block (the shell commands are run by .ci/doc-commands)."""
    readme = DOC.parents[1] / "README.md"
    found = re.findall(r"^```python\n(.*?)^```", readme.read_text(), flags=re.M | re.S)
    assert found
    pytest.importorskip("pyspiel")
    monkeypatch.chdir(tmp_path)
    for k, code in enumerate(found):
        exec(compile(code, f"{readme}:python{k}", "exec"), {"__name__": "readme"})


def test_the_tutorial_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "tutorial"}
    have_spiel = True
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        have_spiel = False
    ran = 0
    for info, code in blocks():
        if "openspiel" in info and not have_spiel:
            continue
        exec(compile(code, f"{DOC}:block{ran}", "exec"), namespace)
        ran += 1
    out = capsys.readouterr().out
    assert "win in 7" in out and "[0 3 6 9]" in out
    if not have_spiel:
        pytest.skip("ran every block but the OpenSpiel one (pyspiel is not installed)")
