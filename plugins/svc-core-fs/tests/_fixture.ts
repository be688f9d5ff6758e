/** Test support: a mixed tree exercising every file rule of glob and grep. */
import { join } from "node:path";
import { worktree } from "./_context.ts";

const encoder = new TextEncoder();

/** A worktree with sources, noise dirs, binary, oversized, CRLF and Unicode files and links. */
export async function mixedTree() {
  const late = new Uint8Array(200_010);
  late.set(encoder.encode("hello early\n"));
  late.fill(120, 12, 200_000);
  late[200_001] = 0;
  late.set(encoder.encode("\nhello"), 200_002);
  const w = await worktree({
    "src/a.ts": "hello world\nfoo\n  indented hello  \n",
    "src/sub/b.ts": "export const hello = 1;\n",
    "src/c.py": "print('Hello')\nfoo\n",
    "lib/d.js": "// hello from lib\n",
    ".github/ci.yml": "name: hello\n",
    "docs/guide.md": "# Guide\nno greeting here\n",
    "build": "hello, a file named like a noise dir\n",
    "node_modules/x/index.js": "hello\n",
    "dist/out.js": "hello\n",
    ".git/config": "hello\n",
    "src/__pycache__/c.pyc": "hello\n",
    "bin.dat": new Uint8Array([104, 101, 108, 108, 111, 0, 1, 2]),
    "late.bin": late,
    "big.txt": "hello\n" + "y".repeat(1024 * 1024),
    "exact.txt": "hello\n" + "y".repeat(1024 * 1024 - 7) + "\n",
    "crlf.txt": "hello\r\nfoo\r\n",
    "unicode.txt": "héllo wörld\n日本語 hello\n",
  });
  await Deno.mkdir(join(w.root, "empty"));
  await Deno.symlink("src/a.ts", join(w.root, "link.ts"));
  await Deno.symlink("src", join(w.root, "srclink"));
  await Deno.symlink("loop2", join(w.root, "loop1"));
  await Deno.symlink("loop1", join(w.root, "loop2"));
  await Deno.symlink("..", join(w.root, "src", "up"));
  return w;
}
