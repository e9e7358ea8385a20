"""Shared test fixtures: where the ORC project's example files live."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# shared/ sits beside the repository on developer machines and in CI; ORCJIT_EXAMPLES points elsewhere
EXAMPLES = Path(os.environ.get("ORCJIT_EXAMPLES", ROOT.parent / "shared" / "orc-examples"))
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.orc"))


@pytest.fixture(params=EXAMPLE_FILES, ids=[p.name for p in EXAMPLE_FILES])
def example_file(request: pytest.FixtureRequest) -> Path:
    """Each ORC file of the ORC project's examples in turn."""
    return request.param


def pytest_configure(config: pytest.Config) -> None:
    if not EXAMPLE_FILES:
        raise pytest.UsageError(
            f"no ORC example files found in {EXAMPLES}; shared/ must sit beside the repository "
            "(or set ORCJIT_EXAMPLES to the folder)"
        )


@pytest.fixture(scope="session")
def spark():  # type: ignore[no-untyped-def]
    """One local Spark session (ORC Java writer and reader) for the whole test run.

    The JVM and the session run in America/Los_Angeles, so that files Spark writes record a writer time zone
    other than UTC (the case that exposes time zone mistakes). A test that needs another session time zone sets
    ``spark.sql.session.timeZone`` itself and restores it.
    """
    from pyspark.sql import SparkSession

    # Spark's Python workers run `python3` from PATH unless told otherwise: they must run this environment's
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("orcjit-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.extraJavaOptions", "-Duser.timezone=America/Los_Angeles")
        .config("spark.sql.session.timeZone", "America/Los_Angeles")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
