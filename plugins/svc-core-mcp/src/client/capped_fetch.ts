/** A fetch whose response bodies end in an error past a byte cap (an MCP server over HTTP). */

type Fetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** `fetch`, with each response body cut off by an error once it passes `maxBytes`. */
export function cappedFetch(maxBytes: number, base: Fetch = fetch): Fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    let seen = 0;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxBytes) {
            controller.error(new Error(`the server's response passed ${maxBytes} bytes`));
          } else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
