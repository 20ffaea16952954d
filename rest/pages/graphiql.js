// Starts GraphiQL on this page's own URL. Signed in (data-signed-in): the session cookie
// authenticates and the CSRF token goes with each POST. Otherwise: an API token, asked for once
// and kept in this browser. A file of its own, not inline: the pages' Content-Security-Policy
// runs no inline script.
(() => {
  const element = document.getElementById("graphiql");
  const headers = { Accept: "application/json" };
  if (element.dataset.signedIn === "true") {
    const csrf = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]*)/);
    headers["X-CSRFToken"] = csrf ? decodeURIComponent(csrf[1]) : "";
  } else {
    const token = window.localStorage.getItem("netinventory-token") || window.prompt("API token");
    if (token) window.localStorage.setItem("netinventory-token", token);
    headers["Authorization"] = "Token " + token;
  }
  const fetcher = GraphiQL.createFetcher({ url: window.location.pathname, headers });
  // A first query to run (Ctrl-Enter): a device's relations walked as far as they go.
  const defaultQuery = [
    "# NetInventory GraphQL: every model, its relations and its custom fields (cf_<key>).",
    "# Lists take the REST API's filters as arguments, nested lists too. Ctrl-Enter runs it.",
    "{",
    "  devices(limit: 5) {",
    "    name",
    "    location { name }",
    '    interfaces(name__isw: "Ethernet") {',
    "      name",
    "      ip_addresses { address }",
    "    }",
    "  }",
    "}",
    "",
  ].join("\n");
  const logo = React.createElement(GraphiQL.Logo, null, "NetInventory GraphQL");
  ReactDOM.createRoot(element).render(React.createElement(GraphiQL, { fetcher, defaultQuery }, logo));
})();
