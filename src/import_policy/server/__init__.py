"""`import-policy server`: the policy in the editor, over the Language Server Protocol.

documents (the open buffers, which stand for their files) -> projects (each file's nearest
configuration, with the ROCm pass's graphs kept in memory between edits) -> lint (what
`check` gives for one file as its buffer stands) -> convert (LSP diagnostics and code
actions) -> app (pygls: the protocol, the notifications, what to publish again).

pygls and lsprotocol are imported only here (the protocol and its notifications in `app`,
URIs through `pygls.uris`, columns through the position codec pygls negotiated);
`commands/server.py` imports `app` only when the command runs, so a `check` never loads them.
"""
