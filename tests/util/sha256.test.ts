import assert from "node:assert/strict";
import { sha256Hex } from "../../src/util/sha256.ts";

Deno.test("sha256Hex gives the standard digest of UTF-8 text as lowercase hex", async () => {
  assert.equal(
    await sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal((await sha256Hex("é")).length, 64);
});
