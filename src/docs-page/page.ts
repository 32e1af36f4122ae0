/** Escapes text for an HTML attribute or element. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The docs page: Swagger UI's stylesheet and bundle, and our start-up script, all from the app
 * itself under `prefix`. No inline script, so a strict Content-Security-Policy can allow it.
 */
export function docsHtml(prefix: string, title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${prefix}/swagger-ui.css">
<link rel="icon" type="image/png" href="${prefix}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${prefix}/swagger-ui-bundle.js"></script>
<script src="${prefix}/docs-init.js"></script>
</body>
</html>
`;
}

/** The script that starts Swagger UI on the app's own OpenAPI document. */
export function docsInitScript(documentUrl: string): string {
  return `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(documentUrl)},
  dom_id: "#swagger-ui",
  deepLinking: true,
  displayRequestDuration: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
`;
}
