"""Sample image attachments: a rack's photo, a device's and a floor plan of a location (one
unnamed). Their rows name files that are not stored: reads show their URLs alike, and the tests
that download, replace or delete files (tests/test_image_attachments.py) upload their own."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from inventory.dcim.models import Device, Location, Rack
from inventory.extras.models import ImageAttachment


def build_images(s: str, sample: dict) -> dict[type, list]:
    k = s.strip("-") or "sample"

    def image(parent, name: str, width: int, height: int) -> ImageAttachment:
        return ImageAttachment.objects.create(
            content_type=ContentType.objects.get_for_model(type(parent)),
            object_id=parent.pk,
            image=f"image-attachments/{k}-{type(parent).__name__.lower()}-{width}.png",
            image_width=width,
            image_height=height,
            name=name,
        )

    return {
        ImageAttachment: [
            image(sample[Rack][0], f"Rack front{s}", 800, 1200),
            image(sample[Device][0], f"Device rear{s}", 1024, 768),
            image(sample[Location][1], "", 640, 480),
        ]
    }
