/**
 * The instant provider of agents.ts, in its own process so svc's time is measured alone. A request
 * whose user message starts with "TOOL" and has no tool result yet gets an `echo` call; every other
 * request (tool results, stage briefs, summaries) gets a short text. Prints its URL on stdout and
 * keeps no request bodies.
 */
import { startFakeProvider } from "../../tests/_support/fake_provider.ts";

const fake = await startFakeProvider((body, index) => {
  fake.requests.length = 0;
  const messages: Array<{ role: string; content?: string }> = body.messages;
  const user = messages.find((m) => m.role === "user")?.content ?? "";
  if (user.startsWith("TOOL") && !messages.some((m) => m.role === "tool")) {
    return {
      tool_calls: [{ id: `call_${index}`, name: "echo", arguments: { text: "hi" } }],
      chunkSize: 1000,
    };
  }
  return { text: "Done.", chunkSize: 1000 };
});
console.log(fake.url);
