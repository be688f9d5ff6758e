// deno-lint-ignore-file no-explicit-any
/**
 * `svc serve --ui` in a real headless Chromium (the distribution's package), driven over the
 * DevTools protocol: one browser and one server for the whole file. Ignored, with the reason on
 * stderr, when Chromium is missing or cannot start.
 */
import assert from "node:assert/strict";
import { sandbox, svc } from "../_support/cli.ts";
import { startChromium } from "../_support/chromium.ts";
import { startFakeProvider } from "../_support/fake_provider.ts";
import { startServe, writeConfig } from "./_serve.ts";
import { UI_CSP } from "../../src/http/ui_route.ts";

const browser = await startChromium();
if (typeof browser === "string") console.error(`ui_page.test.ts is ignored: ${browser}`);

/** A model answer that would run script if the page ever rendered it as HTML. */
const HOSTILE = `Here it is: <img src=x onerror="document.title='pwned';window.__xss=1;` +
  `fetch('/xss-img')"> and <script>document.title='pwned';window.__xss=2;fetch('/xss-script')` +
  `</script> as text.`;

/** The text of every entry of the page's chat log, with its kind. */
const LOG = `[...document.querySelectorAll("#log li")].map((li) => [li.className, li.textContent])`;

Deno.test({
  name: "svc serve --ui: the page takes the token once, streams a turn, answers an approval, " +
    "aborts a turn, lists sessions, approves and runs a job, and shows a hostile answer as " +
    "inert text (needs chromium)",
  ignore: typeof browser === "string",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const chromium = browser as Exclude<typeof browser, string>;
    await using box = await sandbox();
    const fake = await startFakeProvider([
      { text: HOSTILE },
      { tool_calls: [{ name: "file_write", arguments: { path: "out.txt", content: "fine" } }] },
      { text: "written" },
      { stall: true, text: "half an answ" },
      { text: "job done" },
    ]);
    await writeConfig(box.worktree, fake.url);
    // The job register is read per request: both processes start at once.
    const [added, served] = await Promise.all([
      svc(["jobs", "add", "nightly", "--prompt", "check", "--every", "3600"], {
        cwd: box.worktree,
        env: box.env,
      }),
      startServe(["--ui"], { cwd: box.worktree, env: box.env }),
    ]);
    assert.equal(added.code, 0, added.stderr);
    const page = await chromium.page();
    try {
      await t.step("GET / is the static page under its Content-Security-Policy", async () => {
        const res = await fetch(`${served.url}/`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-security-policy"), UI_CSP);
        assert.equal(res.headers.get("x-content-type-options"), "nosniff");
        assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
        assert.match(await res.text(), /<script src="\/ui\/app.js" defer><\/script>/);
        assert.match(
          served.stderr(),
          /web page at http:\/\/127.0.0.1:\d+\/; it asks for the token/,
        );
      });

      await t.step("the token is entered once and kept in the tab's session storage", async () => {
        await page.goto(`${served.url}/`);
        await page.waitFor(`!document.getElementById("login").hidden`);
        await page.type("#token", "wrong-token-0123456789");
        await page.click("#connect");
        await page.waitFor(`document.getElementById("login-error").textContent`);
        await page.type("#token", served.token!);
        await page.click("#connect");
        await page.waitFor(`!document.getElementById("app").hidden`);
        const kept = await page.evaluate(`sessionStorage.getItem("svc.serve.token")`);
        assert.equal(kept, served.token);
        await page.goto(`${served.url}/`);
        await page.waitFor(`!document.getElementById("app").hidden`);
      });

      await t.step("a streamed answer carrying HTML shows as text and runs nothing", async () => {
        await page.type("#prompt", "show me");
        await page.click("#send");
        await page.waitFor(`document.querySelector("#log li.meta")`);
        assert.deepEqual(await page.evaluate(LOG), [
          ["user", "show me"],
          ["assistant", HOSTILE],
          ["meta", "ok - 1 round"],
        ]);
        assert.equal(
          await page.evaluate(`document.querySelectorAll("img, #log script").length`),
          0,
        );
        assert.equal(await page.evaluate(`document.title`), "svc");
        assert.equal(await page.evaluate(`String(window.__xss)`), "undefined");
        const requested = page.events.filter((e) => e.method === "Network.requestWillBeSent")
          .map((e) => new URL(e.params.request.url).pathname);
        assert.deepEqual(requested.filter((p) => /xss|^\/x$/.test(p)), []);
      });

      const session = await page.evaluate<string>(`document.getElementById("session").value`);
      await t.step("the new session is listed", async () => {
        assert.match(session, /^ses_/);
        await page.waitFor(`document.querySelector("#sessions li[data-session='${session}']")`);
        const listed = await (await served.fetch(`${served.url}/sessions`)).json();
        assert.deepEqual(listed.sessions, [session]);
      });

      await t.step(
        "an ask-gated call is approved from the page while the turn streams",
        async () => {
          await page.type("#prompt", "write out.txt");
          await page.click("#send");
          await page.waitFor(`document.querySelector("#approvals .approval")`);
          const card = await page.evaluate<string>(
            `document.querySelector(".approval").textContent`,
          );
          assert.match(card, /Allow file_write\?/);
          assert.match(card, /"path": "out.txt"/);
          assert.equal(await page.evaluate(`document.getElementById("stop").disabled`), false);
          await page.click("#approvals .approval button");
          await page.waitFor(`document.querySelectorAll("#log li.meta").length === 2`);
          assert.equal(await Deno.readTextFile(`${box.worktree}/out.txt`), "fine");
          const log = await page.evaluate<string[][]>(LOG);
          assert.deepEqual(log.slice(3).map(([kind]) => kind), [
            "user",
            "tool",
            "tool-result",
            "assistant",
            "meta",
          ]);
          assert.deepEqual(log.at(-2), ["assistant", "written"]);
          assert.equal(await page.evaluate(`document.querySelectorAll(".approval").length`), 0);
          const stored = await (await served.fetch(`${served.url}/sessions/${session}`)).json();
          assert.deepEqual(stored.permissions.map((p: any) => [p.outcome, p.by]), [
            ["approved", "client"],
          ]);
        },
      );

      await t.step("Stop aborts a running turn and keeps its partial answer", async () => {
        await page.type("#prompt", "take your time");
        await page.click("#send");
        await page.waitFor(`!document.getElementById("stop").disabled`);
        while (fake.requests.length < 4) await new Promise((r) => setTimeout(r, 10));
        await page.click("#stop");
        await page.waitFor(`document.querySelectorAll("#log li.error").length === 1`);
        const last = (await page.evaluate<string[][]>(LOG)).at(-1);
        assert.deepEqual(last, ["error", "cancelled - 1 round"]);
        const stored = await (await served.fetch(`${served.url}/sessions/${session}`)).json();
        const saved = stored.messages.at(-1);
        assert.deepEqual([saved.role, saved.content, saved.partial], [
          "assistant",
          "half an answ",
          true,
        ]);
      });

      await t.step("a proposed job is approved and run from the jobs panel", async () => {
        const state = `document.querySelector("#jobs li[data-job='nightly'] .state")?.textContent`;
        assert.equal(await page.waitFor(state), "proposed");
        await page.click("#jobs li[data-job='nightly'] button[data-action='approve']");
        await page.waitFor(`${state} !== "proposed"`);
        const show = async () => await (await served.fetch(`${served.url}/jobs/nightly`)).json();
        const job = await show();
        assert.equal(job.approval, "approved");
        assert.equal(await page.evaluate(state), `${job.shown_state}, approved`);
        await page.click("#jobs li[data-job='nightly'] button[data-action='run']");
        const deadline = Date.now() + 10_000;
        let ran = await show();
        while (!ran.last_output && !ran.last_error && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 20));
          ran = await show();
        }
        assert.deepEqual([ran.last_output, ran.last_error], ["job done", null]);
        // The only error entry is still the stopped turn's: the run was accepted.
        assert.deepEqual(
          await page.evaluate(`document.querySelectorAll("#log li.error").length`),
          1,
        );
      });

      await t.step("the page ran under its policy without errors or violations", () => {
        // Chromium reports a blocked inline script or a refused HTML sink as a "security" entry.
        const problems = page.events.filter((e) =>
          e.method === "Runtime.exceptionThrown" ||
          (e.method === "Log.entryAdded" && e.params.entry.source === "security")
        );
        assert.deepEqual(problems, []);
      });
    } finally {
      await served.stop();
      await chromium.close();
      await fake.close();
    }
  },
});
