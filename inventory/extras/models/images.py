"""Images attached to devices, racks and locations (photos of a rack's front, a site's floor plan)."""

from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import models

from inventory.base import BaseModel

from ..images import ImageUploadField

# The objects images attach to, as the reference allows (its serializer's content types).
IMAGE_PARENTS = ("dcim.device", "dcim.location", "dcim.rack")


def image_label(name: str, image) -> str:
    """An image's name, or (unnamed) its file's."""
    return name or str(image or "").rsplit("/", 1)[-1]


class ImageAttachment(BaseModel):
    """An uploaded image belonging to one object (`parent`, by content type and id). Its file is
    kept under MEDIA_ROOT and goes with it; it is served only to users who may see the parent."""

    natural_key_field_names = ("pk",)

    content_type = models.ForeignKey(ContentType, on_delete=models.CASCADE, related_name="+")
    object_id = models.UUIDField(db_index=True)
    image = ImageUploadField(  # indexed: a download finds its attachment by the file's name
        upload_to="image-attachments/",
        max_length=255,
        db_index=True,
        width_field="image_width",
        height_field="image_height",
    )
    # Read from the uploaded file, never written by clients (nor checked as their input).
    image_height = models.PositiveSmallIntegerField(blank=True, editable=False)
    image_width = models.PositiveSmallIntegerField(blank=True, editable=False)
    name = models.CharField(max_length=255, blank=True, db_index=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]  # names may repeat: the id breaks ties

    def __str__(self) -> str:
        return image_label(self.name, self.image)

    def clean(self):
        super().clean()
        if self.content_type_id is None:
            return
        label = f"{self.content_type.app_label}.{self.content_type.model}"
        if label not in IMAGE_PARENTS:
            raise ValidationError({"content_type": [f"Invalid content type: {label}"]})
        parent = self.content_type.model_class()
        if self.object_id is not None and not parent._default_manager.filter(pk=self.object_id).exists():
            raise ValidationError({"object_id": ["Object not found"]})

    def delete(self, *args, **kwargs):
        """Deleted outside the API (the admin, a job): its file goes once the deletion commits."""
        from queryengine.uploads import discard_files

        deleted = super().delete(*args, **kwargs)
        discard_files(type(self), [self])
        return deleted
