"""Stripe-shaped errors. Raise one anywhere in request handling; the app renders it."""

from __future__ import annotations

from typing import Any


class StripeError(Exception):
    status = 400
    type = "invalid_request_error"

    def __init__(self, message: str, *, code: str | None = None, param: str | None = None,
                 status: int | None = None, decline_code: str | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.param = param
        self.decline_code = decline_code
        self.extra = extra or {}
        if status is not None:
            self.status = status

    def body(self, request_id: str = "") -> dict[str, Any]:
        err: dict[str, Any] = {"type": self.type, "message": self.message}
        if self.code:
            err["code"] = self.code
            err["doc_url"] = f"https://stripe.com/docs/error-codes/{self.code.replace('_', '-')}"
        if self.param:
            err["param"] = self.param
        if self.decline_code:
            err["decline_code"] = self.decline_code
        if request_id:
            err["request_log_url"] = f"https://dashboard.stripe.com/test/logs/{request_id}"
        err.update(self.extra)
        return {"error": err}


class InvalidRequest(StripeError):
    pass


class NotFound(StripeError):
    status = 404

    def __init__(self, message: str, *, param: str | None = None,
                 code: str = "resource_missing") -> None:
        super().__init__(message, code=code, param=param)


class AuthenticationError(StripeError):
    status = 401
    type = "authentication_error"


class PermissionError_(StripeError):
    status = 403
    type = "invalid_request_error"


class CardError(StripeError):
    status = 402
    type = "card_error"


class APIError(StripeError):
    """Stripe's own failure (here: the emulator could not store a change); nothing applied."""

    status = 500
    type = "api_error"


class IdempotencyError(StripeError):
    status = 400
    type = "idempotency_error"


class Unsupported(StripeError):
    """A real Stripe feature the emulator does not implement: say so, never pretend."""

    def __init__(self, what: str, *, param: str | None = None) -> None:
        super().__init__(f"The local Stripe emulator does not support {what}.",
                         code="emulator_unsupported", param=param)


def missing(kind: str, object_id: str, param: str = "id") -> NotFound:
    return NotFound(f"No such {kind}: '{object_id}'", param=param)
