/**
 * The web page of `svc serve --ui`: `GET /` (the HTML), `/ui/app.js` and `/ui/app.css`, static
 * and answered without the token (the handler adds UI_PATHS to its open paths, and only when the
 * page is on). The Host, Origin and Sec-Fetch-Site checks still apply to them. The page then
 * calls the API with the token the user types. Its Content-Security-Policy lets it run only its
 * own script file and fetch only its own origin, requires Trusted Types (an HTML sink such as
 * `innerHTML` throws), and forbids framing; the script renders everything from the server as text.
 */
import { PAGE_CSS } from "./ui/page_css.ts";
import { PAGE_HTML } from "./ui/page_html.ts";
import { PAGE_JS } from "./ui/page_js.ts";
import { fail } from "./reply.ts";

/** The page's Content-Security-Policy: its own script and style, its own origin, nothing else. */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

/** Headers of every file of the page. */
const UI_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "content-security-policy": UI_CSP,
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
};

const FILES: Record<string, { type: string; body: string }> = {
  "/": { type: "text/html; charset=utf-8", body: PAGE_HTML },
  "/ui/app.js": { type: "text/javascript; charset=utf-8", body: PAGE_JS },
  "/ui/app.css": { type: "text/css; charset=utf-8", body: PAGE_CSS },
};

/** The paths of the page's files: with `--ui` these answer without the token. */
export const UI_PATHS: readonly string[] = Object.keys(FILES);

/** Answers a request for one of the page's files (GET or HEAD), or undefined when not one. */
export function uiRoute(request: Request, path: string): Response | undefined {
  const file = FILES[path];
  if (!file) return undefined;
  if (request.method !== "GET" && request.method !== "HEAD") {
    return fail(405, `method not allowed; ${path} accepts GET`, { allow: "GET, HEAD" });
  }
  return new Response(request.method === "HEAD" ? null : file.body, {
    headers: { ...UI_HEADERS, "content-type": file.type },
  });
}
