"""The load-balancer application's choices, with the reference's values and labels."""

PORT_MAX = 65535

SOURCE_NAT_TYPES = [("auto", "Auto"), ("pool", "Pool"), ("static", "Static")]
LOAD_BALANCER_TYPES = [("layer2", "Layer 2"), ("layer4", "Layer 4"), ("layer7", "Layer 7"), ("dns", "DNS")]
PROTOCOLS = [
    ("Layer 4", [("tcp", "TCP"), ("udp", "UDP"), ("icmp", "ICMP"), ("sctp", "SCTP")]),
    (
        "Layer 7",
        [("http", "HTTP"), ("https", "HTTPS"), ("http2", "HTTP2"), ("grpc", "gRPC"), ("quic", "QUIC")],
    ),
    ("DNS", [("dns", "DNS")]),
    ("Any", [("any", "Any")]),
]
LOAD_BALANCING_ALGORITHMS = [
    ("round_robin", "Round Robin"),
    ("url_hash", "URL Hash"),
    ("least_connections", "Least Connections"),
    ("least_response_time", "Least Response Time"),
    ("least_bandwidth", "Least Bandwidth"),
    ("least_packets", "Least Packets"),
    ("domain_hash", "Domain Hash"),
    ("destination_ip_hash", "Destination IP Hash"),
    ("source_ip_hash", "Source IP Hash"),
    ("srcip_destip_hash", "Source IP Destination IP Hash"),
    ("least_request", "Least Request"),
    ("custom_load", "Custom Load"),
    ("srcip_srcport_hash", "Source IP Source Port Hash"),
]
HEALTH_CHECK_TYPES = [
    ("ping", "Ping"),
    ("tcp", "TCP"),
    ("dns", "DNS"),
    ("http", "HTTP"),
    ("https", "HTTPS"),
    ("custom", "Custom"),
]
CERTIFICATE_TYPES = [("client", "Client"), ("server", "Server"), ("mutual_tls", "mTLS (Mutual TLS)")]
