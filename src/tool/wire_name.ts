/**
 * Tool names on the wire. svc's canonical names may hold dots (`<prefix>.<tool>`, the tools an
 * MCP server exports) and run up to 128 characters, but many chat-completions backends refuse a
 * function name outside `[A-Za-z0-9_-]{1,64}`. Each tool of a view therefore has a wire name:
 *
 * 1. a canonical name that already fits is its own wire name (every built-in tool);
 * 2. otherwise each `.` becomes `__` (`fs.read_file` goes out as `fs__read_file`);
 * 3. when that is longer than 64 characters, or equals another tool's name, alias or wire name,
 *    it is cut to 55 characters and `_` plus 8 hex digits of a hash of the canonical name are
 *    appended (tools are taken in registration order, so a built-in is never displaced).
 *
 * The view maps each wire name back to exactly its tool; a call by the canonical name resolves
 * too. Nothing is decoded, so the rule never needs to be reversible.
 */

/** What every tool name must look like: MCP's own rule for tool names. */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** What chat-completions backends accept as a function name. */
export const WIRE_SAFE = /^[A-Za-z0-9_-]{1,64}$/;

/** Throws a readable error for a name that breaks `TOOL_NAME`. */
export function checkToolName(name: string): void {
  if (!TOOL_NAME.test(name)) {
    throw new Error(`Tool name "${name}" must be 1-128 letters, digits, _ . or -`);
  }
}

/**
 * Wire names for `names` (canonical, in registration order); `taken` holds every canonical name
 * and alias of the view, which no wire name of another tool may equal.
 */
export function assignWireNames(
  names: Iterable<string>,
  taken: ReadonlySet<string>,
): Map<string, string> {
  const wire = new Map<string, string>();
  const used = new Set<string>();
  const pending: string[] = [];
  for (const name of names) {
    if (WIRE_SAFE.test(name)) {
      wire.set(name, name);
      used.add(name);
    } else pending.push(name);
  }
  for (const name of pending) {
    const encoded = name.replaceAll(".", "__");
    let candidate = encoded;
    for (let salt = 0; !free(candidate, taken, used); salt++) {
      candidate = `${encoded.slice(0, 55)}_${hash(salt ? `${name}#${salt}` : name)}`;
    }
    wire.set(name, candidate);
    used.add(candidate);
  }
  return wire;
}

function free(candidate: string, taken: ReadonlySet<string>, used: ReadonlySet<string>): boolean {
  return WIRE_SAFE.test(candidate) && !taken.has(candidate) && !used.has(candidate);
}

/** FNV-1a, 32 bits, as 8 hex digits: short, stable across runs and platforms. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}
