/** The debugger page: plain HTML that loads `/debugger.css` and `/debugger.js` from the collector. */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>eventrail debugger</title>
<link rel="stylesheet" href="/debugger.css">
</head>
<body>
<header>
  <h1>eventrail <span>debugger</span></h1>
  <p class="counts" aria-live="polite">
    <span id="count-all">0</span> messages ·
    <span class="ok" id="count-accepted">0</span> accepted ·
    <span class="bad" id="count-dropped">0</span> dropped ·
    <span class="bad" id="count-rejected">0</span> rejected requests
  </p>
  <p class="status" id="status" data-state="connecting">connecting…</p>
</header>
<p class="warning" id="warning" role="alert" hidden></p>
<form class="filters" id="filters">
  <label>Type <select id="filter-type">
    <option value="">all</option><option>identify</option><option>track</option><option>page</option>
    <option>screen</option><option>group</option><option>alias</option><option value="(other)">other</option>
  </select></label>
  <label>Verdict <select id="filter-verdict">
    <option value="">all</option><option>accepted</option><option>dropped</option><option>rejected</option>
  </select></label>
  <label>Write key <select id="filter-write-key"><option value="">all</option></select></label>
  <label class="grow">Search <input id="filter-text" type="search" placeholder="user, event, reason…"></label>
  <button type="button" id="pause">Pause</button>
  <button type="button" id="clear">Clear</button>
</form>
<main>
  <table id="messages">
    <thead><tr><th>Time</th><th>Type</th><th>Identity</th><th>Event / name</th><th>Consent</th><th>Verdict</th><th>Destinations</th><th>Write key</th></tr></thead>
    <tbody id="rows"></tbody>
  </table>
  <p id="empty" class="empty">Waiting for messages. Point a client at this collector:
    <code id="snippet"></code></p>
  <aside id="detail" hidden>
    <div class="detail-head"><h2 id="detail-title">Message</h2><button type="button" id="detail-close" aria-label="Close">×</button></div>
    <pre id="detail-json"></pre>
  </aside>
</main>
<script src="/debugger.js"></script>
</body>
</html>
`
