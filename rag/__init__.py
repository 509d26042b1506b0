"""paperchat: question answering over research-paper abstracts, offline by default.

The public API is `rag.api.Paperchat`; importing this package loads no model.
"""
