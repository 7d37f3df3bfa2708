"""Transparent routing: unmodified code reaches the local Stripe by its real host names.

`tls` issues the certificates, `front` terminates TLS for the emulator, `relay` carries
connections across the sandbox boundary, `bwrap` builds the namespace, and `env` the
environment a routed command sees. See docs/routing.md.
"""

from .chromium import chromium_args, launch_options

__all__ = ["chromium_args", "launch_options"]
