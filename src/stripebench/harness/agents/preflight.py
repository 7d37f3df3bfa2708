"""Before the first trial: one cheap request to the model endpoint (its model list), so an
endpoint that is down, a wrong URL or a refused key is one line and a non-zero exit
within seconds, not minutes of retries inside trials.

And during a run: which provider failures mean "the endpoint is gone" or "the provider
refused" (the trial is an error to redo, left out of the means: rundir/statuses.py), as
opposed to the agent's own failure.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import httpx

TIMEOUT = 10.0
DEFAULT_BASES = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
UNREACHABLE = "endpoint_unreachable"
REFUSED = "provider_refused"


@dataclass(frozen=True)
class Verdict:
    ok: bool
    message: str  # one line: what was asked of whom, and what came back
    status: str = ""  # UNREACHABLE or REFUSED when not ok


def endpoint(provider: str, base_url: str | None) -> str:
    return (base_url or DEFAULT_BASES[provider]).rstrip("/")


def _models_url(provider: str, base: str) -> str:
    # the Anthropic SDK's base URL has no /v1; OpenAI-compatible ones end in it
    if provider == "anthropic" and not base.endswith("/v1"):
        return f"{base}/v1/models"
    return f"{base}/models"


def check(provider: str, model: str | None, base_url: str | None,
          timeout: float = TIMEOUT) -> Verdict:
    """GET the endpoint's model list with the key the agent will use."""
    base = endpoint(provider, base_url)
    url = _models_url(provider, base)
    key = os.environ.get(f"{provider.upper()}_API_KEY", "")
    headers = ({"x-api-key": key, "anthropic-version": "2023-06-01"} if provider == "anthropic"
               else {"authorization": f"Bearer {key or 'unused'}"})
    try:
        answer = httpx.get(url, headers=headers, timeout=timeout)
    except httpx.TimeoutException:
        return Verdict(False, f"the model endpoint {base} did not answer within {timeout:g}s "
                       f"(GET {url})", UNREACHABLE)
    except httpx.HTTPError as exc:
        reason = str(exc) or type(exc).__name__
        return Verdict(False, f"cannot reach the model endpoint {base} ({reason}); is the "
                       "server running and the --base-url right?", UNREACHABLE)
    if answer.status_code in (401, 403):
        variable = f"{provider.upper()}_API_KEY"
        return Verdict(False, f"the model endpoint {base} refused the key in {variable} "
                       f"(HTTP {answer.status_code}: {_detail(answer)})", REFUSED)
    if answer.status_code == 404:  # some compatible servers have no model list
        return Verdict(True, f"{base} answered (it has no model list to check {model} in)")
    if answer.status_code >= 400:
        return Verdict(False, f"the model endpoint {base} answered HTTP {answer.status_code} "
                       f"to GET {url}: {_detail(answer)}", REFUSED)
    listed = _model_ids(answer)
    if model and listed and model not in listed:
        shown = ", ".join(sorted(listed)[:8]) + (" ..." if len(listed) > 8 else "")
        return Verdict(True, f"note: {base} does not list the model {model} (it lists "
                       f"{shown}); the first request will say whether it serves it")
    return Verdict(True, f"{base} answered")


def _detail(answer: httpx.Response) -> str:
    try:
        body = answer.json()
        error = body.get("error") if isinstance(body, dict) else None
        message = error.get("message") if isinstance(error, dict) else error or body
        return str(message)[:200]
    except ValueError:
        return answer.text[:200].strip() or answer.reason_phrase


def _model_ids(answer: httpx.Response) -> set[str]:
    try:
        data = answer.json().get("data") or []
        return {str(m.get("id")) for m in data if isinstance(m, dict) and m.get("id")}
    except (ValueError, AttributeError):
        return set()


def failure_status(exc: Exception) -> str | None:
    """The trial status a provider exception stands for after the retries, or None when
    it is the agent's own failure (a bad request it made, a bug)."""
    name = type(exc).__name__
    if name in ("APIConnectionError", "APITimeoutError", "ConnectError", "ConnectTimeout"):
        return UNREACHABLE
    if name in ("AuthenticationError", "PermissionDeniedError", "RateLimitError",
                "InternalServerError", "OverloadedError", "ServiceUnavailableError"):
        return REFUSED
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and (status in (401, 403, 408, 429) or status >= 500):
        return REFUSED
    return None
