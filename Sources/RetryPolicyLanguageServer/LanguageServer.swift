import Foundation
import RetryPolicyCore
import RetryPolicyLint
import RetryPolicyYAML

/// A Language Server Protocol 3.17 server for policy files, tests files
/// and the settings file: the loader's and lint's findings as the text is
/// typed, hover, completion, quick fixes, definitions, symbols and code
/// lenses that run the simulator.
///
/// Every file is read through a `PolicyRoot` (the workspace root): the
/// open buffers stand in for their files, and nothing outside the root is
/// read. A message the server cannot use is answered with a JSON-RPC
/// error and the server goes on.
public actor LanguageServer {
    /// Writes one message to the client (framing included).
    public typealias Output = @Sendable ([UInt8]) -> Void

    let output: Output
    /// `--root`, when given; else the workspace the client names.
    let fixedRoot: PolicyRoot?
    var root: PolicyRoot?
    var documents: [String: OpenDocument] = [:]
    var pending: [String: Task<Void, Never>] = [:]
    /// How long a document must stay unchanged before it is checked.
    let debounce: Duration
    let clock: any Clock<Duration>
    var initialized = false
    var shutDown = false

    /// How many documents may be open at once. Each holds at most one
    /// message's text; with the count bounded, so is the memory of a
    /// session however long it runs. A document opened past it is not
    /// checked, and the client is told.
    public static let maximumOpenDocuments = 1_000

    /// How long the text must rest before a check, by default: a check
    /// per pause in typing, not per keystroke.
    public static let defaultDebounce = Duration.milliseconds(150)

    public init(
        root: PolicyRoot? = nil, debounce: Duration = LanguageServer.defaultDebounce, clock: any Clock<Duration> = ContinuousClock(),
        output: @escaping Output
    ) {
        self.fixedRoot = root
        self.debounce = debounce
        self.clock = clock
        self.output = output
    }

    /// What the transport does after a message.
    public enum Next: Sendable, Equatable {
        case proceed
        /// `exit` arrived: stop with this status (0 after `shutdown`).
        case exit(Int32)
    }

    /// The number of open documents (what the server holds).
    public var openDocumentCount: Int { documents.count }

    /// Handles one message body.
    public func handle(_ body: [UInt8]) async -> Next {
        let message: JSONRPCMessage
        do {
            message = try JSONDecoder().decode(JSONRPCMessage.self, from: Data(body))
        } catch {
            // Not JSON, or not an object: the id cannot be known.
            if (try? JSONDecoder().decode(LSPValue.self, from: Data(body))) == nil {
                send(.failure(to: nil, .parseError("the message is not valid JSON")))
            } else {
                send(.failure(to: nil, .invalidRequest("the message is not a JSON-RPC request or notification")))
            }
            return .proceed
        }
        guard let method = message.method else {
            // A response to a request of ours (none needs an answer).
            return .proceed
        }
        if method == "exit" { return .exit(shutDown ? 0 : 1) }
        let id = message.id
        if shutDown {
            if id != nil { send(.failure(to: id, .invalidAfterShutdown)) }
            return .proceed
        }
        if !initialized && method != "initialize" {
            if id != nil { send(.failure(to: id, .serverNotInitialized)) }
            return .proceed
        }
        let params = message.params ?? .null
        do {
            let result = try await dispatch(method, params: params, isRequest: id != nil)
            if let id {
                if let result {
                    send(.response(to: id, result: result))
                } else {
                    send(.failure(to: id, .methodNotFound(method)))
                }
            }
        } catch let error as JSONRPCError {
            if id != nil { send(.failure(to: id, error)) }
        } catch {
            if id != nil { send(.failure(to: id, JSONRPCError(code: -32603, message: "internal error"))) }
        }
        return .proceed
    }

    /// A message the framer refused.
    public func reject(_ error: MessageFramer.FramingError) {
        send(.failure(to: nil, .invalidRequest(error.description)))
    }

    /// `nil` for an unknown method; `.null` for a request whose answer
    /// is empty.
    func dispatch(_ method: String, params: LSPValue, isRequest: Bool) async throws -> LSPValue? {
        switch method {
        case "initialize": return try initialize(params)
        case "initialized": return .null
        case "shutdown":
            shutDown = true
            for task in pending.values { task.cancel() }
            pending = [:]
            return .null
        case "textDocument/didOpen": didOpen(params); return .null
        case "textDocument/didChange": didChange(params); return .null
        case "textDocument/didSave": return .null
        case "textDocument/didClose": didClose(params); return .null
        case "textDocument/hover": return hover(params)
        case "textDocument/completion": return completion(params)
        case "textDocument/codeAction": return codeActions(params)
        case "textDocument/definition": return definition(params)
        case "textDocument/documentSymbol": return documentSymbols(params)
        case "textDocument/codeLens": return codeLenses(params)
        case "workspace/executeCommand": return try executeCommand(params)
        default:
            // Notifications the server has no use for are ignored, as the
            // protocol allows; an unknown request is an error.
            return isRequest ? nil : .null
        }
    }

    func send(_ message: JSONRPCMessage) {
        output(MessageFramer.frame(message.encoded()))
    }

    func initialize(_ params: LSPValue) throws -> LSPValue {
        if initialized { throw JSONRPCError.invalidRequest("initialize was already received") }
        if let fixedRoot {
            root = fixedRoot
        } else {
            let folder = params["workspaceFolders"]?.array?.first?["uri"]?.string ?? params["rootUri"]?.string
            let directory = folder.flatMap(Self.path(ofURI:)) ?? params["rootPath"]?.string
            root = (try? PolicyRoot.enclosing(directory)) ?? (try? PolicyRoot.enclosing())
        }
        initialized = true
        return [
            "capabilities": [
                "positionEncoding": "utf-16",
                "textDocumentSync": ["openClose": true, "change": 2, "save": false],
                "hoverProvider": true,
                "completionProvider": ["triggerCharacters": [":", " ", "-"]],
                "codeActionProvider": ["codeActionKinds": ["quickfix"]],
                "definitionProvider": true,
                "documentSymbolProvider": true,
                "codeLensProvider": ["resolveProvider": false],
                "executeCommandProvider": ["commands": .array(ServerCommand.allCases.map { .string($0.rawValue) })],
            ],
            "serverInfo": ["name": "retry-policy", "version": .string(RetryPolicyVersion.current)],
        ]
    }

    // MARK: Documents

    func didOpen(_ params: LSPValue) {
        guard let item = params["textDocument"], let uri = item["uri"]?.string, let text = item["text"]?.string else { return }
        guard documents[uri] != nil || documents.count < Self.maximumOpenDocuments else {
            send(.notification("window/showMessage", [
                "type": 1,
                "message": .string("retry-policy lsp holds at most \(Self.maximumOpenDocuments) open documents; close some to check this one"),
            ]))
            return
        }
        let path = canonicalPath(uri: uri)
        let kind = path.map { DocumentKind.of(text: text, path: $0) } ?? .other
        documents[uri] = OpenDocument(uri: uri, path: path, version: item["version"]?.int ?? 0, text: DocumentText(text), kind: kind)
        checkNow(uri)
    }

    func didChange(_ params: LSPValue) {
        guard let uri = params["textDocument"]?["uri"]?.string, var document = documents[uri] else { return }
        for change in params["contentChanges"]?.array ?? [] {
            guard let text = change["text"]?.string else { continue }
            let range = LSPRange(change["range"])
            // A change whose range cannot be read is not taken for the whole text.
            if change["range"] != nil && change["range"] != .null && range == nil { continue }
            document.text.apply(text, in: range)
        }
        document.version = params["textDocument"]?["version"]?.int ?? document.version + 1
        document.testFailures = []
        // A file that was a policy stays one while it is edited into shape.
        if let path = document.path {
            let kind = DocumentKind.of(text: document.text.text, path: path)
            if !(document.kind == .policy && kind == .other) { document.kind = kind }
        }
        documents[uri] = document
        schedule(uri)
    }

    func didClose(_ params: LSPValue) {
        guard let uri = params["textDocument"]?["uri"]?.string else { return }
        pending.removeValue(forKey: uri)?.cancel()
        let closed = documents.removeValue(forKey: uri)
        send(.notification("textDocument/publishDiagnostics", ["uri": .string(uri), "diagnostics": []]))
        if let path = closed?.path { recheckDependents(of: path, except: uri) }
    }

    /// Checks `uri` once it has not changed for `debounce` (at once when
    /// it is zero).
    func schedule(_ uri: String) {
        pending.removeValue(forKey: uri)?.cancel()
        if debounce <= .zero {
            checkNow(uri)
            return
        }
        let clock = self.clock
        let delay = debounce
        pending[uri] = Task { [weak self] in
            do { try await clock.sleep(for: delay) } catch { return }
            await self?.checkNow(uri)
        }
    }

    /// Checks `uri` and every open document that read it.
    func checkNow(_ uri: String) {
        pending.removeValue(forKey: uri)
        guard let document = documents[uri] else { return }
        check(uri)
        if let path = document.path { recheckDependents(of: path, except: uri) }
    }

    func recheckDependents(of path: String, except uri: String) {
        for (other, document) in documents where other != uri && document.result.reads.contains(path) {
            check(other)
        }
    }

    /// The open buffers by canonical path.
    var buffers: [String: [UInt8]] {
        var buffers: [String: [UInt8]] = [:]
        for document in documents.values {
            if let path = document.path { buffers[path] = Array(document.text.text.utf8) }
        }
        return buffers
    }

    func check(_ uri: String) {
        guard var document = documents[uri] else { return }
        guard let root, let path = document.path else {
            let outside = LintFinding(
                id: LoaderRule.outsideRoot.id, severity: .note, location: SourceLocation(file: "", line: 1, column: 1),
                message: "this file is outside the workspace root \(root?.path ?? "(none)"): the server reads only inside it")
            publish(document, findings: document.path == nil ? [outside] : [])
            return
        }
        document.result = DocumentChecker(root: root, buffers: buffers).check(path: path, kind: document.kind)
        documents[uri] = document
        publish(document, findings: document.result.findings + document.testFailures)
    }

    func publish(_ document: OpenDocument, findings: [LintFinding]) {
        let path = document.path ?? ""
        let diagnostics = findings.map { $0.lspDiagnostic(in: document.text, path: path, uri: Self.uri(ofPath:)) }
        send(.notification("textDocument/publishDiagnostics", [
            "uri": .string(document.uri), "version": .int(document.version), "diagnostics": .array(diagnostics),
        ]))
    }

    // MARK: Paths

    /// The canonical path of a `file:` URI inside the root, `nil` outside.
    func canonicalPath(uri: String) -> String? {
        guard let root, let path = Self.path(ofURI: uri), case .success(let located) = root.locate(path),
            located.kind == .regular
        else {
            // A new file not saved yet: its directory must be inside.
            guard let root, let path = Self.path(ofURI: uri), let slash = path.lastIndex(of: "/"),
                case .success(let directory) = root.locate(slash == path.startIndex ? "/" : String(path[..<slash])),
                directory.kind == .directory
            else { return nil }
            let name = path[path.index(after: slash)...]
            return (directory.canonicalPath == "/" ? "" : directory.canonicalPath) + "/" + name
        }
        return located.canonicalPath
    }

    static func path(ofURI uri: String) -> String? {
        guard let url = URL(string: uri), url.isFileURL else { return nil }
        let path = url.path
        return path.isEmpty ? nil : path
    }

    static func uri(ofPath path: String) -> String {
        URL(fileURLWithPath: path).absoluteString
    }

    func document(_ params: LSPValue) -> OpenDocument? {
        params["textDocument"]?["uri"]?.string.flatMap { documents[$0] }
    }
}
