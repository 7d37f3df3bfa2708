"""The environment a routed command sees, and the fallback for machines without namespaces.

Routed (inside the bubblewrap sandbox): Stripe's host names resolve to 127.0.0.1 where a
relay carries TLS to the emulator, and every runtime trusts our CA through the
variables below, so code needs no configuration at all.

Fallback (no namespaces): nothing can be routed, so code must be pointed at the emulator.
Task templates read these variables (all set in both modes, so one template works in
either):

    STRIPE_API_BASE       https://api.stripe.com  |  http://127.0.0.1:12111
    STRIPE_BASE_URL       (the same)
    STRIPE_API_HOST       api.stripe.com          |  127.0.0.1
    STRIPE_API_PORT       443                     |  12111
    STRIPE_API_PROTOCOL   https                   |  http
    STRIPE_JS_URL         https://js.stripe.com/v3/ | http://127.0.0.1:12111/js.stripe.com/v3/
    STRIPEBENCH_ROUTED    1                       |  0
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlsplit

from ..emulator.tls import TRUSTSTORE_PASSWORD
from ..emulator.web import STRIPE_HOSTS


@dataclass(frozen=True)
class Keys:
    secret_key: str | None = None
    publishable_key: str | None = None
    account: str | None = None

    def env(self) -> dict[str, str]:
        env: dict[str, str] = {}
        if self.secret_key:
            env["STRIPE_SECRET_KEY"] = self.secret_key
            env["STRIPE_API_KEY"] = self.secret_key  # the name stripe-cli and some docs use
        if self.publishable_key:
            env["STRIPE_PUBLISHABLE_KEY"] = self.publishable_key
        if self.account:
            env["STRIPEBENCH_ACCOUNT"] = self.account
        return env


@dataclass(frozen=True)
class TrustFiles:
    """Where the trust material is, as seen by the command."""

    bundle: str          # system CAs + ours (PEM)
    ca: str              # ours alone (PEM)
    truststore: str | None
    spki: tuple[str, ...]


def trust_env(trust: TrustFiles) -> dict[str, str]:
    env = {
        "SSL_CERT_FILE": trust.bundle,          # OpenSSL: python ssl/httpx/urllib, Ruby, PHP
        "REQUESTS_CA_BUNDLE": trust.bundle,     # requests
        "CURL_CA_BUNDLE": trust.bundle,         # curl, pycurl
        "NODE_EXTRA_CA_CERTS": trust.ca,        # Node adds these to its built-in roots
        "GIT_SSL_CAINFO": trust.bundle,
        "DENO_CERT": trust.ca,
        "STRIPEBENCH_CA": trust.ca,
        "STRIPEBENCH_SPKI": ",".join(trust.spki),  # Chromium's SPKI allow-list
    }
    if trust.truststore:
        env["JAVA_TOOL_OPTIONS"] = (f"-Djavax.net.ssl.trustStore={trust.truststore} "
                                    f"-Djavax.net.ssl.trustStorePassword={TRUSTSTORE_PASSWORD} "
                                    "-Djavax.net.ssl.trustStoreType=PKCS12")
    return env


def routed_env(trust: TrustFiles, keys: Keys) -> dict[str, str]:
    env = trust_env(trust)
    env.update(keys.env())
    env.update({
        "STRIPEBENCH_ROUTED": "1",
        "STRIPE_API_BASE": "https://api.stripe.com",
        "STRIPE_BASE_URL": "https://api.stripe.com",
        "STRIPE_API_HOST": "api.stripe.com",
        "STRIPE_API_PORT": "443",
        "STRIPE_API_PROTOCOL": "https",
        "STRIPE_JS_URL": "https://js.stripe.com/v3/",
    })
    return env


def fallback_env(emulator_url: str, keys: Keys) -> dict[str, str]:
    parts = urlsplit(emulator_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    env = keys.env()
    env.update({
        "STRIPEBENCH_ROUTED": "0",
        "STRIPEBENCH_EMULATOR": origin,
        "STRIPE_API_BASE": origin,
        "STRIPE_BASE_URL": origin,
        "STRIPE_API_HOST": parts.hostname or "127.0.0.1",
        "STRIPE_API_PORT": str(parts.port or (443 if parts.scheme == "https" else 80)),
        "STRIPE_API_PROTOCOL": parts.scheme,
        "STRIPE_JS_URL": f"{origin}/js.stripe.com/v3/",
    })
    return env


def host_resolver_rules(https_port: int | None = None) -> str:
    """Chromium's --host-resolver-rules mapping every Stripe host to the local front."""
    target = "127.0.0.1" if https_port in (None, 443) else f"127.0.0.1:{https_port}"
    return ", ".join(f"MAP {host} {target}" for host in STRIPE_HOSTS)
