import assert from "node:assert/strict";
import { writeAllSync } from "../../src/util/write_all.ts";

Deno.test("writeAllSync keeps writing until every byte is taken, for bytes and text", () => {
  const taken: number[][] = [];
  const stingy = {
    writeSync(bytes: Uint8Array) {
      const part = bytes.subarray(0, 3);
      taken.push([...part]);
      return part.length;
    },
  };
  writeAllSync(stingy, new Uint8Array([1, 2, 3, 4, 5, 6, 7]));
  writeAllSync(stingy, "é!");
  assert.deepEqual(taken, [[1, 2, 3], [4, 5, 6], [7], [0xc3, 0xa9, 0x21]]);
});
