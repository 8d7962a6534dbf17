/** The debugger page's stylesheet. */
export const PAGE_STYLE = `:root {
  --fg: #1d232b; --muted: #667180; --line: #e3e7ec; --bg: #f6f8fa; --panel: #fff;
  --ok: #137a3b; --ok-bg: #e3f6ea; --bad: #b42318; --bad-bg: #fde8e6; --warn-bg: #fff4d6; --accent: #3654d6;
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg);
}
* { box-sizing: border-box; }
body { margin: 0; }
header { display: flex; align-items: baseline; gap: 24px; padding: 12px 20px; background: #1d232b; color: #fff; }
header h1 { margin: 0; font-size: 18px; font-weight: 650; }
header h1 span { font-weight: 400; color: #aab4c2; }
header .counts { margin: 0; color: #d5dbe3; }
header .counts .ok { color: #7ee2a0; } header .counts .bad { color: #ff9d94; }
.status { margin: 0 0 0 auto; font-size: 12px; color: #aab4c2; }
.status::before { content: ""; display: inline-block; width: 8px; height: 8px; border-radius: 50%; margin-right: 6px; background: #aab4c2; }
.status[data-state="live"]::before { background: #3ccf6e; }
.status[data-state="offline"]::before { background: #ff6b5e; }
.filters { display: flex; flex-wrap: wrap; align-items: end; gap: 12px; padding: 10px 20px; background: var(--panel); border-bottom: 1px solid var(--line); }
.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 2px; }
.filters .grow { flex: 1; min-width: 180px; }
select, input, button { font: inherit; padding: 4px 8px; border: 1px solid #c9d0d8; border-radius: 6px; background: #fff; color: var(--fg); }
button { cursor: pointer; } button:hover { border-color: var(--accent); }
button[aria-pressed="true"] { background: var(--warn-bg); }
main { display: grid; grid-template-columns: 1fr; align-items: start; }
main.with-detail { grid-template-columns: minmax(0, 1fr) minmax(320px, 34%); }
table { width: 100%; border-collapse: collapse; background: var(--panel); }
th { position: sticky; top: 0; text-align: left; font-size: 12px; font-weight: 600; color: var(--muted); background: #eef1f4; padding: 6px 10px; border-bottom: 1px solid var(--line); }
td { padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
tbody tr { cursor: pointer; }
tbody tr:hover { background: #f1f4ff; }
tbody tr.selected { background: #e6ebff; }
tbody tr.fresh { animation: fresh 1.2s ease-out; }
@keyframes fresh { from { background: #fff6c7; } to { background: transparent; } }
td.time { white-space: nowrap; font-variant-numeric: tabular-nums; color: var(--muted); }
td.nowrap { white-space: nowrap; }
td.mono, code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
.type { display: inline-block; padding: 1px 7px; border-radius: 10px; font-size: 12px; background: #eef1f4; }
.verdict { display: inline-block; padding: 1px 7px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.verdict.accepted { color: var(--ok); background: var(--ok-bg); }
.verdict.dropped, .verdict.rejected { color: var(--bad); background: var(--bad-bg); }
.consent { display: inline-block; margin: 0 4px 2px 0; padding: 0 6px; border-radius: 8px; font-size: 12px; white-space: nowrap; }
.consent.granted { color: var(--ok); background: var(--ok-bg); }
.consent.denied { color: var(--bad); background: var(--bad-bg); }
.verdict.plan { margin-left: 4px; color: #8a5a00; background: #fff3d6; }
.violation { display: block; margin-top: 3px; font-size: 12px; color: #8a5a00; max-width: 420px; }
.reason { display: block; margin-top: 3px; font-size: 12px; color: var(--bad); max-width: 420px; }
.dest { display: inline-block; margin: 0 4px 2px 0; padding: 0 6px; border: 1px solid var(--line); border-radius: 4px; font-size: 12px; }
.none, .muted { color: var(--muted); }
.historical { display: inline-block; margin-left: 2px; padding: 0 6px; border-radius: 4px; font-size: 11px; background: var(--warn-bg); }
.empty { padding: 32px 20px; color: var(--muted); text-align: center; }
.empty code { display: block; margin-top: 8px; color: var(--fg); }
aside { position: sticky; top: 0; max-height: 100vh; overflow: auto; background: var(--panel); border-left: 1px solid var(--line); }
.detail-head { display: flex; align-items: center; justify-content: space-between; padding: 8px 14px; border-bottom: 1px solid var(--line); }
.detail-head h2 { margin: 0; font-size: 14px; }
pre { margin: 0; padding: 12px 14px; white-space: pre-wrap; word-break: break-word; }
.warning { margin: 0; padding: 8px 14px; background: #fdecea; color: #8a1c12; border-bottom: 1px solid #f5c2bd; font-weight: 600; }
`
