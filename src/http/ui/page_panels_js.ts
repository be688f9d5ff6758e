/**
 * The sessions and jobs panels of `svc serve --ui`'s page: the second part of its one script
 * (src/http/ui/page_js.ts joins them; it defines `$`, `el`, `button`, `call`, `addEntry`, ...).
 * Text from the server goes into the page with `textContent` only. No backquotes or dollar-braces.
 */
export const PANELS_JS = String.raw`// --- sessions and jobs: the side panels ---
// --- sessions ----------------------------------------------------------------------------------

function showMessage(message) {
  if (message.role === "user") addEntry("user", message.content);
  else if (message.role === "assistant") {
    if (message.content) addEntry("assistant", message.content);
    for (const c of message.tool_calls || []) {
      addEntry("tool", c.function.name + " " + c.function.arguments);
    }
  } else if (message.role === "tool") addEntry("tool-result", message.content);
  else addEntry("meta", message.role + ": " + message.content);
}

const PAGE = 200;

/** Shows a session's last messages (GET /sessions/{id}) and continues in it. */
async function openSession(name) {
  if (turn) return;
  const path = "/sessions/" + encodeURIComponent(name);
  try {
    let page = await call("GET", path + "?limit=" + PAGE);
    if (page.total_messages > PAGE) {
      const offset = page.total_messages - PAGE;
      page = await call("GET", path + "?offset=" + offset + "&limit=" + PAGE);
    }
    $("log").replaceChildren();
    setSession(name);
    if (page.offset) addEntry("meta", page.offset + " earlier messages are not shown");
    page.messages.forEach(showMessage);
    refreshSessions();
  } catch (err) {
    report(err);
  }
}

async function deleteSession(name) {
  if (!confirm("Delete session " + name + " and its undo checkpoints?")) return;
  try {
    await call("DELETE", "/sessions/" + encodeURIComponent(name));
    if ($("session").value.trim() === name) newSession();
  } catch (err) {
    report(err);
  }
  refreshSessions();
}

function newSession() {
  if (turn) return;
  $("session").value = "";
  $("log").replaceChildren();
  status("new session");
  refreshSessions();
}

/** GET /sessions, or GET /sessions?q= with the search box's text. */
async function refreshSessions(event) {
  if (event) event.preventDefault();
  const q = $("search").value.trim();
  try {
    const data = await call("GET", q ? "/sessions?q=" + encodeURIComponent(q) : "/sessions");
    const names = q ? data.results.map((r) => r.name) : data.sessions;
    const list = $("sessions");
    list.replaceChildren();
    const current = $("session").value.trim();
    for (const name of names) {
      const item = el("li");
      item.dataset.session = name;
      const open = button(name, () => openSession(name), "name");
      if (name === current) open.classList.add("current");
      item.append(open, button("Delete", () => deleteSession(name)));
      list.append(item);
    }
    if (!names.length) list.append(el("li", q ? "no session matches" : "no sessions yet", "meta"));
  } catch (err) {
    report(err);
  }
}

// --- jobs --------------------------------------------------------------------------------------

async function changeJob(name, what) {
  try {
    await call("POST", "/jobs/" + encodeURIComponent(name) + "/" + what, {});
  } catch (err) {
    report(err);
  }
  refreshJobs();
}

function jobItem(job) {
  const item = el("li");
  item.dataset.job = job.name;
  const approval = job.approval === "none" ? "" : ", " + job.approval;
  item.append(button(job.name, () => showJob(job.name), "name"));
  item.append(el("span", job.state + approval, "meta state"));
  const action = (label, what) => {
    const node = button(label, () => changeJob(job.name, what));
    node.dataset.action = what;
    item.append(node);
  };
  const approved = job.approval === "approved" || job.approval === "armed";
  if (!approved || job.state === "waiting_approval") action("Approve", "approve");
  if (approved) action("Reject", "reject");
  action(job.enabled ? "Disable" : "Enable", job.enabled ? "disable" : "enable");
  action("Run now", "run");
  return item;
}

/** GET /jobs: what svc jobs status --json shows, with approve, reject, enable, disable, run. */
async function refreshJobs() {
  const list = $("jobs");
  try {
    const data = await call("GET", "/jobs");
    $("jobs-notes").replaceChildren(...(data.notes || []).map((note) => el("li", note)));
    list.replaceChildren(...(data.jobs || []).map(jobItem));
    if (!list.children.length) list.append(el("li", "no jobs", "meta"));
  } catch (err) {
    if (err.message === "unauthorized") return;
    list.replaceChildren(el("li", "jobs: " + err.message, "meta"));
  }
}

/** GET /jobs/{name}: its definition, state and memory, as text. */
async function showJob(name) {
  const detail = $("job-detail");
  try {
    const job = await call("GET", "/jobs/" + encodeURIComponent(name));
    const lines = [
      job.name + ": " + job.shown_state + " (approval " + job.approval + ")",
      "schedule: " + JSON.stringify(job.schedule),
      "task file: " + job.task_file_path,
    ];
    if (job.prompt) lines.push("prompt: " + job.prompt);
    if (job.memory_preview) lines.push("memory:", job.memory_preview);
    detail.textContent = lines.join("\n");
    detail.hidden = false;
  } catch (err) {
    report(err);
  }
}

function wirePanels() {
  $("new-session").addEventListener("click", newSession);
  $("search-form").addEventListener("submit", refreshSessions);
  $("refresh-jobs").addEventListener("click", refreshJobs);
}
`;
