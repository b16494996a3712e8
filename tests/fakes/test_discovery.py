"""Windows are discoverable where the real providers expose them (real connections)."""

from __future__ import annotations

import httpx

from fakes import FakeModel, FakeProvider
from fakes.pytest_plugin import FakeServerFactory
from tests.fakes.conftest import MODEL, WINDOW, Pool


def _get(pool: Pool, provider: str, path: str, **kwargs: object) -> httpx.Response:
    _, base = pool(provider)
    method = "POST" if kwargs else "GET"
    return httpx.request(method, base + path, timeout=10.0, **kwargs)  # type: ignore[arg-type]


def test_anthropic_models_report_max_input_tokens(pool: Pool) -> None:
    listed = _get(pool, "anthropic", "/v1/models").json()
    assert listed["data"][0]["max_input_tokens"] == WINDOW
    one = _get(pool, "anthropic", f"/v1/models/{MODEL}").json()
    assert one["max_input_tokens"] == WINDOW
    assert _get(pool, "anthropic", "/v1/models/other").status_code == 404


def test_gemini_models_get_reports_input_token_limit(pool: Pool) -> None:
    model = _get(pool, "gemini", f"/v1beta/models/{MODEL}").json()
    assert model["name"] == f"models/{MODEL}"
    assert model["inputTokenLimit"] == WINDOW


def test_llamacpp_props_and_slots_report_n_ctx(pool: Pool) -> None:
    assert _get(pool, "llamacpp", "/props").json()["default_generation_settings"]["n_ctx"] == WINDOW
    assert _get(pool, "llamacpp", "/slots").json()[0]["n_ctx"] == WINDOW


def test_vllm_groq_mistral_list_their_window_fields(pool: Pool) -> None:
    assert _get(pool, "vllm", "/v1/models").json()["data"][0]["max_model_len"] == WINDOW
    groq = _get(pool, "groq", "/openai/v1/models").json()
    assert groq["data"][0]["context_window"] == WINDOW
    mistral = _get(pool, "mistral", "/v1/models").json()
    assert mistral["data"][0]["max_context_length"] == WINDOW
    assert "context_window" not in _get(pool, "openai", "/v1/models").json()["data"][0]


def test_count_tokens_endpoints_use_the_fakes_counter(pool: Pool) -> None:
    body = {"model": MODEL, "max_tokens": 5, "messages": [{"role": "user", "content": "hello"}]}
    assert _get(pool, "anthropic", "/v1/messages/count_tokens", json=body).json() == {
        "input_tokens": 6
    }
    gemini = {"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}
    counted = _get(pool, "gemini", f"/v1beta/models/{MODEL}:countTokens", json=gemini).json()
    assert counted["totalTokens"] == 6


def test_openrouter_and_ollama_advertise_a_larger_maximum_than_they_enforce() -> None:
    model = FakeModel(MODEL, WINDOW, advertised_window=8 * WINDOW)
    factory = FakeServerFactory()
    try:
        router = factory.serve(FakeProvider("openrouter", model)).base_url
        listed = httpx.get(router + "/api/v1/models", timeout=10.0).json()["data"][0]
        assert (listed["context_length"], listed["top_provider"]["context_length"]) == (
            8 * WINDOW,
            WINDOW,
        )
        ollama = factory.serve(FakeProvider("ollama", model)).base_url
        shown = httpx.post(ollama + "/api/show", json={"model": MODEL}, timeout=10.0).json()
        assert shown["model_info"]["llama.context_length"] == 8 * WINDOW
        assert shown["parameters"].split() == ["num_ctx", str(WINDOW)]
    finally:
        factory.close()


def test_ollama_num_ctx_option_sets_the_effective_window(pool: Pool) -> None:
    body = {
        "model": MODEL,
        "stream": False,
        "options": {"num_ctx": 50},
        "messages": [{"role": "user", "content": "a" * 400}],
    }
    answer = _get(pool, "ollama", "/api/chat", json=body).json()
    assert answer["prompt_eval_count"] == 50
