/**
 * The debugger page's script: listens to `/events` (server-sent events), shows records newest
 * first, filters them and shows one's full JSON on click. Plain browser JavaScript, no build step;
 * record data only ever goes into the page as text, never as HTML.
 */
export const PAGE_SCRIPT = String.raw`'use strict'
;(function () {
  var MAX_ROWS = 5000
  var $ = function (id) { return document.getElementById(id) }
  var rows = $('rows')
  var filters = { type: $('filter-type'), verdict: $('filter-verdict'), writeKey: $('filter-write-key'), text: $('filter-text') }
  var counts = { all: 0, accepted: 0, dropped: 0, rejected: 0 }
  var writeKeys = new Set()
  var records = new Map()
  var selected = null
  var paused = false
  var held = []

  $('snippet').textContent = "new Analytics('WRITE_KEY', { host: '" + location.origin + "' })"

  // Any JSON value as text, safely: String() throws for an object whose toString is not a function.
  function text(value) {
    if (typeof value === 'string') return value
    if (value === undefined || value === null) return ''
    if (typeof value !== 'object') return String(value)
    try {
      return JSON.stringify(value)
    } catch (err) {
      return '(unprintable)'
    }
  }

  function el(tag, className, content) {
    var node = document.createElement(tag)
    if (className) node.className = className
    if (content !== undefined && content !== null) node.textContent = text(content)
    return node
  }

  function cell(className, content) {
    var td = el('td', className)
    if (content instanceof Node) td.appendChild(content)
    else if (content !== undefined && content !== null && content !== '') td.textContent = text(content)
    else td.appendChild(el('span', 'none', '—'))
    return td
  }

  function time(iso) {
    var d = new Date(iso)
    var pad = function (n, w) { return String(n).padStart(w || 2, '0') }
    return pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds()) + '.' + pad(d.getMilliseconds(), 3)
  }

  function identity(m) {
    if (typeof m.userId === 'string' && m.userId) return m.userId
    if (typeof m.anonymousId === 'string' && m.anonymousId) return m.anonymousId + ' (anonymous)'
    return ''
  }

  function summary(type, m) {
    if (type === 'track') return text(m.event)
    if (type === 'page' || type === 'screen') return text(m.name)
    if (type === 'group') return text(m.groupId)
    if (type === 'alias') return (text(m.previousId) || '?') + ' → ' + (text(m.userId) || '?')
    if (type === 'identify' && m.traits && typeof m.traits === 'object') return Object.keys(m.traits).join(', ')
    return ''
  }

  function verdictCell(verdict, reason, violations) {
    var box = document.createDocumentFragment()
    box.appendChild(el('span', 'verdict ' + verdict, verdict))
    if (reason) box.appendChild(el('span', 'reason', reason))
    if (violations && violations.length > 0) {
      box.appendChild(el('span', 'verdict plan', 'breaks the plan'))
      violations.forEach(function (v) { box.appendChild(el('span', 'violation', '"' + text(v.path) + '" ' + text(v.message))) })
    }
    return box
  }

  // context.consent.categoryPreferences (Segment's consent shape, what eventrail/context stamps):
  // one chip per category, granted or denied.
  function consentCell(m) {
    var consent = m.context && typeof m.context === 'object' ? m.context.consent : undefined
    var preferences = consent && typeof consent === 'object' ? consent.categoryPreferences : undefined
    if (!preferences || typeof preferences !== 'object') return ''
    var box = document.createDocumentFragment()
    Object.keys(preferences).forEach(function (name) {
      var granted = preferences[name] === true
      var chip = el('span', 'consent ' + (granted ? 'granted' : 'denied'), (granted ? '✓ ' : '✗ ') + name)
      chip.title = name + (granted ? ': consented' : ': not consented')
      box.appendChild(chip)
    })
    return box
  }

  function destinationsCell(r) {
    if (r.verdict !== 'accepted') return ''
    var box = document.createDocumentFragment()
    ;(r.destinations || []).forEach(function (name) { box.appendChild(el('span', 'dest', name)) })
    if (!r.destinations || r.destinations.length === 0) box.appendChild(el('span', 'none', 'none'))
    if (r.historical) box.appendChild(el('span', 'historical', 'historical'))
    return box
  }

  function messageRow(r) {
    var m = r.message || {}
    var type = r.type || ''
    var tr = el('tr')
    tr.dataset.key = 'm' + r.id
    tr.dataset.kind = 'message'
    tr.dataset.type = ['identify', 'track', 'page', 'screen', 'group', 'alias'].indexOf(type) === -1 ? '(other)' : type
    tr.dataset.verdict = r.verdict
    tr.dataset.writeKey = r.writeKey || ''
    tr.title = 'timestamp ' + (text(m.timestamp) || '—') + ' · ' + r.path
    tr.appendChild(cell('time', time(r.receivedAt)))
    tr.appendChild(cell('', el('span', 'type', type || '(none)')))
    tr.appendChild(cell('mono', identity(m)))
    tr.appendChild(cell('', summary(type, m)))
    tr.appendChild(cell('', consentCell(m)))
    tr.dataset.violations = String((r.violations || []).length)
    tr.appendChild(cell('', verdictCell(r.verdict, r.reason, r.violations)))
    tr.appendChild(cell('', destinationsCell(r)))
    tr.appendChild(cell('mono nowrap', r.writeKey || ''))
    return tr
  }

  function rejectedRow(r) {
    var tr = el('tr')
    tr.dataset.key = 'r' + r.id
    tr.dataset.kind = 'rejected'
    tr.dataset.type = '(other)'
    tr.dataset.verdict = 'rejected'
    tr.dataset.writeKey = ''
    tr.appendChild(cell('time', time(r.receivedAt)))
    tr.appendChild(cell('', el('span', 'type', r.path)))
    tr.appendChild(cell('mono', ''))
    tr.appendChild(cell('', r.bytes + ' bytes'))
    tr.appendChild(cell('', ''))
    tr.appendChild(cell('', verdictCell('rejected', r.status + ': ' + r.error)))
    tr.appendChild(cell('', ''))
    tr.appendChild(cell('mono', ''))
    return tr
  }

  function matches(tr) {
    var d = tr.dataset
    if (filters.type.value && d.type !== filters.type.value) return false
    if (filters.verdict.value && d.verdict !== filters.verdict.value) return false
    if (filters.writeKey.value && d.writeKey !== filters.writeKey.value) return false
    var text = filters.text.value.trim().toLowerCase()
    return !text || tr.textContent.toLowerCase().indexOf(text) !== -1
  }

  function applyFilters() {
    for (var tr = rows.firstElementChild; tr; tr = tr.nextElementSibling) tr.hidden = !matches(tr)
  }

  function updateCounts() {
    Object.keys(counts).forEach(function (k) { $('count-' + k).textContent = counts[k] })
    $('empty').hidden = rows.childElementCount > 0
  }

  function addWriteKey(key) {
    if (!key || writeKeys.has(key)) return
    writeKeys.add(key)
    filters.writeKey.appendChild(el('option', '', key))
  }

  function add(kind, r, fresh) {
    var tr = kind === 'message' ? messageRow(r) : rejectedRow(r)
    records.set(tr.dataset.key, r)
    if (kind === 'message') {
      counts.all += 1
      counts[r.verdict] += 1
      addWriteKey(r.writeKey)
    } else counts.rejected += 1
    if (fresh) tr.classList.add('fresh')
    tr.hidden = !matches(tr)
    rows.insertBefore(tr, rows.firstChild)
    while (rows.childElementCount > MAX_ROWS) {
      records.delete(rows.lastElementChild.dataset.key)
      rows.removeChild(rows.lastElementChild)
    }
  }

  function reset() {
    rows.textContent = ''
    records.clear()
    held = []
    Object.keys(counts).forEach(function (k) { counts[k] = 0 })
    closeDetail()
    updateCounts()
  }

  function show(tr) {
    var r = records.get(tr.dataset.key)
    if (!r) return
    if (selected) selected.classList.remove('selected')
    selected = tr
    tr.classList.add('selected')
    $('detail-title').textContent = tr.dataset.kind === 'message' ? 'Message #' + r.id + ' · ' + (r.type || 'no type') : 'Request #' + r.id + ' · ' + r.path
    $('detail-json').textContent = JSON.stringify(r, null, 2)
    $('detail').hidden = false
    document.querySelector('main').classList.add('with-detail')
  }

  function closeDetail() {
    if (selected) selected.classList.remove('selected')
    selected = null
    $('detail').hidden = true
    document.querySelector('main').classList.remove('with-detail')
  }

  function receive(kind, r, live) {
    if (paused) {
      held.push([kind, r])
      $('pause').textContent = 'Resume (' + held.length + ')'
    } else add(kind, r, live)
    updateCounts()
  }

  rows.addEventListener('click', function (event) {
    var tr = event.target.closest('tr')
    if (tr) show(tr)
  })
  $('detail-close').addEventListener('click', closeDetail)
  Object.keys(filters).forEach(function (k) { filters[k].addEventListener('input', applyFilters) })
  // No inline handler: the Content-Security-Policy allows scripts from the collector only.
  $('filters').addEventListener('submit', function (event) { event.preventDefault() })
  $('pause').addEventListener('click', function () {
    paused = !paused
    this.setAttribute('aria-pressed', String(paused))
    this.textContent = paused ? 'Resume (' + held.length + ')' : 'Pause'
    if (!paused) {
      held.forEach(function (item) { add(item[0], item[1], true) })
      held = []
      updateCounts()
    }
  })
  $('clear').addEventListener('click', function () { fetch('/api/clear', { method: 'POST' }) })

  var status = $('status')
  var source = new EventSource('/events')
  var backlog = true
  source.addEventListener('open', function () { status.dataset.state = 'live'; status.textContent = 'live' })
  source.addEventListener('error', function () { status.dataset.state = 'offline'; status.textContent = 'collector unreachable, retrying…' })
  source.addEventListener('reset', function () { backlog = true; reset(); setTimeout(function () { backlog = false }, 0) })
  source.addEventListener('message', function (e) { receive('message', JSON.parse(e.data), !backlog) })
  source.addEventListener('rejected', function (e) { receive('rejected', JSON.parse(e.data), !backlog) })
  source.addEventListener('warning', function (e) {
    var warning = $('warning')
    warning.textContent = text(JSON.parse(e.data).message)
    warning.hidden = false
  })
  updateCounts()
})()
`
