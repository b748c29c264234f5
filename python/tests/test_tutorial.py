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


NO_SPIEL = "OpenSpiel is not installed (pip install open-spiel)"


def test_the_readmes_python_runs(tmp_path, monkeypatch):
    """The README's Python block (the shell commands are run by .ci/doc-commands)."""
    readme = DOC.parents[1] / "README.md"
    found = re.findall(r"^```python\n(.*?)^```", readme.read_text(), flags=re.M | re.S)
    assert found
    pytest.importorskip("pyspiel", reason=NO_SPIEL)
    monkeypatch.chdir(tmp_path)
    for k, code in enumerate(found):
        exec(compile(code, f"{readme}:python{k}", "exec"), {"__name__": "readme"})


def test_the_tutorial_runs(tmp_path, monkeypatch, capsys):
    """Every block but the OpenSpiel ones (the next test), in order, in one namespace."""
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "tutorial"}
    for k, (info, code) in enumerate(blocks()):
        if "openspiel" not in info:
            exec(compile(code, f"{DOC}:block{k}", "exec"), namespace)
    out = capsys.readouterr().out
    assert "win in 7" in out and "[0 3 6 9]" in out


def test_the_tutorials_openspiel_blocks_run(tmp_path, monkeypatch):
    """The OpenSpiel blocks, which need only `retrograde` beside them: skipped, and counted
    as such, without OpenSpiel."""
    pytest.importorskip("pyspiel", reason=NO_SPIEL)
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "tutorial"}
    exec("import retrograde", namespace)
    found = [(k, code) for k, (info, code) in enumerate(blocks()) if "openspiel" in info]
    assert found
    for k, code in found:
        exec(compile(code, f"{DOC}:block{k}", "exec"), namespace)
