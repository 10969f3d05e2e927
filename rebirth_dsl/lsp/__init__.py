"""The editor server (`rebirth lsp`): diagnostics, hover, completion and go-to-definition for `.rules` files.

`analysis` knows the language and no protocol (it needs no extra package); `server` speaks the Language
Server Protocol through pygls, the optional extra `rebirth-dsl[lsp]`.
"""
