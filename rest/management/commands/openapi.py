"""Write (or check) the committed copy of the OpenAPI document."""

from django.core.management.base import BaseCommand, CommandError

from rest import openapi_copy, versioning


class Command(BaseCommand):
    help = "Write docs/openapi/<version>.json from the registry (--check: only say whether it is current)."

    def add_arguments(self, parser):
        parser.add_argument("--api-version", default=versioning.DEFAULT, choices=versioning.SUPPORTED)
        parser.add_argument("--check", action="store_true", help="exit 1 if the copy is out of date")

    def handle(self, *args, api_version, check, **options):
        path = openapi_copy.path_of(api_version)
        if check:
            found = openapi_copy.differences(api_version)
            if found:
                raise CommandError(f"{path} is out of date ({'; '.join(found)}): run {openapi_copy.COMMAND}")
            self.stdout.write(f"{path} is current")
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(openapi_copy.text(api_version))
        self.stdout.write(f"wrote {path}")
