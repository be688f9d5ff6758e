/** The refusal of a write that would leave its root folder (no file system access here). */
import { resolve } from "./posix_path.ts";
import { isInside } from "./canonical_path.ts";

/** A write was refused because its folder lies, or came to lie, outside the root. */
export class OutsideRootError extends Error {
  override name = "OutsideRootError";
}

/** The refusal of a write into folder `dir`, which lies outside `root`. */
export function outside(dir: string, root: string): OutsideRootError {
  const how = isInside(root, resolve(root, dir)) ? " through a symbolic link" : "";
  return new OutsideRootError(`${dir} leads outside ${root}${how}; nothing was written`);
}
