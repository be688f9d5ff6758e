/**
 * The fake provider of serve_memory.ts, in its own process so the bench's RSS is svc's alone.
 * Every turn is one tool round: a request whose last message is the user's prompt is answered
 * with a file_read call of the file the prompt names ("Read <path> ..."), with a call id unique
 * across the run like a real provider's; the request after the tool result gets a short text.
 * Prints its URL on stdout and keeps no request bodies.
 */
import { startFakeProvider } from "../../tests/_support/fake_provider.ts";

const fake = await startFakeProvider((body, index) => {
  fake.requests.length = 0;
  const messages: Array<{ role: string; content?: string }> = body.messages;
  if (messages.at(-1)?.role === "tool") {
    return { text: "Done: the file was read.", chunkSize: 1000 };
  }
  const prompt = messages.findLast((m) => m.role === "user")?.content ?? "";
  const path = /^Read (\S+)/.exec(prompt)?.[1] ?? "notes.txt";
  return {
    tool_calls: [{ id: `call_${index}`, name: "file_read", arguments: { path } }],
    chunkSize: 1000,
  };
});
console.log(fake.url);
