"""Users, groups, object permissions and tokens in the Django admin (superusers only, see
web/admin_site.py)."""

from django import forms
from django.contrib import admin
from django.contrib.auth import admin as auth_admin
from django.contrib.auth import forms as auth_forms
from django.core.exceptions import ValidationError

from queryengine.permissions import ACTIONS

from .models import Group, ObjectPermission, Token, User


class UserCreationForm(auth_forms.AdminUserCreationForm):
    class Meta(auth_forms.AdminUserCreationForm.Meta):
        model = User


class UserChangeForm(auth_forms.UserChangeForm):
    class Meta(auth_forms.UserChangeForm.Meta):
        model = User


@admin.register(User)
class UserAdmin(auth_admin.UserAdmin):
    form = UserChangeForm
    add_form = UserCreationForm


class GroupAdmin(admin.ModelAdmin):
    """Django's groups by name alone: their Django model permissions grant nothing here (groups
    carry object permissions)."""

    search_fields = ("name",)
    list_display = ("name",)
    fields = ("name",)


if admin.site.is_registered(Group):  # Django's own form, with the model permissions
    admin.site.unregister(Group)
admin.site.register(Group, GroupAdmin)


class ObjectPermissionForm(forms.ModelForm):
    actions = forms.MultipleChoiceField(
        choices=[(a, a) for a in ACTIONS], widget=forms.CheckboxSelectMultiple
    )

    class Meta:
        model = ObjectPermission
        fields = (
            "name",
            "description",
            "enabled",
            "object_types",
            "actions",
            "constraints",
            "users",
            "groups",
        )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A permission's own actions beyond the built-in ones (written through the API) stay choices.
        stored = self.instance.actions if isinstance(self.instance.actions, list) else []
        custom = [a for a in stored if a not in ACTIONS]
        self.fields["actions"].choices = [(a, a) for a in (*ACTIONS, *custom)]

    def _post_clean(self):
        super()._post_clean()
        # The same check as the API's: constraints must be lookups every chosen type can filter by.
        if "object_types" in self.cleaned_data:
            try:
                self.instance.clean_related({"object_types": list(self.cleaned_data["object_types"])})
            except ValidationError as exc:
                self._update_errors(exc)


@admin.register(ObjectPermission)
class ObjectPermissionAdmin(admin.ModelAdmin):
    form = ObjectPermissionForm
    list_display = ("name", "enabled", "actions", "constraints", "description")
    list_filter = ("enabled",)
    search_fields = ("name", "description")
    filter_horizontal = ("object_types", "users", "groups")


@admin.register(Token)
class TokenAdmin(admin.ModelAdmin):
    list_display = ("__str__", "user", "description", "write_enabled", "expires", "created")
    list_filter = ("write_enabled",)
    search_fields = ("user__username", "description")
    fields = ("user", "key_ending", "write_enabled", "expires", "description", "created")
    # A key is generated when the token is made, shown once then, and never again (as the API).
    readonly_fields = ("key_ending", "created")
    autocomplete_fields = ("user",)

    @admin.display(description="Key")
    def key_ending(self, token: Token) -> str:
        return "generated when saved" if token._state.adding else f"…{token.key[-6:]}"

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if not change:
            self.message_user(request, f"The new token's key (copy it now: it is not shown again): {obj.key}")
