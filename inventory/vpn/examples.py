"""The VPN profiles and policies a new inventory starts with, as the reference's: made once, by the
migration that installs them, so examples a user deletes stay deleted."""

# Each profile with one phase 1 and one phase 2 policy of the same name.
EXAMPLES = [
    {
        "policy": "Standard Policy",
        "description": "Standard Phase 1 Policy dedicated for Standard Site-to-Site VPN",
        "phase2_description": "Standard Phase 2 Policy dedicated for Standard Site-to-Site VPN",
        "profile": "Standard Site-to-Site VPN",
        "encryption": "AES-256-CBC",
        "integrity": "SHA256",
        "group": "14",
        "phase1_lifetime": 86400,
        "phase2_lifetime": 3600,
        "keepalive": (10, 3),
    },
    {
        "policy": "Remote Access",
        "description": "Policy dedicated for Remote Access VPN (IKEv2)",
        "profile": "Remote Access VPN (IKEv2)",
        "encryption": "AES-256-CBC",
        "integrity": "SHA256",
        "group": "19",
        "phase1_lifetime": 28800,
        "phase2_lifetime": 3600,
        "keepalive": (30, 5),
    },
    {
        "policy": "Performance-Oriented",
        "description": "Performance-Oriented for Site-to-Site",
        "profile": "Performance-Oriented Site-to-Site",
        "encryption": "AES-128-CBC",
        "integrity": "SHA256",
        "group": "5",
        # No perfect forward secrecy in phase 2, for speed.
        "pfs": False,
        "phase1_lifetime": 86400,
        "phase2_lifetime": 3600,
        "keepalive": (5, 2),
    },
    {
        "policy": "High-Security",
        "description": "High-Security Policy for Site-to-Site",
        "profile": "High-Security Site-to-Site",
        "encryption": "AES-256-GCM",
        "integrity": "SHA512",
        "group": "21",
        "phase1_lifetime": 86400,
        "phase2_lifetime": 1800,
        "keepalive": (15, 4),
    },
]


def create_examples(apps, schema_editor):
    db = schema_editor.connection.alias
    Phase1, Phase2, Profile = (
        apps.get_model("vpn", name).objects.using(db)
        for name in ("VPNPhase1Policy", "VPNPhase2Policy", "VPNProfile")
    )
    for example in EXAMPLES:
        common = {
            "encryption_algorithm": [example["encryption"]],
            "integrity_algorithm": [example["integrity"]],
        }
        phase1, _ = Phase1.get_or_create(
            name=example["policy"],
            defaults={
                **common,
                "description": example["description"],
                "ike_version": "IKEv2",
                "dh_group": [example["group"]],
                "lifetime_seconds": example["phase1_lifetime"],
            },
        )
        phase2, _ = Phase2.get_or_create(
            name=example["policy"],
            defaults={
                **common,
                "description": example.get("phase2_description", example["description"]),
                "pfs_group": [example["group"]] if example.get("pfs", True) else None,
                "lifetime": example["phase2_lifetime"],
            },
        )
        interval, retries = example["keepalive"]
        profile, created = Profile.get_or_create(
            name=example["profile"],
            defaults={
                "description": example["profile"],
                "keepalive_enabled": True,
                "keepalive_interval": interval,
                "keepalive_retries": retries,
            },
        )
        if created:
            profile.vpn_phase1_policies.add(phase1)
            profile.vpn_phase2_policies.add(phase2)
