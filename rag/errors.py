"""Exceptions whose message names the fix. The CLI prints the message and exits 1."""


class PaperchatError(Exception):
    """A user-facing error: the message says what happened and what to do."""


class NoIndexError(PaperchatError):
    def __init__(self, data_dir: str) -> None:
        super().__init__(f"No index in {data_dir}/; run `paperchat ingest` first.")


class EmbeddingModelError(PaperchatError):
    """The configured embedding model is missing or unusable (we never download one)."""


class StoreError(PaperchatError):
    """The vector store is unreachable or holds an index made with another model."""


class LLMError(PaperchatError):
    """The configured language model is missing, misconfigured or unreachable (we never download one)."""


class IdClashError(PaperchatError):
    """An ingest that may only add papers met a record that would rewrite an indexed one."""
