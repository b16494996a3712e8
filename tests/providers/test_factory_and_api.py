"""``make_client`` maps the catalogue's kind names; the package's public surface is explicit."""

import ast
import sys
from pathlib import Path

import httpx
import pytest

import harness.providers
from harness.providers import (
    PROVIDER_KINDS,
    AnthropicClient,
    AzureOpenAIChatClient,
    Classifier,
    CohereClient,
    GeminiClient,
    OllamaClient,
    OpenAIChatClient,
    OpenAIResponsesClient,
    ProviderClient,
    make_client,
)
from harness.providers.plumbing.transport import URL_MEMO_PATHS

EXPECTED_CLASSES = {
    "openai": OpenAIChatClient,
    "openai-responses": OpenAIResponsesClient,
    "azure": AzureOpenAIChatClient,
    "anthropic": AnthropicClient,
    "gemini": GeminiClient,
    "mistral": OpenAIChatClient,
    "groq": OpenAIChatClient,
    "deepseek": OpenAIChatClient,
    "openrouter": OpenAIChatClient,
    "ollama": OllamaClient,
    "ollama-openai": OpenAIChatClient,
    "vllm": OpenAIChatClient,
    "llamacpp": OpenAIChatClient,
    "lmstudio": OpenAIChatClient,
    "together": OpenAIChatClient,
    "cohere": CohereClient,
    "xai": OpenAIChatClient,
}


def test_every_catalogue_kind_has_its_client() -> None:
    assert set(PROVIDER_KINDS) == set(EXPECTED_CLASSES)
    http = httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(500)))
    for kind, cls in EXPECTED_CLASSES.items():
        client = make_client(kind, client=http, base_url="http://x", api_key=None)
        assert type(client) is cls
        assert client.provider_kind == kind
        assert client.provider_name == kind
        as_protocol: ProviderClient = client  # the factory's product satisfies the protocol
        assert callable(as_protocol.complete)


def test_provider_name_is_passed_through() -> None:
    http = httpx.AsyncClient()
    client = make_client(
        "groq",
        client=http,
        base_url="http://x/",
        api_key="k",
        provider_name="Groq",
    )
    assert (client.provider_name, client.base_url) == ("Groq", "http://x")


def test_request_urls_are_parsed_once_per_path_and_kept_for_a_bounded_number() -> None:
    client = make_client(
        "openai", client=httpx.AsyncClient(), base_url="http://x/v1/", api_key=None
    )
    url = client.url("/chat/completions")
    assert url == httpx.URL("http://x/v1/chat/completions")
    assert client.url("/chat/completions") is url  # not parsed again
    models = [client.url(f"/models/m{i}:generateContent") for i in range(URL_MEMO_PATHS + 5)]
    assert [str(u) for u in models[-2:]] == [
        f"http://x/v1/models/m{i}:generateContent" for i in (URL_MEMO_PATHS + 3, URL_MEMO_PATHS + 4)
    ]
    assert len(client._urls) == URL_MEMO_PATHS


@pytest.mark.parametrize("kind", ["bedrock", "bedrock-throttle", "OpenAI", ""])
def test_unknown_kinds_are_refused(kind: str) -> None:
    with pytest.raises(ValueError, match="unknown provider kind"):
        make_client(kind, client=httpx.AsyncClient(), base_url="http://x", api_key=None)


def test_classifier_names() -> None:
    assert [c.value for c in Classifier] == ["reference", "extended"]
    assert Classifier("extended") is Classifier.EXTENDED


def test_public_surface_is_explicit_and_importable() -> None:
    names = harness.providers.__all__
    assert len(names) == len(set(names))
    for name in names:
        assert hasattr(harness.providers, name), name


PACKAGE = Path(harness.providers.__file__).parent
ALLOWED_ROOTS = {"harness", "httpx", "orjson", "__future__"}  # orjson: request/response bodies


@pytest.mark.parametrize("module", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_providers_import_only_httpx_stdlib_and_runtime(module: Path) -> None:
    tree = ast.parse(module.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
            root = names[0].split(".")[0]
        else:
            continue
        for name in names:
            if name.startswith("harness."):
                assert name.startswith(("harness.providers", "harness.runtime")), name
        assert root in ALLOWED_ROOTS or root in sys.stdlib_module_names, names
