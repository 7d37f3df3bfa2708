"""A local certificate authority so that TLS to api.stripe.com & co. ends at the emulator.

Generated once per installation under the data directory (`$STRIPEBENCH_HOME`, else
`$XDG_DATA_HOME/stripebench`, else `~/.local/share/stripebench`), in `ca/`:

    ca.pem / ca.key          the root (10 years); only the CA key signs, never leaves here
    leaf.pem / leaf.key      one server certificate naming every host in STRIPE_HOSTS,
                             plus localhost and 127.0.0.1 (reissued when the host list
                             changes or it nears expiry)
    bundle.pem               the system's CAs + ours: what SSL_CERT_FILE & co. point at
    truststore.p12           Java: the JDK's cacerts + ours (only when `keytool` exists)
    spki.txt                 base64 SHA-256 of the leaf's and CA's public keys, the form
                             Chromium's --ignore-certificate-errors-spki-list takes

Several processes may ask at once (parallel trials, pytest -n), so generation happens
under a file lock and every file is written atomically.
"""

from __future__ import annotations

import base64
import datetime as dt
import fcntl
import hashlib
import ipaddress
import os
import shutil
import ssl
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import certifi
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from .web import STRIPE_HOSTS

CA_DAYS = 3650
LEAF_DAYS = 825
RENEW_BEFORE = dt.timedelta(days=30)
TRUSTSTORE_PASSWORD = "changeit"  # Java's conventional default; the store holds no secrets
EXTRA_NAMES = ("localhost",)
EXTRA_IPS = ("127.0.0.1", "::1")


def data_dir() -> Path:
    explicit = os.environ.get("STRIPEBENCH_HOME")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "stripebench"


@dataclass(frozen=True)
class Certificates:
    directory: Path
    ca_cert: Path
    leaf_cert: Path
    leaf_key: Path
    bundle: Path
    truststore: Path | None
    spki: tuple[str, ...]

    def server_context(self) -> ssl.SSLContext:
        """A TLS server context presenting the leaf (HTTP/1.1 only)."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(self.leaf_cert, self.leaf_key)
        context.set_alpn_protocols(["http/1.1"])
        return context

    def client_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca_cert))


def ensure_certificates(directory: Path | None = None,
                        hosts: Sequence[str] = STRIPE_HOSTS) -> Certificates:
    """Create (first time) or load the CA, leaf, bundle, truststore and SPKI hashes."""
    directory = directory or data_dir() / "ca"
    directory.mkdir(parents=True, exist_ok=True)
    names = tuple(dict.fromkeys([*hosts, *EXTRA_NAMES]))
    with _locked(directory / ".lock"):
        ca_key, ca_cert = _ensure_ca(directory)
        leaf_key = _ensure_leaf(directory, ca_key, ca_cert, names)
        bundle = directory / "bundle.pem"
        ca_pem = (directory / "ca.pem").read_bytes()
        if not bundle.exists() or ca_pem not in bundle.read_bytes():
            _write(bundle, system_ca_pem() + b"\n" + ca_pem)
        truststore = _ensure_truststore(directory)
        spki = (directory / "spki.txt")
        if not spki.exists():
            hashes_ = [spki_hash(leaf_key.public_key()), spki_hash(ca_key.public_key())]
            _write(spki, ("\n".join(hashes_) + "\n").encode())
    return Certificates(directory=directory, ca_cert=directory / "ca.pem",
                        leaf_cert=directory / "leaf.pem", leaf_key=directory / "leaf.key",
                        bundle=bundle, truststore=truststore,
                        spki=tuple(spki.read_text().split()))


def spki_hash(public_key: ec.EllipticCurvePublicKey) -> str:
    der = public_key.public_bytes(serialization.Encoding.DER,
                                  serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def system_ca_pem() -> bytes:
    """The machine's trusted roots (Debian's bundle, else whatever OpenSSL was built with)."""
    paths = ssl.get_default_verify_paths()
    for candidate in ("/etc/ssl/certs/ca-certificates.crt", paths.cafile, paths.openssl_cafile):
        if candidate and Path(candidate).is_file():
            return Path(candidate).read_bytes()
    try:
        return Path(certifi.where()).read_bytes()
    except ImportError:
        return b""


# ---------------------------------------------------------------------- generation

def _ensure_ca(directory: Path) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key_path, cert_path = directory / "ca.key", directory / "ca.pem"
    if key_path.exists() and cert_path.exists():
        key = serialization.load_pem_private_key(key_path.read_bytes(), None)
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        if isinstance(key, ec.EllipticCurvePrivateKey) and _valid_for_a_while(cert):
            return key, cert
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "stripebench"),
                      x509.NameAttribute(NameOID.COMMON_NAME,
                                         "stripebench local CA (offline Stripe emulator)")])
    now = _now()
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=CA_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True,
                                         crl_sign=True, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .sign(key, hashes.SHA256()))
    _write(key_path, _key_pem(key), mode=0o600)
    _write(cert_path, cert.public_bytes(serialization.Encoding.PEM))
    # A new CA invalidates everything derived from the old one.
    for stale in ("leaf.pem", "leaf.key", "bundle.pem", "truststore.p12", "spki.txt"):
        (directory / stale).unlink(missing_ok=True)
    return key, cert


def _ensure_leaf(directory: Path, ca_key: ec.EllipticCurvePrivateKey, ca_cert: x509.Certificate,
                 names: tuple[str, ...]) -> ec.EllipticCurvePrivateKey:
    key_path, cert_path = directory / "leaf.key", directory / "leaf.pem"
    if key_path.exists() and cert_path.exists():
        key = serialization.load_pem_private_key(key_path.read_bytes(), None)
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        if (isinstance(key, ec.EllipticCurvePrivateKey) and _valid_for_a_while(cert)
                and set(_dns_names(cert)) == set(names)):
            return key
    key = ec.generate_private_key(ec.SECP256R1())
    now = _now()
    alt_names: list[x509.GeneralName] = [x509.DNSName(n) for n in names]
    alt_names += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in EXTRA_IPS]
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
            .issuer_name(ca_cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1))
            .not_valid_after(now + dt.timedelta(days=LEAF_DAYS))
            .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=False,
                                         key_cert_sign=False, crl_sign=False,
                                         content_commitment=False, data_encipherment=False,
                                         key_agreement=True, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]),
                           critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()),
                           critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(
                ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    _write(key_path, _key_pem(key), mode=0o600)
    _write(cert_path, cert.public_bytes(serialization.Encoding.PEM)
           + ca_cert.public_bytes(serialization.Encoding.PEM))
    (directory / "spki.txt").unlink(missing_ok=True)
    return key


def _ensure_truststore(directory: Path) -> Path | None:
    target = directory / "truststore.p12"
    if target.exists():
        return target
    keytool = shutil.which("keytool")
    if keytool is None:
        return None
    scratch = directory / "truststore.p12.tmp"
    scratch.unlink(missing_ok=True)
    cacerts = Path(os.path.realpath(keytool)).parent.parent / "lib" / "security" / "cacerts"
    base = ["-storepass", TRUSTSTORE_PASSWORD, "-noprompt"]
    try:
        if cacerts.is_file():  # keep Java's own roots trusted too
            subprocess.run([keytool, "-importkeystore", "-srckeystore", str(cacerts),
                            "-srcstorepass", TRUSTSTORE_PASSWORD, "-destkeystore", str(scratch),
                            "-deststoretype", "PKCS12", "-deststorepass", TRUSTSTORE_PASSWORD,
                            "-noprompt"], check=True, capture_output=True, timeout=120)
        subprocess.run([keytool, "-importcert", "-alias", "stripebench-local-ca", "-file",
                        str(directory / "ca.pem"), "-keystore", str(scratch), "-storetype",
                        "PKCS12", *base], check=True, capture_output=True, timeout=60)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError):
        scratch.unlink(missing_ok=True)
        return None
    os.replace(scratch, target)
    return target


# ---------------------------------------------------------------------- helpers

def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _valid_for_a_while(cert: x509.Certificate) -> bool:
    return cert.not_valid_after_utc - RENEW_BEFORE > _now()


def _dns_names(cert: x509.Certificate) -> list[str]:
    try:
        ext = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName)
    except x509.ExtensionNotFound:
        return []
    return ext.value.get_values_for_type(x509.DNSName)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _write(path: Path, data: bytes, mode: int = 0o644) -> None:
    scratch = path.with_name(path.name + f".{os.getpid()}.tmp")
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(scratch, path)


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
