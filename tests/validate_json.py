#!/usr/bin/python3
"""validate_json.py SCHEMA FILE... - validate JSON reports with Debian's
python3-jsonschema (Draft 2020-12 when available, else Draft 7)."""
import json
import sys

import jsonschema


def main():
    schema = json.load(open(sys.argv[1]))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    bad = 0
    for path in sys.argv[2:]:
        doc = json.load(open(path))
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.path)):
            bad += 1
            loc = "/".join(str(p) for p in err.absolute_path)
            print(f"{path}: /{loc}: {err.message}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
