#!/usr/bin/env python3
"""Validate the files users write against their JSON Schemas, independently
of the Swift loader:

  NAME.tests.yaml      retry-policy-tests.schema.json    (policy tests)
  .retry-policy.yaml   retry-policy-settings.schema.json (lint settings)
  any other YAML file  retry-policy.schema.json          (policies, stacks)

YAML is read with the YAML 1.2 core schema, as the Swift loader and
yaml-language-server read it (PyYAML alone speaks YAML 1.1, where `off` and
`yes` are booleans). Anchors and merge keys are left to PyYAML; the Swift
loader refuses them anyway.

usage: validate.py [--json] [--schema policy|tests|settings] FILE...
Prints one line per file (or one JSON object per line with --json); exits 0
when every file is valid, 1 when one is not, 2 when a schema itself is
wrong (not a draft 2020-12 schema, an example it rejects, or a duration
syntax that differs between schemas), 3 when jsonschema or PyYAML is
missing.
"""
import json
import math
import os
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as error:  # pragma: no cover - environment problem
    sys.stderr.write(
        f"validate.py needs the python packages jsonschema and PyYAML ({error}); "
        "install them with: python3 -m pip install jsonschema pyyaml\n")
    sys.exit(3)


class CoreSchemaLoader(yaml.SafeLoader):
    """SafeLoader with the YAML 1.2 core schema's implicit types only."""


CoreSchemaLoader.yaml_implicit_resolvers = {}
for tag, pattern, first in [
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    ("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
     list("-+0123456789.")),
]:
    CoreSchemaLoader.add_implicit_resolver(tag, re.compile(pattern), first)


def construct_int(loader, node):
    text = loader.construct_scalar(node)
    if re.fullmatch(r"0o[0-7]+", text):
        return int(text[2:], 8)
    if re.fullmatch(r"0x[0-9a-fA-F]+", text):
        return int(text[2:], 16)
    if re.fullmatch(r"[-+]?[0-9]+", text):
        return int(text)
    raise yaml.constructor.ConstructorError(None, None, f"invalid !!int {text!r}", node.start_mark)


def construct_float(loader, node):
    text = loader.construct_scalar(node)
    if re.fullmatch(r"[-+]?\.(?:inf|Inf|INF)", text):
        return -math.inf if text.startswith("-") else math.inf
    if re.fullmatch(r"\.(?:nan|NaN|NAN)", text):
        return math.nan
    if re.fullmatch(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?", text):
        return float(text)
    raise yaml.constructor.ConstructorError(None, None, f"invalid !!float {text!r}", node.start_mark)


def construct_bool(loader, node):
    text = loader.construct_scalar(node)
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    raise yaml.constructor.ConstructorError(None, None, f"invalid !!bool {text!r}", node.start_mark)


CoreSchemaLoader.add_constructor("tag:yaml.org,2002:int", construct_int)
CoreSchemaLoader.add_constructor("tag:yaml.org,2002:float", construct_float)
CoreSchemaLoader.add_constructor("tag:yaml.org,2002:bool", construct_bool)


def as_json(value):
    """Mapping keys become strings, as when YAML is converted to JSON."""
    if isinstance(value, dict):
        return {json_key(key): as_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_json(item) for item in value]
    return value


def json_key(key):
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


MAX_EXPANDED_NODES = 100_000


def expanded_size(node, memo):
    """Nodes in the document once aliases are expanded, computed on the
    shared node graph so that an alias bomb is measured, not expanded."""
    key = id(node)
    if key not in memo:
        memo[key] = 0  # a recursive alias counts as small here; PyYAML fails on it later
        if isinstance(node, yaml.MappingNode):
            total = 1 + sum(expanded_size(k, memo) + expanded_size(v, memo) for k, v in node.value)
        elif isinstance(node, yaml.SequenceNode):
            total = 1 + sum(expanded_size(item, memo) for item in node.value)
        else:
            total = 1
        memo[key] = total
    return memo[key]


def check(validator, path):
    """(valid, problems) for one file."""
    try:
        with open(path, "rb") as handle:
            text = handle.read()
        root = yaml.compose(text, Loader=CoreSchemaLoader)
        if root is not None and expanded_size(root, {}) > MAX_EXPANDED_NODES:
            return False, [f"not a policy: more than {MAX_EXPANDED_NODES} nodes once aliases are expanded"]
        document = yaml.load(text, Loader=CoreSchemaLoader)
    except Exception as error:  # YAML the schema cannot even see
        return False, [f"not YAML: {str(error).splitlines()[0] if str(error) else type(error).__name__}"]
    problems = []
    for error in sorted(validator.iter_errors(as_json(document)), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(part) for part in error.absolute_path) or "(top)"
        problems.append(f"{where}: {error.message}")
    return not problems, problems


def invalid_examples(schema):
    """Examples in the schema that their own subschema rejects: an editor
    would offer them as completions, so they must be right."""
    problems = []

    def walk(node, where):
        if isinstance(node, dict):
            if "examples" in node:
                subschema = {key: value for key, value in node.items() if key != "examples"}
                subschema["$defs"] = schema["$defs"]
                validator = jsonschema.Draft202012Validator(subschema)
                for example in node["examples"]:
                    for error in validator.iter_errors(example):
                        problems.append(f"{where or '/'}: example {example!r}: {error.message}")
            for key, value in node.items():
                walk(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{where}/{index}")

    walk(schema, "")
    return problems


HERE = os.path.dirname(os.path.abspath(__file__))

SCHEMAS = {
    "policy": "retry-policy.schema.json",
    "tests": "retry-policy-tests.schema.json",
    "settings": "retry-policy-settings.schema.json",
}


def kind_of(path):
    """Which schema a file is checked against, by its name."""
    name = os.path.basename(path)
    if name.endswith((".tests.yaml", ".tests.yml")):
        return "tests"
    if name in (".retry-policy.yaml", ".retry-policy.yml"):
        return "settings"
    return "policy"


def load_schemas():
    """Every schema, checked: (schemas by kind, problems)."""
    schemas = {}
    problems = []
    for kind, file in SCHEMAS.items():
        with open(os.path.join(HERE, file), encoding="utf-8") as handle:
            schema = json.load(handle)
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as error:
            problems.append(f"{file}: not a draft 2020-12 schema: {error.message}")
            continue
        if not schema.get("$id"):
            problems.append(f"{file}: no $id")
        problems += [f"{file}{problem}" for problem in invalid_examples(schema)]
        schemas[kind] = schema
    # One duration syntax everywhere: the test file schema carries a copy.
    if "tests" in schemas and "policy" in schemas:
        if schemas["tests"]["$defs"]["duration"] != schemas["policy"]["$defs"]["duration"]:
            problems.append("retry-policy-tests.schema.json: $defs/duration differs from retry-policy.schema.json's")
    return schemas, problems


def main(arguments):
    as_lines = "--json" not in arguments
    forced = None
    files = []
    iterator = iter(arguments)
    for argument in iterator:
        if argument == "--json":
            continue
        if argument == "--schema":
            forced = next(iterator, None)
            if forced not in SCHEMAS:
                sys.stderr.write(f"--schema takes one of {', '.join(SCHEMAS)}\n")
                return 2
            continue
        files.append(argument)
    schemas, problems = load_schemas()
    if problems:
        sys.stderr.write("the schemas are wrong:\n" + "\n".join(problems) + "\n")
        return 2
    validators = {kind: jsonschema.Draft202012Validator(schema) for kind, schema in schemas.items()}
    all_valid = True
    for path in files:
        kind = forced or kind_of(path)
        valid, problems = check(validators[kind], path)
        all_valid = all_valid and valid
        if as_lines:
            print(f"{path}: {'valid' if valid else 'invalid'} ({SCHEMAS[kind]})")
            for problem in problems:
                print(f"  {problem}")
        else:
            print(json.dumps({"file": path, "schema": kind, "valid": valid, "problems": problems}))
    return 0 if all_valid else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
