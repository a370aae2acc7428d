"""The tool's keys: RSA, made on first need, kept in the server's database, published as a JWKS. A rotation
adds a new key that signs from then on and keeps the one before it published, so a platform that cached the
old set still checks what was signed a moment ago; keys older than that are dropped."""

from __future__ import annotations

import json
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwcrypto.jwk import JWK

from grader.platforms.lti.store import Store


def _new_key(store: Store) -> str:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    key = JWK.from_pem(pem.encode())
    kid = key.thumbprint()  # the kid PyLTI1p3 puts in the header of what it signs with this key
    public = json.loads(key.export_public())
    store.add_key(kid, pem, {**public, "kid": kid, "alg": "RS256", "use": "sig"})
    return kid


def signing_key(store: Store) -> tuple[str, str]:
    """(kid, private PEM) of the key that signs now; the first one is made here."""
    found = store.keys()
    if not found:
        _new_key(store)
        found = store.keys()
    return found[0][0], found[0][1]


def rotate(store: Store) -> str:
    """A new signing key; the one before stays published, older ones go. The new kid."""
    signing_key(store)  # a first rotation still leaves a previous key to publish
    kid = _new_key(store)
    kept = store.keys()[:2]
    store.drop_keys_before(kept[-1][3])
    return kid


def jwks(store: Store) -> dict[str, Any]:
    signing_key(store)
    return {"keys": [jwk for _, _, jwk, _ in store.keys()]}
