// Starts Swagger UI on the OpenAPI document the page names (data-schema-url) for its API version
// (data-version). A file of its own, not inline: the pages' Content-Security-Policy runs no
// inline script.
(() => {
  const element = document.getElementById("swagger-ui");
  const version = element.dataset.version;
  window.ui = SwaggerUIBundle({
    url: element.dataset.schemaUrl,
    dom_id: "#swagger-ui",
    deepLinking: true,
    persistAuthorization: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset.slice(1)],
    layout: "BaseLayout",
    requestInterceptor: (request) => {
      request.headers["Accept"] = `application/json; version=${version}`;
      // A signed-in browser's session needs the CSRF token on writes; token clients ignore it.
      const csrf = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]*)/);
      if (csrf) request.headers["X-CSRFToken"] = decodeURIComponent(csrf[1]);
      return request;
    },
  });
})();
