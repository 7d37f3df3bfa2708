"""Seeded, deterministic object ids and secrets.

Each account owns a generator derived from the server seed, the account's secret salt
and its id, so one account's ids do not depend on the traffic of another: same seed +
same salt + same requests on an account = the same ids. The salt is what makes them
unguessable: the seed (0 by default) and account ids are no secrets, and ids such as a
Checkout Session's are capabilities (its page pays it). An account's salt comes from the
harness (per trial) or from the server's salt (`--salt`); a connected account's from its
platform's. It is kept in the account's stored meta (so it survives restarts, snapshots
and restores) and never shown through the API. API keys are random (`random_key`):
never part of replayed object state.
"""

from __future__ import annotations

import hashlib
import secrets

ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

# Length of the random part after the prefix, as Stripe's ids look today.
LENGTHS: dict[str, int] = {
    "cus": 14, "prod": 14, "acct": 16, "sub_sched": 24, "evt": 24, "req": 14,
    "cs_test": 58, "bps": 24, "bpc": 24, "clock": 24, "promo": 24, "shr": 24,
    "txr": 24, "mtr": 24, "we": 24, "whsec": 32, "sk_test": 99, "pk_test": 99,
    "in": 24, "il": 24, "ii": 24, "inpay": 24, "si": 14, "sub": 24,
}
DEFAULT_LENGTH = 24
# Byte -> base62 character. A byte-wise map (slightly uneven, which ids do not mind) is
# ~30x faster than big-integer base conversion, and ids are made on every write.
_TO_BASE62 = bytes(ord(ALPHABET[b % 62]) for b in range(256))


def base62(data: bytes, length: int) -> str:
    n = int.from_bytes(data, "big")
    out = []
    for _ in range(length):
        n, r = divmod(n, 62)
        out.append(ALPHABET[r])
    return "".join(out)


class IdGenerator:
    def __init__(self, seed: str) -> None:
        self.seed = seed
        self.counter = 0

    def token(self, length: int) -> str:
        self.counter += 1
        digest = hashlib.sha256(f"{self.seed}:{self.counter}:0".encode()).digest()
        block = 1
        while len(digest) < length:
            digest += hashlib.sha256(f"{self.seed}:{self.counter}:{block}".encode()).digest()
            block += 1
        return digest[:length].translate(_TO_BASE62).decode("ascii")

    def new(self, prefix: str, length: int | None = None) -> str:
        return f"{prefix}_{self.token(length or LENGTHS.get(prefix, DEFAULT_LENGTH))}"

    def secret(self, object_id: str) -> str:
        return f"{object_id}_secret_{self.token(25)}"


def derive_salt(secret: str, account_id: str) -> str:
    """The salt of account `account_id` under a secret (a server's or a platform's salt);
    "" (unsalted: ids follow from the seed alone) when there is no secret."""
    if not secret:
        return ""
    return hashlib.sha256(f"salt:{secret}:{account_id}".encode()).hexdigest()[:32]


def account_generator(seed: int, salt: str, account_id: str) -> IdGenerator:
    """An account's id generator; an unsalted one keeps the seed-only form of old data."""
    return IdGenerator(f"{seed}:{salt}:{account_id}" if salt else f"{seed}:{account_id}")


def random_key(prefix: str) -> str:
    """An API key nobody can derive: random, never part of replayed object state."""
    return f"{prefix}_{secrets.token_bytes(LENGTHS[prefix]).translate(_TO_BASE62).decode()}"
