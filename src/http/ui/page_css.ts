/** The style sheet of `svc serve --ui`'s page (`GET /ui/app.css`), a string module (bundled). */
export const PAGE_CSS = `:root { color-scheme: light dark; font: 15px/1.4 system-ui, sans-serif; }
[hidden] { display: none !important; }
body { margin: 0; display: flex; flex-direction: column; height: 100vh; }
header { display: flex; gap: 1em; align-items: center; padding: 0.4em 1em; border-bottom: 1px solid #8886; }
header h1 { font-size: 1.2em; margin: 0; }
#status { flex: 1; opacity: 0.8; }
#login { max-width: 32em; margin: 3em auto; display: flex; flex-direction: column; gap: 0.5em; }
main { flex: 1; display: flex; min-height: 0; }
#chat { flex: 3; display: flex; flex-direction: column; min-width: 0; padding: 0.5em 1em; }
aside { flex: 1; min-width: 16em; max-width: 26em; overflow: auto; padding: 0.5em 1em; border-left: 1px solid #8886; }
aside h2 { font-size: 1em; margin: 0.8em 0 0.3em; }
.bar { display: flex; gap: 0.5em; align-items: center; margin: 0.3em 0; }
.bar input:not([type=checkbox]) { flex: 1; }
#log { flex: 1; overflow: auto; list-style: none; margin: 0; padding: 0; }
#log li { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.4em 0; padding: 0.3em 0.6em; border-radius: 4px; }
#log li::before { display: block; font-size: 0.75em; opacity: 0.7; content: attr(data-who); }
.user { background: #4a90e222; }
.assistant { background: #8881; }
.tool, .tool-result { font-family: ui-monospace, monospace; font-size: 0.85em; background: #8882; }
.tool-error, .error { color: #c33; }
.meta { opacity: 0.7; font-size: 0.85em; }
textarea { width: 100%; box-sizing: border-box; font: inherit; }
#approvals .approval { border: 2px solid #e0a020; border-radius: 4px; padding: 0.5em; margin: 0.4em 0; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0.3em 0; }
#sessions, #jobs, .notes { list-style: none; padding: 0; margin: 0; }
#sessions li, #jobs li { display: flex; flex-wrap: wrap; gap: 0.3em; align-items: center; margin: 0.2em 0; }
#sessions li .name, #jobs li .name { flex: 1; text-align: left; overflow-wrap: anywhere; }
.notes li { font-size: 0.85em; opacity: 0.8; }
button.current { font-weight: bold; }
`;
