"""The `paperchat` command with the app: rag's command line (rag/cli.py) plus `paperchat serve`,
and `start()`, which serves the app. The composition root of the two packages: ui imports rag,
rag never imports ui.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Annotated

import typer

from rag.cli import app, fail
from rag.embeddings import hub_offline
from rag.errors import PaperchatError

if TYPE_CHECKING:
    import gradio as gr

    from rag.api import Paperchat


def offline_gradio() -> None:
    """The app runs offline: no usage analytics calls out of the machine, and the huggingface_hub
    Gradio imports never goes to the hub. Called just before Gradio is imported (both are read
    then), not when this module is imported: `paperchat ingest` never imports Gradio."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    hub_offline()


def start(api: Paperchat, host: str | None = None, port: int | None = None, *, block: bool = True) -> gr.Blocks:
    """Serve the app: the queue bounds work in progress (more requests wait, none fail), login
    when PAPERCHAT_AUTH is set, uploads capped. `block=False` returns once it listens."""
    offline_gradio()
    from ui.app import CSS, HEAD, MAX_SESSIONS, build_app

    settings = api.settings
    credentials = settings.auth.get_secret_value()
    auth = None
    if credentials:
        user, sep, password = credentials.partition(":")
        if not sep or not user or not password:
            raise PaperchatError("PAPERCHAT_AUTH must be user:password (both non-empty); unset it for no login.")
        auth = (user, password)
    demo = build_app(api)
    demo.queue(default_concurrency_limit=settings.app_concurrency, max_size=256).launch(
        server_name=host or settings.host,
        server_port=port or settings.port,
        auth=auth,
        max_file_size=f"{settings.max_upload_mb}mb",
        state_session_capacity=MAX_SESSIONS,
        show_error=True,
        css=CSS,
        head=HEAD,
        prevent_thread_lock=True,
        quiet=not block,
    )
    # Models load in the background while the page is already served, so the first question
    # does not wait for them (bench/RESULTS.md: serve to ready, and to the first answer).
    threading.Thread(target=api.warm_up, name="paperchat-warm-up", daemon=True).start()
    if block:
        demo.block_thread()
    return demo


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Address to listen on (default PAPERCHAT_HOST, 127.0.0.1).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default PAPERCHAT_PORT, 7860).")] = None,
) -> None:
    """Start the Gradio app."""
    from rag.api import Paperchat

    api = Paperchat()
    try:
        start(api, host, port)
    except PaperchatError as exc:
        fail(str(exc), False)
    except OSError as exc:  # the port is taken, or the address is not this machine's
        fail(f"Cannot listen on {host or 'PAPERCHAT_HOST'}:{port or 'PAPERCHAT_PORT'} ({exc}); pick another with --port or --host.", False)
    finally:
        api.seams.close()  # the catalogue's connections, at shutdown


def main() -> None:
    app()


if __name__ == "__main__":
    main()
