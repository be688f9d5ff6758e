import assert from "node:assert/strict";
import * as node from "node:url";
import { fileURLToPath, pathToFileURL } from "../../src/util/file_url.ts";

const NAMES = [
  "a",
  "a b",
  "%",
  "%25",
  "%2f",
  "#",
  "?",
  "?x=1#y",
  "\\",
  "\n",
  "\r",
  "\t",
  "é",
  "日本",
  "~",
  "[x]",
  "{y}",
  "`",
  "^",
  "|",
  '"',
  "'",
  "<>",
  ";",
  ":",
  "@",
  "&",
  "=",
  "+",
  "$",
  ",",
  "!",
  "..",
  ".",
  "",
  "a/",
  "x%20y",
  "\0",
];

Deno.test("pathToFileURL gives node:url's URL for paths holding characters a URL reads specially", () => {
  const differ: string[] = [];
  for (const a of NAMES) {
    for (const b of NAMES) {
      for (const path of [`/${a}/${b}`, `${a}/${b}`, `/${a}${b}/`]) {
        const got = pathToFileURL(path).href;
        const want = node.pathToFileURL(path).href;
        if (got !== want) differ.push(`${JSON.stringify(path)}: ${got} != ${want}`);
        // And back: the path each URL names is what node reads from node's URL.
        const back = fileURLToPath(got);
        if (back !== node.fileURLToPath(want)) differ.push(`back ${JSON.stringify(path)}: ${back}`);
      }
    }
  }
  assert.deepEqual(differ.slice(0, 20), []);
});

Deno.test("fileURLToPath refuses what node:url refuses: another scheme, a host, an encoded slash", () => {
  for (const url of ["https://x/a", "file://host/a", "file:///a%2Fb", "file:///a%2fb", "data:,x"]) {
    assert.throws(() => node.fileURLToPath(url), TypeError, url);
    assert.throws(() => fileURLToPath(url), TypeError, url);
  }
  for (const url of ["file:///a/b", "file://localhost/a%20b", new URL("file:///x/%23y")]) {
    assert.equal(fileURLToPath(url), node.fileURLToPath(url));
  }
});
