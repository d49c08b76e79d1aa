/**
 * What a browser gets: GraphiQL (bundled, no CDN) opening with the example operation and the
 * header that makes the answer say what it cost upstream; and `GET /` sending the browser there.
 * (The page, 9 MB of HTML and scripts, is compressed by content-encoding.ts.) Its sidebar has the
 * upstream-cost panel (graphiql-cost-panel.ts).
 */
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { EXAMPLE_OPERATION } from './example-operation.js';
import { COST_PANEL_SCRIPT } from './graphiql-cost-panel.js';
import { LIVE_PATCH_HEADER } from '../live/live-query.js';

/**
 * The headers GraphiQL sends with every operation: the answer then carries `extensions.upstream`,
 * and a live query's payloads carry the full result (GraphiQL shows payloads, it applies no patches).
 */
export const GRAPHIQL_HEADERS: Readonly<Record<string, string>> = { 'x-upstream-stats': '1', [LIVE_PATCH_HEADER]: 'none' };

export function graphiqlOptions(): GraphiQLOptions {
  const headers = JSON.stringify(GRAPHIQL_HEADERS, null, 2);
  return {
    title: 'Inventory GraphQL gateway',
    defaultQuery: EXAMPLE_OPERATION,
    // `headers` fills the first tab's header editor, `defaultHeaders` every new tab's.
    headers,
    defaultHeaders: headers,
    // Open the header editor, so that what is sent is in view.
    defaultEditorToolsVisibility: 'headers',
    // The stock favicon is a 151 kB data URI in every page; this one is a few bytes.
    favicon: FAVICON,
  };
}

const FAVICON = "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><circle cx='8' cy='8' r='7' fill='%23e10098'/></svg>";

/** Where the bundle hands GraphiQL its own plugins (the explorer), and the call that renders the page. */
const BUNDLE_PLUGINS = 'plugins:[r],';
const RENDER_CALL = 'YogaGraphiQL.renderYogaGraphiQL(';

let rendered: { key: string; html: string } | null = null;

/**
 * The bundled GraphiQL page with the cost panel (graphiql-cost-panel.ts) in its sidebar. The
 * bundle's YogaGraphiQL gives GraphiQL a fixed plugin list; the panel is appended to it at that one
 * place (test/e2e/graphiql-cost-panel.test.ts fails when an upgrade moves it), and its props
 * (onEdit* callbacks, the plugin) are added where the page renders. The page is made once per options.
 */
export function renderInventoryGraphiQL(options: GraphiQLOptions): string {
  const key = JSON.stringify(options);
  if (rendered?.key === key) return rendered.html;
  const stock = renderGraphiQL(options);
  const html = stock.split(BUNDLE_PLUGINS).length === 2 && stock.split(RENDER_CALL).length === 2
    ? stock
      .replace(BUNDLE_PLUGINS, () => 'plugins:[r].concat(n.inventoryPlugins||[]),')
      .replace(RENDER_CALL, () => `${COST_PANEL_SCRIPT}\nYogaGraphiQL.renderYogaGraphiQL = (function (render) { return function (root, o) { return render(root, window.inventoryCostPanel(o)); }; })(YogaGraphiQL.renderYogaGraphiQL);\n${RENDER_CALL}`)
    : stock; // a bundle laid out otherwise: GraphiQL without the panel
  rendered = { key, html };
  return html;
}

/**
 * `GET /` (and HEAD) answers 302 to the GraphiQL endpoint, keeping the query string. 302, not
 * 308: browsers keep a permanent redirect, and GraphiQL can be switched off (GRAPHIQL=false).
 */
export function landingRedirectPlugin(endpoint: string): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== '/' || (request.method !== 'GET' && request.method !== 'HEAD')) return;
      endResponse(new fetchAPI.Response(null, { status: 302, headers: { location: `${endpoint}${url.search}` } }));
    },
  };
}
