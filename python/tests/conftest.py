"""Shared fixtures: the command-line binary the Python results are compared with."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _strict():
    """Under CI, which installs every optional package (python/run-tests.sh), a test that
    would skip fails instead: a skip there means something is missing, not optional."""
    return os.environ.get("CI") == "true"


def _fail_skip(report):
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
    report.outcome = "failed"
    report.longrepr = f"skipped under CI=true, where every test must run: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if report.skipped and _strict() and not hasattr(report, "wasxfail"):
        _fail_skip(report)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    report = (yield).get_result()
    if report.skipped and _strict():
        _fail_skip(report)


def _find_cli():
    env = os.environ.get("RETROGRADE_BIN")
    if env:
        return env
    for profile in ("release", "debug"):
        p = ROOT / "target" / profile / "retrograde"
        if p.exists():
            return str(p)
    return None


@pytest.fixture(scope="session")
def cli():
    """Runs `retrograde ARGS...` and returns its standard output. Missing binary: a skip on
    a developer's machine, a failure in CI (CI builds it with `cargo test --workspace`)."""
    path = _find_cli()
    if path is None:
        pytest.skip("the retrograde binary is not built (cargo build -p retrograde-cli, or set RETROGRADE_BIN)")

    def run(*args, input=None):
        r = subprocess.run(
            [path, *map(str, args)], capture_output=True, text=True, input=input, timeout=600
        )
        if r.returncode != 0:
            raise AssertionError(f"retrograde {' '.join(map(str, args))} failed: {r.stderr}")
        return r.stdout

    run.path = path

    return run
