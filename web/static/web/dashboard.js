// The dashboard: every figure comes from the public GraphQL API (POST /api/graphql/), sent with
// this browser's session and its CSRF token, exactly as a separately built frontend would.
"use strict";

// [label, count field, content type or null when the model has no status, the list's page]
const MODELS = [
  ["Locations", "locations_count", "dcim.location", "/dcim/locations/"],
  ["Racks", "racks_count", "dcim.rack", "/dcim/racks/"],
  ["Devices", "devices_count", "dcim.device", "/dcim/devices/"],
  ["Interfaces", "interfaces_count", "dcim.interface", "/dcim/interfaces/"],
  ["Cables", "cables_count", "dcim.cable", "/dcim/cables/"],
  ["Prefixes", "prefixes_count", "ipam.prefix", "/ipam/prefixes/"],
  ["IP addresses", "ip_addresses_count", "ipam.ipaddress", "/ipam/ip-addresses/"],
  ["VLANs", "vlans_count", "ipam.vlan", "/ipam/vlans/"],
  ["VRFs", "vrfs_count", null, "/ipam/vrfs/"],
  ["Circuits", "circuits_count", "circuits.circuit", "/circuits/circuits/"],
  ["Virtual machines", "virtual_machines_count", "virtualization.virtualmachine", "/virtualization/virtual-machines/"],
  ["Tenants", "tenants_count", null, "/tenancy/tenants/"],
];
const ROOT_FIELDS_PER_QUERY = 40; // the server takes at most 50 root fields per document
const LOCATIONS_SHOWN = 15;
const PREFIXES_SHOWN = 30;
const CHANGES_SHOWN = 15;

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]*)/);
  return match ? decodeURIComponent(match[1]) : "";
}

// Choices and content types are read in REST's form (`<name>__rest`: {value, label}, "dcim.device"),
// beside the reference's enums and objects the plain names answer.
async function graphql(query, variables = {}) {
  const response = await fetch("/api/graphql/", {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json();
  if (!body.data) {
    throw new Error((body.errors && body.errors[0].message) || body.detail || `HTTP ${response.status}`);
  }
  return body.data;
}

// Many counts at once: aliased root fields, split into documents the server accepts.
async function counts(fields) {
  const result = {};
  for (let start = 0; start < fields.length; start += ROOT_FIELDS_PER_QUERY) {
    const chunk = fields.slice(start, start + ROOT_FIELDS_PER_QUERY);
    const declarations = [];
    const selections = chunk.map((item, i) => {
      const args = Object.keys(item.args || {}).map((name) => {
        declarations.push(`$v${i}_${name}: [String]`);
        return `${name}: $v${i}_${name}`;
      });
      return `c${i}: ${item.field}${args.length ? `(${args.join(", ")})` : ""}`;
    });
    const variables = {};
    chunk.forEach((item, i) => {
      for (const [name, value] of Object.entries(item.args || {})) variables[`v${i}_${name}`] = value;
    });
    const head = declarations.length ? `query (${declarations.join(", ")})` : "query";
    const data = await graphql(`${head} { ${selections.join(" ")} }`, variables);
    chunk.forEach((item, i) => (result[item.key] = data[`c${i}`]));
  }
  return result;
}

// An object's page in this service for its API URL: /api/dcim/devices/<id>/ -> /dcim/devices/<id>/.
function pageOf(apiUrl) {
  const path = new URL(apiUrl, window.location.href).pathname;
  return path.startsWith("/api/") ? path.slice(4) : path;
}

// Labels of object types (`ipam.prefix` -> "Prefix"), given by the page from the model registry.
let TYPE_LABELS = {};

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    // Styles through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    if (name === "style") node.style.cssText = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function fill(id, ...children) {
  const target = document.getElementById(id);
  target.replaceChildren(...children);
  target.removeAttribute("aria-busy");
}

function bar(fractions) {
  const track = element("div", { class: "bar" });
  fractions.forEach(([fraction, kind]) => {
    const width = Math.max(0, Math.min(1, fraction)) * 100;
    track.append(element("span", { class: kind || "", style: `width: ${width.toFixed(2)}%` }));
  });
  return track;
}

async function showCounts() {
  const totals = await counts(MODELS.map(([label, field]) => ({ key: label, field })));
  fill(
    "counts",
    ...MODELS.map(([label, field, , page]) =>
      element(
        "a",
        { class: "tile", "data-count": field, href: page },
        element("div", { class: "value" }, String(totals[label] ?? "—")),
        element("div", { class: "label" }, label),
      ),
    ),
  );
}

async function showStatuses() {
  const { statuses } = await graphql("{ statuses(limit: 1000) { name color content_types: content_types__rest } }");
  const wanted = [];
  for (const [label, field, contentType] of MODELS) {
    if (!contentType) continue;
    for (const status of statuses.filter((s) => s.content_types.includes(contentType))) {
      wanted.push({ key: `${label}\u0000${status.name}`, field, args: { status: [status.name] } });
    }
  }
  const found = await counts(wanted);
  const rows = [];
  for (const [label, , contentType] of MODELS) {
    if (!contentType) continue;
    const chips = statuses
      .filter((s) => s.content_types.includes(contentType) && found[`${label}\u0000${s.name}`] > 0)
      .map((s) =>
        element(
          "span",
          { class: "chip" },
          element("span", { class: "dot", style: `background: #${s.color || "999"}` }),
          `${s.name}: ${found[`${label}\u0000${s.name}`]}`,
        ),
      );
    if (chips.length) rows.push(element("div", { class: "status-row" }, element("strong", {}, label), element("div", { class: "chips" }, ...chips)));
  }
  fill("statuses", ...(rows.length ? rows : [element("p", { class: "hint" }, "Nothing with a status yet.")]));
}

async function showLocations() {
  const { locations } = await graphql("{ locations(limit: 1000) { name device_count prefix_count } }");
  const top = locations
    .filter((l) => l.device_count || l.prefix_count)
    .sort((a, b) => b.device_count - a.device_count || b.prefix_count - a.prefix_count)
    .slice(0, LOCATIONS_SHOWN);
  const most = Math.max(1, ...top.map((l) => Math.max(l.device_count, l.prefix_count)));
  const grid = element("div", { class: "bars" });
  for (const location of top) {
    grid.append(
      element("span", {}, location.name),
      element("div", {}, bar([[location.device_count / most]]), bar([[location.prefix_count / most, "second"]])),
      element("span", {}, `${location.device_count} devices, ${location.prefix_count} prefixes`),
    );
  }
  const legend = element("p", { class: "legend hint" }, element("span", { style: "background: var(--accent)" }), "devices", element("span", { style: "background: #8bb4f7" }), "prefixes");
  fill("locations", ...(top.length ? [legend, grid] : [element("p", { class: "hint" }, "No devices or prefixes at any location yet.")]));
}

// Addresses as BigInt, so that IPv6 prefixes size and compare exactly.
function addressValue(text, version) {
  if (version === 4) return text.split(".").reduce((value, part) => (value << 8n) + BigInt(part), 0n);
  let [head, tail] = text.includes("::") ? text.split("::") : [text, null];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === null ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.reduce((value, group) => (value << 16n) + BigInt(parseInt(group || "0", 16)), 0n);
}

function coveredByChildren(parent, prefixes) {
  // Child prefixes (of the same family, inside the parent) merged so nested ones count once.
  const ranges = prefixes
    .filter((p) => p !== parent && p.ip_version === parent.ip_version && p.prefix_length > parent.prefix_length)
    .map((p) => [p.start, p.end])
    .filter(([start, end]) => start >= parent.start && end <= parent.end)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let covered = 0n;
  let reach = -1n;
  for (const [start, end] of ranges) {
    if (end <= reach) continue;
    covered += end - (start > reach ? start : reach + 1n) + 1n;
    reach = end;
  }
  return covered;
}

async function showUtilisation() {
  const { prefixes } = await graphql(
    "{ prefixes(limit: 1000) { prefix network broadcast ip_version prefix_length type: type__rest } }",
  );
  for (const p of prefixes) {
    p.start = addressValue(p.network, p.ip_version);
    p.end = addressValue(p.broadcast, p.ip_version);
    p.size = p.end - p.start + 1n;
  }
  const shown = prefixes.slice(0, PREFIXES_SHOWN);
  const networks = shown.filter((p) => (p.type && p.type.value) !== "container");
  const addressCounts = await counts(networks.map((p) => ({ key: p.prefix, field: "ip_addresses_count", args: { parent: [p.prefix] } })));
  const grid = element("div", { class: "bars" });
  for (const p of shown) {
    const container = (p.type && p.type.value) === "container";
    const used = container ? coveredByChildren(p, prefixes) : BigInt(addressCounts[p.prefix] || 0);
    const fraction = Number((used * 100000n) / p.size) / 100000;
    const kind = fraction >= 0.9 ? "full" : fraction >= 0.7 ? "high" : "";
    const what = container ? "covered by child prefixes" : `of ${p.size} addresses`;
    const percent = fraction > 0 && fraction < 0.001 ? "<0.1" : (fraction * 100).toFixed(1);
    grid.append(
      element("span", { title: p.type ? p.type.label : "" }, p.prefix),
      bar([[fraction, kind]]),
      element("span", { title: container ? `${used} addresses ${what}` : `${used} ${what}` }, `${percent}%`),
    );
  }
  fill("utilisation", ...(shown.length ? [grid] : [element("p", { class: "hint" }, "No prefixes yet.")]));
}

async function showChanges() {
  const { object_changes: changes } = await graphql(
    `{ object_changes(limit: ${CHANGES_SHOWN}) { time user_name action: action__rest object_repr changed_object_type: changed_object_type__rest changed_object { url } } }`,
  );
  const rows = changes.map((change) => {
    const name = change.changed_object
      ? element("a", { href: pageOf(change.changed_object.url) }, change.object_repr)
      : change.object_repr; // deleted since
    return element(
      "tr",
      {},
      element("td", {}, new Date(change.time).toLocaleString()),
      element("td", {}, change.user_name || "—"),
      element("td", {}, change.action.label),
      element("td", { title: change.changed_object_type }, TYPE_LABELS[change.changed_object_type] || change.changed_object_type),
      element("td", {}, name),
    );
  });
  const table = element("table", { class: "changes" }, ...rows);
  fill("changes", ...(rows.length ? [table] : [element("p", { class: "hint" }, "No changes yet.")]));
}

function failed(error) {
  const box = document.getElementById("dashboard-error");
  box.textContent = `Could not load the dashboard: ${error.message}`;
  box.hidden = false;
}

document.addEventListener("DOMContentLoaded", () => {
  const labels = document.getElementById("type-labels");
  if (labels) TYPE_LABELS = JSON.parse(labels.dataset.labels);
  for (const part of [showCounts, showStatuses, showLocations, showUtilisation, showChanges]) part().catch(failed);
});
