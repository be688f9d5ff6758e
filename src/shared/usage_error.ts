/**
 * A command line that cannot be run as given (a bad flag value, flags in conflict). Front-ends
 * throw it for the flags they validate; the CLI turns it into exit code 2.
 */
export class UsageError extends Error {
  override name = "UsageError";
}
