"""The TLS front's HTTP gate: Stripe's traffic passes, the control plane never does.

Behind the front, requests reach the emulator's plain port, where `/_emulator/` is the
control plane (accounts, reset, snapshots). An emulator started without a control token
answers it to anyone, so a routed command could wipe every account with
`curl -H 'Host: localhost' https://api.stripe.com/_emulator/reset`. The front therefore
parses each request (h11) and refuses that path itself, whatever the Host header.

Requests are re-framed here, never copied byte for byte: the emulator sees exactly the
request the gate checked (its own Content-Length, no pipelined extras, no smuggling
through disagreeing parsers). Each request gets its own upstream connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from urllib.parse import unquote

import h11

from .relay import Connector

MAX_BODY = 64 * 1024 * 1024
MAX_HEADERS = 64 * 1024
# An idle keep-alive connection is closed after this long (uvicorn's default too), and
# so is one whose request does not arrive in full within REQUEST_SECONDS.
IDLE_SECONDS = 5.0
REQUEST_SECONDS = 120.0
RESPONSE_SECONDS = 600.0
# Framing and connection headers are the gate's own business on each side.
HOP_BY_HOP = {b"connection", b"keep-alive", b"transfer-encoding", b"content-length",
              b"expect", b"upgrade", b"te", b"trailer", b"proxy-connection"}


def is_control_plane(target: bytes) -> bool:
    """True for any request target the emulator would route to its control plane,
    including percent-encoded and slash-padded spellings (checked after the same
    single percent-decoding the emulator's server applies)."""
    path = target.split(b"?", 1)[0].split(b"#", 1)[0].decode("latin-1")
    return unquote(path).lstrip("/").lower().startswith("_emulator")


def _error(status: int, message: str) -> tuple[h11.Response, bytes]:
    body = json.dumps({"error": {"type": "invalid_request_error", "message": message}}
                      ).encode()
    return h11.Response(status_code=status, headers=[
        ("content-type", "application/json"), ("content-length", str(len(body)))]), body


REFUSED = ("The emulator's control plane (/_emulator/) cannot be reached through Stripe's "
           "host names; code under `stripebench exec` or in a trial has no access to it.")


async def _next_event(conn: h11.Connection, reader: asyncio.StreamReader,
                      timeout: float = REQUEST_SECONDS) -> object:
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            if conn.they_are_waiting_for_100_continue:
                raise _Continue
            conn.receive_data(await asyncio.wait_for(reader.read(65536), timeout))
            continue
        return event


class _Continue(Exception):
    """The client waits for `100 Continue` before sending its body."""


async def _read_request(conn: h11.Connection, reader: asyncio.StreamReader,
                        writer: asyncio.StreamWriter) -> tuple[h11.Request, bytes] | None:
    request = None
    body = bytearray()
    while True:
        try:
            event = await _next_event(conn, reader,
                                      IDLE_SECONDS if request is None else REQUEST_SECONDS)
        except _Continue:
            writer.write(conn.send(h11.InformationalResponse(status_code=100, headers=[])))
            await writer.drain()
            conn.receive_data(await reader.read(65536))
            continue
        if isinstance(event, h11.Request):
            request = event
        elif isinstance(event, h11.Data):
            body += event.data
            if len(body) > MAX_BODY:
                raise _TooLarge
        elif isinstance(event, h11.EndOfMessage):
            assert request is not None
            return request, bytes(body)
        elif isinstance(event, h11.ConnectionClosed):
            return None


class _TooLarge(Exception):
    pass


async def _forward(request: h11.Request, body: bytes, connect: Connector,
                   client: h11.Connection, writer: asyncio.StreamWriter) -> None:
    try:
        up_reader, up_writer = await connect()
    except OSError:
        response, payload = _error(502, "The local Stripe emulator is not reachable.")
        await _send(client, writer, response, payload)
        return
    upstream = h11.Connection(h11.CLIENT)
    headers = [(name, value) for name, value in request.headers
               if name.lower() not in HOP_BY_HOP]
    headers += [(b"content-length", str(len(body)).encode()), (b"connection", b"close")]
    try:
        up_writer.write(upstream.send(h11.Request(method=request.method, target=request.target,
                                                  headers=headers)))
        if body:
            up_writer.write(upstream.send(h11.Data(data=body)))
        up_writer.write(upstream.send(h11.EndOfMessage()))
        await up_writer.drain()
        while True:
            event = await _next_event(upstream, up_reader, RESPONSE_SECONDS)
            if isinstance(event, h11.InformationalResponse):
                continue
            if isinstance(event, h11.Response):
                kept = [(n, v) for n, v in event.headers
                        if n.lower() not in (b"connection", b"keep-alive")]
                writer.write(client.send(h11.Response(status_code=event.status_code,
                                                      headers=kept, reason=event.reason)))
            elif isinstance(event, h11.Data):
                writer.write(client.send(h11.Data(data=event.data)))
                await writer.drain()
            elif isinstance(event, h11.EndOfMessage):
                writer.write(client.send(h11.EndOfMessage()))
                await writer.drain()
                return
            else:  # the emulator closed mid-response: the client cannot be answered
                raise ConnectionError("the emulator closed the connection mid-response")
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            up_writer.close()


async def _send(conn: h11.Connection, writer: asyncio.StreamWriter, response: h11.Response,
                body: bytes) -> None:
    writer.write(conn.send(response) + conn.send(h11.Data(data=body))
                 + conn.send(h11.EndOfMessage()))
    await writer.drain()


async def serve_gated(reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      connect: Connector) -> None:
    """Serve one client connection: requests in order, each checked, then forwarded."""
    client = h11.Connection(h11.SERVER, max_incomplete_event_size=MAX_HEADERS)
    try:
        while True:
            try:
                received = await _read_request(client, reader, writer)
            except _TooLarge:
                await _send(client, writer, *_error(413, "The request body is too large."))
                return
            if received is None:
                return
            request, body = received
            if not request.target.startswith(b"/") and request.target != b"*":
                await _send(client, writer, *_error(400, "Only origin-form request targets "
                                                         "(/path) are accepted."))
            elif is_control_plane(request.target):
                await _send(client, writer, *_error(403, REFUSED))
            else:
                await _forward(request, body, connect, client, writer)
            if client.our_state is h11.MUST_CLOSE or client.their_state is h11.MUST_CLOSE:
                return
            client.start_next_cycle()
    except h11.RemoteProtocolError as exc:
        with contextlib.suppress(h11.LocalProtocolError, OSError, RuntimeError):
            await _send(client, writer, *_error(exc.error_status_hint, f"Bad request: {exc}"))
    except (ConnectionError, OSError, h11.LocalProtocolError, TimeoutError):
        pass
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            writer.close()
