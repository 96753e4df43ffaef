#!/usr/bin/env python3
"""gen_monitor_schema.py RVD [--check] - write reports/monitor-schema.json's
four lists of telemetry values from the one table (src/telemetry/tel_keys.h,
printed by `RVD __monitor-keys`): each GPU object's `required` names, its
`properties` (number or null, described by unit and meaning), and the
`src` and `unknown` objects' property names. Everything else in the schema
is hand-written and kept. --check: exit 1 with a diff when the file is not
what the table gives (tests/monitor.sh), instead of writing it."""
import difflib
import json
import subprocess
import sys

PATH = "reports/monitor-schema.json"


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: gen_monitor_schema.py RVD [--check]")
    rows = subprocess.run([sys.argv[1], "__monitor-keys"], check=True, capture_output=True,
                          text=True).stdout.splitlines()
    keys = [r.split("\t") for r in rows if r]
    names = [k[0] for k in keys]
    with open(PATH) as f:
        old_text = f.read()
    schema = json.loads(old_text)
    gpu = schema["properties"]["gpus"]["items"]
    table = set(names)
    # a property typed number-or-null that is not in the table is a removed
    # key; the hand-written ones (gpu, pci, vendor, src, ...) are not
    props = {}
    for k, v in gpu["properties"].items():
        is_key = "x-tel-key" in v
        if k in table or is_key:
            continue
        props[k] = v
    hand_required = [r for r in gpu["required"] if r in props]
    new_props = {}
    for k, v in props.items():
        new_props[k] = v
        if k == "vendor":  # the table's values follow the identity fields
            for name, unit, what in keys:
                # a 0/1 flag is an enum; every other value a number; null:
                # unknown (the reason in `unknown`)
                typ = {"enum": [0, 1, None]} if unit == "0/1" else {"type": ["number", "null"]}
                new_props[name] = dict(typ, **{"x-tel-key": True,
                                               "description": "%s (%s)" % (what, unit)})
    gpu["properties"] = new_props
    gpu["required"] = hand_required[:3] + names + hand_required[3:]
    for obj in ("src", "unknown"):
        gpu["properties"][obj]["propertyNames"]["enum"] = list(names)
    new_text = json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
    if "--check" in sys.argv:
        if new_text != old_text:
            sys.stdout.writelines(difflib.unified_diff(old_text.splitlines(True),
                                                       new_text.splitlines(True), PATH, "generated"))
            print("FAIL %s is not what the telemetry table gives: run `make regen`" % PATH)
            sys.exit(1)
        return
    with open(PATH, "w") as f:
        f.write(new_text)


main()
