/**
 * The floor of the turns benchmark: a bare client, no dependencies, making the same single
 * streamed chat-completions request svc makes and printing the answer as it arrives. Arguments:
 * the provider URL and the model. What svc does beyond this is svc's own cost.
 */
const [url, model] = Deno.args;
const res = await fetch(`${url}/v1/chat/completions`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    model,
    stream: true,
    messages: [{ role: "user", content: "hi" }],
  }),
});
const decoder = new TextDecoder();
const encoder = new TextEncoder();
let buffered = "";
for await (const chunk of res.body!) {
  buffered += decoder.decode(chunk, { stream: true });
  const lines = buffered.split("\n");
  buffered = lines.pop()!;
  let out = "";
  for (const line of lines) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    out += JSON.parse(line.slice(6)).choices?.[0]?.delta?.content ?? "";
  }
  if (out) Deno.stdout.writeSync(encoder.encode(out));
}
Deno.stdout.writeSync(encoder.encode("\n"));
