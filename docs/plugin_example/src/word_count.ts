import { z } from "zod";
import type { Tool } from "./svc_types.ts";

/** Counts words, lines and characters of a text. */
export const wordCount: Tool = {
  name: "word_count",
  category: "read",
  description: "Count the words, lines and characters of a text.",
  schema: z.object({ text: z.string().describe("The text to count") }),
  run(args) {
    const text = String(args.text ?? "");
    if (text === "") {
      return Promise.resolve({ content: "text is empty", ok: false });
    }
    const words = text.split(/\s+/).filter(Boolean).length;
    const lines = text.split("\n").length;
    const count = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
    return Promise.resolve(
      [
        count(words, "word"),
        count(lines, "line"),
        count(text.length, "character"),
      ].join(", "),
    );
  },
};
