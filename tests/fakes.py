"""Fakes written once and shared by the tests (no mocks)."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterator
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import Field

_WORD = re.compile(r"[a-z0-9]+")


class HashingEmbeddings(Embeddings):
    """Bag of words hashed into a fixed number of buckets, L2-normalised.

    Texts that share words get a higher cosine similarity, so retrieval tests mean
    something, and it needs no model. Counts every text it embeds, so tests can assert
    that an unchanged re-ingest embeds nothing.
    """

    def __init__(self, dimensions: int = 512, fail_after: int | None = None, failure: BaseException | None = None) -> None:
        self.dimensions = dimensions
        self.embedded = 0
        # Raise after this many documents: simulates an ingest killed half-way (or, with `failure`,
        # one that met that error, e.g. OSError(ENOSPC) from a full disk).
        self.fail_after = fail_after
        self.failure = failure

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        for word in _WORD.findall(text.lower()):
            bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little")
            vector[bucket % self.dimensions] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if self.fail_after is not None and self.embedded + len(texts) > self.fail_after:
            raise self.failure or KeyboardInterrupt("simulated kill during ingest")
        self.embedded += len(texts)
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


class ScriptedChat(BaseChatModel):
    """A chat model that replies with the given texts in turn (the last one repeats), streamed
    a few characters at a time like a real model, and records the prompts it was sent (a reply may
    be a function of the prompt: a translator that keeps what it must keep). `fail`:
    unreachable; `cut_off`: the connection drops once the reply has streamed (its last sentence,
    not yet known to be complete, is lost)."""

    responses: list[Any]  # each a reply, or a function of the prompt that makes one
    fail: bool = False
    cut_off: bool = False
    prompts: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _next(self, messages: list[BaseMessage]) -> str:
        if self.fail:
            raise ConnectionError("backend unreachable")
        self.prompts.append("\n".join(str(m.content) for m in messages))
        reply = self.responses[min(len(self.prompts) - 1, len(self.responses) - 1)]
        return str(reply(self.prompts[-1]) if callable(reply) else reply)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self._next(messages)))])

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        text = self._next(messages)
        for start in range(0, len(text), 7):
            yield ChatGenerationChunk(message=AIMessageChunk(content=text[start : start + 7]))
        if self.cut_off:
            raise ConnectionError("connection reset by peer")
