import assert from "node:assert/strict";
import { parse } from "yaml";
import { SKILL_MAX_BYTES } from "../../src/catalog/mod.ts";
import type { Skill } from "../../src/catalog/types.ts";
import { catalogDirs } from "./_dirs.ts";

/** A skill in the format other agent tools use: a folder with SKILL.md and its own files. */
const PDF_SKILL = `---
name: pdf
description: Extract text and tables from PDF files
license: Apache-2.0
allowed-tools: Read, Bash
metadata:
  version: "1.2"
---

# PDF processing

Use pdftotext for plain text; see reference.md for tables.
`;

Deno.test("skills load from flat files and SKILL.md folders with front matter, local over global over plugin", async () => {
  await using dirs = await catalogDirs({
    global: {
      "skills/style-guide.md": "---\ndescription: House style\ntags: [writing, style]\n---\n" +
        "Use short sentences.\n",
      "skills/pdf/SKILL.md": PDF_SKILL,
      "skills/pdf/reference.md": "Tables: use camelot.",
      "skills/notes.md": "No front matter at all.",
      "skills/.hidden.md": "never read",
      "skills/README.txt": "not a skill",
    },
    local: {
      ".svc/skills/style-guide.md": "---\r\ndescription: Project style\r\ntags: docs, api\r\n" +
        "---\r\nUse the project's glossary.\r\n",
      ".svc/skills/empty-folder/other.md": "a folder without SKILL.md is not a skill",
    },
  });
  const catalog = await dirs.load(true, {
    skills: [
      { name: "style-guide", content: "Plugin style." },
      { name: "api", content: "Plugin API guide.", description: "From a plugin", tags: ["x"] },
    ],
  });
  const expected: Skill[] = [
    {
      name: "api",
      content: "Plugin API guide.",
      description: "From a plugin",
      tags: ["x"],
      layer: "plugin",
    },
    {
      name: "notes",
      content: "No front matter at all.",
      layer: "global",
      path: `${dirs.globalDir}/skills/notes.md`,
    },
    {
      name: "pdf",
      content: "# PDF processing\n\nUse pdftotext for plain text; see reference.md for tables.",
      description: "Extract text and tables from PDF files",
      layer: "global",
      path: `${dirs.globalDir}/skills/pdf/SKILL.md`,
    },
    {
      name: "style-guide",
      content: "Use the project's glossary.",
      description: "Project style",
      tags: ["docs", "api"],
      layer: "local",
      path: `${dirs.worktree}/.svc/skills/style-guide.md`,
    },
  ];
  assert.deepEqual([...catalog.skills.values()], expected);
  assert.deepEqual(catalog.warnings, []);
});

Deno.test("a broken skill file is reported with its path while the other skills load", async () => {
  await using dirs = await catalogDirs({
    global: {
      "skills/good.md": "Good skill.",
      "skills/bad-yaml.md": "---\ndescription: [unclosed\n---\nBody",
      "skills/open.md": "---\ndescription: never closed\nBody",
      "skills/list.md": "---\n- a\n- b\n---\nBody",
      "skills/wrongtype.md": "---\ndescription: 42\n---\nBody",
      "skills/empty.md": "---\ndescription: nothing below\n---\n\n",
      "skills/huge.md": "x".repeat(SKILL_MAX_BYTES + 100),
      "skills/bad name.md": "spaces are not allowed",
      "skills/renamed.md": "---\nname: other\n---\nStill loads as renamed.",
      "skills/twice.md": "The flat file wins.",
      "skills/twice/SKILL.md": "The folder loses.",
    },
  });
  await new Deno.Command("mkfifo", { args: [`${dirs.globalDir}/skills/pipe.md`] }).output();
  const catalog = await dirs.load(true);
  const at = (name: string) => `${dirs.globalDir}/skills/${name}`;
  assert.deepEqual([...catalog.skills.keys()], ["good", "renamed", "twice"]);
  assert.equal(catalog.skills.get("twice")?.content, "The flat file wins.");
  assert.deepEqual(
    catalog.warnings.toSorted(),
    [
      `${at("bad name.md")}: a skill name must be 1 to 64 letters, digits, '.', '_' or '-', ` +
      "starting with a letter or digit; skipped",
      `${at("bad-yaml.md")}: its front matter is not valid YAML (${yamlError()}); skipped`,
      `${at("empty.md")}: the skill has no content; skipped`,
      `${at("huge.md")} is larger than the 64 KiB limit (${SKILL_MAX_BYTES + 100} bytes); skipped`,
      `${at("list.md")}: its front matter must be a YAML mapping (key: value lines); skipped`,
      `${at("open.md")}: its front matter starts with --- but has no closing --- line; skipped`,
      `${at("pipe.md")} is not a regular file; skipped`,
      `${at("renamed.md")}: front matter names the skill "other"; svc names it "renamed" after ` +
      "its file or folder",
      `${at("twice/SKILL.md")}: skill "twice" is also ${at("twice.md")}, which is used`,
      `${at("wrongtype.md")}: front matter description: Invalid input: expected string, received ` +
      "number; skipped",
    ].toSorted(),
  );
});

/** The yaml package's own first message line for the unclosed flow sequence above. */
function yamlError(): string {
  try {
    parse("description: [unclosed\n");
  } catch (err) {
    return (err as Error).message.split("\n")[0];
  }
  throw new Error("valid YAML");
}

Deno.test("a skills path that is a file is reported, and the other layer's skills still load", async () => {
  await using dirs = await catalogDirs({
    global: { skills: "not a folder" },
    local: { ".svc/skills/local-one.md": "Local." },
  });
  const catalog = await dirs.load(false);
  assert.deepEqual([...catalog.skills.keys()], ["local-one"]);
  assert.deepEqual(catalog.warnings, [
    `skills folder ${dirs.globalDir}/skills is not a folder; skipped`,
  ]);
});
