"""`retry-policy lsp` driven by a real LSP client (pytest-lsp) over stdio.

RETRY_POLICY_BINARY names the built `retry-policy`; RETRY_POLICY_REPOSITORY
the checkout, whose policies/ are opened and compared with `retry-policy lint`.
"""

import asyncio
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

BINARY = os.environ["RETRY_POLICY_BINARY"]
REPOSITORY = pathlib.Path(os.environ["RETRY_POLICY_REPOSITORY"])

WORKSPACE = pathlib.Path(tempfile.mkdtemp(prefix="retry-policy-lsp-")).resolve()
(WORKSPACE / ".git").mkdir()
shutil.copytree(REPOSITORY / "policies", WORKSPACE / "policies")

BASE = """version: 1
name: base
attempts: 3
backoff:
  initial: 100ms
  max: 2s
  jitter: full
rules:
  - status: 503
    error: status_5xx
    action: retry
"""

# A misspelt key with a did-you-mean (RP010, fixable) and a retried 400
# after extending base.yaml.
CHILD = """version: 1
name: child
extends: base.yaml
conditions: [malformed_body]
rules:
  - status: 503
    error: status_5xx
    action: retry
  - condition: malformed_body
    error: decoding_failed
    action: stop
"""

TESTS = """policy: child.yaml
cases:
  - name: 503 is retried
    status: 503
    expect: {action: retry}
  - name: 200 is a success, wrongly expected to stop
    status: 200
    expect: {action: stop}
"""

(WORKSPACE / "base.yaml").write_text(BASE)
(WORKSPACE / "child.yaml").write_text(CHILD)
(WORKSPACE / "child.tests.yaml").write_text(TESTS)


def uri(name):
    return (WORKSPACE / name).as_uri()


def lint_json(*paths):
    """`retry-policy lint --format json` on the same files, as CI runs it."""
    run = subprocess.run(
        [BINARY, "lint", "--format", "json", "--root", str(WORKSPACE), *paths],
        cwd=WORKSPACE, capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)["findings"]


def summary(diagnostic):
    """What a diagnostic says, in the terms of a lint finding."""
    severity = {1: "error", 2: "warning", 3: "note"}[diagnostic.severity]
    return (diagnostic.range.start.line + 1, diagnostic.code, severity, diagnostic.message.split("\n")[0])


def finding_summary(finding):
    return (finding["line"], finding["id"], finding["severity"], finding["message"])


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[BINARY, "lsp", "--root", str(WORKSPACE)]))
async def client(lsp_client: LanguageClient):
    result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=WORKSPACE.as_uri()))
    assert result.capabilities.hover_provider
    yield
    await lsp_client.shutdown_session()


async def published(client, name):
    """Waits for diagnostics of `name`: on each publishDiagnostics
    notification, and at least once a second in case a wake-up was lost
    between two notifications (the client keeps one waiter per method).
    Fails after 120 s, naming the file and what was published instead."""
    deadline = asyncio.get_running_loop().time() + 120
    while uri(name) not in client.diagnostics:
        remaining = deadline - asyncio.get_running_loop().time()
        assert remaining > 0, f"no diagnostics for {name} in 120 s; published for: {sorted(client.diagnostics)}"
        try:
            await asyncio.wait_for(
                client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), min(remaining, 1.0))
        except asyncio.TimeoutError:
            pass
    return list(client.diagnostics[uri(name)])


async def diagnostics_of(client, name):
    """The next diagnostics published for `name` (others may come first:
    the files that depend on it are checked again)."""
    client.diagnostics.pop(uri(name), None)
    return await published(client, name)


async def open_document(client, name, text=None):
    text = (WORKSPACE / name).read_text() if text is None else text
    client.diagnostics.pop(uri(name), None)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri(name), language_id="yaml", version=1, text=text)))
    return await published(client, name)


async def change_document(client, name, version, text):
    client.diagnostics.pop(uri(name), None)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri(name), version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    return await published(client, name)


async def test_every_shipped_file_opens_with_the_findings_of_lint(client: LanguageClient):
    policies = sorted((WORKSPACE / "policies").glob("*.yaml"))
    assert len(policies) >= 10
    expected = {}
    for finding in lint_json("policies"):
        expected.setdefault(pathlib.Path(finding["file"]).name, []).append(finding_summary(finding))
    for path in policies:
        diagnostics = await open_document(client, "policies/" + path.name)
        if path.name.endswith(".tests.yaml"):
            # lint skips tests files; `retry-policy test` passes on them, and so does the server.
            assert list(diagnostics) == [], path.name
        else:
            assert sorted(map(summary, diagnostics)) == sorted(expected.get(path.name, [])), path.name


async def test_diagnostics_as_typed_match_lint_and_follow_the_extended_file(client: LanguageClient):
    diagnostics = await open_document(client, "child.yaml")
    assert sorted(map(summary, diagnostics)) == sorted(map(finding_summary, lint_json("child.yaml")))

    # A misspelt key: the loader's error, as typed, before any save.
    typo = CHILD.replace("extends:", "extend:")
    diagnostics = await change_document(client, "child.yaml", 2, typo)
    (WORKSPACE / "typo.yaml").write_text(typo)
    assert [summary(d) for d in diagnostics] == [finding_summary(f) for f in lint_json("typo.yaml")]
    assert any(d.code == "RP010" for d in diagnostics)
    (WORKSPACE / "typo.yaml").unlink()

    # The quick fix is the edit of `lint --fix`; applied, the file checks clean of it.
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri("child.yaml")),
        range=diagnostics[0].range, context=types.CodeActionContext(diagnostics=list(diagnostics))))
    fixes = [a for a in actions if a.edit and "extends" in a.title]
    assert fixes, [a.title for a in actions]
    edit = fixes[0].edit.changes[uri("child.yaml")][0]
    lines = typo.split("\n")
    line = lines[edit.range.start.line]
    lines[edit.range.start.line] = line[:edit.range.start.character] + edit.new_text + line[edit.range.end.character:]
    fixed = "\n".join(lines)
    assert fixed == CHILD
    diagnostics = await change_document(client, "child.yaml", 3, fixed)
    assert not any(d.code == "RP010" for d in diagnostics)

    # Editing the extended file re-checks the file that extends it.
    client.diagnostics.pop(uri("child.yaml"), None)
    await open_document(client, "base.yaml")
    # Opening it checks the child again, against the open text.
    if uri("child.yaml") not in client.diagnostics:
        await diagnostics_of(client, "child.yaml")
    client.diagnostics.pop(uri("child.yaml"), None)
    await change_document(client, "base.yaml", 2, BASE.replace("attempts: 3", "attempts: 0"))
    child = await diagnostics_of(client, "child.yaml") if uri("child.yaml") not in client.diagnostics \
        else list(client.diagnostics[uri("child.yaml")])
    # The unsaved base is what the child is checked against: the disk still says 3.
    assert "attempts: 3" in (WORKSPACE / "base.yaml").read_text()
    assert any(d.code in ("RP019", "RP021", "RP025") for d in child), child


async def test_disable_comment_action_silences_the_rule(client: LanguageClient):
    text = BASE.replace("  jitter: full\n", "")
    diagnostics = await open_document(client, "nojitter.yaml", text)
    warned = [d for d in diagnostics if d.code and d.code.startswith("RP1")]
    assert warned, diagnostics
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri("nojitter.yaml")),
        range=warned[0].range, context=types.CodeActionContext(diagnostics=warned)))
    disable = [a for a in actions if a.title.startswith("Disable " + warned[0].code)]
    assert disable
    edit = disable[0].edit.changes[uri("nojitter.yaml")][0]
    lines = text.split("\n")
    lines.insert(edit.range.start.line, edit.new_text.rstrip("\n"))
    diagnostics = await change_document(client, "nojitter.yaml", 2, "\n".join(lines))
    assert not any(d.code == warned[0].code for d in diagnostics)


async def test_hover_completion_definition_symbols(client: LanguageClient):
    await open_document(client, "child.yaml")
    await open_document(client, "base.yaml")

    def position(name, text, needle, offset=0):
        for number, line in enumerate(text.split("\n")):
            if needle in line:
                return types.Position(line=number, character=line.index(needle) + offset)
        raise AssertionError(needle)

    def hover(name, text, needle, offset=0):
        return client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri(name)), position=position(name, text, needle, offset)))

    shown = await hover("base.yaml", BASE, "attempts")
    assert "Every try including the first" in shown.contents.value
    shown = await hover("base.yaml", BASE, "jitter", 1)
    assert "jitter" in shown.contents.value.lower()
    shown = await hover("base.yaml", BASE, "100ms", 1)
    assert "100 ms" in shown.contents.value
    shown = await hover("base.yaml", BASE, "status: 503", 2)
    assert "503" in shown.contents.value and "decision table" in shown.contents.value
    shown = await hover("base.yaml", BASE, "status_5xx", 2)
    assert "SDKError.status_5xx" in shown.contents.value and "MediationError.STATUS_5XX" in shown.contents.value

    completion = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri("base.yaml")), position=types.Position(line=4, character=2)))
    labels = [item.label for item in completion.items]
    assert "shape" in labels and "multiplier" in labels

    shape_text = BASE.replace("  jitter: full", "  jitter: ")
    await change_document(client, "base.yaml", 5, shape_text)
    completion = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri("base.yaml")), position=position("base.yaml", shape_text, "jitter: ", 8)))
    assert {"full", "equal", "none"} <= {item.label for item in completion.items}

    completion = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri("child.yaml")), position=position("child.yaml", CHILD, "error: decoding_failed", 7)))
    assert "decoding_failed" in {item.label for item in completion.items}

    # File names after `extends:`.
    completion = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri("child.yaml")), position=position("child.yaml", CHILD, "base.yaml", 4)))
    assert "base.yaml" in {item.label for item in completion.items}

    target = await client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri("child.yaml")), position=position("child.yaml", CHILD, "base.yaml", 1)))
    assert target.uri == uri("base.yaml")

    target = await client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=uri("child.yaml")), position=position("child.yaml", CHILD, "condition: malformed", 12)))
    assert target.uri == uri("child.yaml") and target.range.start.line == 3

    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=uri("child.yaml"))))
    assert [s.name for s in symbols] == ["rule: status: 503", "rule: condition: malformed_body"]


async def test_code_lenses_run_the_simulator_and_the_tests(client: LanguageClient):
    await open_document(client, "child.yaml")
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri("child.yaml"))))
    assert [lens.command.title for lens in lenses] == ["simulate 503, 503, 200", "storm 1,000 clients"]
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=lenses[0].command.command, arguments=lenses[0].command.arguments))
    expected = subprocess.run([BINARY, "simulate", "child.yaml", "--responses", "503,503,200", "--root", str(WORKSPACE)],
                              cwd=WORKSPACE, capture_output=True, text=True, timeout=120).stdout
    assert result == expected
    assert client.messages and client.messages[-1].message == expected
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=lenses[1].command.command, arguments=lenses[1].command.arguments))
    assert "1000" in result.replace(",", "") or "1 000" in result

    diagnostics = await open_document(client, "child.tests.yaml")
    assert list(diagnostics) == []
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri("child.tests.yaml"))))
    assert [lens.command.title for lens in lenses] == ["run tests"]
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=lenses[0].command.command, arguments=lenses[0].command.arguments))
    assert "1 failed" in result or "failed" in result
    failures = client.diagnostics[uri("child.tests.yaml")]
    assert len(failures) == 1 and failures[0].range.start.line == 5, failures


async def test_settings_and_tests_files_are_checked_as_typed(client: LanguageClient):
    diagnostics = await open_document(client, ".retry-policy.yaml", "rules:\n  RP999: error\n")
    assert [(d.range.start.line, d.severity) for d in diagnostics] == [(1, 1)], diagnostics
    diagnostics = await change_document(client, ".retry-policy.yaml", 2, "rules:\n  RP121: off\n")
    assert diagnostics == []
    # The settings now turn RP121 off for the policies under them.
    diagnostics = await open_document(client, "nojitter2.yaml", BASE.replace("  jitter: full\n", "").replace("attempts: 3", "attempts: 3\nbudget: {preset: aws-standard}"))
    assert not any(d.code == "RP121" for d in diagnostics)

    diagnostics = await open_document(client, "broken.tests.yaml", "policy: child.yaml\ncases:\n  - name: x\n    stauts: 503\n    expect: {action: retry}\n")
    assert 3 in [d.range.start.line for d in diagnostics] and "stauts" in diagnostics[0].message + diagnostics[-1].message, diagnostics
    diagnostics = await change_document(client, "broken.tests.yaml", 2, "policy: missing.yaml\ncases:\n  - name: x\n    status: 503\n    expect: {action: retry}\n")
    assert len(diagnostics) == 1 and diagnostics[0].range.start.line == 0 and "policy under test" in diagnostics[0].message


def raw(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream):
    length = None
    while True:
        line = stream.readline()
        assert line, "the server closed its output"
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length))


def test_malformed_messages_are_answered_and_the_server_lives():
    server = subprocess.Popen([BINARY, "lsp", "--root", str(WORKSPACE), "--max-message-bytes", "4096"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        def send(data):
            server.stdin.write(data)
            server.stdin.flush()

        send(raw(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'))
        assert read_message(server.stdout)["id"] == 1
        send(raw(b"{not json"))
        assert read_message(server.stdout)["error"]["code"] == -32700
        send(raw(b'{"jsonrpc":"2.0","id":2,"method":"no/such/method"}'))
        answer = read_message(server.stdout)
        assert answer["id"] == 2 and answer["error"]["code"] == -32601
        send(b"Content-Length: 100000\r\n\r\n" + b"x" * 100000)
        assert "larger than the limit" in read_message(server.stdout)["error"]["message"]
        send(raw(b'{"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///nowhere.yaml"},"position":{"line":0,"character":0}}}'))
        assert read_message(server.stdout) == {"jsonrpc": "2.0", "id": 3, "result": None}
        send(raw(b'{"jsonrpc":"2.0","id":4,"method":"shutdown"}'))
        assert read_message(server.stdout) == {"jsonrpc": "2.0", "id": 4, "result": None}
        send(raw(b'{"jsonrpc":"2.0","method":"exit"}'))
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()
