"""The client's address, as every part of the site sees it: the lockout (django-axes), the login
budget, the API throttles and the audit trail ask here, so they can never disagree about who is
knocking.

``TRUSTED_PROXIES`` (settings, env ``TRUSTED_PROXIES``) lists the reverse proxies in front of the
application by address or network; each appends the address it received to ``X-Forwarded-For``.
The header is believed only when the peer (``REMOTE_ADDR``) is one of them: a client that reaches
the app directly cannot choose its address by sending the header, whatever it writes. From a
trusted peer the header is read from the right, past every trusted proxy: the first address that
is not one is the client; what was written to the left of it is the client's own and is not
believed. A malformed hop ends the walk at the last address known good.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable

from django.conf import settings
from django.http import HttpRequest

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@functools.cache
def _networks(listed: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(value, strict=False) for value in listed)


def _address(value: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(value.strip())
    except ValueError:
        return None


def _trusted(address: ipaddress.IPv4Address | ipaddress.IPv6Address, networks: Iterable[Network]) -> bool:
    return any(address.version == network.version and address in network for network in networks)


def client_ip(request: HttpRequest) -> str:
    """The client's address ("" when unknown: a request built by hand)."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    networks = _networks(tuple(getattr(settings, "TRUSTED_PROXIES", ()) or ()))
    peer = _address(remote)
    if not networks or peer is None or not _trusted(peer, networks):
        return remote
    client = peer
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    for hop in reversed([part for part in forwarded.split(",") if part.strip()]):
        address = _address(hop)
        if address is None:
            break
        client = address
        if not _trusted(address, networks):
            break
    return str(client)


def client_ip_or_none(request: HttpRequest) -> str | None:
    """``client_ip`` for django-axes (``AXES_CLIENT_IP_CALLABLE``), whose column wants None, not ""."""
    return client_ip(request) or None
