/**
 * The "Upstream cost" panel of the bundled GraphiQL (a sidebar plugin): as the query is typed
 * (debounced), it asks the gateway to explain it (x-explain: 1, src/server/limits/explain.ts) and shows
 * calls per category against what the tenant has left of its minute, the fields that drive them,
 * and a mark when the query would be answered from the cache alone or refused; after a run, what
 * it actually cost (the answer's extensions.upstream, from x-upstream-stats) beside the estimate.
 *
 * Plain JavaScript on the React the GraphiQL bundle puts on globalThis (no JSX, no build step, no
 * CDN): a few kB in a page of 9 MB. It sees the editors through GraphiQL's onEdit* props and a
 * run's answer through the page's fetch, which GraphiQL's fetcher calls for every request.
 */
export const COST_PANEL_TITLE = 'Upstream cost';

export const COST_PANEL_SCRIPT = String.raw`
window.inventoryCostPanel = function (opts) {
  var React = globalThis.React, h = React.createElement;
  var endpoint = opts.endpoint || location.pathname;
  var state = { query: opts.defaultQuery || '', headers: opts.headers || '{}', variables: '', plan: null, problem: null, actual: null, ran: null };
  var listeners = new Set();
  function set(patch) { Object.assign(state, patch); listeners.forEach(function (f) { f(); }); }
  var pageFetch = globalThis.fetch.bind(globalThis);
  function json(text, fallback) { try { return text && text.trim() ? JSON.parse(text) : fallback; } catch (e) { return null; } }
  var timer = null, asked = 0;
  function schedule() { clearTimeout(timer); timer = setTimeout(explain, 350); }
  function explain() {
    var mine = ++asked, headers = json(state.headers, {}), variables = json(state.variables, {});
    if (headers === null || variables === null) return set({ problem: 'The headers or variables are not JSON yet.' });
    var sent = Object.assign({}, headers, { 'content-type': 'application/json', accept: 'application/json', 'x-explain': '1' });
    delete sent['x-upstream-stats'];
    pageFetch(endpoint, { method: 'POST', headers: sent, body: JSON.stringify({ query: state.query, variables: variables }) })
      .then(function (r) { return r.json(); })
      .then(function (body) {
        if (mine !== asked) return;
        var plan = body && body.extensions && body.extensions.explain;
        set(plan ? { plan: plan, problem: null } : { problem: (body.errors && body.errors[0] && body.errors[0].message) || 'No plan.' });
      })
      .catch(function (e) { if (mine === asked) set({ problem: String(e) }); });
  }
  // A run's answer: GraphiQL's fetcher calls the page's fetch; answers that say what they cost are kept.
  globalThis.fetch = function (input, init) {
    var started = performance.now();
    return pageFetch(input, init).then(function (response) {
      var sent = new Headers(init && init.headers), type = response.headers.get('content-type') || '';
      if (sent.get('x-upstream-stats') === '1' && type.indexOf('json') >= 0) {
        response.clone().json().then(function (body) {
          var upstream = body && body.extensions && body.extensions.upstream;
          if (!upstream || (body.data && body.data.__schema)) return;
          set({ actual: upstream, ran: { ms: Math.round(performance.now() - started), plan: state.plan } });
          schedule(); // what the tenant has left now
        }).catch(function () {});
      }
      return response;
    });
  };
  function useState() {
    var tick = React.useState(0)[1];
    React.useEffect(function () { var f = function () { tick(function (n) { return n + 1; }); }; listeners.add(f); return function () { listeners.delete(f); }; }, []);
    return state;
  }
  var MARK = { full: ['✓ answered in full', 'success'], 'cache-only': ['⚠ from the cache alone, else refused', 'warning'], refused: ['✕ refused', 'error'] };
  var color = function (name) { return 'hsl(var(--color-' + name + '))'; };
  var box = { padding: '6px 0', borderBottom: '1px solid hsla(var(--color-neutral), 0.15)' };
  function bar(c) {
    var limit = c.limit || c.calls || 1, used = c.remaining === null ? 0 : limit - c.remaining;
    var part = function (n, bg) { return h('div', { style: { width: Math.min(100, (100 * n) / limit) + '%', background: bg } }); };
    return h('div', { style: { display: 'flex', height: 8, borderRadius: 4, overflow: 'hidden', background: 'hsla(var(--color-neutral), 0.15)', margin: '3px 0' } },
      part(used, 'hsla(var(--color-neutral), 0.45)'), part(c.calls, c.fits === false ? color('error') : color('success')));
  }
  function category(name, c) {
    var left = c.remaining === null ? '' : c.remaining + ' of ' + c.limit + ' left' + (c.resetAt ? ' until ' + c.resetAt.slice(11, 19) + 'Z' : '');
    return h('div', { key: name, 'data-category': name, style: { margin: '4px 0' } },
      h('div', null, h('b', null, name + ': ' + c.calls + (c.calls === 1 ? ' call' : ' calls')), c.conditional ? ' (' + c.conditional + ' only for records lacking a field)' : '', left ? ' · ' + left : ''),
      bar(c));
  }
  function actual(a, ran) {
    var est = (ran.plan && ran.plan.tenants.reduce(function (out, t) { Object.keys(t.byCategory).forEach(function (k) { out[k] = (out[k] || 0) + t.byCategory[k].calls; }); return out; }, {})) || a.estimatedCallsByCategory || {};
    var rows = Object.keys(a.callsByCategory || {}).filter(function (k) { return a.callsByCategory[k] || est[k]; }).map(function (k) {
      return h('tr', { key: k, 'data-actual': k }, h('td', null, k), h('td', null, String(est[k] || 0)), h('td', null, String(a.callsByCategory[k])));
    });
    return h('div', { 'data-testid': 'cost-actual', style: box },
      h('div', null, h('b', null, 'Last run: ' + a.totalCalls + ' calls'), ' (estimated ' + a.estimatedCalls + ')'),
      h('table', { style: { borderSpacing: '12px 2px', marginLeft: -12 } }, h('thead', null, h('tr', null, h('th', null, ''), h('th', null, 'estimated'), h('th', null, 'actual'))), h('tbody', null, rows)),
      h('div', null, 'cache hits ' + a.cacheHits + ' · coalesced ' + a.coalesced + ' · stale parts ' + a.staleReads + ' · retries ' + a.retries + ' · ' + ran.ms + ' ms'));
  }
  function Panel() {
    var s = useState(), p = s.plan, mark = p && MARK[p.verdict];
    return h('div', { 'data-testid': 'cost-panel', style: { fontSize: 14, lineHeight: 1.4 } },
      h('div', { className: 'graphiql-doc-explorer-title' }, ${JSON.stringify(COST_PANEL_TITLE)}),
      s.problem ? h('div', { style: { color: color('error') } }, s.problem) : null,
      p ? h('div', { style: box },
        h('div', { 'data-testid': 'cost-verdict', 'data-verdict': p.verdict, style: { color: color(mark[1]), fontWeight: 600 } }, mark[0] + ' · ' + p.calls + ' upstream calls'),
        p.verdict === 'full' ? null : h('div', null, p.reason)) : h('div', null, 'Type a query: its cost appears here.'),
      p ? p.tenants.map(function (t) {
        return h('div', { key: String(t.tenant), style: box }, h('div', null, 'Tenant ' + (t.tenant === null ? '(known at run time)' : t.tenant)),
          Object.keys(t.byCategory).map(function (k) { return category(k, t.byCategory[k]); }));
      }) : null,
      p && p.drivers.length ? h('div', { style: box }, h('b', null, 'Driven by'), h('ol', { 'data-testid': 'cost-drivers', style: { paddingLeft: 18, margin: '4px 0' } },
        p.drivers.slice(0, 5).map(function (d, i) { return h('li', { key: i }, h('code', null, d.path), ': ' + d.calls + ' ' + d.category + ' · ' + d.why); }))) : null,
      s.actual ? actual(s.actual, s.ran) : null);
  }
  function Icon() { return h('span', { 'aria-hidden': true, style: { fontWeight: 700, fontSize: 16 } }, '¢'); }
  schedule();
  return Object.assign({}, opts, {
    // In place of YogaGraphiQL's own (these props come after it): the query stays in the address too.
    onEditQuery: function (q) { var u = new URL(location.href); u.searchParams.set('query', q); history.replaceState({}, '', u); set({ query: q }); schedule(); },
    onEditHeaders: function (v) { set({ headers: v }); schedule(); },
    onEditVariables: function (v) { set({ variables: v }); schedule(); },
    inventoryPlugins: [{ title: ${JSON.stringify(COST_PANEL_TITLE)}, icon: Icon, content: Panel }],
  });
};
`;
