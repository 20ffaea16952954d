# Groups become Django's own auth groups again: integer ids and object type `auth.group`, as the
# reference's. Each group moves by name with its members and the permissions granted to it;
# permissions granted on groups (object type users.group) are granted on auth.group instead.

from django.db import migrations, models


def _move(apps, source_model, target_model, old_label, new_label):
    """Copy the groups, then every membership and grant, from one group model to the other."""
    Source = apps.get_model(*source_model)
    Target = apps.get_model(*target_model)
    new_pk = {
        group.pk: Target.objects.get_or_create(name=group.name)[0].pk
        for group in Source.objects.order_by("name")
    }
    User = apps.get_model("users", "User")
    ObjectPermission = apps.get_model("users", "ObjectPermission")
    for model, owner in ((User, "user_id"), (ObjectPermission, "objectpermission_id")):
        old = model._meta.get_field(old_label).remote_field.through
        new = model._meta.get_field(new_label).remote_field.through
        new.objects.bulk_create(
            [
                new(**{owner: getattr(row, owner), "group_id": new_pk[row.group_id]})
                for row in old.objects.all()
            ],
            ignore_conflicts=True,
        )


def _retarget_grants(apps, old, new):
    """Permissions granted on one group type are granted on the other."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    ObjectPermission = apps.get_model("users", "ObjectPermission")
    source = ContentType.objects.filter(app_label=old[0], model=old[1]).first()
    if source is None:
        return
    target = ContentType.objects.get_or_create(app_label=new[0], model=new[1])[0]
    for permission in ObjectPermission.objects.filter(object_types=source):
        permission.object_types.remove(source)
        permission.object_types.add(target)


def to_auth_groups(apps, schema_editor):
    _move(apps, ("users", "Group"), ("auth", "Group"), "groups", "auth_groups")
    _retarget_grants(apps, ("users", "group"), ("auth", "group"))


def to_user_groups(apps, schema_editor):
    _move(apps, ("auth", "Group"), ("users", "Group"), "auth_groups", "groups")
    _retarget_grants(apps, ("auth", "group"), ("users", "group"))


class Migration(migrations.Migration):

    dependencies = [
        ('auth', '0012_alter_user_first_name_max_length'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('users', '0006_field_help_texts'),
    ]

    operations = [
        migrations.AddField(
            model_name='user',
            name='auth_groups',
            field=models.ManyToManyField(blank=True, related_name='+', to='auth.group'),
        ),
        migrations.AddField(
            model_name='objectpermission',
            name='auth_groups',
            field=models.ManyToManyField(blank=True, related_name='+', to='auth.group'),
        ),
        migrations.RunPython(to_auth_groups, to_user_groups),
        migrations.RemoveField(model_name='user', name='groups'),
        migrations.RemoveField(model_name='objectpermission', name='groups'),
        migrations.DeleteModel(name='Group'),
        migrations.RenameField(model_name='user', old_name='auth_groups', new_name='groups'),
        migrations.RenameField(model_name='objectpermission', old_name='auth_groups', new_name='groups'),
        migrations.AlterField(
            model_name='user',
            name='groups',
            field=models.ManyToManyField(blank=True, related_name='users', to='auth.group'),
        ),
        migrations.AlterField(
            model_name='objectpermission',
            name='groups',
            field=models.ManyToManyField(blank=True, related_name='object_permissions', to='auth.group'),
        ),
    ]
