"""A real OpenID Connect provider for the tests: django-oauth-toolkit's, as a
separate small Django project started on loopback (``tests/oidc_server.py``).

Not a mock of the protocol: discovery, the authorization endpoint with its own
sign-in page, the token endpoint (PKCE), RS256 ID tokens signed with a key made at
start, the JWKS document and the userinfo endpoint are the toolkit's own."""
