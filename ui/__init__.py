"""The Gradio app over `rag`'s public API."""
