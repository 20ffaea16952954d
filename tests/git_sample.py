"""Sample Git repositories: one with credentials providing config contexts and templates, one
providing saved queries on another branch, one providing nothing yet; the first owns a config
context, as a sync would leave it."""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType

from inventory.extras.models import ConfigContext, GitRepository, SecretsGroup, Tag


def build_git(s: str, sample: dict) -> dict[type, list]:
    k = s.replace("-", "_")
    groups, tags = sample[SecretsGroup], sample[Tag]
    repositories = [
        GitRepository.objects.create(
            name=f"Branch configs{s}",
            slug=f"branch_configs{k}",
            remote_url=f"https://git.example.com/netops/configs{s}.git",
            secrets_group=groups[0],
            provided_contents=["extras.configcontext", "extras.exporttemplate"],
            current_head="3f786850e387550fdab836ed7e6dc881de23001b",
        ),
        GitRepository.objects.create(
            name=f"queries{s}",
            slug=f"queries{k}",
            remote_url=f"ssh://git@git.example.com/netops/queries{s}.git",
            branch="release-2",
            provided_contents=["extras.graphqlquery"],
        ),
        GitRepository.objects.create(
            name=f"Empty{s}", slug=f"empty{k}", remote_url=f"http://gitlab.internal/empty{s}.git"
        ),
    ]
    kind = ContentType.objects.get_for_model(GitRepository)
    tags[0].content_types.add(kind)
    repositories[0].tags.set(tags[:1])
    ConfigContext.objects.create(
        name=f"git ntp{s}",
        data={"sample_ntp": ["192.0.2.1"]},
        is_active=False,  # listed, applied to no device
        owner_content_type=kind,
        owner_object_id=repositories[0].pk,
    )
    return {GitRepository: repositories}
