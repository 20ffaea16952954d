"""Where the server connects for its users: webhooks (http and https URLs naming a host) and Git
remotes (inventory/extras/gitcli.py), only at addresses that are public or that the operator
allows, reached at the very address that was checked.

Each use has its pair of settings (`Networks`). Addresses are checked in this order: the denied
networks (WEBHOOK_DENIED_NETWORKS, GIT_DENIED_NETWORKS: always refused), the allowed networks
(WEBHOOK_ALLOWED_NETWORKS, GIT_ALLOWED_NETWORKS: the operator's internal hosts), then anything not
publicly routable (loopback, private and unique-local, link-local with the cloud metadata
address, unspecified, multicast, reserved, shared and documentation ranges) is refused. The
connection goes to the checked address, so a name that resolves differently a moment later (DNS
rebinding) changes nothing, while the Host header, TLS server name and certificate check keep the
URL's host. Redirects are not followed.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from functools import cache
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError

SCHEMES = {"http": 80, "https": 443}


class Refused(ValueError):
    """The URL or the addresses it resolves to are not ones the server may reach."""


@dataclass(frozen=True)
class Networks:
    """The settings (by name) that say where one use may connect, and what allowing does."""

    allowed: str
    denied: str
    purpose: str  # "allow it in <allowed> to <purpose>"


WEBHOOKS = Networks("WEBHOOK_ALLOWED_NETWORKS", "WEBHOOK_DENIED_NETWORKS", "send there")
GIT = Networks("GIT_ALLOWED_NETWORKS", "GIT_DENIED_NETWORKS", "fetch from it")


def url_problem(url: str) -> str | None:
    """Why a payload URL cannot be used (None when it can): its scheme, host and port. Where it
    leads is judged when sending, under the network settings of that moment."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"Enter a valid URL: {exc}."
    if parts.scheme.lower() not in SCHEMES:
        return "Only http:// and https:// URLs are allowed."
    if not parts.hostname:
        return "The URL must name a host."
    if parts.username is not None or parts.password is not None:
        return "Credentials in the URL are not supported; send them in additional headers."
    if port == 0:
        return "Enter a valid URL: port 0 is not a port."
    return None


def check_payload_url(url: str) -> None:
    """The payload URL field's validator."""
    problem = url_problem(url)
    if problem:
        raise ValidationError(problem)


@cache
def _networks(entries: tuple[str, ...], setting: str) -> tuple:
    try:
        return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)
    except ValueError as exc:
        raise Refused(f"{setting}: {exc}") from None


def _within(address, entries, setting: str) -> bool:
    return any(address in network for network in _networks(tuple(entries), setting))


def _public(address) -> bool:
    if address.version == 6:
        # An IPv4 address carried inside IPv6 (mapped, 6to4, Teredo) is judged as itself.
        inner = address.ipv4_mapped or address.sixtofour or (address.teredo or (None, None))[1]
        if inner is not None and not _public(inner):
            return False
    return address.is_global and not (address.is_multicast or address.is_reserved)


def refusal(address, networks: Networks) -> str | None:
    """Why the server may not connect to `address` for this use (None when it may)."""
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if _within(address, getattr(settings, networks.denied), networks.denied):
        return f"{address} is in {networks.denied}."
    if _within(address, getattr(settings, networks.allowed), networks.allowed):
        return None
    if not _public(address):
        return f"{address} is not a public address; allow it in {networks.allowed} to {networks.purpose}."
    return None


def resolve(host: str, port: int, networks: Networks) -> list[tuple]:
    """The permitted addresses `host` resolves to, as (family, socket address): only these are
    tried (a name with one public and one internal address reaches the public one alone)."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except socket.gaierror as exc:
        raise OSError(f"cannot resolve {host}: {exc.strerror}") from None
    addresses, problems = [], []
    for family, _, _, _, sockaddr in found:
        problem = refusal(ipaddress.ip_address(sockaddr[0]), networks)
        if problem:
            problems.append(problem)
        else:
            addresses.append((family, sockaddr))
    if not addresses:
        raise Refused(f"refused {host}: {problems[0] if problems else 'no address'}")
    return addresses


class PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to addresses already checked, named by the URL's host (Host header,
    TLS server name and certificate)."""

    def __init__(self, host: str, port: int, addresses: list[tuple], timeout: float, tls=None):
        super().__init__(host, port, timeout=timeout)
        self.addresses = addresses
        self.tls = tls
        if tls is not None:
            self.default_port = SCHEMES["https"]  # no ":443" in the Host header

    def connect(self):
        last_error: OSError = OSError(f"no address for {self.host}")
        for family, sockaddr in self.addresses:
            sock = socket.socket(family, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            try:
                sock.connect(sockaddr)
            except OSError as exc:
                sock.close()
                last_error = exc
                continue
            self.sock = self.tls.wrap_socket(sock, server_hostname=self.host) if self.tls else sock
            return
        raise last_error


def post(url: str, method: str, body: bytes, headers: dict, tls: ssl.SSLContext) -> int:
    """Send one request and read at most WEBHOOK_MAX_RESPONSE_BYTES of the answer within
    WEBHOOK_TIMEOUT (also the connect and each read's timeout); the status."""
    problem = url_problem(url)
    if problem:
        raise Refused(problem)
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or SCHEMES[scheme]
    timeout = settings.WEBHOOK_TIMEOUT
    connection = PinnedConnection(
        parts.hostname,
        port,
        resolve(parts.hostname, port, WEBHOOKS),
        timeout,
        tls if scheme == "https" else None,
    )
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request(method, target, body=body, headers=headers)
        response = connection.getresponse()
        deadline = time.monotonic() + timeout
        left = settings.WEBHOOK_MAX_RESPONSE_BYTES
        while left > 0 and time.monotonic() < deadline:
            chunk = response.read1(min(left, 65536))
            if not chunk:
                break
            left -= len(chunk)
        return response.status
    except http.client.HTTPException as exc:
        raise OSError(f"bad answer: {exc!r}") from None
    finally:
        connection.close()
