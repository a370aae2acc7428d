"""`grader serve` as an LTI 1.3 tool (LTI Advantage): the LMS launches it, and the scores go back by themselves.

- `store.py`: its tables in the server's own database (platforms, keys, once-only values, links, users, sends);
- `keys.py`: the tool's RSA keys, generated, rotated and published as a JWKS;
- `protocol.py`: PyLTI1p3 (the protocol's security: signatures, registration, deployment, message checks)
  fitted to Starlette and to the store, with what the library leaves to us: state and nonce used once,
  `aud`/`azp` checked against the client id;
- `routes.py`: OIDC login, launch, deep linking, the JWKS, the page a launch opens, staff's status;
- `passback.py`: the scores the gradebook counts sent to the LMS line items (AGS), the roster read (NRPS);
- `command.py`: `grader serve lti ...`.

One package per platform: this one is the server's front door for every LMS that speaks LTI 1.3."""
