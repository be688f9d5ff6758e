import assert from "node:assert/strict";
import { textWidth } from "../../src/repl/width.ts";

Deno.test("before the width tables load, the first paint measures svc's banner without Intl.Segmenter (its first use loads ICU's data)", () => {
  const real = Intl.Segmenter;
  // A segmenter made now would throw: the first paint must not make one.
  Object.defineProperty(Intl, "Segmenter", {
    configurable: true,
    value: class {
      constructor() {
        throw new Error("Intl.Segmenter used before the first prompt");
      }
    },
  });
  try {
    assert.deepEqual(
      [textWidth("svc 0.27.0 · /help lists the commands"), textWidth("› "), textWidth("ctx ≈ 1k")],
      [37, 2, 8],
    );
  } finally {
    Object.defineProperty(Intl, "Segmenter", { configurable: true, value: real });
  }
});
