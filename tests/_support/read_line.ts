/**
 * Reads `reader` until its text holds a line end or the stream ends, and returns all the text read
 * (which may run past the first line). The reader stays usable for what follows.
 */
export async function readThroughFirstLine(
  reader: ReadableStreamDefaultReader<string>,
): Promise<string> {
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  return text;
}
