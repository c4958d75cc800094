"""The inference adapter the server runs for a `remote::acme-echo` entry.

A chat completion is POSTed to `<base_url>/chat/completions` of the echo
service (OpenAI-compatible) with `Authorization: Bearer <api_key>`, and the
answer comes back with `prefix` put before its text: an answer that starts with
the prefix came through this module. Models are the ones registered in the
config (nothing is listed from the service). Standard library only (urllib in
a thread), so the package needs nothing the release does not have.
"""

import asyncio
import json
import urllib.request

try:  # OGX (0.8 on)
    from ogx_api import OpenAIChatCompletion
except ImportError:  # llama-stack (0.7 and before)
    from llama_stack_api import OpenAIChatCompletion

from .config import AcmeEchoConfig


class AcmeEchoAdapter:
    def __init__(self, config: AcmeEchoConfig) -> None:
        self.config = config

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass

    # Models: what the config registers is served as given; nothing is discovered.
    async def register_model(self, model):  # noqa: ANN001, ANN201 - the release's Model
        return model

    async def unregister_model(self, model_id: str) -> None:
        pass

    async def list_models(self) -> None:
        return None

    async def should_refresh_models(self) -> bool:
        return False

    async def openai_chat_completion(self, params):  # noqa: ANN001, ANN201 - the release's request type
        if params.stream:
            raise NotImplementedError("acme-echo does not stream")
        body = {
            "model": params.model,
            "messages": [m if isinstance(m, dict) else m.model_dump(exclude_none=True) for m in params.messages],
        }
        data = await asyncio.to_thread(self._post, "/chat/completions", body)
        completion = OpenAIChatCompletion.model_validate(data)
        for choice in completion.choices:
            choice.message.content = f"{self.config.prefix}{choice.message.content or ''}"
        return completion

    async def openai_completion(self, params):  # noqa: ANN001, ANN201
        raise NotImplementedError("acme-echo serves chat completions only")

    async def openai_embeddings(self, params):  # noqa: ANN001, ANN201
        raise NotImplementedError("acme-echo serves chat completions only")

    def _post(self, path: str, body: dict) -> dict:
        headers = {"content-type": "application/json"}
        if self.config.api_key is not None:
            headers["authorization"] = f"Bearer {self.config.api_key.get_secret_value()}"
        request = urllib.request.Request(
            self.config.base_url.rstrip("/") + path,
            data=json.dumps(body).encode(),
            headers=headers,
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())
