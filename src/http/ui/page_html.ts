/**
 * The HTML of `svc serve --ui`'s page (`GET /`): structure only, no inline script or style (the
 * Content-Security-Policy allows neither). Kept as a string module so the bundle and `deno
 * compile` carry it like code. What fills it is src/http/ui/page_js.ts.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>svc</title>
<link rel="stylesheet" href="/ui/app.css">
<script src="/ui/app.js" defer></script>
</head>
<body>
<header>
  <h1>svc</h1>
  <span id="status" role="status"></span>
  <button id="logout" type="button" hidden>Forget token</button>
</header>
<form id="login" hidden>
  <h2>Connect</h2>
  <label for="token">Server token</label>
  <input id="token" type="password" autocomplete="off" spellcheck="false" required>
  <button id="connect" type="submit">Connect</button>
  <p class="hint">The token of this server: <code>~/.config/svc/serve_token</code>, or the file
  <code>svc serve --token-file</code> names. It is kept in this tab's session storage only.</p>
  <p id="login-error" class="error" role="alert"></p>
</form>
<main id="app" hidden>
  <section id="chat">
    <div class="bar">
      <label for="session">Session</label>
      <input id="session" placeholder="(a new session)" spellcheck="false">
      <button id="new-session" type="button">New</button>
    </div>
    <ol id="log" aria-live="polite"></ol>
    <div id="approvals"></div>
    <form id="prompt-form">
      <textarea id="prompt" rows="3" required placeholder="Ask svc..."></textarea>
      <div class="bar">
        <label><input id="ask" type="checkbox" checked> Ask me before gated tool calls</label>
        <button id="send" type="submit">Send</button>
        <button id="stop" type="button" disabled>Stop</button>
      </div>
    </form>
  </section>
  <aside>
    <section id="sessions-panel">
      <h2>Sessions</h2>
      <form id="search-form" class="bar">
        <input id="search" type="search" placeholder="search sessions" spellcheck="false">
        <button id="refresh-sessions" type="submit">Refresh</button>
      </form>
      <ul id="sessions"></ul>
    </section>
    <section id="jobs-panel">
      <h2>Jobs</h2>
      <button id="refresh-jobs" type="button">Refresh</button>
      <ul id="jobs-notes" class="notes"></ul>
      <ul id="jobs"></ul>
      <pre id="job-detail" hidden></pre>
    </section>
  </aside>
</main>
</body>
</html>
`;
