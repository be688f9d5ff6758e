import assert from "node:assert/strict";
import { decodeEntities, NAMED } from "../src/entities.ts";
import { inlineText } from "../src/html_tags.ts";
import { htmlToText } from "../src/html_text.ts";
import { parseDdgHtml } from "../src/search.ts";

Deno.test("htmlToText keeps headings, paragraphs, lists, tables and links", () => {
  const html = `<!DOCTYPE html><html><head><title>Caf&eacute; &amp; Co</title>
    <style>body { color: red }</style><script>var s = "</div>"; if (a < b) {}</script></head>
    <body><nav><ul><li><a href="/home">Home</a></li></ul></nav>
    <header><h1>Main   title</h1></header>
    <p>Hello <b>world</b>, see <a href="/docs?a=1&amp;b=2">the docs</a> and
      <a href="https://example.com/">example.com</a>.</p>
    <p>Line one<br>Line two</p>
    <div hidden>secret</div><div style="display: none">hidden <div>nested</div></div>
    <ul><li>One</li><li>Two<ol><li>Sub A</li><li>Sub B</li></ol></li></ul>
    <pre>  code
    indented</pre>
    <table><tr><th>K</th><th>V</th></tr><tr><td>a</td><td>1</td></tr></table>
    <!-- <p>commented out</p> -->
    <p>5 < 6 and <custom-tag>custom</custom-tag></p><footer>Copyright</footer></body></html>`;
  assert.deepEqual(htmlToText(html, "https://site.test/page"), {
    title: "Café & Co",
    text: [
      "# Main title",
      "",
      "Hello world, see the docs (https://site.test/docs?a=1&b=2) and example.com.",
      "",
      "Line one\nLine two",
      "",
      "- One\n- Two\n  1. Sub A\n  2. Sub B",
      "",
      "  code\n    indented",
      "",
      "K | V\na | 1",
      "",
      "5 < 6 and custom",
    ].join("\n"),
  });
});

Deno.test("htmlToText resolves links against <base> and drops script and fragment links", () => {
  const html = `<base href="https://docs.test/v2/"><p><a href="guide">Guide</a>
    <a href="#top">Top</a> <a href="javascript:alert(1)">Run</a>
    <a href="https://img.test/"><img src="x.png" alt="Logo"></a></p>`;
  assert.deepEqual(htmlToText(html), {
    title: "",
    text: "Guide (https://docs.test/v2/guide) Top Run Logo (https://img.test/)",
  });
});

Deno.test("htmlToText survives unclosed tags, stray brackets and unterminated comments", () => {
  assert.deepEqual(htmlToText("<p>a <b>b <i>c</p><p>x <y <!-- never closed"), {
    title: "",
    text: "a b c\n\nx <y",
  });
  assert.deepEqual(htmlToText("<script>never closed"), { title: "", text: "" });
});

Deno.test("decodeEntities handles named, numeric and legacy references", () => {
  assert.equal(
    decodeEntities("&lt;a&gt; &amp;amp; &#39;&#x1F600;&#0; &#128; &copy 2024 &unknown; a&lt=b"),
    "<a> &amp; '😀\uFFFD € © 2024 &unknown; a&lt=b",
  );
  assert.deepEqual(
    ["nbsp", "yuml", "Omega", "sigmaf", "mdash"].map((n) => NAMED.get(n)),
    [160, 255, 937, 962, 8212],
  );
});

Deno.test("inlineText flattens a fragment to one line", () => {
  assert.equal(inlineText("Example <b>Domain</b>\n  &amp; more"), "Example Domain & more");
});

Deno.test("htmlToText and parseDdgHtml stay fast on hostile markup", () => {
  const hostile = [
    '<a href="'.repeat(100_000) + ">",
    "<a x='1' ".repeat(100_000),
    "<".repeat(500_000),
    "<nav>".repeat(100_000),
    '<a class="result__a" '.repeat(50_000) + ">",
  ];
  const started = Date.now();
  for (const html of hostile) {
    htmlToText(html);
    parseDdgHtml(html);
  }
  assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
});
