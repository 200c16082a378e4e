#!/usr/bin/env python3
"""Generate documents from a JSON Schema, and mutants of them, for the
schema-agreement tests: what the schema accepts must load, and what breaks
the schema (a required key dropped, an unknown key, a wrong type, a status
out of range, a malformed duration) must be refused by the loader too.

usage: generate.py --schema policy|tests|settings [--seed N] [--count N] [--mutants N]

Prints one JSON object per line:

  {"index": 0, "kind": "generated" | "mutant", "mutation": null | "drop-required" | ...,
   "where": "rules/0/status", "yaml": "...", "schema_valid": true, "problems": [...],
   "loader_only": ["duration-over-100-days", ...], "expected_ids": ["RP014", ...]}

`loader_only` names the checks of schema/loader-only.json a generated
document runs into (the loader must refuse it, with their ids);
`expected_ids` are the ids a mutant may be refused with.

The generator is this file's own: it walks the schema (`$ref`, `type`,
`properties`, `required`, `additionalProperties`, `propertyNames`, `items`,
`minItems`, `minProperties`, `minimum`/`exclusiveMinimum`/`maximum`, `enum`, `const`,
`pattern`, and `allOf`/`anyOf`/`oneOf`/`if`), draws strings for `pattern`
from the regular expression itself, and keeps a value only when
python-jsonschema, the independent validator, accepts it against the
subschema it was drawn for. It is seeded (`random.Random(seed)`) and
bounded: the same seed gives the same documents, in well under a second.
(hypothesis-jsonschema handles these schemas too, but takes about 15 s to
prepare the policy schema and 0.3 s per document on a 2-core machine, too
slow for a test that runs on every `swift test`; `--engine hypothesis`
uses it when installed, for a longer search by hand.)

Documents are written as JSON, which is YAML flow style, with every string
double-quoted and every character outside printable ASCII escaped (\\uXXXX,
\\UXXXXXXXX), so that what the loader reads is exactly the JSON value:
quoted numbers stay strings, booleans are true/false, null is null.

Exits 2 when the schemas or schema/loader-only.json are wrong, 3 when
jsonschema or PyYAML is missing.
"""
import json
import os
import random
import re
import sys
from fractions import Fraction
try:  # Python 3.11 and later
    from re import _constants as sre
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover - Python 3.10 and earlier
    import sre_constants as sre
    import sre_parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate  # noqa: E402  (exits 3 without jsonschema and PyYAML)

jsonschema = validate.jsonschema

HERE = validate.HERE
STANDARD_KINDS = {"no_fill", "network_error", "status_429", "status_5xx", "timeout", "internal_error",
                  "invalid_placement", "unauthorized", "not_found", "cancelled", "decoding_failed"}
MAX_DURATION_NS = 100 * 24 * 3600 * 10**9

# ---------------------------------------------------------------------------
# Strings from regular expressions


PRINTABLE = [chr(c) for c in range(0x20, 0x7F)]


def _in_set(items, char):
    """Whether `char` is in a parsed character class (without NEGATE)."""
    code = ord(char)
    for op, av in items:
        if op is sre.LITERAL and av == code:
            return True
        if op is sre.RANGE and av[0] <= code <= av[1]:
            return True
        if op is sre.CATEGORY and re.match(_CATEGORY_PATTERNS[av], char):
            return True
    return False


_CATEGORY_PATTERNS = {
    sre.CATEGORY_DIGIT: r"\d", sre.CATEGORY_NOT_DIGIT: r"\D",
    sre.CATEGORY_SPACE: r"\s", sre.CATEGORY_NOT_SPACE: r"\S",
    sre.CATEGORY_WORD: r"\w", sre.CATEGORY_NOT_WORD: r"\W",
}


def _emit(items, rng, out):
    for op, av in items:
        if op is sre.LITERAL:
            out.append(chr(av))
        elif op is sre.NOT_LITERAL:
            out.append(rng.choice([c for c in PRINTABLE if ord(c) != av]))
        elif op is sre.ANY:
            out.append(rng.choice(PRINTABLE))
        elif op is sre.IN:
            key = id(av)
            if key not in _POOLS:
                negated = bool(av) and av[0][0] is sre.NEGATE
                members = av[1:] if negated else av
                wide = [] if negated else [m for o, m in members if o is sre.RANGE and m[1] > 0x7E]
                _POOLS[key] = ([c for c in PRINTABLE + ["\t", "\n"] if _in_set(members, c) != negated], wide)
            pool, wide = _POOLS[key]
            if wide and rng.random() < 0.2:  # ranges beyond ASCII
                low, high = rng.choice(wide)
                out.append(chr(rng.randint(max(low, 0x80), high)))
            else:
                out.append(rng.choice(pool))
        elif op is sre.CATEGORY:
            out.append(rng.choice([c for c in PRINTABLE + ["\t"] if re.match(_CATEGORY_PATTERNS[av], c)]))
        elif op is sre.BRANCH:
            _emit(rng.choice(av[1]), rng, out)
        elif op is sre.SUBPATTERN:
            _emit(av[3], rng, out)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", None)):
            low, high, body = av
            if high is sre.MAXREPEAT:
                # Mostly short, sometimes long: many digits are where
                # patterns and parsers part ways.
                high = low + (rng.choice([20, 30]) if rng.random() < 0.04 else 3)
            for _ in range(rng.randint(low, high)):
                _emit(body, rng, out)
        elif op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            pass  # anchors hold by construction; lookarounds are checked after
        else:
            raise NotImplementedError(f"regular expression operator {op}")


_POOLS = {}  # character class -> (ASCII members, ranges beyond ASCII)
_PARSED = {}  # pattern -> (parse tree, compiled)


def string_matching(pattern, rng):
    if pattern not in _PARSED:
        _PARSED[pattern] = (sre_parse.parse(pattern), re.compile(pattern))
    parsed, compiled = _PARSED[pattern]
    for _ in range(200):
        out = []
        _emit(parsed, rng, out)
        text = "".join(out)
        if compiled.search(text):
            return text
    raise RuntimeError(f"no string found for pattern {pattern!r}")


# ---------------------------------------------------------------------------
# Free text: what people paste into descriptions and names, and what breaks
# YAML writers.

TEXT_PIECES = (
    list("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789") + [" ", "  ", "-", "_", ".", ":", ": ", "#", " #", "\"", "'", "\\",
    "{", "}", "[", "]", ",", "&", "*", "!", "|", ">", "%", "@", "`", "?", "\n", "\t", "\r\n",
    "é", "ü", "ß", "中文", "😀", "\u2028", "\u0085", "\u00a0", "\ufeff", "\u0001", "\u007f", "\u0000",
    "yes", "no", "on", "off", "null", "~", "true", "0x1F", "010", "1e3", ".inf", "---", "..."]
)


def free_text(rng, min_length=0):
    pieces = rng.randint(min_length, 8)
    text = "".join(rng.choice(TEXT_PIECES) for _ in range(pieces))
    # U+0000 is rare in real files; keep it rare here (a loader-only check).
    if "\u0000" in text and rng.random() < 0.8:
        text = text.replace("\u0000", "z")
    while len(text) < min_length:
        text += rng.choice("abc")
    return text


# ---------------------------------------------------------------------------
# Schema walking


class Schema:
    def __init__(self, document):
        self.document = document
        self.defs = document.get("$defs", {})
        self._validators = {}

    def resolve(self, sub):
        """`sub` with its `$ref` chain followed (siblings kept) and the names
        of the definitions on the way."""
        names = []
        while isinstance(sub, dict) and "$ref" in sub:
            name = sub["$ref"].rsplit("/", 1)[-1]
            names.append(name)
            target = self.defs[name]
            sub = {**target, **{k: v for k, v in sub.items() if k != "$ref"}}
        return sub, names

    def valid(self, sub, value):
        key = id(sub)
        if key not in self._validators:
            self._validators[key] = jsonschema.Draft202012Validator({**sub, "$defs": self.defs})
        return self._validators[key].is_valid(value)

    def applicable(self, sub, value):
        """Every subschema that applies to `value` under `sub`: itself, its
        `$ref`s, `allOf`, the `anyOf`/`oneOf` branches that hold, `then` or
        `else`. With the definition names met."""
        sub, names = self.resolve(sub)
        result = [(sub, names)]
        for member in sub.get("allOf", []):
            result += self.applicable(member, value)
        for key in ("anyOf", "oneOf"):
            for member in sub.get(key, []):
                if self.valid(member, value):
                    result += self.applicable(member, value)
        if "if" in sub:
            branch = sub.get("then") if self.valid(sub["if"], value) else sub.get("else")
            if branch is not None:
                result += self.applicable(branch, value)
        return result

    def allowed_types(self, sub):
        """JSON types a value at `sub` may have; None when any."""
        sub, _ = self.resolve(sub)
        if "type" in sub:
            types = sub["type"] if isinstance(sub["type"], list) else [sub["type"]]
            return set(types) | ({"integer"} if "number" in types else set())
        if "const" in sub:
            return {json_type(sub["const"])}
        if "enum" in sub:
            return {json_type(value) for value in sub["enum"]}
        for key in ("anyOf", "oneOf"):
            if key in sub:
                union = set()
                for member in sub[key]:
                    types = self.allowed_types(member)
                    if types is None:
                        return None
                    union |= types
                return union
        if "allOf" in sub:
            constrained = [t for t in (self.allowed_types(m) for m in sub["allOf"]) if t is not None]
            if constrained:
                return set.intersection(*constrained)
        return None


def json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class Generator:
    def __init__(self, schema, rng):
        self.schema = schema
        self.rng = rng

    def value(self, sub, depth=0):
        # A budget's three styles exclude each other's keys, so a drawn
        # budget is valid about one time in fifteen: enough tries that a
        # run of thousands of documents never runs out.
        for _ in range(400):
            candidate = self._draw(sub, depth)
            if self.schema.valid(sub, candidate):
                return candidate
        raise RuntimeError(f"could not draw a valid value for {json.dumps(sub)[:200]}")

    def _draw(self, sub, depth):
        rng = self.rng
        sub, _ = self.schema.resolve(sub)
        if "const" in sub:
            return sub["const"]
        if "enum" in sub:
            return rng.choice(sub["enum"])
        if "type" not in sub:
            if "allOf" in sub:
                return self._draw(sub["allOf"][0], depth)
            for key in ("anyOf", "oneOf"):
                if key in sub:
                    # The first branch is the common case (a standard
                    # error kind, a status code): drawn more often.
                    branches = sub[key]
                    branch = branches[0] if rng.random() < 0.6 else rng.choice(branches)
                    return self.value(branch, depth)
            if "if" in sub and "then" in sub and "else" in sub:
                return self.value(sub["then"] if rng.random() < 0.25 else sub["else"], depth)
            return self.string(sub)
        types = sub["type"] if isinstance(sub["type"], list) else [sub["type"]]
        kind = rng.choice(types)
        if kind == "object":
            if "properties" not in sub and "additionalProperties" not in sub and "if" in sub:
                return self.value(sub["then"] if rng.random() < 0.25 else sub["else"], depth)
            return self.object(sub, depth)
        if kind == "array":
            low = sub.get("minItems", 0)
            count = rng.randint(low, low + (3 if depth < 3 else 1))
            return [self.value(sub.get("items", {}), depth + 1) for _ in range(count)]
        if kind == "string":
            return self.string(sub)
        if kind == "integer":
            return self.integer(sub)
        if kind == "number":
            value = self.integer(sub)
            if rng.random() < 0.6:
                low, high = sub.get("minimum", sub.get("exclusiveMinimum", -1000)), sub.get("maximum", 1000)
                value = rng.choice([rng.uniform(low, high), round(rng.uniform(low, high), 1), float(value)])
            return value
        if kind == "boolean":
            return rng.random() < 0.5
        return None

    def integer(self, sub):
        rng = self.rng
        if "exclusiveMinimum" in sub and "minimum" not in sub:
            sub = dict(sub, minimum=int(sub["exclusiveMinimum"]) + 1)
        low = sub.get("minimum", -(2**31) if "maximum" not in sub else sub["maximum"] - 1000)
        high = sub.get("maximum", low + 1000)
        if rng.random() < 0.3:
            return rng.choice([low, high, min(low + 1, high), max(high - 1, low)])
        return rng.randint(low, high)

    def string(self, sub):
        if "enum" in sub:
            return self.rng.choice(sub["enum"])
        if "pattern" in sub:
            text = string_matching(sub["pattern"], self.rng)
        else:
            text = free_text(self.rng, sub.get("minLength", 0))
        return text

    def key(self, names):
        names, _ = self.schema.resolve(names)
        if "enum" in names:
            return self.rng.choice(names["enum"])
        return self.string(names)

    def object(self, sub, depth):
        rng = self.rng
        properties = sub.get("properties", {})
        forced = set(sub.get("required", []))
        excluded = set()
        # anyOf / oneOf of `required` lists: honour one branch.
        for key in ("anyOf", "oneOf"):
            branches = [b for b in sub.get(key, []) if "required" in b]
            if branches:
                chosen = rng.choice(branches)
                forced |= set(chosen["required"])
                if key == "oneOf":
                    for other in branches:
                        if other is not chosen:
                            excluded |= set(other["required"]) - set(chosen["required"])
        chance = 0.6 if depth == 0 else 0.4
        result = {}
        for name, property_schema in properties.items():
            if name in excluded:
                continue
            if name in forced or rng.random() < chance:
                result[name] = self.value(property_schema, depth + 1)
        extra = sub.get("additionalProperties")
        if isinstance(extra, dict):
            for _ in range(rng.randint(0, 3 if depth < 3 else 1)):
                name = self.key(sub.get("propertyNames", {}))
                if name not in properties:
                    result[name] = self.value(extra, depth + 1)
        optional = [name for name in properties if name not in result and name not in excluded]
        while len(result) < sub.get("minProperties", 0) and optional:
            name = optional.pop(rng.randrange(len(optional)))
            result[name] = self.value(properties[name], depth + 1)
        # if/then: when the condition holds, the consequence's keys too.
        if "if" in sub and "then" in sub and self.schema.valid(sub["if"], result):
            for name in sub["then"].get("required", []):
                if name not in result and name in properties:
                    result[name] = self.value(properties[name], depth + 1)
        return result


# ---------------------------------------------------------------------------
# Positions: every value of a document with the schema that governs it


class Position:
    def __init__(self, path, value, schema, applicable, parent, key):
        self.path = path
        self.value = value
        self.schema = schema  # the position's own subschema
        self.applicable = applicable  # [(resolved subschema, definition names)]
        self.parent = parent
        self.key = key

    @property
    def names(self):
        return {name for _, names in self.applicable for name in names}

    def where(self):
        return "/".join(str(part) for part in self.path) or "(top)"


def positions(schema, document):
    found = []

    def walk(value, sub, path, parent, key):
        applicable = schema.applicable(sub, value)
        found.append(Position(path, value, sub, applicable, parent, key))
        if isinstance(value, dict):
            for name, item in value.items():
                child = None
                for resolved, _ in applicable:
                    if name in resolved.get("properties", {}):
                        child = resolved["properties"][name]
                        break
                if child is None:
                    for resolved, _ in applicable:
                        if isinstance(resolved.get("additionalProperties"), dict):
                            child = resolved["additionalProperties"]
                            break
                walk(item, child if child is not None else {}, path + [name], value, name)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                child = {}
                for resolved, _ in applicable:
                    if "items" in resolved:
                        child = resolved["items"]
                        break
                walk(item, child, path + [index], value, index)

    walk(document, schema.document, [], None, None)
    return found


# ---------------------------------------------------------------------------
# Loader-only checks: what the schema cannot state, predicted here so the
# test can demand a refusal with the right id.


DURATION = re.compile(r"(?=[0-9])(?:[0-9.]+h)?(?:[0-9.]+m)?(?:[0-9.]+s)?(?:[0-9.]+ms)?")


def duration_nanoseconds(text):
    match = re.fullmatch(r"(?:([0-9.]+)h)?(?:([0-9.]+)m)?(?:([0-9.]+)s)?(?:([0-9.]+)ms)?", text)
    total = Fraction(0)
    for number, unit in zip(match.groups(), (3600 * 10**9, 60 * 10**9, 10**9, 10**6)):
        if number is not None:
            total += Fraction(number) * unit
    return total


def all_strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from all_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from all_strings(item)


def loader_only(kind, document, found):
    """The generated checks of schema/loader-only.json that `document` runs into."""
    hits = set()
    if any("\u0000" in text for text in all_strings(document)):
        hits.add("nul-in-text")
    declared = set(document.get("errors") or {}) if kind == "policy" and isinstance(document, dict) else set()
    conditions = document.get("conditions") if kind == "policy" and isinstance(document, dict) else None
    conditions = set(conditions) if isinstance(conditions, list) and all(isinstance(c, str) for c in conditions) else set()
    backoff = document.get("backoff") if kind == "policy" and isinstance(document, dict) else None
    if isinstance(backoff, dict) and isinstance(backoff.get("min"), str) and DURATION.fullmatch(backoff["min"]):
        cap = backoff.get("max", backoff.get("initial", "0s"))
        if isinstance(cap, str) and DURATION.fullmatch(cap) and duration_nanoseconds(backoff["min"]) > duration_nanoseconds(cap):
            hits.add("backoff-min-above-max")
    breaker = document.get("breaker") if kind == "policy" and isinstance(document, dict) else None
    if isinstance(breaker, dict):
        rules = document.get("rules")
        count = len(rules) if isinstance(rules, list) else 0
        failures = breaker.get("failures")
        numbers = failures.get("rules") if isinstance(failures, dict) else None
        if isinstance(numbers, list) and any(
                isinstance(number, int) and not isinstance(number, bool) and number > count for number in numbers):
            hits.add("breaker-rule-number")
        longest = breaker.get("max_break")
        shortest = breaker.get("break", "30s")
        if isinstance(longest, str) and isinstance(shortest, str) and DURATION.fullmatch(longest) \
                and DURATION.fullmatch(shortest) and duration_nanoseconds(longest) < duration_nanoseconds(shortest):
            hits.add("breaker-max-break-below-break")
    for position in found:
        names = position.names
        if "duration" in names and isinstance(position.value, str):
            if duration_nanoseconds(position.value) > MAX_DURATION_NS:
                hits.add("duration-over-100-days")
        if kind == "policy" and "statusPattern" in names and isinstance(position.value, str) and "-" in position.value:
            low, high = position.value.split("-")
            if int(low) > int(high):
                hits.add("status-range-reversed")
        if kind == "policy" and list(position.path) == ["budget", "token_ratio"] and isinstance(position.value, (int, float)):
            thousandths = Fraction(repr(position.value)) * 1000
            if thousandths.denominator != 1 or thousandths <= 0:
                hits.add("token-ratio-three-decimals")
        if kind == "policy" and list(position.path) == ["budget", "retry_percent"] and isinstance(position.value, (int, float)):
            if (Fraction(repr(position.value)) * 10).denominator != 1:
                hits.add("ratio-percent-one-decimal")
        if kind == "policy" and list(position.path) == ["budget", "window"] and isinstance(position.value, str) \
                and DURATION.fullmatch(position.value):
            if not 1_000_000_000 <= duration_nanoseconds(position.value) <= 60_000_000_000:
                hits.add("ratio-window-range")
        if kind == "policy" and "condition" in names and isinstance(position.value, str) \
                and list(position.path[:1]) == ["rules"] and position.value not in conditions:
            hits.add("undeclared-condition")
        if kind == "policy" and "errorKind" in names and isinstance(position.value, str):
            if position.value not in STANDARD_KINDS and position.value not in declared:
                hits.add("undeclared-error-kind")
    return hits


# ---------------------------------------------------------------------------
# Mutants

MUTATIONS = ["drop-required", "unknown-key", "wrong-type", "status-out-of-range", "malformed-duration"]

# The ids the loader may refuse each mutation with.
MUTATION_IDS = {
    "policy": {
        "drop-required": ["RP012"],
        "unknown-key": ["RP010"],
        "wrong-type": ["RP011", "RP013", "RP014", "RP015", "RP016", "RP017", "RP018"],
        "status-out-of-range": ["RP015"],
        "malformed-duration": ["RP014", "RP019"],
    },
    "tests": {
        "drop-required": ["RP012"],
        "unknown-key": ["RP010"],
        "wrong-type": ["RP011"],
        "status-out-of-range": ["RP013", "RP019"],
        "malformed-duration": ["RP014"],
    },
    "settings": {
        "unknown-key": ["RP010", "RP013"],
        "wrong-type": ["RP011"],
    },
}

# Keys whose absence changes what the file is rather than breaking it: a
# policy without `stack` is a policy file, not a broken stack file.
DISCRIMINATORS = {"stack"}

MALFORMED_DURATIONS = ["10", 10, 1.5, "1.5", "-1s", "1 s", "10sec", "1s1m", "1h1h", "1.s", ".5s", "1e3s", "", "10S",
                       "1,5s", "1.0000000001s", "0.0000001ms", "1m30", "s", "ms"]
# Well-formed, but zero where a duration must be above zero.
ZERO_DURATIONS = ["0s", "00m", "0.0s", "0ms", "0h0m0s"]
OUT_OF_RANGE_STATUSES = [0, 1, 99, 600, 999, 1000, 99999, -429]


def near_miss(names, rng):
    """A misspelling of one of `names` that is none of them."""
    for _ in range(20):
        name = rng.choice(sorted(names)) if names else "key"
        if len(name) > 2:
            index = rng.randrange(len(name))
            candidate = rng.choice([name[:index] + name[index + 1:], name + "s", name.replace("_", "-"), name.upper()])
        else:
            candidate = name + "x"
        if candidate not in names:
            return candidate
    return "unknown_key"


def wrong_value(kind, schema, position, rng):
    """A value of a type the position does not allow. Test files read any
    scalar where text is expected (its text), so there a string becomes a
    mapping or a list, never a boolean."""
    value = position.value
    allowed = schema.allowed_types(position.schema) or set()
    if isinstance(value, bool):
        candidates = ["true" if value else "false", {}]
    elif isinstance(value, (int, float)):
        candidates = [str(value), {}]
    elif isinstance(value, str):
        candidates = [True, {}, []] if kind == "policy" and len(value) % 2 == 0 else [{}, []]
    elif value is None:
        candidates = ["~", []]
    elif isinstance(value, list):
        candidates = [{}, "[]"]
    else:
        candidates = [[], "{}"]
    for candidate in candidates:
        if json_type(candidate) not in allowed:
            return candidate
    return None


def mutate(kind, schema, document, mutation, rng):
    """(mutant, where) or None when `document` offers no place for it."""
    import copy
    document = copy.deepcopy(document)
    found = positions(schema, document)
    places = []
    if mutation == "drop-required":
        for position in found:
            if isinstance(position.value, dict):
                # The object's own `required`, and its `then`/`else` when
                # that applies; not the branches of anyOf/oneOf, whose keys
                # are alternatives.
                own, _ = position.applicable[0]
                required = set(own.get("required", []))
                if "if" in own:
                    branch = own.get("then") if schema.valid(own["if"], position.value) else own.get("else")
                    if branch is not None:
                        required |= set(schema.resolve(branch)[0].get("required", []))
                for name in sorted(required - DISCRIMINATORS):
                    if name in position.value:
                        places.append((position, name))
        if not places:
            return None
        position, name = rng.choice(places)
        del position.value[name]
        return document, position.where() + "/" + name
    if mutation == "unknown-key":
        for position in found:
            if not isinstance(position.value, dict):
                continue
            closed = [r for r, _ in position.applicable if r.get("additionalProperties") is False]
            enumerated = [r for r, _ in position.applicable
                          if "enum" in schema.resolve(r.get("propertyNames", {}))[0]]
            if closed or enumerated:
                known = set()
                for resolved, _ in position.applicable:
                    known |= set(resolved.get("properties", {}))
                    known |= set(schema.resolve(resolved.get("propertyNames", {}))[0].get("enum", []))
                places.append((position, known))
        if not places:
            return None
        position, known = rng.choice(places)
        name = near_miss(known, rng)
        first = next(iter(position.value.values()), None)
        position.value[name] = first if first is not None else "x"
        return document, position.where() + "/" + name
    if mutation == "wrong-type":
        for position in found:
            if position.parent is not None and wrong_value(kind, schema, position, rng) is not None:
                places.append(position)
        if not places:
            return None
        position = rng.choice(places)
        position.parent[position.key] = wrong_value(kind, schema, position, rng)
        return document, position.where()
    if mutation == "status-out-of-range":
        places = [p for p in found if p.names & {"statusPattern", "status"} and isinstance(p.value, int)
                  and p.parent is not None]
        if not places:
            return None
        position = rng.choice(places)
        position.parent[position.key] = rng.choice(OUT_OF_RANGE_STATUSES)
        return document, position.where()
    if mutation == "malformed-duration":
        places = [p for p in found if "duration" in p.names and p.parent is not None]
        if not places:
            return None
        position = rng.choice(places)
        choices = MALFORMED_DURATIONS + (ZERO_DURATIONS if "positiveDuration" in position.names else [])
        position.parent[position.key] = rng.choice(choices)
        return document, position.where()
    raise ValueError(mutation)


# ---------------------------------------------------------------------------
# JSON as YAML


def yaml_string(text):
    out = ['"']
    for char in text:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(f"\\U{code:08X}")
    out.append('"')
    return "".join(out)


def to_yaml(value, indent=0):
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{pad}{yaml_string(str(key))}: {to_yaml(item, indent + 1)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(pad + to_yaml(item, indent + 1) for item in value) + "\n" + "  " * indent + "]"
    if isinstance(value, str):
        return yaml_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float):
        return repr(value)  # 1.5, 1e-05: core-schema floats
    return str(value)


# ---------------------------------------------------------------------------


def check_loader_only_list(kind, listing):
    """The generated checks of the list are exactly those predicted here."""
    predicted = {
        "policy": {"nul-in-text", "duration-over-100-days", "status-range-reversed", "undeclared-error-kind",
                   "undeclared-condition", "backoff-min-above-max",
                   "breaker-rule-number", "breaker-max-break-below-break",
                   "token-ratio-three-decimals", "ratio-percent-one-decimal", "ratio-window-range"},
        "tests": {"nul-in-text", "duration-over-100-days"},
        "settings": set(),
    }[kind]
    listed = {entry["check"] for entry in listing["checks"] if kind in entry["files"] and entry["generated"]}
    if listed != predicted:
        return [f"schema/loader-only.json lists {sorted(listed)} as generated for {kind} files; "
                f"generate.py predicts {sorted(predicted)}"]
    return []


def hypothesis_documents(schema_document, seed, count):
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis_jsonschema import from_schema
    out = []

    @hypothesis_seed(seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(from_schema(schema_document))
    def collect(document):
        out.append(document)

    collect()
    return out


def main(arguments):
    options = {"--schema": "policy", "--seed": "1", "--count": "200", "--mutants": "40", "--engine": "own"}
    iterator = iter(arguments)
    for argument in iterator:
        if argument not in options:
            sys.stderr.write(__doc__)
            return 2
        options[argument] = next(iterator, "")
    kind = options["--schema"]
    if kind not in validate.SCHEMAS:
        sys.stderr.write(f"--schema takes one of {', '.join(validate.SCHEMAS)}\n")
        return 2
    seed, count, mutants = int(options["--seed"]), int(options["--count"]), int(options["--mutants"])
    schemas, problems = validate.load_schemas()
    with open(os.path.join(HERE, "loader-only.json"), encoding="utf-8") as handle:
        listing = json.load(handle)
    problems += check_loader_only_list(kind, listing)
    if problems:
        sys.stderr.write("the schemas are wrong:\n" + "\n".join(problems) + "\n")
        return 2
    ids = {entry["check"]: entry["diagnostic"] for entry in listing["checks"]}
    schema = Schema(schemas[kind])
    validator = jsonschema.Draft202012Validator(schemas[kind])
    rng = random.Random(seed)

    def emit(index, record_kind, mutation, where, document, extra_ids):
        problems = [f"{'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
                    for e in validator.iter_errors(document)]
        hits = sorted(loader_only(kind, document, positions(schema, document))) if not problems else []
        print(json.dumps({
            "index": index, "kind": record_kind, "mutation": mutation, "where": where,
            "yaml": to_yaml(document) + "\n", "schema_valid": not problems, "problems": problems,
            "loader_only": hits, "expected_ids": sorted({ids[h] for h in hits} | set(extra_ids)),
        }, ensure_ascii=False))

    if options["--engine"] == "hypothesis":
        documents = hypothesis_documents(schemas[kind], seed, count)
    else:
        generator = Generator(schema, rng)
        documents = [generator.value(schema.document) for _ in range(count)]
    for document in documents:
        # `extends` names a file; the test provides one, which lends nothing.
        if kind == "policy" and isinstance(document, dict) and "extends" in document:
            document["extends"] = "base.yaml"
        # A floor drawn at random is mostly above the cap; nine in ten
        # documents take the cap as their floor, which loads.
        backoff = document.get("backoff") if kind == "policy" and isinstance(document, dict) else None
        if isinstance(backoff, dict) and "min" in backoff and rng.random() < 0.9:
            backoff["min"] = backoff.get("max", backoff.get("initial", "0s"))
        # Nine documents in ten declare the conditions their rules name,
        # so that most load; the rest exercise the refusal.
        if kind == "policy" and isinstance(document, dict) and isinstance(document.get("rules"), list):
            named = []
            for rule in document["rules"]:
                condition = rule.get("condition") if isinstance(rule, dict) else None
                named += [c for c in (condition if isinstance(condition, list) else [condition]) if isinstance(c, str)]
            if named and rng.random() < 0.9:
                declared = document.get("conditions") if isinstance(document.get("conditions"), list) else []
                document["conditions"] = list(dict.fromkeys(declared + named))
    index = 0
    for document in documents:
        emit(index, "generated", None, None, document, [])
        index += 1
    # Mutants of documents with nothing loader-only about them.
    clean = [d for d in documents if not loader_only(kind, d, positions(schema, d))]
    for mutation in MUTATION_IDS[kind]:
        made = 0
        for _ in range(mutants * 20):
            if made == mutants or not clean:
                break
            result = mutate(kind, schema, rng.choice(clean), mutation, rng)
            if result is None:
                continue
            mutant, where = result
            emit(index, "mutant", mutation, where, mutant, MUTATION_IDS[kind][mutation])
            index += 1
            made += 1
        if made < mutants:
            sys.stderr.write(f"only {made} of {mutants} {mutation} mutants: the documents offer no more places\n")
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
