/**
 * htmlToText on real pages (tests/fixtures/pages/, see its README.md): for each page the text
 * keeps the visible words, drops script and style content, decodes character references, keeps
 * block structure (headings, list items, table rows, blank lines between paragraphs) and renders
 * links as `text (url)`. Properties and chosen lines, not a snapshot of the whole text.
 */
import assert from "node:assert/strict";
import { htmlToText } from "../src/html_text.ts";
import { parseDdgHtml } from "../src/search.ts";

const PAGES = new URL("./fixtures/pages/", import.meta.url);
const BASE = "https://docs.test/pages/";

interface PageExpectation {
  title: string;
  /** Least share of the page's visible words (see `visibleWords`) found in the text. */
  minKept: number;
  /** Text that must appear: decoded references, links as `text (url)`. */
  contains: string[];
  /** Whole lines that must appear: headings, list items, table rows, paragraphs. */
  lines: string[];
  /** Text that must not appear: script and style content, dropped elements. */
  absent: string[];
}

const EXPECTED: Record<string, PageExpectation> = {
  "bzip2-manual.html": {
    title: "bzip2 and libbzip2, version 1.0.8",
    minKept: 0.99,
    contains: ["copyright © 1996-2019 Julian Seward"],
    lines: [
      "# bzip2 and libbzip2, version 1.0.8",
      "## A program and library for data compression",
      "- Redistributions of source code must retain the above copyright notice, this list of " +
      "conditions and the following disclaimer.",
      "# 1. Introduction",
    ],
    absent: ["bzip.css"],
  },
  "debian-users-and-groups.html": {
    title: "Users and Groups in the Debian System",
    minKept: 0.99,
    contains: [
      "Please send mail to <base-passwd@packages.debian.org>",
      "include files (http://article.olduse.net/109@Autzoo.UUCP)",
    ],
    lines: [
      "# Users and Groups in the Debian System",
      "Copyright © 2001, 2002 Joey Hess",
      "# Chapter 2. Users and Groups",
      "Many users have a corresponding group, and these pairs will be treated together.",
      "Root is (typically) the superuser.",
    ],
    absent: [],
  },
  "ddg-results.html": {
    title: "html parser at DuckDuckGo",
    minKept: 0.9,
    contains: [
      'A forgiving HTML and XML parser with a callback interface – it "works on real-world ' +
      'markup"…',
      "text/html resources — even those with errors.",
    ],
    lines: [
      "## Comparing parsers: speed <vs> correctness (https://docs.example.org/parsers?lang=en&page=2)",
    ],
    absent: ["All Regions", "No region", "Next"],
  },
  "libffi-closure-api.html": {
    title: "The Closure API (libffi: the portable foreign function interface library)",
    minKept: 0.99,
    contains: [
      "libffi also provides a way to write a generic function – a function that can accept",
      "void *user_data, void *codeloc) ¶",
    ],
    lines: [
      "### 2.5 The Closure API",
      "A pointer to the memory used for the function’s return value.",
    ],
    absent: ["font-family", "div.example"],
  },
  "libxslt-faq.html": {
    title: "FAQ",
    minKept: 0.99,
    contains: ["Action against software patents (http://swpat.ffii.org/)"],
    lines: [
      "# The XSLT C library for GNOME",
      "## FAQ",
      "- Home (https://docs.test/pages/index.html)",
      "- flat page (https://docs.test/pages/xslt.html), stylesheet (https://docs.test/pages/site.xsl)",
    ],
    absent: ["TD {font-family"],
  },
  "libxslt-security.html": {
    title: "security: interface for the libxslt security framework",
    minKept: 0.99,
    contains: [
      "typedef xsltSecurityPrefs (https://docs.test/pages/libxslt-security.html#xsltSecurityPrefs) " +
      "* xsltSecurityPrefsPtr;",
    ],
    lines: ["## Synopsis", "### Enum xsltSecurityOption", "sec: | the security options"],
    absent: [],
  },
  "ninja-manual.html": {
    title: "The Ninja build system",
    minKept: 0.99,
    contains: ["as fast as possible — you want the build system to do the minimum work"],
    lines: ["# The Ninja build system", "## Philosophical overview", "- Introduction"],
    absent: ["font-family", "max-width"],
  },
  "node-path.html": {
    title: "Path | Node.js v20.20.2 Documentation",
    minKept: 0.93,
    contains: ["path.join('/foo', 'bar', 'baz/asdf', 'quux', '..');"],
    lines: [
      "# Node.js v20.20.2 documentation",
      "    - path.basename(path[, suffix])",
      "Version | Changes",
      "- path <string> (https://developer.mozilla.org/en-US/docs/Web/JavaScript/" +
      "Data_structures#String_type)",
    ],
    absent: ["localStorage", "Toggle dark mode"],
  },
  "underscore-index.html": {
    title: "Underscore.js",
    minKept: 0.96,
    contains: [],
    lines: ["- » GitHub Repository (https://github.com/jashkenas/underscore)"],
    absent: ["addEventListener", "getElementById"],
  },
  "zlib-how.html": {
    title: "zlib Usage Example",
    minKept: 0.99,
    contains: [],
    lines: ["## zlib Usage Example", "#include <stdio.h>", '#include "zlib.h"'],
    absent: [],
  },
};

const WORD = /[\p{L}\p{N}_]+/gu;

/**
 * The page's visible words by a rough independent reading: comments and the content of script,
 * style and title removed, every tag removed, character references dropped (they are checked
 * through `contains`). Elements the converter drops on purpose (navigation, forms, buttons,
 * hidden ones) are among these, so a page's `minKept` is below 1 when it has them.
 */
function visibleWords(html: string): Map<string, number> {
  const text = html.replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(script|style|title)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&[#a-z0-9]+;?/gi, " ");
  return countWords(text);
}

function countWords(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of text.match(WORD) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

/** Share of `reference` (a word multiset) that `text` holds. */
function keptShare(reference: Map<string, number>, text: string): number {
  const got = countWords(text);
  let total = 0;
  let kept = 0;
  for (const [word, n] of reference) {
    total += n;
    kept += Math.min(n, got.get(word) ?? 0);
  }
  return total === 0 ? 1 : kept / total;
}

/** Lines of at least 16 characters inside the page's script and style elements. */
function scriptAndStyleLines(html: string): string[] {
  return [...html.matchAll(/<(script|style)\b[^>]*>([\s\S]*?)<\/\1\s*>/gi)]
    .flatMap((m) => m[2].split("\n"))
    .map((line) => line.trim())
    .filter((line) => line.length >= 16);
}

const REFERENCE = /&(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/gi;

Deno.test("the page corpus holds every fixture the table describes", () => {
  const files = [...Deno.readDirSync(PAGES)].map((e) => e.name).filter((n) => n.endsWith(".html"));
  assert.deepEqual(files.sort(), Object.keys(EXPECTED).sort());
  for (const name of files) {
    assert.ok(Deno.statSync(new URL(name, PAGES)).size < 200_000, `${name} is over 200 KB`);
  }
});

for (const [name, expected] of Object.entries(EXPECTED)) {
  Deno.test(`htmlToText on ${name}: words, no script or style, references, blocks, links`, () => {
    const html = Deno.readTextFileSync(new URL(name, PAGES));
    const { title, text } = htmlToText(html, `${BASE}${name}`);
    assert.equal(title, expected.title);
    // (a) the visible words are kept.
    const kept = keptShare(visibleWords(html), text);
    assert.ok(kept >= expected.minKept, `kept ${kept.toFixed(3)} of the visible words`);
    // (b) nothing of script or style content.
    for (const line of scriptAndStyleLines(html)) {
      assert.ok(!text.includes(line), `script or style text leaked: ${line}`);
    }
    for (const absent of expected.absent) assert.ok(!text.includes(absent), absent);
    // (c) character references decoded: only those the page escapes as text remain.
    const literal = html.match(/&amp;(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);/gi)?.length ?? 0;
    const left = text.match(REFERENCE) ?? [];
    assert.ok(left.length <= literal, `undecoded references: ${left.slice(0, 5).join(" ")}`);
    // (d) block structure: chosen lines stand alone; at most one blank line; no bare marker.
    const lines = new Set(text.split("\n"));
    for (const line of expected.lines) assert.ok(lines.has(line), `missing line: ${line}`);
    assert.ok(!text.includes("\n\n\n"), "more than one blank line");
    assert.ok(![...lines].some((l) => /^\s*(-|\d+\.)$/.test(l)), "a list marker alone on a line");
    assert.ok(![...lines].some((l) => /[ \t]$/.test(l) && l.trim() !== ""), "trailing space");
    // (e) links as `text (url)`: absolute, never a fragment or a script.
    for (const piece of expected.contains) assert.ok(text.includes(piece), piece);
    assert.ok(!/ \((?:#|javascript:)/.test(text), "a fragment or script link was rendered");
  });
}

Deno.test("parseDdgHtml reads the DuckDuckGo results fixture, skipping the ad", () => {
  const html = Deno.readTextFileSync(new URL("ddg-results.html", PAGES));
  assert.deepEqual(parseDdgHtml(html), [
    {
      title: "GitHub - fb55/htmlparser2: The fast & forgiving HTML/XML parser",
      url: "https://github.com/fb55/htmlparser2",
      snippet:
        'A forgiving HTML and XML parser with a callback interface – it "works on real-world ' +
        'markup"…',
    },
    {
      title: "13.2 Parsing HTML documents — HTML Standard",
      url: "https://html.spec.whatwg.org/multipage/parsing.html#parsing",
      snippet: "This section defines the tokenizer and the tree construction stage; user agents " +
        "must use these rules to parse text/html resources — even those with errors.",
    },
    {
      title: "Comparing parsers: speed <vs> correctness",
      url: "https://docs.example.org/parsers?lang=en&page=2",
      snippet: "",
    },
  ]);
});
