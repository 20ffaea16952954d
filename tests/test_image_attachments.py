"""Image attachments through the real stack: multipart uploads, the stored files under MEDIA_ROOT
and their downloads at /media/, what is refused, and files going with their objects.

Reads, filters, depths, permissions and OPTIONS run in the generic families as for every model;
writes carry files, which the generic write family's JSON bodies cannot, so they are here."""

from __future__ import annotations

import io
import struct
import zlib

import orjson
import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from inventory.dcim.models import Device, Interface, Location, Rack
from inventory.extras.images import NotAnImage, identify
from inventory.extras.models import ImageAttachment, ObjectChange
from inventory.tenancy.models import Tenant
from inventory.users.models import ObjectPermission, Token, User
from queryengine.uploads import NOT_A_FILE

from .conftest import Api, send

pytestmark = pytest.mark.usefixtures("shared_sample")

LIST = "/api/extras/image-attachments/"


def png(width: int = 3, height: int = 2) -> bytes:
    """A real PNG (RGB, 8 bits), as an imaging library writes one."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x10\x80\xf0" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def jpeg(width: int, height: int) -> bytes:
    """A JPEG's segments up to its frame header: JFIF, a comment, then the start of frame."""
    jfif = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    comment = b"\xff\xfe" + struct.pack(">H", 7) + b"hello"
    frame = (
        b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, height, width, 3) + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    )
    return b"\xff\xd8" + jfif + comment + frame + b"\xff\xd9"


def webp(chunk: bytes, body: bytes) -> bytes:
    payload = b"WEBP" + chunk + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", len(payload)) + payload


def upload(
    name: str = "photo.png", content: bytes | None = None, kind: str = "image/png"
) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, png() if content is None else content, content_type=kind)


@pytest.fixture
def media(tmp_path, settings):
    """An empty MEDIA_ROOT of the test's own."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def stored(media) -> list[str]:
    return sorted(str(path.relative_to(media)) for path in media.rglob("*") if path.is_file())


@pytest.fixture
def device(sample):
    return next(d for d in sample[Device] if d.name and d.name.startswith("leaf1"))


def create(api, device, **fields):
    data = {"content_type": "dcim.device", "object_id": str(device.pk), "image": upload(), **fields}
    return api.client.post(LIST, data)


def created(api, device, **fields) -> dict:
    response = create(api, device, **fields)
    assert response.status_code == 201, response.content
    return orjson.loads(response.content)


def path_of(url: str) -> str:
    return url.removeprefix("http://testserver")


def send_form(api, method: str, path: str, data: dict):
    """PUT or PATCH with a multipart body (the test client encodes only a POST's itself)."""
    return getattr(api.client, method)(path, encode_multipart(BOUNDARY, data), content_type=MULTIPART_CONTENT)


# -- uploads ------------------------------------------------------------------------------------


def test_a_png_uploaded_to_a_device(api, media, device):
    body = created(api, device, name="Rack A3 front", image=upload(content=png(5, 7)))
    assert set(body) == {
        "id",
        "object_type",
        "display",
        "url",
        "natural_slug",
        "content_type",
        "object_id",
        "image",
        "image_height",
        "image_width",
        "name",
        "parent",
        "created",
    }
    assert body["object_type"] == "extras.imageattachment" and body["display"] == "Rack A3 front"
    assert (body["content_type"], body["object_id"]) == ("dcim.device", str(device.pk))
    assert (body["image_width"], body["image_height"]) == (5, 7)  # from the file
    assert body["parent"] == {
        "id": str(device.pk),
        "object_type": "dcim.device",
        "url": f"http://testserver/api/dcim/devices/{device.pk}/",
    }
    name = ImageAttachment.objects.get(pk=body["id"]).image.name
    assert body["image"] == f"http://testserver/media/{name}"
    assert stored(media) == [name] and (media / name).read_bytes() == png(5, 7)
    directory, _, file_name = name.partition("/")
    assert directory == "image-attachments" and len(file_name) == len("0" * 32 + ".png")
    # Shown the same way by a detail read, the list and GraphQL.
    assert api.json(path_of(body["url"])) == body
    query = '{ image_attachments(name: "Rack A3 front") { image image_width parent { ... on DeviceType { name } } } }'
    answer = orjson.loads(api.post("/api/graphql/", {"query": query}).content)
    assert answer == {
        "data": {
            "image_attachments": [{"image": body["image"], "image_width": 5, "parent": {"name": device.name}}]
        }
    }


def test_the_image_size_is_read_from_every_accepted_format(api, media, device):
    cases = [
        ("a.jpg", jpeg(640, 480), (640, 480), ".jpg"),
        ("a.gif", b"GIF89a" + struct.pack("<HH", 12, 34) + b"\x00\x00\x00;", (12, 34), ".gif"),
        (
            "a.webp",
            webp(b"VP8 ", b"\x10\x02\x00\x9d\x01\x2a" + struct.pack("<HH", 300, 200) + b"\x00" * 8),
            (300, 200),
            ".webp",
        ),
        (
            "a.webp",
            webp(b"VP8L", b"\x2f" + (99 | 49 << 14).to_bytes(4, "little") + b"\x00" * 4),
            (100, 50),
            ".webp",
        ),
        (
            "a.webp",
            webp(b"VP8X", b"\x00" * 4 + (1919).to_bytes(3, "little") + (1079).to_bytes(3, "little")),
            (1920, 1080),
            ".webp",
        ),
    ]
    for file_name, content, size, extension in cases:
        body = created(api, device, image=upload(file_name, content, "application/octet-stream"))
        assert (body["image_width"], body["image_height"]) == size, file_name
        assert body["image"].endswith(extension)
        assert body["display"] == body["image"].rsplit("/", 1)[-1]  # unnamed: its file's name
    assert identify(io.BytesIO(png(2, 3))).width == 2  # the header alone is read
    for damaged in (b"\xff\xd8\xff" + b"\xff\xda\x00\x02", b"RIFF\x00\x00\x00\x00WEBPVP8Z", b"GIF89a\x01"):
        with pytest.raises(NotAnImage):
            identify(io.BytesIO(damaged))
    files = stored(media)
    assert len(files) == len(cases)
    for name in files:  # served as the format the content is, whatever the client called it
        response = api.get(f"/media/{name}")
        kind = {"jpg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}[name.rsplit(".", 1)[-1]]
        assert response.status_code == 200 and response["Content-Type"] == kind


@pytest.mark.parametrize(
    ("file_name", "content", "kind"),
    [
        ("notes.txt", b"just some text, not an image at all", "text/plain"),
        (
            "logo.svg",
            b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
            "image/svg+xml",
        ),
        ("photo.png", b"<html><script>alert(document.cookie)</script></html>", "image/png"),
        ("photo.bmp", b"BM" + b"\x00" * 60, "image/bmp"),
        ("broken.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 4 + b"IEND", "image/png"),
        ("broken.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"),
        ("empty.png", b"", "image/png"),
    ],
    ids=["text", "svg", "html-called-png", "bmp", "damaged-png", "truncated-jpeg", "empty"],
)
def test_what_is_not_an_accepted_image_is_refused(api, media, device, file_name, content, kind):
    before = ImageAttachment.objects.count()
    response = create(api, device, image=upload(file_name, content, kind))
    assert response.status_code == 400, response.content
    errors = orjson.loads(response.content)
    assert list(errors) == ["image"] and errors["image"][0]
    assert ImageAttachment.objects.count() == before
    assert stored(media) == []


def test_sizes_past_the_limits_are_refused(api, media, device, settings):
    settings.IMAGE_FILE_MAX_BYTES = 100
    response = create(api, device, image=upload(content=png(40, 40)))
    assert response.status_code == 400
    message = orjson.loads(response.content)["image"][0]
    assert "at most 100" in message and "IMAGE_FILE_MAX_BYTES" in message
    settings.IMAGE_FILE_MAX_BYTES = 10 << 20
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000  # MAX_REQUEST_BODY_BYTES: the whole body
    response = create(api, device, image=upload(content=png(40, 40) + b"\x00" * 2000))
    assert response.status_code == 413
    assert "MAX_REQUEST_BODY_BYTES" in orjson.loads(response.content)["detail"]
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 20 << 20
    huge = png(1, 1).replace(struct.pack(">II", 1, 1), struct.pack(">II", 40000, 1))
    response = create(api, device, image=upload(content=huge))
    assert response.status_code == 400 and "1 to 32767" in orjson.loads(response.content)["image"][0]
    assert stored(media) == []


def test_a_client_file_name_never_names_the_stored_file(api, media, device):
    for name in (
        "../../../etc/passwd.png",
        "/etc/cron.d/x.png",
        "..\\..\\win.ini",
        "image-attachments/other.png",
    ):
        created(api, device, image=upload(name))
    files = stored(media)
    assert len(files) == 4 and len(set(files)) == 4
    for name in files:
        directory, _, file_name = name.partition("/")
        assert directory == "image-attachments" and "/" not in file_name and ".." not in file_name
    assert not (media.parent / "etc").exists()


def test_the_image_must_be_a_file(api, media, device):
    body = {"content_type": "dcim.device", "object_id": str(device.pk), "image": "/etc/passwd"}
    assert api.post(LIST, body).status_code == 400
    assert orjson.loads(api.post(LIST, body).content) == {"image": [NOT_A_FILE]}
    existing = ImageAttachment.objects.exclude(image="").first()  # another image's stored name
    response = api.client.post(LIST, {**body, "image": existing.image.name})
    assert orjson.loads(response.content) == {"image": [NOT_A_FILE]}
    response = api.client.post(LIST, {"content_type": "dcim.device", "object_id": str(device.pk)})
    assert orjson.loads(response.content) == {"image": ["This field is required."]}
    # Read-only sizes are taken from the file, whatever the client says.
    assert created(api, device, image_width="9999", image_height="1")["image_width"] == 3


def test_only_devices_racks_and_locations_take_images(api, media, device, sample):
    interface = Interface.objects.filter(device=device).first()
    response = create(api, device, content_type="dcim.interface", object_id=str(interface.pk))
    assert response.status_code == 400
    assert orjson.loads(response.content) == {"content_type": ["Invalid content type: dcim.interface"]}
    response = create(api, device, object_id="00000000-0000-4000-8000-000000000000")
    assert orjson.loads(response.content) == {"object_id": ["Object not found"]}
    assert stored(media) == []  # the refused writes' files went with them
    for parent in (sample[Rack][0], sample[Location][0]):
        label = f"dcim.{type(parent).__name__.lower()}"
        body = created(api, device, content_type=label, object_id=str(parent.pk))
        assert body["parent"]["object_type"] == label
    options = orjson.loads(api.client.options(LIST).content)
    assert options["parses"] == ["application/json", "multipart/form-data"]
    described = options["actions"]["POST"]
    assert [c["value"] for c in described["content_type"]["choices"]] == [
        "dcim.device",
        "dcim.location",
        "dcim.rack",
    ]
    assert described["image"]["type"] == "image upload" and described["image"]["required"] is True
    assert described["image_width"]["read_only"] and described["image_height"]["read_only"]


# -- reads --------------------------------------------------------------------------------------


def test_list_filters_and_depth(api, media, device, sample):
    mine = created(api, device, name="cabling")
    rack = sample[Rack][0]
    on_rack = created(api, device, content_type="dcim.rack", object_id=str(rack.pk), name="front")

    def ids(params) -> set[str]:
        return {row["id"] for row in api.json(LIST, {**params, "limit": 1000})["results"]}

    everything = ids({})
    assert {mine["id"], on_rack["id"]} <= everything and len(everything) >= 5
    device_images = ids({"content_type": "dcim.device", "object_id": str(device.pk)})
    assert mine["id"] in device_images and on_rack["id"] not in device_images
    assert device_images == {
        str(i.pk) for i in ImageAttachment.objects.filter(object_id=device.pk, content_type__model="device")
    }
    assert on_rack["id"] in ids({"content_type": "dcim.rack"}) and mine["id"] not in ids(
        {"content_type": "dcim.rack"}
    )
    rack_type = ContentType.objects.get_for_model(Rack).pk
    assert ids({"content_type_id": str(rack_type)}) == ids({"content_type": "dcim.rack"})
    assert ids({"object_id": str(rack.pk)}) >= {on_rack["id"]}
    assert ids({"q": "cabl"}) == {mine["id"]} and ids({"name__ic": "FRON"}) >= {on_rack["id"]}
    assert api.json(LIST, {"content_type": "dcim.nothing"}, status=400)
    nested = api.json(path_of(mine["url"]), {"depth": 1})["parent"]
    assert nested["id"] == str(device.pk) and nested["name"] == device.name
    assert nested["generic_foreign_key"] is True and nested["object_type"] == "dcim.device"
    shapes = {row["id"]: row for row in api.json(LIST, {"depth": 2, "limit": 1000})["results"]}
    assert shapes[on_rack["id"]]["parent"]["location"]["display"]  # the rack's own relations nest
    assert api.json(path_of(mine["url"]), {"api_version": "1.3"})["parent"]["name"] == device.name


# -- downloads ----------------------------------------------------------------------------------


def account(*codenames: str) -> tuple[User, Api]:
    user = User.objects.create_user(f"images-{len(codenames)}-{User.objects.count()}")
    for codename in codenames:
        app_label, name = codename.split(".")
        user.user_permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=name))
    return user, Api(Token.objects.create(user=user).key)


def test_downloads_need_the_image_and_its_parent_visible(api, media, device, sample, superuser, settings):
    body = created(api, device, image=upload(content=png(4, 4)))
    path = path_of(body["image"])
    response = api.get(path)
    assert response.status_code == 200 and b"".join(response.streaming_content) == png(4, 4)
    assert response["Content-Type"] == "image/png" and response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Disposition"].startswith("inline")
    browser = Api(None)
    browser.client.force_login(superuser)  # a signed-in browser (the object pages' <img>)
    assert browser.get(path).status_code == 200

    anonymous = Api(None).get(path)
    assert anonymous.status_code == 403
    assert orjson.loads(anonymous.content) == {"detail": "Authentication credentials were not provided."}
    assert Api("f" * 40).get(path).status_code == 403
    settings.EXEMPT_VIEW_PERMISSIONS = ["extras.imageattachment"]  # readable without a token...
    assert Api(None).get(path).status_code == 404  # ...but not the device it belongs to
    settings.EXEMPT_VIEW_PERMISSIONS = ["*"]
    assert Api(None).get(path).status_code == 200
    settings.EXEMPT_VIEW_PERMISSIONS = []
    _, nobody = account()
    assert nobody.get(path).status_code == 403  # may not view image attachments
    user, viewer = account("extras.view_imageattachment")
    assert viewer.get(path).status_code == 404  # may not view the device it belongs to
    permission = ObjectPermission.objects.create(
        name="other devices", actions=["view"], constraints={"name": "core1"}
    )
    permission.object_types.set([ContentType.objects.get_for_model(Device)])
    permission.users.add(user)
    assert viewer.get(path).status_code == 404
    permission.constraints = {"name": device.name}
    permission.save()
    assert viewer.get(path).status_code == 200
    images = ObjectPermission.objects.create(name="named images", actions=["view"], constraints={"name": "x"})
    images.object_types.set([ContentType.objects.get_for_model(ImageAttachment)])
    user.user_permissions.remove(Permission.objects.get(codename="view_imageattachment"))
    images.users.add(user)
    assert viewer.get(path).status_code == 404  # the image itself is not one they may see

    for missing in (
        "/media/image-attachments/00000000000000000000000000000000.png",
        "/media/../config/settings.py",
        "/media/image-attachments/../../config/settings.py",
        f"/media/{body['image'].rsplit('/', 1)[-1]}",
    ):
        assert api.get(missing).status_code == 404, missing
    assert api.client.post(path).status_code == 405
    sample_image = ImageAttachment.objects.exclude(pk=body["id"]).first()  # a row whose file is gone
    assert api.get(f"/media/{sample_image.image.name}").status_code == 404


# -- changes and deletions ----------------------------------------------------------------------


def test_updates_replace_the_file_once_committed(api, media, device, django_capture_on_commit_callbacks):
    body = created(api, device, name="before")
    path, first = path_of(body["url"]), stored(media)
    response = api.client.patch(path, orjson.dumps({"name": "renamed"}), content_type="application/json")
    assert response.status_code == 200 and orjson.loads(response.content)["name"] == "renamed"
    assert stored(media) == first
    with django_capture_on_commit_callbacks(execute=True):
        response = send_form(api, "patch", path, {"image": upload(content=png(9, 8))})
    assert response.status_code == 200, response.content
    changed = orjson.loads(response.content)
    assert (changed["image_width"], changed["image_height"], changed["name"]) == (9, 8, "renamed")
    assert changed["image"] != body["image"]
    assert stored(media) == [changed["image"].split("/media/")[1]]  # the replaced file is gone
    with django_capture_on_commit_callbacks(execute=True):
        response = send_form(api, "patch", path, {"image": upload(content=b"GIF89a")})
    assert response.status_code == 400 and stored(media) == [changed["image"].split("/media/")[1]]
    # What a read shows, written back whole (JSON), keeps the file; another image's URL is refused.
    read = api.json(path)
    status, answer = send(api, "put", path, {**read, "name": "as read"})
    assert (status, answer["image"], answer["name"]) == (200, read["image"], "as read")
    other = created(api, device)["image"]
    assert send(api, "patch", path, {"image": other}) == (400, {"image": [NOT_A_FILE]})
    put = {"content_type": "dcim.device", "object_id": str(device.pk), "name": "put", "image": upload()}
    response = send_form(api, "put", path, put)
    assert response.status_code == 200 and orjson.loads(response.content)["name"] == "put"
    change = ObjectChange.objects.filter(changed_object_id=body["id"]).order_by("time").first()
    assert change.action == "create" and change.object_data["image"].startswith("image-attachments/")


def test_deleting_an_image_or_its_parent_removes_the_file(
    api, media, device, django_capture_on_commit_callbacks
):
    device = Device.objects.create(
        name="doomed",
        device_type=device.device_type,
        role=device.role,
        status=device.status,
        location=device.location,
    )
    first, second = created(api, device), created(api, device)
    third = created(api, device)
    assert len(stored(media)) == 3
    with django_capture_on_commit_callbacks(execute=True):
        response = api.client.delete(path_of(first["url"]))
    assert response.status_code == 204 and len(stored(media)) == 2
    assert first["image"].split("/media/")[1] not in stored(media)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.client.delete(
            LIST, orjson.dumps([{"id": second["id"]}]), content_type="application/json"
        )
    assert response.status_code == 204 and stored(media) == [third["image"].split("/media/")[1]]
    # The device goes, and its images with it (their files too); other objects' images stay.
    others = ImageAttachment.objects.exclude(object_id=device.pk).count()
    with django_capture_on_commit_callbacks(execute=True):
        response = api.client.delete(f"/api/dcim/devices/{device.pk}/")
    assert response.status_code == 204
    assert not ImageAttachment.objects.filter(object_id=device.pk).exists()
    assert ImageAttachment.objects.count() == others and stored(media) == []


def test_a_failed_write_stores_no_file(api, media, device, sample):
    names = [f"file{i}.png" for i in range(2)]
    for name in names:  # a valid image, an invalid rest of the object: nothing kept
        response = create(api, device, image=upload(name), content_type="dcim.cable")
        assert response.status_code == 400
    assert stored(media) == []
    readonly = Api(sample[Token][1].key)  # the superuser's read-only token
    assert (
        readonly.client.post(
            LIST, {"content_type": "dcim.device", "object_id": str(device.pk), "image": upload()}
        ).status_code
        == 403
    )
    assert stored(media) == []


# -- object pages -------------------------------------------------------------------------------


def test_object_pages_show_and_attach_images(media, device, superuser, sample):
    browser = Client()
    browser.force_login(superuser)
    page = browser.get(f"/dcim/devices/{device.pk}/").content.decode()
    assert 'id="images"' in page and 'class="thumb"' in page  # the sample's image of it
    add = f"/extras/image-attachments/add/?content_type=dcim.device&amp;object_id={device.pk}"
    assert add in page
    form = browser.get(add.replace("&amp;", "&")).content.decode()
    assert 'enctype="multipart/form-data"' in form and 'type="file" name="image"' in form
    assert f'value="{device.pk}"' in form and 'value="dcim.device"' in form
    fields = {"content_type": "dcim.device", "object_id": str(device.pk), "name": "from the page"}
    response = browser.post("/extras/image-attachments/add/", {**fields, "image": upload(content=png(6, 5))})
    assert response.status_code == 302, response.content.decode()[-2000:]
    made = ImageAttachment.objects.get(name="from the page")
    assert (made.image_width, made.image_height) == (6, 5) and stored(media) == [made.image.name]
    page = browser.get(f"/dcim/devices/{device.pk}/").content.decode()
    assert f'src="http://testserver/media/{made.image.name}"' in page
    assert f'href="/extras/image-attachments/{made.pk}/"' in page
    detail = browser.get(f"/extras/image-attachments/{made.pk}/").content.decode()
    assert f'<img class="thumb" src="http://testserver/media/{made.image.name}"' in detail
    response = browser.post(f"/extras/image-attachments/{made.pk}/edit/", {**fields, "name": "renamed"})
    assert response.status_code == 302
    made.refresh_from_db()
    assert made.name == "renamed" and stored(media) == [made.image.name]  # no file: kept
    response = browser.post(
        f"/extras/image-attachments/{made.pk}/edit/", {**fields, "image": upload(content=b"no")}
    )
    assert response.status_code == 400 and "valid image" in response.content.decode()
    rack_page = browser.get(f"/dcim/racks/{sample[Rack][0].pk}/").content.decode()
    assert 'id="images"' in rack_page
    assert 'id="images"' not in browser.get(f"/tenancy/tenants/{sample[Tenant][0].pk}/").content.decode()
