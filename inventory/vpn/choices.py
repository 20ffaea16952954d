"""The VPN application's choices, with the reference's values and labels."""

IKE_VERSIONS = [("IKEv1", "IKEv1"), ("IKEv2", "IKEv2")]
ENCRYPTION_ALGORITHMS = [
    (v, v)
    for v in (
        "AES-128-CBC",
        "AES-128-GCM",
        "AES-192-CBC",
        "AES-192-GCM",
        "AES-256-CBC",
        "AES-256-GCM",
        "DES",
        "3DES",
    )
]
INTEGRITY_ALGORITHMS = [(v, v) for v in ("MD5", "SHA1", "SHA256", "SHA384", "SHA512")]
DH_GROUPS = [(str(n), f"Group {n}") for n in (1, 2, 5, 14, *range(19, 35))]
AUTHENTICATION_METHODS = [(v, v) for v in ("PSK", "RSA", "ECDSA", "Certificate")]
ENCAPSULATIONS = [
    (v, v)
    for v in (
        "IPsec-Transport",
        "IPsec-Tunnel",
        "IP-in-IP",
        "GRE",
        "WireGuard",
        "L2TP",
        "PPTP",
        "OpenVPN",
        "EoIP",
    )
]
SERVICE_TYPES = [
    ("Tunnel", [("ipsec", "IPSec")]),
    ("VPLS", [("vpws", "VPWS"), ("vpls", "VPLS")]),
    ("VXLAN", [("vxlan", "VXLAN"), ("vxlan-evpn", "VXLAN-EVPN")]),
    ("EVPN", [("mpls-evpn", "MPLS EVPN"), ("pbb-evpn", "PBB EVPN"), ("evpn-vpws", "EVPN VPWS")]),
    ("E-Line", [("epl", "EPL"), ("evpl", "EVPL")]),
    ("E-LAN", [("ep-lan", "Ethernet Private LAN"), ("evp-lan", "Ethernet Virtual Private LAN")]),
    ("E-Tree", [("ep-tree", "Ethernet Private Tree"), ("evp-tree", "Ethernet Virtual Private Tree")]),
    ("Other", [("spb", "SPB")]),
]
SERVICE_TYPE_LABELS = {value: label for _, group in SERVICE_TYPES for value, label in group}
# Point-to-point services: two terminations at most.
POINT_TO_POINT = ("vpws", "evpn-vpws", "epl", "evpl")
# Services identified by a VXLAN network identifier (RFC 7348: 24 bits, 1 to 16,777,214).
VXLAN_TYPES = ("vxlan", "vxlan-evpn")
VNI_MIN, VNI_MAX = 1, 16777214
