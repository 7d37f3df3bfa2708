"""File uploads (files.stripe.com): dispute evidence, identity documents, logos.

The SDKs send `POST /v1/files` as multipart/form-data with `purpose` and `file`; the
bytes are kept with the object (base64, never rendered) and Stripe's limits apply: 16 MB
in all, and the file types each purpose accepts.
"""

from __future__ import annotations

import base64
from typing import Any

from ..context import Ctx
from ..errors import InvalidRequest
from ..listing import paginate
from ..router import api

MAX_FILE_BYTES = 16 * 1024 * 1024
DOCUMENT_TYPES = {"pdf": "application/pdf", "jpg": "image/jpeg", "jpeg": "image/jpeg",
                  "png": "image/png"}
IMAGE_TYPES = {k: v for k, v in DOCUMENT_TYPES.items() if v != "application/pdf"}
ALLOWED = {"business_icon": IMAGE_TYPES, "business_logo": IMAGE_TYPES,
           "customer_signature": {"png": "image/png"},
           "dispute_evidence": {**DOCUMENT_TYPES, "gif": "image/gif"}}
SIGNATURES = {b"%PDF": "pdf", b"\x89PNG": "png", b"\xff\xd8\xff": "jpg", b"GIF8": "gif"}


def _kind(data: bytes, filename: str) -> str:
    for magic, kind in SIGNATURES.items():
        if data.startswith(magic):
            return kind
    return filename.rsplit(".", 1)[-1].lower() if "." in filename else ""


@api("POST", "/v1/files")
def create(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    upload = params.get("file")
    if not isinstance(upload, dict) or "data" not in upload:
        raise InvalidRequest("Missing required param: file. Upload it as multipart/form-data "
                             "(the SDKs do) with a file part named `file`.",
                             code="parameter_missing", param="file")
    data = base64.b64decode(upload["data"])
    if len(data) > MAX_FILE_BYTES:
        raise InvalidRequest("File size exceeds the 16 MB limit.", param="file")
    if not data:
        raise InvalidRequest("The file is empty.", param="file")
    purpose = params["purpose"]
    kind = _kind(data, upload.get("filename") or "")
    allowed = ALLOWED.get(purpose, DOCUMENT_TYPES)
    if kind not in allowed:
        raise InvalidRequest(
            f"Invalid file: must be one of the following types: {', '.join(sorted(allowed))} "
            f"for purpose `{purpose}`.", param="file")
    obj = ctx.new("file", "file", purpose=purpose, size=len(data), type=kind,
                  filename=upload.get("filename"), title=None, expires_at=None)
    obj["url"] = ctx.url("files.stripe.com", f"/v1/files/{obj['id']}/contents")
    obj["_content"] = upload["data"]
    ctx.put(obj)
    return obj


@api("GET", "/v1/files/{file}")
def retrieve(ctx: Ctx, params: dict[str, Any], file: str) -> dict[str, Any]:
    return ctx.get(file, "file")


@api("GET", "/v1/files")
def list_(ctx: Ctx, params: dict[str, Any]) -> dict[str, Any]:
    purpose = params.get("purpose")
    return paginate(ctx, ctx.account.iter_type("file"), params, "/v1/files",
                    lambda f: purpose is None or f["purpose"] == purpose)
