/** The options of writeFileAtomic (their own file, so confined.ts needs nothing of atomic.ts). */
/** How writeFileAtomic writes. */
export interface AtomicWriteOptions {
  /** Permission bits of a new file (default 0o644), narrowed by the umask. */
  mode?: number;
  /** A file already at the path keeps its permission bits exactly, umask aside. */
  keepMode?: boolean;
  /** fsync the folder after the rename (default true). */
  syncDir?: boolean;
  /** Create missing parent folders. */
  parents?: boolean;
  /**
   * Nothing outside this folder may be created or changed, even when a symbolic link on the way
   * is swapped during the write: the folder actually opened is checked before anything is written
   * (on Linux through its descriptor, when Deno allows /proc/self/fd; elsewhere by path, just
   * before the write, which a concurrent swap can race). Throws `OutsideRootError` when the
   * file's folder lies outside it.
   */
  confineTo?: string;
}
