"""JUnit XML for a scenario run: one testsuite, one testcase per step (CI dashboards read it)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from fmhactl.scenario.runner import ERROR, FAIL, SKIPPED, ScenarioResult


def junit_xml(result: ScenarioResult) -> str:
    c = result.counts
    attrs = {"name": f"fmhactl.scenario.{result.scenario}", "tests": str(len(result.steps)),
             "failures": str(c[FAIL]), "errors": str(c[ERROR]), "skipped": str(c[SKIPPED]),
             "time": f"{result.seconds:.3f}"}
    suites = ET.Element("testsuites", {k: v for k, v in attrs.items() if k != "name"} | {"name": "fmhactl"})
    suite = ET.SubElement(suites, "testsuite", attrs)
    if result.gpu:
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", {"name": "gpu_arch", "value": result.gpu})
    for index, step in enumerate(result.steps, 1):
        case = ET.SubElement(suite, "testcase", {"classname": attrs["name"], "name": f"{index:02d} {step.name}",
                                                 "time": f"{step.seconds:.3f}"})
        if step.status == SKIPPED:
            ET.SubElement(case, "skipped", {"message": step.message})
        elif step.status == FAIL:
            ET.SubElement(case, "failure", {"message": step.message, "type": step.type}).text = \
                json.dumps(step.details, indent=1, sort_keys=True, default=str)
        elif step.status == ERROR:
            ET.SubElement(case, "error", {"message": step.message, "type": step.type})
        if step.status not in (FAIL,) and step.message:
            ET.SubElement(case, "system-out").text = step.message
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
