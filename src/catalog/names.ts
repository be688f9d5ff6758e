/** The rule for names of types, teams and skills, without the entry schemas (and zod). */

/** Names of types, teams and skills: a file or folder name, also in `.svc/teams/<name>/`. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** What a name must look like, for messages. */
export const NAME_RULE =
  "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit";
