"""The protocol: pygls's `LanguageServer`, its notifications, and what each publishes.

On open, change and save a buffer is checked as it stands (`lint`), then every other open
file of the same project, whose findings are published again where they changed (a link
of a reachability chain in one file leads to the edited one). A configuration file that
changed on disk (a save, a watched-file event) drops what was built from it; one that
does not load is shown as diagnostics on the configuration file, at each error's line.
No handler lets an exception out: a check that fails is logged, never a crashed server.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, BinaryIO, TypeVar, cast

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from import_policy import __version__
from import_policy.policy.load import CONFIG_NAMES
from import_policy.diagnostics import Diagnostic
from import_policy.discovery.files import relative_to_root
from import_policy.server.convert import Units, client_column, edit_between, lines_of
from import_policy.server.documents import Buffer, Documents, path_of, uri_of
from import_policy.server.frames import OVERSIZED, BoundedReader
from import_policy.server.lint import lint, source_file
from import_policy.server.projects import Fault, Project, Projects

FIX_ALL = "source.fixAll.import-policy"
SOURCE = "import-policy"
_CONFIG_FILES = (*CONFIG_NAMES, "pyproject.toml")
_WATCHED = ("**/*.py", "**/*.pyi", "**/import-policy.yaml", "**/.import-policy.yaml", "**/pyproject.toml", "**/*.yaml", "**/.gitignore")

T = TypeVar("T")


class _Ignored:
    """What a request answered with an error stands for afterwards: a message of no known
    version, which pygls passes over."""

    jsonrpc = "answered"


class Protocol(LanguageServerProtocol):
    """pygls's protocol, but a request whose params do not fit its method is answered with
    the JSON-RPC error (InvalidParams) instead of only logged, so the client never waits;
    a frame over the size bound is answered with InvalidRequest (id null), the server goes on."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        if OVERSIZED in data:  # a frame over the bound, never read (`frames`)
            message = f"a message of {data[OVERSIZED]} bytes is over the limit of {data['limit']} bytes: refused"
            # Its id was never read: null, as JSON-RPC says (lsprotocol's record would leave it out).
            self._send_data({"jsonrpc": "2.0", "id": None, "error": {"code": types.ErrorCodes.InvalidRequest, "message": message}})
            return _Ignored()
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "id" in data and "method" in data:
                self._send_response(data["id"], error=types.ResponseError(code=error.code, message=error.message))
                return _Ignored()
            raise


class PolicyServer(LanguageServer):
    """The server's state: the open buffers, the projects, what was last published."""

    def __init__(self) -> None:
        super().__init__(
            "import-policy", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=Protocol,
        )
        self.documents = Documents()
        self._projects: Projects | None = None
        self.published: dict[str, list[Diagnostic]] = {}  # uri -> the findings last published (open files)
        self.versions: dict[str, str] = {}  # uri -> the buffer text those findings are of
        self.fault_uris: set[str] = set()  # configuration files showing errors
        self.dirty: dict[str, Buffer] = {}  # buffers changed since they were last checked
        self.scheduled = False
        self.shut_down = False
        self.exit_code: int | None = None  # set by `exit`: 0 after `shutdown`, else 1 (the protocol's rule)

    @property
    def projects(self) -> Projects:
        if self._projects is None:
            root = self.workspace.root_path
            self._projects = Projects(self.documents, Path(os.path.realpath(root)) if root else Path.cwd())
        return self._projects

    @property
    def units(self) -> Units:
        """How the client counts a line's characters: the position encoding pygls negotiated
        at `initialize` (UTF-8 when the client offers it, else UTF-16, the protocol's default)."""
        return self.workspace.position_codec.client_num_units

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    # --- checking and publishing -------------------------------------------------------

    def check(self, buffer: Buffer) -> None:
        """Check one open buffer and publish its findings (a configuration fault: none here,
        the errors on the configuration file)."""
        found = self.projects.for_file(buffer.path)
        if isinstance(found, Fault):
            self.publish_fault(found)
            self.publish(buffer, [], None)
            return
        file = source_file(found, buffer.path)
        findings = lint(found, file) if file is not None else []
        self.publish(buffer, findings, found)

    def publish(self, buffer: Buffer, findings: list[Diagnostic], project: Project | None) -> None:
        self.published[buffer.uri] = findings
        self.versions[buffer.uri] = buffer.text
        lines = lines_of(buffer.text)
        shown = [to_lsp(d, lines, project, self.units) for d in findings]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=buffer.uri, version=buffer.version, diagnostics=shown)
        )

    def publish_fault(self, fault: Fault) -> None:
        by_file: dict[Path, list[types.Diagnostic]] = {}
        for path, line, message in fault.errors:
            text = _read_text(path)
            row = max(line - 1, 0)
            width = len(lines_of(text)[row]) if text is not None and row < len(lines_of(text)) else 0
            by_file.setdefault(path, []).append(types.Diagnostic(
                range=types.Range(types.Position(row, 0), types.Position(row, client_column(_line(text, row), width + 1, self.units))),
                message=message, severity=types.DiagnosticSeverity.Error, source=SOURCE, code="configuration",
            ))
        for path, shown in by_file.items():
            uri = uri_of(path)
            self.fault_uris.add(uri)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=shown))

    def later(self, buffer: Buffer) -> None:
        """Check the buffer once the messages already read are handled: a burst of keystrokes
        is checked once, as it stands after the last of them, not once per keystroke."""
        self.dirty[buffer.uri] = buffer
        if self.scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a caller of its own): now
            self.flush()
            return
        self.scheduled = True
        loop.call_soon(lambda: _guarded(self, self.flush))

    def flush(self) -> None:
        """Check every changed buffer, then the other open files of their projects."""
        self.scheduled = False
        pending = [b for b in self.dirty.values() if self.documents.get(b.uri) is b]
        self.dirty.clear()
        for buffer in pending:
            self.changed(buffer.path)
        for buffer in pending:
            self.check(buffer)
        checked = {buffer.uri for buffer in pending}
        for buffer in pending:
            self.recheck_others(buffer, checked)

    def recheck_others(self, edited: Buffer, checked: set[str] | None = None) -> None:
        """Every other open file of the edited file's project, published again where its
        findings changed."""
        project = self.projects.for_file(edited.path)
        if isinstance(project, Fault):
            return
        for buffer in self.documents:
            if buffer.path == edited.path or self.projects.for_file(buffer.path) is not project:
                continue
            if checked is not None:
                if buffer.uri in checked:
                    continue
                checked.add(buffer.uri)
            file = source_file(project, buffer.path)
            findings = lint(project, file) if file is not None else []
            if findings != self.published.get(buffer.uri):
                self.publish(buffer, findings, project)

    def recheck_all(self) -> None:
        """After a configuration change: the errors shown on configuration files cleared, every
        open buffer checked again."""
        for uri in sorted(self.fault_uris):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        self.fault_uris.clear()
        for buffer in self.documents:
            if is_config(buffer.path):
                continue
            self.check(buffer)

    def changed(self, path: Path) -> None:
        """`path`'s bytes as the graphs must see them changed (a buffer, or the disk)."""
        for project in self.projects.loaded():
            relative = relative_to_root(path, project.root)
            if not relative.startswith("../"):
                project.graphs.forget(relative)

    def watch_configs(self) -> None:
        """On each message: a configuration file edited on disk (by stat data, for an editor
        that registers no file watcher) drops what it built, and every open file is checked again."""
        if self._projects is not None and self._projects.moved_on_disk():
            self.recheck_all()

    def config_event(self, path: Path, created_or_deleted: bool) -> bool:
        """A file a configuration may be built from changed: drop what it built. Whether the
        open buffers must be checked again."""
        if created_or_deleted and path.name in _CONFIG_FILES:
            self.projects.reset()  # a nearer configuration may have appeared or gone
            return True
        return self.projects.changed_on_disk()


def is_config(path: Path) -> bool:
    return path.name in _CONFIG_FILES or path.suffix in (".yaml", ".yml", ".toml")


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _line(text: str | None, row: int) -> str:
    lines = lines_of(text) if text is not None else []
    return lines[row] if row < len(lines) else ""


def to_lsp(d: Diagnostic, lines: list[str], project: Project | None, units: Units) -> types.Diagnostic:
    start_row, end_row = max(d.line - 1, 0), max(d.end_line - 1, 0)
    start = types.Position(start_row, client_column(_at(lines, start_row), d.column, units))
    end = types.Position(end_row, client_column(_at(lines, end_row), d.end_column, units))
    href = project.explain_uri(d.rule) if project is not None else None
    return types.Diagnostic(
        range=types.Range(start, end), message=d.message, source=SOURCE, code=d.rule,
        severity=types.DiagnosticSeverity.Error if d.severity == "error" else types.DiagnosticSeverity.Warning,
        code_description=types.CodeDescription(href=href) if href is not None else None,
    )


def _at(lines: list[str], row: int) -> str:
    return lines[row] if row < len(lines) else ""


def _guarded(server: PolicyServer, handler: Callable[..., T], *args: Any) -> T | None:
    try:
        return handler(*args)
    except Exception:  # a check that fails is the user's to report, never a crashed editor session
        server.log(f"import-policy: internal error; please report it with this trace:\n{traceback.format_exc()}",
                   types.MessageType.Error)
        return None


def build() -> PolicyServer:
    server = PolicyServer()

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: PolicyServer, params: None) -> None:
        ls.shut_down = True

    @server.feature(types.EXIT)
    def exit_(ls: PolicyServer, params: None) -> None:
        ls.exit_code = 0 if ls.shut_down else 1

    @server.feature(types.INITIALIZED)
    def initialized(ls: PolicyServer, params: types.InitializedParams) -> None:
        watched = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if watched and watched.dynamic_registration:
            ls.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
                id="import-policy-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                    watchers=[types.FileSystemWatcher(glob_pattern=glob) for glob in _WATCHED]
                ),
            )]))

    def opened(ls: PolicyServer, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        buffer = ls.documents.open(item.uri, item.text, item.version)
        if buffer is None:
            return
        if is_config(buffer.path):
            if ls.config_event(buffer.path, False):
                ls.recheck_all()
            return
        ls.later(buffer)

    def edited(ls: PolicyServer, params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        text = ls.workspace.get_text_document(uri).source  # pygls applied the changes
        buffer = ls.documents.open(uri, text, params.text_document.version)
        if buffer is None or is_config(buffer.path):
            return  # a configuration is read from disk: its save is what counts
        ls.later(buffer)

    def saved(ls: PolicyServer, params: types.DidSaveTextDocumentParams) -> None:
        path = path_of(params.text_document.uri)
        if path is None:
            return
        if is_config(path):
            if ls.config_event(path, False):
                ls.recheck_all()
            return
        buffer = ls.documents.get(params.text_document.uri)
        if buffer is not None:
            ls.later(buffer)

    def closed(ls: PolicyServer, params: types.DidCloseTextDocumentParams) -> None:
        buffer = ls.documents.close(params.text_document.uri)
        ls.dirty.pop(params.text_document.uri, None)
        ls.published.pop(params.text_document.uri, None)
        ls.versions.pop(params.text_document.uri, None)
        if buffer is None:
            return
        if not is_config(buffer.path):
            ls.changed(buffer.path)  # the disk's bytes stand for it again
            ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=buffer.uri, diagnostics=[]))

    def watched(ls: PolicyServer, params: types.DidChangeWatchedFilesParams) -> None:
        again = False
        for event in params.changes:
            path = path_of(event.uri)
            if path is None:
                continue
            moved = event.type != types.FileChangeType.Changed
            if is_config(path) or path.name == ".gitignore":
                again = ls.config_event(path, moved) or again
                if path.name == ".gitignore":
                    ls.projects.reset()
                    again = True
                continue
            if moved:  # a module appeared or went away: every lookup may differ
                for project in ls.projects.loaded():
                    project.graphs.clear()
                again = True
            elif ls.documents.at(path) is None:  # an open buffer stands for its file, whatever the disk holds
                ls.changed(path)
                again = True
        if again:
            ls.recheck_all()

    def actions(ls: PolicyServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return code_actions(ls, params)

    for method, handler in (
        (types.TEXT_DOCUMENT_DID_OPEN, opened), (types.TEXT_DOCUMENT_DID_CHANGE, edited),
        (types.TEXT_DOCUMENT_DID_SAVE, saved), (types.TEXT_DOCUMENT_DID_CLOSE, closed),
        (types.WORKSPACE_DID_CHANGE_WATCHED_FILES, watched),
    ):
        server.feature(method)(_safe(server, handler))
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=False),
    )(_answered(server, actions))
    return server


def _safe(server: PolicyServer, handler: Callable[[PolicyServer, Any], None]) -> Callable[[PolicyServer, Any], None]:
    def run(ls: PolicyServer, params: Any) -> None:
        _guarded(ls, ls.watch_configs)
        _guarded(ls, handler, ls, params)

    return run


def _answered(server: PolicyServer, handler: Callable[[PolicyServer, Any], list[T]]) -> Callable[[PolicyServer, Any], list[T]]:
    def run(ls: PolicyServer, params: Any) -> list[T]:
        _guarded(ls, ls.watch_configs)
        return _guarded(ls, handler, ls, params) or []

    return run


# --- code actions ---------------------------------------------------------------------------


def code_actions(ls: PolicyServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    if uri in ls.dirty:
        ls.flush()  # the findings of the text the client asks about
    buffer = ls.documents.get(uri)
    findings = ls.published.get(uri)
    if buffer is None or findings is None or ls.versions.get(uri) != buffer.text:
        return []  # findings of another text than the buffer's: their fixes would not apply
    only = params.context.only

    def wanted(kind: str) -> bool:
        return not only or any(kind == o or kind.startswith(f"{o}.") for o in only)

    fixable = [d for d in findings if d.fixable and d.fix is not None]
    out: list[types.CodeAction] = []
    lines = lines_of(buffer.text)
    if wanted(types.CodeActionKind.QuickFix):
        for d in fixable:
            if not _overlaps(d, params.range, lines, ls.units):
                continue
            edit = _fixed(buffer, [d], not d.fix.safe, ls.units)  # type: ignore[union-attr]
            if edit is None:
                continue
            safe = bool(d.fix.safe)  # type: ignore[union-attr]
            out.append(types.CodeAction(
                title=f"Fix {d.rule}" + ("" if safe else " (unsafe: may change behaviour)"),
                kind=types.CodeActionKind.QuickFix, is_preferred=safe, edit=edit,
                diagnostics=[to_lsp(d, lines, None, ls.units)],
            ))
    safe_ones = [d for d in fixable if d.fix.safe]  # type: ignore[union-attr]
    if safe_ones and only and wanted(FIX_ALL):
        edit = _fixed(buffer, safe_ones, False, ls.units)
        if edit is not None:
            out.append(types.CodeAction(title="import-policy: fix all safe fixes", kind=FIX_ALL, edit=edit))
    return out


def _overlaps(d: Diagnostic, wanted: types.Range, lines: list[str], units: Units) -> bool:
    start = (d.line - 1, client_column(_at(lines, d.line - 1), d.column, units))
    end = (d.end_line - 1, client_column(_at(lines, d.end_line - 1), d.end_column, units))
    return start <= (wanted.end.line, wanted.end.character) and (wanted.start.line, wanted.start.character) <= end


def _fixed(buffer: Buffer, findings: Iterable[Diagnostic], unsafe: bool, units: Units) -> types.WorkspaceEdit | None:
    from import_policy.fix.apply import fix_bytes  # the fixer needs libcst

    fixed = fix_bytes(buffer.data, list(findings), unsafe)
    if not fixed.changed:
        return None
    encoding = buffer.encoding
    edit = edit_between(buffer.text, fixed.new.decode(encoding, "surrogatepass" if encoding == "utf-8" else "strict"), units)
    if edit is None:
        return None
    change = types.TextEdit(
        range=types.Range(types.Position(*edit.start), types.Position(*edit.end)), new_text=edit.text
    )
    return types.WorkspaceEdit(changes={buffer.uri: [change]})


def serve() -> int:
    """Serve until `exit` (0 after `shutdown`, else 1) or until the client goes away (1)."""
    logging.basicConfig(level=logging.WARNING)  # pygls's own log goes to stderr, never into the protocol
    server = build()
    server.start_io(cast(BinaryIO, BoundedReader(sys.stdin.buffer)))
    return server.exit_code if server.exit_code is not None else 1


__all__ = ["FIX_ALL", "build", "serve"]
