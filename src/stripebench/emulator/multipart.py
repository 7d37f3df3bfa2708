"""multipart/form-data bodies (file uploads to files.stripe.com) as request parameters.

Plain fields become strings (bracketed names nest as in form encoding); a file field
becomes `{"filename", "type", "size", "data"}` with the bytes base64-encoded, so params
stay JSON (idempotency fingerprints, the request log).
"""

from __future__ import annotations

import base64
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any
from urllib.parse import quote

from . import forms
from .errors import InvalidRequest


def decode(body: bytes, content_type: str) -> dict[str, Any]:
    if "boundary=" not in content_type:
        raise InvalidRequest("Invalid multipart/form-data body: no boundary in Content-Type.")
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1", "replace") + b"\r\n\r\n" + body)
    if not message.is_multipart():
        raise InvalidRequest("Invalid multipart/form-data body.")
    fields: list[str] = []
    files: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str) or not name:
            raise InvalidRequest("Invalid multipart/form-data body: a part has no name.")
        data = part.get_payload(decode=True) or b""
        assert isinstance(data, bytes)
        filename = part.get_filename()
        if filename is not None:
            files[name] = {"filename": filename, "type": part.get_content_type(),
                           "size": len(data), "data": base64.b64encode(data).decode()}
        else:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                raise InvalidRequest(f"Parameter {name} is not valid UTF-8.") from None
            fields.append(f"{quote(name, safe='')}={quote(text, safe='')}")
    params = forms.decode("&".join(fields))
    params.update(files)
    return params
