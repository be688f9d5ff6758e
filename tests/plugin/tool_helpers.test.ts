import assert from "node:assert/strict";
import { fail, fsError, plural, resolvePath } from "../../src/plugin/api.ts";

Deno.test("resolvePath resolves against the worktree and refuses a NUL byte", () => {
  assert.deepEqual(
    [resolvePath("/w", "a/b.txt"), resolvePath("/w", "/etc/x"), resolvePath("/w", "a\0b")],
    ["/w/a/b.txt", "/etc/x", { content: "Path contains a NUL byte", ok: false }],
  );
});

Deno.test("fsError names the path and what was attempted", () => {
  const cases: Array<[Error, string]> = [
    [new Deno.errors.NotFound("x"), "Path not found: a.txt"],
    [new Deno.errors.PermissionDenied("x"), "Permission denied: a.txt"],
    [new Deno.errors.NotCapable("x"), "Permission denied: a.txt"],
    [new Deno.errors.IsADirectory("x"), "a.txt is a directory"],
    [
      new Deno.errors.NotADirectory("x"),
      "Cannot edit a.txt: a file is in the way of a parent directory",
    ],
    [
      new Deno.errors.AlreadyExists("x"),
      "Cannot edit a.txt: a file is in the way of a parent directory",
    ],
    [new Deno.errors.FilesystemLoop("x"), "Symbolic link loop at a.txt"],
    [new Error("disk on fire"), "Cannot edit a.txt: disk on fire"],
  ];
  assert.deepEqual(
    cases.map(([err]) => fsError(err, "a.txt", { action: "edit" })),
    cases.map(([, content]) => fail(content)),
  );
  assert.deepEqual(fsError("odd", "a.txt"), { content: "Cannot access a.txt: odd", ok: false });
});

Deno.test("plural adds an s to every count but one", () => {
  assert.deepEqual([plural(0, "line"), plural(1, "line"), plural(2, "char")], [
    "0 lines",
    "1 line",
    "2 chars",
  ]);
});
