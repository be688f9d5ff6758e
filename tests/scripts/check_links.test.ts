import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { checkLinks, headingIds } from "../../scripts/check_links.ts";

/** A temp project holding `files`. */
async function tree(files: Record<string, string>): Promise<{ root: string } & AsyncDisposable> {
  const root = await Deno.makeTempDir({ prefix: "svc_links_" });
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(dirname(join(root, path)), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
  return { root, [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }) };
}

Deno.test("the link checker accepts links to files and headings that exist", async () => {
  await using t = await tree({
    "README.md": "# svc\n\nSee [tools](docs/tools.md#file-tools-svc-core-fs) and [top](#svc), " +
      "[web](https://example.com/x.md) and [`example/`](docs/example/README.md).\n",
    "docs/tools.md": "# Tools\n\n## File tools (svc-core-fs)\n\nBack: [README](../README.md).\n",
    "docs/example/README.md": "# Example\n\n[trust](../tools.md#tools)\n",
  });
  assert.deepEqual(await checkLinks(t.root), []);
});

Deno.test("the link checker reports a missing file, a missing heading and an escape", async () => {
  await using t = await tree({
    "README.md": "[gone](docs/gone.md) [old](docs/tools.md#plugins) [up](../x.md)\n",
    "docs/tools.md": "# Tools\n",
  });
  assert.deepEqual(await checkLinks(t.root), [
    "README.md: docs/gone.md (no such file)",
    "README.md: docs/tools.md#plugins (no such heading)",
    "README.md: ../x.md (leads outside the repository)",
  ]);
});

Deno.test("the link checker ignores links inside code blocks and code spans", async () => {
  await using t = await tree({
    "README.md": "```md\n[a](missing.md)\n```\n\nText `[b](missing.md)` here.\n",
  });
  assert.deepEqual(await checkLinks(t.root), []);
});

Deno.test("heading ids follow GitHub: code and punctuation dropped, duplicates numbered", () => {
  assert.deepEqual(
    headingIds(
      "# svc\n## Trusted worktrees: `svc trust`\n## API keys: `~/.config/svc/providers.json`\n" +
        "## bash_allow\n## Security\n### Security\n```sh\n# not a heading\n```\n",
    ),
    new Set([
      "svc",
      "trusted-worktrees-svc-trust",
      "api-keys-configsvcprovidersjson",
      "bash_allow",
      "security",
      "security-1",
    ]),
  );
});
