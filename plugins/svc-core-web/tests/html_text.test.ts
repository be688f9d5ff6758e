import assert from "node:assert/strict";
import { inlineText } from "../src/html_tokens.ts";
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
  // A tag cut off by the end of the page is dropped, as browsers do.
  assert.deepEqual(htmlToText("<p>a <b>b <i>c</p><p>x <y <!-- never closed"), {
    title: "",
    text: "a b c\n\nx",
  });
  assert.deepEqual(htmlToText("<p>5 < 6 <!-- never closed"), { title: "", text: "5 < 6" });
  assert.deepEqual(htmlToText("<script>never closed"), { title: "", text: "" });
  assert.deepEqual(htmlToText("<script/>alert(1)</script><p>after</br>line</p>"), {
    title: "",
    text: "after\nline",
  });
});

Deno.test("htmlToText decodes named, numeric and legacy references in text and links", () => {
  const html =
    "<p>&hearts; &rarrw; &NotEqualTilde; &lt;a&gt; &amp;amp; &#39;&#x1F600;&#0; &#128; " +
    '&copy 2024 &unknown;</p><p><a href="/q?a=1&amp;b=2&copy=3">query</a></p>';
  assert.deepEqual(htmlToText(html, "https://site.test/"), {
    title: "",
    text: "♥ ↝ ≂̸ <a> &amp; '😀\uFFFD € © 2024 &unknown;\n\n" +
      "query (https://site.test/q?a=1&b=2&copy=3)",
  });
});

Deno.test("htmlToText keeps a list item's paragraph on the marker's line", () => {
  const html = "<ol><li><p>First</p></li><li><p>Second</p><ul><li><p>Inner</p></li></ul></li></ol>";
  assert.equal(htmlToText(html).text, "1. First\n\n2. Second\n\n  - Inner");
});

Deno.test("inlineText flattens a fragment to one line", () => {
  assert.equal(inlineText("Example <b>Domain</b>\n  &amp; more"), "Example Domain & more");
});

Deno.test("htmlToText and parseDdgHtml stay fast on hostile markup", () => {
  // Each about 1-2 MB, the size of the download cap. htmlparser2's own Parser takes seconds on
  // the nesting ones (html_tokens.ts), so the converter uses only its tokenizer.
  const hostile = [
    '<a href="'.repeat(100_000) + ">",
    "<a x='1' ".repeat(100_000),
    "<".repeat(500_000),
    "<nav>".repeat(100_000),
    '<a class="result__a" '.repeat(50_000) + ">",
    "<div>".repeat(200_000),
    "<div>".repeat(100_000) + "</x>".repeat(100_000),
    "<ul><li>".repeat(100_000) + "x",
    "<table><tr><td>".repeat(100_000),
    '<div class="result"><a class="result__a" href="https://a.test/">'.repeat(20_000),
    '<p title="' + "x".repeat(1_500_000) + '">t</p>',
    "<!--" + "a".repeat(1_500_000),
    "<!--".repeat(300_000),
    "<script>" + "<!--<script>".repeat(100_000),
    "&amp".repeat(300_000) + "&#x1F600;".repeat(100_000),
  ];
  // Each input's time is bounded relative to an ordinary 270 KB page converted just before
  // (warmed up, best of two), so a loaded machine slows both: every hostile input here takes
  // about as long as that page, while the quadratic cases this guards against took 60 to 200
  // times longer (8.6 to 28 s with htmlparser2's Parser).
  const ordinary = "<p>Some <b>words</b> and a <a href='/x'>link</a>.</p>\n".repeat(5_000);
  const convert = (html: string) => {
    const started = performance.now();
    const { text } = htmlToText(html);
    parseDdgHtml(html);
    return { ms: performance.now() - started, text };
  };
  convert(ordinary);
  const page = Math.max(10, Math.min(convert(ordinary).ms, convert(ordinary).ms));
  for (const [i, html] of hostile.entries()) {
    const { ms, text } = convert(html);
    assert.ok(text.length <= 3 * html.length, "text grows at most linearly");
    assert.ok(ms < 15 * page, `input ${i} took ${Math.round(ms)} ms, an ordinary page ${page} ms`);
  }
});
