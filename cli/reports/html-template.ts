/**
 * The Handlebars template of the HTML report (cli/reports/html.ts fills it). Kept as a string so
 * the report needs no file besides the inlined assets (cli/reports/assets.ts). `{{…}}` escapes;
 * the only triple-stash values are the inlined uPlot assets and the chart data, which html.ts
 * makes safe for a `<script>`/`<style>` element.
 *
 * The page makes no request: a Content-Security-Policy of `default-src 'none'` (inline script and
 * style only) guarantees it, whatever the results hold.
 */

/** One node of a flow (recursive: children, rows of loops and iterations). */
export const NODE_PARTIAL = `
<div class="node st-{{status}}">
  <div class="node-head">
    <span class="mark">{{mark}}</span>
    <span class="type">{{type}}</span>
    <span class="title">{{title}}</span>
    {{#if flaky}}<span class="tag flaky" data-flaky-node title="{{flaky}}">flaky</span>{{/if}}
    {{#if request}}<span class="req"><b>{{request.method}}</b> {{request.url}}{{#if response}} → <b class="code">{{response.status}}</b>{{/if}}</span>{{/if}}
    <span class="dur">{{duration}}</span>
  </div>
  {{#if facts.length}}<div class="facts">{{#each facts}}<span>{{this}}</span>{{/each}}</div>{{/if}}
  {{#if errorCode}}<div class="error-code">errorCode <code data-error-code>{{errorCode}}</code></div>{{/if}}
  {{#if error}}<pre class="err">{{error}}</pre>{{/if}}
  {{#if assertions.length}}
  <table class="assertions">
    <thead><tr><th></th><th>assertion</th><th>operator</th><th>expected</th><th>actual</th><th>message</th></tr></thead>
    <tbody>
    {{#each assertions}}
      <tr class="{{#if passed}}ok{{else}}ko{{/if}}"><td>{{#if passed}}✔{{else}}✘{{/if}}</td><td><code>{{label}}</code></td><td>{{operator}}</td><td><code>{{expected}}</code></td><td><code>{{actual}}</code></td><td>{{message}}</td></tr>
    {{/each}}
    </tbody>
  </table>
  {{/if}}
  {{#if logs.length}}<pre class="logs">{{#each logs}}<span class="lv-{{level}}">[{{level}}] {{message}}</span>
{{/each}}</pre>{{/if}}
  {{#if children.length}}<div class="children">{{#each children}}{{> node}}{{/each}}</div>{{/if}}
  {{#if rows.length}}
  <div class="rows">
    {{#each rows}}
    <details class="row st-{{status}}"{{#if open}} open{{/if}}>
      <summary><span class="mark">{{mark}}</span> {{label}}</summary>
      {{#each nodes}}{{> node}}{{/each}}
    </details>
    {{/each}}
  </div>
  {{/if}}
  {{#if omitted}}<p class="note">{{omitted}}</p>{{/if}}
</div>`;

/** The page. */
export const PAGE_TEMPLATE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="assay">
<title>{{title}}</title>
{{#if uplotCss}}<style>{{{uplotCss}}}</style>{{/if}}
<style>
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1d2330; --muted: #5d6778; --line: #dde2ea; --panel: #f6f8fb;
  --ok: #1a7f37; --ko: #c62828; --skip: #9a6700; --okbg: #e6f4ea; --kobg: #fdecea; --skipbg: #fff4d6; --grid: #e6e9ef; --code: #eef1f6; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #14171c; --fg: #e4e8ef; --muted: #9aa4b5; --line: #2c323c; --panel: #1b1f26; --ok: #4cc26a; --ko: #ff6b6b;
    --skip: #e3b341; --okbg: #16301f; --kobg: #3a1d1d; --skipbg: #33290f; --grid: #2a2f38; --code: #232833; }
}
* { box-sizing: border-box; }
body { margin: 0; padding: 24px; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 1200px; margin: 0 auto; }
h1 { font-size: 22px; margin: 0 0 4px; display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
h2 { font-size: 17px; margin: 28px 0 10px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
code, pre { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { background: var(--code); padding: 0 3px; border-radius: 3px; word-break: break-all; }
pre { margin: 6px 0; padding: 8px 10px; background: var(--code); border-radius: 6px; white-space: pre-wrap; word-break: break-word; }
a { color: inherit; }
.badge { font-size: 13px; font-weight: 700; letter-spacing: .04em; padding: 3px 10px; border-radius: 999px; }
.badge.passed { background: var(--okbg); color: var(--ok); }
.badge.failed, .badge.error { background: var(--kobg); color: var(--ko); }
.badge.queued, .badge.running { background: var(--skipbg); color: var(--skip); }
.meta { color: var(--muted); display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 6px 0 0; padding: 0; list-style: none; }
.meta b { color: var(--fg); font-weight: 600; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 10px; margin: 16px 0; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.card .v { font-size: 20px; font-weight: 700; }
.card .k { color: var(--muted); font-size: 12px; }
.card.ko .v { color: var(--ko); } .card.ok .v { color: var(--ok); } .card.skip .v { color: var(--skip); }
.run-error { background: var(--kobg); color: var(--ko); border-radius: 8px; padding: 10px 12px; font-weight: 600; }
details.tc { border: 1px solid var(--line); border-radius: 8px; margin: 8px 0; background: var(--bg); }
details.tc > summary { padding: 9px 12px; cursor: pointer; display: flex; gap: 10px; align-items: baseline; list-style: none; }
details.tc > summary::-webkit-details-marker { display: none; }
details.tc > summary::before { content: "▸"; color: var(--muted); }
details.tc[open] > summary::before { content: "▾"; }
details.tc > .body { padding: 0 14px 12px; border-top: 1px solid var(--line); }
.tc-name { font-weight: 600; flex: 1; }
.tc-facts { color: var(--muted); font-size: 12.5px; white-space: nowrap; }
.st-passed > summary .mark, .st-passed > .node-head .mark, tr.ok td:first-child { color: var(--ok); }
.st-failed > summary .mark, .st-failed > .node-head .mark, tr.ko td:first-child { color: var(--ko); }
.st-skipped > summary .mark, .st-skipped > .node-head .mark { color: var(--skip); }
details.tc.st-failed { border-color: var(--ko); }
details.tc.quarantined { border-color: var(--skip); border-style: dashed; }
.tag { font-size: 11px; font-weight: 700; text-transform: uppercase; letter-spacing: .05em; padding: 1px 7px; border-radius: 999px; white-space: nowrap; }
.tag.flaky { background: var(--skipbg); color: var(--skip); }
.tag.quarantined { background: var(--code); color: var(--muted); border: 1px dashed var(--skip); }
.flaky-note { border-left: 3px solid var(--skip); padding: 4px 10px; margin: 8px 0; background: var(--panel); border-radius: 0 6px 6px 0; }
.failure { border-left: 3px solid var(--ko); padding: 6px 10px; margin: 8px 0; background: var(--panel); border-radius: 0 6px 6px 0; }
.failure .where { color: var(--muted); font-size: 12.5px; }
.failure .what { font-weight: 600; margin: 2px 0; }
.diff { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; }
.diff .col > span { font-size: 11.5px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.diff .exp pre { border-left: 3px solid var(--ok); }
.diff .act pre { border-left: 3px solid var(--ko); }
.why { color: var(--muted); }
.node { border-left: 2px solid var(--line); padding: 4px 0 4px 10px; margin: 6px 0; }
.node.st-failed { border-left-color: var(--ko); }
.node-head { display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
.node-head .type { font-size: 11px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); border: 1px solid var(--line); border-radius: 4px; padding: 0 5px; }
.node-head .title { font-weight: 600; }
.node-head .req { word-break: break-all; }
.node-head .dur { color: var(--muted); margin-left: auto; }
.facts { color: var(--muted); font-size: 12.5px; display: flex; flex-wrap: wrap; gap: 2px 14px; }
.err { color: var(--ko); border-left: 3px solid var(--ko); }
.error-code { color: var(--muted); font-size: 12.5px; margin-top: 4px; } .error-code code { color: var(--ko); font-weight: 600; }
.logs .lv-warn { color: var(--skip); } .logs .lv-error { color: var(--ko); }
.children, .rows { margin-left: 6px; }
details.row { margin: 4px 0; }
details.row > summary { cursor: pointer; }
.note { color: var(--muted); font-style: italic; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; font-size: 13px; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.charts { display: grid; grid-template-columns: 1fr; gap: 14px; margin: 14px 0; }
.chart { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: 8px; }
.chart h3 { margin: 2px 4px 6px; }
.u-legend { color: var(--fg); }
footer { color: var(--muted); font-size: 12px; margin-top: 28px; }
@media print {
  body { padding: 0; font-size: 12px; }
  details.tc, .chart, .failure { break-inside: avoid; }
  details.tc > summary::before { content: ""; }
  details::details-content { content-visibility: visible; display: block; }
  .node-head .dur { margin-left: 0; }
}
</style>
</head>
<body>
<main>
<header>
  <h1>{{runner}} on {{environment}} <span class="badge {{outcome}}" data-outcome="{{outcome}}">{{outcomeLabel}}</span></h1>
  <ul class="meta">
    <li>run <b>{{runId}}</b></li>
    {{#if trigger}}<li>trigger <b>{{trigger}}</b></li>{{/if}}
    {{#if startedAt}}<li>started <b>{{startedAt}}</b></li>{{/if}}
    {{#if completedAt}}<li>ended <b>{{completedAt}}</b></li>{{/if}}
    {{#each links}}<li><a href="{{href}}">{{label}}</a></li>{{/each}}
  </ul>
</header>

<section class="cards" aria-label="summary">
  <div class="card ok"><div class="v">{{totals.passed}}</div><div class="k">passed</div></div>
  <div class="card {{#if totals.failed}}ko{{/if}}"><div class="v">{{totals.failed}}</div><div class="k">failed</div></div>
  <div class="card {{#if totals.skipped}}skip{{/if}}"><div class="v">{{totals.skipped}}</div><div class="k">skipped</div></div>
  <div class="card"><div class="v">{{totals.testCases}}</div><div class="k">test cases</div></div>
  {{#if flaky}}<div class="card skip" data-card="flaky"><div class="v">{{flaky}}</div><div class="k">flaky</div></div>{{/if}}
  {{#if quarantined}}<div class="card skip" data-card="quarantined"><div class="v">{{quarantined}}</div><div class="k">failed, quarantined</div></div>{{/if}}
  <div class="card {{#if failedAssertions}}ko{{/if}}"><div class="v">{{totals.passedAssertions}}/{{totals.assertions}}</div><div class="k">assertions passed</div></div>
  <div class="card"><div class="v">{{duration}}</div><div class="k">duration</div></div>
</section>

{{#if error}}<p class="run-error" role="alert">Run failed: {{error}}</p>{{/if}}

{{#if performance}}
<section aria-label="performance">
  <h2>Performance</h2>
  <div class="cards">
    {{#each performance.cards}}<div class="card {{cls}}"><div class="v">{{value}}</div><div class="k">{{label}}</div></div>{{/each}}
  </div>
  {{#if performance.thresholds.length}}
  <h3>Thresholds</h3>
  <table>
    <thead><tr><th></th><th>metric</th><th>threshold</th><th class="num">actual</th></tr></thead>
    <tbody>{{#each performance.thresholds}}<tr class="{{#if passed}}ok{{else}}ko{{/if}}"><td>{{#if passed}}✔{{else}}✘{{/if}}</td><td><code>{{metric}}</code></td><td><code>{{threshold}}</code></td><td class="num">{{actual}}</td></tr>{{/each}}</tbody>
  </table>
  {{/if}}
  {{#if performance.hasSeries}}
  <div class="charts">
    <div class="chart"><h3>Requests and errors per second</h3><div id="chart-throughput" class="plot"></div></div>
    <div class="chart"><h3>Latency p95 (ms)</h3><div id="chart-latency" class="plot"></div></div>
    <div class="chart"><h3>Virtual users</h3><div id="chart-vus" class="plot"></div></div>
  </div>
  {{/if}}
  {{#if performance.byName.length}}
  <h3>By request</h3>
  <table>
    <thead><tr><th>request</th><th class="num">requests</th><th class="num">failed</th><th class="num">avg</th><th class="num">p95</th><th class="num">p99</th><th class="num">max</th><th class="num">checks</th></tr></thead>
    <tbody>{{#each performance.byName}}<tr><td>{{name}}</td><td class="num">{{requests}}</td><td class="num">{{failed}}</td><td class="num">{{avg}}</td><td class="num">{{p95}}</td><td class="num">{{p99}}</td><td class="num">{{max}}</td><td class="num">{{checks}}</td></tr>{{/each}}</tbody>
  </table>
  {{/if}}
</section>
{{/if}}

<section aria-label="test cases">
  <h2>Test cases</h2>
  {{#unless testCases.length}}<p class="note">No test case ran.</p>{{/unless}}
  {{#each testCases}}
  <details class="tc st-{{status}}{{#if quarantined}} quarantined{{/if}}" data-status="{{status}}"{{#if flaky}} data-flaky="true"{{/if}}{{#if quarantined}} data-quarantined="true"{{/if}}{{#if open}} open{{/if}}>
    <summary><span class="mark">{{mark}}</span><span class="tc-name">{{name}}</span>{{#if flaky}}<span class="tag flaky" title="{{flaky}}">flaky</span>{{/if}}{{#if quarantined}}<span class="tag quarantined" title="it failed, but does not fail the run">quarantined</span>{{/if}}<span class="tc-facts">{{facts}}</span></summary>
    <div class="body">
      {{#if flaky}}<p class="flaky-note">Flaky: {{flaky}}.</p>{{/if}}
      {{#if quarantined}}<p class="flaky-note">Quarantined: it failed, but its runner quarantines flaky test cases, so it does not fail the run.</p>{{/if}}
      {{#if error}}<p class="note">{{error}}</p>{{/if}}
      {{#if problems.length}}
      <h3>Failures</h3>
      {{#each problems}}
      <div class="failure">
        {{#if unit}}<div class="where">{{unit}}</div>{{/if}}
        <div class="where">{{nodeLabel}}</div>
        {{#if isFailure}}
        <div class="what"><code>{{assertion}}</code> {{operator}}</div>
        <div class="diff">
          <div class="col exp"><span>expected</span><pre>{{expected}}</pre></div>
          <div class="col act"><span>actual</span><pre>{{actual}}</pre></div>
        </div>
        <div class="why">{{message}}</div>
        {{else}}
        {{#if errorCode}}<div class="error-code">errorCode <code data-error-code>{{errorCode}}</code></div>{{/if}}
        <pre class="err">{{message}}</pre>
        {{/if}}
      </div>
      {{/each}}
      {{/if}}
      {{#if nodes.length}}<h3>Nodes</h3>{{#each nodes}}{{> node}}{{/each}}{{/if}}
    </div>
  </details>
  {{/each}}
</section>

<footer>Made by assay on {{generatedAt}}. This file is self-contained: it loads nothing from the network.</footer>
</main>
{{#if chartJson}}
<script type="application/json" id="chart-data">{{{chartJson}}}</script>
<script>{{{uplotJs}}}</script>
<script>
(function () {
  var data = JSON.parse(document.getElementById('chart-data').textContent);
  if (typeof uPlot === 'undefined') return;
  var css = getComputedStyle(document.documentElement);
  var v = function (name) { return css.getPropertyValue(name).trim(); };
  var fg = v('--muted'), grid = v('--grid');
  var axis = function () { return { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } }; };
  var plots = [];
  function plot(id, series, values) {
    var host = document.getElementById(id);
    var opts = { width: Math.max(300, host.clientWidth), height: 220, scales: { x: { time: true } }, axes: [axis(), axis()], series: [{}].concat(series) };
    plots.push({ host: host, plot: new uPlot(opts, [data.t].concat(values), host) });
  }
  plot('chart-throughput', [{ label: 'requests/s', stroke: '#3b82f6', width: 2 }, { label: 'errors/s', stroke: v('--ko'), width: 2 }], [data.rps, data.eps]);
  plot('chart-latency', [{ label: 'p95 ms', stroke: '#a855f7', width: 2 }], [data.p95]);
  plot('chart-vus', [{ label: 'VUs', stroke: v('--ok'), width: 2 }], [data.vus]);
  var resize = function () { plots.forEach(function (p) { p.plot.setSize({ width: Math.max(300, p.host.clientWidth), height: 220 }); }); };
  window.addEventListener('resize', resize);
  window.addEventListener('beforeprint', resize);
})();
</script>
{{/if}}
<script>
window.addEventListener('beforeprint', function () { document.querySelectorAll('details').forEach(function (d) { d.open = true; }); });
</script>
</body>
</html>
`;
