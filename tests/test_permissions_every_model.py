"""Object permissions compile to every model's queries: a permission allowing one object of a
type shows just it in the type's REST list, detail and GraphQL list. One test per model, on the
sample laid once for the module, so the models spread over the test workers."""

from __future__ import annotations

import pytest

from queryengine.registry import resources
from rest import versioning

from .test_permissions import account, grant, graphql_list, ids

VIEWABLE = [r for r in resources() if r.view_permission and r.served_at(versioning.DEFAULT)]

pytestmark = pytest.mark.usefixtures("shared_sample")


@pytest.mark.parametrize("resource", VIEWABLE, ids=lambda r: r.route)
def test_every_model_compiles_constraints(sample, resource):
    chosen = resource.id_value(sample[resource.model][0].pk)
    user, api = account()
    grant(user, [resource.object_type], ["view"], [{"id": chosen}])
    path = f"/api/{resource.route}/"
    assert ids(api, path) == {chosen}
    api.json(f"{path}{sample[resource.model][1].pk}/", status=404)
    assert graphql_list(api, resource.object_type) == ({chosen}, 1)
