"""What pyproject.toml cannot say: the scenario library stays in the repository's top-level
``scenarios/`` folder (others keep adding files there) and ships inside the wheel as the
package data folder ``harness/_library`` (see ``harness/scenarios/bundled.py``, which finds it)."""

from setuptools import find_packages, setup

LIBRARY_PACKAGE = "harness._library"
LIBRARY_FILES = [
    "*.yaml",
    "*.yml",
    "README.md",
    "schema.json",
]  # as harness.scenarios.bundled.LIBRARY_FILES

setup(
    packages=[*find_packages(include=["harness*", "fakes*", "dashboards*"]), LIBRARY_PACKAGE],
    package_dir={LIBRARY_PACKAGE: "scenarios"},
    package_data={
        "harness": [
            "py.typed",
            "wire/findings.schema.json",
            "telemetry/transcript.schema.json",
            "sut/schemas/*.json",
        ],
        "fakes": ["py.typed"],
        # Dashboards, their alerting rules with the rules' promtool tests, and the Grafana
        # provisioning and Prometheus example files generated beside them.
        "dashboards": ["json/*.json", "alerts.yml", "alerts_test.yml", "provisioning/**/*"],
        LIBRARY_PACKAGE: LIBRARY_FILES,
    },
)
