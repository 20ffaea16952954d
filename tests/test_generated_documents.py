"""REST's documents of one shape differ only in their filters: their fragments are parsed once,
their bodies validated once and their plans compiled once, and none of that lets an invalid
document through or mixes up what two documents show."""

from __future__ import annotations

import gc
import weakref

import graphql
import orjson

from inventory.dcim.models import Device
from inventory.users.models import Token
from queryengine import engine
from queryengine.documents import detail_document, list_document, many_to_many_fields
from queryengine.registry import resource_for
from queryengine.rules import GENERATED_RULES
from queryengine.schema import RequestContext

from .conftest import Api
from .test_token_keys import KEY, TOKENS

DEVICES = "/api/dcim/devices/"


def prepared_list(resource, depth: int, filters: tuple[str, ...]):
    document = list_document(resource, depth, frozenset(many_to_many_fields(resource)), filters)
    return engine.prepare(document)


def test_documents_of_one_shape_share_fragments_and_plans_and_answer_each_their_own(api, sample):
    resource = resource_for(Device)
    device = sample[Device][0]
    engine.prepare.clear()
    by_name = api.json(DEVICES, {"depth": 2, "name": device.name})["results"]
    by_status = api.json(DEVICES, {"depth": 2, "status": device.status.name})["results"]
    assert [row["id"] for row in by_name] == [str(device.pk)]
    assert {row["id"] for row in by_status} == {
        str(pk) for pk in Device.objects.filter(status=device.status).values_list("pk", flat=True)
    }
    # The nested objects are whole at depth 2, as without any sharing.
    assert by_name[0]["location"]["name"] == device.location.name
    assert by_name[0] == next(row for row in by_status if row["id"] == str(device.pk))

    first, second = prepared_list(resource, 2, ("name",)), prepared_list(resource, 2, ("status",))
    assert first is not second
    fragments = first.document.definitions[1:]
    assert len(fragments) > 5
    assert all(a is b for a, b in zip(fragments, second.document.definitions[1:], strict=True))
    results = [next(r for r in p.plan.roots if r.key == "results") for p in (first, second)]
    assert results[0].objects is results[1].objects


def test_a_body_known_valid_does_not_let_another_documents_bad_header_through(api, sample):
    resource = resource_for(Device)
    valid = list_document(resource, 1, frozenset(), ("name",))
    assert not engine.prepare(valid).errors
    assert "$f0: [String]" in valid and "name: $f0" in valid
    wrong_type = valid.replace("$f0: [String]", "$f0: [Int]", 1)
    unknown_argument = valid.replace("name: $f0", "no_such_filter: $f0")
    undeclared = valid.replace(", $f0: [String]", "", 1)
    for text, message in (
        (wrong_type, "Variable '$f0' of type '[Int]' used in position expecting type '[String]'"),
        (unknown_argument, "Unknown argument 'no_such_filter'"),
        (undeclared, "Variable '$f0' is not defined."),
    ):
        errors = engine.prepare(text).errors
        assert errors and any(message in e.message for e in errors), (message, errors)


def test_headers_over_known_fragments_are_judged_as_the_whole_validation_judges_them(sample):
    """Over fragments found valid before, an operation of variables and spreads is checked
    against the schema without the rules; each variation below, valid or not, gets the answer
    (the same errors, or none) that validating the whole document gives."""
    resource = resource_for(Device)
    listed = list_document(resource, 1, frozenset(), ("name",))
    shown = detail_document(resource, 1, frozenset())
    assert not engine.prepare(listed).errors and not engine.prepare(shown).errors
    top = listed.split("...", 1)[1].split(" ", 1)[0]
    variations = {
        "unused variable": listed.replace("$f0: [String]", "$f0: [String], $extra: Int", 1),
        "variable declared twice": listed.replace("$f0: [String]", "$f0: [String], $f0: [String]", 1),
        "argument given twice": listed.replace("name: $f0)", "name: $f0, name: $f0)"),
        "unknown type": listed.replace("$f0: [String]", "$f0: [NoSuchType]", 1),
        "output type as a variable's": listed.replace("$f0: [String]", "$f0: DeviceType", 1),
        "literal of the wrong type": listed.replace("limit: $limit", 'limit: "many"'),
        "literal that fits": listed.replace("limit: $limit", "limit: 5").replace("$limit: Int, ", ""),
        "default value": listed.replace("$f0: [String]", '$f0: [String] = ["x"]', 1),
        "unknown directive": listed.replace("results: devices(", "results: devices @nope(", 1),
        "directive": listed.replace("{ ...", "@include(if: true) { ...", 1),
        "unknown root field": listed.replace("results: devices(", "results: no_such_list(", 1),
        "same key twice": listed.replace("count: devices_count", "results: devices_count", 1),
        "known fragment on another type": listed.replace("results: devices(", "results: locations(", 1),
        "unknown fragment": listed.replace(f"...{top}", "...NoSuchFragment", 1),
        "subscription": listed.replace("query (", "subscription (", 1),
        # An object's id is an optional `ID`, as the reference's; a `UUID` variable fits it too.
        "id left out": shown.replace("(id: $id)", "").replace("($id: ID!) ", ""),
        "nullable id": shown.replace("$id: ID!", "$id: ID", 1),
        "a UUID for an ID": shown.replace("$id: ID!", "$id: UUID!", 1),
        "a list of UUIDs for an ID": shown.replace("$id: ID!", "$id: [UUID]", 1),
        "wrong type": shown.replace("$id: ID!", "$id: String!", 1),
    }
    assert all(text not in (listed, shown) for text in variations.values())
    for case, text in variations.items():
        document = graphql.parse(text)
        whole = graphql.validate(engine.GRAPHQL_SCHEMA, document, GENERATED_RULES)
        answered = engine.prepare(text).errors
        assert [e.message for e in answered] == [e.message for e in whole], case
    # A subscription is refused when run (the schema has none), as the rules leave it.
    valid = {"literal that fits", "default value", "directive", "same key twice", "subscription"}
    valid |= {"id left out", "nullable id", "a UUID for an ID"}
    assert {case for case, text in variations.items() if not engine.prepare(text).errors} == valid


def test_a_fragment_naming_a_variable_is_validated_whole_every_time(superuser, sample):
    """Whether a variable fits depends on the operation declaring it."""
    query = "query ($n: Int) { devices(limit: 2) { ...D } }\nfragment D on DeviceType { id interfaces(limit: $n) { id } }"
    context = RequestContext(user=superuser, base_url="http://testserver/api/")
    assert not engine.run(query, {"n": 1}, context).errors
    bad = query.replace("($n: Int)", "($n: String)")
    errors = engine.run(bad, {"n": "1"}, context).errors
    assert errors and "used in position expecting type" in errors[0].message


def test_a_known_fragment_spreading_a_new_one_is_validated_whole(superuser, sample):
    context = RequestContext(user=superuser, base_url="http://testserver/api/")
    good = "query { devices(limit: 1) { ...A } }\nfragment A on DeviceType { id ...B }\nfragment B on DeviceType { name }"
    assert not engine.run(good, None, context).errors
    bad = good.replace("{ name }", "{ no_such_field }")
    errors = engine.run(bad, None, context).errors
    assert errors and "Cannot query field 'no_such_field' on type 'DeviceType'." in errors[0].message
    # A known fragment spread where its type cannot be is still refused.
    misplaced = good.replace("devices(limit: 1)", "locations(limit: 1)")
    errors = engine.run(misplaced, None, context).errors
    assert errors and "can never be of type 'DeviceType'" in errors[0].message


def test_known_fragments_still_count_towards_the_depth_limit(superuser, sample):
    context = RequestContext(user=superuser, base_url="http://testserver/api/")
    chain = "\n".join(f"fragment L{n} on LocationType {{ parent {{ ...L{n + 1} }} }}" for n in range(10))
    chain += "\nfragment L10 on LocationType { id }"
    shallow = f"query {{ locations(limit: 1) {{ ...L0 }} }}\n{chain}"
    assert not engine.run(shallow, None, context).errors
    nesting = "parent { " * 5
    deep = f"query {{ locations(limit: 1) {{ {nesting}...L0{' }' * 5} }} }}\n{chain}"
    errors = engine.run(deep, None, context).errors
    assert errors and errors[0].message.startswith("Query is nested deeper than")


def test_documents_not_laid_out_one_definition_per_line_parse_whole(superuser, sample):
    context = RequestContext(user=superuser, base_url="http://testserver/api/")
    lines = "query {\n  devices(limit: 1) {\n    ...D\n  }\n}\nfragment D on DeviceType {\n  id\n}"
    result = engine.run(lines, None, context)
    assert result.errors is None and len(result.data["devices"]) == 1
    # A fragment's line that is not a whole definition is parsed with the rest.
    broken = "query { devices(limit: 1) { ...D } }\nfragment D on DeviceType { id"
    errors = engine.run(broken, None, context).errors
    assert errors and errors[0].message.startswith("Syntax Error")


def test_shared_plans_go_with_the_last_document_holding_them(sample):
    resource = resource_for(Device)
    engine.prepare.clear()
    gc.collect()
    plans = [p.plan for p in (prepared_list(resource, 3, ("name",)), prepared_list(resource, 3, ("status",)))]
    assert plans[0].roots[1].objects is plans[1].roots[1].objects
    held = weakref.ref(plans[0].roots[1].objects)
    del plans
    engine.prepare.clear()
    gc.collect()
    assert held() is None


def test_documents_of_other_shapes_share_their_nested_objects_plans(sample):
    resource = resource_for(Device)
    many = frozenset(many_to_many_fields(resource))
    shapes = [engine.prepare(list_document(resource, 2, m, ())).plan for m in (many, frozenset())]
    assert shapes[0].roots[1].objects is not shapes[1].roots[1].objects  # their own top-level fields
    nested = [{id(plan) for plan, *_ in shape.roots[1].objects.loads.values()} for shape in shapes]
    assert nested[0] and nested[0] == nested[1]


def test_a_created_tokens_plan_is_not_the_lists(sample):
    """A create shows the new token's key once; a list of the same fields never does."""
    api = Api(sample[Token][0].key)
    made = api.post(TOKENS, {"description": "one"})
    assert made.status_code == 201 and KEY.fullmatch(orjson.loads(made.content)["key"])
    listed = api.json(TOKENS, {"limit": 100})["results"]
    assert listed and all(row["key"] is None for row in listed)
