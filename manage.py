#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if sys.argv[1:2] == ["runserver"]:
        from config.startup import secret_key_refusal

        if refusal := secret_key_refusal("runserver"):
            sys.exit(refusal)
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
