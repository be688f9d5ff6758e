/**
 * The identity of an installed build: a hash of its bundle, written here by scripts/bundle.ts.
 * null when svc runs from the source tree, whose code can change under an unchanged version, so
 * nothing is remembered across starts there (start_memo.ts).
 */
export const BUILD_ID: string | null = null;
